"""graphcell.ops: the functional API (MindSpore's `mindspore.ops` names) over the primitives,
and MindSpore's operator classes (`ops.ReduceSum(keep_dims=True)`, `operations.py`).

Importing this package registers every primitive (each family module declares its own).
"""
from . import core_prims, elementwise, fused_prims, hooks, linalg, linalg_prims, nn_prims, random_prims, reductions, shape_ops, sorting, special, tensor_hooks, tiling  # noqa: F401
from .functional import *  # noqa: F401,F403
from .functional import (abs, all, any, pow, round, sum)  # noqa: F401,A004 - MindSpore's names
from .composite import *  # noqa: F401,F403,E402 - ops composed of other ops
from .pooling import *  # noqa: F401,F403,E402 - adaptive and 1-D pooling
from .normalization import *  # noqa: F401,F403,E402 - group_norm
from .losses import *  # noqa: F401,F403,E402 - loss functions
from .classification_losses import *  # noqa: F401,F403,E402 - cross_entropy, nll_loss, margin losses over classes
from .regression_losses import *  # noqa: F401,F403,E402 - mse, l1, gaussian_nll, hinge, soft margin, triplet
from .ctc import ctc_loss  # noqa: F401,E402 - a scan over time
from .activations import *  # noqa: F401,F403,E402 - newer activation functions
from .indexing import *  # noqa: F401,F403,E402 - gathers and scatters with MindSpore's semantics
from .scatter_inplace import *  # noqa: F401,F403,E402 - MindSpore's in-place scatters (Parameter or Tensor)
from .scatter_copies import *  # noqa: F401,F403,E402 - index_fill, inplace_add/sub/update, slice/select/diagonal_scatter
from .segment_ops import *  # noqa: F401,F403,E402 - unsorted_segment_*, sparse_segment_mean
from .array_more import *  # noqa: F401,F403,E402 - reverse, msort, numel, slice, top_k, sequence_mask, truncate_div, ...
from .bit_ops import *  # noqa: F401,F403,E402 - bitwise shifts (primitives), population_count
from .float_neighbours import nextafter  # noqa: F401,E402
from .nan_reductions import nanmedian  # noqa: F401,E402
from .layout_ops import *  # noqa: F401,F403,E402 - strided_slice, mirror_pad, space_to_batch_nd, ... (TensorFlow's)
from .primitive import PRIMITIVES, Literal, Primitive, ShapeError  # noqa: F401
from .sorting import argsort, cumprod, cumsum, sort, topk  # noqa: F401,E402
from .convolution import conv1d, conv3d, conv3d_transpose, conv_transpose2d  # noqa: F401,E402
from .control_flow import cond, fori_loop, while_loop  # noqa: F401,E402 - tensor control flow
from .dynamic_shape import argwhere, is_nonzero, masked_select, nonzero, unique, unique_consecutive  # noqa: F401,E402 - eager only
from .padded_unique import unique_with_pad  # noqa: F401,E402
from .inplace_functions import *  # noqa: F401,F403,E402 - ops.zero_, clamp_, uniform_, put_, ... (the Tensor methods)
from .math_ops import *  # noqa: F401,F403,E402 - elementwise math with MindSpore 2.10 names
from .scan_loop import scan  # noqa: F401,E402 - a loop with per-step outputs (jax.lax.scan)
from .array_ops import *  # noqa: F401,F403,E402 - reductions, scans, shapes, draws, lookups
from .array_ops import max, min, range  # noqa: F401,E402,A004 - MindSpore's names
from .array_more import shape, size, slice  # noqa: F401,E402,A004 - MindSpore's names
from .linalg_ops import *  # noqa: F401,F403,E402 - products, norms, distances
from .linalg_solvers import *  # noqa: F401,F403,E402 - det, inverse, cholesky, qr, lu, lstsq, pinv, matrix_exp
from . import eigh_prim  # noqa: F401,E402 - the eigh primitive (graphcell.scipy.linalg.eigh)
from .householder_ops import *  # noqa: F401,F403,E402 - geqrf, orgqr, ormqr
from .matrix_builders import *  # noqa: F401,F403,E402 - band and diagonal matrices, combinations
from .attention import scaled_dot_product_attention  # noqa: F401,E402 - torch's (MindSpore 2.10 has none on CPU)
from .resize import *  # noqa: F401,F403,E402 - interpolate, upsample
from .patches import *  # noqa: F401,F403,E402 - pixel_shuffle, unfold, fold
from .grid_sampling import *  # noqa: F401,F403,E402 - grid_sample, affine_grid
from .deformable import deformable_conv2d  # noqa: F401,E402 - bilinear samples, then a convolution
from .rotated_iou import rotated_iou  # noqa: F401,E402 - the overlap polygon of rotated boxes
from .channel_ops import *  # noqa: F401,F403,E402 - channel-wise dropouts, channel_shuffle
from .unpooling import *  # noqa: F401,F403,E402 - max_unpool1d/2d/3d
from .complex_ops import *  # noqa: F401,F403,E402 - real, imag, conj, angle, polar, view_as_real
from .fft_ops import *  # noqa: F401,F403,E402 - the FFT family
from .eig_ops import eig, eigvals  # noqa: F401,E402 - general eigendecomposition (complex results)
from .stft import stft  # noqa: F401,E402 - short-time Fourier transform, composed of pads, gathers and ffts
from .special_functions import *  # noqa: F401,F403,E402 - Bessel functions, igamma, zeta, mvlgamma
from .random_draws import *  # noqa: F401,F403,E402 - bernoulli, multinomial, gamma, poisson, ...
from .windows import *  # noqa: F401,F403,E402 - bartlett, blackman, hamming, hann and kaiser windows
from .detection import *  # noqa: F401,F403,E402 - iou, bounding_box_encode/decode, check_valid, crop_and_resize
from .fractional_pool import *  # noqa: F401,F403,E402 - fractional_max_pool2d/3d
from .graph_helpers import depend, partial  # noqa: F401,E402 - MindSpore's graph ordering and binding helpers
from .method_functions import *  # noqa: F401,F403,E402 - dtype, is_tensor, view_as, type_as, inv, ...
from .ctc_decode import ctc_greedy_decoder  # noqa: F401,E402 - eager only (a sparse result)
from .scalar_ops import scalar_cast, scalar_to_tensor  # noqa: F401,E402 - on Python numbers and a graph's numbers
from .sparse_ops import *  # noqa: F401,F403,E402 - COOTensor/CSRTensor functions: csr_mv, coo_add, dense_to_sparse_csr, ...
from .math_more import *  # noqa: F401,F403,E402 - approximate_equal, intopk, isreal, addbmm, bidense
from .random_more import *  # noqa: F401,F403,E402 - choice_with_mask, candidate samplers, multinomial_with_replacement
from .image_ops import col2im  # noqa: F401,E402 - and the HSV, ResizeArea, ExtractVolumePatches classes
from .math_more2 import *  # noqa: F401,F403,E402 - accumulate_n, make_coo_tensor, ...; classes in operations.py
from .misc_op_classes import coalesce  # noqa: F401,E402 - ops.Coalesce and the small classes are in operations.py
from .leftover_op_classes import rotary_position_embedding  # noqa: F401,E402 - ops.FFTWithSize, Randperm, ... in operations.py
from . import betainc as _betainc  # noqa: F401,E402 - the betainc primitive (ops.Betainc is in operations.py)
from .graph_functions import *  # noqa: F401,F403,E402 - 2.10's tensor_*/scalar_*/tuple_* helpers, make_tuple, typeof, ...
from .custom_ops import *  # noqa: F401,F403,E402 - Custom (a Python function on the host), CustomRegOp, kernel
from .host_dumps import *  # noqa: F401,F403,E402 - TensorDump, tensordump, DumpGradient, Assert (host calls)
from .gradient_hooks import *  # noqa: F401,F403,E402 - HookBackward, InsertGradientOf
from .user_primitives import *  # noqa: F401,F403,E402 - PrimitiveWithInfer/Check, prim_attr_register, Morph
from .higher_order import Map  # noqa: F401,E402
from ..compiler.hints import constexpr  # noqa: F401,E402 - called at trace time

