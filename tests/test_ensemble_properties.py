"""Property tests of the signature use: random small CNN architectures (convolutions of every
padding mode, stride, dilation and group count, with or without bias; BatchNorm; activations;
max and average pools; a head of one or two dense layers) as N-member ensembles,
`vmap(nn.CellList(...))` with a shared input (in_axes=None) or one per member (in_axes=0):
eagerly, under XLA with each convolution strategy, through jit(backend="onnx"), and exported to
one ONNX file (opset 17, 18 or 23, with or without an ensemble head) served at two batch sizes
by onnxruntime (the file's batch dispatch picks the stacked form at batch 1 and per-member
chains above), each against the members run one by one; random transformer blocks likewise.
Their training steps and gradients: tests/test_ensemble_training_properties.py. `make test-fuzz`
runs them with many more examples."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphcell as ms
from graphcell import nn
from graphcell.runtime import Session
from tests.conftest import fuzz_derandomized, fuzz_examples
from tests.random_models import RandomEncoder, architectures, inputs, members, one_by_one

pytestmark = pytest.mark.fuzz
ENSEMBLES = settings(max_examples=fuzz_examples(8), deadline=None, derandomize=fuzz_derandomized(),
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
HEADS = [None, "mean", "vote", "mean_std"]   # export's ensemble heads (reduce=)


@ENSEMBLES
@given(arch=architectures(), n=st.integers(2, 3), shared=st.booleans(),
       strategy=st.sampled_from([None, "wide", "grouped", "unrolled"]), reduce=st.sampled_from(HEADS),
       opset=st.sampled_from([17, 18, 23]), seed=st.integers(0, 2**16))
def test_cnn_ensembles_equal_their_members_one_by_one(tmp_path, arch, n, shared, strategy, reduce, opset, seed):
    nets = members(arch, n, seed)
    in_axes = None if shared else 0
    x = inputs(arch, n, shared, 4, seed)
    want = one_by_one(nets, x, shared)
    ensemble = ms.vmap(nn.CellList(nets), in_axes=in_axes, conv_strategy=strategy)
    np.testing.assert_allclose(ensemble(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ms.jit(ensemble)(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ms.jit(ensemble, backend="onnx")(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)

    # One file for every batch size; batch 1 runs the stacked form, batch 4 the members' chains;
    # with an ensemble head in the graph or without.
    path = str(tmp_path / "ensemble.onnx")
    ms.export(ms.vmap(nn.CellList(nets), in_axes=in_axes), ms.Tensor(x), file_name=path, reduce=reduce, opset=opset)
    session = Session(path, providers=["cpu"])
    for batch in (1, 4):
        xb = inputs(arch, n, shared, batch, seed + batch)
        got, want = session(xb), _head(reduce, one_by_one(nets, xb, shared))
        for g, w in zip(got if isinstance(got, list) else [got], want):
            if reduce == "vote":   # a near tie of two members' logits may go either way
                assert (g == w).mean() >= 0.75, (g, w)
                continue
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=f"onnxruntime at batch {batch}")


def _head(reduce, outputs):
    """export's ensemble heads on the members' outputs [N, batch, classes], in numpy."""
    if reduce is None:
        return [outputs]
    shifted = np.exp(outputs - outputs.max(-1, keepdims=True))
    probs = shifted / shifted.sum(-1, keepdims=True)
    if reduce == "mean":
        return [probs.mean(0)]
    if reduce == "mean_std":
        return [probs.mean(0), probs.std(0)]
    votes = np.eye(outputs.shape[-1])[outputs.argmax(-1)].sum(0)   # [batch, classes]
    return [votes.argmax(-1)]                                      # ties: the lower class


@pytest.mark.slow   # ~27 s by default; `make test-fuzz` (-m fuzz) still runs it
@settings(ENSEMBLES, max_examples=fuzz_examples(3))   # ~7 s an example: two XLA compiles, three lowerings
@given(heads=st.integers(1, 2), head_dim=st.integers(2, 4), tokens=st.integers(2, 5), causal=st.booleans(),
       n=st.integers(2, 3), shared=st.booleans(), opset=st.sampled_from([18, 23]), seed=st.integers(0, 2**16))
def test_encoder_ensembles_equal_their_members_one_by_one(tmp_path, heads, head_dim, tokens, causal, n, shared,
                                                          opset, seed):
    dim = heads * head_dim
    rng = np.random.default_rng(seed)
    nets = []
    for k in range(n):
        ms.set_seed(seed + k)
        nets.append(RandomEncoder(dim, heads, causal, tokens, rng))
    in_axes = None if shared else 0

    def inputs(batch, offset):
        shape = (batch, tokens, dim) if shared else (n, batch, tokens, dim)
        return np.random.default_rng(seed + offset).standard_normal(shape).astype(np.float32)
    x = inputs(3, 1)
    want = one_by_one(nets, x, shared)
    ensemble = ms.vmap(nn.CellList(nets), in_axes=in_axes)
    np.testing.assert_allclose(ms.jit(ensemble)(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ms.jit(ensemble, backend="onnx")(ms.Tensor(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    path = str(tmp_path / "encoders.onnx")
    ms.export(ms.vmap(nn.CellList(nets), in_axes=in_axes), ms.Tensor(x), file_name=path, opset=opset)
    session = Session(path, providers=["cpu"])
    for batch in (1, 4):
        xb = inputs(batch, batch + 2)
        np.testing.assert_allclose(session(xb), one_by_one(nets, xb, shared), rtol=1e-4, atol=1e-5,
                                   err_msg=f"onnxruntime at batch {batch}")
