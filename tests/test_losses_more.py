"""MindSpore 2.10's loss functions and Cells added in session 14 (ops/classification_losses.py,
ops/regression_losses.py, ops/ctc.py, nn/more_losses.py): values and gradients under jit
(XLA) and jit(backend="onnx"), a few eagerly, ctc_loss under vmap.

References: torch where it has the loss (MindSpore 2.10 CPU was measured equal to torch on
these formulas: cross_entropy, nll_loss, mse, l1, BCE-with-logits, gaussian NLL, hinge
embedding, multi margin, multilabel soft margin, Poisson NLL, RMSE and ctc_loss values and
gradients to 1e-5), else numpy formulas and numbers measured on MindSpore 2.10 CPU (each
marked). soft_margin_loss, triplet_margin_loss, multilabel_margin_loss and L1LossExt have no
CPU kernel in 2.10: their reference is torch's formula, which 2.10's documents give.
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphcell as ms
from graphcell import Tensor, nn, ops

MODES = ["jit", "onnx"]


def compiled(fn, mode):
    return fn if mode == "eager" else ms.jit(fn, backend="xla" if mode == "jit" else "onnx")


def close(got, want, tol=1e-5):
    got = got.asnumpy() if isinstance(got, Tensor) else np.asarray(got)
    want = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


RNG = np.random.default_rng(14)
X = RNG.standard_normal((4, 5)).astype(np.float32)            # logits / inputs
Y = RNG.standard_normal((4, 5)).astype(np.float32)            # a second float input
P = RNG.uniform(0.05, 0.95, (4, 5)).astype(np.float32)        # probabilities, variances
W = RNG.uniform(0.5, 2.0, 5).astype(np.float32)               # class weights
T = np.array([1, 0, 4, 2], np.int32)                          # class indices
X3 = RNG.standard_normal((2, 3, 4)).astype(np.float32)        # [N, C, d]
T3 = np.array([[0, 2, 1, -100], [2, 2, 0, 1]], np.int32)       # with an ignored entry
ML = np.array([[3, 0, -1, 1, 2], [1, 2, 3, -1, 0], [4, -1, 0, 0, 0], [0, 1, 2, 3, 4]], np.int32)
SIGNS = np.sign(Y).astype(np.float32)
INPUTS = (X, Y, P, W, X3)

# name -> (graphcell loss of (x, y, p, w, x3), torch loss of the same torch tensors); the
# gradient is checked for every float input
CASES = {
    "ce": (lambda x, y, p, w, x3: ops.cross_entropy(x, Tensor(T)),
           lambda x, y, p, w, x3: TF.cross_entropy(x, torch.tensor(T).long())),
    "ce_weight_smooth_sum": (lambda x, y, p, w, x3: ops.cross_entropy(x, Tensor(T), w, reduction="sum",
                                                                      label_smoothing=0.1),
                             lambda x, y, p, w, x3: TF.cross_entropy(x, torch.tensor(T).long(), w, reduction="sum",
                                                                     label_smoothing=0.1)),
    "ce_probs": (lambda x, y, p, w, x3: ops.cross_entropy(x, p, w, reduction="none", label_smoothing=0.2),
                 lambda x, y, p, w, x3: TF.cross_entropy(x, p, w, reduction="none", label_smoothing=0.2)),
    "ce_3d_ignore": (lambda x, y, p, w, x3: ops.cross_entropy(x3, Tensor(T3), w[:3], label_smoothing=0.3),
                     lambda x, y, p, w, x3: TF.cross_entropy(x3, torch.tensor(T3).long(), w[:3], label_smoothing=0.3)),
    "ce_ignore_1": (lambda x, y, p, w, x3: ops.cross_entropy(x, Tensor(T), ignore_index=1, reduction="none"),
                    lambda x, y, p, w, x3: TF.cross_entropy(x, torch.tensor(T).long(), ignore_index=1,
                                                            reduction="none")),
    "nll": (lambda x, y, p, w, x3: ops.nll_loss(x, Tensor(T), w),
            lambda x, y, p, w, x3: TF.nll_loss(x, torch.tensor(T).long(), w)),
    "nll_3d": (lambda x, y, p, w, x3: ops.nll_loss(x3, Tensor(T3), reduction="none"),
               lambda x, y, p, w, x3: TF.nll_loss(x3, torch.tensor(T3).long(), reduction="none")),
    "mse": (lambda x, y, p, w, x3: ops.mse_loss(x, y[0]), lambda x, y, p, w, x3: TF.mse_loss(x, y[0].expand(4, 5))),
    "l1": (lambda x, y, p, w, x3: ops.l1_loss(x, y, "sum"), lambda x, y, p, w, x3: TF.l1_loss(x, y, reduction="sum")),
    "bce_logits": (lambda x, y, p, w, x3: ops.binary_cross_entropy_with_logits(x, p, w, w[::-1]),
                   lambda x, y, p, w, x3: TF.binary_cross_entropy_with_logits(x, p, w, pos_weight=w.flip(0))),
    "gnll": (lambda x, y, p, w, x3: ops.gaussian_nll_loss(x, y, p, reduction="none"),
             lambda x, y, p, w, x3: TF.gaussian_nll_loss(x, y, p, reduction="none")),
    "gnll_full_var_n": (lambda x, y, p, w, x3: ops.gaussian_nll_loss(x, y, p[:, 0], True, 0.1),
                        lambda x, y, p, w, x3: TF.gaussian_nll_loss(x, y, p[:, 0], True, 0.1)),
    "hinge": (lambda x, y, p, w, x3: ops.hinge_embedding_loss(x, Tensor(SIGNS), 0.5, "none"),
              lambda x, y, p, w, x3: TF.hinge_embedding_loss(x, torch.tensor(SIGNS), 0.5, reduction="none")),
    "multi_margin": (lambda x, y, p, w, x3: ops.multi_margin_loss(x, Tensor(T), reduction="none"),
                     lambda x, y, p, w, x3: TF.multi_margin_loss(x, torch.tensor(T).long(), reduction="none")),
    "multi_margin_p2": (lambda x, y, p, w, x3: ops.multi_margin_loss(x, Tensor(T), 2, 0.7, w),
                        lambda x, y, p, w, x3: TF.multi_margin_loss(x, torch.tensor(T).long(), 2, 0.7, w)),
    "multilabel_margin": (lambda x, y, p, w, x3: ops.multilabel_margin_loss(x, Tensor(ML), "none"),
                          lambda x, y, p, w, x3: TF.multilabel_margin_loss(x, torch.tensor(ML).long(),
                                                                           reduction="none")),
    "multilabel_soft": (lambda x, y, p, w, x3: ops.multilabel_soft_margin_loss(x, Tensor((P > 0.5).astype(np.int32)),
                                                                               w),
                        lambda x, y, p, w, x3: TF.multilabel_soft_margin_loss(x, torch.tensor(P > 0.5).float(), w)),
    "soft_margin": (lambda x, y, p, w, x3: ops.soft_margin_loss(x, Tensor(SIGNS), "sum"),
                    lambda x, y, p, w, x3: TF.soft_margin_loss(x, torch.tensor(SIGNS), reduction="sum")),
    "triplet": (lambda x, y, p, w, x3: ops.triplet_margin_loss(x, y, p, reduction="none"),
                lambda x, y, p, w, x3: TF.triplet_margin_loss(x, y, p, reduction="none")),
    "triplet_p1_swap": (lambda x, y, p, w, x3: ops.triplet_margin_loss(x, y, p, 2.0, 1, 1e-6, True),
                        lambda x, y, p, w, x3: TF.triplet_margin_loss(x, y, p, 2.0, 1, 1e-6, True)),
    "poisson": (lambda x, y, p, w, x3: nn.PoissonNLLLoss()(x, p * 3),
                lambda x, y, p, w, x3: TF.poisson_nll_loss(x, p * 3)),
    "poisson_full": (lambda x, y, p, w, x3: nn.PoissonNLLLoss(False, True, 0.1, "none")(p, y * y * 2 + 0.01),
                     lambda x, y, p, w, x3: TF.poisson_nll_loss(p, y * y * 2 + 0.01, False, True, eps=0.1,
                                                                reduction="none")),
    "rmse": (lambda x, y, p, w, x3: nn.RMSELoss()(x, y), lambda x, y, p, w, x3: torch.sqrt(TF.mse_loss(x, y))),
    "mae": (lambda x, y, p, w, x3: nn.MAELoss("none")(x, y), lambda x, y, p, w, x3: TF.l1_loss(x, y, reduction="none")),
    "l1_ext": (lambda x, y, p, w, x3: nn.L1LossExt()(x, y), lambda x, y, p, w, x3: TF.l1_loss(x, y)),
    "triplet_distance": (lambda x, y, p, w, x3: nn.TripletMarginWithDistanceLoss(swap=True, reduction="none")(x, y, p),
                         lambda x, y, p, w, x3: TF.triplet_margin_with_distance_loss(
                             x, y, p, distance_function=lambda a, b: torch.linalg.vector_norm(a - b, dim=1),
                             swap=True, reduction="none")),
}


def _all(*xs):
    return tuple(graphcell_fn(*xs) for graphcell_fn, _ in CASES.values())


@pytest.mark.parametrize("mode", MODES)
def test_losses_match_torch(mode):
    got = compiled(_all, mode)(*(Tensor(v) for v in INPUTS))
    tensors = [torch.tensor(v) for v in INPUTS]
    for name, g, (_, want) in zip(CASES, got, CASES.values()):
        try:
            close(g, want(*tensors))
        except AssertionError as e:
            raise AssertionError(name) from e


@pytest.mark.parametrize("mode", MODES)
def test_loss_gradients_match_torch(mode):
    """Every input's but the class weights' (torch's cross entropy takes none there)."""
    positions = (0, 1, 2, 4)
    got = compiled(ms.grad(lambda *xs: sum(out.sum() for out in _all(*xs)), positions), mode)(
        *(Tensor(v) for v in INPUTS))
    leaves = [torch.tensor(v).requires_grad_(i in positions) for i, v in enumerate(INPUTS)]
    sum(want(*leaves).sum() for _, want in CASES.values()).backward()
    for g, i in zip(got, positions):
        close(g, leaves[i].grad)


def test_a_few_losses_eagerly():
    got = [ops.cross_entropy(Tensor(X3), Tensor(T3), reduction="none"), nn.RMSELoss()(Tensor(X), Tensor(Y)),
           ops.multilabel_margin_loss(Tensor(X[0]), Tensor(ML[0]))]
    close(got[0], TF.cross_entropy(torch.tensor(X3), torch.tensor(T3).long(), reduction="none"))
    close(got[1], torch.sqrt(TF.mse_loss(torch.tensor(X), torch.tensor(Y))))
    close(got[2], TF.multilabel_margin_loss(torch.tensor(X[0]), torch.tensor(ML[0]).long()))


# -- where MindSpore 2.10 differs from torch, or torch lacks the loss -------------------------------

def _nll_smoothed(x, t, w, eps):
    """(1 - eps) * w[t] * -x[t] + eps / C * sum_c w[c] * -x[c], 'mean' over the target weights."""
    per = (1 - eps) * -x[np.arange(len(t)), t] * w[t] + eps / x.shape[1] * -(x * w).sum(1)
    return per, per.sum() / w[t].sum()


def test_nll_loss_label_smoothing_and_negative_indices():
    """torch's nll_loss has no label_smoothing; MindSpore 2.10's mixes like cross_entropy's
    (measured: 'none' [-0.34771934, 0.6045964, -0.39313272, 0.16811074] on its inputs, equal to
    the formula below to 1e-7). A negative index other than ignore_index counts from the end
    (MindSpore's GatherD; measured: cross_entropy with target -3 of 5 gives class 2's loss)."""
    per, mean = _nll_smoothed(X, T, W, 0.3)
    close(ops.nll_loss(Tensor(X), Tensor(T), Tensor(W), reduction="none", label_smoothing=0.3), per)
    close(ms.jit(lambda x: ops.nll_loss(x, Tensor(T), Tensor(W), label_smoothing=0.3))(Tensor(X)), mean)
    negative = np.array([1, 0, -3, 2], np.int32)
    logp = X - np.log(np.exp(X).sum(1, keepdims=True))
    close(ops.cross_entropy(Tensor(X), Tensor(negative)), -logp[np.arange(4), [1, 0, 2, 2]].mean())
    assert np.isnan(ops.cross_entropy(Tensor(X), Tensor(np.full(4, -100, np.int32))).asnumpy())   # as MindSpore


def test_mindspore_values_where_torch_differs():
    """Numbers measured on MindSpore 2.10 CPU."""
    x = Tensor(np.array([0.5, 1.0, -1.0], np.float32))
    # hinge_embedding_loss: a target neither 1 nor -1 costs 0 (torch: x + max(0, margin - x))
    close(ops.hinge_embedding_loss(x, Tensor(np.array([0.0, 1.0, -1.0], np.float32)), reduction="none"),
          [0.0, 1.0, 2.0])
    # gaussian_nll_loss clamps var at eps with a zero gradient there, negative var too (torch raises)
    t, var = Tensor(np.array([0.0, 0.5, 1.0], np.float32)), Tensor(np.array([1e-8, 0.5, -2.0], np.float32))
    gx, gvar = ms.jit(ms.grad(lambda a, v: ops.gaussian_nll_loss(a, t, v), (0, 1)))(x, var)
    close(gx, [1.66666672e05, 3.33333343e-01, -6.66666688e05], 1)
    close(gvar, [0.0, 1.66666672e-01, 0.0])
    # multilabel_soft_margin_loss averages over the last axis at any rank; the target broadcasts
    x3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10 - 1
    y3 = (np.arange(24).reshape(2, 3, 4) % 3 == 0).astype(np.float32)
    close(ops.multilabel_soft_margin_loss(Tensor(x3), Tensor(y3), reduction="none"),
          [[0.7821753621101379, 0.594733476638794, 0.6950196623802185],
           [0.7098961472511292, 0.9382321238517761, 1.151221752166748]])
    close(ops.multilabel_soft_margin_loss(Tensor(x3[0]), Tensor(y3[0, 0]), reduction="none"),
          [0.7821753, 0.71973366, 0.6950197])
    # integers: mse in float32, l1 and MAELoss stay integers with the mean truncated
    ints, zeros = Tensor(np.array([1, 2], np.int32)), Tensor(np.array([0, 0], np.int32))
    assert ops.mse_loss(ints, zeros).dtype == ms.float32
    for out in (ops.l1_loss(ints, zeros), nn.MAELoss()(ints, zeros)):
        assert out.dtype == ms.int32 and int(out.asnumpy()) == 1


def _ms_inputs():
    """The inputs of the MindSpore 2.10 measurements below: numpy's RandomState(1) draws."""
    rng = np.random.RandomState(1)
    x = rng.randn(3, 4).astype(np.float32)
    p = rng.rand(3, 4).astype(np.float32)
    x3 = rng.randn(2, 3, 4).astype(np.float32)
    l3 = (rng.rand(2, 3, 4) > 0.5).astype(np.float32)
    x4 = rng.randn(2, 3, 2, 2).astype(np.float32)
    l4 = rng.randint(0, 3, (2, 1, 2, 2)).astype(np.int32)
    return x, p, x3, l3, x4, l4


@pytest.mark.parametrize("mode", MODES)
def test_focal_and_dice_losses_take_mindspore_values(mode):
    """FocalLoss, DiceLoss and MultiClassDiceLoss (no torch form), measured on MindSpore 2.10."""
    x, p, x3, l3, x4, l4 = _ms_inputs()
    one_hot = np.eye(4, dtype=np.float32)[[1, 0, 3]]
    index = np.array([[1], [0], [3]], np.int32)
    index3 = np.array([[[1, 0, 2, 2]], [[0, 1, 2, 0]]], np.int32)
    weights = np.arange(1, 9, dtype=np.float32).reshape(4, 2)
    sigmoid = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731

    def losses(x, oh, idx, x3, idx3, x4, l4, s, lab, s3, l3, w):
        return (nn.FocalLoss(reduction="none")(x, idx), nn.FocalLoss(reduction="none")(x, oh),
                nn.FocalLoss()(x, idx), nn.FocalLoss(Tensor(np.array([1.0, 2, 3, 4], np.float32)), 1.0, "none")(x, idx),
                nn.FocalLoss(reduction="none")(x3, idx3), nn.FocalLoss(reduction="none")(x4, l4),
                nn.DiceLoss()(s, lab), nn.DiceLoss()(s3, l3), nn.MultiClassDiceLoss()(x, oh),
                nn.MultiClassDiceLoss(activation="sigmoid")(x, oh), nn.MultiClassDiceLoss(w)(x, oh),
                nn.MultiClassDiceLoss(ignore_indiex=2)(x, oh))

    got = compiled(losses, mode)(*(Tensor(v) for v in (x, one_hot, index, x3, index3, x4, l4, sigmoid(x),
                                                        (p > 0.5).astype(np.float32), sigmoid(x3), l3, weights)))
    want = ([2.0955632, 0.6819519, 3.7958422], None, 2.191119, [4.569574, 0.93946886, 15.482422],
            [1.6676222, 0.7352652], [1.0598853, 0.5775211], 0.58138233, 0.2575689, 0.8701175, 0.6800767,
            [3.7313976, 4.6015153], 0.6201175)
    for i, (g, w) in enumerate(zip(got, want)):
        if w is not None:
            close(g, w, 2e-5)
    # one-hot labels keep the class axis: -(1 - p)**2 log p at the labelled class
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    close(got[1], -one_hot * (1 - np.exp(logp)) ** 2 * logp)


def test_multiclass_dice_softmax_is_over_the_last_axis():
    """Measured on MindSpore 2.10: [N, C, L] logits give 0.5658543 (softmax over axis -1)."""
    x3 = np.random.RandomState(1).randn(2, 3, 4).astype(np.float32)
    label = np.eye(3, dtype=np.float32)[[[0, 1, 2, 0], [1, 1, 2, 0]]].transpose(0, 2, 1)
    close(nn.MultiClassDiceLoss()(Tensor(x3), Tensor(label)), 0.5658543)


def test_triplet_distance_loss_is_over_axis_1():
    """MindSpore 2.10's default distance is the 2-norm over axis 1 without torch's eps
    (measured: [3, 2, 2] inputs give [3, 2])."""
    rng = np.random.RandomState(1)
    rng.randn(2, 3, 4)
    x, y = (Tensor(rng.randn(3, 4).astype(np.float32)) for _ in range(2))
    loss = nn.TripletMarginWithDistanceLoss(reduction="none")
    close(loss(x, y, x * 2), [2.8298609256744385, 2.5323150157928467, 2.1278560161590576])
    close(loss(x.reshape(3, 2, 2), y.reshape(3, 2, 2), x.reshape(3, 2, 2) * 2),
          [[2.7835659980773926, 1.7536590099334717], [0.35242199897766113, 2.8626320362091064],
           [1.1742600202560425, 2.277853012084961]])
    with_fn = nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: ops.abs(a - b).sum(-1), reduction="none")
    close(with_fn(x, y, x * 2), [4.7535719871521, 2.752084970474243, 2.7049829959869385])


