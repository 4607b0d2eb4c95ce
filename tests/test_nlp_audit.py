"""Differences from MindSpore 2.10 found by the sequence/NLP layer audit (session 21). Expected
values were measured on MindSpore 2.10 (CPU) with the same calls; torch agrees where named."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn

LOG_PROBS = np.log(np.random.RandomState(1).dirichlet(np.ones(5), (6, 2))).astype(np.float32)


@pytest.mark.slow   # ~6 s: three CTC scans and a vjp compiled
def test_ctc_loss_takes_one_unbatched_sample_and_an_impossible_target_has_a_nan_gradient():
    lp = Tensor(LOG_PROBS)
    three, six = (Tensor(np.array([v], np.int32)) for v in (3, 6))
    target = Tensor(np.array([1, 2, 2], np.int32))
    impossible = Tensor(np.array([[1, 1, 1], [3, 1, 0]], np.int32))   # [1, 1, 1] needs 5 frames, has 3
    lengths, target_lengths = Tensor(np.array([3, 5], np.int32)), Tensor(np.array([3, 2], np.int32))

    def run(log_probs):
        unbatched = [nn.CTCLoss(reduction=r)(log_probs[:, 0], target, six, three) for r in ("none", "mean")]
        loss = nn.CTCLoss(reduction="none")
        loss_inf, grad_inf = ms.value_and_grad(lambda l: loss(l, impossible, lengths, target_lengths).sum())(log_probs)
        return unbatched, loss(log_probs, impossible, lengths, target_lengths), grad_inf
    unbatched, loss_inf, grad_inf = ms.jit(run)(lp)
    # MindSpore 2.10: a scalar whatever the reduction
    assert [u.shape for u in unbatched] == [(), ()]
    np.testing.assert_allclose([u.asnumpy() for u in unbatched], [5.23096, 1.74365], rtol=1e-5)
    np.testing.assert_allclose(loss_inf.asnumpy(), [np.inf, 4.22631], rtol=1e-5)
    # MindSpore 2.10 and torch: NaN over the impossible sample's 3 frames, 0 after them
    g = grad_inf.asnumpy()
    assert np.isnan(g[:3, 0]).all() and (g[3:, 0] == 0).all() and np.isfinite(g[:, 1]).all()
    np.testing.assert_allclose(g[[0, 4], 1], [   # MindSpore 2.10, sample 1's rows 0 and 4
        [0.0113, 0.10273, 0.21131, -0.71109, 0.38575], [-0.02202, -0.19469, 0.09117, 0.08901, 0.03653]], atol=1e-5)


@pytest.mark.parametrize("kwargs,message", [
    (dict(begin_norm_axis=4), "the 'begin_norm_axis' value should be in the range \\[-1, 4\\), but got 4"),
    (dict(begin_norm_axis=-2), "the 'begin_norm_axis' value should be in the range \\[-1, 4\\), but got -2"),
    (dict(begin_norm_axis=2, begin_params_axis=4),
     "the 'begin_params_axis' value should be in the range \\[-1, 4\\), but got 4"),
])
def test_layer_norm_axes_are_checked_against_the_input_when_called(kwargs, message):
    norm = nn.LayerNorm((5,), **kwargs)   # MindSpore 2.10 builds it, and refuses the call
    with pytest.raises(RuntimeError, match="For primitive\\[LayerNorm\\], input_x's rank is 4, while " + message):
        norm(Tensor(np.ones((2, 3, 4, 5), np.float32)))


def test_lstm_and_cross_entropy_refuse_bad_arguments_in_2_10s_words():
    lstm = nn.LSTM(4, 6)
    x = Tensor(np.ones((5, 3, 4), np.float32))
    state = Tensor(np.ones((1, 2, 6), np.float32))
    cases = [   # MindSpore 2.10's messages
        (lambda: lstm(Tensor(np.ones((5, 3, 3), np.float32))), r"For primitive\[LSTM\], the x_shape\[2\] must be "
         r"equal to 4, but got 3\."),
        (lambda: lstm(Tensor(np.ones((5, 4), np.float32))), r"For primitive\[LSTM\], the x_shape.size\(\) must be "
         r"equal to 3, but got 2\."),
        (lambda: lstm(x, (state, state)), r"For primitive\[LSTM\], the h_shape\[1\] must be equal to 3, but got 2\."),
        (lambda: nn.CrossEntropyLoss(label_smoothing=1.5), r"For 'CrossEntropyLoss', the 'label_smoothing' must be "
         r"in range of \[0.0, 1.0\], but got 1.5 with type 'float'\."),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()
