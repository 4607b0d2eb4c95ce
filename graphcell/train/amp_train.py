"""`amp.build_train_network` (MindSpore 2.10's `mindspore.train.amp.build_train_network`):
mixed precision by level, an optional loss Cell, and a training cell with loss scaling."""
from __future__ import annotations

from .. import dtype as mstype
from ..ops import functional as F
from .loss_scale_manager import DynamicLossScaleManager, LossScaleManager

_LEVELS = ("O0", "O1", "O2", "O3", "auto")


def _config(level: str) -> dict:
    """MindSpore's per-level defaults (train/amp.py `_config_level`)."""
    half = level in ("O2", "O3")
    return {"keep_batchnorm_fp32": level == "O2",
            "cast_model_type": mstype.float16 if half else mstype.float32,
            "loss_scale_manager": DynamicLossScaleManager() if level == "O2" else None}


def _keep_batchnorm_fp32(network) -> None:
    from .. import nn
    for _, cell in network.cells_and_names():
        if isinstance(cell, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
            cell.to_float(mstype.float32)


def _mixed_precision(network, config: dict, level: str):
    from ..amp import auto_mixed_precision
    if config["cast_model_type"] is mstype.float16:
        network.to_float(mstype.float16)
        if config["keep_batchnorm_fp32"]:
            _keep_batchnorm_fp32(network)
    elif not config["keep_batchnorm_fp32"] and level == "O2":
        network.to_float(mstype.float16)
    elif config["cast_model_type"] is mstype.float32 and level in ("O2", "O3"):
        pass
    else:
        network = auto_mixed_precision(network, level)
    return network


def _with_loss(network, loss_fn, cast_model_type):
    from .. import nn

    class _Float32LossCell(nn.WithLossCell):
        """The loss of a float16 network computes in float32 (MindSpore casts output and label)."""

        def construct(self, data, label):
            out = self._backbone(data)
            return self._loss_fn(F.cast(out, mstype.float32), F.cast(label, mstype.float32)
                                 if label.dtype.is_floating else label)

    if not isinstance(loss_fn, nn.Cell):
        raise TypeError(f"build_train_network: 'loss_fn' must be a Cell, but got {type(loss_fn).__name__}")
    half = cast_model_type is mstype.float16 or getattr(network, "_amp_level", "O0") in ("O2", "O3")
    return (_Float32LossCell if half else nn.WithLossCell)(network, loss_fn)


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0", **kwargs):
    """A training cell for `network` (with `loss_fn`, if given, as WithLossCell) at amp
    `level`: O0 float32; O1 white-list layers in float16; O2 the network in float16 but
    BatchNorm, with a DynamicLossScaleManager; O3 all float16. kwargs override the level's
    `cast_model_type`, `keep_batchnorm_fp32` and `loss_scale_manager`.

    A manager with an update cell gives `nn.TrainOneStepWithLossScaleCell`; otherwise
    `nn.TrainOneStepCell` with sens = the manager's scale (FixedLossScaleManager with
    drop_overflow_update=False: set the optimizer's loss_scale to the same value). MindSpore
    2.10 refuses update cells on CPU (it has no overflow kernel there); graphcell detects
    overflow with ordinary ops on every backend, so it builds them. boost levels other than
    'O0' are not supported.
    """
    from .. import nn
    if not isinstance(optimizer, nn.Optimizer):
        raise TypeError(f"build_train_network: 'optimizer' must be a graphcell.nn Optimizer, but got "
                        f"{type(optimizer).__name__}")
    if not isinstance(level, str) or level not in _LEVELS:
        raise ValueError(f"build_train_network: 'level' must be one of {list(_LEVELS)}, but got {level!r}")
    if boost_level != "O0":
        raise ValueError(f"build_train_network: boost levels are not supported, 'boost_level' must be 'O0', but got "
                         f"{boost_level!r}")
    for arg in kwargs:
        if arg not in ("cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"):
            raise ValueError(f"Unsupported arg '{arg}'")
    config = dict(_config(level), **kwargs)
    if config["cast_model_type"] not in (mstype.float16, mstype.float32):
        raise TypeError(f"build_train_network: 'cast_model_type' must be float16 or float32, but got "
                        f"{config['cast_model_type']}")
    if not isinstance(config["keep_batchnorm_fp32"], bool):
        raise TypeError("build_train_network: 'keep_batchnorm_fp32' must be a bool")
    manager = config["loss_scale_manager"]
    if manager is not None and not isinstance(manager, LossScaleManager):
        raise TypeError(f"build_train_network: 'loss_scale_manager' must be a LossScaleManager, but got "
                        f"{type(manager).__name__}")
    network = _mixed_precision(network, config, level)
    if loss_fn is not None:
        network = _with_loss(network, loss_fn, config["cast_model_type"])
    return train_step_cell(network, optimizer, manager).set_train()


def train_step_cell(loss_network, optimizer, manager=None):
    """The training cell for a loss network and a loss scale manager (or None): a manager
    with an update cell gives TrainOneStepWithLossScaleCell, any other TrainOneStepCell with
    sens = its scale (build_train_network's and Model's, as 2.10's)."""
    from .. import nn
    if manager is None:
        return nn.TrainOneStepCell(loss_network, optimizer)
    update_cell = manager.get_update_cell()
    if update_cell is not None:
        return nn.TrainOneStepWithLossScaleCell(loss_network, optimizer, scale_sense=update_cell)
    return nn.TrainOneStepCell(loss_network, optimizer, manager.get_loss_scale())
