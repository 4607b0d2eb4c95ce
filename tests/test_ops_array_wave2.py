"""The second wave of MindSpore 2.10's array ops: bitwise_left_shift / bitwise_right_shift
(primitives), population_count, nextafter (a primitive), nanmedian, unique_consecutive
(eager only), strided_slice, mirror_pad, space_to_batch_nd, batch_to_space_nd,
reverse_sequence, the nn Cells Roll, Range, OneHot and Unflatten, and their Tensor methods.

References: numpy, torch, and values measured on MindSpore 2.10.0 (CPU) written as literals.
Each table runs as one function per mode (eager, XLA jit, onnxruntime), so a mode compiles once.
"""
import numpy as np
import pytest
import torch

import graphcell as ms
from graphcell import nn, ops
from graphcell.frontend.tracer import GraphModeError
from graphcell.tensor import Tensor
from tests.modes import MODES, call

RNG = np.random.default_rng(14)
INTS = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)


def shift_model(x, count, left):
    """MindSpore 2.10's CPU shifts (C on x86, measured on every dtype with counts -70..70): the
    operands promoted to 32 bits (64-bit types stay), the count modulo that width, the result
    wrapped to x's dtype."""
    bits = 8 * x.dtype.itemsize
    with np.errstate(all="ignore"):
        if bits < 32:
            wide, count = x.astype(np.int64), count.astype(np.int64) & 31
            return ((wide << count) if left else (wide >> count)).astype(x.dtype)
        count = (count.astype(np.int64) & (bits - 1)).astype(x.dtype)
        return (x << count) if left else (x >> count)


def popcount_model(x):
    bits = 8 * x.dtype.itemsize
    return np.array([bin(int(v) & ((1 << bits) - 1)).count("1") for v in x.ravel()], np.uint8).reshape(x.shape)


# -- shifts and population_count -----------------------------------------------------------------

SHIFT_OPERANDS = []
for _t in INTS:
    _info = np.iinfo(_t)
    SHIFT_OPERANDS += [RNG.integers(_info.min, _info.max, (5, 4), _t, endpoint=True),
                       RNG.integers(max(_info.min, -70), 70, (4,), _t, endpoint=True)]


def _all_shifts(*arrays):
    outs = []
    for x, count in zip(arrays[::2], arrays[1::2]):
        outs += [ops.bitwise_left_shift(x, count), ops.bitwise_right_shift(x, count), ops.population_count(x)]
    return tuple(outs)


@pytest.mark.parametrize("mode", MODES)
def test_shifts_and_popcount_of_every_integer_dtype(mode):
    got = call(_all_shifts, mode, *SHIFT_OPERANDS)
    for k, (x, count) in enumerate(zip(SHIFT_OPERANDS[::2], SHIFT_OPERANDS[1::2])):
        left, right, pop = got[3 * k: 3 * k + 3]
        full = np.broadcast_to(count, x.shape)
        for out, want in ((left, shift_model(x, full, True)), (right, shift_model(x, full, False)),
                          (pop, popcount_model(x))):
            assert out.dtype == want.dtype, (x.dtype, out.dtype)
            np.testing.assert_array_equal(out, want, err_msg=f"{x.dtype}")


def test_shifts_measured_on_mindspore():
    # measured on MindSpore 2.10.0 (CPU)
    x8, c8 = np.array([1, -1, 5, 100, 7, 3, 1], np.int8), np.array([0, 1, 2, 7, 8, 40, 64], np.int8)
    x32, c32 = np.array([-8, 8, -1, 16, -17], np.int32), np.array([-1, -1, 31, 32, 33], np.int32)
    x64, c64 = x32.astype(np.int64), np.array([-1, -1, 63, 64, 65], np.int64)
    u16 = np.array([1, 200, 5, 100, 7, 3, 1], np.uint16)
    cases = [(x8, c8, [1, -2, 20, 0, 0, 0, 1], [1, -1, 1, 0, 0, 0, 1]),
             (x32, c32, [0, 0, -2147483648, 16, -34], [-1, 0, -1, 16, -9]),
             (x64, c64, [0, 0, -9223372036854775808, 16, -34], [-1, 0, -1, 16, -9]),
             (u16, c8.astype(np.uint16), [1, 400, 20, 12800, 1792, 768, 1], [1, 100, 1, 0, 0, 0, 1])]
    for x, count, left, right in cases:
        assert ops.bitwise_left_shift(Tensor(x), Tensor(count)).asnumpy().tolist() == left
        assert Tensor(x).bitwise_right_shift(Tensor(count)).asnumpy().tolist() == right
    pop = ops.population_count(Tensor(np.array([0, 1, 7, 127, -128, -1, -2], np.int8)))
    assert pop.dtype == ms.uint8 and pop.asnumpy().tolist() == [0, 1, 3, 7, 1, 8, 7]
    big = np.array([np.iinfo(np.uint64).max, 0], np.uint64)
    assert ops.population_count(Tensor(big)).asnumpy().tolist() == [64, 0]


