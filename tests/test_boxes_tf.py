"""ops.rotated_iou, ops.NonMaxSuppressionV3 and ops.SampleDistortedBoundingBoxV2. 2.10 runs only the
last on CPU (rotated_iou: Ascend only; NonMaxSuppressionV3: no CPU kernel): values against an
independent polygon clipper and TensorFlow's rules, messages measured on MindSpore 2.10."""
import numpy as np
import pytest

import graphcell as ms
import graphcell.ops as ops
from graphcell import Tensor
from graphcell.frontend.tracer import GraphModeError


# -- rotated_iou against Sutherland-Hodgman clipping in float64 -------------------------------------------
def _corners(box, trans):
    x, y, w, h, a = map(float, box)
    if trans:
        x, y, w, h = (x + w) / 2, (y + h) / 2, w - x, h - y
    t = np.deg2rad(a)
    turn = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return np.array([[-.5, -.5], [.5, -.5], [.5, .5], [-.5, .5]]) * [w, h] @ turn.T + [x, y]


def _clip(subject, clipper):
    out = list(subject)
    for a, b in zip(clipper, np.roll(clipper, -1, 0)):
        points, out = out, []
        side = lambda p: (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])  # noqa: E731,B023
        for p, q in zip(points, points[1:] + points[:1]):
            if side(p) >= 0:
                out.append(p)
            if (side(p) >= 0) != (side(q) >= 0):
                out.append(p + (q - p) * (side(p) / (side(p) - side(q))))
        if not out:
            return []
    return out


def _area(poly):
    if len(poly) < 3:
        return 0.0
    p = np.array(poly)
    return 0.5 * abs(np.sum(p[:, 0] * np.roll(p[:, 1], -1) - p[:, 1] * np.roll(p[:, 0], -1)))


def _riou(b1, b2, trans=False, mode=0):
    p, q = _corners(b1, trans), _corners(b2, trans)
    inter = _area(_clip(list(p), q))
    return inter / _area(p) if mode == 1 else inter / (_area(p) + _area(q) - inter)


def _boxes():
    rng = np.random.RandomState(0)
    def draw(n):
        return np.concatenate([rng.uniform(0, 4, (2, n, 2)), rng.uniform(0.5, 3, (2, n, 2)),
                               rng.uniform(-90, 90, (2, n, 1))], -1).astype(np.float32)
    b, q = draw(3), draw(4)
    q[0, 0] = b[0, 0]                          # the same box: 1
    q[0, 1] = b[0, 1] + [0, 0, 0, 0, 90]       # turned a quarter
    q[1, 0] = b[1, 0] + [0.5, 0, 0, 0, 0]      # shifted
    return b, q


@pytest.mark.slow   # two compiles of a 24-point polygon table (~1.5 s)
def test_rotated_iou_matches_polygon_clipping_under_jit_and_onnx():
    b, q = _boxes()
    xyxy = np.concatenate([b[..., :2] - b[..., 2:4] / 2, b[..., :2] + b[..., 2:4] / 2, b[..., 4:]], -1)
    xyxy_q = np.concatenate([q[..., :2] - q[..., 2:4] / 2, q[..., :2] + q[..., 2:4] / 2, q[..., 4:]], -1)

    def table(x, y, xt, yt):
        return (ops.rotated_iou(x, y), ops.rotated_iou(x, y, mode=1), ops.rotated_iou(x, y[:, :3], is_cross=False),
                ops.rotated_iou(xt, yt, trans=True))
    args = [Tensor(a) for a in (b, q, xyxy, xyxy_q)]
    cross = np.array([[[_riou(b[i, n], q[i, k]) for k in range(4)] for n in range(3)] for i in range(2)])
    iof = np.array([[[_riou(b[i, n], q[i, k], mode=1) for k in range(4)] for n in range(3)] for i in range(2)])
    aligned = np.array([[_riou(b[i, n], q[i, n]) for n in range(3)] for i in range(2)])
    assert cross[0, 0, 0] == pytest.approx(1.0)
    for backend in ("xla", "onnx"):
        got = ms.jit(table, backend=backend)(*args)
        for g, want in zip(got, (cross, iof, aligned, cross)):
            assert g.dtype == ms.float32
            np.testing.assert_allclose(g.asnumpy(), want, atol=2e-6, err_msg=backend)


def test_rotated_iou_messages_are_mindspores():
    b = Tensor(np.ones((2, 3, 5), np.float32))
    with pytest.raises(ValueError, match="the shape third Dim must be equal to 5, but got 4"):
        ops.rotated_iou(Tensor(np.ones((2, 3, 4), np.float32)), b)
    with pytest.raises(ValueError, match="must have the same first dim size. But boxes first dim size = 2, "
                                         "query_boxes first dim size = 3"):
        ops.rotated_iou(b, Tensor(np.ones((3, 4, 5), np.float32)))
    with pytest.raises(ValueError, match="input boxes type is illegal"):
        ops.rotated_iou(Tensor(np.ones((2, 3, 5))), Tensor(np.ones((2, 4, 5))))


