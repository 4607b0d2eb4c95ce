"""MindSpore 2.10's other metrics (graphcell.train.metrics_*) against numpy/loop references and
values measured on MindSpore 2.10 (marked "measured"); the measured quirks are pinned too."""
import itertools
from collections import Counter

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn
from graphcell import dataset as ds
from graphcell import train as T

rng = np.random.default_rng(0)


def fed(metric, *updates):
    for u in updates:
        metric.update(*u)
    return metric.eval()


# --- names and exports ------------------------------------------------------------------------

def test_names_and_exports_follow_mindspore():
    # measured: mindspore.train.names()
    assert T.names() == ['F1', 'acc', 'accuracy', 'auc', 'bleu_score', 'confusion_matrix',
                         'confusion_matrix_metric', 'cosine_similarity', 'dice', 'hausdorff_distance', 'loss', 'mae',
                         'mean_surface_distance', 'mse', 'occlusion_sensitivity', 'perplexity', 'precision',
                         'recall', 'roc', 'root_mean_square_distance', 'top_1_accuracy', 'top_5_accuracy', 'topk']
    from graphcell.nn import metrics as nn_metrics
    for name in ("ConfusionMatrix", "ConfusionMatrixMetric", "ROC", "auc", "Dice", "BleuScore", "Perplexity",
                 "CosineSimilarity", "HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance",
                 "OcclusionSensitivity", "get_metric_fn", "names", "rearrange_inputs", "Accuracy"):
        assert getattr(ms, name) is getattr(T, name) is getattr(nn, name) is getattr(nn_metrics, name)


def test_get_metric_fn_and_get_metrics():
    assert type(T.get_metric_fn("F1")) is T.F1 and type(T.get_metric_fn("dice")) is T.Dice
    assert T.get_metric_fn("topk", 3).k == 3
    assert T.get_metric_fn("accuracy", eval_type="multilabel")._type == "multilabel"
    assert T.get_metric_fn("auc", np.array([0.0, 1.0]), np.array([1.0, 1.0])) == 1.0
    with pytest.raises(KeyError, match="unsupported metric f1"):  # measured: case-sensitive
        T.get_metric_fn("f1")
    got = T.get_metrics({"acc", "perplexity"})
    assert set(got) == {"acc", "perplexity"} and isinstance(got["perplexity"], T.Perplexity)
    assert T.get_metrics(None) is None
    acc = T.Accuracy()
    assert T.get_metrics({"a": acc}) == {"a": acc}
    with pytest.raises(TypeError, match="must be None, dict or set"):
        T.get_metrics(["acc"])
    with pytest.raises(TypeError, match="value in 'metrics' must be Metric"):
        T.get_metrics({"a": 3})


def test_model_eval_with_new_metric_by_name():
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(4, 3), nn.Softmax()])
    x, y = rng.standard_normal((12, 4)).astype(np.float32), rng.integers(0, 3, 12).astype(np.int32)
    data = ds.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False).batch(5)
    model = T.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                    metrics={"perplexity", "f1"})
    got = model.eval(data)
    probs = net(ms.Tensor(x)).asnumpy().astype(np.float64)
    assert got["perplexity"] == pytest.approx(np.exp(-np.log(probs[np.arange(12), y]).mean()), rel=1e-6)
    assert isinstance(model._metric_fns["f1"], T.F1)


# --- ConfusionMatrix ----------------------------------------------------------------------------

def loop_confusion(pred, true, k):
    m = np.zeros((k, k))
    for p, t in zip(pred, true):
        m[t, p] += 1
    return m


def test_confusion_matrix_counts_and_normalisations():
    pred, true = rng.integers(0, 4, 20), rng.integers(0, 4, 20)
    ref = loop_confusion(pred, true, 4)
    for norm, want in (("no_norm", ref), ("all", ref / 20),
                       ("target", [r / r.sum() if r.sum() else r for r in ref]),
                       ("prediction", np.array([c / c.sum() if c.sum() else c for c in ref.T]).T)):
        cm = T.ConfusionMatrix(4, normalize=norm)
        got = fed(cm, (pred[:7], true[:7]), (ms.Tensor(pred[7:]), ms.Tensor(true[7:])))
        np.testing.assert_allclose(got, want)
        assert got.dtype == np.float64
    scores = rng.random((20, 4))
    np.testing.assert_allclose(fed(T.ConfusionMatrix(4), (scores, true)),
                               loop_confusion(scores.argmax(1), true, 4))