def test_shift_scalars_dtypes_and_errors():
    x = Tensor(np.array([1, 2, 3], np.int32))
    assert ops.bitwise_left_shift(x, 2).asnumpy().tolist() == [4, 8, 12]
    assert ops.bitwise_left_shift(2, x).asnumpy().tolist() == [4, 8, 16]       # measured
    assert ops.bitwise_left_shift(x, True).asnumpy().tolist() == [2, 4, 6]     # measured: True is 1
    assert x.bitwise_left_shift(1).dtype == ms.int32
    with pytest.raises(TypeError, match="the dtype of two args should be same.*Int32.*Int64"):
        ops.bitwise_left_shift(x, Tensor(np.array([1], np.int64)))
    with pytest.raises(TypeError, match="dtype of input should be one of .*Float32"):
        ops.bitwise_right_shift(Tensor(np.array([1.0], np.float32)), 1)
    with pytest.raises(TypeError, match="dtype of input should be one of .*Bool"):
        ops.bitwise_left_shift(Tensor(np.array([True])), Tensor(np.array([True])))
    with pytest.raises(TypeError, match="'other' must be an integer"):
        ops.bitwise_left_shift(x, 2.0)
    with pytest.raises(TypeError, match="at least one of the inputs should be a Tensor"):
        ops.bitwise_left_shift(1, 2)
    with pytest.raises(TypeError, match="PopulationCount.*Bool"):
        ops.population_count(Tensor(np.array([True])))


def test_shifts_vmap_and_no_gradient():
    x = RNG.integers(-100, 100, (3, 5)).astype(np.int32)
    count = RNG.integers(-40, 40, (3, 5)).astype(np.int32)
    got = ops.vmap(lambda a, b: ops.bitwise_right_shift(a, b), in_axes=(0, 1))(Tensor(x), Tensor(count.T.copy()))
    np.testing.assert_array_equal(got.asnumpy(), shift_model(x, count, False))

    def f(v):   # the float path gets its gradient; the integer shift none
        return (v * ops.cast(ops.bitwise_left_shift(ops.cast(v, ms.int32), 1), ms.float32)).sum()
    np.testing.assert_array_equal(ops.grad(f)(Tensor(np.array([1.0, 3.0], np.float32))).asnumpy(), [2.0, 6.0])


# -- nextafter ---------------------------------------------------------------------------------------

