"""graphcell.ops' signatures against MindSpore 2.10's, and the arguments aligned with them.

tests/data/mindspore_ops_signatures.json holds mindspore.ops' signatures for every name
graphcell.ops defines, recorded from MindSpore 2.10.0 by tools/mindspore_signatures.py (run
with graphcell's Python and `--mindspore-python` a MindSpore venv's interpreter; see
tests/data/README.md). MindSpore is not needed to run these tests.

The rule: every call MindSpore's signature accepts binds the same way to graphcell's. So
MindSpore's parameters come first in graphcell's, with its names, in its order, with its
defaults; graphcell may give a default where MindSpore has none, and accept positionally what
MindSpore takes by keyword only; graphcell's own extra parameters (`key=`, `keepdims`) follow,
each with a default. EXCEPTIONS lists the deliberate departures, each with its reason.

Then: the most-used ops called with MindSpore's keyword names, against numpy; and the
arguments added to match MindSpore (div's rounding_mode, gather's batch_dims, pad's modes,
amax's initial and where, ...) eagerly, under jit (XLA and onnxruntime), under vmap and
under grad, against numpy, torch and jax.
"""
import ast
import inspect
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import ops
from graphcell.tensor import Tensor

SIGNATURES = pathlib.Path(__file__).parent / "data" / "mindspore_ops_signatures.json"
RECORD = json.loads(SIGNATURES.read_text())
P = inspect.Parameter

EXCEPTIONS = {
    "cond": "graphcell's ops.cond is tensor control flow, cond(pred, true_fn, false_fn, operands); MindSpore's "
            "is a matrix's condition number, cond(A, p=None), which graphcell does not have",
    "tensor_scatter_update": "MindSpore's is a Primitive instance, called positionally only (its __call__ takes "
                             "no keywords: measured), whose documents name the third input `update`; graphcell "
                             "names it `updates`, as MindSpore's ops.tensor_scatter_add and "
                             "tensor_scatter_elements do",
    "partial": "MindSpore's is a Primitive instance whose inputs the tool reads as one `args`; its "
               "signature is partial(*args) (inspect, measured), as graphcell's",
}
REGENERATE = ("regenerate it with: python tools/mindspore_signatures.py --mindspore-python "
              "<a MindSpore 2.10 venv>/bin/python (see tests/data/README.md)")


def _default_equal(ms_repr: str, gc_default) -> bool:
    """MindSpore's recorded default repr against graphcell's default (dtypes by name)."""
    mine = repr(gc_default).replace("graphcell.", "")
    theirs = ms_repr.replace("mindspore.", "")
    try:
        a, b = ast.literal_eval(theirs), ast.literal_eval(mine)
    except (ValueError, SyntaxError):
        return theirs == mine
    return a == b and type(a) is type(b)


def differences(name: str, ms_params: list, fn=None) -> list:
    """How graphcell.ops.<name>'s signature (or `fn`'s) breaks the rule above for MindSpore's
    `ms_params`."""
    ours = list(inspect.signature(fn or getattr(ops, name)).parameters.values())
    found = []
    for i, (pname, kind, default) in enumerate(ms_params):
        if i >= len(ours):
            return found + [f"lacks MindSpore's parameter {pname!r}"]
        mine = ours[i]
        if mine.name != pname:
            return found + [f"parameter {i} is {mine.name!r}, MindSpore's is {pname!r}"]
        allowed = {"KEYWORD_ONLY": {"KEYWORD_ONLY", "POSITIONAL_OR_KEYWORD"}}.get(kind, {kind})
        if mine.kind.name not in allowed:
            found.append(f"{pname!r} is {mine.kind.name}, MindSpore's is {kind}")
        if default is not None:
            if mine.default is P.empty:
                found.append(f"{pname!r} has no default, MindSpore's is {default}")
            elif not _default_equal(default, mine.default):
                found.append(f"{pname!r} defaults to {mine.default!r}, MindSpore's to {default}")
    for extra in ours[len(ms_params):]:
        if extra.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD) and extra.default is P.empty:
            found.append(f"graphcell's extra parameter {extra.name!r} has no default")
    return found


