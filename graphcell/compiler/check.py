"""`graphcell.check(fn, *inputs)`: eager vs XLA vs ONNX, with the first node that diverges.

    >>> report = graphcell.check(net, x)
    >>> print(report)
    output  shape      xla-eager  onnx-eager
    0       [3, 10]    0          2.98e-08
    first divergence: none (rtol=1e-05, atol=1e-05)

The eager run calls `fn` itself; XLA runs the traced graph under jax.jit; ONNX runs the
exported graph in onnxruntime with every intermediate value as an extra output, which is
compared, node by node in graph order, with the same values computed by the jax
implementations, to name the first node whose ONNX result differs.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ..frontend import pytree
from ..frontend.trace import trace
from ..ir.printer import format_node
from ..tensor import Tensor

__all__ = ["check", "CheckReport"]


@dataclass
class CheckReport:
    """Largest absolute differences per output, and where ONNX first departs from jax."""
    outputs: list = field(default_factory=list)     # dicts: index, shape, xla, onnx (max |diff| vs eager)
    # node, scope, max_diff, text; where it differs most: index, onnx, jax (the values there),
    # operands (the node's inputs there, for an elementwise node), and mismatched/size (counts)
    first_divergence: dict | None = None
    rtol: float = 1e-5
    atol: float = 1e-5
    provider: str = ""

    @property
    def max_diff(self) -> float:
        return max([max(o["xla"], o["onnx"]) for o in self.outputs], default=0.0)

    @property
    def ok(self) -> bool:
        return self.first_divergence is None and all(o["ok"] for o in self.outputs)

    def __str__(self):
        lines = [f"{'output':<8}{'shape':<18}{'xla-eager':<12}{'onnx-eager':<12}"]
        for o in self.outputs:
            lines.append(f"{o['index']:<8}{str(o['shape']):<18}{o['xla']:<12.3g}{o['onnx']:<12.3g}")
        first = self.first_divergence
        where = "none" if first is None else f"{first['text']} (max |diff| {first['max_diff']:.3g})"
        lines.append(f"first divergence: {where} (rtol={self.rtol:g}, atol={self.atol:g})")
        if first is not None and "index" in first:
            lines.append(f"  {first['mismatched']} of {first['size']} elements differ; at "
                         f"{list(first['index'])}: onnx {first['onnx']!r}, jax {first['jax']!r}"
                         + "".join(f", {name} {value!r}" for name, value in first.get("operands", ())))
        return "\n".join(line.rstrip() for line in lines)


def _close(a, b, rtol, atol) -> tuple[bool, float]:
    a, b = np.asarray(a), np.asarray(b)
    if np.iscomplexobj(b) and not np.iscomplexobj(a):   # ONNX carries complex S as real S + [2]
        b = np.stack([b.real, b.imag], axis=-1)
    if a.shape != b.shape:
        return False, float("inf")
    if a.dtype.kind not in "fc":
        diff = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)), initial=0.0))
        return diff == 0, diff
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    both_nan = np.isnan(a64) & np.isnan(b64)
    same_inf = np.isinf(a64) & (a64 == b64)
    err = np.where(both_nan | same_inf, 0.0, np.abs(a64 - b64))
    diff = float(np.max(err, initial=0.0))
    ok = bool(np.all(err <= atol + rtol * np.abs(np.where(both_nan | same_inf, 0.0, b64))))   # NaN == NaN
    return ok, diff


def _worst(onnx_value, reference, rtol, atol) -> dict:
    """Where ONNX's value departs from jax's most (a NaN on one side only counts as the worst),
    the two values there, and how many elements are off."""
    a, b = np.asarray(onnx_value), np.asarray(reference)
    if a.shape != b.shape or a.dtype.kind == "c" or b.dtype.kind == "c":
        return {}
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    same = (a64 == b64) | (np.isnan(a64) & np.isnan(b64))
    err = np.where(same, 0.0, np.abs(a64 - b64))
    bad = ~same & ~(err <= atol + rtol * np.abs(b64))
    if not bad.any():
        return {}
    index = np.unravel_index(int(np.argmax(np.where(bad, np.nan_to_num(err, nan=np.inf), -1.0))), a.shape)
    return {"index": tuple(int(i) for i in index), "onnx": a[index].item(), "jax": b[index].item(),
            "mismatched": int(bad.sum()), "size": int(a.size)}


def _operands_at(node, names, reference, index) -> list:
    """(printed name, value) of the node's operands at `index`, when they have the output's
    shape (an elementwise node: `relu(%2)` with %2 nan there explains onnx 0 vs jax nan)."""
    out = []
    for v in node.inputs:
        if tuple(v.shape) != tuple(node.outputs[0].shape) or v not in reference:
            return []
        out.append(("%" + names.get(v, v.name), np.asarray(reference[v])[index].item()))
    return out


def _eager_intermediates(graph, arrays) -> dict:
    """Every value of `graph`, computed node by node with the jax implementations, each
    jitted as PYNATIVE runs it (frontend/eager.py): called bare, an impl built of many jax
    ops (a narrow convolution's direct form: 75 for LeNet5's conv1) dispatches each one, and
    `graphcell check` of LeNet5 spent 2.7 of its 5.5 s there."""
    from ..frontend import eager
    env = dict(zip(graph.inputs, arrays))
    for node in graph.nodes:
        operands = [env[v] for v in node.inputs]
        key, run = eager.lookup(node.primitive, operands, node.attrs)
        if key is None:
            run = functools.partial(node.primitive.impl, **node.attrs)
        elif run is None:   # the trace already ran the shape rule on these operands
            run = eager.remember(node.primitive, key, node.attrs)
        result = run(*operands)
        outs = result if node.primitive.multiple_results else (result,)
        env.update(zip(node.outputs, outs))
    return env


def _leaves_like(structure, value) -> list:
    """`value`'s parts at the Tensor slots of `structure` (the traced result's), as arrays: a
    Python number eagerly (a loop counter) is a Tensor in the graph, so it is compared too."""
    if structure is None:
        return [np.asarray(value._payload if isinstance(value, Tensor) else value)]
    if isinstance(structure, pytree.Static):
        return []
    if structure[0] is dict:
        return [leaf for key, s in zip(structure[1], structure[2]) for leaf in _leaves_like(s, value[key])]
    parts = value._tree_children() if hasattr(value, "_tree_children") else value
    return [leaf for s, v in zip(structure[1], parts) for leaf in _leaves_like(s, v)]


# Default (rtol, atol) by the lowest float precision the graph computes in: 1e-5 for float32,
# and about two units in the last place for half precision (an amp O1/O2 network), where
# onnxruntime and XLA round a float16 convolution's or matmul's result one ulp apart.
TOLERANCES = {"float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2)}
DEFAULT_TOLERANCE = (1e-5, 1e-5)


def default_tolerances(graph) -> tuple[float, float]:
    """(rtol, atol) for `graph`: float32's, or half precision's when a node computes in it."""
    names = {v.dtype.name for node in graph.nodes for v in node.outputs if v.dtype.is_floating}
    for name in ("bfloat16", "float16"):
        if name in names:
            return TOLERANCES[name]
    return DEFAULT_TOLERANCE


def check(fn, *inputs, rtol: float | None = None, atol: float | None = None, providers=("cpu",),
          opset=None) -> CheckReport:
    """Runs `fn(*inputs)` eagerly, through XLA and through ONNX (onnxruntime) and compares.

    Returns a `CheckReport`: per output the largest |difference| of XLA and ONNX from eager,
    and the first graph node whose ONNX value differs from jax's beyond rtol/atol. Parameter
    writes made by the eager run are undone, so checking a training step leaves it unchanged.
    rtol and atol default to 1e-5, or to `TOLERANCES`' when the graph computes in float16 or
    bfloat16 (the report says which were used).
    """
    import onnx
    from ..compiler.jit import compiled_fn
    from ..runtime.session import Session
    from .onnx import lower, onnx_value_info

    traced = trace(fn, *inputs)
    graph = traced.graph
    default_rtol, default_atol = default_tolerances(graph)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    leaves = pytree.flatten((inputs, {}))[0]
    arrays = [t._payload for t in traced.input_tensors([t for t in leaves if isinstance(t, Tensor)])]

    saved = [(p, p._payload) for p in traced.state_params]
    try:
        eager = _leaves_like(traced.out_tree, fn(*inputs))
    finally:
        for p, payload in saved:
            p.set_data(Tensor._wrap(payload))
    n_user = len(graph.user_outputs)
    xla = [np.asarray(a) for a in compiled_fn(traced)(*arrays)][:n_user]

    lowered = lower(graph, params_as_inputs=True, opset=opset)
    model = lowered.model
    # Every intermediate that lives in a node output becomes an extra model output.
    produced = {o for n in model.graph.node for o in n.output}
    existing = {o.name for o in model.graph.output}
    probes = []
    for node in graph.nodes:
        for v in node.outputs:
            name = lowered.names.get(v)
            if name in produced:   # a model output already is its own probe
                if name not in existing:
                    model.graph.output.append(onnx_value_info(name, v.type))
                    existing.add(name)
                probes.append((node, v, name))
    del model.graph.value_info[:]
    onnx.checker.check_model(model)
    sess = Session(model, providers=list(providers), io_binding=False, name=f"check({graph.name})")
    np_arrays = [np.asarray(a) for a in arrays]
    results = sess.run(*np_arrays)
    by_name = dict(zip(sess.outputs, results))
    onnx_outs = [by_name[n] for n in lowered.output_names[:n_user]]

    report = CheckReport(rtol=rtol, atol=atol, provider=sess.provider)
    for i, (e, x, o) in enumerate(zip(eager, xla, onnx_outs)):
        ok_x, dx = _close(x, e, rtol, atol)
        ok_o, do = _close(o, e, rtol, atol)
        report.outputs.append({"index": i, "shape": list(e.shape), "xla": dx, "onnx": do, "ok": ok_x and ok_o})
    reference = _eager_intermediates(graph, arrays)
    names = {v: v.name for v in graph.inputs}
    printed = {node: format_node(node, names) for node in graph.nodes}  # numbered as str(graph)
    for node, v, name in probes:
        ok, diff = _close(by_name[name], reference[v], rtol, atol)
        if not ok:
            report.first_divergence = {"node": node, "scope": node.source.scope, "max_diff": diff,
                                       "text": printed[node]}
            worst = _worst(by_name[name], reference[v], rtol, atol)
            if worst:
                worst["operands"] = _operands_at(node, names, reference, worst["index"])
            report.first_divergence.update(worst)
            break
    return report
