"""`graphcell.vmap`: map a function, a Cell, or a CellList ensemble over a new axis.

    >>> ensemble = vmap(nn.CellList([net0, net1, net2, net3]), in_axes=None)
    >>> ensemble(x).shape      # x: [3, 1, 32, 32], one minibatch for all four models
    (4, 3, 10)

A call traces `fn` at per-member shapes, runs the vmap pass (`passes/vmap.py`) and inlines
the result: compiled and cached per input signature when called eagerly, replayed into the
enclosing trace under `jit`, `grad` or another `vmap`. For a CellList the members' parameters
are stacked (`frontend/ensemble.py`) and become batched graph inputs; their writes (optimizer
updates, BatchNorm statistics) land in the stacks.
"""
from __future__ import annotations

import weakref

import jax

from ..compiler.save_graphs import made_from
from ..frontend import pytree
from ..frontend.ensemble import Ensemble
from ..frontend.trace import TraceCache, Traced, inline, trace
from ..ir.core import graph_signature
from ..ir.printer import format_node
from ..nn.cell import configuration
from ..ops.nn_prims import CONV_STRATEGIES
from ..passes.vmap import RANDOMNESS, vmap_graph
from ..tensor import Tensor
from .ms_errors import RuntimeTypeError, RuntimeValueError


def vmap(fn, in_axes=0, out_axes=0, randomness: str = "different", conv_strategy: str | None = None,
         devices=None, mesh=None):
    """Vectorizes `fn` (a function, a Cell, or an `nn.CellList` ensemble) over an axis.

    in_axes / out_axes: an int (every argument / output), None (unmapped; a single None only
    for a CellList), or a tuple/list/dict nesting that matches the arguments / outputs.
    randomness: "different" (members draw independent random numbers), "same", or "error".
    conv_strategy: force the lowering of convolutions with per-member weights: "grouped",
    "unrolled" or "wide" (default: the context's `conv_strategy`, else chosen by N and batch).
    devices: where to split the mapped axis (an int: the first k devices, or a list of jax
    devices). A CellList ensemble is split over all visible devices by default; a plain function
    only when devices or mesh is given. `set_context(ensemble_sharding=False)` turns splitting off.
    mesh: a 2-D (members x data) placement: a `(members, data)` shape laid over `devices`, or a
    `jax.sharding.Mesh` with axes "ensemble" and/or "data". Members split on `ensemble`; each
    member's batch (the first unmapped dimension of every input) on `data`, so gradients are
    all-reduced within each data group only. Under DATA_PARALLEL a CellList gets such a mesh by
    default (members first, the devices left over on `data`). See graphcell/parallel.py.
    """
    if mesh is not None and not isinstance(mesh, jax.sharding.Mesh):
        from ..parallel import check_mesh_shape
        check_mesh_shape(mesh, devices)  # a wrong shape fails here, not at the first call
    return VmapFunction(fn, in_axes, out_axes, randomness, conv_strategy, devices, mesh)


