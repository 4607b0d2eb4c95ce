"""graphcell.mint.nn and mint.nn.functional against torch (2.10's CPU build has no kernel for
most of them, so torch is their reference), and the layers' parameters against literals
measured on MindSpore 2.10."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import graphcell as ms
from graphcell import Tensor, mint
from graphcell.mint.nn import functional as MF
from tests.modes import run_table

rng = np.random.RandomState(0)
X2 = rng.randn(3, 4).astype(np.float32)
X3 = rng.randn(2, 3, 6).astype(np.float32)
X4 = rng.randn(2, 3, 5, 5).astype(np.float32)
X5 = rng.randn(1, 2, 4, 4, 4).astype(np.float32)
P2 = (1 / (1 + np.exp(-rng.randn(3, 4)))).astype(np.float32)
W4 = rng.randn(2, 3, 3, 3).astype(np.float32)
W3 = rng.randn(2, 3, 3).astype(np.float32)
W5 = rng.randn(2, 2, 2, 2, 2).astype(np.float32)
WT = rng.randn(3, 2, 3, 3).astype(np.float32)
B2 = rng.randn(2).astype(np.float32)
LAB = np.array([1, 0, 3], np.int64)
SIGN = np.array([1, -1, 1], np.float32)
C3 = rng.rand(3).astype(np.float32) + 0.5
G4 = rng.randn(4).astype(np.float32)


def t(a):
    return torch.from_numpy(np.array(a))


# name: (graphcell function, input arrays, torch function of the same arrays)
CASES = {
    "relu": (MF.relu, [X2], TF.relu),
    "relu6": (MF.relu6, [X2], TF.relu6),
    "elu": (lambda x: MF.elu(x, 0.7), [X2], lambda x: TF.elu(x, 0.7)),
    "hardtanh": (lambda x: MF.hardtanh(x, -0.5, 0.8), [X2], lambda x: TF.hardtanh(x, -0.5, 0.8)),
    "threshold": (lambda x: MF.threshold(x, 0.1, 9.0), [X2], lambda x: TF.threshold(x, 0.1, 9.0)),
    "silu": (MF.silu, [X2], TF.silu),
    "sigmoid": (MF.sigmoid, [X2], torch.sigmoid),
    "tanh": (MF.tanh, [X2], torch.tanh),
    "gelu": (MF.gelu, [X2], TF.gelu),
    "gelu_tanh": (lambda x: MF.gelu(x, approximate="tanh"), [X2], lambda x: TF.gelu(x, approximate="tanh")),
    "leaky_relu": (MF.leaky_relu, [X2], TF.leaky_relu),
    "logsigmoid": (MF.logsigmoid, [X2], TF.logsigmoid),
    "prelu": (MF.prelu, [X4, C3], TF.prelu),
    "glu": (MF.glu, [X2], TF.glu),
    "mish": (MF.mish, [X2], TF.mish),
    "selu": (MF.selu, [X2], TF.selu),
    "softplus": (lambda x: MF.softplus(x, 2, 1), [X2], lambda x: TF.softplus(x, 2, 1)),
    "hardshrink": (MF.hardshrink, [X2], TF.hardshrink),
    "softshrink": (MF.softshrink, [X2], TF.softshrink),
    "hardsigmoid": (MF.hardsigmoid, [X2], TF.hardsigmoid),
    "hardswish": (MF.hardswish, [X2], TF.hardswish),
    "softmax_implicit_3d": (MF.softmax, [X3], lambda x: TF.softmax(x, 0)),   # dim=None: torch's axis 0
    "softmax_implicit_4d": (MF.softmax, [X4], lambda x: TF.softmax(x, 1)),
    "log_softmax": (lambda x: MF.log_softmax(x, -1), [X3], lambda x: TF.log_softmax(x, -1)),
    "linear": (MF.linear, [X4, X4[0, 0, :2], B2], TF.linear),
    "conv1d": (lambda x, w: MF.conv1d(x, w, None, 2, 1), [X3, W3], lambda x, w: TF.conv1d(x, w, None, 2, 1)),
    "conv2d": (lambda x, w, b: MF.conv2d(x, w, b, 1, (1, 2), 2), [X4, W4, B2],
               lambda x, w, b: TF.conv2d(x, w, b, 1, (1, 2), 2)),
    "conv2d_same": (lambda x, w: MF.conv2d(x, w, padding="same"), [X4, W4], lambda x, w: TF.conv2d(x, w, padding="same")),
    "conv3d": (lambda x, w: MF.conv3d(x, w, None, 1, 1), [X5, W5], lambda x, w: TF.conv3d(x, w, None, 1, 1)),
    "conv_transpose2d": (lambda x, w, b: MF.conv_transpose2d(x, w, b, 2, 1, 1), [X4, WT, B2],
                         lambda x, w, b: TF.conv_transpose2d(x, w, b, 2, 1, 1)),
    "layer_norm": (lambda x, w: MF.layer_norm(x, (4,), w, None), [X2, G4], lambda x, w: TF.layer_norm(x, (4,), w, None)),
    "group_norm": (lambda x, w: MF.group_norm(x, 3, w, w), [X4, C3], lambda x, w: TF.group_norm(x, 3, w, w)),
    "batch_norm_eval": (lambda x, m, v: MF.batch_norm(x, m, v), [X4, C3 - 1, C3],
                        lambda x, m, v: TF.batch_norm(x, m, v)),
    "normalize": (lambda x: MF.normalize(x, 3.0, 0), [X2], lambda x: TF.normalize(x, 3.0, 0)),
    "avg_pool1d": (lambda x: MF.avg_pool1d(x, 3, 2, 1, True, False), [X3],
                   lambda x: TF.avg_pool1d(x, 3, 2, 1, True, False)),
    "avg_pool2d": (lambda x: MF.avg_pool2d(x, 3, 2, 1, divisor_override=4), [X4],
                   lambda x: TF.avg_pool2d(x, 3, 2, 1, divisor_override=4)),
    "avg_pool3d": (lambda x: MF.avg_pool3d(x, 2), [X5], lambda x: TF.avg_pool3d(x, 2)),
    "max_pool2d": (lambda x: MF.max_pool2d(x, 3, 2, 1, ceil_mode=True), [X4],
                   lambda x: TF.max_pool2d(x, 3, 2, 1, ceil_mode=True)),
    "adaptive_avg_pool1d": (lambda x: MF.adaptive_avg_pool1d(x, 4), [X3], lambda x: TF.adaptive_avg_pool1d(x, 4)),
    "adaptive_avg_pool2d": (lambda x: MF.adaptive_avg_pool2d(x, (2, 3)), [X4], lambda x: TF.adaptive_avg_pool2d(x, (2, 3))),
    "adaptive_avg_pool3d": (lambda x: MF.adaptive_avg_pool3d(x, 3), [X5], lambda x: TF.adaptive_avg_pool3d(x, 3)),
    "adaptive_max_pool1d": (lambda x: MF.adaptive_max_pool1d(x, 4, True), [X3],
                            lambda x: TF.adaptive_max_pool1d(x, 4, True)),
    "adaptive_max_pool2d": (lambda x: MF.adaptive_max_pool2d(x, 3), [X4], lambda x: TF.adaptive_max_pool2d(x, 3)),
    "cross_entropy": (MF.cross_entropy, [X2, LAB], TF.cross_entropy),
    "cross_entropy_smooth_w": (lambda x, y, w: MF.cross_entropy(x, y, w, 0, "mean", 0.2), [X2, LAB, G4],
                               lambda x, y, w: TF.cross_entropy(x, y, w, ignore_index=0, label_smoothing=0.2)),
    "cross_entropy_probs": (lambda x, y: MF.cross_entropy(x, y, label_smoothing=0.1), [X2, P2],
                            lambda x, y: TF.cross_entropy(x, y, label_smoothing=0.1)),
    "nll_loss": (lambda x, y: MF.nll_loss(x, y, reduction="sum"), [X2, LAB], lambda x, y: TF.nll_loss(x, y, reduction="sum")),
    "bce": (MF.binary_cross_entropy, [P2, P2[::-1].copy()], TF.binary_cross_entropy),
    "bce_logits": (lambda x, y, w: MF.binary_cross_entropy_with_logits(x, y, None, "sum", w), [X2, P2, G4],
                   lambda x, y, w: TF.binary_cross_entropy_with_logits(x, y, None, reduction="sum", pos_weight=w)),
    "kl_div": (MF.kl_div, [X2, P2], TF.kl_div),
    "kl_div_log_batchmean": (lambda x, y: MF.kl_div(x, y, "batchmean", True), [X2, X2[::-1].copy()],
                             lambda x, y: TF.kl_div(x, y, reduction="batchmean", log_target=True)),
    "mse_loss": (MF.mse_loss, [X2, P2], TF.mse_loss),
    "l1_loss": (lambda x, y: MF.l1_loss(x, y, "none"), [X2, P2], lambda x, y: TF.l1_loss(x, y, reduction="none")),
    "smooth_l1_loss": (lambda x, y: MF.smooth_l1_loss(x, y, "mean", 0.5), [X2, P2],
                       lambda x, y: TF.smooth_l1_loss(x, y, reduction="mean", beta=0.5)),
    "soft_margin_loss": (MF.soft_margin_loss, [X2, np.sign(P2 - 0.5)], TF.soft_margin_loss),
    "cosine_embedding_loss": (lambda a, b, y: MF.cosine_embedding_loss(a, b, y, 0.1), [X2, P2, SIGN],
                              lambda a, b, y: TF.cosine_embedding_loss(a, b, y, 0.1)),
    "embedding": (lambda i, w: MF.embedding(i, w, padding_idx=0), [LAB, X2.T.copy()],
                  lambda i, w: TF.embedding(i, w, padding_idx=0)),
    "flatten": (MF.flatten, [X4], torch.flatten),
    "fold": (lambda x: MF.fold(x, (3, 4), 2), [rng.randn(1, 8, 6).astype(np.float32)], lambda x: TF.fold(x, (3, 4), 2)),
    "unfold": (lambda x: MF.unfold(x, 2, 1, 1, 2), [X4], lambda x: TF.unfold(x, 2, 1, 1, 2)),
    "pixel_shuffle": (lambda x: MF.pixel_shuffle(x, 2), [rng.randn(1, 4, 2, 3).astype(np.float32)],
                      lambda x: TF.pixel_shuffle(x, 2)),
    "pad_constant": (lambda x: MF.pad(x, (1, 2, 0, 1), value=0.5), [X4], lambda x: TF.pad(x, (1, 2, 0, 1), value=0.5)),
    "pad_reflect": (lambda x: MF.pad(x, (1, 2, 2, 1), "reflect"), [X4], lambda x: TF.pad(x, (1, 2, 2, 1), "reflect")),
    "pad_replicate": (lambda x: MF.pad(x, (1, 2), "replicate"), [X3], lambda x: TF.pad(x, (1, 2), "replicate")),
    "interpolate_nearest": (lambda x: MF.interpolate(x, scale_factor=2.0), [X4],
                            lambda x: TF.interpolate(x, scale_factor=2.0)),
    "interpolate_bilinear": (lambda x: MF.interpolate(x, (7, 3), mode="bilinear", align_corners=True), [X4],
                             lambda x: TF.interpolate(x, (7, 3), mode="bilinear", align_corners=True)),
    "upsample": (lambda x: MF.upsample(x, (8, 8), mode="bilinear"), [X4],
                 lambda x: TF.interpolate(x, (8, 8), mode="bilinear")),
    "dropout_eval": (lambda x: MF.dropout(x, 0.5, False), [X2], lambda x: TF.dropout(x, 0.5, False)),
    "dropout_p1": (lambda x: MF.dropout(x, 1.0), [X2], lambda x: TF.dropout(x, 1.0)),
}
ONNX_SKIP = {"fold", "adaptive_max_pool1d"}   # exported elsewhere; keep the ONNX model small


def torch_value(name):
    fn, arrays = CASES[name][2], CASES[name][1]
    out = fn(*(t(a) for a in arrays))
    return tuple(o.numpy() for o in out) if isinstance(out, tuple) else out.numpy()


@pytest.mark.parametrize("mode", ["jit", "onnx"])
def test_functional_table_against_torch(mode):
    names = [n for n in CASES if mode == "jit" or n not in ONNX_SKIP]
    got = run_table(CASES, names, mode)
    for name in names:
        np.testing.assert_allclose(np.asarray(got[name], np.float64) if not isinstance(got[name], tuple) else got[name][0],
                                   torch_value(name) if not isinstance(got[name], tuple) else torch_value(name)[0],
                                   rtol=1e-4, atol=1e-5, err_msg=name)


# -- layers -----------------------------------------------------------------------------------------
# Measured on MindSpore 2.10 (CPU) after mindspore.set_seed(5), each layer built alone.
MEASURED_INIT = {
    "Linear(3, 2)": (lambda: mint.nn.Linear(3, 2), {
        "weight": [[-0.17100371420383453, 0.5126106142997742, 0.22729022800922394],
                   [-0.4474656581878662, 0.43838804960250854, -0.150310680270195]],
        "bias": [0.48856452107429504, 0.24124675989151]}),
    "Conv1d(2, 2, 2)": (lambda: mint.nn.Conv1d(2, 2, 2), {
        "weight": [[[-0.1480935662984848, 0.4439338147640228], [0.1968391090631485, -0.38751664757728577]],
                   [[0.3796551823616028, -0.13017286360263824], [0.2992985248565674, -0.3491893410682678]]],
        "bias": [0.4231092929840088, 0.20892582833766937]}),
    "Conv2d(2, 2, (1, 2), groups=2)": (lambda: mint.nn.Conv2d(2, 2, (1, 2), groups=2), {
        "weight": [[[[-0.20943590998649597, 0.6278172135353088]]], [[[0.27837252616882324, -0.5480312705039978]]]],
        "bias": [0.598366916179657, 0.29546573758125305]}),
    "Conv3d(1, 1, (1, 1, 2))": (lambda: mint.nn.Conv3d(1, 1, (1, 1, 2)), {
        "weight": [[[[[-0.20943590998649597, 0.6278172135353088]]]]], "bias": [0.598366916179657]}),
    "ConvTranspose2d(2, 2, (1, 2))": (lambda: mint.nn.ConvTranspose2d(2, 2, (1, 2)), {
        "weight": [[[[-0.1480935662984848, 0.4439338147640228]], [[0.1968391090631485, -0.38751664757728577]]],
                   [[[0.3796551823616028, -0.13017286360263824]], [[0.2992985248565674, -0.3491893410682678]]]],
        "bias": [0.4231092929840088, 0.20892582833766937]}),
    "BatchNorm2d(2)": (lambda: mint.nn.BatchNorm2d(2), {
        "weight": [1.0, 1.0], "bias": [0.0, 0.0], "running_mean": [0.0, 0.0], "running_var": [1.0, 1.0],
        "num_batches_tracked": 0}),
    "GroupNorm(1, 2)": (lambda: mint.nn.GroupNorm(1, 2), {"weight": [1.0, 1.0], "bias": [0.0, 0.0]}),
    "Embedding(3, 2, padding_idx=1)": (lambda: mint.nn.Embedding(3, 2, padding_idx=1), {
        "weight": [[-0.5099658966064453, 1.7925877571105957], [0.0, 0.0], [-0.8243007063865662, 1.1124595403671265]]}),
    "PReLU(2)": (lambda: mint.nn.PReLU(2), {"weight": [0.25, 0.25]}),
}


@pytest.mark.parametrize("name", sorted(MEASURED_INIT))
def test_layer_parameters_as_measured(name):
    make, expected = MEASURED_INIT[name]
    ms.set_seed(5)
    layer = make()
    got = {p.name: p.asnumpy() for p in layer.get_parameters()}
    assert list(got) == list(expected)   # names and order, as 2.10's checkpoints
    for key, value in expected.items():
        np.testing.assert_array_equal(got[key], np.asarray(value, got[key].dtype), err_msg=key)
    assert got.get("num_batches_tracked", np.int64(0)).dtype == np.int64


def test_reprs_as_measured():
    # measured on MindSpore 2.10
    assert repr(mint.nn.Conv2d(3, 2, 3)) == ("Conv2d(input_channels=3, output_channels=2, kernel_size=(3, 3), "
                                             "stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1, bias=True)")
    assert repr(mint.nn.BatchNorm1d(3)) == ("BatchNorm1d(num_features=3, eps=1e-05, momentum=0.1, affine=True, "
                                           "track_running_stats=True)")
    assert repr(mint.nn.GroupNorm(1, 3)) == "GroupNorm(num_groups=1, num_channels=3, eps=1e-05, affine=True)"
    assert repr(mint.nn.AdaptiveMaxPool1d(2)) == "AdaptiveMaxPool1d(output_size=2, return_indices=False)"
    assert repr(mint.nn.ReLU6()) == "ReLU6()"
    assert mint.nn.Linear is ms.nn.Linear and mint.nn.LayerNorm is ms.nn.LayerNormExt


def _copy_into_torch(ours, theirs):
    with torch.no_grad():
        for p in ours.get_parameters():
            getattr(theirs, p.name).copy_(torch.from_numpy(p.asnumpy()))


# name: (graphcell layer, torch layer, input)
LAYERS = {
    "Conv1d_reflect": (lambda: mint.nn.Conv1d(3, 2, 3, 2, 1, padding_mode="reflect"),
                       lambda: torch.nn.Conv1d(3, 2, 3, 2, 1, padding_mode="reflect"), X3),
    "Conv2d": (lambda: mint.nn.Conv2d(3, 2, 3, 1, "same", 2, bias=False),
               lambda: torch.nn.Conv2d(3, 2, 3, 1, "same", 2, bias=False), X4),
    "Conv2d_circular": (lambda: mint.nn.Conv2d(3, 4, 2, 1, (1, 2), groups=1, padding_mode="circular"),
                        lambda: torch.nn.Conv2d(3, 4, 2, 1, (1, 2), padding_mode="circular"), X4),
    "Conv3d": (lambda: mint.nn.Conv3d(2, 2, 2, 2), lambda: torch.nn.Conv3d(2, 2, 2, 2), X5),
    "ConvTranspose2d": (lambda: mint.nn.ConvTranspose2d(3, 4, 3, 2, 1, 1, groups=1),
                        lambda: torch.nn.ConvTranspose2d(3, 4, 3, 2, 1, 1), X4),
    "BatchNorm1d": (lambda: mint.nn.BatchNorm1d(3), lambda: torch.nn.BatchNorm1d(3), X3),
    "BatchNorm3d_no_stats": (lambda: mint.nn.BatchNorm3d(2, track_running_stats=False),
                             lambda: torch.nn.BatchNorm3d(2, track_running_stats=False), X5),
    "GroupNorm": (lambda: mint.nn.GroupNorm(3, 3), lambda: torch.nn.GroupNorm(3, 3), X4),
    "LayerNorm": (lambda: mint.nn.LayerNorm((5, 5)), lambda: torch.nn.LayerNorm((5, 5)), X4),
    "GELU": (lambda: mint.nn.GELU(), lambda: torch.nn.GELU(), X2),
    "Softmax": (lambda: mint.nn.Softmax(), lambda: torch.nn.Softmax(), X3),
    "Threshold": (lambda: mint.nn.Threshold(0.2, -1.0), lambda: torch.nn.Threshold(0.2, -1.0), X2),
    "Flatten": (lambda: mint.nn.Flatten(), lambda: torch.nn.Flatten(), X4),
    "AdaptiveAvgPool2d": (lambda: mint.nn.AdaptiveAvgPool2d((3, 2)), lambda: torch.nn.AdaptiveAvgPool2d((3, 2)), X4),
    "AvgPool2d": (lambda: mint.nn.AvgPool2d(2, 1), lambda: torch.nn.AvgPool2d(2, 1), X4),
    "MaxPool2d": (lambda: mint.nn.MaxPool2d(2), lambda: torch.nn.MaxPool2d(2), X4),
    "ZeroPad3d": (lambda: mint.nn.ZeroPad3d((1, 0, 0, 1, 2, 0)), lambda: torch.nn.ZeroPad3d((1, 0, 0, 1, 2, 0)), X5),
    "ConstantPad1d": (lambda: mint.nn.ConstantPad1d(2, 3.5), lambda: torch.nn.ConstantPad1d(2, 3.5), X3),
    "ReflectionPad2d": (lambda: mint.nn.ReflectionPad2d(1), lambda: torch.nn.ReflectionPad2d(1), X4),
    "ReplicationPad1d": (lambda: mint.nn.ReplicationPad1d((0, 2)), lambda: torch.nn.ReplicationPad1d((0, 2)), X3),
    "UpsamplingBilinear2d": (lambda: mint.nn.UpsamplingBilinear2d(scale_factor=2.0),
                             lambda: torch.nn.UpsamplingBilinear2d(scale_factor=2.0), X4),
    "UpsamplingNearest2d": (lambda: mint.nn.UpsamplingNearest2d((7, 9)), lambda: torch.nn.UpsamplingNearest2d((7, 9)), X4),
    "Unfold": (lambda: mint.nn.Unfold(2, stride=2), lambda: torch.nn.Unfold(2, stride=2), X4),
}


def test_layers_against_torch_in_training_mode():
    """One jitted function of every layer (train mode: BatchNorm on batch statistics), then the
    running statistics BatchNorm1d wrote, against torch's."""
    ours = {n: LAYERS[n][0]() for n in LAYERS}
    theirs = {n: LAYERS[n][1]() for n in LAYERS}
    for n in LAYERS:
        _copy_into_torch(ours[n], theirs[n])
        ours[n].set_train(True)
    names = sorted(LAYERS)
    fn = ms.jit(lambda *xs: tuple(ours[n](x) for n, x in zip(names, xs)))
    got = fn(*(Tensor(LAYERS[n][2]) for n in names))
    for n, out in zip(names, got):
        np.testing.assert_allclose(out.asnumpy(), theirs[n](t(LAYERS[n][2])).detach().numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=n)
    bn, tbn = ours["BatchNorm1d"], theirs["BatchNorm1d"]
    np.testing.assert_allclose(bn.running_mean.asnumpy(), tbn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.asnumpy(), tbn.running_var.numpy(), rtol=1e-5, atol=1e-6)
    assert int(bn.num_batches_tracked.asnumpy()) == 1


