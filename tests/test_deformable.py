"""ops.DeformableOffsets and ops.deformable_conv2d against values, gradients and messages measured
on MindSpore 2.10 (CPU) and a per-point numpy reference; jit, vmap and ONNX against eager."""
import numpy as np
import pytest

import graphcell as ms
import graphcell.ops as ops
from graphcell import Tensor


def _bilinear(img, y, x):
    """img sampled at (y, x); a corner pixel outside reads zero."""
    h, w = img.shape
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    total = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += wy * wx * img[yy, xx]
    return total


def _offsets_reference(x, off, strides, pads, ksize, dil, dg):
    """DeformableOffsets point by point: offsets hold every dx, then every dy, then every mask."""
    n, c, h, w = x.shape
    kh, kw = ksize
    ho, wo = off.shape[2:]
    k = kh * kw
    out = np.zeros((n, c, ho * kh, wo * kw))
    for b, ch, oh, ow, i, j in np.ndindex(n, c, ho, wo, kh, kw):
        g, p = ch // (c // dg), i * kw + j
        dx, dy, m = (off[b, part * dg * k + g * k + p, oh, ow] for part in range(3))
        y = oh * strides[2] - pads[0] + i * dil[2] + dy
        xx = ow * strides[3] - pads[2] + j * dil[3] + dx
        out[b, ch, oh * kh + i, ow * kw + j] = m * _bilinear(x[b, ch], y, xx)
    return out


# measured on MindSpore 2.10: 2 deformable groups, stride 2 in H, pads (1, 0, 0, 1), dilation 2 in W
DO_MEASURED = [-0.05285, 0.4632, 0., 0., 0.10371, -0.00087, 0., -0.1624, -0.08389, -0.17879, 0.18708, 0., 1.6373,
               1.61449, -1.97322, -0.56218, 1.30676, 0., -0.52195, -0.8882, 0., 0., 0., 0., 0., 0., -0.41222, -0.00805,
               0., -0.05186, -0.03639, 0.21789, -0.01289, -0.11405, -0.00162, 0., 0.22805, -0.01291, 0.02516, 0.01468,
               0.03113, 2.01841, -0.27094, 0.30061, -0.07629, 0.81703, -0.85598, 0.]


def test_deformable_offsets_matches_mindspore_and_the_reference():
    rng = np.random.RandomState(8)
    x = rng.randn(1, 2, 4, 4).astype(np.float32)
    off = rng.randn(1, 24, 2, 3).astype(np.float32)
    args = ((1, 1, 2, 1), (1, 0, 0, 1), (2, 2), (1, 1, 1, 2))
    op = ops.DeformableOffsets(*args, deformable_groups=2)
    got = ms.jit(lambda a, b: op(a, b))(Tensor(x), Tensor(off)).asnumpy()
    assert got.shape == (1, 2, 4, 6) and got.dtype == np.float32
    np.testing.assert_allclose(got.ravel(), DO_MEASURED, atol=2e-5)
    np.testing.assert_allclose(got, _offsets_reference(x, off, *args, 2), atol=2e-6)


# measured on MindSpore 2.10: deformable_conv2d(x, w, off, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), bias=[0.5]),
# x [1, 2, 3, 3], w [1, 2, 2, 2], off [1, 12, 2, 2] from RandomState(7); the gradients of the output's sum
DC_Y = [0.66884, 0.63824, 0.59182, -0.32392]
DC_GX = [0.02006, -0.06732, 0.33384, -0.69167, -0.44003, 0.33467, -0.21733, -0.11904, -0.69256, -0.02263, 0.12317,
         -0.47779, -0.21936, 0.07142, -0.72457, -0.06565, -0.18333, -0.83113]
DC_GW = [-0.16896, -0.12088, -0.33768, 0.42606, 0.07718, 0.05864, -0.06294, 0.1127]
DC_GOFF = [-0.00497, 0., 0.00418, 0.04401, -0.05976, 0., 0.19151, -0.39558, 0., 2.29784, 0., 1.47657, -0.50834, 0.0323,
           -0.02164, 0.75455, 0.01777, 0., -0.04143, -0.31089, -0.16217, 0., 0.44826, 0.04032, 0., 0.9856, 0., 1.0629,
           0.03451, 0.03514, -0.001, 0.30508, 0.03117, 0., 0.03276, 0.03211, -0.53136, 0., -0.17428, -0.20652, 0.,
           -0.22846, 0., 0.67326, 0.07937, 0.35962, 0.34133, -0.10572]


def _dc_case():
    rng = np.random.RandomState(7)
    x = rng.randn(1, 2, 3, 3).astype(np.float32)
    w = rng.randn(1, 2, 2, 2).astype(np.float32)
    off = rng.randn(1, 12, 2, 2).astype(np.float32)
    return Tensor(x), Tensor(w), Tensor(off)


