"""ops.Custom (a Python function on the host), the dump and assert ops, HookBackward,
InsertGradientOf, Morph, user primitives, Map and the hybrid DSL (ops/custom_ops.py,
ops/host_call.py, ops/host_dumps.py, ops/gradient_hooks.py, ops/user_primitives.py).
Messages and file names were measured on MindSpore 2.10 (CPU); values against numpy."""
import os

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops

X = np.array([1., 2., 3.], np.float32)
Y = np.array([10., 20., 30.], np.float32)


def _mul(a, b):
    assert isinstance(a, np.ndarray)   # the function sees numpy arrays
    return a * b


def test_custom_pyfunc_eager_jit_outputs_and_shape_functions():
    seen = []

    def shape(*s):
        seen.append(s)
        return s[0]
    op = ops.Custom(_mul, out_shape=shape, out_dtype=lambda a, b: a, func_type="pyfunc")
    x, y = Tensor(X), Tensor(Y)
    np.testing.assert_array_equal(op(x, y).asnumpy(), X * Y)
    assert seen[-1] == ([3], [3])   # shapes as lists (2.10's)
    f = ms.jit(lambda a, b: op(a, b) * 2)
    np.testing.assert_array_equal(f(x, y).asnumpy(), X * Y * 2)
    two = ops.Custom(lambda a: (a + 1, (a * 2).astype(np.int32)), out_shape=((3,), [3]),
                     out_dtype=(ms.float32, ms.int32))
    got = ms.jit(lambda a: two(a))(x)
    assert got[1].dtype == ms.int32
    np.testing.assert_array_equal(got[0].asnumpy(), X + 1)
    np.testing.assert_array_equal(got[1].asnumpy(), (X * 2).astype(np.int32))
    # vmap runs the function once per member (2.10 refuses to vmap a Custom)
    out = ms.vmap(op)(Tensor(np.stack([X, Y])), Tensor(np.stack([Y, X])))
    np.testing.assert_array_equal(out.asnumpy(), np.stack([X * Y, Y * X]))


def test_custom_bprop_and_its_absence():
    def bprop(a, b, out, dout):   # called with Tensors, built of ops (2.10's)
        return dout * b * 100, dout * a
    op = ops.Custom(_mul, out_shape=lambda a, b: a, out_dtype=lambda a, b: a, bprop=bprop)
    g = ms.jit(ms.grad(lambda a, b: op(a, b).sum(), grad_position=(0, 1)))(Tensor(X), Tensor(Y))
    np.testing.assert_array_equal(g[0].asnumpy(), Y * 100)   # 2.10: [1000, 2000, 3000]
    np.testing.assert_array_equal(g[1].asnumpy(), X)
    plain = ops.Custom(_mul, out_shape=lambda a, b: a, out_dtype=lambda a, b: a)
    with pytest.raises(RuntimeError, match="Illegal primitive Custom's bprop not defined: Custom '_mul'"):
        ms.grad(lambda a, b: plain(a, b).sum())(Tensor(X), Tensor(Y))


def test_custom_wrong_output_and_bad_arguments():
    bad = ops.Custom(lambda a: a.astype(np.float64), out_shape=lambda a: a, out_dtype=lambda a: a)
    msg = r"Custom '<lambda>' returned output 0 as Float64 of shape \[3\], but out_dtype/out_shape declare Float32"
    with pytest.raises(TypeError, match=msg):   # 2.10: RuntimeError "memcpy failed."
        bad(Tensor(X))
    with pytest.raises(TypeError, match=msg):   # raised once the jitted run ends
        ms.jit(lambda a: bad(a) + 1)(Tensor(X))
    f = _mul
    with pytest.raises(ValueError, match=rf"For 'Custom', 'func_type': julia, 'func': {f}, 'func_type' must be "
                                         r"one of \['hybrid', 'akg', 'tbe', 'aicpu', 'aot', 'pyfunc'\], but got julia"):
        ops.Custom(f, out_shape=(3,), out_dtype=ms.float32, func_type="julia")
    for kind in ("hybrid", "akg", "tbe", "aicpu", "aot"):
        with pytest.raises(NotImplementedError, match=f"func_type '{kind}' compiles the function into a device"):
            ops.Custom(f, out_shape=(3,), out_dtype=ms.float32, func_type=kind)
    with pytest.raises(TypeError, match="'func' must be of type function or str, but got <class 'int'>"):
        ops.Custom(3, out_shape=(3,), out_dtype=ms.float32)
    with pytest.raises(TypeError, match="'out_shape' must be one of \\[tuple, list, function\\], but got <class "
                                        "'NoneType'>"):
        ops.Custom(f, out_dtype=ms.float32)
    with pytest.raises(TypeError, match="'out_dtype' must be one of \\[mindspore.dtype, tuple, list, function\\]"):
        ops.Custom(f, out_shape=(3,), out_dtype="float32")


