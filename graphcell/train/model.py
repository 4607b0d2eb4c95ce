"""`Model`: MindSpore's high-level train / fit / eval / predict wrapper.

The training step (network + loss, value_and_grad, optimizer update) is one TrainOneStepCell
compiled once with `graphcell.jit` when the Model is built; every step runs that compiled graph,
so per-step Python work is only the data iterator and the callbacks.
"""
from __future__ import annotations

import itertools

from ..compiler.jit import jit
from ..nn.cell import Cell
from . import metrics as _metrics
from .metrics_registry import get_metric_fn, names as _metric_names
from .callback import Callback, ProgressBar, RunContext, TimeMonitor, new_cb_params

__all__ = ["Model"]

# MindSpore's metric names (get_metric_fn's), matched case-insensitively here ('f1' is 'F1')
_METRIC_NAMES = {name.lower(): name for name in _metric_names()}


def _check_epochs(epoch, initial_epoch, caller: str) -> None:
    """MindSpore 2.10's checks, types and messages (measured)."""
    for v, bound in ((epoch, "> 0"), (initial_epoch, ">= 0")):
        if not isinstance(v, int):
            raise TypeError(f"The input value must be int, but got '{type(v).__name__}'")
        if isinstance(v, bool):
            raise TypeError(f"The input value must be int and must {bound}, but got '{v}' with type 'bool'.")
        if v < (1 if bound == "> 0" else 0):
            raise ValueError(f"The input value must be int and must {bound}, but got '{v}' with type 'int'.")
    if initial_epoch >= epoch:
        raise ValueError(f"For '{caller}', the parameter 'epoch' must bigger than parameter 'initial_epoch', but got "
                         f"the parameter 'epoch' is {epoch}, 'initial_epoch' is {initial_epoch}.")


def _build_metrics(metrics) -> dict:
    """{name: Metric} from None, a set/list of names, or a dict of name -> Metric."""
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        items = metrics.items()
    elif isinstance(metrics, (set, list, tuple)):
        items = ((m, m) for m in metrics)
    else:
        raise TypeError(f"Model: metrics must be a set of names or a dict of name -> Metric, got "
                        f"{type(metrics).__name__}")
    out = {}
    for name, m in items:
        if isinstance(m, str):
            if m.lower() not in _METRIC_NAMES:
                # 2.10's type and message, with the names that are known
                raise KeyError(f"For 'get_metric_fn', unsupported metric {m}, please refer to official website for "
                               f"more details about supported metrics. Known: {sorted(_METRIC_NAMES)}")
            m = get_metric_fn(_METRIC_NAMES[m.lower()])
        if not isinstance(m, _metrics.Metric):
            raise TypeError(f"Model: metric {name!r} must be a graphcell Metric, got {type(m).__name__}")
        out[name] = m
    return out


def _check_sink_size(sink_size, caller: str) -> None:
    """MindSpore 2.10's check, types and messages (measured; it checks in non-sink mode too)."""
    if isinstance(sink_size, bool) or not isinstance(sink_size, int):
        raise TypeError(f"The type of input value must be 'int', but got '{type(sink_size).__name__}'.")
    if sink_size == 0 or sink_size < -1:
        word = "parameter" if caller == "Model.fit" else "argument"
        raise ValueError(f"For '{caller}', The {word} 'sink_size' must be -1 or positive, but got {sink_size}.")


