"""Optimizers with MindSpore's names, formulas and state Parameters."""
from .adam import Adam, AdamW, AdamWeightDecay  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD, Momentum  # noqa: F401

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "AdamW"]
