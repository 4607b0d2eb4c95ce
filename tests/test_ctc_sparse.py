"""ops.CTCLoss (v1, sparse labels; ops/ctc_sparse.py) against MindSpore 2.10's numbers (measured):
losses for each option, the gradient it returns, dtypes and errors."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops

X = np.random.RandomState(0).randn(5, 2, 4).astype(np.float32)   # [T, N, C], the blank is class 3
INDICES = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], np.int64)
VALUES = np.array([1, 1, 2, 0, 2], np.int32)   # sample 0: [1, 1, 2] (a repeat), sample 1: [0, 2]
LENGTHS = np.array([5, 4], np.int32)

# measured on MindSpore 2.10 (CPU), float32
LOSSES = {(False, True): [7.5774102210998535, 2.7122645378112793],
          (True, True): [4.803096771240234, 2.7122645378112793],
          (False, False): [6.597736835479736, 4.261709213256836],
          (True, False): [5.669244289398193, 4.261709213256836]}
GRADIENT = [  # default options
    [[0.300968, -0.859756, 0.137234, 0.421555], [-0.31791, 0.036558, 0.251201, 0.030151]],
    [[0.114955, 0.118823, 0.147201, -0.380979], [-0.10729, 0.181437, -0.041642, -0.032506]],
    [[0.630782, -0.782812, 0.19363, -0.0416], [0.009637, 0.396382, -0.417483, 0.011464]],
    [[0.821013, -0.136635, -0.560924, -0.123455], [0.399066, 0.374543, -0.366261, -0.407348]],
    [[0.169724, 0.056892, -0.303705, 0.077089], [0.0, 0.0, 0.0, 0.0]]]   # sample 1 ends at frame 4
GRADIENT_UNMERGED_FRAME_1 = [[0.114955, -0.443154, 0.147201, 0.180998], [0.198393, 0.181437, 0.112531, -0.492362]]


def _run(x=X, indices=INDICES, values=VALUES, lengths=LENGTHS, **options):
    return ops.CTCLoss(**options)(Tensor(x), Tensor(indices), Tensor(values), Tensor(lengths))


@pytest.mark.parametrize("collapse, merge", list(LOSSES))
def test_ctc_loss_v1_matches_mindspore(collapse, merge):
    loss, gradient = _run(preprocess_collapse_repeated=collapse, ctc_merge_repeated=merge)
    assert loss.dtype == gradient.dtype == ms.float32 and gradient.shape == (5, 2, 4)
    np.testing.assert_allclose(loss.asnumpy(), LOSSES[collapse, merge], rtol=1e-5)
    if (collapse, merge) == (False, True):
        np.testing.assert_allclose(gradient.asnumpy(), GRADIENT, atol=2e-6)
    if (collapse, merge) == (False, False):
        np.testing.assert_allclose(gradient.asnumpy()[1], GRADIENT_UNMERGED_FRAME_1, atol=2e-6)


def test_ctc_loss_v1_reads_labels_in_order_per_sample_and_under_jit():
    # 2.10 reads the labels of a sample in order; the position column is not read ([0, 2] is 2nd)
    loss, _ = _run(indices=np.array([[0, 0], [0, 2], [1, 0]], np.int64), values=np.array([1, 2, 0], np.int32))
    np.testing.assert_allclose(loss.asnumpy(), [4.803097, 4.8640137], rtol=1e-5)   # measured on 2.10
    jitted = ms.jit(lambda x: ops.CTCLoss()(x, Tensor(INDICES), Tensor(VALUES), Tensor(LENGTHS)))
    np.testing.assert_allclose(jitted(Tensor(X))[0].asnumpy(), LOSSES[False, True], rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_ctc_loss_v1_keeps_the_dtype(dtype):
    loss, gradient = _run(x=X.astype(dtype))
    assert loss.dtype == gradient.dtype == (ms.float16 if dtype is np.float16 else ms.float64)
    np.testing.assert_allclose(loss.asnumpy().astype(np.float64), [7.57741022, 2.71226454],
                               rtol=1e-3 if dtype is np.float16 else 1e-7)   # 2.10: float16 [7.574, 2.713]


def test_ctc_loss_v1_errors_as_mindspore():
    with pytest.raises(RuntimeError, match=r"For 'CTCLoss, input time\(sequence length\) must be greater than "
                                           r"output size\(label length\), but got sequence length: 2 and label "
                                           r"length: 3"):
        _run(lengths=np.array([2, 4], np.int32))
    with pytest.raises(TypeError, match=r"For primitive\[CTCLoss\], the input argument\[labels_indices\] must be "
                                        r"a type of \{Tensor\[Int64\]\}, but got Tensor\[Int32\]\."):
        _run(indices=INDICES.astype(np.int32))
