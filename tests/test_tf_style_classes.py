"""ops.STFT, ops.FractionalMaxPool and ops.FractionalAvgPool (graphcell/ops/tf_style_classes.py)
against numpy references and values measured on MindSpore 2.10's CPU build."""
import numpy as np
import pytest

import graphcell as gc
from graphcell import Tensor, ops
from graphcell.ops.tf_style_classes import pool_along

SIGNAL = np.sin(np.arange(16, dtype=np.float32))
HANN = np.hanning(8).astype(np.float32)
PLANE = np.arange(1 * 6 * 7 * 2, dtype=np.float32).reshape(1, 6, 7, 2)   # NHWC


def test_stft_class_matches_measured_values_and_functional():
    y = ops.STFT(8, 2, 8, False, True, True)(Tensor(SIGNAL), Tensor(HANN)).asnumpy()
    assert y.shape == (5, 5) and y.dtype == np.complex64
    # measured on MindSpore 2.10: ops.STFT(8, 2, 8, False, True, True)(sin(arange(16)), hanning(8))[:3, :3]
    measured = np.array([[-0.50972 + 0j, -1.02522 + 0j, 1.363 + 0j],
                         [1.15097 - 1.22975j, 0.64489 + 1.55852j, -1.6877 - 0.0674j],
                         [-1.22255 + 0.56187j, 0.01077 - 1.3396j, 1.21358 + 0.55307j]])
    np.testing.assert_allclose(y[:3, :3], measured, atol=2e-5)
    frames = np.stack([SIGNAL[2 * i:2 * i + 8] * HANN for i in range(5)])
    np.testing.assert_allclose(y, np.fft.rfft(frames, axis=-1).T, atol=1e-5)
    # measured shapes: real view, batch with a short window and normalized, two-sided
    real = ops.STFT(8, 2, 8, False, True, False)(Tensor(SIGNAL), Tensor(HANN))
    assert real.shape == (5, 5, 2) and real.dtype == gc.float32
    batch = ops.STFT(8, 2, 6, True, True, True)(Tensor(SIGNAL.reshape(1, 16).repeat(2, 0)), Tensor(np.ones(6, np.float32)))
    assert batch.shape == (2, 5, 5)
    frames6 = np.stack([SIGNAL[2 * i:2 * i + 8] * np.pad(np.ones(6), 1) for i in range(5)])
    np.testing.assert_allclose(batch.asnumpy()[1], np.fft.rfft(frames6, axis=-1, norm="ortho").T, atol=1e-5)
    assert ops.STFT(8, 2, 8, False, False, True)(Tensor(SIGNAL), Tensor(HANN)).shape == (8, 5)


def test_stft_class_errors_are_mindsporess():
    with pytest.raises(ValueError, match=r"For primitive\[STFT\], the input number must be equal to 2, but got 1"):
        ops.STFT(8, 2, 8, False, True, True)(Tensor(SIGNAL))
    with pytest.raises(TypeError, match="For 'STFT', the type of 'onesided' should be 'bool', but got type 'NoneType'"):
        ops.STFT(8, 2, 8, False, None, True)
    with pytest.raises(TypeError, match="For 'STFT', the type of 'n_fft' should be 'int', but got type 'float'"):
        ops.STFT(8.0, 2, 8, False, True, True)
    with pytest.raises(ValueError, match=r"the window_shape must be equal to 8, but got 7"):
        ops.STFT(8, 2, 8, False, True, True)(Tensor(SIGNAL), Tensor(np.ones(7, np.float32)))
    with pytest.raises(ValueError, match=r"the n_fft must be in \(0,16\], but got 20"):
        ops.STFT(20, 2, 8, False, True, True)(Tensor(SIGNAL), Tensor(HANN))


def _pool_reference(x, rows, cols, overlapping, average):
    extra = 1 if overlapping else 0
    out = np.zeros((x.shape[0], len(rows) - 1, len(cols) - 1, x.shape[3]), x.dtype)
    for i in range(len(rows) - 1):
        for j in range(len(cols) - 1):
            win = x[:, rows[i]:rows[i + 1] + extra, cols[j]:cols[j + 1] + extra]
            out[:, i, j] = win.mean((1, 2)) if average else win.max((1, 2))
    return out


# measured on MindSpore 2.10 (channel 0 of PLANE, pooling_ratio [1, 1.5, 1.4, 1]): the sequences
# it drew and its outputs for them
MS_ROWS, MS_COLS = [0, 1, 2, 4, 6], [0, 1, 3, 4, 5, 7]
MS_POOLED = {
    (False, False): [[0, 4, 6, 8, 12], [14, 18, 20, 22, 26], [42, 46, 48, 50, 54], [70, 74, 76, 78, 82]],
    (False, True): [[16, 20, 22, 24, 26], [30, 34, 36, 38, 40], [58, 62, 64, 66, 68], [72, 76, 78, 80, 82]],
    (True, False): [[0, 3, 6, 8, 11], [14, 17, 20, 22, 25], [35, 38, 41, 43, 46], [63, 66, 69, 71, 74]],
    (True, True): [[8, 11, 14, 16, 18], [22, 25, 28, 30, 32], [43, 46, 49, 51, 53], [64, 67, 70, 72, 74]],
}


