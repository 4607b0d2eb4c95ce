"""mindspore.mint.optim: PyTorch-style optimizers (SGD, Adam, AdamW) with param_groups."""
from .adam import Adam, AdamW, FusedAdamW  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401

__all__ = ["Adam", "AdamW", "FusedAdamW", "SGD"]
