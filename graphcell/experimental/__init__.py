"""mindspore.experimental: torch-style optimizers and learning-rate schedulers (`optim`)."""
from . import optim  # noqa: F401
