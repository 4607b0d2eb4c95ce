"""Metrics against plain-Python loop references (and MindSpore's documented examples)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import nn
from graphcell.train import metrics as M

rng = np.random.default_rng(0)
LOGITS = rng.standard_normal((40, 6)).astype(np.float32)
LABELS = rng.integers(0, 6, 40)


def loop_counts(logits, labels, classes):
    tp, pred, actual = [0] * classes, [0] * classes, [0] * classes
    for row, y in zip(logits, labels):
        p = max(range(classes), key=lambda c: row[c])
        pred[p] += 1
        actual[y] += 1
        tp[p] += p == y
    return tp, pred, actual


def test_lazy_nn_names_are_the_metrics():
    assert nn.Accuracy is M.Accuracy and nn.F1 is M.F1 and nn.Top5CategoricalAccuracy is M.Top5CategoricalAccuracy


def test_accuracy_mindspore_doc_example():
    x = ms.Tensor(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), ms.float32)
    y = ms.Tensor(np.array([1, 0, 1]), ms.float32)
    metric = nn.Accuracy("classification")
    metric.clear()
    metric.update(x, y)
    assert metric.eval() == pytest.approx(2 / 3)


def test_accuracy_accumulates_over_updates_with_index_or_onehot_labels():
    expected = sum(int(np.argmax(r)) == y for r, y in zip(LOGITS, LABELS)) / len(LABELS)
    acc = M.Accuracy()
    for lo in range(0, 40, 16):  # uneven chunks, Tensor and numpy inputs
        acc.update(ms.Tensor(LOGITS[lo:lo + 16]), LABELS[lo:lo + 16].astype(np.int32))
    assert acc.eval() == pytest.approx(expected)
    onehot = np.eye(6)[LABELS]
    acc.clear()
    acc.update(LOGITS, onehot)
    assert acc.eval() == pytest.approx(expected)


def test_accuracy_multilabel():
    y_pred = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0]])
    y = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0]])
    acc = M.Accuracy("multilabel")
    acc.update(y_pred, y)
    assert acc.eval() == pytest.approx(2 / 3)


def test_multilabel_precision_and_recall_count_per_sample_as_mindspore():
    """MindSpore's Precision/Recall('multilabel') give one value per sample seen (its source swaps
    the class axis first), and their mean with average=True; a plain loop over samples here."""
    y_pred = np.array([[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 0]])
    y = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 1], [0, 1, 0]])
    want_p = [sum(a * b for a, b in zip(p, t)) / max(sum(p), 1) for p, t in zip(y_pred, y)]
    want_r = [sum(a * b for a, b in zip(p, t)) / max(sum(t), 1) for p, t in zip(y_pred, y)]
    for cls, want in ((M.Precision, want_p), (M.Recall, want_r)):
        metric = cls("multilabel")
        metric.update(y_pred[:3], y[:3])
        metric.update(y_pred[3:], y[3:])
        np.testing.assert_allclose(metric.eval(), want)
        assert metric.eval(average=True) == pytest.approx(np.mean(want))


def test_empty_metrics_raise_mindspore_error():
    for metric in (M.Accuracy(), M.Top1CategoricalAccuracy(), M.Loss(), M.MAE(), M.MSE(), M.Precision(),
                   M.Recall(), M.F1()):
        with pytest.raises(RuntimeError, match="can not be calculated, because the number of samples is 0"):
            metric.eval()
    # MindSpore 2.10's messages (measured)
    with pytest.raises(RuntimeError, match=r"^The 'Accuracy' can not be calculated, because the number of samples "
                                           r"is 0, please check whether your inputs \(predicted value"):
        M.Accuracy().eval()
    with pytest.raises(RuntimeError, match=r"^The 'Loss' can not be calculated, because the number of samples is 0, "
                                           r"please check whether has called update method before calling eval"):
        M.Loss().eval()


def test_update_argument_errors():
    with pytest.raises(ValueError, match="needs 2 inputs"):
        M.Accuracy().update(LOGITS)
    with pytest.raises(ValueError, match=r"class indices in \[0, 6\)"):
        M.Accuracy().update(LOGITS[:2], np.array([1, 6]))
    acc = M.Accuracy()
    acc.update(LOGITS, LABELS)
    with pytest.raises(ValueError, match="6 classes, these have 3"):
        acc.update(LOGITS[:, :3], LABELS % 3)


@pytest.mark.parametrize("k", [1, 2, 5])
def test_top_k(k):
    expected = sum(y in sorted(range(6), key=lambda c: -r[c])[:k] for r, y in zip(LOGITS, LABELS)) / 40
    metric = {1: M.Top1CategoricalAccuracy(), 5: M.Top5CategoricalAccuracy()}.get(k) or M.TopKCategoricalAccuracy(k)
    metric.update(ms.Tensor(LOGITS[:25]), ms.Tensor(LABELS[:25]))
    metric.update(LOGITS[25:], np.eye(6)[LABELS[25:]])
    assert metric.eval() == pytest.approx(expected)


def test_loss_averages_batch_means():
    losses = [np.float32(0.5), np.array([1.0, 3.0]), ms.Tensor(np.array([4.0], np.float32))]
    metric = M.Loss()
    for x in losses:
        metric.update(x)
    assert metric.eval() == pytest.approx((0.5 + 2.0 + 4.0) / 3)
    with pytest.raises(ValueError, match=r"For 'Loss.update', the dimension of your input \(loss\) must be 1, but got 2"):
        metric.update(np.zeros((2, 2)))


def test_eval_results_are_numpy_float64_as_mindspore():
    # MindSpore 2.10 (measured): Accuracy, TopK, Loss, MAE and MSE all return numpy float64
    results = [M.Accuracy()(LOGITS, LABELS), M.TopKCategoricalAccuracy(2)(LOGITS, LABELS),
               M.Loss()(np.float32(1.5)), M.MAE()(np.ones((2, 3)), np.zeros((2, 3))),
               M.MSE()(np.ones((2, 3)), np.zeros((2, 3)))]
    assert all(isinstance(r, np.float64) for r in results)
    # and print as 2.10's (numpy < 2) float64 do, also inside model.eval's dict
    assert repr({"acc": M.Accuracy()(np.eye(3), np.array([0, 1, 0]))}) == "{'acc': 0.6666666666666666}"


def test_single_score_column_is_a_rounded_binary_prediction():
    # MindSpore 2.10 (measured): 0.4; the rounding is half to even (0.5 -> 0)
    y_pred = np.array([[0.3], [0.7], [0.6], [0.5], [0.49]], np.float32)
    assert M.Accuracy()(ms.Tensor(y_pred), ms.Tensor(np.array([0, 1, 0, 1, 1], np.int32))) == 0.4


def test_argument_errors_as_mindspore():
    # types and messages measured on MindSpore 2.10
    with pytest.raises(TypeError, match=r"The argument 'eval_type' must be in .*, but got foo"):
        M.Accuracy("foo")
    with pytest.raises(TypeError, match="the type of the argument 'k' should be int"):
        M.TopKCategoricalAccuracy(1.5)
    with pytest.raises(ValueError, match=r"the argument 'k' must be at least 1, but got 'k' value: 0\."):
        M.TopKCategoricalAccuracy(0)
    assert M.TopKCategoricalAccuracy(True).k == 1
    with pytest.raises(ValueError, match=r"For 'Fbeta', the argument 'beta' must be greater than 0, but got 0\."):
        M.Fbeta(0)
    with pytest.raises(ValueError, match=r"For 'Loss.update', it needs 1 input \(loss\), but got 2"):
        M.Loss().update(1.0, 2.0)
    with pytest.raises(ValueError, match=r"shape can not match.*But got y_pred shape \(3, 4\) and y shape \(2,\)"):
        M.Accuracy().update(np.ones((3, 4)), np.ones(2))


def test_mae_mse_sum_over_elements_mean_over_samples():
    y_pred, y = rng.standard_normal((7, 3)), rng.standard_normal((7, 3))
    mae, mse = M.MAE(), M.MSE()
    for m in (mae, mse):
        m.update(ms.Tensor(y_pred[:4]), y[:4])
        m.update(y_pred[4:], y[4:].reshape(-1))  # y is reshaped to y_pred's shape
    abs_sum = sum(abs(a - b) for ra, rb in zip(y_pred, y) for a, b in zip(ra, rb))
    sq_sum = sum((a - b) ** 2 for ra, rb in zip(y_pred, y) for a, b in zip(ra, rb))
    assert mae.eval() == pytest.approx(abs_sum / 7)
    assert mse.eval() == pytest.approx(sq_sum / 7)


def test_precision_recall_f1_per_class_and_average():
    tp, pred, actual = loop_counts(LOGITS, LABELS, 6)
    precision = [t / p if p else 0.0 for t, p in zip(tp, pred)]
    recall = [t / a if a else 0.0 for t, a in zip(tp, actual)]
    f1 = [2 * t / (a + p) if a + p else 0.0 for t, a, p in zip(tp, actual, pred)]
    for cls, ref in ((M.Precision, precision), (M.Recall, recall), (M.F1, f1)):
        metric = cls()
        metric.update(ms.Tensor(LOGITS[:30]), LABELS[:30])
        metric.update(LOGITS[30:], LABELS[30:])
        np.testing.assert_allclose(metric.eval(), ref, rtol=1e-12)
        assert metric.eval(average=True) == pytest.approx(np.mean(ref))
    fb = M.Fbeta(2.0)
    fb.update(LOGITS, LABELS)
    ref = [5 * t / (4 * a + p) if a + p else 0.0 for t, a, p in zip(tp, actual, pred)]
    np.testing.assert_allclose(fb.eval(), ref, rtol=1e-12)


def test_never_predicted_class_has_zero_precision_not_nan():
    logits = np.array([[5.0, 0, 0], [5.0, 0, 0], [0, 5.0, 0]])
    p = M.Precision()
    p.update(logits, np.array([0, 2, 1]))
    np.testing.assert_allclose(p.eval(), [0.5, 1.0, 0.0])


def test_set_indexes_and_call():
    acc = M.Accuracy().set_indexes([1, 0])
    acc.update(LABELS, LOGITS)  # swapped
    assert acc.eval() == pytest.approx(M.Accuracy()(LOGITS, LABELS))
