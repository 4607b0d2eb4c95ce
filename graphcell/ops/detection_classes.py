"""MindSpore 2.10's object-detection operator classes (ops.IOU, ops.BoundingBoxEncode,
ops.BoundingBoxDecode, ops.CheckValid, ops.CropAndResize, ops.ROIAlign, ops.NMSWithMask) over
detection.py; operations.py re-exports them. Constructor checks and messages are 2.10's."""
from __future__ import annotations

from ..tensor import Tensor
from . import detection as D
from .op_base import exporter, Operator, check_int

__all__: list[str] = []


_export = exporter(__all__)


@_export
class IOU(Operator):
    """ops.iou as a class: IOU(mode)(anchor_boxes, gt_boxes)."""

    def __init__(self, mode="iou"):
        if mode not in ("iou", "iof"):
            raise KeyError(f"For 'IOU', only 'iou' or 'iof' are supported, but got 'mode': {mode}.")
        super().__init__(mode=mode)

    def __call__(self, anchor_boxes, gt_boxes):
        return D.iou(anchor_boxes, gt_boxes, self.mode)


@_export
class BoundingBoxEncode(Operator):
    """ops.bounding_box_encode as a class."""

    def __init__(self, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
        super().__init__(means=D._float_quad("BoundingBoxEncode", "means", means),
                         stds=D._float_quad("BoundingBoxEncode", "stds", stds))

    def __call__(self, anchor_box, groundtruth_box):
        return D.bounding_box_encode(anchor_box, groundtruth_box, self.means, self.stds)


@_export
class BoundingBoxDecode(Operator):
    """ops.bounding_box_decode as a class: BoundingBoxDecode(max_shape, ...)(anchor_box, deltas)."""

    def __init__(self, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
        super().__init__(max_shape=D._check_max_shape(max_shape),
                         means=D._float_quad("BoundingBoxDecode", "means", means),
                         stds=D._float_quad("BoundingBoxDecode", "stds", stds),
                         wh_ratio_clip=D.strict_float("BoundingBoxDecode", "wh_ratio_clip", wh_ratio_clip))

    def __call__(self, anchor_box, deltas):
        return D.bounding_box_decode(anchor_box, deltas, self.max_shape, self.means, self.stds, self.wh_ratio_clip)


@_export
class CheckValid(Operator):
    """ops.check_valid as a class."""

    def __call__(self, bboxes, img_metas):
        return D.check_valid(bboxes, img_metas)


@_export
class CropAndResize(Operator):
    """ops.crop_and_resize as a class: CropAndResize(method, extrapolation_value)(x, boxes,
    box_index, crop_size)."""

    def __init__(self, method="bilinear", extrapolation_value=0.0):
        if not isinstance(method, str) or method not in D.CROP_METHODS:
            raise ValueError(f"For 'CropAndResize', the 'method' must be str and must be in "
                             f"'{list(D.CROP_METHODS)}', but got '{method}'.")
        super().__init__(method=method,
                         extrapolation_value=D.strict_float("CropAndResize", "extrapolation_value",
                                                            extrapolation_value))

    def __call__(self, x, boxes, box_index, crop_size):
        return D.crop_and_resize(x, boxes, box_index, crop_size, self.method, self.extrapolation_value)


_ROI_DTYPES = D._F16_F32


@_export
class ROIAlign(Operator):
    """Detectron's ROIAlign: ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2,
    roi_end_mode=1)(features [N, C, H, W], rois [R, 5]) -> [R, C, pooled_height, pooled_width].

    sample_num <= 0 sizes each roi's grid by its extent; under jit (traced rois) the grid's layout is
    bounded by the feature map's size (ceil(H / pooled_height) per bin) and masked."""

    def __init__(self, pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1):
        op = "ROIAlign"
        attrs = dict(pooled_height=check_int(op, "pooled_height", pooled_height),
                     pooled_width=check_int(op, "pooled_width", pooled_width),
                     spatial_scale=D.strict_float(op, "spatial_scale", spatial_scale),
                     sample_num=check_int(op, "sample_num", sample_num),
                     roi_end_mode=check_int(op, "roi_end_mode", roi_end_mode))
        if attrs["roi_end_mode"] not in (0, 1):
            raise ValueError(f"For 'ROIAlign', the 'roi_end_mode' must be in range of [0, 1], but got "
                             f"{roi_end_mode} with type 'int'.")
        super().__init__(**attrs)

    def __call__(self, features, rois):
        features, rois = D._tensor("ROIAlign", 0, features), D._tensor("ROIAlign", 1, rois)
        D._dtype_in("ROIAlign", "feature", features, _ROI_DTYPES)
        D._dtype_in("ROIAlign", "rois", rois, _ROI_DTYPES)
        if rois.dtype is not features.dtype:
            # MindSpore 2.10 runs this and returns garbage (a [R, R, ...] result); refused here
            raise TypeError(f"For primitive[ROIAlign], 'features' and 'rois' must have the same dtype, but got "
                            f"Tensor[{features.dtype}] and Tensor[{rois.dtype}].")
        if features.ndim != 4:
            raise ValueError(f"For primitive[ROIAlign], the rank of features shape must be equal to 4, but got "
                             f"{features.ndim}.")
        if rois.ndim != 2:
            raise ValueError(f"For primitive[ROIAlign], the rank of rois shape must be equal to 2, but got "
                             f"{rois.ndim}.")
        if rois.shape[1] != 5:
            raise ValueError(f"The argument[second dim of rois shape] must be equal to 5, but got {rois.shape[1]}.")
        for name in ("pooled_height", "pooled_width"):
            if self.attrs[name] <= 0:
                raise ValueError(f"For 'ROIAlign', '{name}' must be positive, but got {self.attrs[name]}.")
        if not rois.is_symbolic:
            D.check_batch_index("ROIAlign", Tensor(rois.asnumpy()[:, 0].astype("int64")), features.shape[0])
        return D.roi_align(features, rois, self.pooled_height, self.pooled_width, self.spatial_scale,
                           self.sample_num, self.roi_end_mode)


@_export
class NMSWithMask(Operator):
    """Greedy non-maximum suppression with static shapes: NMSWithMask(iou_threshold)(bboxes [N, 5]
    (x1, y1, x2, y2, score)) -> (bboxes sorted by score, 0..N-1 int32, kept bool)."""

    def __init__(self, iou_threshold=0.5):
        super().__init__(iou_threshold=D.strict_float("NMSWithMask", "iou_threshold", iou_threshold))

    def __call__(self, bboxes):
        boxes = D._tensor("NMSWithMask", 0, bboxes)
        D._dtype_in("NMSWithMask", "bboxes", boxes, D._F16_F32)
        if boxes.ndim != 2:
            raise ValueError(f"For primitive[NMSWithMask], the shape of bboxes must be equal to 2 , but got "
                             f"{boxes.ndim}.")
        if boxes.shape[1] != 5:
            raise ValueError(f"For NMSWithMask, the 2nd dim in shape of bboxes should equal to 5, but got "
                             f"{boxes.shape[1]}")
        return D.nms_with_mask(boxes, self.iou_threshold)
