"""mindspore.mint.nn: PyTorch-style layers (mint.nn.Linear, mint.nn.Conv2d, ...)."""
from . import functional  # noqa: F401
