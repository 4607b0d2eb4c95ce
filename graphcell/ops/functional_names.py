"""The names of MindSpore 2.10's `mindspore.ops.functional` (`from mindspore.ops import functional as F`),
recorded from the installed 2.10 (822 public names), and how `graphcell.ops.functional` answers them.

`graphcell.ops.functional` is graphcell's internal functional layer; 2.10's module is `mindspore.ops`
under another name (each of its names is the same object as `mindspore.ops`'s, measured). So
`install` gives the internal module a module `__getattr__` that answers a recorded name it does not
define itself with `graphcell.ops`'s object: model-zoo code (`F.depend`, `F.tensor_mul`,
`F.scalar_to_array`) runs unchanged, and an op added to `graphcell.ops` later shows up in `F` by
itself if 2.10 has it. The internal module's own definitions win; one of them means something else
than 2.10's name of the same spelling (`F.mean` averages an integer Tensor in float32, where
`ops.mean` keeps 2.10's truncated integer mean), and `CHANGED` lists it.

`SKIPPED` lists the recorded names graphcell leaves out, each with its reason.
"""
from __future__ import annotations

MINDSPORE_FUNCTIONAL = frozenset("""
    AdaptiveMaxPool2D DtypeToEnum J Median P Roll SliceGetItem TensorToTuple UniqueConsecutive abs absolute
    accumulate_n acos acosh adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool2d_ext
    adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool2d adaptive_max_pool3d add add_layer_norm
    add_rms_norm addbmm addcdiv addcmul addmm addmv addn addr adjoint affine_grid all amax amin aminmax angle
    any approximate_equal arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin argsort
    argwhere array_ops array_reduce array_to_scalar asin asinh assign assign_add assign_sub atan atan2 atanh
    atleast_1d atleast_2d atleast_3d auto_generate avg_pool1d avg_pool2d avg_pool3d baddbmm baddbmm_ext
    bartlett_window batch_dot batch_norm batch_to_space_nd bernoulli bernoulli_ bernoulli_ext bessel_i0
    bessel_i0e bessel_i1 bessel_i1e bessel_j0 bessel_j1 bessel_k0 bessel_k0e bessel_k1 bessel_k1e bessel_y0
    bessel_y1 bias_add bidense binary_cross_entropy binary_cross_entropy_with_logits bincount bitwise_and
    bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor blackman_window block_diag bmm bool_and
    bool_eq bool_not bool_or bounding_box_decode bounding_box_encode broadcast_gradient_args broadcast_to
    bucketize cartesian_prod cast cat cdist ceil celu channel_shuffle check_valid choice_with_mask cholesky
    cholesky_inverse cholesky_solve chunk clamp clamp_ clip clip_by_global_norm clip_by_norm clip_by_value
    coalesce col2im column_stack combinations concat cond conj conv1d conv2d conv3d conv3d_transpose
    conv_transpose2d coo2csr coo_abs coo_acos coo_acosh coo_add coo_asin coo_asinh coo_atan coo_atanh coo_ceil
    coo_concat coo_cos coo_cosh coo_exp coo_expm1 coo_floor coo_inv coo_isfinite coo_isinf coo_isnan coo_log
    coo_log1p coo_neg coo_relu coo_relu6 coo_round coo_sigmoid coo_sin coo_sinh coo_softsign coo_sqrt
    coo_square coo_tan coo_tanh coo_tensor_get_dense_shape coo_tensor_get_indices coo_tensor_get_values
    copysign cos cosh cosine_embedding_loss cosine_similarity count_nonzero cov crop_and_resize cross
    cross_entropy csr2coo csr_abs csr_acos csr_acosh csr_add csr_asin csr_asinh csr_atan csr_atanh csr_ceil
    csr_cos csr_cosh csr_div csr_exp csr_expm1 csr_floor csr_gather csr_inv csr_isfinite csr_isinf csr_isnan
    csr_log csr_log1p csr_mm csr_mul csr_mv csr_neg csr_reduce_sum csr_relu csr_relu6 csr_round csr_sigmoid
    csr_sin csr_sinh csr_softmax csr_softsign csr_sqrt csr_square csr_tan csr_tanh csr_tensor_get_dense_shape
    csr_tensor_get_indices csr_tensor_get_indptr csr_tensor_get_values csr_to_coo csr_to_dense
    ctc_greedy_decoder ctc_loss cummax cummin cumprod cumsum deepcopy deformable_conv2d deg2rad dense
    dense_to_sparse_coo dense_to_sparse_csr depend derivative det diag diag_embed diagflat diagonal
    diagonal_scatter dict_getitem dict_setitem diff diff_ext digamma dist distribute div divide dot dropout
    dropout1d dropout2d dropout3d dsplit dstack dtype dyn_shape eig eigvals einsum einsum_ext elu embed
    embedding environ_add environ_create environ_get environ_set eps eq equal erf erfc erfinv erfinv_ exp exp2
    expand expand_as expand_dims expm1 exponential_ eye fast_gelu fft fft2 fftfreq fftn fftshift fill fills
    flash_attention_score flatten flip fliplr flipud float_power float_power_ext floor floor_div floor_divide
    floor_mod floordiv floormod fmax fmin fmod fold frac fractional_max_pool2d fractional_max_pool3d full
    full_like fused_infer_attention_score gamma gather gather_d gather_elements gather_nd gaussian_nll_loss
    gcd ge gelu geqrf ger geswitch get_grad glu grad greater greater_equal grid_sample group_norm gt
    gumbel_softmax hamming_window hann_window hardshrink hardsigmoid hardswish hardtanh hastype heaviside hfft
    hfft2 hfftn hinge_embedding_loss histc hsplit hstack huber_loss hypot i0 identity ifft ifft2 ifftn
    ifftshift igamma igammac ihfft ihfft2 ihfftn imag in_dict incre_flash_attention index_add index_fill
    index_select inner inplace_add inplace_index_add inplace_sigmoid inplace_sub inplace_update interpolate
    intopk inv inverse invert iou irfft irfft2 irfftn is_ is_complex is_dynamic_sequence_element_unknown
    is_floating_point is_nonzero is_not is_sequence_shape_unknown is_sequence_value_unknown is_tensor
    is_tensor_bool_cond isclose isconstant isfinite isinf isnan isnan_ext isneginf isposinf isreal jacfwd
    jacrev jet jvp kaiser_window kl_div kron l1_loss laplace layer_norm lcm ldexp le leaky_relu lerp less
    less_equal lgamma lightning_indexer linalg_ops linearize linspace list_equal list_getitem list_len
    list_setitem log log10 log1p log2 log_matrix_determinant log_softmax log_uniform_candidate_sampler
    logaddexp logaddexp2 logcumsumexp logdet logical_and logical_not logical_or logical_xor logit logsigmoid
    logspace logsumexp lp_pool1d lp_pool2d lrn lstsq lt lu_solve lu_unpack make_coo_tensor make_csr_tensor
    make_dict make_list make_map_parameter make_range make_row_tensor make_row_tensor_inner make_slice
    make_sparse_tensor make_tuple margin_ranking_loss masked_fill masked_select matmul matrix_band_part
    matrix_determinant matrix_diag matrix_diag_part matrix_exp matrix_norm matrix_power matrix_set_diag
    matrix_solve max max_pool2d max_pool3d max_unpool1d max_unpool2d max_unpool3d maximum mean median merge
    meshgrid min minimum mirror_pad mish mixed_precision_cast mm moe_distribute_combine
    moe_distribute_dispatch moe_init_routing_v2 moe_token_permute moe_token_unpermute move_to moveaxis movedim
    mse_loss mse_loss_ext msort mul multi_margin_loss multi_scale_deformable_attn_function
    multilabel_margin_loss multilabel_soft_margin_loss multinomial multinomial_with_replacement multiply mv
    mvlgamma nan_to_num nanmean nanmedian nanquantile nansum narrow ne neg negative nextafter nll_loss nonzero
    norm normal normal_ not_equal not_in_dict nsa_compress nsa_select_attention numel one_hot ones ones_like
    orgqr ormqr other_ops outer pad padding partial pdist permute pinv pixel_shuffle pixel_unshuffle poisson
    polar polygamma population_count positive pow pows prelu print_ prod prompt_flash_attention put_ qr
    quantile rad2deg rand rand_like randint randint_like randn randn_like random_ random_categorical
    random_gamma random_poisson randperm range rank ravel real reciprocal reduce_max reduce_mean reduce_min
    reduce_sum reduced_shape ref_to_embed relu relu6 remainder renorm repeat_elements repeat_interleave
    reshape reshape_ reshard reverse reverse_sequence rfft rfft2 rfftfreq rfftn ring_attention_update rms_norm
    roll rot90 rotary_position_embedding rotated_iou round row_stack row_tensor_add row_tensor_get_dense_shape
    row_tensor_get_indices row_tensor_get_values rrelu rsqrt scalar_add scalar_cast scalar_div scalar_eq
    scalar_floordiv scalar_ge scalar_gt scalar_le scalar_log scalar_lt scalar_max scalar_min scalar_mod
    scalar_mul scalar_ne scalar_pow scalar_sub scalar_to_array scalar_to_tensor scalar_uadd scalar_usub
    scatter scatter_add scatter_div scatter_max scatter_min scatter_mul scatter_nd scatter_nd_add
    scatter_nd_div scatter_nd_max scatter_nd_min scatter_nd_mul scatter_nd_sub scatter_nd_update
    scatter_update searchsorted select select_scatter selu sequence_mask sgn shape shape_ shape_mul shuffle
    sigmoid sign signbit silu sin sinc sinh size slice slice_scatter slogdet smooth_l1_loss soft_margin_loss
    soft_shrink softmax softmin softplus softshrink softsign sort space_to_batch_nd sparse_segment_mean
    speed_fusion_attention split sqrt square squeeze stack standard_laplace standard_normal std std_mean stft
    stop_gradient stop_gradient_ strided_slice string_concat string_eq sub subtract sum svd swapaxes swapdims
    swiglu switch switch_layer t take tan tanh tanh_ tanhshrink tensor_add tensor_div tensor_dot tensor_exp
    tensor_expm1 tensor_floordiv tensor_ge tensor_gt tensor_le tensor_lt tensor_mod tensor_mul tensor_muls
    tensor_operator_registry tensor_pow tensor_range tensor_scatter_add tensor_scatter_div
    tensor_scatter_elements tensor_scatter_max tensor_scatter_min tensor_scatter_mul tensor_scatter_sub
    tensor_scatter_update tensor_slice tensor_split tensor_sub tensordump threshold tile top_k topk trace
    transpose trapz tril tril_indices triplet_margin_loss triu triu_indices true_divide trunc truncate_div
    truncate_mod tuple_div tuple_equal tuple_getitem tuple_len tuple_reversed tuple_setitem tuple_to_array
    type_as typeof unbind unfold uniform uniform_ uniform_candidate_sampler unique unique_consecutive
    unique_with_pad unsorted_segment_max unsorted_segment_min unsorted_segment_prod unsorted_segment_sum
    unsqueeze unstack upsample value_and_grad vander var var_mean vecdot vector_norm view_as view_as_real vjp
    vmap vsplit vstack where xdivy xlogy zero_ zeros zeros_like zeta
""".split())

