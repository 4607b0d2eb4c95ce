"""nn.SampledSoftmaxLoss: the loss given sampled classes against values measured on MindSpore
2.10 and a numpy reference; the sampler's classes (graphcell's own draws) by their properties."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn

rng = np.random.RandomState(0)   # the same draws as the 2.10 measuring script
W = rng.randn(7, 3).astype(np.float32)
B = rng.randn(7).astype(np.float32)
X = rng.randn(2, 3).astype(np.float32)
LABELS = np.array([[1], [3]], np.int32)


def reference(labels, sampled, true_expected, sampled_expected, remove_hits):
    """TensorFlow's sampled_softmax_loss in numpy."""
    true_logits = np.einsum("bd,bkd->bk", X, W[labels]) + B[labels] - np.log(true_expected)
    sampled_logits = X @ W[sampled].T + B[sampled] - np.log(sampled_expected)
    if remove_hits:
        hit = (labels[:, :, None] == sampled[None, None, :]).any(1)
        sampled_logits = np.where(hit, np.finfo(np.float32).min, sampled_logits)
    logits = np.concatenate([true_logits, sampled_logits], 1).astype(np.float64)
    top = logits.max(1, keepdims=True)
    return np.log(np.exp(logits - top).sum(1)) + top[:, 0] - true_logits.mean(1)


def values(sampled, true_expected, n=2, k=1):
    return (Tensor(np.array(sampled, np.int32)), Tensor(np.full((n, k), true_expected, np.float32)),
            Tensor(np.full(len(sampled), 0.4, np.float32)))


def test_given_sampled_values_match_mindspore():
    args = (Tensor(W), Tensor(B), Tensor(LABELS), Tensor(X))
    loss = nn.SampledSoftmaxLoss(4, 7, sampled_values=values([0, 2, 4, 6], 0.5))
    np.testing.assert_allclose(loss(*args).asnumpy(), [0.07696205, 6.559072], rtol=1e-5)   # 2.10, measured
    # classes 1 and 3 are both sampled and true: 2.10 keeps such hits when it is given the samples
    hits = nn.SampledSoftmaxLoss(4, 7, sampled_values=values([0, 1, 3, 6], 0.5))
    np.testing.assert_allclose(hits(*args).asnumpy(), [0.85969275, 6.580426], rtol=1e-5)
    np.testing.assert_allclose(hits(*args).asnumpy(),
                               reference(LABELS, np.array([0, 1, 3, 6]), 0.5, 0.4, False), rtol=1e-5)
    two = nn.SampledSoftmaxLoss(4, 7, num_true=2, sampled_values=values([0, 1, 3, 6], 0.3, k=2), reduction="sum")
    out = two(Tensor(W), Tensor(B), Tensor(np.array([[1, 5], [3, 2]], np.int64)), Tensor(X))
    assert out.shape == ()
    np.testing.assert_allclose(out.asnumpy(), 2.6914763 + 5.8047657, rtol=1e-5)
    grads = ms.grad(lambda w, b, x: loss(w, b, Tensor(LABELS), x), grad_position=(0, 1, 2))(*args[:2], args[3])
    np.testing.assert_allclose(grads[1].asnumpy(), [0.07195076, -0.07407513, 0.00493035, -0.9985828, 0.00149786,
                                                    0.0, 0.9942789], rtol=1e-4, atol=1e-6)   # 2.10, measured
    np.testing.assert_allclose(grads[2].asnumpy(), [[-0.03843388, -0.11043534, 0.14117259],
                                                    [-0.0935514, -0.99272543, -3.9888]], rtol=1e-4, atol=1e-6)


def test_drawn_classes_and_the_loss_given_them():
    labels = Tensor(LABELS)
    loss = nn.SampledSoftmaxLoss(4, 7, seed=3, reduction="mean")
    sampled, true_expected, sampled_expected = loss.sample(labels)
    s = sampled.asnumpy()
    assert s.shape == (4,) and len(set(s)) == 4 and not set(s) & {1, 3}   # distinct, the true classes avoided
    assert true_expected.shape == (2, 1) and sampled_expected.shape == (4,)
    # the loss reruns the draw: a Cell seeded alike draws the same classes
    again = nn.SampledSoftmaxLoss(4, 7, seed=3, reduction="none")
    out = again(Tensor(W), Tensor(B), labels, Tensor(X)).asnumpy()
    np.testing.assert_allclose(out, reference(LABELS, s, 4 / 7, 4 / 7, True), rtol=1e-5)
    assert loss(Tensor(W), Tensor(B), labels, Tensor(X)).shape == ()
    # more samples than other classes: the true ones are drawn last and masked out of the loss
    crowded = nn.SampledSoftmaxLoss(6, 7, seed=5)
    s6 = crowded.sample(labels)[0].asnumpy()
    assert len(set(s6)) == 6 and set(range(7)) - set(s6) <= {1, 3}
    out = nn.SampledSoftmaxLoss(6, 7, seed=5)(Tensor(W), Tensor(B), labels, Tensor(X)).asnumpy()
    np.testing.assert_allclose(out, reference(LABELS, s6, 6 / 7, 6 / 7, True), rtol=1e-5)


def test_errors_as_mindspore():
    # messages measured on 2.10
    cases = [(dict(num_sampled=0, num_classes=7), ValueError, "value of num_sampled should be > : 0, but got 0"),
             (dict(num_sampled=8, num_classes=7), ValueError, "'num_sampled' must be smaller than or equal to"),
             (dict(num_sampled=4, num_classes=7, num_true=0), ValueError, "'num_true' must be greater than or equal"),
             (dict(num_sampled=4, num_classes=7, reduction="foo"), ValueError,
              r"'reduction' must be in \['mean', 'sum', 'none'\], but got foo"),
             (dict(num_sampled=4, num_classes=7, sampled_values=1), TypeError, "must be a list or tuple, but got int"),
             (dict(num_sampled=4.0, num_classes=7), TypeError, "type of 'num_sampled' should be 'int'"),
             (dict(num_sampled=4, num_classes=7, seed=-1), ValueError, "'seed' must be greater than or equal to 0"),
             (dict(num_sampled=4, num_classes=7, remove_accidental_hits=1), TypeError,
              "'remove_accidental_hits' should be 'bool'")]
    for kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            nn.SampledSoftmaxLoss(**kwargs)
    loss = nn.SampledSoftmaxLoss(4, 7, sampled_values=values([0, 2, 4, 6], 0.5))
    with pytest.raises(TypeError, match=r"should be one of \[mindspore.int32, mindspore.int64\], but got "
                                        r"'mindspore.float32'"):
        loss(Tensor(W), Tensor(B), Tensor(LABELS.astype(np.float32)), Tensor(X))
