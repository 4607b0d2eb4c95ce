"""MindSpore 2.10's operator classes added in math_classes.py, array_classes.py and
nn_classes.py (ops.Igamma, ops.PadV3, ops.Conv3D, ops.NLLLoss, ...), against MindSpore itself.

tests/data/mindspore_op_classes.json holds, for each class, MindSpore 2.10's constructor
signature and a few cases run by real MindSpore (CPU, PyNative): constructor arguments, call
inputs and outputs (values, dtypes, shapes; the input Parameter after an in-place class; only
dtypes and shapes for random classes). It is written by tools/mindspore_op_classes.py (see
tests/data/README.md); MindSpore is not needed here. The classes 2.10's CPU build cannot run
are checked against numpy. A few classes also run under jit, on XLA and onnxruntime.
"""
import inspect
import json
import math
import pathlib

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops

DATA = json.loads((pathlib.Path(__file__).parent / "data" / "mindspore_op_classes.json").read_text())
CASES = DATA["cases"]

# Looser tolerances where graphcell's algorithm differs from MindSpore's kernel (series, float32 paths).
TOLERANCE = {"Igamma": 2e-5, "Igammac": 2e-5, "Zeta": 1e-4, "Mvlgamma": 1e-5, "ResizeBicubic": 1e-5,
             "GridSampler2D": 1e-5, "GridSampler3D": 1e-5, "UpsampleTrilinear3D": 1e-5, "BatchNorm": 1e-5,
             "Renorm": 1e-5, "Pdist": 1e-5, "Cdist": 1e-5, "LRN": 1e-5}


# -- decoding the recorded JSON -------------------------------------------------------------------

def _number(v):
    return float(v) if isinstance(v, str) else v


def decode(value):
    """A recorded argument as graphcell takes it."""
    if isinstance(value, dict):
        if "tensor" in value:
            return Tensor(np.array([_number(v) for v in value["values"]], value["tensor"]).reshape(value["shape"]))
        if "dtype" in value:
            return getattr(ms, value["dtype"])
        if "tuple" in value:
            return tuple(decode(v) for v in value["tuple"])
        if "list" in value:
            return [decode(v) for v in value["list"]]
        if "float" in value:
            return float(_number(value["float"]))
    return value


def check_output(got, want, name: str, structure_only=False):
    """graphcell's output against a recorded one: the same structure, dtypes, shapes and values."""
    if isinstance(want, dict) and "tuple" in want:
        assert isinstance(got, tuple) and len(got) == len(want["tuple"]), f"{name}: {got!r}"
        for g, w in zip(got, want["tuple"]):
            check_output(g, w, name, structure_only)
        return
    if isinstance(want, dict) and "tensor" in want:
        assert isinstance(got, Tensor), f"{name}: expected a Tensor, got {type(got).__name__}"
        assert np.dtype(got.dtype.np_dtype) == np.dtype(want["tensor"]), f"{name}: {got.dtype} != {want['tensor']}"
        assert list(got.shape) == want["shape"], f"{name}: shape {list(got.shape)} != {want['shape']}"
        if structure_only:
            return
        expected = np.array([_number(v) for v in want["values"]], want["tensor"]).reshape(want["shape"])
        if expected.dtype.kind == "f":
            tol = TOLERANCE.get(name.split("-")[0], 2e-6)
            np.testing.assert_allclose(got.asnumpy(), expected, rtol=tol, atol=tol, err_msg=name)
        else:
            np.testing.assert_array_equal(got.asnumpy(), expected, err_msg=name)
        return
    assert got == decode(want), f"{name}: {got!r} != {want!r}"


def case_id(case, counter={}):  # noqa: B006 - numbering the cases of each class
    n = counter.get(case["class"], 0)
    counter[case["class"]] = n + 1
    return f"{case['class']}-{n}"


IDS = [case_id(c) for c in CASES]


# The first case of each class in the default run, the others marked slow (`make test-slow`).
FIRST_OF_EACH = [case if i.endswith("-0") else pytest.param(case, marks=pytest.mark.slow) for case, i in zip(CASES, IDS)]