def _public_ops() -> list:
    """As the tool lists them: dir() names the transforms (grad, vmap, ...) only once loaded."""
    names = set(dir(ops)) | set(getattr(ops, "_TRANSFORMS", ()))
    return sorted(n for n in names if not n.startswith("_") and callable(getattr(ops, n))
                  and not inspect.ismodule(getattr(ops, n)) and not inspect.isclass(getattr(ops, n)))


def _compared() -> list:
    return sorted(n for n, e in RECORD["ops"].items() if e is not None and e["params"] is not None)


# -- signatures -------------------------------------------------------------------------------

def test_the_record_is_mindspore_2_10_and_covers_graphcell_ops():
    assert RECORD["mindspore_version"] == "2.10.0"
    missing = sorted(set(_public_ops()) - set(RECORD["ops"]))
    assert not missing, f"graphcell.ops names missing from {SIGNATURES.name}: {missing}; {REGENERATE}"
    assert len(_compared()) > 150      # the record has real content: MindSpore has most of them


def test_signatures_match_mindspore():
    wrong = {name: differences(name, RECORD["ops"][name]["params"])
             for name in _compared() if name not in EXCEPTIONS}
    wrong = {name: d for name, d in wrong.items() if d and hasattr(ops, name)}
    assert not wrong, "\n".join(f"ops.{n}: {'; '.join(d)}" for n, d in sorted(wrong.items()))


def test_tensor_methods_match_mindspore():
    """The Tensor methods whose MindSpore signature inspect can read (MindSpore 2.10's others are
    C++ methods with several overloads each: no one signature to compare)."""
    record = RECORD["tensor_methods"]
    plain = sorted(n for n, e in record.items() if e is not None and e["params"] is not None)
    assert len(plain) >= 20, plain
    wrong = {}
    for name in plain:
        method = getattr(Tensor, name)
        drop_self = inspect.signature(method).replace(parameters=list(inspect.signature(method).parameters.values())[1:])
        found = differences(name, record[name]["params"], _with_signature(drop_self))
        if found:
            wrong[name] = found
    assert not wrong, "\n".join(f"Tensor.{n}: {'; '.join(d)}" for n, d in sorted(wrong.items()))


def _with_signature(signature):
    def stand_in():
        pass
    stand_in.__signature__ = signature
    return stand_in


@pytest.mark.parametrize("name", sorted(EXCEPTIONS))
def test_each_exception_is_real_and_explained(name):
    """An exception that no longer differs, or that MindSpore lacks, is taken off the list."""
    assert len(EXCEPTIONS[name]) > 40
    assert name in _compared()
    assert differences(name, RECORD["ops"][name]["params"])


def test_the_rule_catches_a_renamed_a_reordered_and_a_changed_default_parameter():
    """differences() on made-up MindSpore records against real graphcell signatures."""
    assert differences("gather_elements", [["input", "POSITIONAL_OR_KEYWORD", None],
                                           ["axis", "POSITIONAL_OR_KEYWORD", None]])
    assert differences("where", [["condition", "POSITIONAL_OR_KEYWORD", None],
                                 ["other", "POSITIONAL_OR_KEYWORD", None], ["input", "POSITIONAL_OR_KEYWORD", None]])
    assert differences("leaky_relu", [["input", "POSITIONAL_OR_KEYWORD", None],
                                      ["alpha", "POSITIONAL_OR_KEYWORD", "0.01"]])
    assert differences("relu", [["input", "POSITIONAL_OR_KEYWORD", None], ["inplace", "KEYWORD_ONLY", "False"],
                                ["extra", "KEYWORD_ONLY", None]])
    assert not differences("relu", [["input", "POSITIONAL_OR_KEYWORD", None], ["inplace", "KEYWORD_ONLY", "False"]])
    assert not differences("zeros", [["size", "POSITIONAL_OR_KEYWORD", None],
                                     ["dtype", "POSITIONAL_OR_KEYWORD", "None"]])


# -- the most-used ops, called with MindSpore's keyword names -----------------------------------

RNG = np.random.default_rng(7)
X = RNG.uniform(-3, 3, (3, 4)).astype(np.float32)
Y = RNG.uniform(0.5, 2, (3, 4)).astype(np.float32)
V = RNG.uniform(-1, 1, (4,)).astype(np.float32)
I = np.array([[1, 0, 3, 3], [2, 2, 0, 1], [0, 1, 2, 3]], np.int32)
M = X > 0
T = Tensor


def _softmax(x, axis):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


