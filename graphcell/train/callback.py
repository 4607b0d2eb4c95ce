"""Training callbacks with MindSpore's hooks: `Callback`, `RunContext`, `LossMonitor`,
`TimeMonitor`, `ModelCheckpoint` + `CheckpointConfig`, and a terminal `ProgressBar`.

`Model.train` calls, in order: on_train_begin, then per epoch on_train_epoch_begin,
(on_train_step_begin, on_train_step_end) per step, on_train_epoch_end, and finally on_train_end.
`Model.fit` adds, before on_train_epoch_end of a validated epoch, the eval hooks (see Model.fit).
As in MindSpore, the new hooks call the older names by default (on_train_begin -> begin,
on_train_epoch_begin -> epoch_begin, on_train_step_begin -> step_begin, on_train_step_end ->
step_end, on_train_epoch_end -> epoch_end, on_train_end -> end), so a callback may override either.

`cb_params.cur_step_num` counts global steps: a run resumed with `initial_epoch=E` (or
`set_init_step`) continues the interrupted run's count, so step-in-epoch, file names and the
`step_num` a ModelCheckpoint records are the uninterrupted run's (MindSpore 2.10 restarts the
count at 1 in every `train` call, which mislabels a run resumed mid-epoch). What is counted from
the start of each `train` call, as in 2.10, is the schedule: LossMonitor prints and
ModelCheckpoint saves every N steps *of this call*, so a run resumed at an epoch end writes
2.10's file names.

When training raises (an error, KeyboardInterrupt), `Model.train` calls `on_train_exception`
on every callback before the exception propagates, with `cb_params.exception` set and
`cb_params.completed_step_num` the last global step whose update is in the parameters.
MindSpore has no such hook (its Model saves ModelCheckpoint's breakpoint file itself);
graphcell's ModelCheckpoint does that save here.
"""
from __future__ import annotations

import os
import sys
import time
import numpy as np

__all__ = ["Callback", "RunContext", "InternalCallbackParam", "LossMonitor", "TimeMonitor", "ModelCheckpoint", "CheckpointConfig",
           "ProgressBar"]


class RunContext:
    """What a callback sees: `original_args()` returns the cb_params namespace (train_network,
    epoch_num, batch_num, cur_epoch_num, cur_step_num, net_outputs, ...); `request_stop()` ends
    training after the current step."""

    def __init__(self, cb_params):
        self._cb_params = cb_params
        self._stop_requested = False

    def original_args(self):
        return self._cb_params

    def request_stop(self) -> None:
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        return self._stop_requested


class Callback:
    """Base class; every hook does nothing unless overridden."""

    # the older names, called by the newer hooks
    def begin(self, run_context): pass
    def epoch_begin(self, run_context): pass
    def epoch_end(self, run_context): pass
    def step_begin(self, run_context): pass
    def step_end(self, run_context): pass
    def end(self, run_context): pass

    def on_train_begin(self, run_context): self.begin(run_context)
    def on_train_epoch_begin(self, run_context): self.epoch_begin(run_context)
    def on_train_step_begin(self, run_context): self.step_begin(run_context)
    def on_train_step_end(self, run_context): self.step_end(run_context)
    def on_train_epoch_end(self, run_context): self.epoch_end(run_context)
    def on_train_end(self, run_context): self.end(run_context)
    def on_train_exception(self, run_context): pass

    def on_eval_begin(self, run_context): self.begin(run_context)
    def on_eval_epoch_begin(self, run_context): self.epoch_begin(run_context)
    def on_eval_step_begin(self, run_context): self.step_begin(run_context)
    def on_eval_step_end(self, run_context): self.step_end(run_context)
    def on_eval_epoch_end(self, run_context): self.epoch_end(run_context)
    def on_eval_end(self, run_context): self.end(run_context)


def _loss_value(net_outputs) -> float | None:
    """The scalar loss of a step's outputs (the first Tensor, as MindSpore's LossMonitor takes).
    From a tuple of outputs it is the numpy mean in the Tensor's dtype, printed as 2.10 prints it
    (`loss is 2.6330104` for float32, measured); a lone Tensor's prints as a Python float."""
    out = net_outputs
    while isinstance(out, (tuple, list)) and out:
        out = out[0]
    if out is None:
        return None
    arr = np.asarray(out.asnumpy() if hasattr(out, "asnumpy") else out)
    if not arr.size:
        return None
    return arr.mean() if out is not net_outputs and arr.dtype.kind == "f" else float(arr.mean())


