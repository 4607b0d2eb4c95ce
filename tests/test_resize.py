"""ops.interpolate / ops.upsample / nn.Upsample (graphcell/ops/resize.py, compiler/onnx_resize.py).

References: values measured on MindSpore 2.10 CPU (below, where MindSpore and torch differ, and
one spot check per mode), torch's F.interpolate (MindSpore matched it to 1e-5 on 300 cases of
nearest, nearest-exact, linear, bilinear, trilinear and area), onnxruntime against XLA, torch
autograd and finite differences for gradients, a per-example loop for vmap.
"""
import numpy as np
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as TF
from onnx import TensorProto, helper, numpy_helper

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.compiler.export import to_onnx
from graphcell.compiler.onnx_resize import _resize_attrs
from graphcell.ops import resize as R
from graphcell.runtime import Session

RNG = np.random.default_rng(11)


def X(*shape):
    """Exact, varied values (the inputs the MindSpore numbers below were measured on)."""
    n = int(np.prod(shape))
    return (((np.arange(n) * 7) % 11 - 5) / 4).astype(np.float32).reshape(shape)


# Measured on MindSpore 2.10 (CPU): (input, interpolate's arguments, output shape, values).
# bicubic is TensorFlow's ResizeBicubic (Keys a=-0.5, outside taps dropped, 1024-step table; with
# align_corners a=-0.75), up to 0.23 from torch's; 1-D linear to one output takes the first element
# (torch: the middle); the rest are spot checks of modes that agree with torch.
MEASURED = {
    "bicubic_up": (X(1, 1, 3, 4), dict(size=(5, 7), mode="bicubic"), (1, 1, 5, 7), [
        -1.5183699, -0.72518855, 0.5430413, -0.009440675, -0.5619226, 0.70630705, 1.4994884, -0.7195125, -0.47072905,
        -0.03882959, 0.03058932, 0.12098834, 0.63333654, 0.92916775, 0.3292164, -0.11925639, -0.7585158, 0.125,
        1.0085157, 0.3692564, -0.0792164, -0.54610336, -0.29731986, 0.13457963, 0.32321736, 0.20825714, -0.5239959,
        -0.95602953, -1.2494885, -0.45630717, 0.81192267, 0.44429666, -0.42660713, -1.088206, -1.4236232]),
    "bicubic_up_align": (X(1, 1, 3, 4), dict(size=(5, 7), mode="bicubic", align_corners=True), (1, 1, 5, 7), [
        -1.25, -0.28125, 0.5, 0, -0.5, 0.28125, 1.25, -0.3828125, -0.38354492, -0.265625, 0.026611328, 0.3671875,
        0.6140137, 0.7421875, 0.25, -0.4140625, -0.75, 0.125, 1, 0.6640625, 0, -0.234375, -0.23510742, -0.1171875,
        0.328125, 0.515625, -0.053955078, -0.7421875, -1, -0.03125, 0.75, 0.5078125, -0.25, -0.84375, -1.25]),
    "bicubic_down": (X(1, 1, 5, 4), dict(size=(3, 2), mode="bicubic"), (1, 1, 3, 2), [
        -0.3625813, 0.47297966, -0.11764707, -0.8382353, 0.077149674, -0.1420638]),
    "bicubic_x2": (X(1, 1, 3, 4), dict(scale_factor=2.0, mode="bicubic", recompute_scale_factor=True), (1, 1, 6, 8), [
        -1.558175, -0.97697514, 0.25454646, 0.4512868, -0.47334567, -0.27660534, 0.9549164, 1.5361162, -1.0410048,
        -0.70716345, 0.00009750202, 0.19837764, -0.16205236, 0.055204198, 0.79792476, 1.1485081, 0.05500672,
        -0.13541262, -0.5392897, -0.3377714, 0.49753994, 0.75859505, 0.46596926, 0.32807595, 0.12752582, -0.06289355,
        -0.46677062, -0.24655597, 0.626148, 0.6545219, -0.10783139, -0.46750116, -0.83297557, -0.49913424, 0.20812672,
        0.46003935, 0.20687443, -0.2433415, -0.84808725, -1.1336948, -1.2861161, -0.7049164, 0.5266053, 0.79348576,
        0.009133749, -0.66704094, -1.1977245, -1.4485297]),
    "linear_to_one": (X(1, 2, 5), dict(size=(1,), mode="linear"), (1, 2, 1), [-1.25, -0.75]),
    "linear_third": (X(1, 1, 5), dict(scale_factor=1 / 3, mode="linear", recompute_scale_factor=True), (1, 1, 1),
                     [-1.25]),
    "nearest": (X(1, 1, 3, 4), dict(size=(7, 5)), (1, 1, 7, 5), [
        -1.25, -1.25, 0.5, -0.5, 1.25, -1.25, -1.25, 0.5, -0.5, 1.25, -1.25, -1.25, 0.5, -0.5, 1.25, 0.25, 0.25, -0.75,
        1, 0, 0.25, 0.25, -0.75, 1, 0, -1, -1, 0.75, -0.25, -1.25, -1, -1, 0.75, -0.25, -1.25]),
    "nearest_exact": (X(1, 1, 3, 4), dict(size=(2, 7), mode="nearest-exact"), (1, 1, 2, 7), [
        -1.25, -1.25, 0.5, -0.5, -0.5, 1.25, 1.25, -1, -1, 0.75, -0.25, -0.25, -1.25, -1.25]),
    "bilinear_align": (X(1, 1, 3, 4), dict(size=(7, 5), mode="bilinear", align_corners=True), (1, 1, 7, 5), [
        -1.25, 0.0625, 0, -0.0625, 1.25, -0.75, -0.125, 0.041666668, 0.20833334, 0.8333333, -0.25, -0.3125,
        0.083333336, 0.4791667, 0.41666663, 0.25, -0.5, 0.125, 0.75, 0, -0.16666672, -0.22916663, 0.16666667,
        0.33333328, -0.41666672, -0.58333343, 0.041666746, 0.20833334, -0.08333343, -0.83333343, -1, 0.3125, 0.25,
        -0.5, -1.25]),
    "bilinear_down": (X(1, 1, 5, 4), dict(size=(3, 3), mode="bilinear"), (1, 1, 3, 3), [
        -0.61111116, 0.041666664, 0.6944446, -0.7083333, 0.25, -1.0833335, -0.1944443, 0.4583333, -0.41666663]),
    "trilinear": (X(1, 1, 2, 3, 4), dict(size=(3, 2, 5), mode="trilinear"), (1, 1, 3, 2, 5), [
        -0.875, -0.13124993, 0.03125, 0.19374993, 0.9375, -0.6875, 0.056250036, 0.21875, -0.23749994, -0.9375,
        -0.34375, -0.08124998, 0.21875, 0.415625, 0.4375, -0.15625, 0.10625001, -0.109375, -0.42812502, -0.40625,
        0.1875, -0.03125003, 0.40625, 0.63750005, -0.06250001, 0.375, 0.15624999, -0.4375, -0.61875004, 0.12500001]),
    "area_up": (X(1, 1, 3, 4), dict(size=(5, 7), mode="area"), (1, 1, 5, 7), [
        -1.25, -0.375, 0.5, 0, -0.5, 0.375, 1.25, -0.5, -0.3125, -0.125, 0.0625, 0.25, 0.4375, 0.625, 0.25, -0.25,
        -0.75, 0.125, 1, 0.5, 0, -0.375, -0.1875, 0, 0.1875, 0.375, -0.125, -0.625, -1, -0.125, 0.75, 0.25, -0.25,
        -0.75, -1.25]),
    # a scale_factor sets the mapping (1 / 1.7 per step) unless recomputed: MindSpore's 5-D modes
    "nearest_5d_scale": (X(1, 1, 2, 3, 4), dict(scale_factor=1.7, mode="nearest"), (1, 1, 3, 5, 6), [
        -1.25, -1.25, 0.5, 0.5, -0.5, -0.5, -1.25, -1.25, 0.5, 0.5, -0.5, -0.5, 0.25, 0.25, -0.75, -0.75, 1, 1, 0.25,
        0.25, -0.75, -0.75, 1, 1, -1, -1, 0.75, 0.75, -0.25, -0.25, -1.25, -1.25, 0.5, 0.5, -0.5, -0.5, -1.25, -1.25,
        0.5, 0.5, -0.5, -0.5, 0.25, 0.25, -0.75, -0.75, 1, 1, 0.25, 0.25, -0.75, -0.75, 1, 1, -1, -1, 0.75, 0.75,
        -0.25, -0.25, 0.5, 0.5, -0.5, -0.5, 1.25, 1.25, 0.5, 0.5, -0.5, -0.5, 1.25, 1.25, -0.75, -0.75, 1, 1, 0, 0,
        -0.75, -0.75, 1, 1, 0, 0, 0.75, 0.75, -0.25, -0.25, -1.25, -1.25]),
    "trilinear_5d_scale": (X(1, 1, 2, 2, 3), dict(scale_factor=1.7, mode="trilinear"), (1, 1, 3, 3, 5), [
        -1.25, -0.58088243, 0.44852924, -0.058823347, -0.5, -0.2941178, -0.027033005, 0.38386676, -0.15441155,
        -0.5955882, 1.1764703, 0.8250432, 0.28438592, -0.3014704, -0.74264705, -0.38970602, -0.12262122, 0.28827852,
        -0.24999979, -0.6911765, 0.16414344, 0.1829139, 0.21179146, -0.34558803, -0.7867647, 1.0162196, 0.6529678,
        0.09411906, -0.49264684, -0.9338235, 0.93382335, 0.58239615, 0.04173887, -0.5441174, -0.9852941, 0.86916083,
        0.5059091, -0.052939773, -0.63970566, -1.0808823, 0.76967996, 0.38823664, -0.19859923, -0.78676444,
        -1.2279412]),
}


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_values_measured_on_mindspore(name):
    x, kwargs, shape, values = MEASURED[name]
    got = ops.interpolate(Tensor(x), **kwargs).asnumpy()
    assert got.shape == shape and got.dtype == np.float32
    np.testing.assert_allclose(got.ravel(), values, rtol=2e-6, atol=2e-6)