KEYWORD_CASES = {  # name: (MindSpore's keyword arguments, numpy's value[, which result])
    "add": (dict(input=T(X), other=T(Y)), X + Y),
    "sub": (dict(input=T(X), other=T(Y)), X - Y),
    "mul": (dict(input=T(X), other=2.0), X * 2),
    "div": (dict(input=T(X), other=T(Y)), X / Y),
    "pow": (dict(input=T(Y), exponent=2.0), Y ** 2),
    "maximum": (dict(input=T(X), other=T(Y)), np.maximum(X, Y)),
    "minimum": (dict(input=T(X), other=0.5), np.minimum(X, 0.5)),
    "equal": (dict(input=T(I), other=2), I == 2),
    "less": (dict(input=T(X), other=T(Y)), X < Y),
    "greater_equal": (dict(input=T(X), other=0.0), X >= 0),
    "logical_and": (dict(input=T(M), other=T(X < 1)), M & (X < 1)),
    "logical_not": (dict(input=T(M)), ~M),
    "where": (dict(condition=T(M), input=T(X), other=T(Y)), np.where(M, X, Y)),
    "select": (dict(condition=T(M), input=T(X), other=0.0), np.where(M, X, 0)),
    "exp": (dict(input=T(X)), np.exp(X)),
    "sqrt": (dict(x=T(Y)), np.sqrt(Y)),
    "abs": (dict(input=T(X)), np.abs(X)),
    "neg": (dict(input=T(X)), -X),
    "square": (dict(input=T(X)), X * X),
    "cast": (dict(input=T(X), dtype=ms.int32), X.astype(np.int32)),
    "relu": (dict(input=T(X)), np.maximum(X, 0)),
    "leaky_relu": (dict(input=T(X), alpha=0.1), np.where(X >= 0, X, 0.1 * X)),
    "elu": (dict(input_x=T(X), alpha=0.5), np.where(X > 0, X, 0.5 * np.expm1(X))),
    "sigmoid": (dict(input=T(X)), 1 / (1 + np.exp(-X))),
    "gelu": (dict(input=T(X), approximate="tanh"),
             torch.nn.functional.gelu(torch.from_numpy(X), approximate="tanh").numpy()),
    "softmax": (dict(input=T(X), axis=0), _softmax(X, 0)),
    "log_softmax": (dict(logits=T(X), axis=1), np.log(_softmax(X, 1))),
    "reshape": (dict(input=T(X), shape=(4, 3)), X.reshape(4, 3)),
    "transpose": (dict(input=T(X), dims=(1, 0)), X.T),
    "permute": (dict(input=T(X), axis=(1, 0)), X.T),
    "swapaxes": (dict(input=T(X), axis0=0, axis1=1), X.T),
    "squeeze": (dict(input=T(X[None]), axis=0), X),
    "expand_dims": (dict(input_x=T(X), axis=1), X[:, None]),
    "unsqueeze": (dict(input=T(X), dim=0), X[None]),
    "flatten": (dict(input=T(X[None]), start_dim=0, end_dim=1), X),
    "broadcast_to": (dict(input=T(V), shape=(3, 4)), np.broadcast_to(V, (3, 4))),
    "tile": (dict(input=T(V), dims=(2, 1)), np.tile(V, (2, 1))),
    "concat": (dict(tensors=(T(X), T(Y)), axis=1), np.concatenate([X, Y], 1)),
    "stack": (dict(tensors=(T(X), T(Y)), axis=1), np.stack([X, Y], 1)),
    "split": (dict(tensor=T(X), split_size_or_sections=2, axis=1), X[:, 2:], 1),
    "unstack": (dict(input_x=T(X), axis=1), X[:, 2], 2),
    "gather": (dict(input_params=T(X), input_indices=T(I[0]), axis=1), X[:, I[0]]),
    "gather_elements": (dict(input=T(X), dim=1, index=T(I)), np.take_along_axis(X, I, 1)),
    "one_hot": (dict(indices=T(I[0]), depth=4, on_value=2.0, off_value=-1.0, axis=0),
                np.where(np.arange(4)[:, None] == I[0], 2.0, -1.0).astype(np.float32)),
    "matmul": (dict(input=T(X), other=T(Y.T)), X @ Y.T),
    "bmm": (dict(input_x=T(X[None]), mat2=T(Y.T[None])), (X @ Y.T)[None]),
    "dense": (dict(input=T(X), weight=T(Y), bias=T(V[:3])), X @ Y.T + V[:3]),
    "sum": (dict(input=T(X), dim=1, keepdim=True), X.sum(1, keepdims=True)),
    "mean": (dict(x=T(X), axis=0, keep_dims=True), X.mean(0, keepdims=True)),
    "amax": (dict(input=T(X), axis=1, keepdims=False), X.max(1)),
    "all": (dict(input=T(M), axis=1, keep_dims=True), M.all(1, keepdims=True)),
    "argmax": (dict(input=T(X), dim=1, keepdim=False), X.argmax(1)),
    "var": (dict(input=T(X), axis=1, ddof=1, keepdims=False), X.var(1, ddof=1)),
    "logsumexp": (dict(input=T(X), dim=1, keepdim=True),
                  np.log(np.exp(X.astype(np.float64)).sum(1, keepdims=True)).astype(np.float32)),
    "reduce_sum": (dict(x=T(X), axis=0), X.sum(0)),
    "clamp": (dict(input=T(X), min=-1.0, max=1.0), np.clip(X, -1, 1)),
    "pad": (dict(input_x=T(X), padding=(1, 2), mode="constant", value=5.0),
            np.pad(X, ((0, 0), (1, 2)), constant_values=5)),
    "stop_gradient": (dict(value=T(X)), X),
    "zeros": (dict(size=(2, 3), dtype=ms.int32), np.zeros((2, 3), np.int32)),
    "ones": (dict(shape=(2,)), np.ones(2, np.float32)),
    "full": (dict(size=(2,), fill_value=1.5, dtype=ms.float32), np.full(2, 1.5, np.float32)),
    "zeros_like": (dict(input=T(I), dtype=ms.float32), np.zeros((3, 4), np.float32)),
    "arange": (dict(start=1, end=7, step=2, dtype=ms.int32), np.arange(1, 7, 2, dtype=np.int32)),
    "eye": (dict(n=2, m=3), np.eye(2, 3, dtype=np.float32)),
    "cumsum": (dict(x=T(X), axis=1), np.cumsum(X, 1)),
    "sort": (dict(input_x=T(X), axis=0, descending=True), -np.sort(-X, 0), 0),
    "topk": (dict(input=T(X), k=2, dim=1, largest=False, sorted=True), np.sort(X, 1)[:, :2], 0),
}


