"""Writes mindspore_detection.npz: MindSpore 2.10's (CPU) outputs for the detection cases of
detection_cases.py (crop_and_resize, ROIAlign, bounding_box_encode/decode, iou, check_valid,
NMSWithMask). Run with MindSpore's interpreter from this folder:

    /path/to/mindspore-venv/bin/python make_detection_mindspore.py
"""
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor as T
from mindspore import ops

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from detection_cases import (ANC, BOXES, CROPS, CV, CVB, D, DEC, ENC, FEAT, GT, IA, IB, IDX, IMG, NMS,  # noqa: E402
                             NMSB, ROIS, RS)

out = {}
for i, (size, method) in enumerate(CROPS):
    out[f"crop{i}"] = ops.crop_and_resize(T(IMG), T(BOXES), T(IDX), size, method, -3.0).asnumpy()
out["crop_u8"] = ops.crop_and_resize(T((np.abs(IMG) * 10).astype(np.uint8)), T(BOXES), T(IDX), (3, 4)).asnumpy()
for i, args in enumerate(ROIS):
    out[f"roi{i}"] = ops.ROIAlign(*args)(T(FEAT), T(RS)).asnumpy()
for i, (shape, means, stds, clip) in enumerate(DEC):
    out[f"dec{i}"] = ops.bounding_box_decode(T(ANC), T(D), shape, means, stds, clip).asnumpy()
out["dec_f16"] = ops.bounding_box_decode(T(ANC).astype(ms.float16), T(D).astype(ms.float16), (20, 30)).asnumpy()
for i, (means, stds) in enumerate(ENC):
    out[f"enc{i}"] = ops.bounding_box_encode(T(ANC), T(GT), means, stds).asnumpy()
out["enc_f16"] = ops.bounding_box_encode(T(ANC).astype(ms.float16), T(GT).astype(ms.float16)).asnumpy()
out["iou"] = ops.iou(T(IA), T(IB)).asnumpy()
out["iof"] = ops.iou(T(IA), T(IB), "iof").asnumpy()
out["iou64"] = ops.iou(T(IA.astype(np.float64)), T(IB.astype(np.float64))).asnumpy()
for i, metas in enumerate(CV):
    out[f"cv{i}"] = ops.check_valid(T(CVB), T(np.array(metas, np.float32))).asnumpy()
out["cv_i16"] = ops.check_valid(T(CVB.astype(np.int16)), T(np.array(CV[0], np.int16))).asnumpy()
for i, threshold in enumerate(NMS):
    boxes, index, mask = ops.NMSWithMask(threshold)(T(NMSB))
    out[f"nms{i}_b"], out[f"nms{i}_i"], out[f"nms{i}_m"] = boxes.asnumpy(), index.asnumpy(), mask.asnumpy()
np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_detection.npz"), **out)