def test_measured_values_under_jit_and_onnxruntime():
    """The same graphs compiled by XLA and run by onnxruntime (Resize or gathers)."""
    for name, (x, kwargs, shape, values) in MEASURED.items():
        fn = lambda t, kwargs=kwargs: ops.interpolate(t, **kwargs)  # noqa: E731
        for backend in ("xla", "onnx"):
            got = ms.jit(fn, backend=backend)(Tensor(x)).asnumpy()
            np.testing.assert_allclose(got.ravel(), values, rtol=2e-6, atol=2e-6, err_msg=f"{name} {backend}")


def _torch_cases():
    cases = []
    for mode, ranks in [("nearest", (3, 4, 5)), ("nearest-exact", (3, 4)), ("linear", (3,)), ("bilinear", (4,)),
                        ("trilinear", (5,)), ("area", (4, 5))]:
        aligns = (None, False, True) if mode in ("linear", "bilinear", "trilinear") else (None,)
        for rank in ranks:
            k = rank - 2
            for size in [(7, 2, 5), (3, 5, 2), (1, 4, 6)]:
                for align in aligns:
                    if mode == "linear" and size[0] == 1 and not align:
                        continue   # MindSpore takes the first element (MEASURED["linear_to_one"])
                    cases.append((mode, rank, dict(size=size[:k], align_corners=align)))
            for scale in (0.6, 1.7, 2.5):
                for recompute in (None, True):
                    for align in aligns:
                        cases.append((mode, rank, dict(scale_factor=scale, align_corners=align,
                                                       recompute_scale_factor=recompute)))
    return cases