@pytest.mark.parametrize("name", sorted(KEYWORD_CASES))
def test_mindsporeS_keyword_names_give_numpys_value(name):
    kwargs, want, *pick = KEYWORD_CASES[name]
    got = getattr(ops, name)(**kwargs)
    got = (got[pick[0]] if pick else got).asnumpy()
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_the_keyword_table_uses_mindspores_names():
    """Every keyword in the table is MindSpore's name for that op's parameter (a typo would test
    nothing about MindSpore)."""
    for name, (kwargs, *_) in KEYWORD_CASES.items():
        params = {p[0] for p in RECORD["ops"][name]["params"]}
        assert set(kwargs) <= params, (name, set(kwargs) - params)


# -- the arguments added to match MindSpore -------------------------------------------------------

BACKENDS = ("eager", "xla", "onnx")
F = RNG.uniform(-3, 3, (2, 3, 4)).astype(np.float32)
F[0, 0, :2] = (2.5, -0.5)          # halves: rounding ties
INTS = np.array([[7, -7, 6, -6], [5, -5, 0, 9], [-9, 3, -3, 1]], np.int32)
DIVISORS = np.array([2, 2, -4, -4], np.int32)


def _gather_batched_ref(x, idx, axis, b):
    """gather with batch_dims b: a loop over the (flattened) batch axes."""
    lead = x.shape[:b]
    xs, ids = x.reshape((-1,) + x.shape[b:]), idx.reshape((-1,) + idx.shape[b:])
    out = np.stack([np.take(xi, ii, axis - b) for xi, ii in zip(xs, ids)])
    return out.reshape(lead + out.shape[1:])


def _softplus_ref(x, beta, threshold):
    return torch.nn.functional.softplus(torch.from_numpy(x), beta, threshold).numpy()


