"""`Model`: MindSpore's high-level train / eval / predict wrapper.

The training step (network + loss, value_and_grad, optimizer update) is one TrainOneStepCell
compiled once with `graphcell.jit` when the Model is built; every step runs that compiled graph,
so per-step Python work is only the data iterator and the callbacks.
"""
from __future__ import annotations


from ..compiler.jit import jit
from ..nn.cell import Cell
from . import metrics as _metrics
from .callback import Callback, ProgressBar, RunContext, new_cb_params

__all__ = ["Model"]

_METRIC_NAMES = {
    "accuracy": _metrics.Accuracy, "acc": _metrics.Accuracy, "loss": _metrics.Loss,
    "mae": _metrics.MAE, "mse": _metrics.MSE, "precision": _metrics.Precision,
    "recall": _metrics.Recall, "f1": _metrics.F1,
    "top_1_accuracy": _metrics.Top1CategoricalAccuracy, "top_5_accuracy": _metrics.Top5CategoricalAccuracy,
}


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
                raise ValueError(f"Model: unknown metric name {m!r}; known: {sorted(_METRIC_NAMES)}")
            m = _METRIC_NAMES[m.lower()]()
        if not isinstance(m, _metrics.Metric):
            raise TypeError(f"Model: metric {name!r} must be a graphcell Metric, got {type(m).__name__}")
        out[name] = m
    return out


def _callbacks(callbacks) -> list[Callback]:
    if callbacks is None:
        return []
    cbs = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    for i, cb in enumerate(cbs):
        if not isinstance(cb, Callback):
            raise TypeError(f"Model: callbacks[{i}] must be a graphcell.train.Callback, got {type(cb).__name__}")
    return cbs


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


def _start_step(dataset, initial_epoch: int, steps: int) -> int:
    """The global step training resumes after: the dataset's `set_init_step`, which must lie in
    epoch initial_epoch + 1, else the start of that epoch."""
    init_step = dataset.get_init_step() if hasattr(dataset, "get_init_step") else 0
    if not init_step:
        return initial_epoch * steps if steps > 0 else 0
    if steps > 0 and init_step // steps != initial_epoch:
        raise ValueError(f"Model.train: the dataset starts at step {init_step} (set_init_step), in epoch "
                         f"{init_step // steps + 1} of {steps} steps, but initial_epoch={initial_epoch} resumes at "
                         f"epoch {initial_epoch + 1}; pass initial_epoch={init_step // steps}")
    return init_step