SHAPES = {3: (2, 3, 5), 4: (2, 3, 5, 4), 5: (1, 2, 3, 5, 4)}


@pytest.mark.parametrize("mode, rank, kwargs", _torch_cases())
def test_matches_torch(mode, rank, kwargs):
    x = RNG.standard_normal(SHAPES[rank]).astype(np.float32)
    want = TF.interpolate(torch.tensor(x), mode=mode, **kwargs).numpy()
    got = ops.interpolate(Tensor(x), mode=mode, **kwargs).asnumpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_area_1d_needs_a_divisor_of_the_length_as_mindspore():
    x = Tensor(X(1, 2, 6))
    np.testing.assert_allclose(ops.interpolate(x, size=3, mode="area").asnumpy(),
                               TF.adaptive_avg_pool1d(torch.tensor(X(1, 2, 6)), 3).numpy())
    with pytest.raises(ValueError, match="divisible by output size 4"):
        ops.interpolate(x, size=4, mode="area")


def test_dtypes():
    x = X(1, 2, 3, 4)
    # float16 is computed in float32 and rounded; float64 in float64 with float32 weights
    half = ops.interpolate(Tensor(x.astype(np.float16)), size=(5, 7), mode="bilinear")
    assert half.dtype == ms.float16
    want = ops.interpolate(Tensor(x), size=(5, 7), mode="bilinear").asnumpy()
    np.testing.assert_allclose(half.asnumpy().astype(np.float32), want, atol=2e-3)
    double = ops.interpolate(Tensor(x.astype(np.float64)), size=(5, 7), mode="bicubic")
    assert double.dtype == ms.float64
    np.testing.assert_allclose(double.asnumpy(), ops.interpolate(Tensor(x), size=(5, 7), mode="bicubic").asnumpy(),
                               atol=1e-6)
    # nearest modes take any dtype (a gather); the others need floats
    ints = np.arange(24, dtype=np.int64).reshape(1, 2, 3, 4)
    for mode in ("nearest", "nearest-exact"):
        got = ops.interpolate(Tensor(ints), size=(5, 3), mode=mode)
        assert got.dtype == ms.int64
        want = TF.interpolate(torch.tensor(ints, dtype=torch.float64), size=(5, 3), mode=mode).numpy()
        np.testing.assert_array_equal(got.asnumpy(), want.astype(np.int64))
    with pytest.raises(TypeError, match="mode 'bilinear' needs a float input, but got Int64"):
        ops.interpolate(Tensor(ints), size=(5, 3), mode="bilinear")