EDGE_X = [0.0, 0.0, -0.0, -0.0, 0.0, 1.0, 1.0, -1.0, np.inf, -np.inf, np.inf, np.nan, 1.0, 3.4e38, 2.0, 0.0, 0.5]
EDGE_Y = [-1.0, 1.0, 1.0, -1.0, -0.0, 2.0, 0.0, -2.0, 0.0, 0.0, np.inf, 1.0, np.nan, np.inf, 2.0, -0.0, 0.25]
TINY = [1e-45, -1e-45, 1e-45, 1.2e-38, -1.1754944e-38, 2.5e-38]   # subnormals and the smallest normals
TINY_Y = [0.0, 0.0, 1.0, 0.0, 0.0, -1.0]


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    same = (got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")) | (np.isnan(got) & np.isnan(want))
    assert same.all(), (got[~same], want[~same])


@pytest.mark.parametrize("mode", MODES)
def test_nextafter_is_ieee_bit_for_bit(mode):
    rand32 = RNG.integers(0, 2**32, 64, np.uint64).astype(np.uint32).view(np.float32)
    rand64 = RNG.integers(0, 2**63, 64, np.uint64).view(np.float64) * RNG.choice([-1.0, 1.0], 64)
    x32 = np.array(EDGE_X + (TINY if mode == "onnx" else []), np.float32)   # XLA on CPU reads subnormals as 0
    y32 = np.array(EDGE_Y + (TINY_Y if mode == "onnx" else []), np.float32)
    arrays = [x32, y32, rand32, rand32[::-1].copy(), x32.astype(np.float64), y32.astype(np.float64), rand64,
              np.zeros(64)]
    got = call(lambda *a: tuple(ops.nextafter(a[i], a[i + 1]) for i in range(0, 8, 2)), mode, *arrays)
    for k, out in enumerate(got):
        with np.errstate(all="ignore"):
            _same_bits(out, np.nextafter(arrays[2 * k], arrays[2 * k + 1]))


def test_nextafter_float64_measured_and_float32_departure():
    # measured on MindSpore 2.10.0 (CPU), float64: IEEE nextafter, as numpy
    x = Tensor(np.array([0.0, 1.0, 1.0, np.inf, 0.0], np.float64))
    y = Tensor(np.array([-1.0, 2.0, 0.0, 0.0, -0.0], np.float64))
    _same_bits(ops.nextafter(x, y).asnumpy(), np.array([-5e-324, 1.0000000000000002, 0.9999999999999999,
                                                         1.7976931348623157e308, -0.0]))
    # MindSpore 2.10's float32 CPU kernel rounds float64's step back, returning x itself (1.0 for
    # nextafter(1, 2), -0.0 for nextafter(0, -1)); graphcell gives the documented float32 step
    got = ops.nextafter(Tensor(np.array([1.0, 0.0, 0.0], np.float32)), Tensor(np.array([2.0, -1.0, 0.1], np.float32)))
    _same_bits(got.asnumpy(), np.array([1 + np.finfo(np.float32).eps, -1e-45, 1e-45], np.float32))
    assert Tensor(np.array([1.0], np.float32)).nextafter(Tensor(np.array([0.0], np.float32))).asnumpy()[0] < 1


def test_nextafter_broadcast_vmap_grad_and_errors():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    y = RNG.standard_normal((4,)).astype(np.float32)
    np.testing.assert_array_equal(ops.nextafter(Tensor(x), Tensor(y)).asnumpy(), np.nextafter(x, y))
    got = ops.vmap(ops.nextafter, in_axes=(1, None))(Tensor(x), Tensor(y[:3]))
    np.testing.assert_array_equal(got.asnumpy(), np.nextafter(x.T, y[:3]))
    # measured on MindSpore 2.10: the gradient is 1 for x, 0 for y
    gx, gy = ops.grad(lambda a, b: ops.nextafter(a, b).sum(), grad_position=(0, 1))(Tensor(x), Tensor(y))
    np.testing.assert_array_equal(gx.asnumpy(), np.ones_like(x))
    np.testing.assert_array_equal(gy.asnumpy(), np.zeros_like(y))
    with pytest.raises(TypeError, match=r"NextAfter.*Float16"):
        ops.nextafter(Tensor(np.array([1.0], np.float16)), Tensor(np.array([2.0], np.float16)))
    with pytest.raises(TypeError, match=r"NextAfter.*Int32"):
        ops.nextafter(Tensor(np.array([1], np.int32)), Tensor(np.array([2], np.int32)))
    with pytest.raises(TypeError, match="input type must be same"):
        ops.nextafter(Tensor(np.array([1.0], np.float32)), Tensor(np.array([2.0], np.float64)))


# -- nanmedian ---------------------------------------------------------------------------------------

NAN = np.nan
MEDIAN_X = np.array([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, NAN], [2, 1, 2, 1], [NAN, 5, NAN, 4]], np.float32)


@pytest.mark.parametrize("mode", MODES)
def test_nanmedian_measured_on_mindspore(mode):
    got = call(lambda x: ops.nanmedian(x) + ops.nanmedian(x, 0) + x.nanmedian(-2, True), mode, MEDIAN_X)
    # measured on MindSpore 2.10.0 (CPU): the lower median of the numbers, ties by index
    np.testing.assert_array_equal(got[0], [2.0, NAN, 1.0, 4.0])
    np.testing.assert_array_equal(got[1], [3, 0, 3, 3])   # all NaN: the first NaN (2.10's kernel: index 2)
    np.testing.assert_array_equal(got[2], [1.0, 1.0, 2.0, 2.0])
    np.testing.assert_array_equal(got[3], [0, 2, 2, 0])
    np.testing.assert_array_equal(got[4], [[1.0, 1.0, 2.0, 2.0]])
    assert got[1].dtype == got[3].dtype == np.int64
    # torch picks the same values (its ties may take another index)
    np.testing.assert_array_equal(got[0], torch.nanmedian(torch.from_numpy(MEDIAN_X), -1).values.numpy())


