"""set_context(save_graphs=..., save_graphs_path=...) and MS_DEV_SAVE_GRAPHS(_PATH): every compile
writes graphcell's IR per stage with MindSpore 2.10's file names (compiler/save_graphs.py)."""
import inspect
import re

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn, ops
from graphcell.ir.parser import parse_graph
from graphcell.passes.manager import PIPELINES

PASSES = [name for name, _ in PIPELINES["xla"]]
NAME = re.compile(r"(\d\d)_([a-z_]+)_(\d{4})(\.ir|\.dot|\.mlir|\.onnx\.txt)\Z")


@pytest.fixture(autouse=True)
def _save_graphs_off(monkeypatch):
    """The defaults during each test, and back to what they were after it."""
    from graphcell.context import _CONTEXT
    monkeypatch.delenv("MS_DEV_SAVE_GRAPHS", raising=False)
    monkeypatch.delenv("MS_DEV_SAVE_GRAPHS_PATH", raising=False)
    monkeypatch.setitem(_CONTEXT, "save_graphs", 0)
    monkeypatch.setitem(_CONTEXT, "save_graphs_path", ".")


def written(folder) -> list[tuple]:
    """(stage index, stage, file number, suffix) of the files in `folder`, by file number."""
    rows = []
    for path in folder.iterdir():
        m = NAME.match(path.name)
        assert m, path.name
        rows.append((int(m[1]), m[2], int(m[3]), m[4]))
    return sorted(rows, key=lambda r: r[2])


def stages(rows, suffix=".ir") -> list[str]:
    return [f"{i:02d}_{name}" for i, name, _, s in rows if s == suffix]


def ir_text(folder, row) -> str:
    i, name, number, suffix = row
    return (folder / f"{i:02d}_{name}_{number:04d}{suffix}").read_text()


def test_a_jit_compile_writes_the_trace_and_every_pass_as_parseable_ir_with_sources(tmp_path):
    ms.set_context(save_graphs=1, save_graphs_path=str(tmp_path))

    @ms.jit
    def f(a, b):
        return ops.relu(a * b) + 1.0
    line = inspect.getsourcelines(f)[1] + 2
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    f(x, x)
    rows = written(tmp_path)
    # 2.10's names: <stage index>_<stage>_<file number>.ir, one run of the pipeline at least
    assert stages(rows)[:1 + len(PASSES)] == [f"{i:02d}_{n}" for i, n in enumerate(["trace", *PASSES])]
    assert [r[2] for r in rows] == list(range(rows[0][2], rows[0][2] + len(rows)))   # consecutive numbers
    for row in rows:
        text = ir_text(tmp_path, row)
        assert parse_graph(text).format(source=True) + "\n" == text   # print -> parse -> print
    assert f"test_save_graphs.py:{line}" in ir_text(tmp_path, rows[0])   # sources, as the CLI's dump
    # a cached signature compiles nothing (2.10 measured: no files); a new shape compiles again
    f(x, x)
    assert len(written(tmp_path)) == len(rows)
    f(ms.Tensor(np.ones((3, 3), np.float32)), ms.Tensor(np.ones((3, 3), np.float32)))
    again = written(tmp_path)[len(rows):]   # the stage index restarts, the file number runs on
    assert stages(again) == stages(rows) and again[0][2] == rows[-1][2] + 1


def test_level_3_adds_a_dot_beside_each_ir_and_level_2s_backend_program(tmp_path):
    ms.set_context(save_graphs=True)   # True is level 2, as in 2.10 (measured)
    assert ms.get_context("save_graphs") == 2
    ms.set_context(save_graphs=3, save_graphs_path=str(tmp_path))
    f = ms.jit(lambda a: a * 3.0)
    f(ms.Tensor(np.ones(3, np.float32)))
    rows = written(tmp_path)
    assert stages(rows, ".dot") == stages(rows, ".ir")   # as 2.10's level 3: .ir, .dot, .ir, .dot, ...
    assert [r[3] for r in rows[:4]] == [".ir", ".dot", ".ir", ".dot"]
    assert ir_text(tmp_path, rows[1]).startswith("digraph")
    # level 2 and up: the program XLA compiles, last
    assert rows[-1][1:4:2] == ("stablehlo", ".mlir") and rows[-1][0] == len(stages(rows))
    assert "stablehlo.multiply" in ir_text(tmp_path, rows[-1])