def test_batchnorm_eval_and_cumulative_momentum():
    bn, tbn = mint.nn.BatchNorm2d(3, momentum=None), torch.nn.BatchNorm2d(3, momentum=None)
    bn.set_train(True)
    for scale in (1.0, 2.0):
        bn(Tensor(X4 * scale))
        tbn(t(X4 * scale))
    np.testing.assert_allclose(bn.running_var.asnumpy(), tbn.running_var.numpy(), rtol=1e-5)
    bn.set_train(False)
    tbn.eval()
    np.testing.assert_allclose(bn(Tensor(X4)).asnumpy(), tbn(t(X4)).detach().numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="expected 4D input"):
        bn(Tensor(X3))


LOSSES = {
    "CrossEntropyLoss": (lambda: mint.nn.CrossEntropyLoss(label_smoothing=0.1), lambda: torch.nn.CrossEntropyLoss(
        label_smoothing=0.1), [X2, LAB]),
    "NLLLoss": (lambda: mint.nn.NLLLoss(reduction="none"), lambda: torch.nn.NLLLoss(reduction="none"), [X2, LAB]),
    "BCELoss": (lambda: mint.nn.BCELoss(), lambda: torch.nn.BCELoss(), [P2, P2[::-1].copy()]),
    "BCEWithLogitsLoss": (lambda: mint.nn.BCEWithLogitsLoss(), lambda: torch.nn.BCEWithLogitsLoss(), [X2, P2]),
    "KLDivLoss": (lambda: mint.nn.KLDivLoss("sum"), lambda: torch.nn.KLDivLoss(reduction="sum"), [X2, P2]),
    "MSELoss": (lambda: mint.nn.MSELoss(), lambda: torch.nn.MSELoss(), [X2, P2]),
    "L1Loss": (lambda: mint.nn.L1Loss(), lambda: torch.nn.L1Loss(), [X2, P2]),
    "SmoothL1Loss": (lambda: mint.nn.SmoothL1Loss(beta=0.3), lambda: torch.nn.SmoothL1Loss(beta=0.3), [X2, P2]),
    "CosineEmbeddingLoss": (lambda: mint.nn.CosineEmbeddingLoss(0.2), lambda: torch.nn.CosineEmbeddingLoss(0.2),
                            [X2, P2, SIGN]),
}


