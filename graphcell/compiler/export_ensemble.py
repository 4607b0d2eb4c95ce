"""What `export` reads off a vmapped ensemble (`vmap(nn.CellList([...]), in_axes, out_axes)`):
where its members' outputs are stacked, for the heads, and where each input's batch lies, for
the dynamic axes."""
from __future__ import annotations


def _vmapped(net):
    from ..api.vmap import VmapFunction
    return net if isinstance(net, VmapFunction) else None


def member_axis(net, out) -> int:
    """The axis of `out` (the ensemble's one output) that runs over the members: its out_axes
    (0 unless given); 0 for anything but a vmapped callable. A head reduces over this axis,
    not over axis 0, which with out_axes=1 is the batch."""
    vmapped = _vmapped(net)
    if vmapped is None:
        return 0
    spec = vmapped.out_axes
    if isinstance(spec, (tuple, list)) and len(spec) == 1:
        spec = spec[0]
    if not isinstance(spec, int) or isinstance(spec, bool):
        raise ValueError(f"export(reduce=...) needs one ensemble output with an int out_axes, got "
                         f"out_axes={spec!r}")
    return spec % out.ndim   # in range: the vmapped call checked it


def batch_axes(net, args, leaves) -> dict | None:
    """{leaf: {axis: "batch"}}: each input's batch axis, axis 0 of a member's slice, where its
    in_axes puts it (axis 1 of an input mapped on axis 0, axis 0 of a shared one), for the
    inputs whose batch equals the first's. None for anything but a vmapped CellList (a vmapped
    function's mapped axis may be the batch itself)."""
    vmapped = _vmapped(net)
    if vmapped is None or vmapped.ensemble is None:
        return None
    from ..api.vmap import _leaf_axes, _normalize
    try:
        axes = [_normalize(a, t.ndim, "in_axes") for a, t in zip(_leaf_axes(vmapped.in_axes, args, "in_axes"), leaves)]
    except Exception:   # noqa: BLE001 - the call itself reports a bad in_axes
        return None
    batch = [(i, 1 if a == 0 else 0) for i, (a, t) in enumerate(zip(axes, leaves))
             if t.ndim > (1 if a == 0 else 0)]
    if not batch:
        return None
    size = leaves[batch[0][0]].shape[batch[0][1]]
    return {i: {axis: "batch"} for i, axis in batch if leaves[i].shape[axis] == size}
