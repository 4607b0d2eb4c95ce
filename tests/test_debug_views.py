"""What a user debugging a graph reads: where backward and control-flow nodes say they came
from, what `check` says about a divergence, and the dump command's pipeline stages and JSON.
Each case traces a tiny graph (no compile) or runs one small ONNX model."""
import inspect
import io
import json

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.cli import main
from graphcell.cli.dump import pass_list, pipeline_rounds
from graphcell.cli.output import Reporter
from graphcell.passes.grad import grad_graph
from graphcell.passes.manager import PIPELINE_ROUNDS, PIPELINES


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.act = nn.Tanh()

    def construct(self, x):
        return self.act(self.fc(x))


def _line_of(fn, text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_backward_nodes_carry_the_cell_path_and_line_of_their_forward_node():
    net = _Net()
    graph = ms.trace(net, ms.Tensor(np.ones((4, 3), np.float32))).graph
    wrt = [i for i, v in enumerate(graph.inputs) if v.kind == "param"]
    backward = grad_graph(graph, wrt).nodes[len(graph.nodes):]
    line = _line_of(_Net.construct, "self.act(self.fc(x))")
    scopes = {(n.primitive.name, n.source.scope, n.source.line) for n in backward if n.primitive.name != "constant"}
    # tanh' = 1 - y^2 under act; fc's input cotangent under fc; its weight/bias gradients noted
    assert ("dot_general", "fc [param_grad]", line) in scopes        # the weight's gradient
    assert ("reduce_sum", "fc [param_grad]", line) in scopes         # the bias's
    assert any(s == "act [grad]" and ln == line for _, s, ln in scopes), scopes
    assert all(s.endswith(("[grad]", "[param_grad]")) for _, s, _ in scopes), scopes


def test_cond_and_while_nodes_are_at_their_statement_line_not_the_blocks_last():
    def f(x):
        if x.sum() > 0:
            y = x * 2.0
            y = y + 1.0
        else:
            y = x - 1.0
        i = ms.Tensor(0, ms.int32)
        while i < 3:
            y = ops.tanh(y)
            i = i + 1
        return y
    graph = ms.trace(f, ms.Tensor(np.ones(3, np.float32))).graph
    line = {n.primitive.name: n.source.line for n in graph.nodes}
    assert line["cond"] == _line_of(f, "if x.sum() > 0")
    assert line["while_loop"] == _line_of(f, "while i < 3")


def test_check_names_the_values_where_onnx_departs():
    # onnxruntime's Relu keeps NaN where MindSpore's (and XLA's) gives 0 (tests/test_nan_semantics.py)
    report = ms.check(lambda t: ops.relu(ops.log(t)), ms.Tensor(np.array([4.0, -1.0, -2.0], np.float32)))
    first = report.first_divergence
    assert not report.ok and "relu(%0)" in first["text"]
    assert first["index"] == (1,) and np.isnan(first["onnx"]) and first["jax"] == 0.0
    assert first["mismatched"] == 2 and first["size"] == 3
    assert [name for name, _ in first["operands"]] == ["%0"] and np.isnan(first["operands"][0][1])
    assert "2 of 3 elements differ; at [1]: onnx nan, jax 0.0, %0 nan" in str(report)


def test_json_output_has_no_bare_nan():
    stream = io.StringIO()
    Reporter(rich=False, stream=stream).json({"diff": float("nan"), "rows": [float("inf"), 1.5, (float("-inf"),)]})
    assert json.loads(stream.getvalue(), parse_constant=lambda c: pytest.fail(c)) == \
        {"diff": "nan", "rows": ["inf", 1.5, ["-inf"]]}


def test_passes_all_runs_the_pipeline_as_often_as_jit():
    assert pipeline_rounds("all") == pipeline_rounds("onnx") == PIPELINE_ROUNDS > 1
    assert pipeline_rounds("cse,dce") == 1
    assert [n for n, _ in pass_list("all")] == [n for n, _ in PIPELINES["xla"]]


def test_svg_without_graphviz_fails_before_any_work(monkeypatch, capsys):
    import shutil
    monkeypatch.setattr(shutil, "which", lambda name: None)
    # the model file does not exist: the dot check must come first
    assert main(["dump", "no/such/net.py:Net", "--input-shape", "2,4", "--format", "svg"]) == 2
    err = capsys.readouterr().err
    assert "--format svg needs Graphviz's 'dot' program" in err and "no/such" not in err


def test_json_is_versioned_and_keeps_vmapped_axes():
    from graphcell.ir import format_graph, from_json, to_json
    from graphcell.passes.vmap import vmap_graph
    graph = ms.trace(_Net(), ms.Tensor(np.ones((4, 3), np.float32))).graph
    mapped = vmap_graph(graph, [None] + [0] * (len(graph.inputs) - 1), [0], 5)
    text = to_json(mapped)
    data = json.loads(text)
    assert (data["format"], data["version"]) == ("graphcell.graph", 1)
    assert "vmap:5" in format_graph(mapped)
    assert format_graph(from_json(text), source=True) == format_graph(mapped, source=True)   # vmap:5 kept
    del data["format"], data["version"]            # a file written before versions: still read
    assert format_graph(from_json(json.dumps(data))) == format_graph(mapped)
    with pytest.raises(ValueError, match="version 2 is newer"):
        from_json(json.dumps({**data, "version": 2}))


def test_a_model_file_without_a_name_lists_its_cells(tmp_path, capsys):
    script = tmp_path / "two.py"
    script.write_text("from graphcell import nn\nfrom graphcell.nn import Dense\n"
                      "class A(nn.Cell):\n    pass\nclass B(A):\n    pass\ndef helper():\n    return 1\n")
    assert main(["dump", str(script), "--input-shape", "2,4"]) == 2
    assert f"name the model to load: {script}:A, {script}:B\n" in capsys.readouterr().err   # not Dense
    (tmp_path / "none.py").write_text("x = 1\n")
    assert main(["dump", str(tmp_path / "none.py"), "--input-shape", "2,4"]) == 2
    assert "none.py defines no nn.Cell class" in capsys.readouterr().err


def test_dot_draws_subgraphs_as_clusters_named_as_the_text_form_names_values():
    import re
    from graphcell.ir import format_graph, to_dot

    def f(x):
        if x.sum() > 0:
            x = ops.exp(x)
        return x
    graph = ms.trace(f, ms.Tensor(np.ones(3, np.float32))).graph
    dot, text = to_dot(graph), format_graph(graph)
    cond = next(i for i, n in enumerate(graph.nodes) if n.primitive.name == "cond")
    exp_name = re.search(r"%(\d+):f32\[3\] = exp", text).group(1)
    for branch in ("then_branch", "else_branch"):
        assert f'subgraph "cluster_op:{cond}/{branch}/" {{' in dot
        assert f'"op:{cond}/{branch}/out:0" -> "op:{cond}" [style=dashed];' in dot
    assert re.search(rf'"op:{cond}/then_branch/op:\d+" \[shape=box, label="exp\\n%{exp_name}"\];', dot), dot
    assert dot.count("{") == dot.count("}")
