"""Records MindSpore 2.10's operator classes (`mindspore.ops.Igamma()(a, x)`) on small inputs.

    /path/to/mindspore-venv/bin/python tools/mindspore_op_classes.py

Run it with MindSpore's own Python (it does not import graphcell), from the repository root.
For each class in CASES it records the constructor's signature (inspect) and, for each case,
the constructor arguments, the call's inputs and MindSpore's outputs (values, dtypes,
shapes), or the error it raised, to tests/data/mindspore_op_classes.json, which
tests/test_ops_classes_more.py replays against graphcell's classes without MindSpore.

A case is (class, constructor kwargs, call inputs[, options]). Inputs are numpy arrays
(Tensors), Python numbers, tuples and lists of them, or dtype names as D("int32"). Options:
"random" records only the outputs' structure (dtype and shape), "rtol"/"atol" the
tolerance the test uses, "param" makes the first input a Parameter (the in-place classes).
"""
from __future__ import annotations

import inspect
import json
import math
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "tests" / "data" / "mindspore_op_classes.json"

RNG = np.random.default_rng(2024)


class D(str):
    """A dtype argument, by name."""


def f32(*shape, lo=-2.0, hi=2.0):
    return np.round(RNG.uniform(lo, hi, shape), 3).astype(np.float32)


def pos(*shape):
    return f32(*shape, lo=0.2, hi=3.0)


def ints(*shape, lo=-5, hi=6, dtype=np.int32):
    return RNG.integers(lo, hi, shape).astype(dtype)


def arr(values, dtype=np.float32):
    return np.array(values, dtype)