@pytest.mark.parametrize("case", FIRST_OF_EACH, ids=IDS)
def test_class_matches_mindspore(case):
    name = case["class"]
    op = getattr(ops, name)(**{k: decode(v) for k, v in case["init"].items()})
    args = [decode(a) for a in case["inputs"]]
    if case.get("param"):
        args[0] = Parameter(args[0], name="input_x")
    if "error" in case:   # MindSpore refused the call: so must graphcell, with the same type
        with pytest.raises({"TypeError": TypeError, "ValueError": ValueError}.get(case["error"][0], Exception)):
            op(*args)
        return
    check_output(op(*args), case["output"], name, structure_only=case.get("random", False))
    if case.get("param"):
        check_output(args[0].copy(), case["param_after"], name + " (the Parameter after)")


def _default_equal(recorded, default) -> bool:
    if recorded is None:
        return default is inspect.Parameter.empty
    mine = repr(default).replace("graphcell.", "mindspore.")
    return mine == recorded or (isinstance(default, float) and repr(float(recorded)) == mine
                                if recorded.replace(".", "").replace("-", "").replace("e", "").isdigit() else False)


@pytest.mark.parametrize("name", sorted(DATA["signatures"]))
def test_constructor_signature_matches_mindspore(name):
    """Parameter names, order and defaults of __init__, as 2.10's (inspect.signature)."""
    params = [p for p in inspect.signature(getattr(ops, name)).parameters.values()
              if p.kind is not inspect.Parameter.VAR_KEYWORD]
    recorded = DATA["signatures"][name]
    assert [p.name for p in params] == [r[0] for r in recorded], name
    for p, (_, default) in zip(params, recorded):
        assert _default_equal(default, p.default), f"{name}.{p.name}: {p.default!r} != {default}"


def test_every_recorded_class_is_exported_and_cases_cover_them():
    with_cases = {c["class"] for c in CASES}
    not_on_cpu = {"Fmin", "EuclideanNorm", "Quantile", "CountNonZero", "Einsum", "SoftMarginLoss", "Poisson"}
    function_inputs = {"WhileLoop", "ForiLoop", "Scan"}
    assert set(DATA["signatures"]) == with_cases | not_on_cpu | function_inputs
    assert all(name in ops.operations.__all__ for name in DATA["signatures"])


# -- random classes: beyond dtypes and shapes -------------------------------------------------------

def test_random_classes_draw_valid_values():
    x = Tensor(np.zeros((200,), np.float32))
    draws = ops.Bernoulli()(x, 0.3).asnumpy()
    assert set(np.unique(draws)) <= {0.0, 1.0} and 0.15 < draws.mean() < 0.45
    probs = Tensor(np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], np.float32))
    np.testing.assert_array_equal(ops.Multinomial()(probs, 5).asnumpy(), [[2] * 5, [0] * 5])
    logits = Tensor(np.array([[-50.0, 50.0, -50.0]], np.float32))
    np.testing.assert_array_equal(ops.RandomCategorical()(logits, 4, 0).asnumpy(), [[1] * 4])
    rows = Tensor(np.arange(8, dtype=np.float32).reshape(4, 2))
    shuffled = ops.RandomShuffle()(rows).asnumpy()
    np.testing.assert_array_equal(np.sort(shuffled[:, 0]), [0, 2, 4, 6])
    np.testing.assert_array_equal(shuffled[:, 1] - shuffled[:, 0], [1] * 4)
    seeded = ops.StandardLaplace(seed=5, seed2=1)
    np.testing.assert_array_equal(seeded((3,)).asnumpy(), seeded((3,)).asnumpy())   # graphcell's seed rule


def test_channel_dropout_zeroes_whole_channels_and_scales_the_rest():
    x = Tensor(np.ones((4, 8, 2, 3), np.float32))
    out, mask = ops.Dropout2D(keep_prob=0.5)(x)
    out, mask = out.asnumpy(), mask.asnumpy()
    per_channel = out.reshape(4, 8, -1)
    assert ((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1)).all()
    np.testing.assert_array_equal(mask, out != 0)
    out3, _ = ops.Dropout3D(keep_prob=1.0)(Tensor(np.ones((1, 2, 2, 2, 2), np.float32)))
    np.testing.assert_array_equal(out3.asnumpy(), 1.0)


# -- classes 2.10's CPU build cannot run: against numpy ----------------------------------------------

