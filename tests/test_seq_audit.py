"""Differences from MindSpore 2.10 found by the sequence-model audit (session 17): each expected
value was measured on MindSpore 2.10 (CPU) with the same call."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.frontend.tracer import GraphModeError


def test_a_dynamic_shape_tensor_is_an_input_signature_without_values():
    sig = Tensor(shape=[None, 3], dtype=ms.float32)
    assert sig.shape == (-1, 3) and sig.dtype is ms.float32 and sig.ndim == 2 and sig.size == 0
    assert Tensor(shape=[-1, 3], dtype=ms.int32).shape == (-1, 3)
    assert "shape=[-1, 3]" in repr(sig)
    for bad in (dict(shape=[None, 3]), dict(shape=[None, 3], dtype=ms.float32, init="ones")):
        with pytest.raises(ValueError, match="If setting dynamic shape, dtype must not be None, init must be None"):
            Tensor(**bad)
    no_values = "dynamic shape \\[-1, 3\\] is an input signature"
    for use in (sig.asnumpy, lambda: sig + 1, lambda: ms.jit(ops.relu)(sig)):
        with pytest.raises(ValueError, match=no_values):
            use()

    def scaled_sum(x):
        return x.sum(0) * x.shape[0]
    jitted = ms.jit(scaled_sum, input_signature=sig)
    np.testing.assert_array_equal(jitted(Tensor(np.ones((5, 3), np.float32))).asnumpy(), [25.0] * 3)
    net = nn.Dense(3, 2)
    net.set_inputs(sig)
    assert net.get_inputs() == (sig,) and net(Tensor(np.ones((4, 3), np.float32))).shape == (4, 2)


def test_python_ints_beyond_an_integer_dtype_wrap_in_arithmetic_and_compare_exactly():
    t = Tensor([1, 100], ms.int8)
    cases = [   # (result, MindSpore 2.10's value, dtype)
        (t + 300, [45, -112], ms.int8), (300 + t, [45, -112], ms.int8), (t - 300, [-43, 56], ms.int8),
        (ops.maximum(t, 300), [44, 100], ms.int8), (Tensor([1], ms.int8) * 200, [-56], ms.int8),
        (Tensor([1], ms.uint8) + (-3), [254], ms.uint8), (Tensor([3], ms.uint8) * 100, [44], ms.uint8),
        (Tensor([1], ms.int32) + 2 ** 33, [1], ms.int32), (ms.jit(lambda v: v + 300)(t), [45, -112], ms.int8),
        (t < 300, [True, True], ms.bool_), (t == 44, [False, False], ms.bool_),
        (t > -200, [True, True], ms.bool_),
    ]
    for got, want, dtype in cases:
        assert got.dtype is dtype
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_embedding_counts_negative_ids_from_the_end_and_one_hot_gives_zero_rows():
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = Tensor(np.array([[-1, 1], [-4, 0]], np.int32))
    emb = nn.Embedding(4, 3, embedding_table=Tensor(table))
    want = table[[[3, 1], [0, 0]]]
    np.testing.assert_array_equal(emb(ids).asnumpy(), want)
    np.testing.assert_array_equal(ms.jit(emb)(ids).asnumpy(), want)
    hot = nn.Embedding(4, 3, use_one_hot=True, embedding_table=Tensor(table))
    beyond = Tensor(np.array([[4, 1], [-1, 2]], np.int32))
    zero_rows = np.stack([np.stack([np.zeros(3), table[1]]), np.stack([np.zeros(3), table[2]])])
    np.testing.assert_array_equal(hot(beyond).asnumpy(), zero_rows)
    np.testing.assert_array_equal(ms.jit(hot)(beyond).asnumpy(), zero_rows)
    grad = ms.grad(lambda w: ops.embedding(ids, w).sum())(Tensor(table))   # negative ids' gradient rows
    np.testing.assert_array_equal(grad.asnumpy()[:, 0], [2, 1, 0, 1])


def test_depend_and_partial_as_in_a_mindspore_training_step():
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    opt = nn.SGD(net.trainable_params(), learning_rate=0.5)
    grad_fn = ms.value_and_grad(lambda x: net(x).sum(), None, opt.parameters)

    @ms.jit
    def step(x):
        loss, grads = grad_fn(x)
        return ops.depend(loss, opt(grads))
    x = Tensor(np.array([[1.0, 2.0]], np.float32))
    # w: [1, 1] - 0.5 * [1, 2] each step, b: 0 - 0.5 each step
    assert float(step(x).asnumpy()) == 3.0 and float(step(x).asnumpy()) == 0.0
    np.testing.assert_array_equal(net.weight.asnumpy(), [[0.0, -1.0]])
    assert ops.depend((Tensor(1.0), 2), Tensor(3.0))[1] == 2 and ops.Depend()(Tensor(1.0), Tensor(3.0)).item() == 1.0

    @ms.jit
    def bound(v):
        scale = ops.partial(ops.mul, v)
        return scale(v + 1)
    assert bound(Tensor(3.0)).item() == 12.0
    assert ops.Partial()(ops.add, Tensor([1.0]))(Tensor([2.0])).asnumpy().tolist() == [3.0]
    with pytest.raises(TypeError, match="first argument must be a callable"):
        ops.partial(Tensor(1.0))


_PROBS = np.array([[[0.6, 0.3, 0.1], [0.1, 0.8, 0.1]], [[0.6, 0.3, 0.1], [0.1, 0.1, 0.8]],
                   [[0.1, 0.8, 0.1], [0.1, 0.1, 0.8]], [[0.1, 0.3, 0.6], [0.6, 0.3, 0.1]]], np.float32)


@pytest.mark.parametrize("merge, indices, values, shape", [   # MindSpore 2.10's outputs (measured)
    (True, [[0, 0], [0, 1], [1, 0]], [0, 1, 1], [2, 2]),
    (False, [[0, 0], [0, 1], [0, 2], [1, 0]], [0, 0, 1, 1], [2, 3]),
])
def test_ctc_greedy_decoder_as_mindspore(merge, indices, values, shape):
    logits, lengths = Tensor(np.log(_PROBS)), Tensor(np.array([4, 3], np.int32))
    for out in (ops.ctc_greedy_decoder(logits, lengths, merge_repeated=merge),
                ops.CTCGreedyDecoder(merge_repeated=merge)(logits, lengths)):
        assert [t.dtype for t in out] == [ms.int64, ms.int64, ms.int64, ms.float32]
        assert out[0].asnumpy().tolist() == indices and out[1].asnumpy().tolist() == values
        assert out[2].asnumpy().tolist() == shape
        np.testing.assert_allclose(out[3].asnumpy(), [[1.7556], [0.6694]], atol=1e-4)
    empty = ops.ctc_greedy_decoder(logits, Tensor(np.array([0, 0], np.int32)))
    assert empty[0].shape == (0, 2) and empty[2].asnumpy().tolist() == [2, 0]
    assert np.signbit(empty[3].asnumpy()).sum() == 0   # 0.0, not -0.0
    with pytest.raises(ValueError, match=r"sequence_length\[0\] 5 should be less than 4"):
        ops.ctc_greedy_decoder(logits, Tensor(np.array([5, 3], np.int32)))
    with pytest.raises(GraphModeError, match="static shapes"):
        ms.jit(lambda x: ops.ctc_greedy_decoder(x, lengths))(logits)


def test_functional_forms_of_tensor_methods():
    a, b = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
    assert ops.addn([a, b, a]).asnumpy().tolist() == [5.0, 8.0] and ops.addn((Tensor([1]), Tensor([3]))).dtype is ms.int64
    assert ops.is_tensor(a) and not ops.is_tensor(1.0)
    assert ops.is_floating_point(a) and not ops.is_floating_point(Tensor([1]))
    assert ops.dtype(a) is ms.float32
    assert ops.view_as(Tensor(np.arange(6.0)), Tensor(np.ones((2, 3)))).shape == (2, 3)
    assert ops.type_as(Tensor([1.5]), Tensor([1])).asnumpy().tolist() == [1]
    assert ops.inv(Tensor([2.0, 4.0])).asnumpy().tolist() == [0.5, 0.25]
    assert ops.inv(Tensor([2, 1, -1], ms.int32)).asnumpy().tolist() == [0, 1, -1]   # Tensor.inv's, measured


def test_tensor_data_and_has_init():
    t = Tensor([1.0, 2.0])
    assert t.data is t and t.has_init is False
    p = ms.Parameter(Tensor([1.0]), name="p")
    assert p.data is p and p.has_init is False
