"""nn.PSNR, nn.SSIM and nn.MSSSIM (nn/layer/image_quality.py) against MindSpore 2.10's values
(measured on its CPU build in graph mode, held as literals), an independent float64 numpy/scipy
SSIM, torch's gradient of that formula, a per-image loop under vmap, and onnxruntime."""
import numpy as np
import pytest
import torch
from scipy.signal import correlate2d

import graphcell as ms
from graphcell import nn
from graphcell.api.grad import grad
from graphcell.api.vmap import vmap
from tests.modes import call, run_table

_rs = np.random.RandomState(0)
A = _rs.rand(2, 3, 16, 16).astype(np.float32)
B = np.clip(A + 0.1 * _rs.randn(2, 3, 16, 16).astype(np.float32), 0, 1)
C = _rs.rand(1, 2, 48, 48).astype(np.float32)
D = np.clip(C + 0.1 * _rs.randn(1, 2, 48, 48).astype(np.float32), 0, 1)


def _window(size, sigma):
    taps = np.exp(-((np.arange(size) - (size - 1) // 2) ** 2) / (2 * sigma * sigma))
    taps /= taps.sum()
    return np.outer(taps, taps)


def ssim_reference(x, y, size=11, sigma=1.5, k1=0.01, k2=0.03, max_val=1.0):
    """(SSIM, contrast-structure) per image, in float64 with scipy's correlation."""
    w = _window(size, sigma)
    x, y = x.astype(np.float64), y.astype(np.float64)

    def filt(im):
        return np.array([[correlate2d(p, w, "valid") for p in img] for img in im])
    m1, m2 = filt(x), filt(y)
    s11, s22, s12 = filt(x * x) - m1 * m1, filt(y * y) - m2 * m2, filt(x * y) - m1 * m2
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    cs = (2 * s12 + c2) / (s11 + s22 + c2)
    ssim = (2 * m1 * m2 + c1) / (m1 ** 2 + m2 ** 2 + c1) * cs
    return ssim.mean((1, 2, 3)), cs.mean((1, 2, 3))


def msssim_reference(x, y, powers, size, sigma=1.5, k1=0.01, k2=0.03, max_val=1.0):
    out = 1.0
    for i, p in enumerate(powers):
        ssim, cs = ssim_reference(x, y, size, sigma, k1, k2, max_val)
        out = out * np.maximum(ssim if i == len(powers) - 1 else cs, 0) ** p
        h, w = x.shape[2] // 2 * 2, x.shape[3] // 2 * 2
        x, y = (z[:, :, :h, :w].reshape(z.shape[0], z.shape[1], h // 2, 2, w // 2, 2).mean((3, 5)) for z in (x, y))
    return out


def psnr_reference(x, y, max_val=1.0):
    return 10 * np.log10(max_val ** 2 / ((x.astype(np.float64) - y) ** 2).mean((1, 2, 3)))


# name: (fn, inputs, MindSpore 2.10's values, independent reference)
CASES = {
    "psnr": (nn.PSNR(), (A, B), [20.63612, 20.913584], psnr_reference(A, B)),
    "psnr-max2": (nn.PSNR(2.0), (A, B), [26.65672, 26.934183], psnr_reference(A, B, 2.0)),
    "psnr-f16": (nn.PSNR(), (A.astype(np.float16), B.astype(np.float16)), [20.6361, 20.914152],
                 psnr_reference(A.astype(np.float16), B.astype(np.float16))),
    "psnr-uint8": (nn.PSNR(255), ((A * 255).astype(np.uint8), (B * 255).astype(np.uint8)), [20.639723, 20.911558],
                   psnr_reference((A * 255).astype(np.uint8), (B * 255).astype(np.uint8), 255)),
    "ssim": (nn.SSIM(), (A, B), [0.95577335, 0.94967526], ssim_reference(A, B)[0]),
    "ssim-args": (nn.SSIM(2.0, 7, 1.0, 0.02, 0.04), (A, B), [0.953533, 0.951067],
                  ssim_reference(A, B, 7, 1.0, 0.02, 0.04, 2.0)[0]),
    "ssim-even": (nn.SSIM(filter_size=4), (A, B), [0.94905204, 0.95121163], ssim_reference(A, B, 4)[0]),
    "ssim-one-tap": (nn.SSIM(filter_size=1), (A, B), [0.9040492, 0.9097529], ssim_reference(A, B, 1)[0]),
    "ssim-f16": (nn.SSIM(), (A.astype(np.float16), B.astype(np.float16)), [0.9557843, 0.9496781],
                 ssim_reference(A.astype(np.float16), B.astype(np.float16))[0]),
    "ssim-anti": (nn.SSIM(filter_size=5), (C, 1 - C), [-0.9586054], ssim_reference(C, 1 - C, 5)[0]),
    "msssim-2": (nn.MSSSIM(power_factors=(0.5, 0.5), filter_size=5), (C, D), [0.945085],
                 msssim_reference(C, D, (0.5, 0.5), 5)),
    "msssim-3": (nn.MSSSIM(filter_size=3, power_factors=(0.2, 0.3, 0.5)), (C, D), [0.9381048],
                 msssim_reference(C, D, (0.2, 0.3, 0.5), 3)),
    "msssim-args": (nn.MSSSIM(2.0, [0.3, 0.7], 7, 1.0, 0.02, 0.05), (C, D), [0.9530127],
                    msssim_reference(C, D, (0.3, 0.7), 7, 1.0, 0.02, 0.05, 2.0)),
    "msssim-odd": (nn.MSSSIM(power_factors=(0.5, 0.5), filter_size=5), (C[:, :, :47, :45], D[:, :, :47, :45]),
                   [0.9457244], msssim_reference(C[:, :, :47, :45], D[:, :, :47, :45], (0.5, 0.5), 5)),
    "msssim-relu": (nn.MSSSIM(power_factors=(0.5, 0.5), filter_size=5), (C, 1 - C), [0.0],
                    msssim_reference(C, 1 - C, (0.5, 0.5), 5)),
}


def test_values_match_mindspore_and_reference():
    got = run_table(CASES, CASES, "jit")
    for name, (_, _, measured, reference) in CASES.items():
        np.testing.assert_allclose(got[name], measured, rtol=2e-6 if "psnr" in name else 1e-5, atol=1e-6,
                                   err_msg=name)
        np.testing.assert_allclose(got[name], reference, rtol=1e-4 if "f16" in name else 2e-5, atol=1e-6,
                                   err_msg=name)
        assert got[name].dtype == np.float32


def test_equal_images():
    got = run_table({"psnr": (nn.PSNR(), (A, A)), "ssim": (nn.SSIM(), (A, A))}, ["psnr", "ssim"], "jit")
    assert np.isinf(got["psnr"]).all()                  # 2.10: [inf, inf]
    np.testing.assert_allclose(got["ssim"], [1.0, 1.0], rtol=1e-6)


def test_ssim_onnx_matches_xla():
    ssim = nn.SSIM(filter_size=7)
    np.testing.assert_allclose(call(ssim, "onnx", A, B), call(ssim, "jit", A, B), rtol=1e-6, atol=1e-7)


def _torch_ssim(x, y, size=11, sigma=1.5, c1=1e-4, c2=9e-4):
    w = torch.tensor(_window(size, sigma)).reshape(1, 1, size, size).expand(x.shape[1], 1, size, size)

    def filt(z):
        return torch.nn.functional.conv2d(z, w, groups=x.shape[1])
    m1, m2 = filt(x), filt(y)
    s11, s22, s12 = filt(x * x) - m1 * m1, filt(y * y) - m2 * m2, filt(x * y) - m1 * m2
    return ((2 * m1 * m2 + c1) * (2 * s12 + c2) / ((m1 ** 2 + m2 ** 2 + c1) * (s11 + s22 + c2))).mean((1, 2, 3))


def test_grad_and_vmap():
    ssim = nn.SSIM()

    def both(x, y, xs, ys):
        return grad(lambda a, b: ssim(a, b).sum())(x, y), vmap(ssim)(xs, ys)
    xs, ys = np.stack([A, B]), np.stack([B, A[::-1]])
    g, batched = call(ms.jit(both), "eager", A, B, xs, ys)
    x = torch.tensor(A, dtype=torch.float64, requires_grad=True)
    _torch_ssim(x, torch.tensor(B, dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(g, x.grad.numpy(), rtol=1e-3, atol=1e-6)
    loop = np.stack([ssim_reference(xs[i], ys[i])[0] for i in range(2)])
    np.testing.assert_allclose(batched, loop, rtol=2e-5)


@pytest.mark.parametrize("make, message", [
    (lambda: nn.PSNR(0), "For 'PSNR', the argument 'max_val' must > 0.0, but got 0."),
    (lambda: nn.PSNR(True), "For 'PSNR', the type of 'max_val' should be one of '['int', 'float']', but got type "
                            "'bool'."),
    (lambda: nn.SSIM(filter_size=0), "For 'SSIM', the 'filter_size' must be int and must >= 1, but got '0' with type "
                                     "'int'."),
    (lambda: nn.SSIM(filter_size=2.0), "For 'SSIM', the 'filter_size' must be int, but got 'float'"),
    (lambda: nn.SSIM(filter_sigma=1), "For 'SSIM', the 'filter_sigma' must be float, but got 'int'"),
    (lambda: nn.SSIM(filter_sigma=-1.0), "For 'SSIM', the 'filter_sigma' must be float and must > 0, but got "
                                         "'-1.0' with type 'float'."),
    (lambda: nn.SSIM(k1=1), "For 'SSIM', the type of 'k1' should be 'float', but got type 'int'."),
    (lambda: nn.MSSSIM(power_factors=0.5), "For 'MSSSIM', the type of 'power_factors' should be one of '['tuple', "
                                           "'list']', but got type 'float'."),
    (lambda: nn.MSSSIM(max_val=0), "For 'MSSSIM', the argument 'max_val' must > 0.0, but got 0."),
    (lambda: nn.PSNR()(ms.Tensor(A), ms.Tensor(B[:, :2])),
     "For 'SameTypeShape', the x shape should be = y shape: (2, 2, 16, 16), but got (2, 3, 16, 16)."),
    (lambda: nn.PSNR()(ms.Tensor(A[0]), ms.Tensor(B[0])), "For 'PSNR', the dimension of 'img1' must be 4d, but got 3."),
    (lambda: nn.SSIM()(ms.Tensor(A), ms.Tensor(B.astype(np.float16))),
     "For 'SameTypeShape', the x dtype should be = y dtype: Float16, but got Float32."),
    (lambda: nn.SSIM()(ms.Tensor(A.astype(np.float64)), ms.Tensor(B.astype(np.float64))),
     "For 'SSIM', the 'img1' should be one of [mindspore.float32, mindspore.float16], but got 'mindspore.float64'."),
    (lambda: nn.SSIM(filter_size=17)(ms.Tensor(A), ms.Tensor(B)),
     "For 'SSIM', the img1 shape[2] should be >= filter_size: 17, but got 16."),
    (lambda: nn.SSIM()(ms.Tensor(A[..., :9]), ms.Tensor(B[..., :9])),
     "For 'SSIM', the img1 shape[3] should be >= filter_size: 11, but got 9."),
    (lambda: nn.MSSSIM()(ms.Tensor(C), ms.Tensor(D)), "For 'MSSSIM', the images are too small for 5 scales"),
])
def test_errors(make, message):
    with pytest.raises((TypeError, ValueError)) as info:
        make()
    assert str(info.value).startswith(message)
