"""Every primitive's batch rule against jax.vmap of the primitive's own jax implementation,
over random in_axes (hypothesis): one record per primitive drives the test."""
import functools

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import graphcell as ms
from graphcell.ops import elementwise as ew
from graphcell.ops.custom_bprop import BpropSite
from graphcell.ops.hooks import HookSite
from graphcell.ops.tensor_hooks import TensorHookSite
from graphcell.tensor import Tensor
from tests.registry import every_primitive

# every ops module imported first: a record's primitive may live in a module loaded on first use
PRIMITIVES = every_primitive()

N = 3
F32, I32, BOOL, U32 = np.float32, np.int32, np.bool_, np.uint32


def _arr(rng, shape, dtype, low=-2.0, high=2.0):
    if dtype == BOOL:
        return rng.random(shape) > 0.5
    if dtype == I32:
        return rng.integers(0, 4, shape).astype(dtype)
    if dtype == U32:
        return rng.integers(0, 2**32 - 1, shape, dtype=np.uint64).astype(dtype)
    return rng.uniform(low, high, shape).astype(dtype)


class _HookOwner:   # the Cell a backward hook's markers name (ops/hooks.py)
    pass


_HOOK_OWNER = _HookOwner()
HOOK_SITE = HookSite(_HOOK_OWNER)
BPROP_SITE = BpropSite(_HOOK_OWNER, None, None)   # a Cell.bprop's marker (ops/custom_bprop.py)
POSITIVE = {"log", "sqrt", "rsqrt", "log1p", "acosh", "igamma", "igamma_grad_a", "betainc"}
# name -> (operand (shape, dtype) list, attrs)
RECORDS = {}
for _name in ew.UNARY:
    _dt = BOOL if _name == "not" else F32
    RECORDS[_name] = ([((2, 3), _dt)], {})
for _name in ew.BINARY:
    _dt = BOOL if _name in ("and", "or", "xor") else F32
    RECORDS[_name] = ([((2, 1, 3), _dt), ((4, 3), _dt)], {})