def test_custom_has_no_onnx_form(tmp_path):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.op = ops.Custom(lambda a: a * 2, out_shape=lambda a: a, out_dtype=lambda a: a)

        def construct(self, x):
            return self.op(x) + 1
    with pytest.raises(Exception, match=r"host_call in Cell '.*'"):
        ms.export(Net(), Tensor(X), file_name=str(tmp_path / "c"), file_format="ONNX")


def test_registration_info_and_hybrid_dsl():
    assert ops.DataType.F32_Default == ("float32", "DefaultFormat")   # 2.10's values
    assert ops.DataType.None_None == ("", "")
    info = (ops.CustomRegOp("foo").input(0, "x").output(0, "y")
            .dtype_format(ops.DataType.F32_Default, ops.DataType.F32_Default).target("CPU").get_op_info())
    assert info == {"op_name": "foo", "inputs": [{"index": 0, "name": "x", "paramType": "required"}],
                    "outputs": [{"index": 0, "name": "y", "paramType": "required"}], "attr": [], "fusion_type": "",
                    "dtype_format": [(("float32", "DefaultFormat"), ("float32", "DefaultFormat"))], "target": "CPU"}

    @ops.custom_info_register(info)
    @ops.kernel
    def add_k(a, b):
        c = output_tensor(a.shape, a.dtype)  # noqa: F821 - the DSL's names
        for i in serial(a.shape[0]):  # noqa: F821
            c[i] = sqrt(a[i]) + b[i]  # noqa: F821
        return c
    assert add_k.reg_info == (info,) and add_k.ms_kernel_flag
    a = np.array([4., 9., 16.], np.float32)
    np.testing.assert_array_equal(add_k(a, Y), np.sqrt(a) + Y)   # plain Python over numpy
    op = ops.Custom(add_k, out_shape=lambda a, b: a, out_dtype=lambda a, b: a, reg_info=info)
    np.testing.assert_array_equal(op(Tensor(a), Tensor(Y)).asnumpy(), np.sqrt(a) + Y)


def test_tensordump_and_dumpgradient_files(tmp_path, monkeypatch):
    import itertools

    from graphcell.ops import host_dumps
    monkeypatch.setattr(host_dumps, "_COUNTER", itertools.count())
    monkeypatch.chdir(tmp_path)
    x = Tensor(X)
    ops.tensordump("a", x)
    g = ms.grad(lambda v: (ops.DumpGradient()("g.npy", v, "in") * 3).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [3, 3, 3])
    ms.jit(lambda v: (ops.TensorDump()("sub/j.npy", v.astype(ms.int32)), v + 1)[1])(x)
    ops.tensordump("b", x.astype(ms.bfloat16))
    assert sorted(os.listdir(".")) == ["a_float32_0.npy", "b_bfloat16_3.npy", "g_float32_1.npy", "sub"]
    np.testing.assert_array_equal(np.load("g_float32_1.npy"), [3, 3, 3])
    np.testing.assert_array_equal(np.load("sub/j_int32_2.npy"), X.astype(np.int32))
    assert np.load("b_bfloat16_3.npy").dtype == np.float32   # 2.10 writes bfloat16 as float32
    with pytest.raises(TypeError, match="Parameter file_name should only be build_in str type but got: <class 'int'>"):
        ops.tensordump(3, x)
    with pytest.raises(ValueError, match=r"Parameter mode should in \['out', 'in'\], but got foo"):
        ops.tensordump("q", x, "foo")
    with pytest.raises(TypeError, match="Parameter tensor should only be Tensor type, but got: <class 'int'>"):
        ops.tensordump("q", 3)
    with pytest.raises(ValueError, match=r"The 'input_output' argument should be one of \['in', 'out'\], but got: foo"):
        ops.TensorDump("foo")