def test_classes_without_a_mindspore_cpu_kernel_match_numpy():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    x[0, 0], y[1, 1] = np.nan, np.nan
    np.testing.assert_array_equal(ops.Fmin()(Tensor(x), Tensor(y)).asnumpy(), np.fmin(x, y))
    x = rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(ops.EuclideanNorm(keep_dims=True)(Tensor(x), (1,)).asnumpy(),
                               np.sqrt((x ** 2).sum(1, keepdims=True)), rtol=1e-6)
    q = np.array([0.25, 0.5], np.float32)
    np.testing.assert_allclose(ops.Quantile(dim=1)(Tensor(x), Tensor(q)).asnumpy(), np.quantile(x, q, axis=1),
                               rtol=1e-5, atol=1e-6)
    xn = x.copy()
    xn[0, 1] = np.nan
    np.testing.assert_allclose(ops.Quantile(dim=1, ignore_nan=True)(Tensor(xn), Tensor(q)).asnumpy(),
                               np.nanquantile(xn, q, axis=1), rtol=1e-5, atol=1e-6)
    ints = np.array([[0, 1, 2], [0, 0, 3]], np.int32)
    assert ops.CountNonZero()(Tensor(ints)).asnumpy() == 3
    np.testing.assert_array_equal(ops.CountNonZero(dims=[1])(Tensor(ints)).asnumpy(), [2, 1])
    a, b = rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(ops.Einsum("ij,jk->ik")((Tensor(a), Tensor(b))).asnumpy(), a @ b, rtol=1e-5)
    target = np.sign(rng.standard_normal((3, 4))).astype(np.float32)
    np.testing.assert_allclose(ops.SoftMarginLoss()(Tensor(x), Tensor(target)).asnumpy(),
                               np.log1p(np.exp(-target * x)).mean(), rtol=1e-6)
    draws = ops.Poisson()((2, 300), Tensor(np.array([1.0, 6.0], np.float32)[:, None]))
    assert draws.dtype == ms.int32 and draws.shape == (2, 300)
    assert abs(draws.asnumpy()[1].mean() - 6.0) < 0.8


# -- loops (functions as inputs: not in the JSON; values measured on MindSpore 2.10) ---------------

def test_loop_classes_match_mindspore():
    out = ops.WhileLoop()(lambda v: v[0] < 5, lambda v: (v[0] + 1, v[1] * 2), (Tensor(0), Tensor(1.5)))
    assert [o.item() for o in out] == [5, 48.0]                     # measured: (5, 48.0)
    out = ops.ForiLoop()(0, 4, lambda i, v: v + i, Tensor(np.float32(1.0)))
    assert out.item() == 7.0                                          # measured: 7.0
    body = lambda c, x: (c + x, c * x)  # noqa: E731
    xs = [Tensor(np.float32(v)) for v in (1.0, 2.0, 3.0)]
    carry, ys = ops.Scan()(body, Tensor(np.float32(0.0)), xs)
    assert carry.item() == 6.0 and isinstance(ys, list) and [y.item() for y in ys] == [0.0, 2.0, 9.0]  # measured
    carry, ys = ops.Scan()(body, Tensor(np.float32(0.0)), (1.0, 2.0, 4.0), 3)
    assert carry.item() == 7.0 and [y.item() for y in ys] == [0.0, 2.0, 12.0]                          # measured
    carry, ys = ops.Scan()(lambda c, x: (c + 1, c), Tensor(np.float32(0.0)), None, 3)
    assert carry.item() == 3.0 and [y.item() for y in ys] == [0.0, 1.0, 2.0]
    step = ms.jit(lambda x: ops.Scan()(body, x, [x, x + 1.0])[0])
    assert step(Tensor(np.float32(1.0))).item() == 4.0   # 1 + 1 + 2


# -- constructor checks, in MindSpore's terms ------------------------------------------------------