def test_triplet_margin_loss_cell_margin():
    """MindSpore 2.10 passes the Cell's margin when it is not 1.0, else the call's (measured)."""
    a, p, n = (Tensor(v) for v in (X, Y, P))
    assert nn.TripletMarginLoss(margin=2.0)(a, p, n, 3.0).asnumpy() == ops.triplet_margin_loss(a, p, n, 2.0).asnumpy()
    assert nn.TripletMarginLoss()(a, p, n, 3.0).asnumpy() == ops.triplet_margin_loss(a, p, n, 3.0).asnumpy()


# -- ctc_loss --------------------------------------------------------------------------------------

def _ctc_inputs():
    rng = np.random.default_rng(3)
    raw = rng.standard_normal((6, 3, 4)).astype(np.float32)
    log_probs = raw - np.log(np.exp(raw).sum(-1, keepdims=True))
    targets = np.array([[1, 2, 2], [3, 1, 0], [2, 0, 0]], np.int32)
    return log_probs, targets, np.array([6, 5, 2], np.int32), np.array([3, 2, 1], np.int32)


def _numpy_log_alpha(lp, targets, il, tl, blank=0):
    """The CTC forward variables, a direct loop, -inf past each sample's frames and states."""
    steps, n, _ = lp.shape
    states = 2 * targets.shape[1] + 1
    out = np.full((n, steps, states), -np.inf)
    for b in range(n):
        ext = [blank] + sum(([int(c), blank] for c in targets[b, :tl[b]]), [])
        alpha = np.full(len(ext), -np.inf)
        alpha[0] = 0.0
        prev = np.full(len(ext), -np.inf)
        prev[0] = 0.0
        for t in range(il[b]):
            new = np.empty(len(ext))
            for s in range(len(ext)):
                terms = [prev[s]] + ([prev[s - 1]] if s else []) + \
                    ([prev[s - 2]] if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2] else [])
                new[s] = np.logaddexp.reduce(terms) + lp[t, b, ext[s]]
            out[b, t, :len(ext)] = prev = new
    return out