class VmapFunction:
    """The callable `vmap` returns; caches one vmapped graph per input signature."""

    def __init__(self, fn, in_axes, out_axes, randomness, conv_strategy, devices=None, mesh=None):
        from ..nn.cell import CellList
        if randomness not in RANDOMNESS:
            raise ValueError(f"vmap: randomness must be one of {', '.join(RANDOMNESS)}, got {randomness!r}")
        _check_strategy(conv_strategy, "vmap: conv_strategy")
        self.fn, self.in_axes, self.out_axes = fn, in_axes, out_axes
        self.randomness, self.conv_strategy = randomness, conv_strategy
        self.ensemble = Ensemble(fn) if isinstance(fn, CellList) else None
        self.__name__ = f"vmap_{getattr(fn, '__name__', type(fn).__name__)}"
        self.__signature__ = _signature_of(fn if self.ensemble is None else self.ensemble.members[0])
        for name, spec in (("in_axes", in_axes), ("out_axes", out_axes)):
            if spec is None and self.ensemble is None:
                raise RuntimeError(f"The '{name}' of 'vmap' cannot be a single None while 'fn' is not a 'CellList'.")
        self.cache = TraceCache()
        self._ensemble_epoch = None
        self._checked: set = set()  # signatures whose members were checked to share one graph
        self._member_traces: dict = {}  # the last two member traces, for the next lowering target
        self.devices, self.mesh, self._meshes = devices, mesh, {}  # (axis size, mode) -> mesh (issue 10)

    @property
    def cache_size(self) -> int:
        return len(self.cache)

    def _refresh_ensemble(self) -> None:
        """Restacks the members when one's Parameters were replaced (an assignment, which
        bumps the configuration epoch: checked only then). The old stacks would have stood for
        the replaced Parameters, and member 0's new one been broadcast to every member."""
        from ..compiler.jit import config_epoch
        epoch = config_epoch()
        if epoch == self._ensemble_epoch:
            return
        self._ensemble_epoch = epoch
        if self.ensemble.members_changed():
            mesh = self.ensemble.mesh
            self.ensemble = Ensemble(self.fn)
            self.ensemble.place(mesh)
            self.cache.clear()
            self._checked.clear()
            self._member_traces.clear()

    def __call__(self, *args, **kwargs):
        if kwargs:
            # 2.10: RuntimeError "Got an unexpected keyword argument 'scale'"
            raise RuntimeTypeError(f"Got an unexpected keyword argument {next(iter(kwargs))!r}: {self.__name__}'s "
                                   f"keyword arguments are not mapped by vmap; pass {', '.join(kwargs)} positionally")
        leaves, structure = pytree.flatten(args)
        axes = _leaf_axes(self.in_axes, args, "in_axes")
        axes = [_normalize(ax, t.ndim, "in_axes") for ax, t in zip(axes, leaves)]
        axis_size = self._axis_size(leaves, axes, args)
        if self.ensemble is not None:
            self._refresh_ensemble()
            self.ensemble.ensure_home()
        leaves = self._place(leaves, axes, axis_size)
        from ..compiler.jit import config_epoch
        from ..context import get_context, lowering_target
        strategy = self.conv_strategy or _context_strategy()
        asked = lowering_target()
        target = self._onnx_form(leaves, axes, axis_size) if asked == "onnx-auto" else asked
        # (the target asked is part of the key: jit's choice of the stacked form lowers it first)
        key = (pytree.structure_key(structure), tuple((t.shape, t.dtype) for t in leaves), tuple(axes),
               axis_size, config_epoch(), asked, target, strategy)
        traced = self.cache.get(key)
        if traced is None:
            traced = self._build(structure, leaves, axes, axis_size, strategy, target)
            if target == "onnx-batched" and not _stacked_form_pays(traced, axis_size, lowered=asked == "onnx-auto"):
                per_member = key[:-3] + ("onnx", "onnx", strategy)
                traced = self.cache.get(per_member) or self._build(structure, leaves, axes, axis_size, strategy, "onnx")
                key = key if asked == "onnx-auto" else per_member   # jit asks again without lowering again
            traced.cache["backend"] = get_context("backend")
            if not traced.captures:  # captured Tensors belong to one enclosing trace: never reuse
                self.cache[key] = traced
        out = inline(traced, leaves)
        numbers = traced.cache.get("numbers")
        return out if numbers is None else _numbers_broadcast(out, numbers, axis_size)

    def _onnx_form(self, leaves, axes, axis_size) -> str:
        """The onnxruntime lowering for a call whose batch is known (jit(backend="onnx")): an
        ensemble's stacked form ("onnx-batched") at a batch of at most SMALL_BATCH_MAX where
        an export would run it (`export.stacked_form_pays`: here only whether enough members
        could pay if paired; the built form's convolutions, then its lowering, are checked by
        `_stacked_form_pays`), else each member's chain ("onnx")."""
        from ..compiler.export import SMALL_BATCH_MAX, stacked_form_pays
        if self.ensemble is None or not leaves or not stacked_form_pays(axis_size, 0.0, paired=True):
            return "onnx"
        shape = leaves[0].shape if axes[0] is None else leaves[0].shape[:axes[0]] + leaves[0].shape[axes[0] + 1:]
        return "onnx-batched" if shape and shape[0] <= SMALL_BATCH_MAX else "onnx"

    # -- placement on several devices (issue 10) ----------------------------------------------
    def _place(self, leaves, axes, axis_size):
        """Splits the stacked parameters and the mapped inputs over the `ensemble` mesh axis (and
        each member's batch over `data` on a 2-D mesh); GSPMD then runs each device's share of
        the members. A no-op with one device."""
        from ..parallel import data_parallel_mode, place_mapped, sharding_enabled, vmap_mesh
        if not sharding_enabled() or (self.ensemble is None and self.devices is None and self.mesh is None):
            return leaves
        key = (axis_size, data_parallel_mode())  # DATA_PARALLEL changes the default mesh
        if key not in self._meshes:
            self._meshes[key] = vmap_mesh(self.mesh, self.devices, axis_size)
        mesh = self._meshes[key]
        if mesh is None:
            return leaves
        if self.ensemble is not None:
            self.ensemble.place(mesh)
        placed = [t._payload if t.is_symbolic else place_mapped(t._payload, mesh, ax, f"input {k}")
                  for k, (t, ax) in enumerate(zip(leaves, axes))]
        return [t if array is t._payload else Tensor._wrap(array) for t, array in zip(leaves, placed)]

    # -- checks ------------------------------------------------------------------------------
    def _axis_size(self, leaves, axes, args) -> int:
        arg_of = _leaf_paths(pytree.flatten(tuple(args))[1])
        sizes = [(t.shape[ax], arg_of[k]) for k, (t, ax) in enumerate(zip(leaves, axes)) if ax is not None]
        for size, arg in sizes[1:]:
            if size != sizes[0][0]:
                raise RuntimeError(
                    f"The 'axis_size' of each argument in the scope of 'vmap' should be equal, but got "
                    f"{sizes[0][0]} and {size}. (the axis size of each argument mapped by vmap must be "
                    f"equal, but got {sizes[0][0]} ({sizes[0][1]}) and {size} ({arg}))")
        if self.ensemble is not None:
            n = len(self.ensemble)
            if sizes and sizes[0][0] != n:
                raise ValueError(
                    "If you want to execute the model ensembling parallel training, please make sure the "
                    "'axis_size' in the scope of vmap consistent with the cell size of the input 'CellList', "
                    "otherwise, please do not enter 'CellList' as the first argument, but we get axis_size: "
                    f"{sizes[0][0]} and the cell size: {n}.")
            return n
        if not sizes and isinstance(self.in_axes, (tuple, list)) and all(a is None for a in self.in_axes):
            raise RuntimeError(f"The 'in_axes' of 'vmap' cannot be all None while 'fn' is not a 'CellList', "
                               f"but got {tuple(self.in_axes)}.")   # 2.10's words, measured
        if not sizes:
            raise ValueError(f"{self.__name__}: in_axes maps no Tensor argument, so the axis size is "
                             "unknown; give at least one argument an int axis")
        return sizes[0][0]

    # -- building the vmapped graph ---------------------------------------------------------
    def _build(self, structure, leaves, axes, axis_size, strategy, target) -> Traced:
        member_leaves = [_abstract(t, ax) for t, ax in zip(leaves, axes)]
        member_args = pytree.unflatten(structure, member_leaves)
        traced = self._member_trace(structure, member_args, member_leaves)
        stacked = lambda p: None if self.ensemble is None else self.ensemble.stacked_for(p)  # noqa: E731
        own = lambda p: p if stacked(p) is None else stacked(p)  # noqa: E731
        if self.ensemble is not None:
            self._check_same_graph(traced, member_args, leaves, axes)
        number_axes: list = []
        user_out_axes = _leaf_axes(self.out_axes, None, "out_axes", traced.out_tree, number_axes)
        user_out_axes = [_normalize(ax, v.ndim + 1, "out_axes")
                         for ax, v in zip(user_out_axes, traced.graph.outputs[:traced.n_user])]
        in_axes = (list(axes) + [None if stacked(p) is None else 0 for p in traced.params]
                   + [None] * len(traced.captures))
        # An argument written in place goes back to the caller's Tensor, mapped as it came in.
        out_axes = (user_out_axes + [None if stacked(p) is None else 0 for p in traced.state_params]
                    + [axes[i] for i in traced.arg_writes])
        graph = vmap_graph(traced.graph, in_axes, out_axes, axis_size, randomness=self.randomness,
                           conv_strategy=strategy, target=target, name=f"vmap_{traced.graph.name}",
                           **({} if self.ensemble is None else {"ensemble": self.ensemble}))
        params = [own(p) for p in traced.params]
        for value, param in zip(graph.inputs[traced.n_args:], params):
            value.name = param.name  # the stacked Parameter's name, e.g. conv1.weight
        state = [own(p) for p in traced.state_params]
        built = Traced(graph, traced.n_args, params, traced.captures, state, traced.out_tree,
                       modes=traced.modes + self._member_modes(), arg_writes=traced.arg_writes,
                       clamped_slices=traced.clamped_slices)
        built.cache["numbers"] = _numbers_plan(traced.out_tree, number_axes)
        made_from(built, "vmap", traced)   # save_graphs writes the member's trace, then the vmap graph
        return built

    def _member_trace(self, structure, member_args, member_leaves) -> Traced:
        """The trace of one member at per-member shapes. Reused across lowering targets (export
        builds two: onnxruntime's per-member form and its small-batch form) unless the trace
        itself made a target-dependent choice (a vmap inside the member) or captured Tensors
        of an enclosing trace."""
        from ..compiler.jit import config_epoch
        from ..ops.nn_prims import chose_by_target
        key = (pytree.structure_key(structure), tuple((t.shape, t.dtype) for t in member_leaves), config_epoch())
        traced = self._member_traces.get(key)
        if traced is None or not traced.modes_hold():
            first = self.fn if self.ensemble is None else self.ensemble.members[0]
            with self._member_hooks():
                traced = trace(first, *member_args)
            if not traced.captures and not chose_by_target(traced.graph):
                # The latest two signatures: export traces two batch sizes per target.
                self._member_traces = {**dict(list(self._member_traces.items())[-1:]), key: traced}
        return traced

    def _member_hooks(self):
        """Around a member's trace: a hooked Cell stands for its counterpart in every member
        (ops/member_hooks.py), so that each member's backward hooks run on its gradients."""
        from contextlib import nullcontext

        from ..ops.member_hooks import member_trace
        return nullcontext() if self.ensemble is None else member_trace(self.ensemble)

    def _member_modes(self) -> tuple:
        """Every ensemble member's Cells with their training modes: the vmapped graph is member
        0's, checked against the others, so it stands only while none of them changes mode."""
        if self.ensemble is None:
            return ()
        return tuple((weakref.ref(c), c.training) for m in self.ensemble.members for _, c in m.cells_and_names())

    def _check_same_graph(self, traced: Traced, member_args, leaves, axes) -> None:
        """Every member must trace to member 0's graph (same ops, attrs and constants).

        Checked once per argument structure, ranks and dtypes, not per batch size: tracing
        every member is most of the cost of a new signature (export traces two batch sizes)."""
        from ..compiler.jit import config_epoch
        checked = (pytree.structure_key(pytree.flatten(member_args)[1]), tuple(axes),
                   tuple((t.ndim, t.dtype) for t in leaves), config_epoch(),
                   tuple(training for _, training in self._member_modes()))
        if checked in self._checked:
            return
        reference = graph_signature(traced.graph)
        configured = configuration(self.ensemble.members[0])
        for i, cell in enumerate(self.ensemble.members[1:], 1):
            if configured is not None and configuration(cell) == configured:
                continue   # the same class, attributes and parameter shapes: the same graph
            with self._member_hooks():
                other = trace(cell, *member_args)
            if graph_signature(other.graph) == reference:
                continue
            where = "its inputs or outputs"
            for k, (a, b) in enumerate(zip(traced.graph.nodes, other.graph.nodes)):
                if (a.primitive, a.attrs, [v.type for v in a.inputs]) != \
                        (b.primitive, b.attrs, [v.type for v in b.inputs]):
                    where = f"node {k}: member 0 has `{format_node(a, {})}`, member {i} has `{format_node(b, {})}`"
                    break
            else:
                n0, n1 = len(traced.graph.nodes), len(other.graph.nodes)
                if n0 != n1:  # one graph extends the other: name the first node only one has
                    longer, k = (0, traced.graph) if n0 > n1 else (i, other.graph), min(n0, n1)
                    where = (f"its length: {n0} nodes vs {n1}; member {longer[0]} goes on with "
                             f"`{format_node(longer[1].nodes[k], {})}`")
            raise RuntimeError(f"vmap: the cells of the CellList must share one architecture, but member {i}'s "
                               f"traced graph differs from member 0's at {where}")
        self._checked.add(checked)