# -- NonMaxSuppressionV3: TensorFlow's greedy rule ----------------------------------------------------------
def test_non_max_suppression_v3_keeps_tensorflows_boxes():
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [1, 1, 0, 0],       # 1 overlaps 0 by 0.82; 2 is 0 reversed
                      [0, 2, 1, 3], [0, 2.5, 1, 3.5], [5, 5, 5, 6], [0, 0.5, 1, 1.5]], np.float32)   # 5: no area
    scores = np.array([0.9, 0.95, 0.5, 0.8, 0.8, 0.7, 0.6], np.float32)
    nms = ops.NonMaxSuppressionV3()

    def keep(most, iou, score):
        return nms(Tensor(boxes), Tensor(scores), Tensor(most, ms.int32), Tensor(iou, ms.float32),
                   Tensor(score, ms.float32)).asnumpy().tolist()
    # 1 first; 0 (IoU 0.82) and 2 go; equal scores 3 and 4 in index order, 4 overlaps 3 by 1/3
    assert keep(10, 0.5, 0.0) == [1, 3, 4, 5, 6]
    assert keep(10, 0.3, 0.0) == [1, 3, 5]             # 4 goes at 1/3 > 0.3, 6 at 0.6 / 1.4 (its IoU with 1)
    assert keep(2, 0.5, 0.0) == [1, 3]
    assert keep(10, 0.5, 0.75) == [1, 3, 4]            # scores above 0.75 only
    assert keep(10, 0.9, 0.0) == [1, 0, 3, 4, 5, 6]
    assert nms(Tensor(boxes), Tensor(scores), Tensor(3, ms.int32), Tensor(0.5, ms.float32),
               Tensor(0.0, ms.float32)).dtype == ms.int32


def test_non_max_suppression_v3_messages_and_graph_mode():
    nms = ops.NonMaxSuppressionV3()
    b, s = Tensor(np.ones((3, 4), np.float32)), Tensor(np.ones(3, np.float32))
    m, i, st = Tensor(2, ms.int32), Tensor(0.5, ms.float32), Tensor(0.0, ms.float32)
    cases = [  # measured on MindSpore 2.10
        ((Tensor(np.ones((3, 3), np.float32)), s, m, i, st), ValueError, "the boxes second dimension must be equal to "
                                                                         "4, but got 3"),
        ((Tensor(np.ones(3, np.float32)), s, m, i, st), ValueError, "the boxes rank must be equal to 2, but got 1"),
        ((b, Tensor(np.ones((3, 1), np.float32)), m, i, st), ValueError, "the scores rank must be equal to 1"),
        ((b, Tensor(np.ones(4, np.float32)), m, i, st), ValueError, "the scores length must be equal to 3, but got 4"),
        ((b, s, Tensor([2], ms.int32), i, st), ValueError, "the max_output_size size must be equal to 0, but got 1"),
        ((b, s, Tensor(2.0, ms.float32), i, st), TypeError, r"the input argument\[max_output_size_type\] must be a "
                                                            r"type of \{Int32, Int64, Tensor\[Int32\], Tensor\[Int64\]\}"),
        ((b, s, m, Tensor(0.5, ms.float16), st), TypeError, "the input type must be same"),
        ((Tensor(np.ones((3, 4))), Tensor(np.ones(3)), m, i, st), TypeError,
         r"the input argument\[boxes_type\] must be a type of \{Tensor\[Float16\], Tensor\[Float32\]\}"),
    ]
    for args, kind, message in cases:
        with pytest.raises(kind, match=message):
            nms(*args)
    with pytest.raises(GraphModeError, match="ops.NMSWithMask"):
        ms.jit(lambda x, y: nms(x, y, m, i, st))(b, s)


# -- SampleDistortedBoundingBoxV2 ---------------------------------------------------------------------------
@pytest.mark.slow   # an XLA and an ONNX compile (~1 s)
def test_sample_distorted_bounding_box_follows_tensorflows_rules():
    image = Tensor(np.array([10, 20, 3], np.int32))
    box = np.array([0.1, 0.1, 0.5, 0.5], np.float32)
    covered = Tensor(np.array([0.3], np.float32))
    op = ops.SampleDistortedBoundingBoxV2(seed=1, seed2=2, aspect_ratio_range=(0.5, 2.0), area_range=(0.1, 0.9))
    sample = ms.jit(lambda b, c: op(image, b, c))
    for k in range(4):   # each a different box: the crop's area and coverage obey the ranges
        b = np.clip(box + 0.1 * k, 0, 1)
        begin, size, bbox = (t.asnumpy() for t in sample(Tensor(b.reshape(1, 1, 4)), covered))
        (y, x, _), (h, w, last) = begin, size
        assert begin.dtype == size.dtype == np.int32 and bbox.shape == (1, 1, 4) and last == -1
        assert 0.1 * 200 <= h * w <= 0.9 * 200 and y + h <= 10 and x + w <= 20
        pixels = np.floor(b * [10, 20, 10, 20])
        inter = max(min(y + h, pixels[2]) - max(y, pixels[0]), 0) * max(min(x + w, pixels[3]) - max(x, pixels[1]), 0)
        assert inter / ((pixels[2] - pixels[0]) * (pixels[3] - pixels[1])) >= 0.3
        np.testing.assert_allclose(bbox.ravel(), [y / 10, x / 20, (y + h) / 10, (x + w) / 20], rtol=1e-6)
    # the same seeds: the same crop on every call, and through ONNX (the same draws)
    first = sample(Tensor(box.reshape(1, 1, 4)), covered)[1].asnumpy()
    np.testing.assert_array_equal(first, sample(Tensor(box.reshape(1, 1, 4)), covered)[1].asnumpy())
    onnx = ms.jit(lambda b, c: op(image, b, c), backend="onnx")(Tensor(box.reshape(1, 1, 4)), covered)
    np.testing.assert_array_equal(first, onnx[1].asnumpy())