def test_grad_and_vmap_graphs_write_the_trace_then_the_transform(tmp_path):
    net = nn.Dense(3, 2)
    x = ms.Tensor(np.ones((4, 3), np.float32))
    ms.set_context(save_graphs=1, save_graphs_path=str(tmp_path / "grad"))
    ms.grad(net, grad_position=None, weights=net.trainable_params())(x)
    rows = written(tmp_path / "grad")
    assert stages(rows)[:3] == ["00_trace", "01_grad", "02_cse"]
    grad_graph = parse_graph(ir_text(tmp_path / "grad", rows[1]))
    assert len(grad_graph.outputs) == 3   # the output, then the weight's and the bias's gradients

    ms.set_context(save_graphs=1, save_graphs_path=str(tmp_path / "vmap"))
    ms.vmap(lambda a: a.sum() * 2.0)(x)
    rows = written(tmp_path / "vmap")
    assert stages(rows)[:3] == ["00_trace", "01_vmap", "02_cse"]
    assert parse_graph(ir_text(tmp_path / "vmap", rows[0])).inputs[0].shape == (3,)    # one member
    assert parse_graph(ir_text(tmp_path / "vmap", rows[1])).inputs[0].shape == (4, 3)


def test_onnx_compiles_write_the_trace_and_the_model_text(tmp_path):
    ms.set_context(save_graphs=2, save_graphs_path=str(tmp_path / "jit"))
    f = ms.jit(lambda a: ops.exp(a) - 1.0, backend="onnx")
    x = ms.Tensor(np.ones((2, 3), np.float32))
    f(x)
    f(x)
    rows = written(tmp_path / "jit")
    # the trace, one round of the "onnx" pipeline (nothing changes), the model
    names = ["trace", *[name for name, _ in PIPELINES["onnx"]], "onnx"]
    assert [(i, n) for i, n, _, _ in rows] == list(enumerate(names))
    assert [s for *_, s in rows] == [".ir"] * (len(names) - 1) + [".onnx.txt"]
    assert "Exp" in ir_text(tmp_path / "jit", rows[-1])

    ms.set_context(save_graphs=1, save_graphs_path=str(tmp_path / "export"))
    ms.export(nn.Dense(3, 2), x, file_name=str(tmp_path / "m.onnx"))
    rows = written(tmp_path / "export")
    assert stages(rows) == ["00_trace"]
    exported = parse_graph(ir_text(tmp_path / "export", rows[0]))
    assert [n.primitive.name for n in exported.nodes] == ["dot_general", "add"]



def test_jit_onnx_writes_the_passes_graphcell_dump_runs(tmp_path):
    """jit(backend="onnx") runs the "onnx" pipeline as `graphcell dump --passes onnx` does
    (cli/dump.py's list and rounds): that run on the trace save_graphs wrote gives the last
    stage it wrote, which has one scan fewer (the gradient's replay merged into the forward)."""
    from graphcell.cli.dump import pass_list, pipeline_rounds
    from graphcell.passes import run_passes

    def loss(h0, xs):
        return ops.scan(lambda h, x: (ops.tanh(h + x), h), h0, xs)[0].sum()

    ms.set_context(save_graphs=1, save_graphs_path=str(tmp_path))
    h0, xs = np.ones((2, 3), np.float32), np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 2, 3)
    got = ms.jit(ms.grad(loss), backend="onnx")(ms.Tensor(h0), ms.Tensor(xs))
    rows = written(tmp_path)
    assert stages(rows)[:3] == ["00_trace", "01_cse", "02_merge_scans"]   # grad was traced inside jit
    grad_graph, last = (parse_graph(ir_text(tmp_path, row)) for row in (rows[0], rows[-1]))
    dumped = run_passes(grad_graph, pass_list("onnx"), max_rounds=pipeline_rounds("onnx")).graph
    assert dumped.format(source=True) == last.format(source=True)
    assert [sum(n.primitive.name == "scan" for n in g.nodes) for g in (grad_graph, last)] == [3, 2]
    np.testing.assert_allclose(got.asnumpy(), ms.grad(loss)(ms.Tensor(h0), ms.Tensor(xs)).asnumpy(), rtol=1e-5)