G_IDX = np.array([[[2, 0], [1, 1], [0, 2]], [[1, 2], [2, 2], [0, 0]]], np.int32)     # [2, 3, 2]
W_MASK = np.array([[True, False, True, True], [False, False, True, False], [True, True, True, False]])

ARG_CASES = {  # name: (graphcell fn, reference value, inputs)
    "div_floor": (lambda x: ops.div(x, 0.7, rounding_mode="floor"), np.floor(F / np.float32(0.7)), [F]),
    "div_trunc": (lambda x: ops.div(x, 0.7, rounding_mode="trunc"), np.trunc(F / np.float32(0.7)), [F]),
    "div_int_floor": (lambda x, y: ops.div(x, y, rounding_mode="floor"), np.floor_divide(INTS, DIVISORS),
                      [INTS, DIVISORS]),
    "div_int_trunc": (lambda x, y: ops.div(x, y, rounding_mode="trunc"),
                      np.trunc(INTS / DIVISORS).astype(np.int32), [INTS, DIVISORS]),
    "round_decimals": (lambda x: ops.round(x, decimals=1), np.round(F, 1), [F]),
    "round_negative_decimals": (lambda x: ops.round(x * 100, decimals=-1), np.round(F * 100, -1), [F]),
    "round_half_even": (lambda x: ops.round(x), np.round(F), [F]),
    "softplus_beta": (lambda x: ops.softplus(x, beta=2, threshold=3), _softplus_ref(F, 2, 3), [F]),
    "softplus_default": (lambda x: ops.softplus(x * 8), _softplus_ref(F * 8, 1, 20), [F]),
    "subtract_alpha": (lambda x, y: ops.subtract(x, y, alpha=2), F - 2 * F[::-1], [F, F[::-1].copy()]),
    "amax_initial": (lambda x: ops.amax(x, 2, initial=1.0), np.amax(F, 2, initial=1.0), [F]),
    "amin_initial": (lambda x: ops.amin(x, initial=-2.0), np.amin(F, initial=-2.0), [F]),
    "amax_where": (lambda x: ops.amax(x, 2, True, initial=-10.0, where=Tensor(W_MASK)),
                   np.amax(F, 2, keepdims=True, initial=-10.0, where=W_MASK), [F]),
    "amin_where": (lambda x: ops.amin(x, (0, 2), initial=10.0, where=Tensor(W_MASK)),
                   np.amin(F, (0, 2), initial=10.0, where=W_MASK), [F]),
    "flatten_fortran": (lambda x: ops.flatten(x, "F"), np.transpose(F).reshape(4, 6), [F]),
    "flatten_fortran_all": (lambda x: ops.flatten(x, "F", start_dim=0), F.ravel(order="F"), [F]),
    "take": (lambda x, i: ops.take(x, i), np.take(F, G_IDX * 5 - 7), [F, G_IDX * 5 - 7]),
    "pad_reflect": (lambda x: ops.pad(x, (2, 1, 1, 2), mode="reflect"),
                    np.pad(F, ((0, 0), (1, 2), (2, 1)), mode="reflect"), [F]),
    "pad_replicate": (lambda x: ops.pad(x, (3, 0, 0, 1), mode="replicate"),
                      np.pad(F, ((0, 0), (0, 1), (3, 0)), mode="edge"), [F]),
    "pad_circular": (lambda x: ops.pad(x, (1, 2), mode="circular"), np.pad(F, ((0, 0), (0, 0), (1, 2)), mode="wrap"),
                     [F]),
    "gather_batch_dims": (lambda x, i: ops.gather(x, i, 2, batch_dims=2), _gather_batched_ref(F, G_IDX, 2, 2),
                          [F, G_IDX]),
    "gather_batch_dims_1": (lambda x, i: ops.gather(x, i, 2, batch_dims=1),
                            _gather_batched_ref(F, G_IDX[:, 0], 2, 1), [F, G_IDX[:, 0].copy()]),
    "gather_batch_dims_middle": (lambda x, i: ops.gather(x, i[:, :2], 1, batch_dims=1),
                                 _gather_batched_ref(F, G_IDX[:, :2, 0], 1, 1), [F, G_IDX[:, :, 0].copy()]),
    "softmax_dtype": (lambda x: ops.softmax(x, dtype=ms.float16), _softmax(F.astype(np.float16), -1), [F]),
}