def test_pooling_given_the_sequences_matches_mindspore_and_numpy():
    @gc.jit
    def every(x, rows, cols):
        outs = []
        for average in (False, True):
            for overlapping in (False, True):
                y = pool_along(x, rows, 1, 6, 4, overlapping, average)
                outs.append(pool_along(y, cols, 2, 7, 5, overlapping, average))
        return tuple(outs)
    got = every(Tensor(PLANE), Tensor(np.array(MS_ROWS, np.int64)), Tensor(np.array(MS_COLS, np.int64)))
    for y, key in zip(got, MS_POOLED):
        np.testing.assert_allclose(y.asnumpy()[0, :, :, 0], MS_POOLED[key])
        np.testing.assert_allclose(y.asnumpy(), _pool_reference(PLANE, MS_ROWS, MS_COLS, key[1], key[0]), rtol=1e-6)


def _check_sequence(seq, n, out):
    seq = seq.asnumpy()
    assert seq.dtype == np.int64 and seq.shape == (out + 1,)
    assert seq[0] == 0 and seq[-1] == n
    assert set(np.diff(seq)) <= {n // out, n // out + 1}


@pytest.mark.parametrize("pseudo_random", [False, True])
def test_classes_draw_valid_sequences_and_pool_by_them(pseudo_random):
    x = np.random.RandomState(0).randn(2, 11, 9, 3).astype(np.float32)
    ratios = [1.0, 1.7, 1.3, 1.0]
    for seed in (1, 2, 3):
        for cls, average in ((ops.FractionalMaxPool, False), (ops.FractionalAvgPool, True)):
            for overlapping in (False, True):
                y, rows, cols = cls(ratios, pseudo_random, overlapping, True, seed, 5)(Tensor(x))
                assert y.shape == (2, 6, 6, 3) and y.dtype == gc.float32
                _check_sequence(rows, 11, 6)
                _check_sequence(cols, 9, 6)
                np.testing.assert_allclose(y.asnumpy(), _pool_reference(x, rows.asnumpy(), cols.asnumpy(),
                                                                        overlapping, average), rtol=1e-5, atol=1e-6)
    op = ops.FractionalMaxPool(ratios, pseudo_random, deterministic=True, seed=7)
    first, second = op(Tensor(x)), op(Tensor(x))
    np.testing.assert_array_equal(first[1].asnumpy(), second[1].asnumpy())


def test_fractional_pool_jit_dtypes_and_even_split():
    x = np.arange(1 * 6 * 7 * 2).reshape(1, 6, 7, 2).astype(np.int32)
    pool = ops.FractionalAvgPool([1.0, 1.5, 1.4, 1.0])
    y, rows, cols = gc.jit(lambda a: pool(a))(Tensor(x))
    assert y.dtype == gc.int32 and y.shape == (1, 4, 5, 2)
    _check_sequence(rows, 6, 4)
    _check_sequence(cols, 7, 5)
    ref = _pool_reference(x.astype(np.float64), rows.asnumpy(), cols.asnumpy(), False, True)
    np.testing.assert_array_equal(y.asnumpy(), ref.astype(np.int32))     # an integer mean truncates
    _, rows, cols = ops.FractionalMaxPool([1.0, 2.0, 1.0, 1.0])(Tensor(x))
    np.testing.assert_array_equal(rows.asnumpy(), [0, 2, 4, 6])
    np.testing.assert_array_equal(cols.asnumpy(), np.arange(8))


def test_fractional_pool_errors_are_mindsporess():
    with pytest.raises(TypeError, match="For 'FractionalMaxPool', the type of 'pooling_ratio' should be 'list', but "
                                        "got type 'tuple'"):
        ops.FractionalMaxPool((1.0, 1.5, 1.5, 1.0))
    with pytest.raises(ValueError, match="the first element of parameter 'pooling_ratio' must be 1.0, but got "
                                         "1.500000"):
        ops.FractionalAvgPool([1.5, 1.5, 1.5, 1.0])
    with pytest.raises(ValueError, match="the second element of pooling ratio must be greater than or equal to 1.0"):
        ops.FractionalMaxPool([1.0, 0.5, 1.5, 1.0])
    with pytest.raises(TypeError, match="the type of 'pooling_ratio_item' should be 'float', but got type 'int'"):
        ops.FractionalMaxPool([1.0, 2, 2, 1.0])
    with pytest.raises(ValueError, match="both 'seed' and 'seed2' must be 0 if 'deterministic' is false"):
        ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0], seed=1)(Tensor(PLANE))
    with pytest.raises(ValueError, match=r"For 'FractionalMaxPool', outputsize\[1\] cannot be 0"):
        ops.FractionalMaxPool([1.0, 8.0, 1.5, 1.0])(Tensor(PLANE))
    with pytest.raises(TypeError, match=r"For primitive\[FractionalAvgPool\], the input argument\[x\] must be a type "
                                        r"of \{Tensor\[Float32\], Tensor\[Float64\], Tensor\[Int32\], Tensor\[Int64\]\}"):
        ops.FractionalAvgPool([1.0, 1.5, 1.5, 1.0])(Tensor(PLANE.astype(np.float16)))
    with pytest.raises(ValueError, match=r"the input_rank must be equal to 4, but got 3"):
        ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0])(Tensor(PLANE[0]))
