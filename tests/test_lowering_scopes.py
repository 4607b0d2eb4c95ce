"""The XLA lowering names each node's Cell and line: StableHLO locations and XLA's op metadata
carry the Cell path as a jax name scope (`jit(Net)/seq/1/dot_general`), backward nodes with
their note (`seq/1/[grad]/...`), and the node's file:line; the values are those of PYNATIVE."""
import jax
import numpy as np

import graphcell as ms
from graphcell import nn, ops
from graphcell.compiler.jax_locations import scope_name
from graphcell.compiler.to_jax import graph_to_jax
from graphcell.passes import run_pipeline


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 3)
        self.seq = nn.SequentialCell([nn.ReLU(), nn.Dense(3, 2)])

    def construct(self, x):
        return self.seq(self.fc1(x) * 2.0)


def test_scope_names_follow_the_cell_path_and_the_pass_note():
    table = {"": "", "fc1": "fc1", "layer1.0.conv1": "layer1/0/conv1", "seq.1 [grad]": "seq/1/[grad]",
             "[grad]": "[grad]", "fc [param_grad]": "fc/[param_grad]",
             "conv [conv_strategy=wide]": "conv/[conv_strategy=wide]"}
    assert {k: scope_name(k) for k in table} == table


def test_lowered_program_names_the_cells_and_computes_the_same_values():
    ms.set_seed(0)
    net = Net()
    x = ms.Tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
    step = ms.value_and_grad(lambda x: ops.sum(net(x)), None, net.trainable_params())
    traced = ms.trace(step, x)
    graph = run_pipeline(traced.graph, "xla").graph
    arrays = [t._payload for t in traced.input_tensors([x])]
    lowered = jax.jit(graph_to_jax(graph)).lower(*arrays)
    text = lowered.as_text(debug_info=True)
    for op_name in ("/fc1/dot_general", "/seq/0/", "/seq/1/dot_general", "/seq/1/[grad]/dot_general",
                    "/fc1/[param_grad]/"):
        assert op_name in text, op_name
    assert "seq.1" not in text   # the path's dots became scope levels
    construct_line = Net.construct.__code__.co_firstlineno + 1   # `return self.seq(...)`
    assert f'loc("{__file__}":{construct_line}:' in text         # the user's file:line
    assert 'op_name="jit(' in lowered.compile().as_text() and "/seq/1/" in lowered.compile().as_text()

    # Values: the scoped program equals PYNATIVE (which never lowers a graph) on the same net.
    loss, grads = ms.jit(step)(x)
    eager_loss, eager_grads = step(x)
    np.testing.assert_allclose(loss.asnumpy(), eager_loss.asnumpy(), rtol=1e-6)
    for g, e in zip(grads, eager_grads):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6, atol=1e-6)