@pytest.mark.filterwarnings("ignore:jit\\(backend='onnx'\\) of a float16 graph")
@pytest.mark.parametrize("backend", BACKENDS)
def test_new_arguments_against_references(backend):
    """All cases in one function (one compilation per backend), each output checked by name."""
    names = sorted(ARG_CASES)
    arrays = [a for n in names for a in ARG_CASES[n][2]]

    def every_case(*tensors):
        outs, at = [], 0
        for n in names:
            fn, _, inputs = ARG_CASES[n]
            outs.append(fn(*tensors[at:at + len(inputs)]))
            at += len(inputs)
        return tuple(outs)

    tensors = [Tensor(a) for a in arrays]
    run = {"eager": every_case, "xla": ms.jit(every_case), "onnx": ms.jit(every_case, backend="onnx")}[backend]
    for n, got in zip(names, run(*tensors)):
        want, got = np.asarray(ARG_CASES[n][1]), got.asnumpy()
        tol = 2e-3 if want.dtype == np.float16 else 1e-5
        assert got.shape == want.shape and got.dtype == want.dtype, (n, got.shape, got.dtype, want.shape, want.dtype)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=n)


def test_values_measured_on_mindspore_2_10():
    """A few results read off MindSpore 2.10.0 itself (CPU), digit for digit."""
    f = Tensor(np.array([[-1.5, 2.25, 0.5], [3.7, -2.5, 1.0]], np.float32))
    np.testing.assert_allclose(ops.gather(f, Tensor(np.array([[1, 0], [2, 2]], np.int32)), 1, batch_dims=1).asnumpy(),
                               [[2.25, -1.5], [1.0, 1.0]])
    np.testing.assert_allclose(ops.div(f, 0.7, rounding_mode="trunc").asnumpy(), [[-2, 3, 0], [5, -3, 1]])
    np.testing.assert_allclose(ops.pad(f, (1, 1), mode="reflect").asnumpy()[0], [2.25, -1.5, 2.25, 0.5, 2.25])
    np.testing.assert_allclose(ops.amax(f, 1, where=Tensor(np.array([[True, False, True], [False, True, True]])),
                                        initial=-10.0).asnumpy(), [0.5, 1.0])
    np.testing.assert_allclose(ops.softplus(f, beta=2, threshold=3).asnumpy().ravel(),
                               [0.024293665, 2.25, 0.65663052, 3.7, 0.0033576700, 1.0634643], rtol=2e-6)  # float32: a few ulp
    flat = ops.flatten(Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4)), "F")
    assert flat.shape == (4, 6) and flat.asnumpy().ravel()[:8].tolist() == [0, 12, 4, 16, 8, 20, 1, 13]
    hot = ops.one_hot(Tensor(np.array([0, 2], np.int32)), 3)
    assert hot.dtype == ms.int64 and hot.asnumpy().tolist() == [[1, 0, 0], [0, 0, 1]]
    assert ops.one_hot(Tensor(np.array([0, 2], np.int32)), 3, 1.0, 0.0).dtype == ms.float32
    assert ops.zeros((2,)).dtype == ops.ones((2,)).dtype == ops.eye(2).dtype == ms.float32
    assert ops.arange(end=3).asnumpy().tolist() == [0, 1, 2] and ops.arange(end=3).dtype == ms.int64
    a, b = Tensor(np.arange(12, dtype=np.int32).reshape(3, 4)), Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert [int(a.trace()), int(a.trace(1)), int(a.trace(offset=-1))] == [15, 18, 13] and a.trace().dtype == ms.int64
    assert b.trace().asnumpy().tolist() == [16, 18, 20, 22] and b.trace(0, 1, 2).asnumpy().tolist() == [15, 51]
    assert a.trace(dtype=ms.float32).dtype == ms.float32 and a.astype(ms.float32, copy=False).dtype == ms.float32


VMAP_CASES = {
    "gather_batch_dims": (lambda x, i: ops.gather(x, i, 1, batch_dims=1), [F, G_IDX]),
    "pad_modes": (lambda x: (ops.pad(x, (1, 2), mode="reflect"), ops.pad(x, (2, 0, 0, 1), mode="replicate"),
                             ops.pad(x, (1, 1), mode="circular")), [F]),
    "amax_where": (lambda x: ops.amax(x, 1, initial=0.0, where=Tensor(W_MASK[0])), [F]),
    "take_flatten": (lambda x, i: (ops.take(x, i), ops.flatten(x, "F")), [F, G_IDX]),
    "rounding": (lambda x: (ops.div(x, 0.3, rounding_mode="trunc"), ops.round(x, decimals=1),
                            ops.softplus(x, 3, 2)), [F]),
}