# Messages measured on MindSpore 2.10 (graphcell's own where MindSpore's CPU kernel failed with no
# message or an internal one).
ERRORS = [
    (dict(size=(2, 2), scale_factor=2.0), ValueError, "'size' and 'scale_factor' cannot be set simultaneously"),
    (dict(), ValueError, "'size' and 'scale_factor' cannot be both empty"),
    (dict(size=(2, 2), mode="cubic"), ValueError,
     r"'mode' must be in .*'nearest-exact', 'trilinear'\]', but got cubic"),
    (dict(size=(6,)), ValueError, "'input' and 'size' must have the same spatial dimensions, but got 'input' is 2D, "
                                  "'size' is 1D"),
    (dict(size=(6.0, 5.0)), TypeError, r"the 'size\[0\]' must be int, but got 'float'"),
    (dict(size=(0, 5)), ValueError, r"the 'size\[0\]' must be int and must > 0, but got '0' with type 'int'"),
    (dict(size=(True, 3)), TypeError, r"the 'size\[0\]' must be int and must > 0, but got 'True' with type 'bool'"),
    (dict(size="ab"), TypeError, "the 'size' must be int, but got 'str'"),
    (dict(scale_factor=2), TypeError, "the 'scale_factor' must be float, but got 'int'"),
    (dict(scale_factor=(2, 2)), TypeError, r"the 'scale_factor\[0\]' must be float, but got 'int'"),
    (dict(scale_factor=(-2.0, 1.5)), ValueError, r"the 'scale_factor\[0\]' must be float and must > 0"),
    (dict(scale_factor=(2.0,)), ValueError, "'input' and 'scale_factor' must have the same spatial dimensions"),
    (dict(scale_factor=(0.1, 1.5)), ValueError, r"the output size \(0, 6\) from 'scale_factor' .* must be positive"),
    (dict(size=(6, 6), recompute_scale_factor=True), ValueError,
     "it is incorrect to set 'recompute_scale_factor' to True after specifying an explicit 'size'"),
    (dict(size=(6, 6), mode="bilinear", align_corners=1), TypeError, "the 'align_corners' must be a bool, but got int"),
    (dict(scale_factor=2.0, recompute_scale_factor=1), TypeError, "the 'recompute_scale_factor' must be a bool"),
    (dict(size=(2, 2), align_corners=False), ValueError,
     "'align_corners' option cannot currently be set with the mode = nearest, and dim = 4D"),
    (dict(size=(2, 2), mode="area", align_corners=True), ValueError,
     "'align_corners' option cannot currently be set with the mode = area, and dim = 4D"),
    (dict(size=(2, 2), mode="linear"), ValueError, r"linear only support '\[3\]'D, but got 4D"),
    (dict(size=(2, 2), mode="trilinear"), ValueError, r"trilinear only support '\[5\]'D, but got 4D"),
]