X34, Y34, P34 = f32(3, 4), f32(3, 4), pos(3, 4)
X4D = f32(1, 2, 4, 4)
X5D = f32(1, 2, 4, 4, 4)
PROB23 = arr([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
SPECIAL = arr([0.0, -0.0, 1.5, -2.5, np.nan, np.inf, -np.inf])

CASES = [
    # -- elementwise --------------------------------------------------------------------------
    *[(n, {}, [pos(5)]) for n in ["BesselI0", "BesselI0e", "BesselI1", "BesselI1e", "BesselJ0", "BesselJ1",
                                  "BesselK0", "BesselK0e", "BesselK1", "BesselK1e", "BesselY0", "BesselY1"]],
    ("BesselJ0", {}, [f32(4, lo=-8, hi=8)]),
    ("BesselI1e", {}, [f32(4, lo=-8, hi=8)]),
    ("Igamma", {}, [pos(4), pos(4)]),
    ("Igammac", {}, [pos(4), pos(4)]),
    ("Igamma", {}, [pos(2, 1), pos(3)]),
    ("Zeta", {}, [arr([2.0, 3.0, 4.5, 1.5]), pos(4)]),
    ("Mvlgamma", {"p": 1}, [f32(4, lo=1, hi=4)]),
    ("Mvlgamma", {"p": 3}, [f32(2, 2, lo=1.5, hi=4)]),
    ("Gcd", {}, [ints(6), ints(6)]),
    ("Lcm", {}, [ints(6), ints(6)]),
    ("Gcd", {}, [ints(3, 1, dtype=np.int64), ints(4, dtype=np.int64)]),
    ("Heaviside", {}, [arr([-1.5, 0.0, 2.0, 0.0]), arr([0.5, 0.3, 0.2, 0.9])]),
    ("Trunc", {}, [f32(6, lo=-5, hi=5)]),
    ("Trunc", {}, [ints(4)]),
    ("TruncateDiv", {}, [ints(6), ints(6, lo=1, hi=4) * arr([1, -1, 1, -1, 1, -1], np.int32)]),
    ("TruncateDiv", {}, [f32(5, lo=-6, hi=6), arr([2.0, -2.0, 3.0, 1.5, -0.5])]),
    ("TruncateMod", {}, [ints(6), ints(6, lo=1, hi=4) * arr([1, -1, 1, -1, 1, -1], np.int32)]),
    ("TruncateMod", {}, [f32(5, lo=-6, hi=6), arr([2.0, -2.0, 3.0, 1.5, -0.5])]),
    ("Xdivy", {}, [arr([0.0, 1.0, 2.0, 0.0]), arr([0.0, 2.0, -4.0, 5.0])]),
    ("MulNoNan", {}, [arr([1.0, np.inf, np.nan, 3.0]), arr([0.0, 0.0, 0.0, 2.0])]),
    ("MulNoNan", {}, [ints(2, 3), ints(3)]),
    ("Fmax", {}, [arr([1.0, np.nan, np.nan, -2.0]), arr([0.5, 2.0, np.nan, 3.0])]),
    ("Rint", {}, [arr([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -0.2])]),
    ("Logit", {}, [arr([0.1, 0.5, 0.9, 0.0])]),
    ("Logit", {"eps": 0.2}, [arr([0.1, 0.5, 0.9, 0.0])]),
    ("NanToNum", {}, [SPECIAL]),
    ("NanToNum", {"nan": 1.0, "posinf": 9.0, "neginf": -9.0}, [SPECIAL]),
    ("CeLU", {}, [f32(5)]),
    ("CeLU", {"alpha": 2.0}, [f32(5)]),
    ("HShrink", {}, [f32(6)]),
    ("HShrink", {"lambd": 1.0}, [f32(6)]),
    ("SoftShrink", {}, [f32(6)]),
    ("SoftShrink", {"lambd": 1.0}, [f32(6)]),
    ("GLU", {}, [f32(2, 4)]),
    ("GLU", {"axis": 0}, [f32(4, 3)]),
    ("Gelu", {}, [f32(4)]),
    ("FastGelu", {}, [f32(4)]),
    ("TensorAdd", {}, [f32(2, 3), f32(3)]),
    ("SquareSumAll", {}, [f32(2, 3), f32(2, 3)]),
    ("EqualCount", {}, [arr([1, 2, 3, 4], np.int32), arr([1, 0, 3, 5], np.int32)]),
    ("SigmoidCrossEntropyWithLogits", {}, [f32(2, 3), arr([[0, 1, 0.5], [1, 0, 1]])]),
    # -- reductions, norms, statistics --------------------------------------------------------
    ("Cdist", {}, [f32(2, 3, 4), f32(2, 2, 4)]),
    ("Cdist", {"p": 1.0}, [f32(3, 2), f32(4, 2)]),
    ("Pdist", {}, [f32(4, 3)]),
    ("Pdist", {"p": 1.0}, [f32(3, 2)]),
    ("LpNorm", {"axis": 1}, [X34]),
    ("LpNorm", {"axis": [0, 1], "p": 1, "keep_dims": True}, [X34]),
    ("LpNorm", {"axis": 0, "p": 3}, [X34]),
    ("Renorm", {"p": 2, "dim": 0, "maxnorm": 1.0}, [f32(3, 4)]),
    ("Renorm", {"p": 1, "dim": 1, "maxnorm": 2.0}, [f32(3, 4)]),
    ("ReduceStd", {}, [X34]),
    ("ReduceStd", {"axis": 1, "unbiased": False, "keep_dims": True}, [X34]),
    ("ReduceStd", {"axis": [0]}, [X34]),
    ("Median", {}, [arr([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0], [0.0, 9.0, 7.0]])]),
    ("Median", {"axis": 1, "keep_dims": True}, [arr([[1.0, 5.0, 2.0, 8.0], [4.0, 3.0, 6.0, 0.0]])]),
    ("Median", {"global_median": True}, [arr([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]])]),
    ("Cummax", {"axis": 0}, [arr([[3.0, 1.0], [2.0, 5.0], [4.0, 5.0]])]),
    ("Cummin", {"axis": 1}, [arr([[3.0, 1.0, 2.0], [2.0, 5.0, 1.0]])]),
    ("Cummax", {"axis": -1}, [arr([[3, 1, 3, 7], [2, 5, 5, 1]], np.int32)]),
    ("CumulativeLogsumexp", {}, [f32(3, 2), np.array(0, np.int64)]),
    ("CumulativeLogsumexp", {"exclusive": True}, [f32(4), np.array(0, np.int32)]),
    ("CumulativeLogsumexp", {"reverse": True}, [f32(2, 3), np.array(1, np.int64)]),
    ("CumulativeLogsumexp", {"exclusive": True, "reverse": True}, [f32(2, 3), np.array(-1, np.int64)]),
    ("Histogram", {"bins": 4, "min": 0.0, "max": 4.0}, [arr([0.5, 1.0, 1.5, 3.9, 4.0, 5.0, -1.0])]),
    ("Histogram", {"bins": 3}, [arr([1.0, 2.0, 1.0, 3.0])]),
    ("Bincount", {}, [arr([1, 1, 3, 0], np.int32), np.array(5, np.int32), arr([])]),
    ("Bincount", {}, [arr([1, 1, 3, 0], np.int32), np.array(4, np.int32), arr([0.5, 1.0, 2.0, 3.0])]),
    ("Bucketize", {"boundaries": [0.0, 1.0, 2.0]}, [arr([-1.0, 0.0, 0.5, 1.0, 2.5])]),
    ("Bucketize", {"boundaries": [1.0, 3.0]}, [arr([[1, 2], [3, 4]], np.int32)]),
    ("SearchSorted", {}, [arr([1.0, 3.0, 5.0, 7.0]), arr([3.0, 6.0, 9.0, 0.0])]),
    ("SearchSorted", {"right": True}, [arr([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]), arr([[3.0, 5.0], [1.0, 6.0]])]),
    # (2.10's CPU kernel fails with dtype=int32 and refuses `sorter`)
    ("LowerBound", {}, [arr([[1.0, 3.0, 3.0, 5.0]]), arr([[3.0, 4.0, 6.0]])]),
    ("UpperBound", {"out_type": D("int64")}, [arr([[1.0, 3.0, 3.0, 5.0]]), arr([[3.0, 4.0, 0.0]])]),
    ("LogSpace", {"steps": 4}, [arr(0.0), arr(3.0)]),
    ("LogSpace", {"steps": 3, "base": 2}, [arr(1.0), arr(3.0)]),
    ("InvertPermutation", {}, [(3, 0, 2, 1)]),
    # -- arrays and indexing ------------------------------------------------------------------
    ("DiagPart", {}, [f32(3, 3)]),
    ("DiagPart", {}, [f32(2, 3, 2, 3)]),
    ("IdentityN", {}, [(f32(2), ints(3))]),
    ("Pack", {}, [(f32(2), f32(2))]),
    ("Pack", {"axis": 1}, [(f32(2), f32(2))]),
    ("Unpack", {"axis": 1}, [f32(2, 3)]),
    ("GatherV2", {}, [f32(4, 2), arr([3, 0, 1], np.int32), 0, 0]),
    ("FillV2", {}, [arr([2, 3], np.int32), np.array(1.5, np.float32)]),
    ("FillV2", {}, [(2, 2), np.array(7, np.int32)]),
    ("ScalarToTensor", {}, [3]),
    ("ScalarToTensor", {}, [2.5, D("float64")]),
    ("TupleToArray", {}, [(1, 2, 3)]),
    ("TupleToArray", {}, [(1.0, 2.5)]),
    ("TensorShape", {}, [f32(2, 3)]),
    ("TensorToTuple", {}, [arr([1, 2, 3], np.int32)]),
    ("Expand", {}, [f32(3, 1), arr([2, 3, 4], np.int32)]),
    ("ChannelShuffle", {"group": 2}, [f32(1, 4, 2, 2)]),
    ("MirrorPad", {}, [f32(3, 3), arr([[1, 1], [2, 1]], np.int32)]),
    ("MirrorPad", {"mode": "SYMMETRIC"}, [f32(3, 3), arr([[1, 1], [2, 1]], np.int64)]),
    ("PadV3", {}, [f32(2, 3), (1, 2), np.array(0.5, np.float32)]),
    ("PadV3", {}, [f32(1, 2, 3), (1, 1, 0, 1), np.array(0, np.float32)]),
    ("PadV3", {"mode": "reflect"}, [f32(1, 2, 4), (2, 1)]),
    ("PadV3", {"mode": "edge"}, [f32(1, 2, 3), (1, 2)]),
    ("PadV3", {"mode": "circular"}, [f32(1, 2, 3), (1, 2)]),
    ("PadV3", {"paddings_contiguous": False}, [f32(2, 3), (1, 0, 2, 1), np.array(0.0, np.float32)]),
    ("IndexAdd", {"axis": 1}, [f32(2, 3), arr([0, 2, 0], np.int32), f32(2, 3)], {"param": True}),
    ("IndexFill", {}, [f32(3, 4), 1, arr([0, 2], np.int32), np.array(-1.0, np.float32)]),
    ("IndexFill", {}, [ints(3, 2), 0, arr([1], np.int32), np.array(9, np.int32)]),
    ("InplaceAdd", {"indices": (0, 2)}, [f32(3, 2), f32(2, 2)]),
    ("InplaceAdd", {"indices": 1}, [f32(3, 2), f32(1, 2)]),
    ("InplaceSub", {"indices": (1, 0)}, [f32(3, 2), f32(2, 2)]),
    ("InplaceUpdateV2", {}, [f32(3, 2), arr([2, 0], np.int32), f32(2, 2)]),
    ("InplaceUpdate", {"indices": (1,)}, [f32(3, 2), f32(1, 2)]),
    ("InplaceIndexAdd", {"axis": 0}, [f32(3, 2), arr([0, 2, 0], np.int32), f32(3, 2)], {"param": True}),
    ("TensorScatterElements", {}, [f32(3, 3), arr([[1, 0, 2]], np.int32), f32(1, 3)]),
    ("TensorScatterElements", {"axis": 1, "reduction": "add"}, [f32(2, 3), arr([[0, 0], [2, 1]], np.int32),
                                                                 f32(2, 2)]),
    ("ScatterAdd", {}, [f32(3, 2), arr([0, 2, 0], np.int32), f32(3, 2)], {"param": True}),
    ("ScatterSub", {}, [f32(3, 2), arr([[0, 1]], np.int32), f32(1, 2, 2)], {"param": True}),
    ("ScatterMul", {}, [f32(3, 2), arr([2, 0], np.int32), f32(2, 2)], {"param": True}),
    ("ScatterDiv", {}, [pos(3, 2), arr([2, 0], np.int32), pos(2, 2)], {"param": True}),
    ("ScatterMax", {}, [f32(3, 2), arr([2, 0, 2], np.int32), f32(3, 2)], {"param": True}),
    ("ScatterMin", {}, [f32(3, 2), arr([2, 0, 2], np.int32), f32(3, 2)], {"param": True}),
    ("ScatterUpdate", {}, [f32(3, 2), arr([2, 0], np.int32), f32(2, 2)], {"param": True}),
    ("ScatterNdAdd", {}, [f32(4), arr([[1], [3], [1]], np.int32), f32(3)], {"param": True}),
    ("ScatterNdSub", {}, [f32(3, 2), arr([[0], [2]], np.int32), f32(2, 2)], {"param": True}),
    ("ScatterNdMul", {}, [f32(3, 2), arr([[0, 1], [2, 0]], np.int32), f32(2)], {"param": True}),
    ("ScatterNdDiv", {}, [pos(3, 2), arr([[0, 1], [2, 0]], np.int32), pos(2)], {"param": True}),
    ("ScatterNdMax", {}, [f32(4), arr([[1], [3], [1]], np.int32), f32(3)], {"param": True}),
    ("ScatterNdMin", {}, [f32(4), arr([[1], [3], [1]], np.int32), f32(3)], {"param": True}),
    ("ScatterNdUpdate", {}, [f32(3, 2), arr([[0], [2]], np.int32), f32(2, 2)], {"param": True}),
    ("UnsortedSegmentMax", {}, [f32(4, 2), arr([1, 0, 1, 3], np.int32), 4]),
    ("UnsortedSegmentMin", {}, [f32(4, 2), arr([1, 0, 1, 3], np.int32), 4]),
    ("UnsortedSegmentProd", {}, [f32(4, 2), arr([1, 0, 1, 3], np.int32), 4]),
    ("UnsortedSegmentMax", {}, [ints(4), arr([1, 0, 1, 1], np.int32), 3]),
    ("EmbeddingLookup", {}, [f32(4, 2), arr([[1, 3], [0, 5]], np.int32), 1]),
    ("Im2Col", {"ksizes": 2}, [f32(1, 2, 3, 3)]),
    ("Im2Col", {"ksizes": (2, 2), "strides": 2, "pads": 1}, [f32(1, 1, 3, 4)]),
    ("Col2Im", {"kernel_size": (2, 2)}, [f32(1, 2, 4, 4), arr([3, 3], np.int32)]),
    ("Col2Im", {"kernel_size": (2, 2), "stride": (2, 2), "padding": (1, 1)}, [f32(1, 1, 4, 6),
                                                                             arr([3, 4], np.int32)]),
    # -- nn -----------------------------------------------------------------------------------
    ("Dense", {}, [f32(2, 3), f32(4, 3), f32(4)]),
    ("Dense", {}, [f32(2, 3), f32(4, 3), None]),
    ("AdaptiveAvgPool2D", {"output_size": (2, 2)}, [f32(1, 2, 4, 5)]),
    ("AdaptiveAvgPool2D", {"output_size": (None, 3)}, [f32(1, 3, 4)]),
    ("AdaptiveAvgPool3D", {"output_size": (1, 2, 2)}, [f32(1, 1, 2, 4, 4)]),
    ("AdaptiveMaxPool2D", {"output_size": (2, 2)}, [f32(1, 2, 4, 5)]),
    ("AvgPool3D", {"kernel_size": 2, "strides": 2}, [X5D]),
    ("AvgPool3D", {"kernel_size": 3, "strides": 1, "pad_mode": "pad", "pad": 1, "count_include_pad": False},
     [f32(1, 1, 3, 3, 3)]),
    ("AvgPool3D", {"kernel_size": 2, "strides": 2, "pad_mode": "same"}, [f32(1, 1, 3, 3, 3)]),
    ("MaxPool3D", {"kernel_size": 2, "strides": 2}, [X5D]),
    ("MaxPool3D", {"kernel_size": 2, "strides": 2, "pad_mode": "SAME"}, [f32(1, 1, 3, 3, 3)]),
    ("MaxPool3D", {"kernel_size": 3, "strides": 2, "pad_mode": "PAD", "pad_list": 1}, [f32(1, 1, 4, 4, 4)]),
    ("MaxPoolWithArgmaxV2", {"kernel_size": 2, "strides": 2}, [X4D]),
    ("MaxPoolWithArgmaxV2", {"kernel_size": 3, "strides": 1, "pads": 1, "argmax_type": D("int32")}, [f32(1, 1, 3, 4)]),
    ("MaxUnpool2D", {"ksize": 2, "strides": 2}, [arr([[[[5.0, 6.0], [7.0, 8.0]]]]),
                                                 arr([[[[0, 3], [9, 14]]]], np.int64)]),
    ("MaxUnpool3D", {"ksize": 2, "strides": 2}, [arr([[[[[5.0]]]]]), arr([[[[[6]]]]], np.int64)]),
    ("LRN", {}, [f32(1, 4, 2, 2)]),
    ("LRN", {"depth_radius": 1, "bias": 2.0, "alpha": 0.5, "beta": 0.75}, [f32(1, 4, 2, 2)]),
    ("BatchNorm", {}, [f32(2, 3, 2, 2), pos(3), f32(3), f32(3), pos(3)]),
    ("BatchNorm", {"is_training": True, "epsilon": 1e-3}, [f32(2, 3, 2, 2), pos(3), f32(3), f32(3), pos(3)]),
    ("BatchNorm", {}, [f32(4, 3), pos(3), f32(3), f32(3), pos(3)]),
    ("Conv3D", {"out_channel": 2, "kernel_size": 2}, [f32(1, 2, 3, 3, 3), f32(2, 2, 2, 2, 2)]),
    ("Conv3D", {"out_channel": 2, "kernel_size": 3, "pad_mode": "pad", "pad": 1, "stride": 2},
     [f32(1, 1, 4, 4, 4), f32(2, 1, 3, 3, 3)]),
    ("Conv3D", {"out_channel": 2, "kernel_size": 2, "pad_mode": "same"}, [f32(1, 1, 3, 3, 3), f32(2, 1, 2, 2, 2)]),
    ("Conv3DTranspose", {"in_channel": 2, "out_channel": 1, "kernel_size": 2, "stride": 2},
     [f32(1, 2, 2, 2, 2), f32(2, 1, 2, 2, 2)]),
    ("Conv2DTranspose", {"out_channel": 1, "kernel_size": 2}, [f32(1, 2, 3, 3), f32(2, 1, 2, 2), (1, 1, 4, 4)]),
    ("Conv2DTranspose", {"out_channel": 2, "kernel_size": 3, "stride": 2, "pad_mode": "pad", "pad": 1},
     [f32(1, 1, 3, 3), f32(1, 2, 3, 3), (1, 2, 5, 5)]),
    ("Conv2DTranspose", {"out_channel": 1, "kernel_size": 2, "stride": 2, "pad_mode": "same"},
     [f32(1, 1, 2, 2), f32(1, 1, 2, 2), (1, 1, 4, 4)]),
    ("AffineGrid", {}, [arr([[[1.0, 0.2, 0.1], [0.0, 0.9, -0.1]]]), (1, 1, 2, 3)]),
    ("AffineGrid", {"align_corners": True}, [arr([[[1.0, 0.2, 0.1], [0.0, 0.9, -0.1]]]), (1, 1, 2, 3)]),
    ("GridSampler2D", {}, [f32(1, 1, 3, 3), f32(1, 2, 2, 2, lo=-1.2, hi=1.2)]),
    ("GridSampler2D", {"interpolation_mode": "nearest", "padding_mode": "border", "align_corners": True},
     [f32(1, 1, 3, 3), f32(1, 2, 2, 2, lo=-1.2, hi=1.2)]),
    ("GridSampler3D", {}, [f32(1, 1, 2, 3, 3), f32(1, 1, 2, 2, 3, lo=-1.1, hi=1.1)]),
    ("ResizeBilinearV2", {}, [f32(1, 1, 2, 3), (3, 5)]),
    ("ResizeBilinearV2", {"align_corners": True}, [f32(1, 1, 2, 3), (3, 5)]),
    ("ResizeBilinearV2", {"half_pixel_centers": True}, [f32(1, 1, 2, 3), (4, 4)]),
    ("ResizeNearestNeighbor", {"size": (4, 5)}, [f32(1, 1, 2, 3)]),
    ("ResizeNearestNeighbor", {"size": (3, 5), "align_corners": True}, [f32(1, 1, 2, 3)]),
    ("ResizeNearestNeighborV2", {}, [f32(1, 1, 2, 3), arr([4, 5], np.int32)]),
    ("ResizeNearestNeighborV2", {"half_pixel_centers": True}, [f32(1, 1, 2, 3), arr([3, 5], np.int32)]),
    ("ResizeBicubic", {}, [f32(1, 1, 3, 3), arr([4, 5], np.int32)]),
    ("ResizeLinear1D", {}, [f32(1, 2, 3), arr([5], np.int64)]),
    ("ResizeLinear1D", {"coordinate_transformation_mode": "half_pixel"}, [f32(1, 1, 3), arr([5], np.int64)]),
    ("UpsampleNearest3D", {}, [f32(1, 1, 2, 2, 2), (3, 4, 2), None]),
    ("UpsampleNearest3D", {}, [f32(1, 1, 2, 2, 2), None, (2.0, 1.5, 1.0)]),
    ("UpsampleTrilinear3D", {}, [f32(1, 1, 2, 2, 2), (3, 4, 2), None]),
    ("UpsampleTrilinear3D", {"align_corners": True}, [f32(1, 1, 2, 2, 2), (3, 3, 3), None]),
    ("Dropout2D", {"keep_prob": 0.5}, [f32(2, 3, 2, 2)], {"random": True}),
    ("Dropout3D", {"keep_prob": 0.7}, [f32(1, 3, 2, 2, 2)], {"random": True}),
    # more arguments
    ("AvgPool3D", {"kernel_size": 2, "strides": 2, "ceil_mode": True}, [f32(1, 1, 3, 3, 3)]),
    ("AvgPool3D", {"kernel_size": 2, "strides": 1, "pad_mode": "pad", "pad": 1, "divisor_override": 3},
     [f32(1, 1, 2, 2, 2)]),
    ("AvgPool3D", {"kernel_size": (1, 2, 2), "strides": (1, 2, 1), "pad_mode": "pad", "pad": (0, 0, 1, 0, 1, 1)},
     [f32(1, 2, 2, 3, 3)]),
    ("MaxPool3D", {"kernel_size": 2, "strides": 2, "pad_mode": "PAD", "ceil_mode": True}, [f32(1, 1, 3, 3, 3)]),
    ("MaxPool3D", {"kernel_size": (1, 2, 3), "strides": (1, 1, 2)}, [f32(1, 2, 2, 3, 5)]),
    ("MaxPoolWithArgmaxV2", {"kernel_size": 2, "strides": 2, "ceil_mode": True}, [f32(1, 1, 3, 5)]),
    ("MaxPoolWithArgmaxV2", {"kernel_size": 2, "strides": 1, "dilation": (1, 2)}, [f32(1, 1, 3, 5)]),
    ("Conv3D", {"out_channel": 2, "kernel_size": (1, 2, 2), "dilation": 2, "group": 2},
     [f32(1, 2, 3, 4, 4), f32(2, 1, 1, 2, 2)]),
    ("Conv3D", {"out_channel": 1, "kernel_size": 2}, [f32(1, 1, 2, 3, 3), f32(1, 1, 2, 2, 2)]),
    ("Conv2DTranspose", {"out_channel": 2, "kernel_size": 2, "group": 2, "dilation": 2},
     [f32(1, 2, 2, 2), f32(2, 1, 2, 2), (1, 2, 4, 4)]),
    ("Conv2DTranspose", {"out_channel": 1, "kernel_size": 3, "stride": 2}, [f32(1, 1, 2, 2), f32(1, 1, 3, 3),
                                                                         (1, 1, 6, 6)]),
    ("Conv2DTranspose", {"out_channel": 1, "kernel_size": 2, "pad_mode": "pad", "pad": (1, 0, 0, 1)},
     [f32(1, 1, 3, 3), f32(1, 1, 2, 2), (1, 1, 3, 3)]),
    ("Conv3DTranspose", {"in_channel": 1, "out_channel": 2, "kernel_size": 2, "pad_mode": "pad", "pad": 1,
                         "output_padding": 1, "stride": 2}, [f32(1, 1, 2, 2, 2), f32(1, 2, 2, 2, 2)]),
    ("ResizeBicubic", {"align_corners": True}, [f32(1, 1, 3, 3), arr([4, 5], np.int32)]),
    ("ResizeBicubic", {"half_pixel_centers": True}, [f32(1, 2, 3, 4), arr([5, 3], np.int32)]),
    ("ResizeNearestNeighbor", {"size": (3, 5), "half_pixel_centers": True}, [f32(1, 1, 2, 3)]),
    ("ResizeNearestNeighborV2", {"align_corners": True}, [f32(1, 1, 3, 3), arr([5, 4], np.int32)]),
    ("ResizeBilinearV2", {}, [f32(1, 2, 4, 4), (2, 3)]),
    ("GridSampler2D", {"padding_mode": "reflection"}, [f32(1, 2, 3, 4), f32(1, 2, 3, 2, lo=-1.5, hi=1.5)]),
    ("Im2Col", {"ksizes": 2, "dilations": 2}, [f32(1, 1, 4, 4)]),
    ("Col2Im", {"kernel_size": 2, "dilation": 2}, [f32(1, 1, 4, 4), arr([4, 4], np.int32)]),
    ("PadV3", {}, [f32(1, 1, 2, 2), (1, 0, 0, 1, 1, 1), np.array(2.0, np.float32)]),
    ("PadV3", {"mode": "reflect"}, [f32(1, 1, 3, 3), arr([1, 1, 2, 0], np.int64)]),
    ("Median", {"axis": -1}, [arr([[1.0, np.nan, 2.0], [3.0, 1.0, 2.0]])]),
    ("Median", {"axis": 0, "ignore_nan": True}, [arr([[1.0, np.nan], [3.0, 1.0], [2.0, np.nan]])]),
    ("LpNorm", {"axis": [1], "p": 0}, [arr([[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]])]),
    ("Histogram", {"bins": 3, "min": 1.0, "max": 3.0}, [arr([1, 2, 3, 4], np.int32)]),
    ("Bernoulli", {}, [f32(2, 3), arr([[0.0, 1.0, 1.0], [0.0, 1.0, 0.0]])]),
    ("TensorScatterElements", {"axis": -1}, [ints(2, 3), arr([[2], [0]], np.int64), ints(2, 1)]),
    ("Cdist", {"p": 0.0}, [arr([[0.0, 1.0], [2.0, 2.0]]), arr([[0.0, 1.0], [2.0, 3.0]])]),
    ("Cdist", {"p": float("inf")}, [f32(3, 2), f32(2, 2)]),
    ("MultiMarginLoss", {"reduction": "sum"}, [f32(2, 3), arr([2, 0], np.int64), None]),
    ("NLLLoss", {"reduction": "mean", "ignore_index": 1}, [f32(3, 4), arr([1, 1, 3], np.int32), pos(4)]),
    ("KLDivLoss", {}, [f32(2, 2), arr([[0.0, 1.0], [0.5, 0.5]])]),
    ("SmoothL1Loss", {"beta": 2.0, "reduction": "sum"}, [f32(2, 3), f32(2, 3)]),
    ("Xdivy", {}, [ints(4).astype(np.float32), arr([0.0, 0.0, 1.0, 2.0])]),
    ("Rint", {}, [ints(3)]),
    ("InvertPermutation", {}, [arr([2, 0, 1], np.int32)]),
    ("ReduceStd", {"axis": (0, 1), "unbiased": False}, [f32(2, 3, 2)]),
    ("GLU", {"axis": 1}, [f32(1, 4, 2)]),
    ("AdaptiveMaxPool3D", {}, [f32(1, 2, 4, 4, 4), arr([2, 2, 1], np.int32)]),
    ("AdaptiveMaxPool3D", {}, [f32(1, 1, 3, 5, 4), arr([2, 3, 2], np.int32)]),
    ("Conv2DBackpropInput", {"out_channel": 1, "kernel_size": 2}, [f32(1, 2, 3, 3), f32(2, 1, 2, 2), (1, 1, 4, 4)]),
    ("MaxPoolWithArgmax", {"kernel_size": 2, "strides": 2}, [f32(2, 2, 4, 4)]),
    ("MaxPoolWithArgmax", {"kernel_size": 3, "strides": 2, "pad_mode": "same"}, [f32(1, 1, 5, 6)]),
    ("MaxPool3DWithArgmax", {"ksize": 2, "strides": 2, "pads": 0}, [f32(1, 2, 3, 4, 4)]),
    ("MaxPool3DWithArgmax", {"ksize": 3, "strides": 1, "pads": 1, "argmax_type": D("int32")}, [f32(1, 1, 3, 4, 4)]),
    ("MaxPool3DWithArgmax", {"ksize": 2, "strides": 2, "pads": 0, "ceil_mode": True}, [f32(1, 1, 3, 4, 5)]),
    ("MaxPool3DWithArgmax", {"ksize": (1, 2, 2), "strides": (1, 1, 2), "pads": 0, "dilation": (1, 2, 1)},
     [f32(1, 1, 2, 4, 4)]),
    ("NuclearNorm", {}, [f32(3, 4)]),
    ("NuclearNorm", {"dim": [1, 2], "keepdim": True}, [f32(2, 3, 3)]),
    ("ParallelConcat", {}, [(f32(1, 2), f32(1, 2), f32(1, 2))]),
    # -- losses -------------------------------------------------------------------------------
    ("BCEWithLogitsLoss", {}, [f32(2, 3), arr([[0, 1, 1], [1, 0, 0.5]]), pos(3), pos(3)]),
    ("BCEWithLogitsLoss", {"reduction": "none"}, [f32(2, 3), arr([[0, 1, 1], [1, 0, 0.5]]), pos(2, 3), pos(3)]),
    ("BCEWithLogitsLoss", {"reduction": "sum"}, [f32(2, 3), arr([[0, 1, 1], [1, 0, 0.5]]), pos(3), pos(3)]),
    ("BinaryCrossEntropy", {}, [PROB23, arr([[0, 1, 1], [1, 0, 0]]), pos(2, 3)]),
    ("BinaryCrossEntropy", {"reduction": "none"}, [PROB23, arr([[0, 1, 1], [1, 0, 0]]), None]),
    ("KLDivLoss", {}, [f32(2, 3), PROB23]),
    ("KLDivLoss", {"reduction": "sum"}, [f32(2, 3), PROB23]),
    ("KLDivLoss", {"reduction": "batchmean"}, [f32(2, 3), PROB23]),
    ("KLDivLoss", {"reduction": "none"}, [f32(2, 3), PROB23]),
    ("NLLLoss", {}, [f32(3, 4), arr([1, 0, 3], np.int32), pos(4)]),
    ("NLLLoss", {"reduction": "sum", "ignore_index": 0}, [f32(3, 4), arr([1, 0, 3], np.int32), pos(4)]),
    ("NLLLoss", {"reduction": "none"}, [f32(3, 4), arr([1, 0, 3], np.int32), pos(4)]),
    ("SmoothL1Loss", {}, [f32(2, 3), f32(2, 3)]),
    ("SmoothL1Loss", {"beta": 0.5, "reduction": "mean"}, [f32(2, 3), f32(2, 3)]),
    ("MultiMarginLoss", {}, [f32(3, 4), arr([1, 0, 3], np.int64), pos(4)]),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5, "reduction": "none"}, [f32(3, 4), arr([1, 0, 3], np.int64), None]),
    # -- random draws: structure only ---------------------------------------------------------
    ("Bernoulli", {}, [f32(2, 3), 0.5], {"random": True}),
    ("Bernoulli", {"seed": 3}, [ints(3), arr([0.2, 0.9, 0.5])], {"random": True}),
    ("Multinomial", {}, [PROB23, 4], {"random": True}),
    ("Multinomial", {"seed": 1, "dtype": D("int64")}, [arr([0.2, 0.8]), 3], {"random": True}),
    ("RandomCategorical", {}, [f32(2, 3), 4, 1], {"random": True}),
    ("RandomCategorical", {"dtype": D("int32")}, [f32(2, 3), 2, 5], {"random": True}),
    ("RandomGamma", {}, [arr([2, 3], np.int32), pos(2)], {"random": True}),
    ("RandomPoisson", {}, [arr([3], np.int32), pos(2, 1)], {"random": True}),
    ("RandomPoisson", {"dtype": D("float32")}, [arr([2, 2], np.int64), pos(1)], {"random": True}),
    ("RandomShuffle", {}, [f32(4, 2)], {"random": True}),
    ("StandardLaplace", {}, [(2, 3)], {"random": True}),
    ("StandardLaplace", {"seed": 5, "seed2": 1}, [(4,)], {"random": True}),
    # -- TensorFlow-style classes (tf_style_classes.py); the pools' sequences are random draws, and
    # STFT's complex output is recorded as its real view (encode keeps real parts only) -------
    ("STFT", {"n_fft": 8, "hop_length": 2, "win_length": 6, "normalized": False, "onesided": True,
              "return_complex": False}, [f32(2, 16), pos(6)], {"atol": 1e-5}),
    ("STFT", {"n_fft": 8, "hop_length": 3, "win_length": 8, "normalized": True, "onesided": False,
              "return_complex": False}, [f32(16), pos(8)], {"atol": 1e-5}),
    ("FractionalMaxPool", {"pooling_ratio": [1.0, 1.5, 1.4, 1.0]}, [f32(1, 6, 7, 2)], {"random": True}),
    ("FractionalAvgPool", {"pooling_ratio": [1.0, 1.5, 1.4, 1.0], "overlapping": True, "deterministic": True,
                           "seed": 1}, [f32(2, 6, 7, 1)], {"random": True}),
]