@pytest.mark.parametrize("family", sorted(VMAP_CASES))
def test_vmap_matches_a_per_example_loop(family):
    fn, arrays = VMAP_CASES[family]
    per_example = [fn(*[Tensor(a[i]) for a in arrays]) for i in range(arrays[0].shape[0])]
    per_example = [p if isinstance(p, tuple) else (p,) for p in per_example]
    want = [np.stack([p[k].asnumpy() for p in per_example]) for k in range(len(per_example[0]))]
    for run in (ms.vmap(fn), ms.jit(ms.vmap(fn), backend="onnx")):
        got = run(*[Tensor(a) for a in arrays])
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


def _jnp_gather_batched(x, idx):
    return jax.vmap(lambda xb, ib: jnp.take(xb, ib, axis=1))(x, idx)


GRAD_CASES = {  # name: (graphcell fn, jax fn, inputs; index arrays are not differentiated)
    "gather_batch_dims": (lambda x: ops.gather(x, Tensor(G_IDX), 2, batch_dims=1),
                          lambda x: _jnp_gather_batched(x, jnp.asarray(G_IDX))),
    "take": (lambda x: ops.take(x, Tensor(G_IDX * 3 - 4)), lambda x: jnp.take(x.ravel(), G_IDX * 3 - 4)),
    "pad_reflect": (lambda x: ops.pad(x, (2, 1, 1, 2), mode="reflect"),
                    lambda x: jnp.pad(x, ((0, 0), (1, 2), (2, 1)), mode="reflect")),
    "pad_replicate": (lambda x: ops.pad(x, (3, 0), mode="replicate"), lambda x: jnp.pad(x, ((0, 0),) * 2 + ((3, 0),),
                                                                                        mode="edge")),
    "pad_circular": (lambda x: ops.pad(x, (1, 2, 2, 0), mode="circular"),
                     lambda x: jnp.pad(x, ((0, 0), (2, 0), (1, 2)), mode="wrap")),
    "amax_where": (lambda x: ops.amax(x, 2, initial=-10.0, where=Tensor(W_MASK)),
                   lambda x: jnp.max(x, 2, initial=-10.0, where=W_MASK)),
    "flatten_fortran": (lambda x: ops.flatten(x, "F"), lambda x: jnp.transpose(x).reshape(4, 6)),
    "softplus_beta": (lambda x: ops.softplus(x, beta=0.5, threshold=1.0),
                      lambda x: jnp.where(0.5 * x > 1.0, x, jnp.log1p(jnp.exp(0.5 * x)) / 0.5)),
    "subtract_alpha": (lambda x: ops.subtract(x, x * x, alpha=3), lambda x: x - 3 * x * x),
    "round_decimals": (lambda x: ops.round(x, decimals=2) * x, lambda x: jnp.round(x, 2) * x),
}


def test_grad_matches_jax():
    """Every case's gradient, graphcell's from one jitted graph (sens_param picks the case) and
    jax's from one jitted function: two compilations in all."""
    x = F.astype(np.float64)
    names = sorted(GRAD_CASES)
    weights = [RNG.uniform(-1, 1, jax.eval_shape(GRAD_CASES[n][1], x).shape) for n in names]
    wants = jax.jit(lambda a: [jax.grad(lambda v, n=n, w=w: jnp.sum(GRAD_CASES[n][1](v) * w))(a)
                               for n, w in zip(names, weights)])(jnp.asarray(x))

    def losses(t):
        return tuple(ops.reduce_sum(GRAD_CASES[n][0](t) * Tensor(w)) for n, w in zip(names, weights))

    grad = ms.jit(ms.grad(losses, sens_param=True))
    for k, (n, want) in enumerate(zip(names, wants)):
        sens = tuple(Tensor(np.float64(i == k)) for i in range(len(names)))
        np.testing.assert_allclose(grad(Tensor(x), sens).asnumpy(), np.asarray(want), rtol=1e-9, atol=1e-9,
                                   err_msg=n)