RECORDS.update({
    "leaky_relu": ([((2, 3), F32)], {"alpha": 0.3}), "elu": ([((2, 3), F32)], {"alpha": 0.7}),
    "shrink": ([((2, 3), F32)], {"lambd": 0.4, "bias": 0.4}),
    "select": ([((2, 3), BOOL), ((2, 3), F32), ((3,), F32)], {}),
    "cast": ([((2, 3), F32)], {"dtype": ms.int32}),
    "stop_gradient": ([((2, 3), F32)], {}),
    "backward_hook_enter": ([((2, 3), F32), ((3,), F32)], {"site": HOOK_SITE, "layout": (True, True), "post": True}),
    "backward_hook_exit": ([((), BOOL), ((2, 3), F32)], {"site": HOOK_SITE, "layout": (True,), "pre": True}),
    "tensor_hook": ([((2, 3), F32)], {"site": TensorHookSite(print, {}, 0)}),
    "custom_bprop": ([((2, 3), F32), ((3,), F32)], {"site": BPROP_SITE, "n_out": 1}),
    "reduce_sum": ([((2, 3, 4), F32)], {"axes": (0, 2)}),
    "reduce_max": ([((2, 3, 4), F32)], {"axes": (1,)}),
    "reduce_min": ([((2, 3, 4), F32)], {"axes": (2,)}),
    "reduce_prod": ([((2, 3), F32)], {"axes": (0, 1)}),
    "argmax": ([((2, 3, 4), F32)], {"axis": 1, "index_dtype": ms.int32}),
    "element_count": ([((2, 3, 4), F32)], {"axes": (0, 2), "dtype": ms.float32}),
    "argmin": ([((2, 3, 4), F32)], {"axis": 2, "index_dtype": ms.int32}),
    "reshape": ([((2, 3, 4), F32)], {"shape": (6, 4)}),
    "transpose": ([((2, 3, 4), F32)], {"perm": (2, 0, 1)}),
    "broadcast_in_dim": ([((3, 1), F32)], {"shape": (2, 3, 5), "dims": (1, 2)}),
    "concatenate": ([((2, 3), F32), ((2, 2), F32)], {"axis": 1}),
    "slice": ([((5, 6), F32)], {"start": (1, 0), "limit": (4, 6), "strides": (2, 3)}),
    "rev": ([((3, 4, 2), F32)], {"axes": (0, 2)}),
    "pad": ([((2, 3), F32), ((), F32)], {"lo": (1, 0), "hi": (0, 2)}),
    "take": ([((4, 5), F32), ((2, 3), I32)], {"axis": 1}),
    "take_along_axis": ([((4, 5), F32), ((4, 2), I32)], {"axis": 1}),
    "scatter_add": ([((4, 5), F32), ((3,), I32), ((4, 3), F32)], {"axis": 1}),
    "write_rows": ([((5, 2, 3), F32), ((1,), I32), ((1, 2, 3), F32)], {}),   # one row: no repeated index
    "resize": ([((2, 3, 4), F32)], {"sizes": (5, 7), "method": "linear", "align_corners": False, "scales": None}),
    "dot_general": ([((2, 3, 4), F32), ((2, 4, 5), F32)], {"contract": ((2,), (1,)), "batch": ((0,), (0,))}),
    "conv": ([((2, 4, 6, 6), F32), ((6, 2, 3, 3), F32)],
             {"strides": (1, 2), "padding": ((1, 0), (0, 1)), "lhs_dilation": (1, 1),
              "rhs_dilation": (1, 1), "groups": 2, "batch_groups": 1}),
    "conv_transpose": ([((2, 6, 5, 3), F32), ((6, 2, 3, 3), F32)],
                       {"lhs_shape": (6, 6), "strides": (1, 2), "padding": ((1, 0), (0, 1)),
                        "rhs_dilation": (1, 1), "groups": 2}),
    "linear": ([((3, 4), F32), ((5, 4), F32), ((5,), F32)], {"contract": ((1,), (1,))}),
    "conv_bias": ([((2, 4, 6, 6), F32), ((6, 2, 3, 3), F32), ((6,), F32)],
                  {"strides": (1, 2), "padding": ((1, 0), (0, 1)), "lhs_dilation": (1, 1),
                   "rhs_dilation": (1, 1), "groups": 2, "batch_groups": 1}),
    "reduce_window_max": ([((2, 3, 6, 6), F32)], {"window": (1, 1, 2, 3), "strides": (1, 1, 2, 2),
                                                   "padding": ((0, 0), (0, 0), (0, 1), (1, 0))}),
    "reduce_window_sum": ([((2, 3, 6, 6), F32)], {"window": (1, 1, 2, 2), "strides": (1, 1, 2, 2),
                                                   "padding": ((0, 0),) * 4}),
    "reduce_window_max_grad": ([((2, 3, 4, 4), F32), ((2, 3, 2, 2), F32)],
                               {"window": (1, 1, 2, 2), "strides": (1, 1, 2, 2), "padding": ((0, 0),) * 4}),
    "random_split": ([((2,), U32)], {}),
    "random_fold_in": ([((2,), U32), ((), I32)], {}),
    "random_uniform": ([((2,), U32)], {"shape": (2, 3), "dtype": ms.float32}),
    "random_normal": ([((2,), U32)], {"shape": (4,), "dtype": ms.float32}),
    "cumsum": ([((2, 3, 4), F32)], {"axis": 1, "reverse": False}),
    "cumprod": ([((3, 4), F32)], {"axis": 1, "reverse": True}),
    "sort": ([((2, 5), F32)], {"axis": 1, "descending": False, "index_dtype": ms.int32}),
    "top_k": ([((4, 3), F32)], {"k": 2, "axis": 0, "largest": True, "index_dtype": ms.int32}),
    "polygamma": ([((2, 3), F32)], {"n": 2}),
    "igamma": ([((2, 1, 3), F32), ((4, 3), F32)], {"upper": False}),
    "betainc": ([((2, 1, 3), F32), ((4, 3), F32), ((3,), F32)], {}),
    "svd": ([((3, 4, 2), F32)], {"full_matrices": False, "compute_uv": True}),
    # matrices (ops/linalg_prims.py), float64 so that ill-conditioned draws agree; cholesky's
    # non-positive-definite draws are NaN on both sides (tests/test_linalg_more.py vmaps real ones)
    "det": ([((2, 3, 3), np.float64)], {}), "slogdet": ([((3, 3), np.float64)], {}),
    "matrix_inverse": ([((2, 3, 3), np.float64)], {}), "cholesky": ([((3, 3), np.float64)], {}),
    "qr": ([((2, 4, 3), np.float64)], {"full_matrices": False}), "matrix_exp": ([((2, 3, 3), np.float64)], {}),
    "geqrf": ([((3, 2), np.float64)], {}), "householder_product": ([((2, 4, 3), np.float64), ((2, 2), np.float64)], {}),
    "triangular_solve": ([((3, 3), np.float64), ((3, 2), np.float64)],
                         {"lower": True, "transpose_a": True, "unit_diagonal": False}),
    "shift_left": ([((2, 1, 3), I32), ((4, 3), I32)], {}), "shift_right": ([((2, 1, 3), I32), ((4, 3), I32)], {}),
    "nextafter": ([((2, 1, 3), F32), ((4, 3), F32)], {}),
})
# Records under other names: a second form of a primitive (name -> primitive's name).
ALIASES = {"conv_batch_groups": "conv", "scatter_add_rank2": "scatter_add", "sort_ties": "sort",
           "top_k_ties": "top_k", "svd_s_full": "svd", "eigh_complex": "eigh"}