def _signature_of(fn):
    """The mapped function's signature (a Cell's construct's), so that exports and dumps name
    the ensemble's inputs as the member names them (`x`, not `args`)."""
    import inspect
    try:
        return inspect.signature(fn.construct if hasattr(fn, "construct") else fn)
    except (TypeError, ValueError):
        return None


def _abstract(t: Tensor, axis):
    """A shape-only stand-in for one member's slice of `t` (tracing reads shapes only)."""
    shape = t.shape if axis is None else t.shape[:axis] + t.shape[axis + 1:]
    return Tensor._wrap(jax.ShapeDtypeStruct(shape, t.dtype.np_dtype))


def _normalize(axis, ndim: int, name: str):
    if axis is None:
        return None
    if not isinstance(axis, int) or isinstance(axis, bool):
        # 2.10's words, measured (its RuntimeError; a TypeError too here)
        raise RuntimeTypeError(f"The axis in vmap's '{name}' should be a None or a scalar of type Int64Imm, "
                               f"but got a {axis}.")
    if not -ndim <= axis < ndim:
        raise RuntimeError(f"The axis: {axis} in '{name}' is out of bounds for array of dimension "
                           f"[{-ndim},{ndim}).")
    return axis % ndim


_ARGS = object()


def _leaf_axes(spec, args, name: str, structure=_ARGS, numbers: list | None = None) -> list:
    """One axis per Tensor leaf: `spec` broadcast over, or matched against, the positional
    arguments `args` or (args=None) an output `structure`. With `numbers` (a list, for
    outputs), the axis of each static leaf is appended to it in order, and an int for a
    Python number is allowed: the number is broadcast along the mapped axis (jax, MindSpore)."""
    if structure is _ARGS:
        if isinstance(spec, (tuple, list)) and len(spec) != len(args):
            raise RuntimeError(f"When vmap`s '{name}' is a tuple or list, and its size must be equal to the "
                               f"number of arguments of 'fn': {len(args)}, but got size: {len(spec)}.")
        structure = pytree.flatten(tuple(args))[1]
    elif not isinstance(structure, tuple) or structure[0] not in (tuple, list):
        if isinstance(spec, (tuple, list)) and len(spec) == 1:
            spec = spec[0]  # (0,) for a single output
    out: list = []
    _match(spec, structure, name, out, "", numbers=numbers)
    return out