def _step_in_epoch(cb) -> int:
    return (cb.cur_step_num - 1) % cb.batch_num + 1


def _check_int(owner: str, name: str, value, positive: bool = False) -> int:
    """MindSpore's checks: a TypeError for a non-int (bool included), a ValueError for a bad value;
    2.10's messages (measured; they name neither the owner nor the argument) for the >= 0 check."""
    bound = "> 0" if positive else ">= 0"
    if isinstance(value, bool):
        raise TypeError(f"The input value must be int and must {bound}, but got '{value}' with type 'bool'.")
    if not isinstance(value, (int, np.integer)):
        raise TypeError(f"The input value must be int, but got '{type(value).__name__}'")
    if value < 0 or (positive and value == 0):
        if positive:   # TimeMonitor's data_size, checked when it is used: say which argument
            raise ValueError(f"{owner}: {name} must be an int > 0, got {value!r}")
        raise ValueError(f"The input value must be int and must >= 0, but got '{value}' with type 'int'.")
    return int(value)


class LossMonitor(Callback):
    """Prints `epoch: E step: S, loss is L` every `per_print_times` steps of the `train` call
    (0: never); raises on a NaN/Inf loss. In `Model.fit`, after a validated epoch it prints
    `Eval result: epoch E, metrics: {...}`, as MindSpore 2.10."""

    def __init__(self, per_print_times: int = 1):
        self._per_print_times = _check_int("LossMonitor", "per_print_times", per_print_times)
        self._last_print_step = 0

    def on_train_begin(self, run_context):
        # counted from the call's first step, as MindSpore's count restarts there
        self._last_print_step = run_context.original_args().cur_step_num

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        loss = _loss_value(cb.net_outputs)
        step = _step_in_epoch(cb)
        if loss is not None and not np.isfinite(loss):
            raise ValueError(f"In epoch: {cb.cur_epoch_num} step: {step}, loss is NAN or INF, training process "
                             "cannot continue, terminating training.")
        if self._per_print_times and cb.cur_step_num - self._last_print_step >= self._per_print_times:
            self._last_print_step = cb.cur_step_num
            print(f"epoch: {cb.cur_epoch_num} step: {step}, loss is {loss}", flush=True)

    def on_train_epoch_end(self, run_context):
        cb = run_context.original_args()
        metrics = getattr(cb, "metrics", None)
        if metrics:
            print("Eval result: epoch %d, metrics: %s" % (cb.cur_epoch_num, metrics), flush=True)


class TimeMonitor(Callback):
    """Prints `Train epoch time: T ms, per step time: S ms` after each epoch of `Model.train`
    (`Eval ...` after `Model.eval`), as MindSpore 2.10. The step time divides by the epoch's
    batch count, `data_size` serving only when that is unknown. `data_time=True` appends
    ` (data time: D ms)`: the time per step spent waiting for data between training steps
    (0.000 during eval, as in 2.10)."""

    def __init__(self, data_size: int | None = None, data_time: bool = False):
        if not isinstance(data_time, bool):
            raise TypeError(f"TimeMonitor: data_time must be a bool, got {type(data_time).__name__}")
        self.data_size = data_size  # checked when used, as MindSpore does
        self.data_time = data_time
        self._epoch_start = 0.0
        self._data_start = 0.0
        self._data_seconds = 0.0
        self.epoch_times: list[float] = []  # seconds, one per epoch (for callers and tests)

    def epoch_begin(self, run_context):  # the older name: reached from train and eval epochs
        self._epoch_start = self._data_start = time.perf_counter()
        self._data_seconds = 0.0

    def on_train_step_begin(self, run_context):
        if self.data_time:
            self._data_seconds += time.perf_counter() - self._data_start

    def on_train_step_end(self, run_context):
        if self.data_time:
            self._data_start = time.perf_counter()

    def epoch_end(self, run_context):
        elapsed_ms = (time.perf_counter() - self._epoch_start) * 1000
        self.epoch_times.append(elapsed_ms / 1000)
        cb = run_context.original_args()
        batch_num = getattr(cb, "batch_num", None)
        steps = batch_num if isinstance(batch_num, int) and batch_num > 0 else self.data_size
        if steps is None:
            raise ValueError("TimeMonitor: the epoch's step count is unknown; pass data_size")
        steps = _check_int("TimeMonitor", "data_size", steps, positive=True)
        mode = str(getattr(cb, "mode", "")).title()
        line = f"{mode} epoch time: {elapsed_ms:5.3f} ms, per step time: {elapsed_ms / steps:5.3f} ms"
        if self.data_time:
            line += f" (data time: {self._data_seconds * 1000 / steps:5.3f} ms)"
        print(line, flush=True)