def test_nanmedian_dtypes_edges_grad_vmap_and_errors():
    v, i = ops.nanmedian(Tensor(np.array([3, 2, 1], np.int32)))        # measured: Int32 2 at index 1
    assert (v.dtype, v.item(), i.item()) == (ms.int32, 2, 1)
    v, i = ops.nanmedian(Tensor(np.array(3.0, np.float32)))
    assert (v.item(), i.item()) == (3.0, 0)
    v, i = ops.nanmedian(Tensor(np.array([5.0, 5.0, 5.0, NAN, 5.0], np.float32)))   # measured: 5 at index 1
    assert (v.item(), i.item()) == (5.0, 1)
    v, i = ops.nanmedian(Tensor(np.array([np.inf, NAN, -np.inf, 0.0], np.float64)))  # measured: 0 at index 3
    assert (v.item(), i.item()) == (0.0, 3)
    v, i = ops.nanmedian(Tensor(np.full((2, 4), NAN, np.float32)), 1)
    assert np.isnan(v.asnumpy()).all() and i.asnumpy().tolist() == [0, 0]   # (2.10's index: 2, an artefact)
    g = ops.grad(lambda x: ops.nanmedian(x)[0])(Tensor(np.array([3.0, 1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 0.0, 1.0])          # measured on MindSpore 2.10
    got = ops.vmap(lambda x: ops.nanmedian(x)[0], in_axes=1)(Tensor(MEDIAN_X))
    np.testing.assert_array_equal(got.asnumpy(), [1.0, 1.0, 2.0, 2.0])
    with pytest.raises(TypeError, match=r"Median.*Float16"):
        ops.nanmedian(Tensor(np.array([1.0], np.float16)))
    with pytest.raises(TypeError, match="'axis' should be 'int'"):
        ops.nanmedian(Tensor(MEDIAN_X), 1.0)
    with pytest.raises(ValueError, match=r"axis must be in \[-1,1\), but got 1"):
        ops.nanmedian(Tensor(np.array([3.0], np.float32)), 1)


# -- unique_consecutive (eager only) -----------------------------------------------------------------

def _values(out):
    return [(str(t.dtype), t.shape, t.asnumpy().tolist()) for t in out]


def test_unique_consecutive_measured_on_mindspore():
    # measured on MindSpore 2.10.0 (CPU)
    x = Tensor(np.array([1, 1, 2, 2, 3, 1, 1, 2], np.int32))
    assert ops.unique_consecutive(x).asnumpy().tolist() == [1, 2, 3, 1, 2]
    assert _values(x.unique_consecutive(True, True)) == [
        ("Int32", (5,), [1, 2, 3, 1, 2]), ("Int64", (8,), [0, 0, 1, 1, 2, 3, 3, 4]), ("Int64", (5,), [2, 2, 1, 2, 1])]
    assert _values(ops.unique_consecutive(x, False, True)) == [("Int32", (5,), [1, 2, 3, 1, 2]),
                                                              ("Int64", (5,), [2, 2, 1, 2, 1])]
    rows = Tensor(np.array([[1, 2], [1, 2], [3, 4], [1, 2], [3, 4], [3, 4]], np.float32))
    assert _values(ops.unique_consecutive(rows, True, True, 0)) == [
        ("Float32", (4, 2), [[1, 2], [3, 4], [1, 2], [3, 4]]), ("Int64", (6,), [0, 0, 1, 2, 3, 3]),
        ("Int64", (4,), [2, 1, 1, 2])]
    inverse = _values(ops.unique_consecutive(rows, True, True))[1]
    assert inverse == ("Int64", (6, 2), np.arange(12).reshape(6, 2).tolist())
    cols = Tensor(np.array([[1, 1, 2], [1, 1, 2]], np.int64))
    assert _values(ops.unique_consecutive(cols, True, True, -1)) == [
        ("Int64", (2, 2), [[1, 2], [1, 2]]), ("Int64", (3,), [0, 0, 1]), ("Int64", (2,), [2, 1])]
    assert _values(ops.unique_consecutive(Tensor(np.array(5, np.int32)), True, True)) == [
        ("Int32", (1,), [5]), ("Int64", (), 0), ("Int64", (1,), [1])]
    # each NaN a run of its own, -0.0 == 0.0 (2.10 adds a spurious first run of length 0 for a NaN)
    got = _values(ops.unique_consecutive(Tensor(np.array([NAN, NAN, 1, 1, -0.0, 0.0], np.float32)), True, True))
    assert got[1:] == [("Int64", (6,), [0, 1, 2, 2, 3, 3]), ("Int64", (4,), [1, 1, 2, 2])]
    torch_out = torch.unique_consecutive(torch.tensor([NAN, NAN, 1, 1, -0.0, 0.0]), return_counts=True)
    assert got[2][2] == torch_out[1].tolist()


def test_unique_consecutive_errors_graph_mode_and_eager_grad():
    with pytest.raises(ValueError, match=r"'dim' should be in \[-2, 2\), but got 2"):
        ops.unique_consecutive(Tensor(np.ones((2, 2), np.float32)), dim=2)
    with pytest.raises(TypeError, match="must be a Tensor"):
        ops.unique_consecutive([1, 1, 2])
    with pytest.raises(GraphModeError, match="depends on the input's values.*run starts"):
        ms.jit(ops.unique_consecutive)(Tensor(np.array([1, 1, 2], np.int32)))
    rows = Tensor(np.array([[1, 2], [1, 2], [3, 4]], np.float32))
    g = ops.grad(lambda x: ops.unique_consecutive(x, dim=0).sum())(rows)
    np.testing.assert_array_equal(g.asnumpy(), [[1, 1], [0, 0], [1, 1]])


# -- strided_slice -------------------------------------------------------------------------------------

X3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
X4 = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
# (begin, end, strides, masks, the numpy index they spell)
SLICES = [
    ((1, 0, 0), (2, 1, 3), (1, 1, 1), {}, np.s_[1:2, 0:1, 0:3]),
    ((1, 0, 0), (2, 2, 3), (1, 1, 2), {}, np.s_[1:2, 0:2, 0:3:2]),
    ((1, 2, 3), (0, 0, 0), (-1, -1, -1), {}, np.s_[1:0:-1, 2:0:-1, 3:0:-1]),
    ((0,), (1,), (1,), {}, np.s_[0:1]),
    ((0, 1), (2, 3), (1, 1), {"begin_mask": 1}, np.s_[:2, 1:3]),
    ((1, 1), (1, 2), (1, 1), {"end_mask": 1}, np.s_[1:, 1:2]),
    ((1, 0, 0), (2, 2, 3), (1, 1, 1), {"shrink_axis_mask": 5}, np.s_[1, 0:2, 0]),
    ((1, 0, 0), (1, 2, 3), (1, 1, 1), {"shrink_axis_mask": 1}, np.s_[1, 0:2, 0:3]),   # end ignored
    ((1, 0, 0), (2, 2, 3), (1, 1, 1), {"new_axis_mask": 1}, np.s_[None, 0:2, 0:3]),
    ((1, 0, 0), (2, 2, 3), (1, 1, 1), {"new_axis_mask": 2}, np.s_[1:2, None, 0:3]),
    ((0, 1), (1, 2), (1, 1), {"ellipsis_mask": 1}, np.s_[..., 1:2]),
    ((0, 1, 2), (1, 2, 3), (1, 1, 1), {"ellipsis_mask": 2, "shrink_axis_mask": 4}, np.s_[0:1, ..., 2]),
    ((0, 2), (2, 0), (1, -1), {"shrink_axis_mask": 1}, np.s_[0, 2:0:-1]),
    ((0, 5), (2, -5), (1, -1), {}, np.s_[0:2, 5:-5:-1]),
    ((-1, -2, -3), (-2, -3, -4), (-1, -1, -1), {}, np.s_[-1:-2:-1, -2:-3:-1, -3:-4:-1]),
    ((-10,), (10,), (1,), {}, np.s_[-10:10]),
]
SLICES_4D = [((0, 1), (1, 3), (1, 1), {"ellipsis_mask": 1}, np.s_[..., 1:3]),
             ((1, 0, 1), (2, 1, 3), (1, 1, 1), {"ellipsis_mask": 2}, np.s_[1:2, ..., 1:3])]
# measured on MindSpore 2.10.0 (CPU), where its kernel fills the shape it infers correctly
SLICES_MEASURED = {0: [[[12, 13, 14]]], 1: [[[12, 14], [16, 18]]], 2: [[[23, 22, 21], [19, 18, 17]]],
                   6: [12, 16], 11: [[2, 6, 10]], 12: [[8, 9, 10, 11], [4, 5, 6, 7]], 14: [[[17]]]}


def _all_slices(x3, x4):
    return tuple(ops.strided_slice(x3, b, e, s, **m) for b, e, s, m, _ in SLICES) + tuple(
        ops.strided_slice(x4, b, e, s, **m) for b, e, s, m, _ in SLICES_4D)


@pytest.mark.parametrize("mode", MODES)
def test_strided_slice_is_the_index_its_masks_spell(mode):
    got = call(_all_slices, mode, X3, X4)
    wants = [X3[index] for *_, index in SLICES] + [X4[index] for *_, index in SLICES_4D]
    for k, (out, want) in enumerate(zip(got, wants)):
        assert out.shape == want.shape, k
        np.testing.assert_array_equal(out, want, err_msg=str(k))
    for k, measured in SLICES_MEASURED.items():
        np.testing.assert_array_equal(got[k], measured)


def test_strided_slice_grad_and_errors():
    g = ops.grad(lambda x: ops.strided_slice(x, (0,), (3,), (2,)).sum())(Tensor(np.array([3.0, 1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), [1.0, 0.0, 1.0])         # measured on MindSpore 2.10
    x = Tensor(X3)
    assert ops.strided_slice(x, [Tensor(np.array(1)), 0, 0], [2, 2, 3], [1, 1, 1]).shape == (1, 2, 3)
    with pytest.raises(ValueError, match="'strides' can not contain 0"):
        ops.strided_slice(x, (1, 0, 0), (2, 2, 3), (1, 1, 0))
    with pytest.raises(ValueError, match="must have the same length"):
        ops.strided_slice(x, (1, 0), (2, 2, 3), (1, 1, 1))
    with pytest.raises(ValueError, match="less than or equal to the dimension"):
        ops.strided_slice(x, (0, 0, 0, 0), (1, 1, 1, 1), (1, 1, 1, 1))
    with pytest.raises(ValueError, match="only support one ellipsis"):
        ops.strided_slice(x, (0, 0, 0), (1, 2, 3), (1, 1, 1), ellipsis_mask=3)
    with pytest.raises(ValueError, match="begin_mask mask must be greater equal 0"):
        ops.strided_slice(x, (0, 0, 0), (1, 2, 3), (1, 1, 1), begin_mask=-1)
    with pytest.raises(IndexError, match=r"'begin\[0\]' must be in \[-2, 2\)"):
        ops.strided_slice(x, (3, 0, 0), (2, 2, 3), (1, 1, 1), shrink_axis_mask=1)
    with pytest.raises(IndexError, match=r"'strides\[1\]' cannot be negative"):
        ops.strided_slice(x, (0, 2), (2, 0), (1, -1), shrink_axis_mask=2)
    with pytest.raises(TypeError, match="must hold ints"):
        ops.strided_slice(x, (1.0, 0, 0), (2, 2, 3), (1, 1, 1))


# -- mirror_pad, space_to_batch_nd, batch_to_space_nd, reverse_sequence ----------------------------

M2 = np.arange(6, dtype=np.float32).reshape(2, 3)
P = np.array([[1, 1], [2, 2]], np.int64)
S2B_X = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 2, 2)
S2B_X4 = np.arange(48, dtype=np.int32).reshape(2, 3, 4, 2)
B2S_X = np.arange(48, dtype=np.float32).reshape(8, 1, 3, 2)
SEQ_X = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
SEQ_LENS = np.array([2, 3, 1, 0], np.int32)


def _layout_table(m2, s2b, s2b4, b2s, seq, lens):
    pads = Tensor(P)   # a constant: the padding amounts make the shape
    return (ops.mirror_pad(m2, pads, "REFLECT"), ops.mirror_pad(m2, pads, "SYMMETRIC"),
            ops.mirror_pad(m2, ((0, 1), (3, 3)), "SYMMETRIC"),
            ops.space_to_batch_nd(s2b, [2, 2], [[1, 1], [0, 2]]), ops.space_to_batch_nd(s2b4, [2, 1], [[1, 1], [0, 0]]),
            ops.batch_to_space_nd(b2s, [2, 2], [[1, 2], [0, 1]]),
            ops.batch_to_space_nd(ops.space_to_batch_nd(s2b4, (2, 2), ((0, 0), (2, 0))), 2, ((0, 0), (2, 0))),
            ops.reverse_sequence(seq, lens, 1, 2), seq.reverse_sequence(lens[:2], 2))


@pytest.mark.parametrize("mode", MODES)
def test_layout_ops_measured_on_mindspore(mode):
    got = call(_layout_table, mode, M2, S2B_X, S2B_X4, B2S_X, SEQ_X, SEQ_LENS)
    # measured on MindSpore 2.10.0 (CPU); np.pad gives the same
    np.testing.assert_array_equal(got[0], [[5, 4, 3, 4, 5, 4, 3], [2, 1, 0, 1, 2, 1, 0],
                                           [5, 4, 3, 4, 5, 4, 3], [2, 1, 0, 1, 2, 1, 0]])
    np.testing.assert_array_equal(got[0], np.pad(M2, P, "reflect"))
    np.testing.assert_array_equal(got[1], np.pad(M2, P, "symmetric"))
    np.testing.assert_array_equal(got[2], [[2, 1, 0, 0, 1, 2, 2, 1, 0], [5, 4, 3, 3, 4, 5, 5, 4, 3],
                                           [5, 4, 3, 3, 4, 5, 5, 4, 3]])
    np.testing.assert_array_equal(got[3].ravel(), [0, 0, 3, 0, 0, 0, 4, 0, 1, 0, 0, 0, 2, 0, 0, 0])
    assert got[3].shape == (4, 1, 2, 2) and got[4].shape == (4, 3, 3, 2)
    np.testing.assert_array_equal(got[4].ravel()[:18], [0, 0, 2, 3, 6, 7, 0, 0, 10, 11, 14, 15, 0, 0, 18, 19, 22, 23])
    assert got[5].shape == (2, 1, 3, 3)
    np.testing.assert_array_equal(got[5].ravel(), [24, 36, 25, 2, 14, 3, 26, 38, 27, 30, 42, 31, 8, 20, 9, 32, 44, 33])
    np.testing.assert_array_equal(got[6], S2B_X4)                        # batch_to_space_nd inverts it
    np.testing.assert_array_equal(got[7], [[[4, 9, 2, 3], [0, 5, 6, 7], [8, 1, 10, 11]],
                                           [[16, 21, 14, 15], [12, 17, 18, 19], [20, 13, 22, 23]]])
    want = SEQ_X.copy()
    for b, n in enumerate(SEQ_LENS[:2]):
        want[b, :, :n] = SEQ_X[b, :, :n][:, ::-1]
    np.testing.assert_array_equal(got[8], want)


def test_layout_ops_grads_vmap_and_errors():
    x = Tensor(np.array([3.0, 1.0, 2.0], np.float32))
    weights = Tensor(np.arange(6, dtype=np.float32))
    g = ops.grad(lambda v: (ops.mirror_pad(v, Tensor(np.array([[2, 1]])), "REFLECT") * weights).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), [2.0, 9.0, 4.0])           # measured on MindSpore 2.10
    g = ops.grad(lambda v: ops.reverse_sequence(v.reshape(1, 3), Tensor(np.array([2], np.int32)), 1)[0, 0])(x)
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 1.0, 0.0])           # measured on MindSpore 2.10
    batch = RNG.standard_normal((3, 1, 4, 4)).astype(np.float32)
    got = ops.vmap(lambda v: ops.space_to_batch_nd(v, 2, [[0, 0], [0, 0]]))(Tensor(batch))
    for k in range(3):
        one = ops.space_to_batch_nd(Tensor(batch[k]), 2, [[0, 0]] * 2)
        np.testing.assert_array_equal(got.asnumpy()[k], one.asnumpy())
    m = Tensor(M2)
    with pytest.raises(ValueError, match="'mode' must be str and must be in"):
        ops.mirror_pad(m, Tensor(P), "reflect")
    with pytest.raises(ValueError, match="no greater than the dimension size"):
        ops.mirror_pad(m, Tensor(np.array([[0, 1], [3, 0]])), "REFLECT")
    with pytest.raises(ValueError, match="must be >= 0"):
        ops.mirror_pad(m, Tensor(np.array([[-1, 1], [0, 0]])), "REFLECT")
    with pytest.raises(TypeError, match=r"MirrorPad.*Float32"):
        ops.mirror_pad(m, Tensor(P.astype(np.float32)), "REFLECT")
    with pytest.raises(RuntimeError, match="divisible by block_size, but got padded shape: 3, block_size: 2"):
        ops.space_to_batch_nd(Tensor(S2B_X), [2, 2], [[1, 0], [0, 0]])
    with pytest.raises(ValueError, match="block_shape element should be >= min value: 1"):
        ops.space_to_batch_nd(Tensor(S2B_X), [0, 2], [[0, 0], [0, 0]])
    with pytest.raises(TypeError, match=r"SpaceToBatchND.*Bool"):
        ops.space_to_batch_nd(Tensor(S2B_X > 2), [2, 2], [[0, 0], [0, 0]])
    with pytest.raises(ValueError, match="must be divisible by 'block_shape_prod'"):
        ops.batch_to_space_nd(Tensor(np.zeros((6, 2, 4), np.float32)), [4], [[0, 0]])
    seq, lens = Tensor(SEQ_X[0]), Tensor(np.array([1, 2, 3], np.int32))
    with pytest.raises(RuntimeError, match=r"Invalid seq_lengths\[0\]: 5"):
        ops.reverse_sequence(seq, Tensor(np.array([5, 0, 3], np.int32)), 1)
    with pytest.raises(ValueError, match="'batch_dim' should be != seq_dim"):
        ops.reverse_sequence(seq, lens, 0)
    with pytest.raises(TypeError, match=r"seq_lengths.*Float32"):
        ops.reverse_sequence(seq, Tensor(np.array([1.0, 2, 3], np.float32)), 1)
    with pytest.raises(ValueError, match="vector size should be = input size along batch_dim: 3, but got 2"):
        ops.reverse_sequence(seq, Tensor(np.array([1, 2], np.int32)), 1)