def _leaf_paths(structure) -> list[str]:
    """Per Tensor leaf of the arguments' structure (a tuple of them), where it sits, in the
    user's terms: "argument 0", or "argument 0[1]['u']" inside a nested argument."""
    paths: list[str] = []

    def walk(s, path):
        if s is None:
            paths.append(path)
        elif isinstance(s, pytree.Static):
            pass
        elif s[0] is dict:
            for k, v in zip(s[1], s[2]):
                walk(v, f"{path}[{k!r}]")
        else:
            for k, v in enumerate(s[1]):
                walk(v, f"{path}[{k}]")

    for k, s in enumerate(structure[1]):
        walk(s, f"argument {k}")
    return paths


def _match(spec, structure, name, out, path, explicit=False, numbers=None):
    """`explicit`: `spec` was given for this very place (an entry of a tuple or dict), not
    broadcast from an enclosing int."""
    if structure is None:  # a Tensor slot
        if isinstance(spec, (tuple, list, dict)):
            raise RuntimeError(f"vmap: '{name}'{path} is a {type(spec).__name__} but the value there is a Tensor")
        out.append(spec)
        return
    if isinstance(structure, pytree.Static):
        if numbers is not None:
            numbers.append(spec if isinstance(spec, int) and _is_number(structure.value) else None)
            if _is_number(structure.value):
                return
        if explicit and isinstance(spec, int):   # as jax: only a Tensor (or a returned number) has an axis
            where = "output" if numbers is not None else "argument"
            raise RuntimeValueError(f"vmap: '{name}'{path} is {spec}, but the {where} there is a Python "
                             f"{type(structure.value).__name__}, which has no axis to map; give None")
        return
    if structure[0] is dict:
        keys, items = structure[1], structure[2]
        if isinstance(spec, dict):
            if set(spec) != set(keys):
                raise RuntimeError(f"vmap: '{name}'{path} has keys {sorted(spec)} but the value has {sorted(keys)}")
            for k, s in zip(keys, items):
                _match(spec[k], s, name, out, f"{path}[{k!r}]", explicit=True, numbers=numbers)
            return
    else:
        items = structure[1]
        if isinstance(spec, (tuple, list)):
            if len(spec) != len(items):
                if name == "out_axes" and not path:   # 2.10's words, measured
                    raise RuntimeError(f"The size of vmap's 'out_axes' should be equal to the number of results "
                                       f"of 'fn': {len(items)}, but got size: {len(spec)}.")
                raise RuntimeError(f"vmap: '{name}'{path} has {len(spec)} entries but the value there has "
                                   f"{len(items)}")
            for k, (sp, s) in enumerate(zip(spec, items)):
                _match(sp, s, name, out, f"{path}[{k}]", explicit=True, numbers=numbers)
            return
    if isinstance(spec, (tuple, list, dict)):
        raise RuntimeError(f"vmap: '{name}'{path} is a {type(spec).__name__} that does not match the value there")
    for s in items:
        _match(spec, s, name, out, path, numbers=numbers)