def test_losses_against_torch():
    names = sorted(LOSSES)
    cells = [LOSSES[n][0]() for n in names]
    got = ms.jit(lambda *xs: tuple(c(*xs[3 * i:3 * i + len(LOSSES[n][2])]) for i, (n, c) in enumerate(zip(names, cells))))(
        *(Tensor(a) for n in names for a in (LOSSES[n][2] + [SIGN] * (3 - len(LOSSES[n][2])))))
    for n, out in zip(names, got):
        want = LOSSES[n][1]()(*(t(a) for a in LOSSES[n][2])).numpy()
        np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6, err_msg=n)


def test_every_public_name_of_2_10_is_there():
    # 2.10's mint.nn.__all__ plus the public classes its module holds outside __all__ (measured)
    nn_names = """AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AvgPool1d
    AvgPool2d AvgPool3d BCELoss BCEWithLogitsLoss BatchNorm1d BatchNorm2d BatchNorm3d ConstantPad1d ConstantPad2d
    ConstantPad3d Conv1d Conv2d Conv3d ConvTranspose2d CosineEmbeddingLoss ELU Flatten Fold GELU GroupNorm Hardshrink
    Hardsigmoid Hardswish Hardtanh Identity KLDivLoss L1Loss Linear LogSigmoid LogSoftmax MSELoss MaxUnpool2d Mish
    PReLU PixelShuffle ReLU ReLU6 ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d
    ReplicationPad3d SELU SiLU Sigmoid SmoothL1Loss SoftMarginLoss Softmax SyncBatchNorm Tanh Threshold Unfold Upsample
    UpsamplingBilinear2d UpsamplingNearest2d ZeroPad1d ZeroPad2d ZeroPad3d Cell CrossEntropyLoss Dropout Dropout2d
    Embedding GLU LayerNorm MaxPool2d NLLLoss Softshrink""".split()
    assert [n for n in nn_names if not hasattr(mint.nn, n)] == []
    assert [n for n in MF.__all__ if not callable(getattr(MF, n))] == []
    assert len(MF.__all__) == 68


def test_small_mint_model_exports_to_onnx():
    """onnxruntime's output equals XLA's for a conv / batchnorm / pool / linear model (eval)."""
    class Net(mint.nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = mint.nn.Conv2d(3, 4, 3, padding=1)
            self.bn = mint.nn.BatchNorm2d(4)
            self.pool = mint.nn.AdaptiveAvgPool2d(1)
            self.fc = mint.nn.Linear(4, 2)

        def construct(self, x):
            y = self.pool(MF.relu(self.bn(self.conv(x))))
            return MF.log_softmax(self.fc(MF.flatten(y, 1)), 1)

    ms.set_seed(1)
    net = Net()
    x = Tensor(X4)
    xla = ms.jit(net, backend="xla")(x).asnumpy()
    ort = ms.jit(net, backend="onnx")(x).asnumpy()
    np.testing.assert_allclose(ort, xla, rtol=1e-5, atol=1e-6)
