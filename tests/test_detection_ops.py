"""The object-detection operators (graphcell/ops/detection.py, detection_classes.py) against
MindSpore 2.10's outputs (tests/data/mindspore_detection.npz, written by real MindSpore on its
CPU build from detection_cases.py's inputs), with their ONNX export against XLA, gradients
against the ops' linearity, vmap against a loop, and MindSpore's error messages."""
import os
import sys

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, ops

from tests.modes import run_table

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "data"))
from detection_cases import (ANC, BOXES, CROPS, CV, CVB, D, DEC, ENC, FEAT, GT, IA, IB, IDX, IMG, NMS,  # noqa: E402
                             NMSB, ROIS, RS)

MEASURED = np.load(os.path.join(os.path.dirname(__file__), "data", "mindspore_detection.npz"))


def _cases() -> dict:
    """name: (fn, inputs, MindSpore's output key)."""
    cases = {}
    for i, (size, method) in enumerate(CROPS):
        cases[f"crop{i}"] = (lambda x, b, k, s=size, m=method: ops.crop_and_resize(x, b, k, s, m, -3.0),
                             [IMG, BOXES, IDX])
    cases["crop_u8"] = (lambda x, b, k: ops.crop_and_resize(x, b, k, (3, 4)),
                        [(np.abs(IMG) * 10).astype(np.uint8), BOXES, IDX])
    for i, args in enumerate(ROIS):
        if args[3] > 0:
            cases[f"roi{i}"] = (lambda f, r, a=args: ops.ROIAlign(*a)(f, r), [FEAT, RS])
        else:   # an adaptive grid (sample_num <= 0) is sized by the rois' values: constant rois
            cases[f"roi{i}"] = (lambda f, a=args: ops.ROIAlign(*a)(f, Tensor(RS)), [FEAT])
    for i, (shape, means, stds, clip) in enumerate(DEC):
        cases[f"dec{i}"] = (lambda a, d, s=shape, m=means, t=stds, c=clip: ops.bounding_box_decode(a, d, s, m, t, c),
                            [ANC, D])
    cases["dec_f16"] = (lambda a, d: ops.BoundingBoxDecode((20, 30))(a, d), [ANC.astype(np.float16),
                                                                           D.astype(np.float16)])
    for i, (means, stds) in enumerate(ENC):
        cases[f"enc{i}"] = (lambda a, g, m=means, s=stds: ops.BoundingBoxEncode(m, s)(a, g), [ANC, GT])
    cases["enc_f16"] = (lambda a, g: ops.bounding_box_encode(a, g), [ANC.astype(np.float16), GT.astype(np.float16)])
    cases["iou"] = (lambda a, b: ops.iou(a, b), [IA, IB])
    cases["iof"] = (lambda a, b: ops.IOU("iof")(a, b), [IA, IB])
    cases["iou64"] = (lambda a, b: ops.iou(a, b), [IA.astype(np.float64), IB.astype(np.float64)])
    for i, metas in enumerate(CV):
        cases[f"cv{i}"] = (lambda b, m: ops.check_valid(b, m), [CVB, np.array(metas, np.float32)])
    cases["cv_i16"] = (lambda b, m: ops.CheckValid()(b, m), [CVB.astype(np.int16), np.array(CV[0], np.int16)])
    return cases


CASES = _cases()


def _assert_measured(name, got):
    want = MEASURED[name]
    assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, got.shape)
    tol = 2e-3 if want.dtype == np.float16 else 2e-5      # float32 values up to 10: a few ulps
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol,
                               equal_nan=True, err_msg=name)


# Box 3 of BOXES puts nearest-neighbour points exactly half-way between pixels; XLA rewrites the
# division by a constant in the sample spacing, so its float32 position can fall on the other side
# of .5 than MindSpore's (and onnxruntime's, which match it).
NEAREST = [f"crop{i}" for i, (_, method) in enumerate(CROPS) if method == "nearest"]


def _assert_measured_under_xla(name, got):
    if name in NEAREST:
        np.testing.assert_allclose(np.delete(got, 3, 0), np.delete(MEASURED[name], 3, 0), rtol=2e-5, atol=2e-5)
    else:
        _assert_measured(name, got)


def test_values_match_mindspore_and_onnx_matches_xla():
    # one jitted function and one exported model per family: boxes (iou, coders, check_valid), crops, ROIAlign
    families = [[n for n in CASES if n.startswith(p)] for p in (("iou", "dec", "enc", "cv"), "crop", "roi")]
    for names in families:
        xla, onnx = run_table(CASES, names, "jit"), run_table(CASES, names, "onnx")
        for name in names:
            _assert_measured_under_xla(name, xla[name])
            assert onnx[name].dtype == xla[name].dtype, name
            if name in NEAREST or onnx[name].dtype != np.float16:    # onnxruntime computes float16 in float32
                _assert_measured(name, onnx[name])
            else:
                np.testing.assert_allclose(onnx[name], xla[name], rtol=2e-3, atol=2e-3, err_msg=name)