# -- Python numbers among the outputs -----------------------------------------------------------

def _is_number(value) -> bool:
    import numbers

    import numpy as np
    return isinstance(value, (numbers.Real, np.bool_)) and not isinstance(value, np.ndarray)


def _numbers_plan(out_tree, axes: list):
    """For outputs holding Python numbers with an int out axis: the output structure with a
    Tensor slot for each, and per slot of it either None (a graph output) or (number, axis).
    None when there are no such numbers (the usual case)."""
    if not any(a is not None for a in axes):
        return None
    it = iter(axes)
    slots: list = []

    def walk(s):
        if s is None:
            slots.append(None)
            return None
        if isinstance(s, pytree.Static):
            axis = next(it)
            if axis is None or not _is_number(s.value):
                return s
            _normalize(axis, 1, "out_axes")   # MindSpore's "[-1,1)" message for anything else
            slots.append(s.value)
            return None
        if s[0] is dict:
            return (dict, s[1], tuple(walk(v) for v in s[2]))
        return (s[0], tuple(walk(v) for v in s[1]))
    return walk(out_tree), slots


def _numbers_broadcast(out, plan, axis_size: int):
    """`out` with each planned Python number made a Tensor of `axis_size` copies (a float is
    Float32, an int Int64, a bool Bool: MindSpore 2.10 measured; jax.vmap broadcasts them too)."""
    from ..ops import functional as F
    tree, slots = plan
    tensors = iter(pytree.flatten(out)[0])
    leaves = [next(tensors) if v is None else F.broadcast_to(Tensor(v), (axis_size,)) for v in slots]
    return pytree.unflatten(tree, leaves)