class Model:
    """Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, amp_level="O0").

    With `loss_fn`, `network(data) -> logits` and the step is `loss_fn(network(data), label)`;
    without it, `network(*columns)` must already return the loss. `metrics`: a set of names
    ({"accuracy", "loss", ...}) or a dict of name -> Metric. For `eval`, the default eval network
    returns (loss, logits, label): a `Loss` metric gets the loss, the others (logits, label).
    """

    def __init__(self, network: Cell, loss_fn: Cell | None = None, optimizer=None, metrics=None,
                 eval_network: Cell | None = None, eval_indexes=None, amp_level: str = "O0",
                 boost_level: str = "O0", **kwargs):
        from ..nn.optim import Optimizer
        from ..nn.wrap import WithEvalCell, WithLossCell, _AmpWithLossCell
        from ..nn.wrap_train import TrainOneStepCell
        if not isinstance(network, Cell):
            raise TypeError(f"Model: network must be a graphcell.nn.Cell, got {type(network).__name__}")
        if optimizer is not None and not isinstance(optimizer, Optimizer):
            raise TypeError(f"Model: optimizer must be a graphcell.nn Optimizer, got {type(optimizer).__name__}")
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
        self._train_network = (TrainOneStepCell(self._loss_network, optimizer) if optimizer is not None
                               else None)
        if eval_network is not None:
            self._eval_network, self._eval_indexes = eval_network, eval_indexes
        elif loss_fn is not None:
            self._eval_network = WithEvalCell(network, loss_fn, add_cast_fp32=low_precision_outputs)
            self._eval_indexes = [0, 1, 2]
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

        `dataset_sink_mode` is accepted; graphcell feeds each batch to the compiled step either way.

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
        if self._train_step is None:
            raise ValueError("Model.train: the Model has no optimizer; build it with "
                             "Model(network, loss_fn, optimizer)")
        for name, v in (("epoch", epoch), ("initial_epoch", initial_epoch)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"Model.train: {name} must be an int >= 0, got {v!r}")
        if initial_epoch >= epoch:
            raise ValueError(f"Model.train: initial_epoch ({initial_epoch}) must be smaller than epoch ({epoch})")
        cbs = _callbacks(callbacks)
        if ProgressBar.wanted() and not any(isinstance(c, ProgressBar) for c in cbs):
            cbs.append(ProgressBar())
        steps = train_dataset.get_dataset_size()
        if steps == 0:
            raise ValueError("Model.train: the dataset has no batches (fewer rows than the batch size with "
                             "drop_remainder=True, or an empty source)")
        if dataset_sink_mode and sink_size > 0 and sink_size != steps:
            raise NotImplementedError(f"Model.train: sink_size={sink_size} (epochs of {sink_size} steps, the data "
                                      f"running on across them) is not supported; the dataset has {steps} "
                                      "batches an epoch: leave sink_size at -1, or take(sink_size) batches")
        batch_size = train_dataset.get_batch_size() if hasattr(train_dataset, "get_batch_size") else None
        start = _start_step(train_dataset, initial_epoch, steps)
        # completed_step_num: the global steps whose update is in the parameters
        cb = new_cb_params(train_network=self._train_network, network=self._network,
                           optimizer=self._optimizer, loss_fn=self._loss_fn, train_dataset=train_dataset,
                           epoch_num=epoch, batch_num=steps, batch_size=batch_size,
                           cur_epoch_num=initial_epoch, cur_step_num=start, completed_step_num=start,
                           net_outputs=None, dataset_sink_mode=dataset_sink_mode, mode="train")
        ctx = RunContext(cb)
        # the iterator counts epochs from the resumed one, so its shuffles are the uninterrupted run's
        iterator = train_dataset.create_tuple_iterator(num_epochs=epoch - initial_epoch, _init_step=start)
        self._train_network.set_train(True)
        try:
            _fire(cbs, "on_train_begin", ctx)
            for ep in range(initial_epoch + 1, epoch + 1):
                cb.cur_epoch_num = ep
                _fire(cbs, "on_train_epoch_begin", ctx)
                for columns in iterator:
                    cb.cur_step_num += 1
                    _fire(cbs, "on_train_step_begin", ctx)
                    cb.net_outputs = self._train_step(*columns)
                    cb.completed_step_num = cb.cur_step_num
                    _fire(cbs, "on_train_step_end", ctx)
                    if ctx.get_stop_requested():
                        break
                _fire(cbs, "on_train_epoch_end", ctx)
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
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode: bool = False) -> dict:
        """Runs the eval network over one pass of `valid_dataset`; returns {metric name: value}."""
        if self._eval_step is None:
            raise ValueError("Model.eval: no eval network; give Model a loss_fn or an eval_network")
        if not self._metric_fns:
            raise ValueError("Model.eval: the Model has no metrics; build it with metrics={'accuracy'} etc.")
        cbs = _callbacks(callbacks)
        cb = new_cb_params(eval_network=self._eval_network, network=self._network, valid_dataset=valid_dataset,
                           batch_num=valid_dataset.get_dataset_size(), epoch_num=1, cur_epoch_num=1,
                           cur_step_num=0, net_outputs=None, mode="eval")
        ctx = RunContext(cb)
        for m in self._metric_fns.values():
            m.clear()
        self._eval_network.set_train(False)  # and left so, as MindSpore's Model.eval leaves it
        iterator = None
        try:
            _fire(cbs, "on_eval_begin", ctx)
            _fire(cbs, "on_eval_epoch_begin", ctx)
            iterator = valid_dataset.create_tuple_iterator(num_epochs=1)
            for columns in iterator:
                cb.cur_step_num += 1
                _fire(cbs, "on_eval_step_begin", ctx)
                outputs = self._eval_step(*columns)
                cb.net_outputs = outputs
                self._update_metrics(outputs)
                _fire(cbs, "on_eval_step_end", ctx)
            cb.metrics = {name: m.eval() for name, m in self._metric_fns.items()}
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