@pytest.mark.parametrize("make, error", [
    (lambda: ops.CeLU(alpha=0.0), ValueError), (lambda: ops.Histogram(min=2.0, max=1.0), ValueError),
    (lambda: ops.Mvlgamma(p=0), ValueError), (lambda: ops.SearchSorted(dtype=ms.float32), TypeError),
    (lambda: ops.PadV3(mode="wrap"), ValueError), (lambda: ops.KLDivLoss(reduction="avg"), ValueError),
    (lambda: ops.ResizeBilinearV2(True, True), ValueError), (lambda: ops.MirrorPad(mode="EDGE"), ValueError),
    (lambda: ops.Conv3D(2, 2, pad_mode="valid", pad=1), ValueError), (lambda: ops.Logit(eps="0.1"), TypeError),
    (lambda: ops.ResizeLinear1D("asymmetric"), ValueError),
])
def test_constructor_errors(make, error):
    with pytest.raises(error, match="For '"):
        make()


def test_inplace_classes_write_a_parameter_under_jit():
    var = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="var")
    add = ops.ScatterAdd()

    @ms.jit
    def step(indices, updates):
        return add(var, indices, updates)
    out = step(Tensor(np.array([0, 2, 0], np.int32)), Tensor(np.ones((3, 2), np.float32)))
    np.testing.assert_array_equal(out.asnumpy(), [[2, 2], [0, 0], [1, 1]])
    np.testing.assert_array_equal(var.asnumpy(), [[2, 2], [0, 0], [1, 1]])


# -- under jit: XLA and onnxruntime against eager -------------------------------------------------

class _Classes(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bessel = ops.BesselI0e()
        self.std = ops.ReduceStd(axis=1, keep_dims=True)
        self.pad = ops.PadV3(mode="reflect")
        self.mirror = ops.MirrorPad(mode="SYMMETRIC")
        self.resize = ops.ResizeBilinearV2(half_pixel_centers=True)
        self.deconv = ops.Conv2DTranspose(out_channel=1, kernel_size=3, stride=2, pad_mode="same")
        self.nll = ops.NLLLoss(reduction="sum")
        self.logsumexp = ops.CumulativeLogsumexp(exclusive=True, reverse=True)
        self.cdist = ops.Cdist()
        self.mul_no_nan = ops.MulNoNan()

    def construct(self, x, image, w, logp, labels, weight):
        a = self.bessel(x)
        std, mean = self.std(x)
        padded = self.pad(image, (1, 2))
        mirrored = self.mirror(image, Tensor(np.array([[0, 0], [0, 0], [1, 1], [2, 1]], np.int32)))
        resized = self.resize(image, (5, 3))
        deconv = self.deconv(image, w, (1, 1, 7, 5))
        loss, total = self.nll(logp, labels, weight)
        return (a, std, mean, padded, mirrored, resized, deconv, loss, total, self.logsumexp(x, 1),
                self.cdist(x, x), self.mul_no_nan(x, mean))


def test_classes_under_jit_on_xla_and_onnxruntime_match_eager():
    rng = np.random.default_rng(3)
    args = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((1, 2, 4, 3)).astype(np.float32),
            rng.standard_normal((2, 1, 3, 3)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32),
            np.array([1, 0, 3], np.int32), np.abs(rng.standard_normal(4)).astype(np.float32)]
    net = _Classes()
    eager = [o.asnumpy() for o in net(*[Tensor(a) for a in args])]
    assert eager[3].shape == (1, 2, 4, 6) and eager[4].shape == (1, 2, 6, 6) and eager[6].shape == (1, 1, 7, 5)
    for backend in ("xla", "onnx"):
        outs = ms.jit(net, backend=backend)(*[Tensor(a) for a in args])
        for got, want in zip(outs, eager):
            np.testing.assert_allclose(got.asnumpy(), want, rtol=2e-5, atol=2e-5, err_msg=backend)


def test_a_class_under_grad_matches_finite_differences():
    x = np.array([[0.3, -1.2, 2.0], [1.5, 0.1, -0.7]], np.float32)
    loss_fn = lambda t: ops.ReduceStd(axis=1)(ops.CeLU(alpha=2.0)(t))[0].sum()  # noqa: E731
    grad = ms.grad(loss_fn)(Tensor(x)).asnumpy()
    eps = 1e-3
    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        numeric[i] = (loss_fn(Tensor(x + d)).asnumpy() - loss_fn(Tensor(x - d)).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, rtol=2e-2, atol=2e-3)
    assert math.isfinite(float(grad.sum()))
