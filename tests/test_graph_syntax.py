"""Python syntax in compiled functions, as MindSpore 2.10's graph mode runs it (values measured
on MindSpore 2.10): `raise`/`assert` under a tensor condition, chained comparisons with a
Tensor, int()/float()/bool() of a traced Tensor, numpy scalars returned."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor


def _checked(x):
    if x.sum() > 5:
        raise ValueError(f"too big: {x.sum()}")
    assert x.sum() > 0, "sum too small"
    return x + 1


def test_raise_and_assert_under_a_tensor_condition_raise_when_the_run_takes_them():
    # 2.10 GRAPH_MODE: [1, 2] -> [2, 3]; [3, 4] -> ValueError('too big: 7.0') (a Tensor in the
    # message formatted with the run's value); [-1, -2] -> AssertionError('sum too small').
    # Tracing both branches must not raise for every input.
    f = ms.jit(_checked)
    np.testing.assert_array_equal(f(Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [2.0, 3.0])
    with pytest.raises(ValueError, match=r"^too big: 7\.0$"):
        f(Tensor(np.array([3.0, 4.0], np.float32)))
    with pytest.raises(AssertionError, match="^sum too small$"):
        f(Tensor(np.array([-1.0, -2.0], np.float32)))
    np.testing.assert_array_equal(f(Tensor(np.array([0.5, 1.0], np.float32))).asnumpy(), [1.5, 2.0])
    # eagerly it is Python's raise
    with pytest.raises(ValueError, match=r"^too big: 7\.0$"):
        _checked(Tensor(np.array([3.0, 4.0], np.float32)))



# What a branch does before its raise happens on the calls that reach the raise, as Python runs
# it: the eager call of the same function is the reference, for what is printed and for the
# result or the error (its message formatted from that call's values).

def _raise_in_if(x):
    if x.sum() > 5:
        print("before the raise")
        raise ValueError(f"too big: {x.sum()}")
    return x + 1


def _raise_in_else(x):
    if x.sum() <= 5:
        y = x + 1
    else:
        print("before the raise")
        raise ValueError(f"too big: {x}")
    return y


def _raise_in_nested_if(x):
    if x.sum() > 0:
        print("outer branch")
        if x.max() > 5:
            print("before the raise")
            raise ValueError(f"max {x.max()} of {x}")
        x = x + 1
    return x


def _raise_in_while(x):
    while x.sum() < 20:
        if x.sum() > 15:
            print("before the raise")
            raise ValueError(f"sum {x.sum()} in the loop")
        x = x * 2
    return x


def _noisy_message(x):
    print("message made")
    return f"sum {x.sum()} not positive"


def _assert_noisy_message(x):
    assert x.sum() > 0, _noisy_message(x)
    return x - 1


def _outcome(fn, x, capsys):
    try:
        result = ("value", fn(Tensor(np.array(x, np.float32))).asnumpy().tolist())
    except (ValueError, AssertionError) as e:   # (pytest adds lines to an eager assert's message)
        result = (type(e).__name__, str(e).partition("\n")[0])
    return result, capsys.readouterr().out


@pytest.mark.parametrize("fn, calls", [
    (_raise_in_if, [[1.0, 2.0], [3.0, 4.0], [0.5, 1.0]]),
    (_raise_in_else, [[1.0, 2.0], [3.0, 4.0], [0.5, 1.0]]),
    (_raise_in_nested_if, [[-1.0, -2.0], [1.0, 2.0], [1.0, 7.0], [2.0, 2.0]]),
    (_raise_in_while, [[1.0, 2.0], [2.0, 2.0], [5.0, 6.0]]),
    (_assert_noisy_message, [[1.0, 2.0], [-1.0, -2.0], [3.0, 0.0]]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_branch_before_its_formatted_raise_runs_as_often_as_in_python(fn, calls, capsys):
    jitted = ms.jit(fn)
    for x in calls:
        expected = _outcome(fn, x, capsys)
        assert _outcome(jitted, x, capsys) == expected, x
    # the references raise at least once and return at least once (the test checks both paths)
    kinds = {_outcome(fn, x, capsys)[0][0] for x in calls}
    assert "value" in kinds and len(kinds) == 2


class _CountsBeforeRaising(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.count = ms.Parameter(Tensor(np.zeros((), np.float32)), name="count")

    def construct(self, x):
        if x.sum() > 5:
            self.count += 1
            raise ValueError(f"too big: {x.sum()}")
        return x + 1


def test_a_parameter_written_before_a_raise_is_written_only_by_calls_that_reach_it():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = _CountsBeforeRaising()
    for _ in range(3):   # Python: none of these calls reaches `self.count += 1`
        np.testing.assert_array_equal(net(Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [2.0, 3.0])
    assert net.count.asnumpy() == 0
    with pytest.raises(ValueError, match=r"^too big: 7\.0$"):
        net(Tensor(np.array([3.0, 4.0], np.float32)))


def _draws_before_raising(x):
    if x.sum() > 5:
        r = ms.ops.rand(2)
        raise ValueError(f"drew {r}")
    return ms.ops.rand(2)


def test_a_random_draw_before_a_raise_is_drawn_only_by_calls_that_reach_it():
    # the calls that return draw what a function without the raising branch draws
    x = Tensor(np.array([1.0, 2.0], np.float32))
    ms.set_seed(7)
    reference = [ms.jit(lambda t: ms.ops.rand(2))(x).asnumpy() for _ in range(2)]
    ms.set_seed(7)
    f = ms.jit(_draws_before_raising)
    np.testing.assert_array_equal([f(x).asnumpy() for _ in range(2)], reference)


def _assert_with_tensors(x):
    assert x.sum() > 0, ("x is", x)
    return x


def test_tensors_among_an_errors_arguments_are_this_runs_values():
    # as Python's: the error's argument is the message tuple, its Tensor the failing call's
    x = Tensor(np.array([-1.0, -2.0], np.float32))
    with pytest.raises(AssertionError) as graph:
        ms.jit(_assert_with_tensors)(x)
    (text, tensor), = graph.value.args
    assert text == "x is" and isinstance(tensor, Tensor)
    np.testing.assert_array_equal(tensor.asnumpy(), [-1.0, -2.0])
    assert repr(graph.value) == repr(AssertionError(("x is", x)))
    np.testing.assert_array_equal(ms.jit(_assert_with_tensors)(-x).asnumpy(), [1.0, 2.0])

def _numbers(x):
    s = x.sum()
    y = x
    if 0 < s < 20:       # a chain with a Tensor: `0 < s and s < 20`
        y = x + 1
    return y, int(s), float(s.astype(ms.int32)), bool(s), int(-s), bool(s * 0), np.sum(np.arange(4)), 1 < 2 < 3


def test_chained_comparison_numbers_of_tensors_and_numpy_scalars_in_jit():
    # 2.10 GRAPH_MODE with x = [1.2, 1.5]: y = [2.2, 2.5]; int 2, float 2.0, True, int -2,
    # False (Python types), np.sum -> int 6, True
    out = ms.jit(_numbers)(Tensor(np.array([1.2, 1.5], np.float32)))
    np.testing.assert_allclose(out[0].asnumpy(), [2.2, 2.5], rtol=1e-6)
    assert [(type(v), v) for v in out[1:]] == [(int, 2), (float, 2.0), (bool, True), (int, -2), (bool, False),
                                               (int, 6), (bool, True)]


def _guarded_loss(x):
    try:
        if x.sum() > 100:
            raise ValueError("big")
        y = x * x
    except ValueError:
        y = x * 3
    return y.sum()


def test_try_runs_as_python_under_an_eager_grad_and_is_refused_in_jit():
    # 2.10: PYNATIVE's grad runs the Python, try/except included; GRAPH_MODE refuses `try`
    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_array_equal(ms.grad(_guarded_loss)(Tensor(x)).asnumpy(), 2 * x)
    np.testing.assert_array_equal(ms.grad(_guarded_loss)(Tensor(x + 100)).asnumpy(), [3.0, 3.0])
    from graphcell.frontend.ast_transform import UnsupportedSyntaxError
    with pytest.raises(UnsupportedSyntaxError, match="`try` statement"):
        ms.jit(_guarded_loss)(Tensor(x))


def test_boolean_mask_index_under_an_eager_grad_uses_this_calls_mask():
    # 2.10's PYNATIVE grad of (x[x > 2] ** 2).sum(): 2x where x > 2, else 0
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    g = ms.grad(lambda t: (t[t > 2] ** 2).sum())(Tensor(x))
    np.testing.assert_array_equal(g.asnumpy(), np.where(x > 2, 2 * x, 0))


def test_numpy_values_a_jit_returns_stay_numpy():
    # 2.10 GRAPH_MODE: np.array -> ndarray [1, 2]; numpy scalars -> int 6, float 2.5, int 4
    f = ms.jit(lambda x: (x + 1, np.array([1, 2]), np.float32(2.5), np.int32(3) + 1))
    out = f(Tensor(np.float32(1.0)))
    assert isinstance(out[1], np.ndarray) and out[1].tolist() == [1, 2]
    assert [(type(v), v) for v in out[2:]] == [(float, 2.5), (int, 4)]
    out[1][0] = 7   # each call gets its own array
    assert f(Tensor(np.float32(1.0)))[1].tolist() == [1, 2]


def _kinds(x):
    n = x.sum().item()
    m = int(x.max())
    return isinstance(n, float), isinstance(m, int), isinstance(n, Tensor), isinstance(m, (bool, float)), \
        isinstance(x, Tensor)


def test_isinstance_sees_a_graph_number_as_a_python_number():
    # 2.10 GRAPH_MODE: (True, True, False, False, True)
    assert ms.jit(_kinds)(Tensor(np.array([1.0, 2.5], np.float32))) == (True, True, False, False, True)


def test_a_branch_that_raises_only_when_first_traced_is_refused_by_name():
    seen = []

    def raises_once(x):
        if x.sum() > 5:
            if not seen:   # Python state the branch changes: the second trace does not raise
                seen.append(1)
                raise ValueError("once")
        return x
    from graphcell.frontend.cf_build import ControlFlowError
    with pytest.raises(ControlFlowError, match=r"the `if` at .*test_graph_syntax\.py:\d+ raised an error when "
                                               r"traced once and not when traced again"):
        ms.jit(raises_once)(Tensor(np.array([1.0], np.float32)))
