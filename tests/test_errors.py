"""The bad-input catalogue: each user mistake gets an error in the user's terms (the Cell
path, the argument, the file) and what to do, never a bare jax traceback. One test per row;
README's troubleshooting table lists the same rows."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from tests.models.lenet import LeNet5


def x_of(*shape, dtype=np.float32):
    return Tensor(np.zeros(shape, dtype))


@pytest.mark.parametrize("call", ["eager", "jit"])
def test_wrong_input_rank_names_the_cell_and_shape(call):
    net = LeNet5()
    fn = ms.jit(net) if call == "jit" else net
    with pytest.raises(ValueError, match=r"Conv2d 'conv1': expected a 4-D input \[N, C, H, W\], got shape \[1, 32, 32\]"):
        fn(x_of(1, 32, 32))


def test_wrong_channel_count_names_the_cell_and_both_sizes():
    with pytest.raises(ValueError, match=r"Conv2d 'conv1': expected input \(in_channels=1\) with 1 at axis 1, "
                                         r"got shape \[2, 3, 32, 32\] \(3\)"):
        LeNet5()(x_of(2, 3, 32, 32))


def test_too_small_image_names_the_dense_layer():
    with pytest.raises(ValueError, match=r"Dense 'fc1': expected input \(in_channels=400\)"):
        LeNet5()(x_of(2, 1, 28, 28))


def test_dtype_mismatch_names_the_cell_and_the_fix():
    with pytest.raises(TypeError, match=r"Conv2d 'conv1': input .* has dtype Float64 but the parameters are "
                                        r"Float32; cast it with x.astype\(graphcell.float32\)"):
        LeNet5()(x_of(1, 1, 32, 32, dtype=np.float64))


def test_non_tensor_argument():
    with pytest.raises(TypeError, match="Conv2d 'conv1': input .* must be a Tensor, got list"):
        LeNet5()([[0.0]])


def test_op_shape_error_names_the_cell_scope():
    class Bad(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def construct(self, x):
            return self.inner(x)

    class Inner(nn.Cell):
        def construct(self, x):
            return x + ms.ops.ones((5,))

    with pytest.raises(ValueError, match=r"in Cell 'inner': add\(f32\[2,3\], f32\[5\]\).*cannot be broadcast"):
        ms.jit(Bad())(x_of(2, 3))


def _helper_with_python_branch(x):
    return x if x.sum() > 0 else -x  # a conditional expression: not rewritten into a cond


def test_python_branch_on_traced_tensor():
    @ms.jit
    def f(x):
        return _helper_with_python_branch(x)
    with pytest.raises(RuntimeError, match="graph mode"):
        f(x_of(2))


def test_leaked_traced_tensor():
    store = []

    @ms.jit
    def f(x):
        store.append(x * 2)
        return x

    f(x_of(2))
    with pytest.raises(RuntimeError, match="a Tensor from a finished trace was used outside it"):
        store[0] + 1


def test_reshape_size_mismatch():
    with pytest.raises(ValueError, match=r"reshape: cannot reshape \[2, 3\] to \[4, -1\]"):
        x_of(2, 3).reshape(4, -1)


def test_axis_out_of_range():
    with pytest.raises(ValueError, match=r"axis 3 is out of range for a tensor of rank 2"):
        x_of(2, 3).sum(axis=3)


def test_unknown_activation_lists_known_ones():
    with pytest.raises(KeyError, match="unknown activation 'rleu'; known: .*relu"):
        nn.Dense(2, 2, activation="rleu")


def test_set_context_rejects_bad_values():
    with pytest.raises(ValueError, match="backend must be 'xla' or 'onnx'"):
        ms.set_context(backend="tpu")
