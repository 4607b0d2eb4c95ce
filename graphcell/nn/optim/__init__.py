"""Optimizers with MindSpore's names, formulas and state Parameters."""
from .adagrad import Adagrad  # noqa: F401
from .adam import Adam, AdamW, AdamWeightDecay  # noqa: F401
from .ftrl import FTRL  # noqa: F401
from .lamb import Lamb  # noqa: F401
from .lars import LARS  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .rmsprop import RMSProp  # noqa: F401
from .sgd import SGD, Momentum  # noqa: F401

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "AdamW", "Adagrad", "RMSProp", "Lamb",
           "FTRL", "LARS"]
