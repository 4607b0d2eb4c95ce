"""Wrapper Cells: a network with its loss."""
from __future__ import annotations

from .cell import Cell


class WithLossCell(Cell):
    """loss_fn(backbone(data), label). auto_prefix=False, as in MindSpore: wrapping does not
    rename the backbone's parameters (an enclosing Cell still adds `_backbone` to the path)."""

    def __init__(self, backbone: Cell, loss_fn: Cell):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self) -> Cell:
        return self._backbone


class WithEvalCell(Cell):
    """(loss_fn(network(data), label), outputs, label). `add_cast_fp32`: the floating outputs
    and label are cast to float32 first (Model's eval network under amp O2/O3, as MindSpore's)."""

    def __init__(self, network: Cell, loss_fn: Cell, add_cast_fp32: bool = False):
        super().__init__(auto_prefix=False)
        if not isinstance(add_cast_fp32, bool):
            raise TypeError(f"For 'WithEvalCell', 'add_cast_fp32' must be a bool, got {type(add_cast_fp32).__name__}")
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            outputs, label = _floats_to_32(outputs), _floats_to_32(label)
        return self._loss_fn(outputs, label), outputs, label


class _AmpWithLossCell(WithLossCell):
    """Model's loss network under amp O2/O3 (MindSpore's amp WithLossCell): the network's
    low-precision outputs, and a floating label, are cast to float32 for the loss."""

    def construct(self, data, label):
        return self._loss_fn(_floats_to_32(self._backbone(data)), _floats_to_32(label))


def _floats_to_32(tree):
    from .. import dtype as mstype
    from ..amp import _cast_floats
    return _cast_floats(tree, mstype.float32)
