"""Host calls under jit(backend="onnx") (runtime/onnx_host_calls.py): prints, `raise`/`assert`
checks, ops.Custom pyfuncs and backward hooks run as under the XLA backend, whose printed text,
exceptions and values are the reference; export still leaves prints and checks out."""
import warnings

import jax
import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, Tensor, nn, ops

X = np.array([1.0, 2.0, 3.0], np.float32)
BIG = X * 100


def both(make, *args, capsys):
    """(printed text, result or exception) of `make()`'s function jitted on each backend."""
    got = {}
    for backend in ("xla", "onnx"):
        f = ms.jit(make(), backend=backend)
        try:
            result = f(*args)
            result = [r.asnumpy() for r in result] if isinstance(result, tuple) else result.asnumpy()
        except Exception as e:  # noqa: BLE001 - compared below
            result = e
        got[backend] = (capsys.readouterr().out, result)
    return got["xla"], got["onnx"]


def assert_same(xla, onnx):
    assert onnx[0] == xla[0]
    if isinstance(xla[1], Exception):
        assert type(onnx[1]) is type(xla[1]) and onnx[1].args == xla[1].args
    else:
        jax.tree_util.tree_map(np.testing.assert_array_equal, onnx[1], xla[1])


def checked():
    def f(x):
        y = x * 2
        print("y is", y)
        if y.sum() > 100:
            raise ValueError(f"too big: {y.sum()}")
        return y + 1
    return f


def test_print_and_passing_check_match_xla(capsys):
    xla, onnx = both(checked, Tensor(X), capsys=capsys)
    assert "y is\nTensor(shape=[3]" in xla[0] and not isinstance(xla[1], Exception)
    assert_same(xla, onnx)


def test_failing_check_raises_xla_error_after_the_print(capsys):
    xla, onnx = both(checked, Tensor(BIG), capsys=capsys)
    assert isinstance(xla[1], ValueError) and xla[1].args == ("too big: 1200.0",)
    assert "y is" in xla[0]
    assert_same(xla, onnx)


def test_assert_and_prints_in_program_order_multi_output(capsys):
    def make():
        def f(x, z):
            a = x + z
            print("first", a.sum())
            b = a * z
            assert b.min() > 0, "b must be positive"
            print("second", b)
            ops.Print()("third", b.max())
            return a, b, b.sum()
        return f
    xla, onnx = both(make, Tensor(X), Tensor(X), capsys=capsys)
    assert xla[0].index("first") < xla[0].index("second") < xla[0].index("third")
    assert len(onnx[1]) == 3   # the operands the prints and the check read are not outputs
    assert_same(xla, onnx)
    xla, onnx = both(make, Tensor(X), Tensor(-X), capsys=capsys)
    assert isinstance(xla[1], AssertionError) and "second" not in xla[0]   # later host calls skipped
    assert_same(xla, onnx)


class Checked(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, -1.0, 2.0], np.float32)), name="w")

    def construct(self, x):
        y = x * self.w
        print("cell y", y)
        if y.max() > 50:
            raise RuntimeError("cell overflow")
        return y.sum()


def test_cell_and_compile_cache_print_again(capsys):
    xla, onnx = both(Checked, Tensor(X), capsys=capsys)
    assert_same(xla, onnx)
    printed = {}
    for backend in ("xla", "onnx"):
        f = ms.jit(Checked(), backend=backend)
        for x in (X, X + 1, X + 1):
            f(Tensor(x))
            printed.setdefault(backend, []).append(capsys.readouterr().out)
        assert f.cache_size == 1   # one trace: the hits print again, with their values
    assert printed["onnx"] == printed["xla"]
    assert printed["onnx"][1] == printed["onnx"][2] != printed["onnx"][0]
    with pytest.raises(RuntimeError, match="^cell overflow$"):
        f(Tensor(BIG))


def test_set_context_backend_runs_prints(capsys):
    ms.set_context(backend="onnx")
    try:
        f = ms.jit(checked())
        f(Tensor(X))
    finally:
        ms.set_context(backend="xla")
    assert f.cache.values() and all(t.cache.get("onnx_host_plan") for t in f.cache.values())
    assert capsys.readouterr().out.startswith("y is\n")


def test_custom_op_result_feeds_the_next_stage(capsys):
    calls = []

    def host(a):
        calls.append(a.copy())
        return np.sort(a)[::-1].copy()
    op = ops.Custom(host, out_shape=lambda a: a, out_dtype=lambda a: a, func_type="pyfunc")

    def make():
        def f(x):
            y = op(x * 3) + 1
            print("after custom", y)
            return op(y).sum() * 2, y
        return f
    xla, onnx = both(make, Tensor(X), capsys=capsys)
    assert_same(xla, onnx)
    assert len(calls) == 4 and all(isinstance(c, np.ndarray) for c in calls)
    np.testing.assert_array_equal(calls[2], X * 3)   # the onnx run's values, as XLA's
    f = ms.jit(make(), backend="onnx")
    f(Tensor(X))
    plan = next(iter(f.cache.values())).cache["onnx_host_plan"]
    assert [type(s).__name__ for s in plan.steps] == ["_Model", "_Call", "_Model", "_Call", "_Call", "_Model"]