@pytest.mark.slow
def test_nms_with_mask_matches_mindspore_under_jit_and_vmaps():
    for i, threshold in enumerate(NMS):
        boxes, index, mask = ms.jit(ops.NMSWithMask(threshold))(Tensor(NMSB))
        for key, got in (("b", boxes), ("i", index), ("m", mask)):
            _assert_measured(f"nms{i}_{key}", got.asnumpy())
    # vmap over a batch of box sets is a loop over them (static shapes: [B, N, 5], [B, N], [B, N])
    sets = np.stack([NMSB, NMSB[::-1].copy(), NMSB * np.float32([1, 1, 1, 1, 0.5])])
    nms = ops.NMSWithMask(0.3)
    boxes, _, mask = ms.vmap(nms)(Tensor(sets))
    for b in range(3):
        one_boxes, _, one_mask = nms(Tensor(sets[b]))
        np.testing.assert_array_equal(boxes.asnumpy()[b], one_boxes.asnumpy())
        np.testing.assert_array_equal(mask.asnumpy()[b], one_mask.asnumpy())


def test_nms_with_mask_exports_to_onnx():
    want = [o.asnumpy() for o in ms.jit(ops.NMSWithMask(0.3))(Tensor(NMSB))]
    got = [o.asnumpy() for o in ms.jit(ops.NMSWithMask(0.3), backend="onnx")(Tensor(NMSB))]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def _linear_gradient_check(f, x, rng):
    """f is linear in x: the gradient of <w, f(x)> is the adjoint, so <grad, v> == <w, f(v)>."""
    f = ms.jit(f)
    w = rng.standard_normal(f(Tensor(x)).shape).astype(np.float32)
    grad = ms.jit(ms.grad(lambda a: ops.reduce_sum(ops.mul(f(a), Tensor(w)))))(Tensor(x)).asnumpy()
    for _ in range(3):
        v = rng.standard_normal(x.shape).astype(np.float32)
        np.testing.assert_allclose((grad * v).sum(), (w * f(Tensor(v)).asnumpy()).sum(), rtol=1e-4, atol=1e-4)
    assert np.abs(grad).sum() > 0


@pytest.mark.slow
def test_crop_and_resize_and_roi_align_gradients_wrt_the_image():
    rng = np.random.default_rng(0)
    for method in ("bilinear", "nearest"):
        _linear_gradient_check(lambda x, m=method: ops.crop_and_resize(x, Tensor(BOXES), Tensor(IDX), (3, 4), m, 0.0),
                               IMG, rng)
    _linear_gradient_check(lambda x: ops.ROIAlign(2, 3, 0.7, 2, 0)(x, Tensor(RS)), FEAT, rng)


def test_crop_and_resize_gradient_wrt_boxes_is_finite_differences():
    box = np.array([[0.1, 0.2, 0.7, 0.9], [0.3, 0.05, 0.8, 0.6]], np.float32)

    def loss(b):
        return ops.reduce_sum(ops.square(ops.crop_and_resize(Tensor(IMG), b, Tensor(IDX[:2]), (3, 4))))
    grad = ms.jit(ms.grad(loss))(Tensor(box)).asnumpy()
    loss = ms.jit(loss)
    eps = 1e-3
    for k in [(0, 0), (0, 3), (1, 1), (1, 2)]:
        up, down = box.copy(), box.copy()
        up[k] += eps
        down[k] -= eps
        fd = (loss(Tensor(up)).asnumpy() - loss(Tensor(down)).asnumpy()) / (2 * eps)
        np.testing.assert_allclose(grad[k], fd, rtol=2e-2, atol=1e-1)


def _raises(fn, kind, message):
    with pytest.raises(kind) as info:
        fn()
    assert message in str(info.value), str(info.value)