def _torch_ctc(lp, targets, il, tl, **kw):
    leaf = torch.tensor(lp, requires_grad=True)
    loss = TF.ctc_loss(leaf, torch.tensor(targets).long(), torch.tensor(il).long(), torch.tensor(tl).long(), **kw)
    loss.sum().backward()
    return loss.detach(), leaf.grad


@pytest.mark.parametrize("mode", MODES)
def test_ctc_loss_matches_torch(mode):
    """Values and gradients in every reduction (MindSpore 2.10's gradient is torch's, measured
    equal to 4e-7), with blank 3 and on unnormalised log-probabilities (where the gradient is
    torch's rule, exp(lp) - occupancy, not the recursion's); log_alpha against a direct loop."""
    lp, targets, il, tl = _ctc_inputs()
    blank3 = np.array([[1, 2, 2], [0, 1, 0], [2, 0, 0]], np.int32)
    rest = (Tensor(targets), Tensor(il), Tensor(tl))

    def losses(x):
        outs = [ops.ctc_loss(x, *rest, reduction=r)[0] for r in ("none", "mean", "sum")]
        outs.append(ops.ctc_loss(x, Tensor(blank3), *rest[1:], blank=3, reduction="none")[0])
        outs.append(nn.CTCLoss(reduction="sum")(x + 0.5, *rest))
        return tuple(outs)

    got = compiled(losses, mode)(Tensor(lp))
    grad = compiled(ms.grad(lambda x: sum(o.sum() for o in losses(x))), mode)(Tensor(lp))
    wants = [_torch_ctc(lp, targets, il, tl, reduction=r) for r in ("none", "mean", "sum")]
    wants.append(_torch_ctc(lp, blank3, il, tl, blank=3, reduction="none"))
    wants.append(_torch_ctc(lp + 0.5, targets, il, tl, reduction="sum"))
    for g, (value, _) in zip(got, wants):
        close(g, value)
    close(grad, sum(g for _, g in wants))
    if mode != "onnx":
        log_alpha = compiled(lambda x: ops.ctc_loss(x, *rest)[1], mode)(Tensor(lp)).asnumpy()
        want = _numpy_log_alpha(lp, targets, il, tl)
        assert (np.isinf(log_alpha) == np.isinf(want)).all()
        close(np.where(np.isinf(want), 0, log_alpha), np.where(np.isinf(want), 0, want))