@pytest.mark.parametrize("kwargs, error, message", ERRORS)
def test_errors(kwargs, error, message):
    with pytest.raises(error, match="For 'interpolate', " + message):
        ops.interpolate(Tensor(X(1, 1, 3, 4)), **kwargs)


def test_more_errors():
    with pytest.raises(TypeError, match="For 'interpolate', 'input' must be a tensor, but got <class 'list'>"):
        ops.interpolate([1.0, 2.0], size=(6, 6))
    with pytest.raises(ValueError, match=r"nearest only support '\[3, 4, 5\]'D, but got 6D"):
        ops.interpolate(Tensor(np.ones((1, 1, 1, 1, 3, 4), np.float32)), size=(1, 1, 1, 6))
    with pytest.raises(ValueError, match="'input' is 0D, 'size' is 1D"):
        ops.interpolate(Tensor(np.ones((3, 4), np.float32)), size=(6,))


def test_int_size_and_list_scale_factor():
    x = Tensor(X(1, 1, 3, 4))
    assert ops.interpolate(x, size=6).shape == (1, 1, 6, 6)
    assert ops.interpolate(x, scale_factor=[2.0, 1.5], recompute_scale_factor=True).shape == (1, 1, 6, 6)
    np.testing.assert_array_equal(ops.upsample(x, (6, 5), mode="bilinear").asnumpy(),
                                  ops.interpolate(x, (6, 5), mode="bilinear").asnumpy())


# -- ONNX -------------------------------------------------------------------------------------------

def _node_types(fn, x):
    class Net(nn.Cell):
        def construct(self, t):
            return fn(t)
    model = to_onnx(Net(), Tensor(x)).model
    return {n.op_type for n in model.graph.node}, model


@pytest.mark.parametrize("kwargs, form", [
    (dict(size=(8, 10)), "Resize"),
    (dict(size=(8, 7), mode="nearest-exact"), "Resize"),   # no source coordinate at x.5
    (dict(size=(2, 2), mode="nearest-exact"), "Gather"),           # ties at x.5: gathers
    (dict(size=(7, 9), mode="bilinear"), "Resize"),
    (dict(size=(7, 9), mode="bilinear", align_corners=True), "Resize"),
    (dict(scale_factor=2.0, mode="bicubic", recompute_scale_factor=True), "Resize"),   # fractions k/1024: exact
    (dict(size=(5, 7), mode="bicubic"), "Gather"),                 # the table's rounding: gathers
    (dict(size=(5, 7), mode="bicubic", align_corners=True), "Gather"),
    (dict(scale_factor=1.7, mode="bilinear"), "Resize"),
    (dict(size=(2, 3), mode="area"), None),
    (dict(size=(9,), mode="linear"), "Resize"),                    # [N, C, W] as [N*C, 1, 1, W] and back
    (dict(size=(3, 4, 7), mode="trilinear"), "Resize"),
])
def test_onnx_export_agrees_with_xla_at_another_batch(kwargs, form):
    """Exported with a dynamic batch (traced at 2 and 3 rows), run at 5 rows."""
    fn = lambda t: ops.interpolate(t, **kwargs)  # noqa: E731
    spatial = {1: (5,), 2: (4, 5), 3: (2, 4, 5)}[len(kwargs.get("size", (0, 0)))]
    types, model = _node_types(fn, RNG.standard_normal((2, 3) + spatial).astype(np.float32))
    if form is not None:
        assert form in types and ({"Resize", "Gather"} - {form}).isdisjoint(types), types
    x = RNG.standard_normal((5, 3) + spatial).astype(np.float32)
    got = Session(model, providers=["cpu"]).run(x)[0]
    np.testing.assert_allclose(got, ms.jit(fn)(Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-5)


def _onnx_nearest(n_in, n_out, transform, rounding, scale):
    """onnxruntime's own Resize of 0..n_in-1 (the indices it reads)."""
    x = np.arange(n_in, dtype=np.float32).reshape(1, 1, 1, n_in)
    if scale is None:
        extra, inputs = numpy_helper.from_array(np.array([1, 1, 1, n_out], np.int64), "s"), ["x", "", "", "s"]
    else:
        extra, inputs = numpy_helper.from_array(np.array([1, 1, 1, scale], np.float32), "s"), ["x", "", "s"]
    node = helper.make_node("Resize", inputs, ["y"], mode="nearest", coordinate_transformation_mode=transform,
                            nearest_mode=rounding)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [extra])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0].ravel().astype(np.int64)


