"""mindspore.mint.nn.functional: PyTorch-style functional layers (relu, linear, cross_entropy, ...)."""
