"""jit and writes beyond in-place methods on arguments (tests/test_jit_writeback.py has those).

Every expected value was measured on MindSpore 2.10 (CPU) with `ms.jit` and a GRAPH_MODE Cell's
construct (the two agree):
- `x += y` (-=, *=) on a Tensor argument writes it in place, handed back to the caller cast to
  its dtype; in PyNative the caller's Tensor is unchanged (Python rebinds the name);
- `f(x, x)`: one Tensor inside, a write through one name is read through the other;
- a write to a Tensor from outside the function (closure, global, attribute) is handed back
  there too; graphcell refuses it with a clear error instead (frontend/outside_tensors.py).
"""
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.frontend.tracer import GraphModeError


def t(*values, dtype=np.float32):
    return ms.Tensor(np.array(values, dtype))


def check(tensor, expected):
    np.testing.assert_array_equal(tensor.asnumpy(), np.array(expected, tensor.asnumpy().dtype))


def test_augmented_assignment_writes_the_argument():
    @ms.jit
    def f(x, y):
        x *= 3
        x -= 1
        x += y
        return x + 0

    x = t(1, 2, 3)
    check(f(x, t(10)), [12, 15, 18])     # MindSpore 2.10: [12, 15, 18], x -> [12, 15, 18]
    check(x, [12, 15, 18])
    check(f(x, t(0)), [35, 44, 53])       # the cached trace writes too
    check(x, [35, 44, 53])


def test_augmented_assignment_keeps_the_arguments_dtype():
    @ms.jit
    def f(x):
        x += 1.5
        return x

    x = t(1, 2, dtype=np.int32)
    out = f(x)
    assert out.dtype == ms.int32 and x.dtype == ms.int32   # MindSpore 2.10: Int32 [2, 3] both
    check(out, [2, 3])
    check(x, [2, 3])


def test_augmented_assignment_in_construct_and_in_a_tuple():
    class Net(nn.Cell):
        def construct(self, xs):
            a, b = xs
            a += 1
            b.add_(10)
            return a * 2

    a, b = t(1, 2, 3), t(0)
    check(ms.jit(Net())((a, b)), [4, 6, 8])  # MindSpore 2.10: [4, 6, 8], a -> [2, 3, 4], b -> [10]
    check(a, [2, 3, 4])
    check(b, [10])


def test_augmented_assignment_eagerly_rebinds():
    def f(x):
        x += 1
        return x * 2

    x = t(1, 2, 3)
    check(f(x), [4, 6, 8])   # MindSpore 2.10 PyNative: [4, 6, 8], x unchanged
    check(x, [1, 2, 3])


@pytest.mark.parametrize("backend", ["xla", "onnx"])
def test_an_argument_passed_twice_is_one_tensor(backend):
    @ms.jit(backend=backend)
    def f(a, b):
        a.add_(1)
        b.add_(10)
        return a + 0, b * 1

    x, y = t(1, 2, 3), t(5, 5, 5)
    first, second = f(x, y)                  # two Tensors: each written once
    check(first, [2, 3, 4])
    check(second, [15, 15, 15])
    first, second = f(x, x)                  # MindSpore 2.10: [13, 14, 15] twice, x -> [13, 14, 15]
    check(first, [13, 14, 15])
    check(second, [13, 14, 15])
    check(x, [13, 14, 15])
    assert f.cache_size == 2


def test_an_export_keeps_an_example_passed_twice_as_two_inputs():
    from graphcell.frontend.trace import trace
    x = t(1, 2)
    assert len(trace(lambda a, b: a * b, x, x).graph.inputs) == 2
    out = ms.jit(lambda a, b: a - b)(x, x)   # no write: the same values either way
    check(out, [0, 0])


CAPTURED = t(1, 2, 3)


class Holder:
    def __init__(self):
        self.value = t(1, 2, 3)


HELD = Holder()


def write_closure(x):
    CAPTURED.add_(1)
    return x + CAPTURED


def write_attribute(x):
    ops.scatter_add(HELD.value, ms.Tensor(np.array([0], np.int32)), t(5))
    return x + 0


class Buffered(nn.Cell):
    def __init__(self):
        super().__init__()
        self.buf = t(1, 2, 3)

    def construct(self, x):
        self.buf.add_(1)
        return x + self.buf


@pytest.mark.parametrize("make, held", [(lambda: write_closure, lambda: CAPTURED),
                                        (lambda: write_attribute, lambda: HELD.value)],
                         ids=["closure", "attribute"])
def test_a_write_to_a_tensor_from_outside_is_refused(make, held):
    # MindSpore 2.10 hands these writes back (CAPTURED -> [2, 3, 4], HELD.value -> [6, 2, 3])
    with pytest.raises(GraphModeError, match="reads from outside"):
        ms.jit(make())(t(0, 0, 0))
    check(held(), [1, 2, 3])    # still a concrete Tensor with its value (it used to hold a traced one)


def test_a_write_to_a_cells_tensor_attribute_is_refused():
    net = Buffered()
    with pytest.raises(GraphModeError, match="reads from outside"):
        ms.jit(net)(t(0, 0, 0))   # MindSpore 2.10: [2, 3, 4], buf -> [2, 3, 4]
    check(net.buf, [1, 2, 3])


def test_a_tensor_made_inside_may_be_written():
    @ms.jit
    def f(x):
        mask = ms.Tensor(np.zeros(3, np.float32))
        mask[1] = 1
        mask.add_(1)
        return x * mask

    check(f(t(1, 2, 3)), [1, 4, 3])
