"""The direct CPU lowering of convolutions with few input channels per group
(ops/cpu_conv.py): values against jax's own convolution (lax.conv_general_dilated, XLA's
kernel) across strides, padding (negative too, as strided convolutions' gradients make),
input and kernel dilation, groups, 1-D and 3-D, float16 and integers; gradients through the
grad pass against jax.grad; and the lowering itself: such a convolution leaves no
convolution in the CPU program, a wider one keeps XLA's."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor
from graphcell.ops import cpu_conv, nn_prims

RNG = np.random.default_rng(11)


def _reference(x, w, attrs):
    spatial = "DHW"[3 - (x.ndim - 2):]
    dn = ("NC" + spatial, "OI" + spatial, "NC" + spatial)
    return jax.lax.conv_general_dilated(
        x, w, attrs["strides"], attrs["padding"], attrs["lhs_dilation"], attrs["rhs_dilation"],
        dimension_numbers=dn, feature_group_count=attrs["groups"], precision="highest",
        preferred_element_type=x.dtype)


def _attrs(nsp, strides=1, padding=(0, 0), lhs=1, rhs=1, groups=1):
    return dict(strides=(strides,) * nsp, padding=(padding,) * nsp, lhs_dilation=(lhs,) * nsp,
                rhs_dilation=(rhs,) * nsp, groups=groups, batch_groups=1)


CASES = {
    # name: x shape, w shape, attrs
    "lenet conv1": ((4, 1, 16, 16), (6, 1, 5, 5), _attrs(2)),
    "rgb stem, same": ((3, 3, 10, 9), (8, 3, 3, 3), _attrs(2, padding=(1, 1))),
    "strided, padded": ((2, 1, 11, 12), (5, 1, 3, 3), _attrs(2, strides=2, padding=(1, 2))),
    "kernel dilation": ((2, 2, 13, 13), (4, 2, 3, 3), _attrs(2, rhs=2)),
    "input dilation, negative padding": ((2, 1, 7, 7), (3, 1, 3, 3), _attrs(2, padding=(-1, 2), lhs=2)),
    "depthwise": ((2, 6, 9, 9), (12, 1, 3, 3), _attrs(2, padding=(1, 1), groups=6)),
    "grouped, 2 channels each": ((2, 4, 8, 8), (6, 2, 3, 3), _attrs(2, groups=2)),
    "conv1d": ((3, 2, 20), (4, 2, 7), _attrs(1, strides=3, padding=(2, 1))),
    "conv3d": ((2, 1, 5, 6, 7), (3, 1, 2, 3, 3), _attrs(3, padding=(1, 0))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_direct_convolution_equals_xla_convolution(name):
    x_shape, w_shape, attrs = CASES[name]
    assert cpu_conv.has_direct_form(w_shape, 1)
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)
    got = ms.jit(lambda a, b: nn_prims.conv.bind(a, b, **attrs))(Tensor(x), Tensor(w)).asnumpy()
    np.testing.assert_allclose(got, _reference(x, w, attrs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["lenet conv1", "strided, padded", "depthwise", "conv1d"])
def test_gradients_through_a_direct_convolution_equal_jax_grad(name):
    x_shape, w_shape, attrs = CASES[name]
    x = RNG.standard_normal(x_shape).astype(np.float32)
    w = RNG.standard_normal(w_shape).astype(np.float32)

    def loss(a, b):
        return ms.ops.sum(ms.ops.tanh(nn_prims.conv.bind(a, b, **attrs)))

    gx, gw = ms.jit(ms.grad(loss, grad_position=(0, 1)))(Tensor(x), Tensor(w))
    want = jax.grad(lambda a, b: jnp.sum(jnp.tanh(_reference(a, b, attrs))), argnums=(0, 1))(x, w)
    np.testing.assert_allclose(gx.asnumpy(), want[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), want[1], rtol=1e-4, atol=1e-4)


def test_half_precision_accumulates_in_float32_and_integers_stay_exact():
    x_shape, w_shape, attrs = CASES["rgb stem, same"]
    x = RNG.standard_normal(x_shape).astype(np.float16)
    w = RNG.standard_normal(w_shape).astype(np.float16)
    got = nn_prims.conv.bind(Tensor(x), Tensor(w), **attrs).asnumpy()
    assert got.dtype == np.float16
    want = _reference(x.astype(np.float32), w.astype(np.float32), attrs).astype(np.float16)
    np.testing.assert_allclose(got.astype(np.float32), np.asarray(want, np.float32), rtol=2e-3, atol=2e-3)
    xi = RNG.integers(-3, 4, x_shape).astype(np.int32)
    wi = RNG.integers(-3, 4, w_shape).astype(np.int32)
    np.testing.assert_array_equal(nn_prims.conv.bind(Tensor(xi), Tensor(wi), **attrs).asnumpy(),
                                  _reference(xi, wi, attrs))


def _cpu_program(x_shape, w_shape, attrs) -> str:
    x = jnp.zeros(x_shape, jnp.float32)
    w = jnp.zeros(w_shape, jnp.float32)
    return jax.jit(lambda a, b: nn_prims._conv_impl(a, b, **attrs)).lower(x, w).as_text()


def test_the_cpu_program_of_a_narrow_convolution_has_no_convolution_and_a_wide_one_keeps_it():
    if jax.default_backend() != "cpu":
        pytest.skip("the direct form is the CPU's lowering")
    x_shape, w_shape, attrs = CASES["lenet conv1"]
    assert "convolution" not in _cpu_program(x_shape, w_shape, attrs)
    # LeNet5's conv2: 6 channels x 25 offsets, past DIRECT_MAX_TERMS, stays XLA's.
    assert not cpu_conv.has_direct_form((16, 6, 5, 5), 1)
    assert "convolution" in _cpu_program((4, 6, 14, 14), (16, 6, 5, 5), _attrs(2))
    # A weight gradient's batch-grouped convolution is never direct.
    assert not cpu_conv.has_direct_form((6, 1, 5, 5), 2)
