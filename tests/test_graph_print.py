"""Printing inside compiled graphs (ops/graph_print.py, _tensor_repr.print_text): ops.Print and
Python's print under jit / GRAPH_MODE print at run time, each call, in program order. Every
expected text below was measured on MindSpore 2.10 (CPU, GRAPH_MODE)."""
import warnings

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell._tensor_repr import print_text
from graphcell.dtype import to_dtype

X = np.array([1., 2.], np.float32)
T = "Tensor(shape=[2], dtype=Float32, value="


def _text(a):
    a = np.asarray(a)
    return print_text(a, to_dtype(a.dtype))


def test_print_text_forms():
    cases = [   # (array, 2.10's text)
        (np.array(7, np.int64), "7"), (np.array(1 / 3, np.float32), "0.333333"), (np.array(2.0, np.float32), "2"),
        (np.array(1e20, np.float32), "1e+20"), (np.array(True), "1"), (np.float16(1.5), "1.5"),
        (np.array([1, 200], np.uint8), "Tensor(shape=[2], dtype=UInt8, value=[  1 200])"),
        (np.array([True, False]), "Tensor(shape=[2], dtype=Bool, value=[ True False])"),
        (np.array([1.5, 2], np.float16), "Tensor(shape=[2], dtype=Float16, value=[ 1.5000e+00  2.0000e+00])"),
        (np.array([np.nan, 1.0], np.float32), "Tensor(shape=[2], dtype=Float32, value=[            nan  1.00000000e+00])"),
        (np.array([1 + 2j, 3 - 1j], np.complex64), "Tensor(shape=[2], dtype=Complex64, value=[1+2j 3-1j])"),
        (np.array([[1, 2], [3, 4]], np.int64), "Tensor(shape=[2, 2], dtype=Int64, value=\n[[1 2]\n [3 4]])"),
        (np.arange(40, dtype=np.int32).reshape(4, 10), "Tensor(shape=[4, 10], dtype=Int32, value=\n[[ 0  1  2 ...  7  8  9]\n"
         " [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n [30 31 32 ... 37 38 39]])"),
        (np.arange(8, dtype=np.int32).reshape(2, 2, 2), "Tensor(shape=[2, 2, 2], dtype=Int32, value=\n[[[0 1]\n  [2 3]]\n"
         " [[4 5]\n  [6 7]]])"),
        (np.arange(1001, dtype=np.int32), "Tensor(shape=[1001], dtype=Int32, value=[   0    1    2 ...  998  999 1000])"),
        (np.arange(26, dtype=np.int8), "Tensor(shape=[26], dtype=Int8, value=[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 "
         "14 15 16 17 18 19 20 21 22 23 \n 24 25])"),
        (np.arange(12, dtype=np.float16), "Tensor(shape=[12], dtype=Float16, value=[ 0.0000e+00  1.0000e+00  2.0000e+00  "
         "3.0000e+00  4.0000e+00  5.0000e+00  6.0000e+00  7.0000e+00  8.0000e+00  9.0000e+00  1.0000e+01  1.1000e+01\n ])"),
        (np.zeros((3, 8), np.float32), "Tensor(shape=[3, 8], dtype=Float32, value=\n" + "\n".join(
            (" " if i else "[") + "[ 0.00000000e+00  0.00000000e+00  0.00000000e+00 ...  0.00000000e+00  0.00000000e+00  "
            "0.00000000e+00]" for i in range(3)) + "])"),
    ]
    for array, want in cases:
        assert _text(array) == want, array


