"""Optimizers with MindSpore's names, formulas and state Parameters."""
from .adadelta import Adadelta  # noqa: F401
from .adafactor import AdaFactor  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adam import Adam, AdamW, AdamWeightDecay  # noqa: F401
from .adamax import AdaMax  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .ftrl import FTRL  # noqa: F401
from .lamb import Lamb  # noqa: F401
from .lars import LARS  # noqa: F401
from .lazyadam import LazyAdam  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .proximal_adagrad import ProximalAdagrad  # noqa: F401
from .rmsprop import RMSProp  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .sgd import SGD, Momentum  # noqa: F401

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamWeightDecay", "AdamW", "Adagrad", "RMSProp", "Lamb",
           "FTRL", "LARS", "ASGD", "AdaMax", "Adadelta", "AdaFactor", "LazyAdam", "ProximalAdagrad", "Rprop"]
