"""MindSpore 2.10's resilience callbacks: `OnRequestExit` and `BackupAndRestore`.

Measured on 2.10's CPU build (GRAPH_MODE, Model.train):
- BackupAndRestore(backup_dir) writes `<backup_dir>/backup.ckpt` (the train network's
  Parameters, optimizer state included) every `save_freq` epochs ("epoch" = 1); a later train
  with a backup present loads it into the network at its start (the epochs are all run again:
  2.10 does not skip the finished ones); with delete_checkpoint=True the file is removed when
  training ends. save_freq=0 -> ValueError "The input value must be int and must > 0, but got
  '0' with type 'int'."; "step" -> TypeError "The input value must be int, but got 'str'".
- OnRequestExit(directory, file_name) makes `<directory>/rank_0/` and, once the signal (`sig`,
  SIGTERM by default) has come, saves `<directory>/rank_0/<file_name>_train.ckpt` when training
  ends. graphcell also asks the loop to stop after the step the signal arrives in, as the
  callback's documentation says (2.10's CPU build ran on to the last epoch). MindIR is
  MindSpore's own format: with save_mindir=True graphcell warns and writes the checkpoint only.
"""
from __future__ import annotations

import os
import signal
import warnings

from .callback import Callback


def _positive_int(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):   # 2.10's words
        raise TypeError(f"The input value must be int, but got '{type(value).__name__}'")
    if value <= 0:
        raise ValueError(f"The input value must be int and must > 0, but got '{value}' with type 'int'.")
    return value


class BackupAndRestore(Callback):
    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        if not isinstance(backup_dir, (str, os.PathLike)):
            raise TypeError(f"For 'BackupAndRestore', 'backup_dir' must be str, but got {type(backup_dir)}.")
        self.backup_file = os.path.join(os.path.abspath(backup_dir), "backup.ckpt")
        self.save_freq = 1 if save_freq == "epoch" else _positive_int(save_freq)
        self.delete_checkpoint = bool(delete_checkpoint)

    def on_train_begin(self, run_context):
        from .serialization import load_checkpoint, load_param_into_net
        if os.path.isfile(self.backup_file):
            network = run_context.original_args().train_network
            load_param_into_net(network, load_checkpoint(self.backup_file))

    def on_train_epoch_end(self, run_context):
        from .serialization import save_checkpoint
        cb = run_context.original_args()
        if cb.cur_epoch_num % self.save_freq == 0:
            os.makedirs(os.path.dirname(self.backup_file), exist_ok=True)
            save_checkpoint(cb.train_network, self.backup_file)

    def on_train_end(self, run_context):
        if self.delete_checkpoint and os.path.isfile(self.backup_file):
            os.remove(self.backup_file)


class OnRequestExit(Callback):
    def __init__(self, save_ckpt=True, save_mindir=True, file_name="Net", directory="./", config_file=None,
                 sig=signal.SIGTERM):
        self.save_ckpt = bool(save_ckpt)
        self.save_mindir = bool(save_mindir)
        self.sig = sig
        self.exit = False
        self.save_path = os.fspath(directory)
        self.train_name = os.path.join(os.path.abspath(directory), "rank_0", f"{file_name}_train")
        self.eval_name = os.path.join(os.path.abspath(directory), "rank_0", f"{file_name}_eval")
        self._previous_handler = None

    def _on_signal(self, signum, frame):
        self.exit = True

    def _install(self):
        os.makedirs(os.path.dirname(self.train_name), exist_ok=True)
        try:
            self._previous_handler = signal.signal(self.sig, self._on_signal)
        except ValueError:   # not the main thread: signals cannot be caught here
            warnings.warn("OnRequestExit: signals are caught on the main thread only; this run ignores them.",
                          stacklevel=3)

    def _uninstall(self):
        if self._previous_handler is not None:
            signal.signal(self.sig, self._previous_handler)
            self._previous_handler = None

    def on_train_begin(self, run_context):
        self._install()

    def on_train_step_end(self, run_context):
        if self.exit:
            run_context.request_stop()

    def on_train_end(self, run_context):
        self._uninstall()
        if self.exit:
            self._save(run_context.original_args().train_network, self.train_name)

    def on_train_exception(self, run_context):
        self._uninstall()

    def on_eval_begin(self, run_context):
        self._install()

    def on_eval_step_end(self, run_context):
        if self.exit:
            run_context.request_stop()

    def on_eval_end(self, run_context):
        self._uninstall()

    def _save(self, network, name: str) -> None:
        from .serialization import save_checkpoint
        if self.save_ckpt:
            save_checkpoint(network, name + ".ckpt")
        if self.save_mindir:
            warnings.warn("OnRequestExit: graphcell does not write MindIR (MindSpore's format); export the "
                          "network with graphcell.export(..., file_format='ONNX') instead.", stacklevel=3)
