"""MindSpore's other stock callbacks: `EarlyStopping`, `ReduceLROnPlateau`, `History`,
`LambdaCallback`, `LearningRateScheduler`, with MindSpore 2.10's semantics (measured by
driving each with the same epoch losses on 2.10), quirks included where they are behaviour a
user relies on: EarlyStopping counts an epoch *before* asking whether it improved, so
`patience=0` stops after the first epoch and `patience=p` after p epochs without improvement.

The monitored value is `"loss"` (the last step's loss at the epoch's end) or a key of
`cb_params.eval_results` (what Model.fit fills in after a validated epoch: the metrics and
"eval_loss"); a monitor that is missing is logged and skipped.
"""
from __future__ import annotations

import logging
import math
import numbers

import numpy as np

from .callback import Callback, _check_int, _loss_value

__all__ = ["EarlyStopping", "ReduceLROnPlateau", "History", "LambdaCallback", "LearningRateScheduler"]

logger = logging.getLogger(__name__)

# monitors for which mode="auto" means smaller is better (MindSpore's list)
_SMALLER_BETTER = ("hausdorff_distance", "mae", "mse", "loss", "perplexity", "mean_surface_distance",
                   "root_mean_square_distance", "eval_loss")


def _check_type(owner: str, name: str, value, types: tuple):
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        raise TypeError(f"{owner}: {name} must be {' or '.join(t.__name__ for t in types)}, got "
                        f"{type(value).__name__} {value!r}")
    return value


class _Monitor:
    """What EarlyStopping and ReduceLROnPlateau share: the monitor, mode and min_delta."""

    def __init__(self, owner, monitor, mode, min_delta, patience, verbose):
        self.monitor = _check_type(owner, "monitor", monitor, (str,))
        self.min_delta = abs(_check_type(owner, "min_delta", min_delta, (float, int)))
        self.patience = _check_int(owner, "patience", patience)
        self.verbose = _check_type(owner, "verbose", verbose, (bool,))
        self.mode = _check_type(owner, "mode", mode, (str,))
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"{owner}: mode should be 'auto', 'min' or 'max', but got {mode}.")
        self._owner = owner
        self.wait = 0
        self.best = self._worst()

    def _smaller_is_better(self) -> bool:
        return self.mode == "min" or (self.mode == "auto" and self.monitor in _SMALLER_BETTER)

    def _worst(self) -> float:
        return np.inf if self._smaller_is_better() else -np.inf

    def is_improvement(self, current, reference) -> bool:
        if self._smaller_is_better():
            return bool(current < reference - self.min_delta)
        return bool(current > reference + self.min_delta)

    def _monitor_value(self, cb):
        if self.monitor == "loss":
            value, candidates = _loss_value(cb.net_outputs), {}
        else:
            candidates = getattr(cb, "eval_results", None) or {}
            value = candidates.get(self.monitor)
        if value is None:
            logger.warning("%s: %r is not available this epoch (choices: %s); skipped", self._owner, self.monitor,
                           sorted({"loss", *candidates}))
            return None
        value = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
        if value.shape != ():
            raise ValueError(f"{self._owner} only supports a scalar monitor, but {self.monitor!r} has shape "
                             f"{list(value.shape)}")
        return float(value)


class EarlyStopping(Callback):
    """Stops training when the monitored value has not improved (by more than `min_delta`)
    for `patience` epochs; `baseline`: improvements that do not beat it do not count.
    `restore_best_weights` loads the best epoch's parameters into the training network when
    it stops. `mode` "auto" minimises losses and errors and maximises everything else."""

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False, mode="auto", baseline=None,
                 restore_best_weights=False):
        self._m = _Monitor("EarlyStopping", monitor, mode, min_delta, patience, verbose)
        # MindSpore 2.10 stores abs(min_delta) as the baseline (a slip); this is the baseline given
        self.baseline = None if baseline is None else float(_check_type("EarlyStopping", "baseline", baseline,
                                                                          (float, int)))
        self.restore_best_weights = _check_type("EarlyStopping", "restore_best_weights", restore_best_weights,
                                                (bool,))
        self.stopped_epoch = 0
        self._best_weights = None

    monitor = property(lambda self: self._m.monitor)
    patience = property(lambda self: self._m.patience)
    best = property(lambda self: self._m.best)
    wait = property(lambda self: self._m.wait)

    def on_train_begin(self, run_context):
        self._m.wait, self._m.best = 0, self._m._worst()
        self.stopped_epoch = 0
        self._best_weights = None

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        current = self._m._monitor_value(cb)
        if current is None:
            return
        if self.restore_best_weights and self._best_weights is None:
            self._best_weights = _snapshot(cb.train_network)
        self._m.wait += 1   # before the improvement test, as MindSpore counts
        if self._m.is_improvement(current, self._m.best):
            self._m.best = current
            if self.restore_best_weights:
                self._best_weights = _snapshot(cb.train_network)
            if self.baseline is None or self._m.is_improvement(current, self.baseline):
                self._m.wait = 0
        if self._m.wait >= self._m.patience:
            self.stopped_epoch = cb.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self._best_weights is not None:
                if self._m.verbose:
                    print("Restoring model weights from the end of the best epoch.")
                _restore(cb.train_network, self._best_weights)

    def on_train_end(self, run_context):
        if self.stopped_epoch > 0 and self._m.verbose:
            print("Epoch %05d: early stopping" % self.stopped_epoch)


def _snapshot(network) -> dict:
    return {p.name: p.asnumpy().copy() for p in network.get_parameters()}


