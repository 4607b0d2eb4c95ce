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
    def __init__(self, network: Cell, loss_fn: Cell, add_cast_fp32: bool = False):
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn

    def construct(self, data, label):
        outputs = self._network(data)
        return self._loss_fn(outputs, label), outputs, label