def test_ctc_loss_zero_infinity_and_empty_targets():
    """An input too short for its target costs inf (torch; MindSpore's CPU kernel raises), 0
    with zero_infinity and no gradient; a target length 0 costs -sum(lp[blank]), and 'mean'
    divides by max(length, 1) (measured on MindSpore 2.10: 5.72759 on its inputs)."""
    lp, targets, _, _ = _ctc_inputs()
    il, tl = np.array([6, 5, 1], np.int32), np.array([3, 2, 3], np.int32)
    rest = (Tensor(targets), Tensor(il), Tensor(tl))
    close(ops.ctc_loss(Tensor(lp), *rest, reduction="none")[0], _torch_ctc(lp, targets, il, tl, reduction="none")[0])
    value, grad = ms.jit(ms.value_and_grad(lambda x: ops.ctc_loss(x, *rest, zero_infinity=True)[0]))(Tensor(lp))
    want_value, want_grad = _torch_ctc(lp, targets, il, tl, zero_infinity=True)
    close(value, want_value)
    close(grad, want_grad)
    empty = np.array([3, 0, 1], np.int32)
    out = ops.ctc_loss(Tensor(lp), Tensor(targets), Tensor(np.array([6, 5, 2], np.int32)), Tensor(empty),
                       reduction="none")[0].asnumpy()
    close(out[1], -lp[:5, 1, 0].sum())
    close(ops.ctc_loss(Tensor(lp), Tensor(targets), Tensor(np.array([6, 5, 2], np.int32)), Tensor(empty))[0],
          (out / np.maximum(empty, 1)).mean())