# -- what MindSpore refuses, and the changed positions --------------------------------------------

def test_refusals_name_the_argument():
    x = Tensor(F)
    with pytest.raises(TypeError, match="start_dim and end_dim are keyword-only"):
        ops.flatten(x, 1)                           # MindSpore 2.10: order comes second
    with pytest.raises(ValueError, match="the fill value is the keyword `value`"):
        ops.pad(x, (1, 1), 0.0)                     # MindSpore 2.10: mode comes third
    with pytest.raises(ValueError, match="rounding_mode must be None, 'floor' or 'trunc'"):
        ops.div(x, 2, rounding_mode="round")
    with pytest.raises(ValueError, match="initial value must be provided for where masks"):
        ops.amax(x, where=Tensor(W_MASK))
    with pytest.raises(TypeError, match="inplace=True is not supported"):
        ops.relu(x, inplace=True)
    with pytest.raises(ValueError, match="'reflect' needs padding smaller than the axis"):
        ops.pad(x, (4, 0), mode="reflect")
    with pytest.raises(ValueError, match="batch_dims 2 needs axis >= batch_dims"):
        ops.gather(x, Tensor(G_IDX), 1, batch_dims=2)
    with pytest.raises(TypeError, match="decimals must be an int"):
        ops.round(x, decimals=1.5)


def test_dropout_seed_repeats_its_mask():
    x = Tensor(np.ones((64,), np.float32))
    a, b = ops.dropout(x, 0.5, True, seed=3).asnumpy(), ops.dropout(x, 0.5, True, seed=3).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) <= {0.0, 2.0} and 10 < (a == 0).sum() < 54
    assert not np.array_equal(a, ops.dropout(x, 0.5, True, seed=4).asnumpy())


def test_the_ops_namespace_holds_no_borrowed_modules_or_helpers():
    """`from .functional import *` and the like once left numpy, math and internal helpers in
    graphcell.ops (ops.np, ops.limit, ops.slice_axis): its modules are its own submodules only."""
    import types
    borrowed = [name for name in dir(ops) if isinstance(getattr(ops, name), types.ModuleType)
                and not getattr(ops, name).__name__.startswith("graphcell.ops.")]
    assert borrowed == []
    assert not any(hasattr(ops, name) for name in ("limit", "slice_axis", "take_in_range", "Parameter", "host_array"))


# -- mindspore.mint and its submodules -----------------------------------------------------------

MINT_MODULES = ("mint", "mint.linalg", "mint.special", "mint.nn.functional")
MINT_EXCEPTIONS = {
    # (module, name): why graphcell's signature departs from MindSpore's recorded one
}


def _graphcell_module(key):
    import importlib
    return importlib.import_module("graphcell." + key)


@pytest.mark.parametrize("key", MINT_MODULES)
def test_mint_record_covers_graphcell(key):
    """Every public function graphcell.<key> defines is in the record (regenerated after adding one)."""
    module = _graphcell_module(key)
    ours = sorted(n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n))
                  and not inspect.ismodule(getattr(module, n)) and not inspect.isclass(getattr(module, n)))
    missing = sorted(set(ours) - set(RECORD.get(key, {})))
    assert not missing, f"graphcell.{key} names missing from {SIGNATURES.name}: {missing}; {REGENERATE}"


@pytest.mark.parametrize("key", MINT_MODULES)
def test_mint_signatures_match_mindspore(key):
    """graphcell.mint's functions bind every call mindspore.mint's signature accepts (names,
    order, kinds, defaults), by the rule of test_signatures_match_mindspore."""
    module = _graphcell_module(key)
    record = RECORD.get(key, {})
    compared = sorted(n for n, e in record.items() if e is not None and e["params"] is not None and hasattr(module, n))
    wrong = {n: differences(n, record[n]["params"], getattr(module, n)) for n in compared
             if (key, n) not in MINT_EXCEPTIONS}
    wrong = {n: d for n, d in wrong.items() if d}
    assert not wrong, "\n".join(f"{key}.{n}: {'; '.join(d)}" for n, d in sorted(wrong.items()))


def test_the_mint_record_has_content():
    assert sum(1 for e in RECORD["mint"].values() if e is not None and e["params"] is not None) > 180
    assert set(RECORD["mint.linalg"]) == {"inv", "qr", "vector_norm", "matrix_norm", "norm"}
