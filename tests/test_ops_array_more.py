"""ops/array_more.py: reverse, msort, numel, size, rank, shape, ravel, row_stack, dsplit,
slice, top_k, sequence_mask, truncate_div, truncate_mod and xdivy against numpy and torch,
eagerly and under jit (XLA and onnxruntime), with values read off MindSpore 2.10.0 (CPU)
where it differs from both (top_k's sorted=False order, xdivy's 0/0)."""
import numpy as np
import pytest
import torch

from graphcell import ops
from graphcell.tensor import Tensor
from tests.modes import run_table

RNG = np.random.default_rng(11)
X = RNG.uniform(-3, 3, (3, 4)).astype(np.float32)
X3 = RNG.uniform(-3, 3, (2, 3, 6)).astype(np.float32)
A = np.array([7, -7, 7, -7, 9], np.int32)
B = np.array([2, 2, -2, -2, 4], np.int32)
LENS = np.array([1, 3, 0], np.int32)
TOP = np.array([[1, 3, 2, 3, 0], [5, -1, 4, 4, 2]], np.float32)

CASES = {  # name: (fn, inputs, reference)
    "reverse": (lambda x: ops.reverse(x, [0, -1]), [X], X[::-1, ::-1]),
    "msort": (ops.msort, [X], np.sort(X, 0)),
    "ravel": (ops.ravel, [X], X.ravel()),
    "row_stack": (lambda x: ops.row_stack([x[0], x[1:]]), [X], X),
    "slice": (lambda x: ops.slice(x, (1, 0), (-1, 3)), [X], X[1:, :3]),
    "truncate_div": (ops.truncate_div, [A, B], torch.div(torch.from_numpy(A), torch.from_numpy(B),
                                                          rounding_mode="trunc").numpy()),
    "truncate_mod": (ops.truncate_mod, [A, B], torch.fmod(torch.from_numpy(A), torch.from_numpy(B)).numpy()),
    "truncate_div_float": (ops.truncate_div, [X, X[::-1].copy()], np.trunc(X / X[::-1])),
    "xdivy": (ops.xdivy, [np.array([0, 1, 0, 2], np.float32), np.array([0, 0, 2, 4], np.float32)],
              np.array([0, np.inf, 0, 0.5], np.float32)),          # measured on MindSpore 2.10
    "sequence_mask": (lambda n: ops.sequence_mask(n, 4), [LENS], np.arange(4) < LENS[:, None]),
    "top_k_values": (lambda x: ops.top_k(x, 3)[0], [TOP], torch.topk(torch.from_numpy(TOP), 3).values.numpy()),
    # sorted=False: the k largest in the input's order (measured on MindSpore 2.10: [1, 3, 2, 5], k=2 -> [3, 5])
    "top_k_unsorted": (lambda x: ops.top_k(x, 2, sorted=False)[0], [TOP], np.array([[3, 3], [5, 4]], np.float32)),
    "top_k_unsorted_indices": (lambda x: ops.top_k(x, 2, sorted=False)[1], [TOP], np.array([[1, 3], [0, 2]], np.int32)),
}


@pytest.mark.parametrize("backend", ["eager", "xla", "onnx"])
def test_values(backend):
    for n, got in run_table(CASES, CASES, backend).items():
        want = np.asarray(CASES[n][2])
        assert got.shape == want.shape and got.dtype == want.dtype, (n, got.shape, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=n)


def test_shapes_are_python_ints_and_dsplit_splits_the_third_axis():
    x = Tensor(X3)
    assert (ops.numel(x), ops.size(x), ops.rank(x), ops.shape(x)) == (36, 36, 3, (2, 3, 6))
    assert type(ops.numel(x)) is int
    for got, want in zip(ops.dsplit(x, [1, 4]), np.split(X3, [1, 4], axis=2)):
        np.testing.assert_array_equal(got.asnumpy(), want)
    assert len(ops.dsplit(x, 3)) == 3


def test_errors():
    with pytest.raises(TypeError, match="Xdivy"):
        ops.xdivy(Tensor(A), Tensor(B))
    with pytest.raises(ValueError, match="Slice"):
        ops.slice(Tensor(X), (2, 0), (2, 1))
    with pytest.raises(ValueError, match="dsplit"):
        ops.dsplit(Tensor(X), 2)
    np.testing.assert_array_equal(ops.sequence_mask(Tensor(np.array([[1, 2], [3, 0]], np.int32))).asnumpy(),
                                  np.arange(3) < np.array([[1, 2], [3, 0]])[..., None])   # maxlen: the largest