# Integers in [0, 4): ties, which each member must order by index.
C64 = np.complex64   # complex operands: real parts drawn (enough for the batch rules' layouts)
RECORDS.update({"real": ([((2, 3), C64)], {}), "imag": ([((2, 3), C64)], {}), "conj": ([((2, 3), C64)], {}),
                "complex": ([((2, 1, 3), F32), ((4, 3), F32)], {}),
                "fft": ([((2, 3, 4), C64)], {"fft_type": "fft", "lengths": (3, 4)}),
                "eig": ([((2, 3, 3), np.float64)], {"compute_v": True}),
                "eigh": ([((2, 3, 3), np.float64)], {}), "eigh_complex": ([((2, 3, 3), np.complex128)], {}),
                "matrix_logarithm": ([((2, 3, 3), np.complex128)], {})})
RECORDS["sort_ties"] = ([((3, 6), I32)], {"axis": 0, "descending": True, "index_dtype": ms.int64})
RECORDS["top_k_ties"] = ([((2, 7), I32)], {"k": 3, "axis": 1, "largest": False, "index_dtype": ms.int32})
RECORDS["svd_s_full"] = ([((2, 4, 3), F32)], {"full_matrices": True, "compute_uv": False})
# 2-D indices into a middle axis: per-member indices fold the members into that axis.
RECORDS["scatter_add_rank2"] = ([((2, 5, 3), F32), ((2, 2), I32), ((2, 2, 2, 3), F32)], {"axis": 1})
# The weight-gradient form of conv (batch_groups > 1) is batched member by member.
RECORDS["conv_batch_groups"] = ([((4, 3, 5, 5), F32), ((4, 3, 3, 3), F32)],
                                {"strides": (1, 1), "padding": ((0, 0), (0, 0)), "lhs_dilation": (1, 1),
                                 "rhs_dilation": (1, 1), "groups": 1, "batch_groups": 2})


