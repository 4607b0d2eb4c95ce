"""compiler/onnx_dataflow.py's `Dataflow.static_shape` against onnx's own shape inference."""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from graphcell.compiler.onnx_dataflow import Dataflow


def _graph():
    """x [2, 3, 5] (shapes known from the lowering), b [-1, 4] (a dynamic batch), initializers
    w [4, 6] and v [6, 7, 2]; Transposes of each, one of them twice, one without perm (reversed)."""
    nodes = [helper.make_node("Transpose", ["x"], ["x_t"], perm=[2, 0, 1]),
             helper.make_node("Transpose", ["w"], ["w_t"], perm=[1, 0]),
             helper.make_node("Transpose", ["v"], ["v_rev"]),
             helper.make_node("Transpose", ["v_rev"], ["v_again"], perm=[0, 2, 1]),
             helper.make_node("Transpose", ["b"], ["b_t"], perm=[1, 0]),
             helper.make_node("Relu", ["x"], ["x_relu"])]
    initializers = [numpy_helper.from_array(np.zeros((4, 6), np.float32), "w"),
                    numpy_helper.from_array(np.zeros((6, 7, 2), np.float32), "v")]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 5]),
              helper.make_tensor_value_info("b", TensorProto.FLOAT, ["batch", 4])]
    outputs = [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, None) for n in nodes]
    return helper.make_graph(nodes, "g", inputs, outputs, initializers)


def _inferred(graph) -> dict:
    """onnx's shapes of every value (None where a dimension is symbolic)."""
    model = onnx.shape_inference.infer_shapes(helper.make_model(graph), strict_mode=True)
    values = list(model.graph.value_info) + list(model.graph.output) + list(model.graph.input)
    shapes = {}
    for v in values:
        dims = v.type.tensor_type.shape.dim
        shapes[v.name] = None if any(d.HasField("dim_param") for d in dims) else tuple(d.dim_value for d in dims)
    return shapes


def test_static_shape_reads_the_lowerings_shapes_initializers_and_transposes_of_them():
    graph = _graph()
    want = _inferred(graph)
    constants = {t.name: t for t in graph.initializer}
    flow = Dataflow(list(graph.node), set(), constants, {"x": (2, 3, 5), "b": (-1, 4)})
    for name in ("x", "x_t", "w", "w_t", "v", "v_rev", "v_again", "b", "b_t"):
        expected = want[name] if name in want else tuple(constants[name].dims)
        assert flow.static_shape(name) == expected, name
    assert flow.static_shape("w_t") == (6, 4) and flow.static_shape("v_rev") == (2, 7, 6)
    assert flow.static_shape("b") is None and flow.static_shape("b_t") is None   # the batch is dynamic
    assert flow.static_shape("x_relu") is None   # neither named by the lowering nor a Transpose