def test_sample_distorted_bounding_box_measured_edge_cases():
    image = Tensor(np.array([10, 20, 3], np.int32))
    covered = Tensor(np.array([1.0], np.float32))
    # measured on MindSpore 2.10: no try can cover the box -> the whole image
    tiny = Tensor(np.array([[[0.0, 0.0, 0.01, 0.01]]], np.float32))
    begin, size, bbox = ops.SampleDistortedBoundingBoxV2(seed=5, area_range=(0.9, 1.0))(image, tiny, covered)
    assert begin.asnumpy().tolist() == [0, 0, 0] and size.asnumpy().tolist() == [10, 20, -1]
    np.testing.assert_array_equal(bbox.asnumpy(), [[[0, 0, 1, 1]]])
    # uint8 sizes: -1 wraps to 255 (measured)
    small = Tensor(np.array([[[0.1, 0.1, 0.5, 0.5]]], np.float32))
    size = ops.SampleDistortedBoundingBoxV2(seed=1)(Tensor(np.array([10, 20, 3], np.uint8)), small,
                                                    Tensor(np.array([0.1], np.float32)))[1]
    assert size.dtype == ms.uint8 and size.asnumpy()[2] == 255
    S = ops.SampleDistortedBoundingBoxV2
    mc = Tensor(np.array([0.1], np.float32))
    cases = [  # measured on MindSpore 2.10
        (lambda: S(aspect_ratio_range=(1.0,)), ValueError, "the aspect_ratio_range elements must be equal to 2, but "
                                                           "got 1"),
        (lambda: S(aspect_ratio_range=(-1.0, 2.0)), ValueError, "aspect_ratio_range must be positive"),
        (lambda: S(aspect_ratio_range=(2.0, 1.0)), ValueError, r"aspect_ratio_range\[0\] must less than "
                                                               r"aspect_ratio_range\[1\]"),
        (lambda: S(area_range=(0.5, 1.5)), ValueError, r"the area_range value must be in \(0,1\], but got 1.5"),
        (lambda: S(max_attempts=0), ValueError, "the 'max_attempts' must be int and must > 0, but got '0'"),
        (lambda: S(use_image_if_no_bounding_boxes=1), TypeError, "the 'use_image_if_no_bounding_boxes' must be a "
                                                                 "bool, but got int"),
        (lambda: S()(Tensor(np.array([10, 20], np.int32)), small, mc), ValueError,
         "the image_size elements must be equal to 3, but got 2"),
        (lambda: S()(Tensor(np.array([10, 20, 3], np.float32)), small, mc), TypeError,
         r"the input argument\[image_size\] must be a type of \{Tensor\[Int16\], Tensor\[Int32\], Tensor\[Int64\], "
         r"Tensor\[Int8\], Tensor\[UInt8\]\}, but got Tensor\[Float32\]"),
        (lambda: S()(image, Tensor(np.ones((1, 4), np.float32)), mc), ValueError,
         "the bounding_boxes dimension must be equal to 3, but got 2"),
        (lambda: S()(image, Tensor(np.array([[[0.6, 0.1, 0.5, 0.5]]], np.float32)), mc), RuntimeError,
         r"y_min of bounding box must be less than y_max, got: \[0.6\] and \[0.5\]"),
        (lambda: S()(image, Tensor(np.array([[[0.1, 0.1, 1.5, 0.5]]], np.float32)), mc), RuntimeError,
         r"all bounding box coordinates must in \[0.0, 1.0\], got: \[1.5\]"),
        (lambda: S()(image, Tensor(np.zeros((1, 0, 4), np.float32)), mc), ValueError,
         "Set use_image_if_no_bounding_boxes=True if you wish to not provide any bounding boxes"),
        (lambda: S()(image, small, Tensor(np.array([2.0], np.float32))), RuntimeError,
         r"min_object_covered must be in \[0.0, 1.0\], got: \[2\]"),
        (lambda: S()(image, small, Tensor(np.array([0.1], np.float16))), TypeError,
         r"the input argument\[min_object_covered\] must be a type of \{Tensor\[Float32\]\}"),
        (lambda: S()(Tensor(np.array([0, 20, 3], np.int32)), small, mc), RuntimeError,
         r"image height and width must be positive, got: \[0\] and \[20\]"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind, match=message):
            call()