def test_an_export_that_merges_scans_writes_the_passes_it_ran(tmp_path):
    """A scan's gradient replays the forward loop; export merges the two (export_passes.py) and
    save_graphs writes the trace, then each pass it kept."""
    def loss(h0, xs):
        return ops.scan(lambda h, x: (ops.tanh(h + x), h), h0, xs)[0].sum()

    ms.set_context(save_graphs=1, save_graphs_path=str(tmp_path / "export"))
    h0, xs = ms.Tensor(np.ones((2, 3), np.float32)), ms.Tensor(np.ones((4, 2, 3), np.float32))
    ms.export(ms.grad(loss), h0, xs, dynamic_axes=False, file_name=str(tmp_path / "m.onnx"))
    rows = written(tmp_path / "export")
    assert stages(rows)[0] == "00_trace" and "merge_scans" in " ".join(stages(rows))
    scans = [sum(n.primitive.name == "scan" for n in parse_graph(ir_text(tmp_path / "export", row)).nodes)
             for row in (rows[0], rows[-1])]
    assert scans[0] == scans[1] + 1


def test_the_environment_variables_win_over_set_context(tmp_path, monkeypatch):
    # Measured on MindSpore 2.10: MS_DEV_SAVE_GRAPHS=1 with set_context(save_graphs=3) saves level 1;
    # MS_DEV_SAVE_GRAPHS=0 with set_context(save_graphs=1) saves nothing; each path likewise.
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "1")
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS_PATH", str(tmp_path / "env"))
    ms.set_context(save_graphs=3, save_graphs_path=str(tmp_path / "ctx"))
    f = ms.jit(lambda a: a + 1.0)
    x = ms.Tensor(np.ones(2, np.float32))
    f(x)
    assert {r[3] for r in written(tmp_path / "env")} == {".ir"}
    assert not (tmp_path / "ctx").exists()
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", "0")
    ms.jit(lambda a: a + 2.0)(x)
    assert not (tmp_path / "ctx").exists()


@pytest.mark.parametrize("value, message", [
    ("5", "Dump level can only be from 0 to 3"),                              # 2.10's words
    ("abc", "MS_DEV_SAVE_GRAPHS should be a single number with one digit."),
])
def test_a_bad_environment_level_fails_the_compile_with_mindspores_message(monkeypatch, value, message):
    monkeypatch.setenv("MS_DEV_SAVE_GRAPHS", value)
    with pytest.raises(RuntimeError, match=re.escape(message)):
        ms.jit(lambda a: a - 1.0)(ms.Tensor(np.ones(2, np.float32)))


@pytest.mark.parametrize("kwargs, error, message", [   # MindSpore 2.10's types and words
    (dict(save_graphs=5), ValueError, "value for save_graphs should be 0-3 but got '5'"),
    (dict(save_graphs="1"), TypeError,
     "The parameter 'save_graphs' must be (<class 'bool'>, <class 'int'>), but got <class 'str'>"),
    (dict(save_graphs_path=123), TypeError,
     "The parameter 'save_graphs_path' must be <class 'str'>, but got <class 'int'>"),
    (dict(save_graphs_path=""), ValueError, "For 'context.set_context', the 'save_graphs_path' or the "
     "'print_file_path' is invalid type, it should be Non-empty string, but got ''."),
])
def test_bad_settings_are_refused_with_mindspores_messages(kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        ms.set_context(**kwargs)
    assert ms.get_context("save_graphs") == 0 and ms.get_context("save_graphs_path") == "."   # nothing stored


def test_off_writes_nothing_and_the_path_is_stored_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert ms.get_context("save_graphs") == 0 and ms.get_context("save_graphs_path") == "."   # 2.10's defaults
    ms.jit(lambda a: a * 5.0)(ms.Tensor(np.ones(2, np.float32)))
    assert list(tmp_path.iterdir()) == []
    ms.set_context(save_graphs_path="ir")
    assert ms.get_context("save_graphs_path") == str(tmp_path.resolve() / "ir")


def test_graph_format_shows_sources_that_str_leaves_out():
    from graphcell.frontend.trace import trace
    graph = trace(lambda a: a * 2.0, ms.Tensor(np.ones(2, np.float32))).graph
    line = inspect.currentframe().f_lineno - 1
    assert "#" not in str(graph) and str(graph) == graph.format()
    assert f"test_save_graphs.py:{line}" in graph.format(source=True)