def _dataset_epochs(total_steps: int, start: int, steps: int) -> int:
    """The dataset epochs (passes) a sink-mode run reads: from the one holding global step
    `start` to the one holding step `total_steps`; -1 (endless) for an endless dataset."""
    if steps < 0:
        return -1
    return -(-total_steps // steps) - start // steps


def _batch_stream(iterator):
    """The batches of the iterator's epochs one after another: sink mode's epochs of sink_size
    steps run across the dataset's own epochs (each pass reshuffles, as a new epoch does)."""
    passes = iterator.num_epochs
    while passes != 0:
        yield from iterator
        passes -= 1


def _callbacks(callbacks) -> list[Callback]:
    if callbacks is None:
        return []
    cbs = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for i, cb in enumerate(cbs):
        if not isinstance(cb, Callback):
            raise TypeError(f"Model: callbacks[{i}] must be a graphcell.train.Callback, got {type(cb).__name__}")
    return cbs


_OLD_HOOKS = ("begin", "end", "epoch_begin", "epoch_end", "step_begin", "step_end")


def _is_stock(cb: Callback) -> bool:
    """A callback graphcell provides (LossMonitor, History, ...), not a user's class."""
    return type(cb).__module__.startswith("graphcell.train.")


def _check_fit_callbacks(cbs) -> None:
    """In fit, a hook of the older names would run for training and validation alike
    (epoch_end at both epoch ends): MindSpore 2.10's fit refuses a user callback that defines
    one (measured; its train only warns), and so does this."""
    for cb in cbs:
        if _is_stock(cb):
            continue
        defined = {name for klass in type(cb).__mro__ if not klass.__module__.startswith("graphcell.train.")
                   for name in _OLD_HOOKS if name in vars(klass)}
        if defined:
            raise ValueError(f"For {type(cb).__name__} callback, {defined} methods may not be supported in later "
                             "version, Use methods prefixed with 'on_train' or 'on_eval' instead when using "
                             "customized callbacks.")


def _eval_callbacks_in_fit(cbs) -> list:
    """The callbacks validation in fit calls: as MindSpore 2.10, the user's and TimeMonitor,
    not the other stock ones (History, LossMonitor, EarlyStopping, ..., whose begin/epoch_end
    would otherwise run for validation too)."""
    return [cb for cb in cbs if not _is_stock(cb) or isinstance(cb, TimeMonitor)]


def _check_valid_frequency(valid_frequency) -> None:
    if isinstance(valid_frequency, bool) or not isinstance(valid_frequency, (int, list)):
        raise TypeError(f"For 'Model.fit', the type of 'valid_frequency' must be a list or an integer, but got "
                        f"type {type(valid_frequency)}.")
    if isinstance(valid_frequency, int) and valid_frequency < 1:
        # MindSpore 2.10 takes epoch % valid_frequency: ZeroDivisionError at 0
        raise ValueError(f"For 'Model.fit', the 'valid_frequency' must be an int >= 1 (validate every that many "
                         f"epochs) or a list of epochs, but got {valid_frequency}.")


def _validates_after(epoch: int, valid_frequency) -> bool:
    if isinstance(valid_frequency, int):
        return epoch % valid_frequency == 0
    return epoch in valid_frequency


def _fire(cbs, hook: str, ctx: RunContext) -> None:
    for cb in cbs:
        getattr(cb, hook)(ctx)


def _fire_exception(cbs, ctx: RunContext, error: BaseException) -> None:
    """Tells every callback that training failed (cb_params.exception). A callback that fails
    here adds a note to `error` rather than replacing it: the training error is the one to see."""
    ctx.original_args().exception = error
    for cb in cbs:
        try:
            cb.on_train_exception(ctx)
        except Exception as hook_error:  # noqa: BLE001 - reported on the training error
            error.add_note(f"{type(cb).__name__}.on_train_exception failed too: {hook_error!r}")


def _start_step(dataset, initial_epoch: int, steps: int, caller: str = "Model.train") -> int:
    """The global step training resumes after: the dataset's `set_init_step`, which must lie in
    epoch initial_epoch + 1, else the start of that epoch."""
    init_step = dataset.get_init_step() if hasattr(dataset, "get_init_step") else 0
    if not init_step:
        return initial_epoch * steps if steps > 0 else 0
    if steps > 0 and init_step // steps != initial_epoch:
        raise ValueError(f"{caller}: the dataset starts at step {init_step} (set_init_step), in epoch "
                         f"{init_step // steps + 1} of {steps} steps, but initial_epoch={initial_epoch} resumes at "
                         f"epoch {initial_epoch + 1}; pass initial_epoch={init_step // steps}")
    return init_step


class Model:
    """Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, amp_level="O0").

    With `loss_fn`, `network(data) -> logits` and the step is `loss_fn(network(data), label)`;
    without it, `network(*columns)` must already return the loss. Without `optimizer`, training runs
    that (loss) network as it is each step, as 2.10: Model(TrainOneStepCell(...)) trains with a
    user's whole step; a plain loss network only computes. `metrics`: a set of names
    ({"accuracy", "loss", ...}) or a dict of name -> Metric. For `eval`, the default eval network
    returns (loss, logits, label): a `Loss` metric gets the loss, the others (logits, label).
    """

    def __init__(self, network: Cell, loss_fn: Cell | None = None, optimizer=None, metrics=None,
                 eval_network: Cell | None = None, eval_indexes=None, amp_level: str = "O0",
                 boost_level: str = "O0", **kwargs):
        from ..nn.optim import Optimizer
        from ..nn.wrap import WithEvalCell, WithLossCell, _AmpWithLossCell
        from .amp_train import train_step_cell
        if not isinstance(network, Cell):
            raise TypeError(f"Model: network must be a graphcell.nn.Cell, got {type(network).__name__}")
        if optimizer is not None and not isinstance(optimizer, Optimizer):
            raise TypeError(f"Model: optimizer must be a graphcell.nn Optimizer, got {type(optimizer).__name__}")
        for arg in kwargs:   # 2.10's check and message
            if arg not in ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict", "acc_level"):
                raise ValueError(f"The argument in 'kwargs' should be 'loss_scale_manager' or 'keep_batchnorm_fp32' "
                                 f"or 'boost_config_dict' or 'acc_level', but got '{arg}'.")
        loss_scale_manager = kwargs.get("loss_scale_manager")
        from .loss_scale_manager import LossScaleManager
        if loss_scale_manager is not None and not isinstance(loss_scale_manager, LossScaleManager):
            raise TypeError(f"The type of 'loss_scale_manager' should be one of '['LossScaleManager', "
                            f"'GroupLossScaleManager']', but got type '{type(loss_scale_manager).__name__}'.")
        if amp_level not in ("O0", "O1", "O2", "O3", "auto"):
            raise ValueError(f"Model: amp_level must be 'O0', 'O1', 'O2', 'O3' or 'auto', got {amp_level!r}")
        low_precision_outputs = amp_level in ("O2", "O3")
        if amp_level != "O0":
            if optimizer is None:  # MindSpore 2.10 refuses it too (its amp is part of the train network)
                raise ValueError(f"Model: amp_level={amp_level!r} needs an optimizer (mixed precision is set up with "
                                 "the training network); pass amp_level='O0', or convert the network yourself "
                                 "with graphcell.amp.auto_mixed_precision")
            from ..amp import auto_mixed_precision, convert_in_place
            if low_precision_outputs:
                # as MindSpore's Model: the network itself computes and returns float16 (so do
                # predict and eval's outputs), the loss takes float32
                convert_in_place(network, amp_level)
            else:
                network = auto_mixed_precision(network, amp_level)
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metric_fns = _build_metrics(metrics)
        self._amp_level = amp_level
        with_loss = _AmpWithLossCell if low_precision_outputs else WithLossCell
        self._loss_network = with_loss(network, loss_fn) if loss_fn is not None else network
        # loss_scale_manager: a fixed one scales the loss by sens (the optimizer's loss_scale
        # divides it out), one with an update cell skips overflowing steps
        # without an optimizer, 2.10 trains by running the (loss) network as it is: the way to give
        # Model a whole custom step, Model(TrainOneStepCell(...)) (measured)
        self._train_network = (train_step_cell(self._loss_network, optimizer, loss_scale_manager)
                               if optimizer is not None else self._loss_network)
        if eval_network is not None:
            self._eval_network, self._eval_indexes = eval_network, eval_indexes
        elif loss_fn is not None:
            self._eval_network = WithEvalCell(network, loss_fn, add_cast_fp32=low_precision_outputs)
            self._eval_indexes = [0, 1, 2]
        elif self._metric_fns:   # MindSpore 2.10 refuses this Model when it is built (measured)
            raise ValueError("If `metrics` is set, `eval_network` must not be None. Do not set `metrics` if you don't "
                             "want an evaluation.\nIf evaluation is required, you need to specify `eval_network`, "
                             "which will be used in the framework to evaluate the model.\nFor the simple scenarios "
                             "with one data, one label and one logits, `eval_network` is optional, and then you can "
                             "set `eval_network` or `loss_fn`. For the latter case, framework will automatically "
                             "build an evaluation network with `network` and `loss_fn`.")
        else:
            self._eval_network, self._eval_indexes = None, None
        # compiled once here; each jit keeps its own cache per input signature
        self._train_step = jit(self._train_network) if self._train_network is not None else None
        self._eval_step = jit(self._eval_network) if self._eval_network is not None else None
        self._predict_step = jit(network)

    @property
    def train_network(self):
        return self._train_network

    @property
    def eval_network(self):
        return self._eval_network

    @property
    def predict_network(self):
        return self._network

    # -- train -----------------------------------------------------------------------------
    def train(self, epoch: int, train_dataset, callbacks=None, dataset_sink_mode: bool = False,
              sink_size: int = -1, initial_epoch: int = 0):
        """Trains from epoch `initial_epoch` + 1 to `epoch` (MindSpore counts epochs from 1).

        `dataset_sink_mode` is accepted; graphcell feeds each batch to the compiled step either way
        (`cb_params.dataset_sink_mode` is False, as 2.10 reports on a CPU). With it and
        `sink_size=k > 0`, an epoch is k steps, as MindSpore documents for a device: the data
        runs on across epochs (a dataset pass that runs out starts the next, reshuffled, one),
        callbacks see `batch_num == k`, LossMonitor, ModelCheckpoint and TimeMonitor count steps
        per such epoch, and the run takes `epoch * k` steps (an endless `repeat()` dataset works
        too). MindSpore 2.10's CPU build differs: it runs whole dataset passes while reporting
        `batch_num == k` (measured), which graphcell does not copy. `initial_epoch=E` resumes at
        global step `E * k`.

        Resuming (as in MindSpore): a ModelCheckpoint file holds the weights and the optimizer
        state; load it with `load_param_into_net(model.train_network, load_checkpoint(path))`.
        Taken at the end of epoch E, continue with `train(epoch, dataset, initial_epoch=E)`.
        Taken after global step g in epoch E (save with append_info=["epoch_num", "step_num"]),
        continue with `dataset.set_init_step(g)` and `train(epoch, dataset, initial_epoch=E - 1)`
        (or first finish that epoch with `train(E, dataset.skip(g - (E - 1) * steps),
        initial_epoch=E - 1)`). The dataset iterator starts at epoch `initial_epoch`, so shuffles
        and random samplers replay the uninterrupted run's order (under the same seed).

        Callbacks see `cb_params.cur_step_num` counting global steps, continued from the
        interrupted run (MindSpore 2.10 restarts it at 1 in every call); LossMonitor and
        ModelCheckpoint count their N steps from this call's start, as 2.10 does, so a run
        resumed at an epoch end writes 2.10's file names.

        An interrupted run (KeyboardInterrupt, an error) stops between steps: a step's update is
        applied only once its compiled step returns, and every checkpoint left is complete. With
        `CheckpointConfig(exception_save=True)`, ModelCheckpoint also saves the parameters of the
        last completed step then (`on_train_exception`) before the error propagates.
        """
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch, "Model.train")

    def fit(self, epoch: int, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            dataset_sink_mode: bool = False, valid_dataset_sink_mode: bool = False, sink_size: int = -1,
            initial_epoch: int = 0) -> None:
        """Trains as `train` does and, after every `valid_frequency`-th epoch (an int; or a
        list of the epochs, counted from 1), evaluates the metrics on `valid_dataset`, as
        MindSpore 2.10's Model.fit (measured). Returns None, as 2.10 does: the results reach
        the callbacks.

        Validation runs after the epoch's last step and before on_train_epoch_end. It fires
        on_eval_begin, on_eval_epoch_begin, on_eval_step_begin/end per batch, on_eval_epoch_end
        and on_eval_end on the user's callbacks and TimeMonitor (not on the other stock ones:
        LossMonitor, History, EarlyStopping, ...), with cb_params.mode "eval", cur_step_num
        counting validation batches and batch_num their number; then the training values come
        back. During on_train_epoch_end of a validated epoch, `cb_params.metrics` holds the
        metrics and `cb_params.eval_results` the metrics plus "eval_loss"; both are removed
        after it. LossMonitor prints `Eval result: epoch E, metrics: {...}` then, History
        records the metrics, EarlyStopping and ReduceLROnPlateau monitor eval_results.

        "eval_loss" is the mean loss over the validation batches (the Loss metric's value).
        MindSpore 2.10 reports the last batch's loss there (its Loss metric restarts at every
        batch). request_stop() in an eval hook ends that validation only, as in 2.10.

        A user callback that defines hooks of the older names (begin, epoch_end, ...) is
        refused, as 2.10's fit does: they would run for training and validation alike.
        `valid_dataset_sink_mode` is accepted; validation feeds each batch either way.
        """
        for name, value in (("dataset_sink_mode", dataset_sink_mode),
                            ("valid_dataset_sink_mode", valid_dataset_sink_mode)):
            if not isinstance(value, bool):
                raise TypeError(f"For 'Model.fit', the '{name}' must be a bool, but got {type(value).__name__}")
        _check_valid_frequency(valid_frequency)
        validation = None
        if valid_dataset is not None:
            if not self._metric_fns:
                raise ValueError("For 'Model.fit', if valid_dataset is not None, the model argument 'metrics' can not "
                                 "be None or empty, you should set the argument 'metrics' for model.")
            if self._eval_step is None:
                raise ValueError("Model.fit: validation needs an eval network; give Model a loss_fn or an "
                                 "eval_network")
            validation = (valid_dataset, valid_frequency)
        _check_fit_callbacks(_callbacks(callbacks))
        self._train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch, "Model.fit",
                    validation)

    def _train(self, epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch, caller,
               validation=None) -> None:
        """The training loop of train and fit; `validation`: (valid_dataset, valid_frequency)."""
        _check_epochs(epoch, initial_epoch, caller)
        if not isinstance(dataset_sink_mode, bool):   # 2.10's message (measured)
            raise TypeError(f"The input value must be a bool, but got {type(dataset_sink_mode).__name__}.")
        _check_sink_size(sink_size, caller)
        cbs = _callbacks(callbacks)
        if ProgressBar.wanted() and not any(isinstance(c, ProgressBar) for c in cbs):
            cbs.append(ProgressBar())
        steps = train_dataset.get_dataset_size()
        if steps == 0:
            raise ValueError(f"{caller}: the dataset has no batches (fewer rows than the batch size with "
                             "drop_remainder=True, or an empty source)")
        # sink mode with sink_size k: epochs of k steps, the data running on across them
        sunk = dataset_sink_mode and sink_size > 0 and sink_size != steps
        epoch_steps = sink_size if sunk else steps
        batch_size = train_dataset.get_batch_size() if hasattr(train_dataset, "get_batch_size") else None
        start = _start_step(train_dataset, initial_epoch, epoch_steps, caller)
        # completed_step_num: the global steps whose update is in the parameters
        cb = new_cb_params(train_network=self._train_network, network=self._network,
                           optimizer=self._optimizer, loss_fn=self._loss_fn, train_dataset=train_dataset,
                           epoch_num=epoch, batch_num=epoch_steps, batch_size=batch_size,
                           cur_epoch_num=initial_epoch, cur_step_num=start, completed_step_num=start,
                           # False: every batch is fed to the step, as 2.10 falls back to on a CPU
                           net_outputs=None, dataset_sink_mode=False, mode="train",
                           # 2.10's other fields, for callbacks that read them
                           parallel_mode="stand_alone", device_number=1, list_callback=cbs,
                           train_dataset_element=None, last_save_ckpt_step=None, latest_ckpt_file=None)
        ctx = RunContext(cb)
        # the iterator counts epochs from the resumed one, so its shuffles are the uninterrupted run's
        iterator = train_dataset.create_tuple_iterator(
            num_epochs=_dataset_epochs(epoch * epoch_steps, start, steps) if sunk else epoch - initial_epoch,
            _init_step=start)
        batches = _batch_stream(iterator) if sunk else None
        self._train_network.set_train(True)
        try:
            _fire(cbs, "on_train_begin", ctx)
            for ep in range(initial_epoch + 1, epoch + 1):
                cb.cur_epoch_num = ep
                _fire(cbs, "on_train_epoch_begin", ctx)
                for columns in (itertools.islice(batches, epoch_steps) if sunk else iterator):
                    cb.cur_step_num += 1
                    cb.train_dataset_element = list(columns)
                    _fire(cbs, "on_train_step_begin", ctx)
                    cb.net_outputs = self._train_step(*columns)
                    cb.completed_step_num = cb.cur_step_num
                    _fire(cbs, "on_train_step_end", ctx)
                    if ctx.get_stop_requested():
                        break
                if validation is not None and _validates_after(ep, validation[1]):
                    self._validate_in_fit(validation[0], cbs, cb)
                _fire(cbs, "on_train_epoch_end", ctx)
                # the epoch's results are the epoch's only (MindSpore removes them here too)
                cb.pop("metrics", None)
                cb.pop("eval_results", None)
                if ctx.get_stop_requested():
                    break
            _fire(cbs, "on_train_end", ctx)
        except BaseException as error:
            _fire_exception(cbs, ctx, error)
            raise
        finally:
            # an interrupted run (Ctrl-C, an error in a step or callback) must not leave the
            # prefetch thread reading ahead for as long as the traceback keeps the iterator alive
            iterator.stop()

    # -- eval / predict --------------------------------------------------------------------
    def _validate_in_fit(self, valid_dataset, cbs, cb) -> None:
        """fit's validation: the eval loop with the training run's cb_params, whose training
        values come back after it; leaves metrics and eval_results in cb_params."""
        saved = {k: getattr(cb, k) for k in ("mode", "cur_step_num", "batch_num", "dataset_sink_mode",
                                             "net_outputs", "list_callback")}
        self._run_eval(valid_dataset, _eval_callbacks_in_fit(cbs), cb, with_eval_loss=True)
        cb.update(saved)
        self._train_network.set_train(True)   # the eval network (the same layers) left it in inference mode

    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode: bool = False) -> dict:
        """Runs the eval network over one pass of `valid_dataset`; returns {metric name: value}.
        A callback's request_stop() ends the pass after that batch (as in MindSpore 2.10)."""
        if not self._metric_fns:   # 2.10's check and message, before the eval network's
            raise ValueError("For Model.eval, the model argument 'metrics' can not be None or empty, you should set "
                             "the argument 'metrics' for model.")
        if self._eval_step is None:
            raise ValueError("Model.eval: no eval network; give Model a loss_fn or an eval_network")
        cb = new_cb_params(network=self._network, epoch_num=1, cur_epoch_num=1, net_outputs=None)
        return self._run_eval(valid_dataset, _callbacks(callbacks), cb)

    def _run_eval(self, valid_dataset, cbs, cb, with_eval_loss: bool = False) -> dict:
        """One pass of the eval network over `valid_dataset`, firing the eval hooks with `cb`;
        sets cb.metrics (and with `with_eval_loss`, cb.eval_results: the metrics and
        "eval_loss", the mean loss over the batches, when the eval network's loss is known)."""
        cb.eval_network, cb.valid_dataset = self._eval_network, valid_dataset
        cb.batch_num, cb.cur_step_num = valid_dataset.get_dataset_size(), 0
        cb.mode, cb.dataset_sink_mode, cb.list_callback = "eval", False, cbs
        ctx = RunContext(cb)
        for m in self._metric_fns.values():
            m.clear()
        eval_loss = _metrics.Loss() if with_eval_loss and self._eval_indexes is not None else None
        self._eval_network.set_train(False)  # and left so, as MindSpore's Model.eval leaves it
        iterator = None
        try:
            _fire(cbs, "on_eval_begin", ctx)
            _fire(cbs, "on_eval_epoch_begin", ctx)
            iterator = valid_dataset.create_tuple_iterator(num_epochs=1)
            for columns in iterator:
                cb.cur_step_num += 1
                cb.eval_dataset_element = list(columns)
                _fire(cbs, "on_eval_step_begin", ctx)
                outputs = self._eval_step(*columns)
                cb.net_outputs = outputs
                self._update_metrics(outputs)
                if eval_loss is not None:
                    eval_loss.update(outputs[self._eval_indexes[0]])
                _fire(cbs, "on_eval_step_end", ctx)
                if ctx.get_stop_requested():
                    break
            cb.metrics = {name: m.eval() for name, m in self._metric_fns.items()}
            if with_eval_loss:
                cb.eval_results = dict(cb.metrics)
                if eval_loss is not None:
                    cb.eval_results["eval_loss"] = eval_loss.eval()
            _fire(cbs, "on_eval_epoch_end", ctx)
            _fire(cbs, "on_eval_end", ctx)
        finally:
            if iterator is not None:
                iterator.stop()
        return cb.metrics

    def _update_metrics(self, outputs) -> None:
        outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
        for m in self._metric_fns.values():
            if self._eval_indexes is not None and len(outputs) == 3:
                if isinstance(m, _metrics.Loss):
                    m.update(outputs[self._eval_indexes[0]])
                else:
                    m.update(outputs[self._eval_indexes[1]], outputs[self._eval_indexes[2]])
            else:
                m.update(*outputs)

    def predict(self, *predict_data):
        """The network's output for `predict_data`, in inference mode (compiled); the network is
        left in inference mode, as MindSpore's Model.predict leaves it (Model.train sets
        training mode again, and finds the step it compiled for that mode)."""
        self._network.set_train(False)
        return self._predict_step(*predict_data)