def _context_strategy():
    from ..context import get_context
    try:
        value = get_context("conv_strategy")
    except ValueError:  # never set
        return None
    _check_strategy(value, "set_context: conv_strategy")
    return value


def _check_strategy(value, what):
    if value is not None and value not in CONV_STRATEGIES:
        raise ValueError(f"{what} must be one of {', '.join(CONV_STRATEGIES)} or None, got {value!r}")


def _stacked_form_pays(traced, axis_size: int, lowered: bool) -> bool:
    """export.stacked_form_pays for a built stacked form, whose wide and grouped convolutions
    each cover every member: whether it can pay, paired by onnx_blocked or not, and with
    `lowered` (jit(backend="onnx"), whose session runs it) whether it pays as lowered, as an
    export decides once it has lowered its own."""
    from ..compiler.export import mean_conv_macs, stacked_form_pays
    from ..compiler.onnx_blocked import pairs_members
    macs = mean_conv_macs(traced.graph) / axis_size
    if not stacked_form_pays(axis_size, macs):
        return False
    return not lowered or stacked_form_pays(axis_size, macs, pairs_members(_jit_lowering(traced)))


def _jit_lowering(traced):
    """The ONNX graph of a vmapped Traced as jit(backend="onnx") lowers it at first (runtime/
    session.py: the "onnx" pipeline, parameters baked in as initializers). onnx_blocked pairs
    members by the graph's structure, not the weights' values: Tensors captured from an
    enclosing trace hold no values yet, and stand in as zeros."""
    import numpy as np

    from ..compiler.jit import onnx_graph
    from ..compiler.onnx import RUNTIME_OPSET, lower
    graph = onnx_graph(traced)
    values = [np.asarray(p._payload) for p in traced.params]
    values += [np.zeros(v.shape, v.dtype.np_dtype) for v in graph.inputs[traced.n_args + len(values):]]
    return lower(graph, params=dict(zip(graph.inputs[traced.n_args:], values)), opset=RUNTIME_OPSET).model.graph


__all__ = ["vmap", "VmapFunction"]