def test_confusion_matrix_measured_examples():
    cm = T.ConfusionMatrix(num_classes=2)
    cm.update(ms.Tensor(np.array([1, 0, 1, 0])), ms.Tensor(np.array([1, 0, 0, 1])))
    np.testing.assert_array_equal(cm.eval(), [[1, 1], [1, 1]])  # measured
    cm.update(np.array([1, 1]), np.array([1, 1]))
    np.testing.assert_array_equal(cm.eval(), [[1, 1], [1, 3]])  # measured
    # measured: a float prediction is binarised with >= threshold
    got = fed(T.ConfusionMatrix(2), (np.array([0.5, 0.50001, 0.2, 0.9]), np.array([1, 1, 0, 0])))
    np.testing.assert_array_equal(got, [[1, 1], [0, 2]])
    with pytest.raises(RuntimeError, match="Please call the 'update' method before calling 'eval' method."):
        T.ConfusionMatrix(3).eval()
    with pytest.raises(ValueError, match="'normalize' must be in"):
        T.ConfusionMatrix(2, normalize="label")
    with pytest.raises(TypeError, match="The type of 'num_classes' should be 'int', but got type 'float'."):
        T.ConfusionMatrix(2.0)
    with pytest.raises(TypeError, match="The type of 'threshold' should be 'float', but got type 'int'."):
        T.ConfusionMatrix(2, threshold=1)
    with pytest.raises(ValueError, match=r"classes must be in \[0, 2\)"):
        T.ConfusionMatrix(2).update(np.array([3, 0]), np.array([1, 0]))
    with pytest.raises(ValueError, match="should have same dimensions"):
        T.ConfusionMatrix(2).update(np.zeros((2, 2, 2)), np.array([1, 0]))


# --- ConfusionMatrixMetric ----------------------------------------------------------------------

FORMULAS = {  # written from the textbook definitions
    "sensitivity": lambda tp, fp, tn, fn: tp / (tp + fn),
    "specificity": lambda tp, fp, tn, fn: tn / (tn + fp),
    "precision": lambda tp, fp, tn, fn: tp / (tp + fp),
    "npv": lambda tp, fp, tn, fn: tn / (tn + fn),
    "f1": lambda tp, fp, tn, fn: 2 * tp / (2 * tp + fp + fn),
    "mcc": lambda tp, fp, tn, fn: (tp * tn - fp * fn) / ((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)) ** 0.5,
    "ts": lambda tp, fp, tn, fn: tp / (tp + fp + fn),
    "accuracy": lambda tp, fp, tn, fn: (tp + tn) / (tp + fp + tn + fn),
}


def loop_counts(p, y):
    tp = sum(a == 1 and b == 1 for a, b in zip(p, y))
    tn = sum(a == 0 and b == 0 for a, b in zip(p, y))
    return tp, sum(a == 1 and b == 0 for a, b in zip(p, y)), tn, sum(a == 0 and b == 1 for a, b in zip(p, y))


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_confusion_matrix_metric_totals(name):
    P, Y = rng.integers(0, 2, (3, 3, 5)), rng.integers(0, 2, (3, 3, 5))
    for skip, channels in ((True, range(3)), (False, range(1, 3))):  # measured: False drops channel 0
        totals = np.sum([loop_counts(P[b, c], Y[b, c]) for b in range(3) for c in channels], axis=0)
        metric = T.ConfusionMatrixMetric(skip_channel=skip, metric_name=name)
        got = fed(metric, (P[:1], Y[:1]), (ms.Tensor(P[1:]), ms.Tensor(Y[1:])))
        assert got.shape == (1,)
        np.testing.assert_allclose(got, [FORMULAS[name](*map(float, totals))])