# The internal module's names whose meaning differs from 2.10's F name of the same spelling.
CHANGED = {
    "mean": "integers average in float32 (graphcell's layers rely on it); ops.mean truncates as 2.10 does",
}

_ASCEND = "an Ascend-only fused kernel (2.10's CPU build has none)"
_EXT = "a 2.10 internal variant behind mindspore.mint (use mint.* or the ops.* function)"
_GRAPH = "a 2.10 graph-compiler internal with no meaning for a user's call"
SKIPPED = {
    **dict.fromkeys(["add_layer_norm", "add_rms_norm", "flash_attention_score", "fused_infer_attention_score",
                     "incre_flash_attention", "lightning_indexer", "moe_distribute_combine", "moe_distribute_dispatch",
                     "moe_init_routing_v2", "moe_token_permute", "moe_token_unpermute",
                     "multi_scale_deformable_attn_function", "nsa_compress", "nsa_select_attention",
                     "prompt_flash_attention", "ring_attention_update",
                     "speed_fusion_attention"], _ASCEND),
    **dict.fromkeys(["adaptive_avg_pool2d_ext", "baddbmm_ext", "bernoulli_ext", "diff_ext", "einsum_ext",
                     "float_power_ext", "isnan_ext", "mse_loss_ext"], _EXT),
    **dict.fromkeys(["DtypeToEnum", "J", "SliceGetItem", "auto_generate", "other_ops", "distribute", "embed",
                     "ref_to_embed", "tensor_operator_registry", "is_dynamic_sequence_element_unknown",
                     "is_sequence_shape_unknown", "is_sequence_value_unknown", "is_tensor_bool_cond",
                     "make_map_parameter", "make_row_tensor_inner", "make_sparse_tensor", "row_tensor_add"], _GRAPH),
    **dict.fromkeys(["environ_add", "environ_create", "environ_get", "environ_set"],
                    "2.10's autodiff environment internals (graphcell's grad pass keeps no environ)"),
    "array_reduce": "2.10 raises 'prim:array_reduce has no attr:__infer__' for every call (measured)",
    "geswitch": "2.10's CPU build raises NotImplementedError (PyNative) or RuntimeError (jit) for it (measured)",
    "merge": "2.10's CPU build raises NotImplementedError (PyNative) or RuntimeError (jit) for it (measured)",
    "stop_gradient_": "2.10's CPU build has no InplaceStopGradient kernel: under grad it raises (measured); "
                      "use ops.stop_gradient",
    "inplace_sigmoid": "2.10's CPU build: 'The kernel InplaceSigmoid unregistered.' (measured)",
    "move_to": "moves a Tensor between devices; graphcell has one device",
    "reshard": "a parallel layout annotation (graphcell's parallel API runs on one device)",
}