def test_errors_as_mindspore():
    a, b = Tensor(IA), Tensor(IB)
    img, boxes, idx = Tensor(IMG), Tensor(BOXES), Tensor(IDX)
    # messages measured on MindSpore 2.10
    _raises(lambda: ops.iou(a, b, "giou"), KeyError, "For 'IOU', only 'iou' or 'iof' are supported, but got 'mode': giou.")
    _raises(lambda: ops.iou(Tensor(IA[:, :3]), b), ValueError,
            "For primitive[IOU], the anchor_boxes.shape[1] must be equal to 4, but got 3.")
    _raises(lambda: ops.iou(a.astype(ms.int32), b.astype(ms.int32)), TypeError,
            "For primitive[IOU], the input argument[x] must be a type of {Tensor[Float16], Tensor[Float32], "
            "Tensor[Float64]}, but got Tensor[Int32].")
    _raises(lambda: ops.iou(a, b.astype(ms.float16)), TypeError, "For primitive[IOU], the input type must be same.")
    _raises(lambda: ops.bounding_box_encode(Tensor(ANC[:3]), Tensor(GT[:2])), ValueError,
            "For 'BoundingBoxEncode', 'anchor_box' and 'groundtruth_box' must have the same first dimension. But got "
            "anchor_box_shape[0]: 3, groundtruth_box_shape[0]: 2.")
    _raises(lambda: ops.bounding_box_encode(Tensor(ANC), Tensor(GT), means=[0., 0., 0., 0.]), TypeError,
            "For 'BoundingBoxEncode', the type of 'means' should be 'tuple', but got type 'list'.")
    _raises(lambda: ops.bounding_box_encode(Tensor(ANC), Tensor(GT), means=(0, 0, 0, 0)), TypeError,
            "For 'BoundingBoxEncode', the type of 'means[0]' should be 'float', but got type 'int'.")
    _raises(lambda: ops.bounding_box_encode(Tensor(ANC.astype(np.float64)), Tensor(GT.astype(np.float64))),
            TypeError, "must be a type of {Tensor[Float16], Tensor[Float32]}, but got Tensor[Float64].")
    _raises(lambda: ops.bounding_box_decode(Tensor(ANC), Tensor(D), [20, 30]), TypeError,
            "For 'BoundingBoxDecode', the type of 'max_shape' should be 'tuple', but got type 'list'.")
    _raises(lambda: ops.bounding_box_decode(Tensor(ANC), Tensor(D), (20, 30), wh_ratio_clip=1), TypeError,
            "For 'BoundingBoxDecode', the type of 'wh_ratio_clip' should be 'float', but got type 'int'.")
    _raises(lambda: ops.check_valid(Tensor(CVB.astype(np.int32)), Tensor(np.array(CV[0], np.int32))), TypeError,
            "For primitive[CheckValid], the input argument[bboxes] must be a type of {Tensor[Float16], "
            "Tensor[Float32], Tensor[Int16], Tensor[UInt8]}, but got Tensor[Int32].")
    _raises(lambda: ops.check_valid(Tensor(CVB), Tensor(np.float32([6, 9]))), ValueError,
            "For 'CheckValid', the first dimension of 'img_metas' must equal to 3, but got: 2.")
    _raises(lambda: ops.crop_and_resize(img, boxes, idx, [2, 2]), TypeError,
            "For crop_and_resize, the input crop_size must be a tuple, but got <class 'list'>")
    _raises(lambda: ops.crop_and_resize(img, boxes, idx.astype(ms.int64), (2, 2)), TypeError,
            "For crop_and_resize, the input box_indices must be Int32, but got Int64")
    _raises(lambda: ops.crop_and_resize(img, boxes, idx, (2, 2), "area"), ValueError,
            "For 'CropAndResize', the 'method' must be str and must be in '['bilinear', 'nearest', 'bilinear_v2']', "
            "but got 'area'.")
    _raises(lambda: ops.crop_and_resize(img, boxes, Tensor(IDX + 1), (2, 2)), ValueError,
            "For 'CropAndResize', the value of box_index must be in [0, 2), but got [2].")
    _raises(lambda: ops.CropAndResize(extrapolation_value=1), TypeError,
            "For 'CropAndResize', the type of 'extrapolation_value' should be 'float', but got type 'int'.")
    _raises(lambda: ops.ROIAlign(2, 2, 1), TypeError,
            "For 'ROIAlign', the type of 'spatial_scale' should be 'float', but got type 'int'.")
    _raises(lambda: ops.ROIAlign(2, 2, 1.0, 2, 2), ValueError,
            "For 'ROIAlign', the 'roi_end_mode' must be in range of [0, 1], but got 2 with type 'int'.")
    _raises(lambda: ops.ROIAlign(2, 2, 1.0)(Tensor(FEAT), Tensor(RS[:, :4])), ValueError,
            "The argument[second dim of rois shape] must be equal to 5, but got 4.")
    _raises(lambda: ops.ROIAlign(2, 2, 1.0)(Tensor(FEAT), Tensor(np.float32([[3, 0, 0, 2, 2]]))), RuntimeError,
            "image_index 3 must be a number in [0,1]")
    _raises(lambda: ops.NMSWithMask(1), TypeError,
            "For 'NMSWithMask', the type of 'iou_threshold' should be 'float', but got type 'int'.")
    _raises(lambda: ops.NMSWithMask()(Tensor(NMSB[:, :4])), ValueError,
            "For NMSWithMask, the 2nd dim in shape of bboxes should equal to 5")


def test_classes_record_mindspores_attributes():
    assert repr(ops.BoundingBoxDecode((3, 4))) == ("Prim[BoundingBoxDecode]<max_shape=(3, 4), means=(0.0, 0.0, 0.0, "
                                                    "0.0), stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016>")
    assert repr(ops.ROIAlign(2, 2, 0.5)) == ("Prim[ROIAlign]<pooled_height=2, pooled_width=2, spatial_scale=0.5, "
                                             "sample_num=2, roi_end_mode=1>")
    assert repr(ops.NMSWithMask()) == "Prim[NMSWithMask]<iou_threshold=0.5>"
    assert repr(ops.IOU()) == "Prim[IOU]<mode=iou>"