# Classes 2.10's CPU build cannot run ("Unsupported op on CPU", or CountNonZero's "inputs
# number should be 2"): their signatures are recorded, their values tested against numpy.
SIGNATURES_ONLY = ["Fmin", "EuclideanNorm", "Quantile", "CountNonZero", "Einsum", "SoftMarginLoss", "Poisson"]
# Classes whose inputs are Python functions (no JSON form): signatures here, values measured
# by hand in tests/test_ops_classes_more.py.
FUNCTION_INPUTS = ["WhileLoop", "ForiLoop", "Scan"]


# -- encoding -------------------------------------------------------------------------------------

def _float(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def encode(value):
    """JSON for a case's argument or MindSpore's output."""
    import mindspore as ms
    if isinstance(value, D):
        return {"dtype": str(value)}
    if isinstance(value, ms.Tensor):
        value = value.asnumpy() if value.dtype != ms.bfloat16 else value.float().asnumpy()
    if isinstance(value, ms.common.dtype.Type):
        return {"dtype": str(value).lower()}
    if isinstance(value, np.ndarray):
        flat = value.reshape(-1)
        values = [bool(v) for v in flat] if value.dtype == np.bool_ else \
            [int(v) for v in flat] if value.dtype.kind in "iu" else [_float(v) for v in flat]
        return {"tensor": str(value.dtype), "shape": list(value.shape), "values": values}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"list": [encode(v) for v in value]}
    if isinstance(value, (bool, int, str)) or value is None:
        return value
    if isinstance(value, (float, np.floating)):
        return {"float": _float(value)}
    if isinstance(value, np.integer):
        return int(value)
    raise TypeError(f"cannot encode {type(value).__name__}")