# 2.10's `mindspore.ops.composite` names that graphcell.ops.composite answers from graphcell.ops (the
# same objects in 2.10). Left out: its ones_like/zeros_like/matmul (HyperMap and MultitypeFuncGraph
# forms that differ from ops'), and the graph-compiler internals (augassign_*, env_get, hyper_add,
# iter_converter, ms_next, ms_hasnext, recompute_block, tail, zip_operation, Map, add_flags).
MINDSPORE_COMPOSITE = frozenset("""
    GradOperation HyperMap MultitypeFuncGraph batch_dot clip_by_global_norm clip_by_value count_nonzero cummin
    dot gamma laplace mm multinomial normal poisson repeat_elements repeat_interleave sequence_mask tensor_dot
    uniform vecdot
""".split())


def install(functional, ops, names=MINDSPORE_FUNCTIONAL) -> None:
    """Answer every recorded 2.10 name that `functional` lacks with `ops`'s object, on first use
    (so `ops`'s lazily loaded names, like `grad` and the operator classes, stay lazy)."""
    def __getattr__(name):
        if name in names and name not in SKIPPED:
            # Not cached in the module: its globals would then shadow builtins (slice, range, max) in its own code.
            return getattr(ops, name)
        raise AttributeError(f"module {functional.__name__!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(vars(functional)) | (names - set(SKIPPED)))

    functional.__getattr__ = __getattr__
    functional.__dir__ = __dir__