def test_custom_op_error_is_raised_as_itself():
    op = ops.Custom(lambda a: a[:1], out_shape=lambda a: a, out_dtype=lambda a: a, func_type="pyfunc")
    for backend in ("xla", "onnx"):
        with pytest.raises(TypeError, match=r"returned output 0 as Float32 of shape \[1\]"):
            ms.jit(lambda x: op(x) + 1, backend=backend)(Tensor(X))


def test_backward_hooks_return_new_gradients():
    class Square(nn.Cell):
        def construct(self, x):
            return x * x
    seen = {}

    def run(backend):
        cell = Square()
        record = seen.setdefault(backend, [])

        def hook(c, grad_input, grad_output):
            record.append((grad_input[0].asnumpy().tolist(), grad_output[0].asnumpy().tolist()))
            return (grad_input[0] * 10,)
        cell.register_backward_hook(hook)
        return ms.jit(ms.grad(lambda a: (cell(a) * 3).sum()), backend=backend)(Tensor(X)).asnumpy()
    got = run("onnx")
    np.testing.assert_array_equal(got, run("xla"))
    np.testing.assert_array_equal(got, X * 2 * 3 * 10)
    assert seen["onnx"] == seen["xla"] and len(seen["onnx"]) == 1


def test_complex_values_reach_the_print(capsys):
    def make():
        def f(x):
            z = ops.Complex()(x, x * 2)
            print("z", z)
            return ops.Abs()(z)
        return f
    xla, onnx = both(make, Tensor(X), capsys=capsys)
    assert "Complex64" in xla[0]
    assert_same(xla, onnx)


def branching():
    """Host calls in the branches of tensor `if`s: a print, a nested if, effects before a
    formatted raise, a Custom whose result the branch returns."""
    double = ops.Custom(lambda a: a * 2, out_shape=lambda a: a, out_dtype=lambda a: a, func_type="pyfunc")

    def f(x):
        if x.sum() > 10:
            print("large", x.sum())
            if x.max() > 500:
                print("very large")
                raise ValueError(f"too large: {x.max()}")
            x = double(x)
        else:
            print("small")
            x = x - 1
        return x + 1
    return f


@pytest.mark.parametrize("scale", [1.0, 100.0, 1000.0])
def test_host_calls_in_branches_run_when_their_branch_is_taken(scale, capsys):
    """Each input takes another branch: small, large, and large with the raise."""
    xla, onnx = both(branching, Tensor(X * scale), capsys=capsys)
    assert xla[0].count("\n") >= 1 and ("small" in xla[0]) == (scale == 1.0)
    assert isinstance(xla[1], ValueError) == (scale == 1000.0)
    assert_same(xla, onnx)


def test_host_calls_in_a_loop_body_warn_or_refuse(capsys):
    def printing(x):
        i = Tensor(0, ms.int32)
        while i < 3:
            print("step", i)
            x = x + 1
            i = i + 1
        return x
    with pytest.warns(UserWarning, match=r"jit\(backend='onnx'\): <Print> in Cell .* inside a loop body "
                                         r".* use jit\(backend='xla'\)"):
        out = ms.jit(printing, backend="onnx")(Tensor(X))
    np.testing.assert_array_equal(out.asnumpy(), X + 3)
    op = ops.Custom(lambda a: a * 2, out_shape=lambda a: a, out_dtype=lambda a: a, func_type="pyfunc")

    def custom(x):
        i = Tensor(0, ms.int32)
        while i < 3:
            x = op(x)
            i = i + 1
        return x
    np.testing.assert_array_equal(ms.jit(custom, backend="xla")(Tensor(X)).asnumpy(), X * 8)
    with pytest.raises(Exception, match=r"jit\(backend='onnx'\): <Custom.*> in Cell .* loop body.*"
                                        r"use jit\(backend='xla'\)"):
        ms.jit(custom, backend="onnx")(Tensor(X))


def test_export_still_drops_prints_and_checks(tmp_path, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ms.export(Checked(), Tensor(X), file_name=str(tmp_path / "c"), file_format="ONNX")
    texts = [str(w.message) for w in caught]
    assert any("an ONNX model has no print" in t for t in texts)
    assert any("an ONNX model cannot raise" in t for t in texts)
    import onnx
    model = onnx.load(str(tmp_path / "c.onnx"))
    assert len(model.graph.output) == 1
    assert capsys.readouterr().out == ""
