"""Regression tests for the differences from MindSpore 2.10 that the session-15 audit of the
most used nn layers (dense, convolutions, pools, normalisations, recurrent layers, attention,
activations) found and fixed. Every literal was measured on MindSpore 2.10 (CPU, PyNative)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops


# -- tracing -----------------------------------------------------------------------------------

def _flatten_nested(o):
    """Recursive, with a loop: converted for graph mode, it must still find itself as a global."""
    if isinstance(o, (tuple, list)):
        out = []
        for item in o:
            out += _flatten_nested(item)
        return out
    return [o]


def test_a_recursive_module_level_function_traces_under_grad():
    def f(x):
        return _flatten_nested(((x * 2,), [x * x]))[1].sum()
    x = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_allclose(ms.grad(f)(Tensor(x)).asnumpy(), 2 * x)   # d/dx sum(x^2)


# -- pooling -----------------------------------------------------------------------------------

def test_avg_pool2d_takes_an_unbatched_chw_input():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) ** 1.5 / 10
    got_pad = nn.AvgPool2d(2, 1, pad_mode="pad", padding=1, count_include_pad=False)(Tensor(x)).asnumpy()
    got_same = nn.AvgPool2d(3, 2, pad_mode="same")(Tensor(x)).asnumpy()
    # measured on MindSpore 2.10 (it raised "expected a 4-D input" here before)
    np.testing.assert_allclose(got_pad[1, 3], [8.944272, 9.28384, 9.971162, 10.674664, 11.030413], rtol=1e-6)
    np.testing.assert_allclose(got_pad[0, 0], [0., 0.05, 0.19142134, 0.401229, 0.5196153], rtol=1e-6)
    np.testing.assert_allclose(got_same, [[[0.6284284, 1.0310445], [1.9187912, 2.533071]],
                                          [[5.854749, 6.741614], [8.322104, 9.316998]]], rtol=1e-6)


# -- Flatten -----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, start, end, expected", [
    ((), 0, -1, (1,)), ((4,), 0, -1, (4,)), ((4,), -1, -1, (4,)), ((2, 3), -2, -1, (6,)), ((2, 3), 1, -1, (2, 3)),
    ((), 1, -1, None), ((4,), 1, -1, None), ((4,), -2, -1, None), ((4,), 0, 1, None), ((2, 3), 2, -1, None)])
def test_flatten_checks_its_dims_against_the_rank(shape, start, end, expected):
    # measured on MindSpore 2.10: a scalar counts as rank 1; the default start_dim=1 refuses a vector
    x = Tensor(np.ones(shape, np.float32))
    if expected is None:
        with pytest.raises(ValueError, match="'start_dim' or 'end_dim' out of range"):
            nn.Flatten(start, end)(x)
    else:
        assert nn.Flatten(start, end)(x).shape == expected


# -- activations on integers -------------------------------------------------------------------

def test_integer_activations_keep_the_dtype():
    x = np.array([-7, -4, -3, -2, -1, 0, 1, 2, 3, 4, 7], np.int32)
    cells = [nn.LeakyReLU(0.2), nn.LeakyReLU(-0.5), nn.LeakyReLU(1.5), nn.LeakyReLU(2.0), nn.LeakyReLU(-2),
             nn.HSwish(), nn.HSigmoid(), nn.Threshold(0.5, -2.5)]

    @ms.jit
    def every_case(t):
        return tuple(c(t) for c in cells) + (ops.leaky_relu(t, 2.0), ops.hardswish(t),
                                             ops.threshold(t.astype(ms.int64), 1, 3))
    outs = every_case(Tensor(x))
    # measured on MindSpore 2.10: the slope and the value truncate to ints, divisions round to zero
    expected = [[0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 7], [0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 7],
                [-7, -4, -3, -2, -1, 0, 1, 2, 3, 4, 7], [-14, -8, -6, -4, -2, 0, 1, 2, 3, 4, 7],
                [14, 8, 6, 4, 2, 0, 1, 2, 3, 4, 7], [0, 0, 0, 0, 0, 0, 0, 1, 3, 4, 7],
                [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1], [-2, -2, -2, -2, -2, -2, 1, 2, 3, 4, 7],
                [-14, -8, -6, -4, -2, 0, 1, 2, 3, 4, 7], [0, 0, 0, 0, 0, 0, 0, 1, 3, 4, 7],
                [3, 3, 3, 3, 3, 3, 3, 2, 3, 4, 7]]
    dtypes = [ms.int32] * 10 + [ms.int64]
    for out, want, dtype in zip(outs, expected, dtypes):
        assert out.dtype == dtype
        np.testing.assert_array_equal(out.asnumpy(), want)


# -- PReLU -------------------------------------------------------------------------------------

def test_prelu_slope_gradient_ignores_the_positive_side_and_nan():
    w = Tensor(np.array([0.25], np.float32))
    both = np.array([[np.inf, -1.0, 2.0], [-np.inf, 0.0, np.nan]], np.float32)
    gx, gw = ms.grad(lambda x, w: ops.prelu(x, w).sum(), grad_position=(0, 1))(Tensor(both), w)
    # measured on MindSpore 2.10: a NaN takes the positive side; +inf adds nothing to the slope's
    np.testing.assert_array_equal(gx.asnumpy(), [[1, 0.25, 1], [0.25, 0.25, 1]])
    np.testing.assert_array_equal(gw.asnumpy(), [-np.inf])
    net = nn.PReLU()
    gx, (gw,) = ms.grad(lambda x: net(x).sum(), grad_position=0, weights=net.trainable_params())(
        Tensor(np.array([[np.inf, -1.0, 2.0]], np.float32)))
    np.testing.assert_array_equal(gx.asnumpy(), [[1, 0.25, 1]])
    np.testing.assert_array_equal(gw.asnumpy(), [-1.0])   # it was NaN (inf * 0)


def test_prelu_channel_mismatch_is_a_value_error():
    with pytest.raises(ValueError, match="the length of 'weight' must be equal to number of channels: 3"):
        nn.PReLU(4)(Tensor(np.ones((2, 3, 2, 2), np.float32)))