def test_assert(capsys):
    a = ops.Assert(summarize=2)
    assert a(Tensor(True), [Tensor(X)]) is None
    with pytest.raises(RuntimeError, match="assert failed"):
        a(Tensor(False), [Tensor(X)])
    assert capsys.readouterr().out == "For 'Assert' condition is false.\ninput data: [1. 2.]\n"

    def f(c, v):
        ops.Assert()(c, [v])
        return v + 1
    jf = ms.jit(f)
    np.testing.assert_array_equal(jf(Tensor(True), Tensor(X)).asnumpy(), X + 1)
    with pytest.raises(RuntimeError, match="assert failed"):
        jf(Tensor(False), Tensor(X))
    with pytest.raises(ValueError, match="For 'Assert', the 'condition\\[0\\]' must be int and must = 1, but got '2'"):
        a(Tensor([True, True]), [Tensor(X)])
    with pytest.raises(TypeError, match="For 'Assert', the type of 'summarize' should be 'int', but got type 'float'"):
        ops.Assert(1.5)


def test_hook_backward_and_insert_gradient_of():
    got = []

    def hook(grads):
        got.append(grads)
        return grads[0] * 10
    hb = ops.HookBackward(hook)
    x = Tensor(X)
    np.testing.assert_array_equal(ms.jit(ms.grad(lambda a: (hb(a) * 3).sum()))(x).asnumpy(), [30, 30, 30])
    assert len(got) == 1 and isinstance(got[0], tuple)
    np.testing.assert_array_equal(got[0][0].asnumpy(), [3, 3, 3])
    both = ops.HookBackward(lambda g: None)
    g = ms.grad(lambda a, b: (sum(both(a, b)) * 3).sum(), (0, 1))(x, Tensor(Y))
    np.testing.assert_array_equal(g[1].asnumpy(), [3, 3, 3])
    with pytest.raises(TypeError, match="Expected a callable hook function, but got int."):
        ops.HookBackward(3)
    ig = ops.InsertGradientOf(lambda d: ops.clip_by_value(d, -0.1, 0.1))
    np.testing.assert_allclose(ms.jit(ms.grad(lambda a: (ig(a) * 3).sum()))(x).asnumpy(), [0.1] * 3)
    np.testing.assert_array_equal(ig(x).asnumpy(), X)
    with pytest.raises(RuntimeError, match="For 'InsertGradientOf', the number of input should be 1, but got 2"):
        ig(x, x)


def test_morph_user_primitives_map_constexpr():
    x, y = Tensor(X), Tensor(Y)
    m = ops.Morph(lambda a, b: a * b + 1, lambda a, b: a, lambda a, b: a,
                  bprop_fn=lambda a, b, out, dout: (dout * 100, dout))
    np.testing.assert_array_equal(m(x, y).asnumpy(), X * Y + 1)
    g = ms.grad(lambda a, b: m(a, b).sum(), (0, 1))(x, y)
    np.testing.assert_array_equal(g[0].asnumpy(), [100] * 3)
    plain = ops.Morph(lambda a, b: a * b, lambda a, b: a, lambda a, b: a)
    np.testing.assert_array_equal(ms.grad(lambda a, b: plain(a, b).sum())(x, y).asnumpy(), Y)

    class MyAdd(ops.PrimitiveWithInfer):
        @ops.prim_attr_register
        def __init__(self, scale=2):
            self.init_prim_io_names(inputs=["x", "y"], outputs=["out"])

        def infer_shape(self, xs, ys):
            assert xs == [3]
            return xs

    assert repr(MyAdd(3)) == "Prim[MyAdd]<scale=3>" and MyAdd(3).scale == 3   # 2.10's
    with pytest.raises(RuntimeError, match="For 'MyAdd', a user primitive has no kernel in graphcell"):
        MyAdd()(x, y)

    class Scaled(ops.PrimitiveWithCheck):
        @ops.prim_attr_register
        def __init__(self, scale=2):
            pass

        def __call__(self, a, b):
            return (a + b) * self.scale
    np.testing.assert_array_equal(ms.jit(lambda a, b: Scaled()(a, b))(x, y).asnumpy(), (X + Y) * 2)
    assert repr(ops.PrimitiveWithInfer("Foo")) == "Prim[Foo]"
    out = ops.Map()(ops.add, (x, y), (y,))   # stops at the shortest (2.10's)
    assert len(out) == 1
    np.testing.assert_array_equal(out[0].asnumpy(), X + Y)
    assert ops.Map(lambda a: a * 2)((1, 2)) == (2, 4)
    with pytest.raises(TypeError, match="map\\(\\) must have at least two arguments."):
        ops.Map()((x, y))
    assert ops.constexpr(lambda n: n * 2)(3) == 6