def test_confusion_matrix_metric_measured():
    # measured on MindSpore 2.10 (its doc example, then skip_channel on a 3-channel batch)
    x, y = np.array([[[0], [1]], [[1], [0]]]), np.array([[[0], [1]], [[0], [1]]])
    np.testing.assert_allclose(fed(T.ConfusionMatrixMetric(), (ms.Tensor(x), ms.Tensor(y))), [0.5])
    P = np.array([[[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 1, 0]], [[0, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1]]])
    Y = np.array([[[1, 0, 0, 1], [0, 0, 0, 0], [1, 0, 0, 0]], [[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]])
    np.testing.assert_allclose(fed(T.ConfusionMatrixMetric(skip_channel=True), (P, Y)), [0.428571428571], rtol=1e-9)
    np.testing.assert_allclose(fed(T.ConfusionMatrixMetric(skip_channel=False), (P, Y)), [0.666666666667], rtol=1e-9)
    # calculation_method=True: per sample and channel; sample 1 has no positives (nan), measured
    P = np.zeros((3, 2, 4), int)
    Y = np.zeros((3, 2, 4), int)
    P[0, 0, :2] = 1; Y[0, 0, 1:3] = 1; Y[0, 1, 0] = 1; P[1, 1, 0] = 1; Y[2, 1, :] = 1; P[2, 1, :3] = 1  # noqa: E702
    # per sample nan-means over channels: 0.25, nan, 0.75
    mean = T.ConfusionMatrixMetric(calculation_method=True, decrease="mean")
    assert fed(mean, (P[:2], Y[:2]), (P[2:], Y[2:])) == pytest.approx(0.5)
    total = T.ConfusionMatrixMetric(calculation_method=True, decrease="sum")
    # measured: updates weighted by their defined entries: (0.5 * 2 + 0.75 * 1) / 3
    assert fed(total, (P[:2], Y[:2]), (P[2:], Y[2:])) == pytest.approx(0.5833333333333334)
    assert fed(T.ConfusionMatrixMetric(calculation_method=True, decrease="sum"), (P, Y)) == pytest.approx(1.25)
    with pytest.raises(RuntimeError, match="'ConfusionMatrixMetric' can not be calculated"):
        fed(T.ConfusionMatrixMetric(calculation_method=True), (P[1:2], Y[1:2]))
    # measured: only exact 0/1 predictions count (TP where y_pred + y == 2)
    np.testing.assert_allclose(fed(T.ConfusionMatrixMetric(metric_name="specificity"), (P * 1.5, Y)),
                               [0.8823529411764706])
    assert np.isnan(T.ConfusionMatrixMetric().eval()).all()  # measured: array([nan]) before update
    with pytest.raises(ValueError, match="metric_name"):
        T.ConfusionMatrixMetric(metric_name="foo")
    with pytest.raises(ValueError, match="'decrease' must be str and must be in"):
        T.ConfusionMatrixMetric(decrease="foo")
    with pytest.raises(TypeError, match="The type of 'skip_channel' should be 'bool'"):
        T.ConfusionMatrixMetric(skip_channel=1)


# --- ROC and auc --------------------------------------------------------------------------------

def loop_roc(scores, positive):
    ths = sorted(set(scores), reverse=True)
    P, N = sum(positive), len(positive) - sum(positive)
    fpr, tpr = [0.0], [0.0]
    for t in ths:
        tpr.append(sum(p for s, p in zip(scores, positive) if s >= t) / P)
        fpr.append(sum(1 - p for s, p in zip(scores, positive) if s >= t) / N)
    return fpr, tpr, [ths[0] + 1] + ths


def test_roc_binary_against_threshold_loop():
    scores, labels = rng.random(30).round(1), rng.integers(0, 2, 30)
    for pos in (1, 0):
        fpr, tpr, th = fed(T.ROC(pos_label=pos), (ms.Tensor(scores), ms.Tensor(labels)))
        ref = loop_roc(scores.tolist(), (labels == pos).astype(int).tolist())
        for got, want in zip((fpr, tpr, th), ref):
            np.testing.assert_allclose(got, want)


def test_roc_measured_examples():
    fpr, tpr, th = fed(T.ROC(pos_label=2), (ms.Tensor(np.array([3, 1, 4, 2])), ms.Tensor(np.array([0, 1, 2, 3]))))
    np.testing.assert_allclose(fpr, [0, 0, 1 / 3, 2 / 3, 1])  # measured
    np.testing.assert_allclose(tpr, [0, 1, 1, 1, 1])
    np.testing.assert_array_equal(th, [5, 4, 3, 2, 1])
    assert th.dtype == np.int64  # measured: thresholds keep the scores' dtype
    x = np.array([[0.28, 0.55, 0.15, 0.05], [0.10, 0.20, 0.05, 0.05], [0.20, 0.05, 0.15, 0.05],
                  [0.05, 0.05, 0.05, 0.75]])
    fpr, tpr, th = fed(T.ROC(class_num=4), (x, np.array([0, 1, 2, 3])))
    np.testing.assert_allclose(fpr[1], [0, 1 / 3, 1 / 3, 1])  # measured
    np.testing.assert_allclose(tpr[1], [0, 0, 1, 1])
    np.testing.assert_allclose(th[3], [1.75, 0.75, 0.05])
    # measured: only the last update counts
    fpr, tpr, th = fed(T.ROC(), (np.array([0.1, 0.9]), np.array([0, 1])), (np.array([0.3, 0.2, 0.7]), np.array([1, 0, 0])))
    np.testing.assert_allclose(th, [1.7, 0.7, 0.3, 0.2])
    with pytest.raises(ValueError, match="there is no negative samples in true value"):
        fed(T.ROC(), (np.array([0.5, 0.2]), np.array([1, 1])))
    with pytest.raises(ValueError, match="the 'class_num' must equal the number of classes"):
        fed(T.ROC(class_num=3), (x, np.array([0, 1, 2, 3])))
    with pytest.raises(ValueError, match="the 'pos_label' must be None"):
        fed(T.ROC(class_num=4, pos_label=1), (x, np.array([0, 1, 2, 3])))
    with pytest.raises(RuntimeError, match="Please call the 'update' method"):
        T.ROC().eval()


def test_roc_multiclass_is_one_vs_rest():
    scores, labels = rng.random((9, 3)).round(1), np.array([0, 1, 2, 0, 1, 2, 0, 1, 1])
    fpr, tpr, th = fed(T.ROC(class_num=3), (scores, labels))
    for c in range(3):
        ref = loop_roc(scores[:, c].tolist(), (labels == c).astype(int).tolist())
        np.testing.assert_allclose(fpr[c], ref[0])
        np.testing.assert_allclose(tpr[c], ref[1])


def test_auc():
    assert T.auc(np.array([0, 0.5, 1]), np.array([0, 0.8, 1])) == pytest.approx(0.65)  # measured
    assert T.auc(np.array([1, 0.5, 0]), np.array([1, 0.8, 0])) == pytest.approx(0.65)  # measured: decreasing x
    assert T.auc(np.array([0, 1, 0.5]), np.array([0, 1, 0.8]), reorder=True) == pytest.approx(0.65)
    x, y = np.sort(rng.random(9)), rng.random(9)
    ref = sum((x[i + 1] - x[i]) * (y[i + 1] + y[i]) / 2 for i in range(8))
    assert T.auc(x[:, None], y[:, None]) == pytest.approx(ref)
    assert isinstance(T.auc(np.array([0, 1, 2]), np.array([0, 1, 1])), np.float64)  # measured 1.5, float64
    with pytest.raises(ValueError, match="must be increasing or decreasing"):
        T.auc(np.array([0, 1, 0.5]), np.array([0, 1, 0.8]))
    with pytest.raises(TypeError, match="must all be np.ndarray"):
        T.auc([0, 1], [0, 1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples: \\[3, 2\\]"):
        T.auc(np.array([0, 1, 2]), np.array([0, 1]))


# --- Perplexity, Dice, BleuScore, CosineSimilarity ----------------------------------------------

def test_perplexity():
    x, y = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([1, 0, 1])
    metric = T.Perplexity()
    metric.update(ms.Tensor(x), ms.Tensor(y))
    assert metric.eval() == pytest.approx(2.231443166940565, rel=1e-12)  # measured
    metric.update(np.array([[0.5, 0.5]]), np.array([0]))
    assert metric.eval() == pytest.approx(2.1711852081087684, rel=1e-12)  # measured
    assert fed(T.Perplexity(ignore_label=1), (x, y)) == pytest.approx(3.333333333333333)  # measured
    assert fed(T.Perplexity(), (np.array([[0.0, 1.0]]), np.array([0]))) == pytest.approx(1e10)  # measured: clipped
    probs = rng.dirichlet(np.ones(5), 12)
    labels = rng.integers(0, 5, 12)
    assert fed(T.Perplexity(), (probs, labels)) == pytest.approx(
        np.exp(-np.mean([np.log(p[t]) for p, t in zip(probs, labels)])))
    with pytest.raises(RuntimeError, match="'Perplexity' can not be calculated, because the number of samples is 0"):
        fed(T.Perplexity(ignore_label=1), (np.array([[0.2, 0.8]]), np.array([1])))
    with pytest.raises(TypeError, match="The type of 'ignore_label' should be 'int'"):
        T.Perplexity(ignore_label=1.5)


def test_dice():
    x, y = np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), np.array([[0, 1], [1, 0], [0, 1]])
    metric = T.Dice(smooth=1e-5)
    metric.update(ms.Tensor(x), ms.Tensor(y))
    assert metric.eval() == pytest.approx(0.2046779137180255, rel=1e-12)  # measured
    metric.update(np.array([[1.0, 1.0]]), np.array([[1, 1]]))
    assert metric.eval() == pytest.approx(0.40350781029008165, rel=1e-12)  # measured
    # measured semantics: each update's 2<p,y>/(<p,p>+<y,y>+smooth), summed, over the rows seen
    a, b = rng.random((3, 2, 2)), rng.integers(0, 2, (3, 2, 2))
    want = 2 * (a * b).sum() / ((a * a).sum() + (b * b).sum() + 0.5) / 3
    assert fed(T.Dice(smooth=0.5), (a, b)) == pytest.approx(want)
    with pytest.raises(TypeError, match="The 'smooth' must be float, but got 'int'"):
        T.Dice(smooth=1)
    with pytest.raises(ValueError, match="must > 0"):
        T.Dice(smooth=0.0)
    with pytest.raises(RuntimeError, match="'Dice coefficient' can not be calculated"):
        T.Dice().eval()


def ref_bleu(cands, refss, n_gram=4, smooth=False):
    def grams(t, n):
        return Counter(tuple(t[i:i + n]) for i in range(len(t) - n + 1))
    num, den, c, r = [0] * n_gram, [0] * n_gram, 0, 0
    for cand, refs in zip(cands, refss):
        c += len(cand)
        r += sorted((abs(len(x) - len(cand)), i, len(x)) for i, x in enumerate(refs))[0][2]
        for n in range(1, n_gram + 1):
            clip = Counter()
            for ref in refs:
                clip |= grams(ref, n)
            num[n - 1] += sum((grams(cand, n) & clip).values())
            den[n - 1] += sum(grams(cand, n).values())
    if min(num) == 0:
        return 0.0
    prec = [(a + smooth) / (b + smooth) for a, b in zip(num, den)]
    return (1.0 if c > r else np.exp(1 - r / c)) * np.exp(sum(np.log(prec)) / n_gram)


def test_bleu_score():
    cand = [['The', 'cat', 'The', 'cat', 'on', 'the', 'mat']]
    refs = [[['The', 'cat', 'is', 'on', 'the', 'mat'], ['There', 'is', 'a', 'cat', 'on', 'the', 'mat']]]
    for kw, measured in (({}, 0.46713797772820015), ({"smooth": True}, 0.5721248424548514),
                         ({"n_gram": 2}, 0.6900655593423541), ({"n_gram": 1}, 0.7142857142857144)):
        got = fed(T.BleuScore(**kw), (cand, refs))
        assert got == pytest.approx(measured, rel=1e-12)
        assert got == pytest.approx(ref_bleu(cand, refs, **kw), rel=1e-12)
    toks = ['a', 'b', 'c', 'the', 'cat']
    cands = [[toks[i] for i in rng.integers(0, 5, rng.integers(3, 9))] for _ in range(6)]
    refss = [[[toks[i] for i in rng.integers(0, 5, rng.integers(3, 9))] for _ in range(2)] for _ in range(6)]
    for n, smooth in itertools.product((1, 2), (False, True)):
        got = fed(T.BleuScore(n_gram=n, smooth=smooth), (cands[:2], refss[:2]), (cands[2:], refss[2:]))
        assert got == pytest.approx(ref_bleu(cands, refss, n, smooth), rel=1e-12)
    # measured: the closest reference length, the first on a tie
    assert fed(T.BleuScore(n_gram=1), ([list("abcde")], [[list("abcd"), list("abcdef")]])) == 1.0
    assert fed(T.BleuScore(n_gram=1), ([list("abcde")], [[list("abcdef"), list("abcd")]])) == pytest.approx(
        0.8187307530779819)
    zero = fed(T.BleuScore(), ([['x', 'y']], [[['a', 'b']]]))
    assert isinstance(zero, np.ndarray) and zero.shape == () and zero == 0  # measured: array(0.)
    with pytest.raises(ValueError, match="'n_gram' should range from 1 to 4, but got 5"):
        T.BleuScore(n_gram=5)
    with pytest.raises(ValueError, match="should be equal in length, but got 1, 2"):
        T.BleuScore().update(cand, refs * 2)
    with pytest.raises(RuntimeError, match="Please call the 'update' method"):
        T.BleuScore().eval()


def test_cosine_similarity():
    data = np.array([[1, 3, 4, 7], [2, 4, 2, 5], [3, 1, 5, 8]])
    got = fed(T.CosineSimilarity(), (data,))
    np.testing.assert_allclose(got, [[0, 0.9402561526802475, 0.9516245192244814],  # measured
                                     [0.9402561526802475, 0, 0.8614609845078961],
                                     [0.9516245192244814, 0.8614609845078961, 0]], rtol=1e-12)
    np.testing.assert_allclose(fed(T.CosineSimilarity(reduction="mean"), (data,)),
                               [0.6306268906349096, 0.6005723790627145, 0.6043618345774592], rtol=1e-12)  # measured
    dot = fed(T.CosineSimilarity(similarity="dot"), (data,))
    np.testing.assert_array_equal(dot, [[0, 57, 82], [57, 0, 60], [82, 60, 0]])  # measured, int64
    assert dot.dtype == np.int64
    x = rng.standard_normal((5, 3)).astype(np.float32)
    got = fed(T.CosineSimilarity(reduction="sum", zero_diagonal=False), (ms.Tensor(x),))
    ref = [sum(float(a @ b) / np.linalg.norm(a) / np.linalg.norm(b) for b in x) for a in x]
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, ref, rtol=1e-5)
    # measured: only the last update counts
    assert fed(T.CosineSimilarity(), (data,), (data[:2],)).shape == (2, 2)
    with pytest.raises(ValueError, match="The 'similarity' must be str and must be in"):
        T.CosineSimilarity(similarity="x")
    with pytest.raises(RuntimeError, match="Please call the 'update' method"):
        T.CosineSimilarity().eval()


# --- surface distances --------------------------------------------------------------------------

def loop_edges(mask):
    """Points of the mask with a face neighbour outside it (or outside the array)."""
    out = np.zeros_like(mask)
    for p in zip(*np.nonzero(mask)):
        for axis, step in itertools.product(range(mask.ndim), (-1, 1)):
            q = list(p)
            q[axis] += step
            if not 0 <= q[axis] < mask.shape[axis] or not mask[tuple(q)]:
                out[p] = True
    return out


def loop_distances(a, b, metric):
    pa, pb = np.argwhere(loop_edges(a)), np.argwhere(loop_edges(b))
    diff = np.abs(pa[:, None, :] - pb[None, :, :])
    d = {"euclidean": np.sqrt((diff ** 2).sum(-1)), "chessboard": diff.max(-1), "taxicab": diff.sum(-1)}[metric]
    return d.min(1)


@pytest.mark.parametrize("metric", ["euclidean", "chessboard", "taxicab"])
def test_surface_distances_against_brute_force(metric):
    a, b = np.zeros((6, 7, 8)), np.zeros((6, 7, 8))
    a[1:5, 2:6, 1:7] = 1
    b[2:6, 1:5, 2:8] = 1
    b[3, 3, 0] = 1
    seg_a, seg_b = rng.integers(0, 3, (7, 8)), rng.integers(0, 3, (7, 8))
    for x, y, label in ((a, b, 1), (seg_a, seg_b, 2), (seg_b, seg_a, 0)):
        fwd, bwd = loop_distances(x == label, y == label, metric), loop_distances(y == label, x == label, metric)
        assert fed(T.HausdorffDistance(metric), (x, y, label)) == pytest.approx(max(fwd.max(), bwd.max()))
        assert fed(T.HausdorffDistance(metric, directed=True), (ms.Tensor(x), y, label)) == pytest.approx(fwd.max())
        assert fed(T.HausdorffDistance(metric, percentile=70.0, crop=False), (x, y, label)) == pytest.approx(
            max(np.percentile(fwd, 70), np.percentile(bwd, 70)))
        assert fed(T.MeanSurfaceDistance(distance_metric=metric), (x, y, label)) == pytest.approx(fwd.mean())
        assert fed(T.MeanSurfaceDistance(True, metric), (x, y, label)) == pytest.approx((fwd.mean() + bwd.mean()) / 2)
        assert fed(T.RootMeanSquareDistance(True, metric), (x, y, label)) == pytest.approx(
            np.sqrt(((fwd ** 2).mean() + (bwd ** 2).mean()) / 2))
        # measured quirk: without `symmetric`, the mean squared distance (no square root)
        assert fed(T.RootMeanSquareDistance(distance_metric=metric), (x, y, label)) == pytest.approx((fwd ** 2).mean())


def test_surface_distances_measured():
    x = np.array([[3, 0, 1], [1, 3, 0], [1, 0, 2]])
    y = np.array([[0, 2, 1], [1, 2, 1], [0, 0, 1]])
    # measured on MindSpore 2.10
    assert fed(T.HausdorffDistance(), (ms.Tensor(x), ms.Tensor(y), 0)) == pytest.approx(1.4142135623730951)
    assert fed(T.HausdorffDistance(), (x, y, 1)) == 2.0
    assert fed(T.HausdorffDistance(directed=True), (x, y, 1)) == 1.0
    assert fed(T.HausdorffDistance(percentile=50.0), (x, y, 1)) == 0.5
    chess = fed(T.HausdorffDistance(distance_metric="chessboard"), (x, y, 0))
    assert chess == 1 and chess.dtype == np.int32
    assert fed(T.MeanSurfaceDistance(), (x, y, 0)) == pytest.approx(0.8047378541243649)
    assert fed(T.MeanSurfaceDistance(symmetric=True), (x, y, 0)) == pytest.approx(0.7357022603955158)
    assert fed(T.RootMeanSquareDistance(), (x, y, 0)) == pytest.approx(1.0000000000000002)
    assert fed(T.RootMeanSquareDistance(symmetric=True), (x, y, 0)) == pytest.approx(0.9128709291752769)
    assert fed(T.HausdorffDistance(), (x, y, 3)) == np.inf  # label only in y_pred
    big = np.zeros((7, 7))
    big[1:6, 1:6] = 1
    dot = np.pad(np.ones((1, 1)), 3)
    assert fed(T.HausdorffDistance(percentile=0.0), (dot, big, 1)) == pytest.approx(2.8284271247461903)  # 0.0 = max
    assert fed(T.MeanSurfaceDistance(), (dot, big, 1)) == 2.0  # the interior is no surface
    # measured: only the last update counts
    assert fed(T.MeanSurfaceDistance(), (dot, big, 1), (x, y, 0)) == pytest.approx(0.8047378541243649)
    # measured: a fresh MeanSurfaceDistance / RootMeanSquareDistance evaluates to inf, a cleared one raises
    for cls in (T.MeanSurfaceDistance, T.RootMeanSquareDistance):
        metric = cls()
        assert metric.eval() == float("inf")
        metric.clear()
        with pytest.raises(RuntimeError, match="Please call the 'update' method"):
            metric.eval()
    with pytest.raises(RuntimeError, match="Please call the 'update' method"):
        T.HausdorffDistance().eval()
    with pytest.raises(ValueError, match="the label index \\(input\\[2\\]\\) must be in predicted value"):
        fed(T.HausdorffDistance(), (x, y, 5))
    with pytest.raises(ValueError, match="needs 3 inputs"):
        T.HausdorffDistance().update(x, y)
    with pytest.raises(ValueError, match="must be int or float"):
        T.HausdorffDistance().update(x, y, ms.Tensor(0))
    with pytest.raises(ValueError, match="The 'distance_metric' must be str and must be in"):
        T.MeanSurfaceDistance(distance_metric="foo")
    with pytest.raises(TypeError, match="The type of 'percentile' should be 'float'"):
        T.HausdorffDistance(percentile=50)


# --- OcclusionSensitivity -----------------------------------------------------------------------

class DenseNet(nn.Cell):
    def __init__(self):
        super().__init__()
        w = np.array([[0.1, 0.8, 0.1, 0.1], [1, 1, 1, 1]], np.float32)
        self.dense = nn.Dense(4, 2, weight_init=ms.Tensor(w), bias_init=ms.Tensor(np.array([0.3, 0.6], np.float32)))

    def construct(self, x):
        return self.dense(x)


def test_occlusion_sensitivity_measured():
    net, x, label = DenseNet(), np.array([[0.1, 0.2, 0.3, 0.4]], np.float32), np.array(1, np.int32)
    # measured on MindSpore 2.10
    for kw, want in (({}, [0.3, 0.6, 1.0, 0.9]), ({"margin": 1}, [0.1, 0.3, 0.5, 0.7]),
                     ({"margin": 1, "pad_val": 1.0}, [-0.9, -1.7, -1.5, -1.3]),
                     ({"margin": 1, "n_batch": 2}, [0.1, 0.3, 0.5, 0.7]), ({"margin": 1, "b_box": [1, 3]}, [0.3, 0.5, 0.7])):
        got = fed(T.OcclusionSensitivity(**kw), (net, ms.Tensor(x), ms.Tensor(label)))
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, atol=1e-6)
    np.testing.assert_allclose(fed(T.OcclusionSensitivity(margin=1), (net, x, np.array(0))), [0.01, 0.17, 0.19, 0.07],
                               atol=1e-6)
    with pytest.raises(RuntimeError, match="must be 1, but got 2"):
        T.OcclusionSensitivity().update(net, np.vstack([x, x]), label)
    with pytest.raises(ValueError, match="needs 3 inputs"):
        T.OcclusionSensitivity().update(net, x)
    with pytest.raises(TypeError, match="The type of 'pad_val' should be 'float'"):
        T.OcclusionSensitivity(pad_val=1)


def test_occlusion_sensitivity_image_against_loop():
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Conv2d(2, 3, 2, pad_mode="valid"), nn.Flatten(), nn.Dense(27, 4)])
    img = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    got = fed(T.OcclusionSensitivity(margin=1, n_batch=7, b_box=[0, 1, 1, 3, 0, 2]), (net, img, np.array(2)))
    base = net(ms.Tensor(img)).asnumpy()[0, 2]
    want = np.zeros((2, 3, 3), np.float32)
    for c, h, w in itertools.product(range(2), range(1, 4), range(3)):
        occluded = img.copy()
        occluded[0, max(c - 1, 0):c + 1, max(h - 1, 0):h + 1, max(w - 1, 0):w + 1] = 0.0
        want[c, h - 1, w] = base - net(ms.Tensor(occluded)).asnumpy()[0, 2]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