class CheckpointConfig:
    """When ModelCheckpoint saves and how many files it keeps (MindSpore's CheckpointConfig).

    save_checkpoint_steps / save_checkpoint_seconds: save every N steps (or every N seconds, when
    steps is None); keep_checkpoint_max: keep at most this many files (oldest removed first);
    keep_checkpoint_per_n_minutes: alternatively keep one file per N minutes; format: "ckpt" or
    "safetensors"; append_info: a list of "epoch_num"/"step_num" and/or a dict saved with each file;
    exception_save: when training raises, also save a breakpoint file (see ModelCheckpoint).
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, enc_key=None, enc_mode="AES-GCM",
                 exception_save=False, crc_check=False, remove_redundancy=False, format="ckpt", **kwargs):
        for name, v in (("save_checkpoint_steps", save_checkpoint_steps),
                        ("save_checkpoint_seconds", save_checkpoint_seconds),
                        ("keep_checkpoint_max", keep_checkpoint_max),
                        ("keep_checkpoint_per_n_minutes", keep_checkpoint_per_n_minutes)):
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                raise ValueError(f"CheckpointConfig: {name} must be an int >= 0 or None, got {v!r}")
        # as 2.10 (measured): a step schedule overrides the seconds one and keep_checkpoint_max the
        # per-minutes one (the other reads None); neither schedule is no error, and saves nothing
        if save_checkpoint_steps:
            save_checkpoint_seconds = None
        if keep_checkpoint_max:
            keep_checkpoint_per_n_minutes = None
        elif not keep_checkpoint_per_n_minutes:
            keep_checkpoint_max = 1
        if format not in ("ckpt", "safetensors"):
            raise ValueError(f"CheckpointConfig: format must be 'ckpt' or 'safetensors', got {format!r}")
        self.save_checkpoint_steps = save_checkpoint_steps
        self.save_checkpoint_seconds = save_checkpoint_seconds
        self.keep_checkpoint_max = keep_checkpoint_max
        self.keep_checkpoint_per_n_minutes = keep_checkpoint_per_n_minutes
        self.integrated_save = integrated_save
        self.async_save = async_save
        self.saved_network = saved_network
        self.append_info = append_info
        self._append_dict = _append_dict(append_info)
        self.enc_key, self.enc_mode = enc_key, enc_mode
        self.exception_save = exception_save
        self.crc_check = crc_check
        self.remove_redundancy = remove_redundancy  # a parallel-training option: one device has no redundancy
        self.format = format

    @property
    def append_dict(self) -> dict | None:
        """What each file gets appended, as MindSpore's property: epoch_num/step_num (0 here,
        filled in per file) and the dict's entries; None when append_info is empty."""
        return dict(self._append_dict) if self._append_dict is not None else None


_APPEND_NAMES = ["epoch_num", "step_num"]


def _append_dict(append_info) -> dict | None:
    """append_info validated as MindSpore 2.10 does (measured: the exception types and
    conditions; the messages also say what to pass)."""
    if append_info is None or append_info == []:
        return None
    if not isinstance(append_info, list):
        raise TypeError(f"CheckpointConfig: append_info must be a list (of 'epoch_num', 'step_num' and at most "
                        f"one dict), but got {type(append_info).__name__}")
    out = {name: 0 for name in _APPEND_NAMES if name in append_info}
    dicts = 0
    for element in append_info:
        if not isinstance(element, (str, dict)):
            raise TypeError(f"CheckpointConfig: the elements of append_info must be str or dict, but got "
                            f"{type(element).__name__}")
        if isinstance(element, str) and element not in _APPEND_NAMES:
            raise ValueError(f"CheckpointConfig: the str elements of append_info must be in {_APPEND_NAMES}, "
                             f"but got {element}.")
        if isinstance(element, dict):
            dicts += 1
            if dicts > 1:
                raise TypeError("CheckpointConfig: append_info may hold only one dict, but got "
                                f"{sum(isinstance(e, dict) for e in append_info)}")
            for key, value in element.items():
                if not isinstance(key, str) or not _appendable(value):
                    raise TypeError("CheckpointConfig: the keys of append_info's dict must be str and its values "
                                    f"int, float, bool, str or Tensor, but got key type {type(key).__name__}, "
                                    f"value type {type(value).__name__}")
                out[key] = value
    return out


