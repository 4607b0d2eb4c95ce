"""mindspore.experimental.optim: torch.optim's optimizers on MindSpore's call `optimizer(grads)`.

As in 2.10, `Optimizer` is mint.optim's base (the same class), while Adam, AdamW and SGD are
classes of their own (2.10's `mint.optim.Adam is not experimental.optim.Adam`, measured): their
state differs (Adam always keeps `max_exp_avg_sq` and an int32 step; SGD keeps `accum` and
`stat`). Schedulers are in `lr_scheduler`.
"""
from ...mint.optim.optimizer import Optimizer  # noqa: F401
from . import lr_scheduler  # noqa: F401
from .accumulators import Adadelta, Adagrad, RMSprop  # noqa: F401
from .adam import Adam, Adamax, AdamW, NAdam, RAdam  # noqa: F401
from .sgd import ASGD, SGD, Rprop  # noqa: F401

__all__ = ["Optimizer", "AdamW", "SGD", "Adam", "Adadelta", "Adagrad", "ASGD", "Adamax", "RMSprop", "Rprop",
           "RAdam", "NAdam"]
