"""`parameter_broadcast(net, layout, cur_rank=0, initial_rank=0)`: MindSpore 2.10 copies the
Parameters named in `layout` from their source rank to the others; in one process every
Parameter is already the one copy, so nothing moves (2.10's CPU build returns None as well)."""
from __future__ import annotations


def parameter_broadcast(net, layout, cur_rank=0, initial_rank=0) -> None:
    from ..nn.cell import Cell
    if not isinstance(net, Cell):
        raise TypeError(f"For 'parameter_broadcast', 'net' must be a Cell, but got {type(net)}.")
    if not isinstance(layout, dict):
        raise TypeError(f"For 'parameter_broadcast', 'layout' must be a dict, but got {type(layout)}.")
