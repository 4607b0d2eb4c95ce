"""The IR: golden text of LeNet5, the verifier, networkx/JSON views."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import ir
from graphcell.ir.core import GraphBuilder, TensorType
from graphcell.ops import PRIMITIVES
from tests.golden_text import assert_golden
from tests.models.lenet import LeNet5


def lenet_graph(batch=3):
    return ms.trace(LeNet5(), ms.Tensor(np.zeros((batch, 1, 32, 32), np.float32))).graph


def test_lenet5_ir_golden_text():
    assert_golden("lenet5.ir", ir.format_graph(lenet_graph(), source=True))


def test_printer_is_deterministic():
    assert str(lenet_graph()) == str(lenet_graph())


def test_verifier_accepts_traced_graphs_and_marks_bad_nodes():
    g = lenet_graph()
    ir.verify(g)
    # Corrupt one node's output type: the verifier names the node's line.
    node = g.nodes[3]
    node.outputs[0].type = TensorType((9, 9), ms.float32)
    with pytest.raises(ir.VerificationError, match="differ from the shape rule") as info:
        ir.verify(g)
    assert "<--" in str(info.value)


def test_shape_errors_fail_where_the_node_is_built():
    b = GraphBuilder()
    x = b.add_input(TensorType((2, 3), ms.float32), "x")
    y = b.add_input(TensorType((3, 3), ms.float32), "y")
    with pytest.raises(ValueError, match="cannot be broadcast"):
        b.add_node(PRIMITIVES["add"], (x, y), {})


def test_networkx_view_and_analyses():
    g = lenet_graph(batch=2)
    nxg = g.to_networkx()
    ops = [d["primitive"] for _, d in nxg.nodes(data=True) if d["kind"] == "op"]
    assert ops.count("conv") == 2 and ops.count("dot_general") == 3
    import networkx as nx
    assert nx.is_directed_acyclic_graph(nxg)
    # FLOPs of LeNet5 per image: convs 2*(6*28*28*25 + 16*10*10*150) + dense 2*(400*120+120*84+84*10).
    conv_dense = sum(ir.node_flops(n) for n in g.nodes if n.primitive.name in ("conv", "dot_general"))
    assert conv_dense == 2 * 2 * (6 * 28 * 28 * 25 + 16 * 10 * 10 * 150 + 400 * 120 + 120 * 84 + 84 * 10)
    assert ir.peak_live_bytes(g) > 2 * 6 * 28 * 28 * 4


def test_json_round_trip():
    g = lenet_graph()
    again = ir.from_json(ir.to_json(g))
    assert ir.format_graph(again, source=True) == ir.format_graph(g, source=True)
    ir.verify(again)


def test_dot_output_parses():
    import networkx as nx
    text = ir.to_dot(lenet_graph())
    assert text.startswith('digraph "LeNet5"') and text.count("->") == lenet_graph().to_networkx().number_of_edges()
    assert nx is not None