def test_ctc_loss_under_vmap_matches_a_loop():
    """Three members' log-probabilities through one vmapped ctc_loss (the scan's batch rule)."""
    lp, targets, il, tl = _ctc_inputs()
    stack = np.stack([lp, lp[::-1].copy(), lp * 0.5])
    rest = (Tensor(targets), Tensor(il), Tensor(tl))
    fn = lambda x: ops.ctc_loss(x, *rest, reduction="none")[0]  # noqa: E731
    batched = ms.jit(ms.vmap(fn, in_axes=0))(Tensor(stack))
    one = ms.jit(fn)
    close(batched, np.stack([one(Tensor(m)).asnumpy() for m in stack]))


# -- errors ----------------------------------------------------------------------------------------

def test_bad_arguments_name_the_loss():
    x, t = Tensor(X), Tensor(T)
    with pytest.raises(ValueError, match="'cross_entropy', the 'reduction'"):
        ops.cross_entropy(x, t, reduction="bad")
    with pytest.raises(ValueError, match="'nll_loss', the 'reduction'"):       # MindSpore returns 'none''s result
        ops.nll_loss(x, t, reduction="bad")
    with pytest.raises(TypeError, match="input dtype should be float"):
        ops.cross_entropy(Tensor(T.reshape(2, 2)), Tensor(T[:2]))
    with pytest.raises(ValueError, match=r"value of 'target' must be in \[-5, 5\), but got: 7"):
        ops.cross_entropy(x, Tensor(np.array([1, 0, 7, 2], np.int32)))
    with pytest.raises(ValueError, match="'p' must be int and must in"):
        ops.multi_margin_loss(x, t, p=3)
    with pytest.raises(ValueError, match="'eps' must be a positive float, but got 1"):
        ops.gaussian_nll_loss(x, x, x, eps=1)
    with pytest.raises(TypeError, match="dtype of the second input must be float"):
        ops.hinge_embedding_loss(x, t)
    with pytest.raises(ValueError, match="'input' and 'target' must have one shape"):
        ops.binary_cross_entropy_with_logits(x, x[0])
    with pytest.raises(TypeError, match="type of 'margin' should be 'float'"):
        nn.MultiMarginLoss(margin=1)
    with pytest.raises(TypeError, match="type of 'gamma' should be 'float'"):
        nn.FocalLoss(gamma=2)
    with pytest.raises(ValueError, match="dimensions of 'labels' must be in"):
        nn.FocalLoss()(x, t)
    with pytest.raises(ValueError, match="'logits_shape' should be = label_shape"):
        nn.DiceLoss()(x, x[0])
    with pytest.raises(ValueError, match="the dimension of 'weights' must be 2"):
        nn.MultiClassDiceLoss(weights=Tensor(W))
    lp, targets, il, tl = (Tensor(v) for v in _ctc_inputs())
    with pytest.raises(ValueError, match=r"blank must be in \[0,4\)"):
        ops.ctc_loss(lp, targets, il, tl, blank=4)
    with pytest.raises(TypeError, match="'log_probs' must be float32 or float64"):
        ops.ctc_loss(lp.astype(ms.float16), targets, il, tl)
    with pytest.raises(ValueError, match=r"'input_lengths' must be in \[0, 6\], but got 7"):
        ops.ctc_loss(lp, targets, Tensor(np.array([7, 5, 2], np.int32)), tl)
