"""print and ops.Print inside a function an eager (PYNATIVE_MODE) grad differentiates: 2.10 runs
the function as Python, so a print prints at once, as plain Python prints (a Tensor as its str,
inside a tuple as its repr, keyword arguments honoured), once per call; the backward prints
nothing again. Under GRAPH_MODE, and in a jit function the differentiated function calls, a
print is a graph print (ops/graph_print.py). Every expected text below was measured on
MindSpore 2.10 (CPU)."""
import sys

import numpy as np

import graphcell as ms
from graphcell import Tensor, nn, ops

X = np.array([1., 2.], np.float32)
R = "Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])"   # 2.10's repr of X


def test_print_runs_as_python_once_per_call(capsys):
    y = Tensor(np.array([[1, 2], [3, 4]], np.int32))

    def f(a):
        b = a * 2
        print(a)
        print(b)
        print(y)
        print((a, 3))
        print(a, 3)
        print([a, 1.5])
        print(3, 1.5, True, None, 1 / 3)
        print()
        print(f"a={a}")
        print("a: {}".format(a), "%s" % a.sum(), f"{a!r}", repr(a.sum()))
        print(a, end="|\n")
        print(a, 5, sep=" -- ")
        print("to stderr", a, file=sys.stderr)
        print("flush", flush=True)
        print(a.shape, a.dtype, a.ndim, a.sum(), Tensor(2.5), {"k": a > 1})
        ops.Print()("txt", a, 3, (1, 2), ms.float32, True, None, [1, a])
        ops.print_("fn print_", a)
        return (b * a).sum()
    g = ms.grad(f)
    np.testing.assert_array_equal(g(Tensor(X)).asnumpy(), 4 * X)
    out = capsys.readouterr()
    assert out.out == (
        "[1. 2.]\n[2. 4.]\n[[1 2]\n [3 4]]\n"
        f"({R}, 3)\n[1. 2.] 3\n[{R}, 1.5]\n"
        "3 1.5 True None 0.3333333333333333\n\n"
        f"a=[1. 2.]\na: [1. 2.] 3.0 {R} Tensor(shape=[], dtype=Float32, value= 3)\n"
        "[1. 2.]|\n[1. 2.] -- 5\nflush\n"
        "(2,) Float32 1 3.0 2.5 {'k': Tensor(shape=[2], dtype=Bool, value= [False,  True])}\n"
        f"txt\n{R}\n3\n(1, 2)\nFloat32\nTrue\nNone\n[1, {R}]\n"
        f"fn print_\n{R}\n")
    assert out.err == "to stderr [1. 2.]\n"

    def h(a):   # each call prints this call's values, the branch it takes, nothing in the backward
        if a.sum() > 2:
            print("big", a)
        else:
            print("small", a)
        for i in range(2):
            print("it", i, a * i)
        return (a * a).sum()
    g = ms.grad(h)
    g(Tensor(X))
    g(Tensor(X * 0))
    assert capsys.readouterr().out == ("big [1. 2.]\nit 0 [0. 0.]\nit 1 [1. 2.]\n"
                                       "small [0. 0.]\nit 0 [0. 0.]\nit 1 [0. 0.]\n")


def test_print_in_a_cells_construct_and_value_and_grad(capsys):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(Tensor(np.array([0.5, -1.0], np.float32)), name="w")

        def construct(self, a):
            h = a * self.w
            print("h:", h)
            print(f"h={h}")
            return h.sum()
    net = Net()
    np.testing.assert_array_equal(ms.grad(net)(Tensor(X)).asnumpy(), [0.5, -1.0])
    value, grads = ms.value_and_grad(net, None, net.trainable_params())(Tensor(X))
    assert value.asnumpy() == -1.5
    np.testing.assert_array_equal(grads[0].asnumpy(), X)
    assert capsys.readouterr().out == "h: [ 0.5 -2. ]\nh=[ 0.5 -2. ]\n" * 2


def test_graph_mode_and_jit_inside_keep_graph_prints(capsys):
    @ms.jit
    def doubled(a):
        print("in jit", a)
        return a * 2

    def k(a):
        print("outer", a)
        return doubled(a).sum()
    np.testing.assert_array_equal(ms.grad(k)(Tensor(X)).asnumpy(), [2., 2.])
    assert capsys.readouterr().out == ("outer [1. 2.]\nin jit\n"
                                       "Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00])\n")

    def f(a):
        print("f", a, 3)
        ops.Print()("P", a)
        return (a * a).sum()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_array_equal(ms.grad(f)(Tensor(X)).asnumpy(), 2 * X)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    g = "Tensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00])"
    assert capsys.readouterr().out == f"f\n{g}\n3\nP\n{g}\n"