def test_nearest_resize_only_where_onnxruntime_reads_mindspores_indices():
    """Every size pair up to 16 and a few scale factors: where the rule chooses Resize, onnxruntime's
    indices are the taps' (elsewhere it gathers; e.g. onnxruntime divides 3 by 1.5 where MindSpore
    multiplies by 2/3 in float32)."""
    chosen = 0
    for method, transform, rounding in [("nearest", "asymmetric", "floor"),
                                        ("nearest-exact", "half_pixel", "round_prefer_ceil")]:
        for n_in in range(1, 17):
            pairs = [(n_out, None) for n_out in range(1, 17)]
            pairs += [(int(np.floor(n_in * s)), s) for s in (0.6, 1.1, 1.7, 2.5) if n_in * s >= 1]
            for n_out, scale in pairs:
                if _resize_attrs((n_in,), (n_out,), method, False, None if scale is None else (scale,)) is None:
                    continue
                chosen += 1
                ours = R.taps(n_in, n_out, method, False, scale)[0][0]
                np.testing.assert_array_equal(_onnx_nearest(n_in, n_out, transform, rounding, scale), ours,
                                              err_msg=f"{method} {n_in} -> {n_out} scale {scale}")
    assert chosen > 400


def test_onnx_keeps_integer_and_float64_dtypes():
    ints = np.arange(24, dtype=np.int32).reshape(1, 2, 3, 4)
    fn = lambda t: ops.interpolate(t, size=(5, 7))  # noqa: E731
    np.testing.assert_array_equal(ms.jit(fn, backend="onnx")(Tensor(ints)).asnumpy(), fn(Tensor(ints)).asnumpy())
    doubles = RNG.standard_normal((1, 2, 3, 4))
    fn = lambda t: ops.interpolate(t, size=(5, 7), mode="bilinear")  # noqa: E731
    np.testing.assert_allclose(ms.jit(fn, backend="onnx")(Tensor(doubles)).asnumpy(), fn(Tensor(doubles)).asnumpy(),
                               rtol=1e-12, atol=1e-12)


# -- gradients and vmap ------------------------------------------------------------------------------

# Measured on MindSpore 2.10: the gradient of sum(interpolate(x) * w) for x = X(1, 1, 3, 4), w = the
# output-shaped X reversed along its last axis, plus 0.1 (MindSpore's gradients of the other modes
# matched graphcell's to 4e-7 as well).
MEASURED_GRADIENTS = {
    "bilinear": (dict(size=(5, 7), mode="bilinear"), [
        0.64928573, 0.21071424, 0.7535714, -1.0435712, 0.10857154, 0.42142838, 0.207143, 1.0228571, -0.34714276,
        0.58214307, -0.40714258, 0.5921425]),
    "bicubic": (dict(size=(5, 7), mode="bicubic"), [
        0.69587344, 0.15454578, 1.0214902, -1.2602787, 0.022093643, 0.4271662, 0.15367645, 1.0368092, -0.4693011,
        0.7966251, -0.5090997, 0.68039936]),
    "bicubic_align": (dict(size=(5, 7), mode="bicubic", align_corners=True), [
        0.64648455, 0.17626955, 0.9370117, -1.0800779, -0.013915967, 0.55981445, 0.18676761, 0.814209, -0.26538086,
        0.45141596, -0.4206543, 0.75805664]),
}


@pytest.mark.parametrize("name", sorted(MEASURED_GRADIENTS))
def test_gradient_measured_on_mindspore(name):
    kwargs, values = MEASURED_GRADIENTS[name]
    w = Tensor(X(1, 1, 5, 7)[..., ::-1].copy() + 0.1)
    got = ms.grad(lambda t: ops.sum(ops.interpolate(t, **kwargs) * w))(Tensor(X(1, 1, 3, 4))).asnumpy()
    np.testing.assert_allclose(got.ravel(), values, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kwargs", [dict(size=(7, 5), mode="bilinear"), dict(size=(2, 3), mode="bilinear"),
                                    dict(size=(7, 5), mode="bilinear", align_corners=True),
                                    dict(scale_factor=1.7, mode="bilinear"), dict(size=(7, 3), mode="nearest")])