globals().pop("DType")   # functional's import of the dtype class: ops.DType is MindSpore's operator (__getattr__)
# The star imports above bring each module's own imports and helpers along; MindSpore's
# namespace has none of them (graphcell's code reads them from their modules).
for _name in ("annotations", "builtins", "ew", "functools", "math", "mstype", "np", "numbers", "red", "Parameter",
              "host_array",
              "limit", "result_dtype", "same_padding", "take_in_range", "to_dtype", "random_key", "slice_axis",
              "conv2d_padded", "concatenate", "GraphScalar", "weak_dtype"):
    globals().pop(_name, None)
del _name

# MindSpore's ops.grad / value_and_grad / vmap / vjp / jvp / jacfwd / jacrev: the transforms, loaded on first use
# (they import the tracer and the passes, which import this package).
_TRANSFORMS = {"grad": "graphcell.api.grad", "value_and_grad": "graphcell.api.grad", "vmap": "graphcell.api.vmap",
               **dict.fromkeys(["vjp", "jvp", "jacfwd", "jacrev"], "graphcell.api.jacobian"),
               **dict.fromkeys(["jet", "derivative", "linearize"], "graphcell.api.taylor"), "get_grad": "graphcell.api.grad_ids"}


def __getattr__(name):
    """The transforms above, and MindSpore's operator classes (ops.ReduceSum, ops.DType, ...:
    `operations.py`, loaded on first use, which spares `import graphcell` ~50 ms)."""
    import importlib
    if name in _TRANSFORMS:
        value = getattr(importlib.import_module(_TRANSFORMS[name]), name)
    elif name in ("operations", "P") or name[:1].isupper():
        operations = importlib.import_module("graphcell.ops.operations")
        if name in ("operations", "P"):   # 2.10's ops.P is the operations module
            value = operations
        elif name not in operations.__all__:
            raise AttributeError(f"module 'graphcell.ops' has no attribute {name!r}")
        else:
            value = getattr(operations, name)
    else:
        raise AttributeError(f"module 'graphcell.ops' has no attribute {name!r}")
    globals()[name] = value
    return value


# `from mindspore.ops import functional as F`: the internal functional module answers 2.10's F names too.
import sys as _sys  # noqa: E402
from . import composite as _composite, functional as _functional, functional_names as _functional_names  # noqa: E402
_functional_names.install(_functional, _sys.modules[__name__])
_functional_names.install(_composite, _sys.modules[__name__], _functional_names.MINDSPORE_COMPOSITE)
del _sys