def test_print_runs_each_call_in_order(capsys):
    P = ops.Print()

    @ms.jit
    def f(x, i):
        P("p1", x, i, 3, 2.5, True, (1, 2), (x, 1), x.shape, ms.float32, 1 / 3)
        y = x + 1
        print("b2", y)
        print("b3 python only")
        return y
    i = Tensor(np.array([1, 2, 3], np.int32))
    f(Tensor(X), i)
    first = capsys.readouterr().out
    f(Tensor(X), i)
    assert capsys.readouterr().out == first == (   # 2.10's: Python values print at run time too
        f"p1\n{T}[ 1.00000000e+00  2.00000000e+00])\nTensor(shape=[3], dtype=Int32, value=[1 2 3])\n3\n2.5\n1\n"
        f"(1, 2)\n{T}[ 1.00000000e+00  2.00000000e+00])\n1\n(2)\nFloat32\n0.333333\n"
        f"b2\n{T}[ 2.00000000e+00  3.00000000e+00])\nb3 python only\n")


def test_builtin_print_fstrings_and_keywords(capsys):
    @ms.jit
    def f(x):
        print(f"a {x!r} b {x[0]} c {x.sum()}")
        print("x: {}".format(x), None, (1, "s"))
        print()
        return x
    f(Tensor(X))
    assert capsys.readouterr().out == "a [1. 2.] b 1.0 c 3.0\nx: [1. 2.]\nNone\n1\ns\n"

    @ms.jit
    def g(x):
        print(x, flush=True)
        return x
    with pytest.raises(RuntimeError, match="Got an unexpected keyword argument 'flush'"):   # 2.10's words
        g(Tensor(X))


def test_print_only_for_the_branch_taken(capsys):
    P = ops.Print()

    class Net(nn.Cell):
        def construct(self, x):
            if x.sum() > 2:
                P("big", x)
            else:
                print("small", x)
            while x.sum() < 3:
                x = x * 2
                P("loop", x)
            return x
    net = Net()
    prev = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net(Tensor(X))
        assert capsys.readouterr().out == f"big\n{T}[ 1.00000000e+00  2.00000000e+00])\n"
        net(Tensor(X / 2))
        assert capsys.readouterr().out == (f"small\n{T}[ 5.00000000e-01  1.00000000e+00])\n"
                                           f"loop\n{T}[ 1.00000000e+00  2.00000000e+00])\n")
    finally:
        ms.set_context(mode=prev)


def test_print_under_grad_and_vmap(capsys):
    P = ops.Print()

    def fwd(x):
        P("fwd", x)
        return (x * x).sum()
    np.testing.assert_array_equal(ms.jit(ms.grad(fwd))(Tensor(X)).asnumpy(), 2 * X)
    assert capsys.readouterr().out == f"fwd\n{T}[ 1.00000000e+00  2.00000000e+00])\n"   # once: the forward

    def member(v):
        P("v", v)
        return v * 2
    ms.vmap(member)(Tensor(np.ones((2, 2), np.float32)))
    assert capsys.readouterr().out == ("v\n(\nTensor(shape=[2, 2], dtype=Float32, value=\n[[ 1.00000000e+00  1.00000000e+00]\n"
                                       " [ 1.00000000e+00  1.00000000e+00]])\n, dim: \n0\n)\n")


def test_eager_print_and_export_drops_prints(tmp_path, capsys):
    P = ops.Print()
    P("e", Tensor(X), 1 / 3)   # 2.10's PyNative Print: the repr, Python's str
    assert capsys.readouterr().out == "e\nTensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])\n" \
                                      "0.3333333333333333\n"

    class Net(nn.Cell):
        def construct(self, x):
            P("x3", x * 3)
            if x.sum() > 0:
                print("pos", x)
            return x + 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ms.export(Net(), Tensor(X), file_name=str(tmp_path / "p"), file_format="ONNX")
    assert any("an ONNX model has no print" in str(w.message) for w in caught)
    import onnx
    import onnxruntime as ort
    model = onnx.load(str(tmp_path / "p.onnx"))
    assert [n.op_type for n in model.graph.node] == ["Add"]   # the print, its If and its x * 3 are gone
    out = ort.InferenceSession(str(tmp_path / "p.onnx")).run(None, {model.graph.input[0].name: X})[0]
    np.testing.assert_array_equal(out, X + 1)