def test_gradient_matches_torch_autograd(kwargs):
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    w = RNG.standard_normal(TF.interpolate(torch.tensor(x), **kwargs).shape).astype(np.float32)
    leaf = torch.tensor(x, requires_grad=True)
    (TF.interpolate(leaf, **kwargs) * torch.tensor(w)).sum().backward()
    loss = lambda t: ops.sum(ops.interpolate(t, **kwargs) * Tensor(w))  # noqa: E731
    for fn in (ms.grad(loss), ms.jit(ms.grad(loss)), ms.jit(ms.grad(loss), backend="onnx")):
        np.testing.assert_allclose(fn(Tensor(x)).asnumpy(), leaf.grad.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kwargs", [dict(size=(5, 7), mode="bicubic"), dict(size=(2, 3), mode="bicubic"),
                                    dict(size=(5, 7), mode="bicubic", align_corners=True),
                                    dict(size=(7,), mode="linear"), dict(size=(3, 2, 5), mode="trilinear")])
def test_gradient_matches_finite_differences(kwargs):
    """interpolate is linear in its input: central differences in float64 are exact but for rounding."""
    shape = {1: (1, 2, 4), 2: (1, 2, 3, 4), 3: (1, 1, 2, 3, 4)}[len(kwargs["size"])]
    x = RNG.standard_normal(shape)
    w = RNG.standard_normal(ops.interpolate(Tensor(x), **kwargs).shape)
    loss = lambda t: ops.sum(ops.interpolate(t, **kwargs) * Tensor(w))  # noqa: E731
    got = ms.grad(loss)(Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = 1e-3
        want[i] = (loss(Tensor(x + step)).asnumpy() - loss(Tensor(x - step)).asnumpy()) / 2e-3
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("in_axis", [0, 2, 4])
def test_vmap_matches_a_loop(in_axis):
    members = RNG.standard_normal((3, 2, 3, 4, 5)).astype(np.float32)
    stacked = np.moveaxis(members, 0, in_axis)
    for kwargs in (dict(size=(7, 3), mode="bilinear"), dict(size=(5, 7), mode="bicubic"), dict(size=(6, 2))):
        fn = lambda t, kwargs=kwargs: ops.interpolate(t, **kwargs)  # noqa: E731
        want = np.stack([fn(Tensor(m)).asnumpy() for m in members])
        runs = [ms.vmap(fn, in_axes=in_axis)]
        if in_axis == 2:   # onnxruntime: a 5-D bilinear Resize input merged to [N*B*C, 1, H, W]
            runs.append(ms.jit(ms.vmap(fn, in_axes=in_axis), backend="onnx"))
        for run in runs:
            np.testing.assert_allclose(run(Tensor(stacked)).asnumpy(), want, rtol=1e-6, atol=1e-6)


# -- nn.Upsample --------------------------------------------------------------------------------------

def test_upsample_layer():
    x = Tensor(X(1, 1, 3, 4))
    layer = nn.Upsample(size=(7, 5), mode="bilinear", align_corners=True)
    assert (layer.size, layer.scale_factor, layer.mode, layer.align_corners, layer.recompute_scale_factor) == \
        ((7, 5), None, "bilinear", True, None)
    want = MEASURED["bilinear_align"][3]
    for run in (layer, ms.jit(layer)):
        np.testing.assert_allclose(run(x).asnumpy().ravel(), want, rtol=2e-6, atol=2e-6)
    assert repr(layer) == "Upsample(size=(7, 5), mode=bilinear, align_corners=True)"
    np.testing.assert_array_equal(nn.Upsample(size=(7, 5))(x).asnumpy().ravel(), MEASURED["nearest"][3])
    # measured: scale 2 recomputed, bilinear, half-pixel
    got = nn.Upsample(scale_factor=2.0, mode="bilinear", recompute_scale_factor=True)(Tensor(
        np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)))
    np.testing.assert_allclose(got.asnumpy().ravel()[:12], [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3, 1, 1.25, 1.75,
                                                            2.25], atol=1e-6)
    with pytest.raises(ValueError, match="'size' and 'scale_factor' cannot be both empty"):
        nn.Upsample()(x)
