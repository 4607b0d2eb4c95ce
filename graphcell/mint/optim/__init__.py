"""mindspore.mint.optim: PyTorch-style optimizers (SGD, Adam, AdamW) with param_groups."""