# -- the nn Cells -------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_roll_onehot_unflatten_cells(mode):
    roll, one_hot, unflatten = nn.Roll((1, 2), (0, -1)), nn.OneHot(axis=0, depth=3), nn.Unflatten(1, (3, -1))
    x, indices = RNG.standard_normal((2, 3)).astype(np.float32), np.array([0, 2, -1, 3], np.int32)
    got = call(lambda a, i, b: (roll(a), one_hot(i), unflatten(b)), mode, x, indices, np.arange(24.0).reshape(2, 12))
    np.testing.assert_array_equal(got[0], np.roll(x, (1, 2), (0, 1)))
    # measured on MindSpore 2.10.0 (CPU): classes on axis 0, -1 and 3 give columns of zeros
    np.testing.assert_array_equal(got[1], [[1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]])
    assert got[1].dtype == np.float32
    np.testing.assert_array_equal(got[2], np.arange(24.0).reshape(2, 3, 4))


def test_cells_measured_on_mindspore_and_errors():
    # measured on MindSpore 2.10.0 (CPU)
    assert nn.Range(1, 5, 2)().dtype == ms.int32 and nn.Range(5, 1, -1)().asnumpy().tolist() == [5, 4, 3, 2]
    got = nn.Range(0, 1, 0.3)()
    assert got.dtype == ms.float32
    np.testing.assert_array_equal(got.asnumpy(), np.array([0.0, 0.3, 0.6, 0.9], np.float32))   # float64, rounded
    assert nn.Range(Tensor(0.5))().asnumpy().tolist() == [0.0] and nn.Range(5, 1, 1)().shape == (0,)
    hot = nn.OneHot(depth=3, on_value=5.0, off_value=-1.0)(Tensor(np.array([0, 2], np.int64)))
    np.testing.assert_array_equal(hot.asnumpy(), [[5, -1, -1], [-1, -1, 5]])
    assert nn.OneHot(depth=3, dtype=ms.int32)(Tensor(np.array([1], np.int32))).dtype == ms.int32
    assert nn.OneHot(depth=0)(Tensor(np.array([1, 2], np.int32))).shape == (2, 0)
    assert nn.Unflatten(1, [3, 4]).unflattened_size == (3, 4)
    with pytest.raises(ValueError, match="the shape of 'shift' and the shape of 'axis' must be the same"):
        nn.Roll(1, (0, 1))
    with pytest.raises(TypeError, match="the type of 'shift' should be one of"):
        nn.Roll(1.0, 0)
    with pytest.raises(ValueError, match=r"'axis' must be in range of \[-2, 2\), but got 2"):
        nn.Roll(1, 2)(Tensor(M2))
    with pytest.raises(ValueError, match="'delta' can not be zero"):
        nn.Range(1, 5, 0)
    with pytest.raises(TypeError, match=r"OneHot.*indices.*Float32"):
        nn.OneHot(depth=3)(Tensor(np.array([0.0], np.float32)))
    with pytest.raises(ValueError, match=r"axis value must be in \[-1,1\], but got -2"):
        nn.OneHot(axis=-2, depth=3)(Tensor(np.array([0], np.int32)))
    with pytest.raises(ValueError, match="depth value must be greater than or equal to 0"):
        nn.OneHot(depth=-1)(Tensor(np.array([0], np.int32)))
    with pytest.raises(TypeError, match=r"off_value.*Bool"):
        nn.OneHot(depth=3, dtype=ms.bool_)(Tensor(np.array([0], np.int32)))
    with pytest.raises(TypeError, match="'axis' must be 'int'"):
        nn.Unflatten(1.0, (3, 4))
    with pytest.raises(ValueError, match="does not fit axis 1 of size 12"):
        nn.Unflatten(1, (5, -1))(Tensor(np.zeros((2, 12), np.float32)))
    with pytest.raises(ValueError, match="only one dimension can be inferred"):
        nn.Unflatten(1, (-1, -1))(Tensor(np.zeros((2, 12), np.float32)))


