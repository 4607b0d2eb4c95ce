"""Inputs of the detection-operator cases that make_detection_mindspore.py ran on MindSpore 2.10
(CPU) and tests/test_detection_ops.py replays (numpy only, importable by both)."""
import numpy as np

# crop_and_resize: NHWC images, (y1, x1, y2, x2) boxes (some reversed, outside or degenerate)
IMG = np.sin(np.arange(2 * 5 * 6 * 3, dtype=np.float32)).reshape(2, 5, 6, 3) * 10
BOXES = np.array([[0, 0, 1, 1], [0.1, 0.2, 0.7, 0.9], [-0.2, -0.1, 1.3, 0.5], [0.8, 0.9, 0.2, 0.1],
                  [0.5, 0.5, 0.5, 0.5], [0.25, 0.1, 0.75, 0.3]], np.float32)
IDX = np.array([0, 1, 0, 1, 1, 0], np.int32)
CROPS = [((3, 4), "bilinear"), ((3, 4), "nearest"), ((1, 1), "bilinear"), ((2, 5), "nearest"), ((1, 3), "nearest"),
         ((2, 5), "bilinear")]

# ROIAlign: NCHW features, (batch, x1, y1, x2, y2) rois; (pooled_h, pooled_w, scale, sample_num, roi_end_mode)
FEAT = np.sin(np.arange(2 * 2 * 5 * 6, dtype=np.float32)).reshape(2, 2, 5, 6) * 10
RS = np.array([[0, 0.5, 0.5, 4.2, 3.7], [1, 1, 2, 9, 9], [0, -2, -1, 3, 2], [1, 3, 3, 2, 2], [0, 2, 2, 2, 2],
               [1, -3, -3, -1.5, -1.2], [0, 0.3, 1.1, 7.5, 6.2]], np.float32)
ROIS = [(2, 3, 1.0, 2, 1), (2, 3, 0.5, 2, 0), (1, 2, 0.5, 0, 1), (3, 2, 1.0, -1, 1), (2, 2, 0.7, 3, 0),
        (2, 2, 0.7, 3, 1), (3, 1, 1.3, 0, 0)]

# box coders: anchors, ground truths, deltas; decode (max_shape, means, stds, wh_ratio_clip), encode (means, stds)
ANC = np.array([[2, 2, 2, 3], [0, 0, 10, 20], [1, 2, 5, 4], [-2, -3, 2, 3]], np.float32)
GT = np.array([[1, 2, 1, 4], [1, 1, 12, 18], [0, 0, 2, 2], [-1, -1, 0, 5]], np.float32)
D = np.array([[1., 1., 1., 1.], [-0.5, 0.3, 5., -5.], [0.1, 0.2, 0.3, 0.4], [-1, -1, 0, 0]], np.float32)
_PLAIN = ((0., 0., 0., 0.), (1., 1., 1., 1.))
DEC = [((20, 30), *_PLAIN, 0.016), ((6, 5), (0.1, 0.2, 0.3, 0.4), (1.0, 2.0, 0.5, 0.25), 0.5),
       ((-1, 5), *_PLAIN, -0.1), ((2, -2), *_PLAIN, 0.0), ((0, 0), *_PLAIN, 0.016), ((20, 30), *_PLAIN, 2.0)]
ENC = [_PLAIN, ((0.1, 0.2, 0.3, 0.4), (1.0, 2.0, 0.5, 0.25))]

# iou: anchors (some reversed) and ground truths
IA = np.array([[0, 0, 4, 4], [1, 1, 3, 5], [2, 2, 2, 2], [3, 0, 1, 4], [3, 3, 1, 1], [10, 10, 12, 12]], np.float32)
IB = np.array([[0, 0, 4, 4], [2, 0, 6, 4], [3, 3, 1, 1]], np.float32)

# check_valid: boxes against (height, width, ratio), at and beyond the edges
CVB = np.array([[0, 0, 4, 4], [-1, 0, 3, 3], [1, 1, 9, 5], [1, 1, 9, 6], [2, 2, 1, 1], [0, 0, 8.9, 5.9], [0, 0, 9, 6],
                [0, 0, 8.5, 6.5], [0, 0, -1, -1], [0, 0, 8, 5]], np.float32)
CV = [[6, 9, 1], [6, 9, 2], [6, 9, 0.5], [12, 18, 2]]

# NMSWithMask: 12 random boxes with distinct scores, at several thresholds
_rng = np.random.default_rng(0)
_xy, _wh = _rng.uniform(0, 20, (12, 2)), _rng.uniform(1, 10, (12, 2))
NMSB = np.concatenate([_xy, _xy + _wh, _rng.permutation(12)[:, None] / 12], 1).astype(np.float32)
NMS = [0.5, 0.1, 0.3, 0.0, 1.0]