def _appendable(value) -> bool:
    from ..tensor import Tensor
    return isinstance(value, (int, float, bool, str, np.number, Tensor))


class ModelCheckpoint(Callback):
    """Saves `{prefix}-{epoch}_{step}.ckpt` (step counted within the epoch) into `directory`
    (default: the current one) as the config says, atomically, via graphcell.save_checkpoint.

    It saves the training network (so optimizer state such as moments and global_step is included
    and a later `Model.train(..., initial_epoch=)` resumes exactly), or `config.saved_network`.
    Files of an earlier run with the same prefix in the directory make this run use `prefix_1`
    (then `prefix_2`, ...), as MindSpore does, so old checkpoints are never overwritten.

    With `CheckpointConfig(exception_save=True)`, a run that raises (an error, KeyboardInterrupt)
    first saves `{prefix}-{epoch}_{step}_breakpoint.ckpt` (MindSpore's name), synchronously, of
    the parameters after the last completed step: a step that raised applied nothing. The name
    and its epoch_num/step_num append_info are that step's (epoch 0, step 0 before the first).
    MindSpore names the step that was running instead; the two agree when a callback raises
    after its step. Breakpoint files are not counted in, nor removed by, keep_checkpoint_max.
    """

    def __init__(self, prefix: str = "CKP", directory: str | None = None, config: CheckpointConfig | None = None):
        if not isinstance(prefix, str) or not prefix or "/" in prefix or os.sep in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file-name prefix, got {prefix!r}")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: config must be a CheckpointConfig, got {type(config).__name__}")
        self._directory = os.path.abspath(directory if directory is not None else os.getcwd())
        os.makedirs(self._directory, exist_ok=True)
        self._config = config or CheckpointConfig()
        self._prefix = self._unused_prefix(prefix)
        self._saved: list[str] = []  # this run's files, oldest first
        self._last_saved_step = 0   # the global step of the last save, or where the train call began
        self._last_time = time.monotonic()
        self._last_keep_time = time.monotonic()
        self.latest_ckpt_file_name: str | None = None

    def _unused_prefix(self, prefix: str) -> str:
        ext = "." + self._config.format
        taken = [f for f in os.listdir(self._directory) if f.endswith(ext)]
        candidate, n = prefix, 0
        while any(f.startswith(candidate + "-") for f in taken):
            n += 1
            candidate = f"{prefix}_{n}"
        return candidate

    @property
    def directory(self) -> str:
        return self._directory

    def on_train_begin(self, run_context):
        # every N steps of this call, as MindSpore 2.10 (whose step count restarts at each call)
        self._last_saved_step = run_context.original_args().cur_step_num

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        cfg = self._config
        if cfg.save_checkpoint_steps:
            due = cb.cur_step_num - self._last_saved_step >= cfg.save_checkpoint_steps
        else:
            due = bool(cfg.save_checkpoint_seconds) and time.monotonic() - self._last_time >= cfg.save_checkpoint_seconds
        if due:
            self._save(cb)

    def on_train_end(self, run_context):
        cb = run_context.original_args()
        # MindSpore saves the final step too, unless it was just saved or nothing is scheduled
        scheduled = self._config.save_checkpoint_steps or self._config.save_checkpoint_seconds
        if scheduled and cb.cur_step_num != self._last_saved_step:
            self._save(cb)
        # and waits for a background save: the files are there when train() returns
        _wait_for_async_save()

    def on_train_exception(self, run_context):
        # a background save in flight lands (or reports its error) before the exception leaves train()
        try:
            _wait_for_async_save()
        finally:
            if self._config.exception_save:
                self._save_breakpoint(run_context.original_args())

    def _save_breakpoint(self, cb) -> None:
        done = cb.completed_step_num
        epoch, step = ((done - 1) // cb.batch_num + 1, (done - 1) % cb.batch_num + 1) if done > 0 else (0, 0)
        path = os.path.join(self._directory, f"{self._prefix}-{epoch}_{step}_breakpoint.{self._config.format}")
        # synchronous: the process may be about to exit with the exception
        self._write(cb, path, epoch, done, async_save=False)

    def _file_name(self, cb) -> str:
        return os.path.join(self._directory,
                            f"{self._prefix}-{cb.cur_epoch_num}_{_step_in_epoch(cb)}.{self._config.format}")

    def _save(self, cb) -> None:
        path = self._file_name(cb)
        self._write(cb, path, cb.cur_epoch_num, cb.cur_step_num, async_save=self._config.async_save)
        self._last_saved_step = cb.cur_step_num
        self._last_time = time.monotonic()
        self.latest_ckpt_file_name = path
        if path in self._saved:
            self._saved.remove(path)
        self._saved.append(path)
        self._prune()

    def _write(self, cb, path: str, epoch_num: int, step_num: int, async_save: bool) -> None:
        """Saves the network (atomically) with the configured append_info."""
        from .serialization import save_checkpoint
        cfg = self._config
        append = cfg.append_dict or {}
        if "epoch_num" in append:
            append["epoch_num"] = int(epoch_num)
        if "step_num" in append:
            append["step_num"] = int(step_num)
        network = cfg.saved_network if cfg.saved_network is not None else cb.train_network
        save_checkpoint(network, path, integrated_save=cfg.integrated_save, async_save=async_save,
                        append_dict=append or None, crc_check=cfg.crc_check, format=cfg.format)

    def _prune(self) -> None:
        cfg = self._config
        if cfg.keep_checkpoint_per_n_minutes and not cfg.keep_checkpoint_max:
            # keep one file per N minutes: drop the previous one unless N minutes passed
            if len(self._saved) > 1 and time.monotonic() - self._last_keep_time < 60 * cfg.keep_checkpoint_per_n_minutes:
                _remove(self._saved.pop(-2))
            else:
                self._last_keep_time = time.monotonic()
            return
        while len(self._saved) > cfg.keep_checkpoint_max:
            _remove(self._saved.pop(0))


def _wait_for_async_save() -> None:
    from .serialization import wait_for_async_save
    wait_for_async_save()


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


class ProgressBar(Callback):
    """A live progress bar (step, loss, samples/s) drawn with `rich` when stdout is a terminal.

    Model.train adds one by itself when sys.stdout is a terminal; elsewhere it prints nothing."""

    def __init__(self, stream=None):
        self._stream = stream or sys.stdout
        self._progress = None
        self._task = None
        self._t0 = 0.0
        self._samples = 0

    @staticmethod
    def wanted(stream=None) -> bool:
        stream = stream or sys.stdout
        return bool(getattr(stream, "isatty", lambda: False)())

    def on_train_epoch_begin(self, run_context):
        cb = run_context.original_args()
        self._t0, self._samples = time.perf_counter(), 0
        try:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        except ImportError:  # plain \r line
            self._progress = None
            return
        self._progress = Progress(TextColumn(f"epoch {cb.cur_epoch_num}/{cb.epoch_num}"), BarColumn(),
                                  MofNCompleteColumn(), TextColumn("{task.fields[info]}"), TimeElapsedColumn(),
                                  console=Console(file=self._stream), transient=False)
        self._progress.start()
        self._task = self._progress.add_task("train", total=cb.batch_num, info="")

    def on_train_step_end(self, run_context):
        cb = run_context.original_args()
        self._samples += int(getattr(cb, "batch_size", 0) or 0)
        rate = self._samples / max(time.perf_counter() - self._t0, 1e-9)
        info = f"loss {_loss_value(cb.net_outputs):.4f}  {rate:,.0f} samples/s"
        step = _step_in_epoch(cb)
        if self._progress is not None:
            self._progress.update(self._task, completed=step, info=info)
        else:
            self._stream.write(f"\repoch {cb.cur_epoch_num} step {step}/{cb.batch_num} {info}")
            self._stream.flush()

    def on_train_epoch_end(self, run_context):
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        else:
            self._stream.write("\n")


class InternalCallbackParam(dict):
    """cb_params: a dict whose keys are also attributes, as MindSpore's, so callbacks written for
    2.10 may read `cb.cur_step_num`, `cb["cur_step_num"]`, `"net_outputs" in cb` or `cb.items()`."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"'InternalCallbackParam' object has no attribute '{name}'") from None

    def __setattr__(self, name, value):
        self[name] = value

    def __delattr__(self, name):
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None


def new_cb_params(**kwargs) -> InternalCallbackParam:
    """The cb_params Model passes to callbacks (MindSpore's field names)."""
    return InternalCallbackParam(**kwargs)