def _dc(x, w, off):
    return ops.deformable_conv2d(x, w, off, (2, 2), (1, 1, 1, 1), (0, 0, 0, 0), bias=Tensor(np.array([0.5], np.float32)))


def test_deformable_conv2d_values_and_gradients_match_mindspore():
    x, w, off = _dc_case()
    np.testing.assert_allclose(ms.jit(_dc)(x, w, off).asnumpy().ravel(), DC_Y, atol=2e-5)
    gx, gw, goff = ms.jit(ms.grad(lambda a, b, c: _dc(a, b, c).sum(), (0, 1, 2)))(x, w, off)   # one compile
    for got, want in ((gx, DC_GX), (gw, DC_GW), (goff, DC_GOFF)):
        np.testing.assert_allclose(got.asnumpy().ravel(), want, atol=2e-5)


def test_vmap_and_onnx_match_the_reference():
    x, w, off = _dc_case()
    np.testing.assert_allclose(ms.jit(_dc, backend="onnx")(x, w, off).asnumpy().ravel(), DC_Y, atol=2e-5)
    # three members, each its own offsets: against the per-point reference and a numpy convolution
    offs = np.stack([off.asnumpy(), off.asnumpy() * 0.5, -off.asnumpy()])
    batched = ms.jit(ms.vmap(lambda o: _dc(x, w, o)))(Tensor(offs)).asnumpy()
    for member, o in zip(batched, offs):
        sampled = _offsets_reference(x.asnumpy(), o, (1, 1, 1, 1), (0, 0, 0, 0), (2, 2), (1, 1, 1, 1), 1)
        windows = sampled.reshape(1, 2, 2, 2, 2, 2).transpose(0, 2, 4, 1, 3, 5)   # [n, oh, ow, c, i, j]
        want = np.einsum("nhwcij,ocij->nohw", windows, w.asnumpy()) + 0.5
        np.testing.assert_allclose(member, want, atol=1e-5)


def _bad(**changes):
    x, off = Tensor(np.ones((1, 4, 5, 5), np.float32)), Tensor(np.zeros((1, 27, 3, 3), np.float32))
    args = dict(x=x, weight=Tensor(np.ones((2, 4, 3, 3), np.float32)), offsets=off, kernel_size=(3, 3),
                strides=(1, 1, 1, 1), padding=(0, 0, 0, 0))
    args.update(changes)
    return lambda: ops.deformable_conv2d(**args)


# messages measured on MindSpore 2.10
ERRORS = [
    (_bad(strides=(1, 1)), ValueError, r"the 'strides size' must be int and must = 4, but got '2' with type 'int'"),
    (_bad(strides=1), TypeError, r"the type of 'strides' should be 'tuple', but got type 'int'"),
    (_bad(strides=(2, 1, 1, 1)), ValueError, r"The N and C dimensions of 'strides' must be set to 1"),
    (_bad(padding=(0, 0, -1, 0)), ValueError, r"the element of 'pads' should not be negative number, but got -1"),
    (_bad(kernel_size=3), TypeError, r"the type of 'kernel_size' should be 'tuple', but got type 'int'"),
    (_bad(kernel_size=(2, 2)), ValueError, r"'C_in' of input 'offsets' shape must be equal to 3 \* kernel_height \* "
     r"kernel_width \* deformable_groups, but got 'C_in' of input 'offsets' shape: 27, kernel_height: 2"),
    (_bad(deformable_groups=3), ValueError, r"'C_in' of input 'x' shape must be divisible by 'deformable_groups', "
     r"but got 'C_in' of input 'x' shape: 4, and 'deformable_groups': 3"),
    (_bad(deformable_groups=0), ValueError, r"the 'deformable_groups' must be int and must > 0, but got '0'"),
    (_bad(modulated=False), ValueError, r"The modulated must be set to True"),
    (_bad(offsets=Tensor(np.zeros((1, 27, 4, 4), np.float32))), ValueError,
     r"But got H and W dims of offsets input: \(4, 4\), computed H and W dims of the output of deformable_conv2d: "
     r"\(3, 3\)"),
    (_bad(x=Tensor(np.ones((1, 4, 5, 5))), offsets=Tensor(np.zeros((1, 27, 3, 3)))), TypeError, r"the input argument\[offsets\] must be a type of "
     r"\{Tensor\[Float16\], Tensor\[Float32\]\}"),
    (_bad(x=Tensor(np.ones((4, 5, 5), np.float32))), ValueError, r"the x shape size must be equal to 4, but got 3"),
]


@pytest.mark.parametrize("call, kind, message", ERRORS)
def test_errors_are_mindspores(call, kind, message):
    with pytest.raises(kind, match=message):
        call()