def test_every_primitive_has_a_batch_rule_and_a_record():
    registry = every_primitive()
    missing = [name for name, p in registry.items() if p.batch_rule is None and not p.lowering_only]
    assert not missing, f"primitives without a batch rule: {missing}"
    # constant has no operands; cond/while_loop hold subgraphs (tests/test_control_flow.py), and
    # so does scan (tests/test_rnn.py); tile_rows is made by the XLA pipeline's last pass only
    # (tests/test_tile_rows.py); backward_hook calls Python on the host, which jax.vmap, the
    # reference here, refuses (tests/test_backward_hooks.py vmaps it); the gamma and Poisson draws
    # fold the member index into an unbatched key, which jax.vmap does not (tests/test_random_more.py)
    untested = sorted(set(registry) - set(RECORDS) - {"constant", "cond", "while_loop", "scan", "tile_rows",
                                                        "backward_hook", "random_gamma_draw", "random_poisson_draw",
                                                        "host_call"})   # Python on the host: test_custom_ops.py
    assert not untested, f"primitives without a vmap test record: {untested}"


def _check(name, data, strategy=None):
    prim = PRIMITIVES[ALIASES.get(name, name)]
    operands, attrs = RECORDS[name]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    axes = [data.draw(st.one_of(st.none(), st.integers(0, len(shape))), label=f"axis{i}")
            for i, (shape, _) in enumerate(operands)]
    if all(a is None for a in axes):
        axes[0] = 0
    arrays = []
    for (shape, dtype), ax in zip(operands, axes):
        low, high = (0.1, 3.0) if name in POSITIVE else (-2.0, 2.0)
        full = shape if ax is None else shape[:ax] + (N,) + shape[ax:]
        arrays.append(_arr(rng, full, dtype, low, high))
    expected = jax.vmap(functools.partial(prim.impl, **attrs), in_axes=tuple(axes))(*arrays)
    fn = ms.vmap(lambda *a: prim.bind(*a, **attrs), in_axes=tuple(axes), conv_strategy=strategy)
    got = fn(*[Tensor(a) for a in arrays])
    if prim.multiple_results:
        expected, got = list(expected), [g.asnumpy() for g in got]
    else:
        expected, got = [expected], [got.asnumpy()]
    for e, g in zip(expected, got):
        e = np.asarray(e)
        assert g.shape == e.shape and g.dtype == e.dtype, (name, axes, g.shape, e.shape)
        np.testing.assert_allclose(g, e, rtol=2e-5, atol=2e-5, err_msg=f"{name} in_axes={axes}")


@pytest.mark.parametrize("name", sorted(RECORDS))
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_batch_rule_matches_jax_vmap(name, data):
    _check(name, data)


@pytest.mark.parametrize("strategy", ["grouped", "unrolled", "wide"])
@settings(max_examples=4, deadline=None)
@given(data=st.data())
def test_conv_strategies_match_jax_vmap(strategy, data):
    _check("conv", data, strategy)


def test_a_broadcast_operand_moves_to_the_activations_mapped_axis():
    """x mapped at axis 1 (as after a wide convolution), a per-channel scale mapped at 0: the
    scale is transposed to x's mapped axis, not x to the scale's, and x is never transposed."""
    from graphcell.frontend.trace import trace
    from graphcell.passes.vmap import vmap_graph
    rng = np.random.default_rng(0)
    x, s = rng.standard_normal((5, 4, 3, 6)).astype(np.float32), rng.standard_normal((4, 3, 1)).astype(np.float32)
    member = trace(lambda a, b: a * b, ms.Tensor(x[:, 0]), ms.Tensor(s[0])).graph
    graph = vmap_graph(member, [1, 0], [1], 4)
    transposed = [n.inputs[0] for n in graph.nodes if n.primitive.name == "transpose"]
    assert graph.inputs[0] not in transposed and graph.outputs[0].mapped_axis == 1
    from graphcell.compiler.to_jax import graph_to_jax
    (got,) = graph_to_jax(graph)(x, s)
    np.testing.assert_allclose(got, jax.vmap(lambda a, b: a * b, in_axes=(1, 0), out_axes=1)(x, s), rtol=1e-6)