# -- export with a dynamic batch ---------------------------------------------------------------------

class _Wave2Net(nn.Cell):
    def construct(self, x, i):
        return (ops.space_to_batch_nd(x, 2, [[0, 0], [1, 1]]),
                ops.strided_slice(x, (0, 1), (5, 3), (1, 1), begin_mask=1, end_mask=1),
                ops.nextafter(x, ops.zeros_like(x[:1])),
                ops.bitwise_right_shift(i, 1) + ops.population_count(i).astype(ms.int32),
                ops.mirror_pad(x, Tensor(np.array([[0, 0], [0, 0], [1, 1], [2, 0]])), "SYMMETRIC"),
                ops.reverse_sequence(i, Tensor(np.array([2, 0, 4, 3], np.int32)), 0, 1))


def test_export_with_a_dynamic_batch(tmp_path):
    import onnxruntime as ort
    net = _Wave2Net()
    x, i = RNG.standard_normal((4, 2, 4, 2)).astype(np.float32), np.arange(-8, 8, dtype=np.int32).reshape(4, 4)
    path = ms.export(net, Tensor(x), Tensor(i), file_name=str(tmp_path / "wave2.onnx"))
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    x6, i6 = RNG.standard_normal((6, 2, 4, 2)).astype(np.float32), np.arange(-12, 12, dtype=np.int32).reshape(6, 4)
    got = session.run(None, {k.name: v for k, v in zip(session.get_inputs(), (x6, i6))})
    for g, want in zip(got, net(Tensor(x6), Tensor(i6))):
        np.testing.assert_array_equal(g, want.asnumpy())