def _restore(network, values: dict) -> None:
    for p in network.get_parameters():
        if p.name in values:
            p.set_data(values[p.name])


class ReduceLROnPlateau(Callback):
    """Multiplies the optimizer's (float) learning rate by `factor` when the monitored value
    has not improved for `patience` epochs, no lower than `min_lr`, then waits `cooldown`
    epochs before counting again."""

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0):
        self._m = _Monitor("ReduceLROnPlateau", monitor, mode, min_delta, patience, verbose)
        _check_type("ReduceLROnPlateau", "factor", factor, (float,))
        if not 0.0 < factor < 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be in (0.0, 1.0), got {factor}")
        self.factor = factor
        self.cooldown = _check_int("ReduceLROnPlateau", "cooldown", cooldown)
        self.min_lr = _check_type("ReduceLROnPlateau", "min_lr", min_lr, (float, int))
        self.cooldown_counter = 0

    monitor = property(lambda self: self._m.monitor)
    patience = property(lambda self: self._m.patience)
    best = property(lambda self: self._m.best)
    wait = property(lambda self: self._m.wait)

    def on_train_begin(self, run_context):
        self.cooldown_counter, self._m.wait, self._m.best = 0, 0, self._m._worst()

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        lr = _scalar_lr(cb.optimizer, "ReduceLROnPlateau")
        current = self._m._monitor_value(cb)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self._m.wait = 0
        if self._m.is_improvement(current, self._m.best):
            self._m.best = current
            self._m.wait = 0
        elif self.cooldown_counter <= 0:
            self._m.wait += 1
            if self._m.wait >= self._m.patience:
                old = np.float32(lr.asnumpy())
                if old > self.min_lr:
                    new = np.float32(max(old * np.float32(self.factor), self.min_lr))
                    lr.set_data(np.asarray(new, np.float32))
                    if self._m.verbose:
                        print("Epoch %05d: ReduceLROnPlateau reducing learning rate to %s."
                              % (cb.cur_epoch_num, new))
                self.cooldown_counter = self.cooldown
                self._m.wait = 0


def _scalar_lr(optimizer, owner: str):
    """The optimizer's float learning rate Parameter (a list or a schedule has no one value to change)."""
    from ..tensor import Parameter
    lr = getattr(optimizer, "learning_rate", None)
    if not isinstance(lr, Parameter) or lr.ndim != 0:
        raise ValueError(f"{owner} does not support dynamic learning rate and group learning rate now "
                         "(it needs an optimizer built with a float learning_rate).")
    return lr


class History(Callback):
    """Records, at the end of each epoch, the epoch number (`epoch["epoch"]`), the mean of the
    network's (first) output (`history["net_output"]`) and the epoch's metrics."""

    def __init__(self):
        self.history: dict = {}
        self.epoch = None

    def begin(self, run_context):
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context):
        cb = run_context.original_args()
        self.epoch["epoch"].append(getattr(cb, "cur_epoch_num", 1))
        out = cb.net_outputs
        if isinstance(out, (tuple, list)) and out and hasattr(out[0], "asnumpy"):
            out = out[0]
        if hasattr(out, "asnumpy"):
            out = float(np.mean(out.asnumpy()))
        entry = {"net_output": out}
        entry.update(getattr(cb, "metrics", None) or {})
        for key, value in entry.items():
            self.history.setdefault(key, []).append(value)


class LambdaCallback(Callback):
    """A callback made of functions: each given `on_...(run_context)` replaces that hook."""

    _HOOKS = ("on_train_epoch_begin", "on_train_epoch_end", "on_train_step_begin", "on_train_step_end",
              "on_train_begin", "on_train_end", "on_eval_epoch_begin", "on_eval_epoch_end", "on_eval_step_begin",
              "on_eval_step_end", "on_eval_begin", "on_eval_end")

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None, on_train_step_begin=None,
                 on_train_step_end=None, on_train_begin=None, on_train_end=None, on_eval_epoch_begin=None,
                 on_eval_epoch_end=None, on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        given = locals()
        for hook in self._HOOKS:
            fn = given[hook]
            if fn is not None and not callable(fn):
                raise TypeError(f"LambdaCallback: {hook} must be callable, got {type(fn).__name__}")
            setattr(self, hook, fn if fn is not None else _nothing)


def _nothing(run_context):
    return None


class LearningRateScheduler(Callback):
    """After each step, sets the optimizer's (float) learning rate to
    `learning_rate_function(lr, cur_step_num)` when that differs from the current one."""

    def __init__(self, learning_rate_function):
        if not callable(learning_rate_function):
            raise TypeError("LearningRateScheduler: learning_rate_function must be callable, got "
                            f"{type(learning_rate_function).__name__}")
        self.learning_rate_function = learning_rate_function

    def step_end(self, run_context):
        cb = run_context.original_args()
        param = _scalar_lr(cb.optimizer, "LearningRateScheduler")
        # the float32 value as printed, as MindSpore reads it (np.array2string)
        lr = float(np.array2string(param.asnumpy()))
        new = self.learning_rate_function(lr, cb.cur_step_num)
        if not isinstance(new, numbers.Real):
            raise TypeError(f"LearningRateScheduler: learning_rate_function returned {type(new).__name__}, "
                            "not a number")
        if not math.isclose(lr, new, rel_tol=1e-10):
            param.set_data(np.asarray(new, np.float32))
            logger.info("At step %s, learning_rate change to %s", cb.cur_step_num, new)