def decode(value):
    """A case's argument for MindSpore."""
    import mindspore as ms
    if isinstance(value, dict):
        if "tensor" in value:
            data = [float(v) if isinstance(v, str) else v for v in value["values"]]
            return ms.Tensor(np.array(data, value["tensor"]).reshape(value["shape"]))
        if "dtype" in value:
            return getattr(ms, value["dtype"])
        if "tuple" in value:
            return tuple(decode(v) for v in value["tuple"])
        if "list" in value:
            return [decode(v) for v in value["list"]]
        if "float" in value:
            return float(value["float"])
    return value


def structure(value):
    import mindspore as ms
    if isinstance(value, ms.Tensor):
        return {"tensor": str(value.asnumpy().dtype), "shape": list(value.shape)}
    if isinstance(value, (tuple, list)):
        return {"tuple": [structure(v) for v in value]}
    return encode(value)


def signature(cls):
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return None
    return [[p.name, None if p.default is p.empty else repr(p.default)] for p in params]


def run_case(name, init, inputs, options):
    import mindspore as ms
    from mindspore import ops
    cls = getattr(ops, name)
    args = [decode(encode(a)) for a in inputs]
    if options.get("param"):
        args[0] = ms.Parameter(args[0], name="input_x")
    record = {"class": name, "init": {k: encode(v) for k, v in init.items()},
              "inputs": [encode(a) for a in inputs], **{k: v for k, v in options.items()}}
    try:
        if options.get("random"):
            ms.set_seed(0)
        out = cls(**{k: decode(encode(v)) for k, v in init.items()})(*args)
        record["output"] = structure(out) if options.get("random") else encode(out)
        if options.get("param"):
            record["param_after"] = encode(args[0])
    except Exception as e:  # noqa: BLE001 - recorded as MindSpore's answer
        record["error"] = [type(e).__name__, str(e).split("\n")[0][:300]]
    return record


def main():
    import mindspore as ms
    from mindspore import ops
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    records = [run_case(c[0], c[1], c[2], c[3] if len(c) > 3 else {}) for c in CASES]
    names = sorted({c[0] for c in CASES} | set(SIGNATURES_ONLY) | set(FUNCTION_INPUTS))
    data = {"mindspore": ms.__version__, "signatures": {n: signature(getattr(ops, n)) for n in names},
            "cases": records}
    OUTPUT.write_text(json.dumps(data, separators=(",", ":"), allow_nan=False) + "\n")
    failed = [r for r in records if "error" in r]
    print(f"{len(records)} cases of {len(names)} classes written to {OUTPUT} ({len(failed)} raised in MindSpore)")
    for r in failed:
        print("  ", r["class"], r["init"], r["error"])


if __name__ == "__main__":
    sys.exit(main())
