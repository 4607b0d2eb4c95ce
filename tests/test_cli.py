"""The `graphcell` command, run for real (`python -m graphcell.cli ...` in a subprocess) on the
model files in tests/models, checking the files it writes against independent references:
the IR parser and printer, networkx, onnx's parser with onnxruntime and numpy, MindSpore's
golden ensemble outputs. User errors are checked in-process through `main` (same code path,
no interpreter start-up each) plus one real subprocess for the exit status."""
import json
import os
import re
import subprocess
import sys
from collections import Counter

import networkx as nx
import numpy as np
import onnx
import onnx.parser
import pytest

import graphcell as ms
from graphcell import nn
from graphcell.cli import UserError, main
from graphcell.ir import from_json, to_networkx
from graphcell.ir.core import graph_signature
from graphcell.ir.parser import parse_graph
from graphcell.ir.printer import format_graph
from graphcell.runtime import Session
from tests.conftest import GOLDEN, ROOT, golden_array, load_lenet
from tests.golden_text import assert_golden

TINY = "tests/models/cli_models.py"
LENET = "tests/models/lenet.py:LeNet5"
CKPTS = [str(GOLDEN / f"net{i}.ckpt") for i in range(4)]


def cli(*args, expect: int = 0):
    """Runs the real command; returns stdout (asserting the exit status)."""
    done = subprocess.run([sys.executable, "-m", "graphcell.cli", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == expect, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# -- dump ----------------------------------------------------------------------------------------

def test_dump_text_is_golden_and_json_round_trips(tmp_path):
    text = cli("dump", f"{TINY}:TinyNet", "--input-shape", "2,4").stdout.rstrip("\n")
    assert_golden("cli_tiny.ir", text)
    # every op node names the Cell and the line of construct it came from
    lines = {"fc1": 15, "relu": 16, "fc2": 17}
    for line in text.splitlines()[1:-2]:
        if "constant()" not in line:
            scope = re.search(r"# (\w+) cli_models\.py:(\d+)$", line)
            assert scope and lines[scope.group(1)] == int(scope.group(2)), line

    cli("dump", f"{TINY}:TinyNet", "--input-shape", "2,4", "--format", "json", "-o", tmp_path / "g.json")
    graph = from_json((tmp_path / "g.json").read_text())
    assert format_graph(graph, source=True) == text                 # equal to the original, sources too
    from tests.models.cli_models import TinyNet
    reference = ms.trace(TinyNet(), ms.Tensor(np.zeros((2, 4), np.float32))).graph
    assert graph_signature(graph) == graph_signature(reference)


def _parse_dot(text: str) -> nx.MultiDiGraph:
    """A small reader for the dot subset `to_dot` writes (quoted ids, one statement a line);
    anything else is an error, so a malformed file fails the test."""
    g = nx.MultiDiGraph()
    lines = text.strip().splitlines()
    assert re.fullmatch(r'digraph "[^"]+" \{', lines[0]) and lines[-1] == "}"
    for line in lines[1:-1]:
        line = line.strip()
        if m := re.fullmatch(r'"([^"]+)" -> "([^"]+)" \[label="([^"]*)"\];', line):
            g.add_edge(m[1], m[2], type=m[3])
        elif m := re.fullmatch(r'"([^"]+)" \[shape=(box|ellipse), label="([^"]*)"\];', line):
            g.add_node(m[1], shape=m[2], label=m[3])
        else:
            assert re.fullmatch(r"(rankdir=\w+|node \[.*\]);", line), f"unexpected dot line: {line}"
    return g


def run_main(argv, capsys) -> str:
    """The command in-process (the same `main` the console script calls): for the extra
    formats, which need no new interpreter each."""
    assert main([str(a) for a in argv]) == 0
    return capsys.readouterr().out


def test_dump_dot_parses_into_the_graph_structure(capsys):
    out = run_main(["dump", LENET, "--input-shape", "1,1,32,32", "--format", "dot"], capsys)
    dot = _parse_dot(out)
    from tests.models.lenet import LeNet5
    expected = to_networkx(ms.trace(LeNet5(), ms.Tensor(np.zeros((1, 1, 32, 32), np.float32))).graph)
    assert set(dot.nodes) == set(expected.nodes)
    assert Counter((a, b) for a, b, _ in dot.edges) == Counter((a, b) for a, b, _ in expected.edges)
    ops = Counter(d["label"].split("\\n")[0] for _, d in dot.nodes(data=True) if d["shape"] == "box")
    assert ops["conv"] == 2 and ops["dot_general"] == 3 and ops["reduce_window_max"] == 2


def test_dump_vmap_grad_passes_writes_numbered_files_and_summary(tmp_path):
    out = tmp_path / "dumps"
    cli("dump", f"{TINY}:tiny_net", "--args", '{"hidden": 5}', "--input-shape", "batch,4", "--batch-size", 3,
        "--vmap", 3, "--in-axes", "0", "--grad", "--passes", "all", "-o", out, "--json")
    names = ["00-trace", "01-vmap", "02-grad", "03-cse", "04-merge_scans", "05-fold", "06-simplify", "07-cse", "08-dce",
             "09-tile_rows"]
    assert sorted(p.name for p in out.iterdir()) == sorted([f"{n}.ir" for n in names] + ["summary.json"])
    summary = json.loads((out / "summary.json").read_text())
    assert [f"{s['index']:02d}-{s['stage']}" for s in summary] == names
    for name, s in zip(names, summary):   # the table counts what the file shows
        ops = re.findall(r"^  %\S+ = (\w+)\(", (out / f"{name}.ir").read_text(), re.M)
        assert s["nodes"] == len(ops) and s["ops"] == dict(Counter(ops)), name
    trace, vmapped, grad = (parse_graph((out / f"{n}.ir").read_text()) for n in names[:3])
    # by hand: 4->5->3 perceptron, batch 3: parameters 4*5+5+5*3+3; FLOPs of two matmuls
    # (2*m*n*k), two bias adds and one relu
    assert summary[0]["parameters"] == 43 and summary[1]["parameters"] == 3 * 43
    assert summary[0]["flops"] == 2 * 3 * 5 * 4 + 15 + 15 + 2 * 3 * 3 * 5 + 9
    assert summary[0]["peak_live_bytes"] > 0
    assert trace.inputs[0].shape == (3, 4) and vmapped.inputs[0].shape == (3, 3, 4)
    assert [v.shape for v in vmapped.inputs[1:]] == [(3, 5, 4), (3, 5), (3, 3, 5), (3, 3)]
    assert len(grad.outputs) == 1 + 4 and [v.shape for v in grad.outputs[1:]] == [v.shape for v in vmapped.inputs[1:]]
    assert summary[-1]["nodes"] <= summary[2]["nodes"]


def test_dump_stablehlo_and_onnx_text(capsys):
    hlo = run_main(["dump", f"{TINY}:TinyNet", "--input-shape", "2,4", "--format", "stablehlo"], capsys)
    assert "func.func public @main(%arg0: tensor<2x4xf32>" in hlo and "stablehlo.dot_general" in hlo
    text = run_main(["dump", f"{TINY}:TinyNet", "--input-shape", "2,4", "--format", "onnx"], capsys)
    model = onnx.parser.parse_model(text)       # onnx's own parser reads the printed model back
    onnx.checker.check_model(model)
    rng = np.random.default_rng(0)
    feeds = {"x": rng.standard_normal((2, 4), np.float32), "fc1.weight": rng.standard_normal((8, 4), np.float32),
             "fc1.bias": rng.standard_normal(8, np.float32), "fc2.weight": rng.standard_normal((3, 8), np.float32),
             "fc2.bias": rng.standard_normal(3, np.float32)}
    got = Session(model, providers=["cpu"]).run(**feeds)[0]
    hidden = np.maximum(feeds["x"] @ feeds["fc1.weight"].T + feeds["fc1.bias"], 0)
    np.testing.assert_allclose(got, hidden @ feeds["fc2.weight"].T + feeds["fc2.bias"], rtol=1e-5, atol=1e-6)


# -- export and run ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mean_ensemble(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "ensemble.onnx"
    out = cli("export", LENET, "--checkpoint", *CKPTS, "--input-shape", "batch,1,32,32", "--reduce", "mean",
              "-o", path, "--json").stdout
    return path, json.loads(out)


def test_export_stacks_checkpoints_and_matches_the_python_api(mean_ensemble):
    path, summary = mean_ensemble
    assert summary["members"] == 4 and summary["ok"] and summary["max_abs_diff"] < 1e-5
    assert summary["inputs"] == [{"name": "x", "shape": ["batch", 1, 32, 32], "dtype": "float32"}]
    assert summary["outputs"][0]["shape"] == ["batch", 10] and summary["bytes"] == os.path.getsize(path)
    x = golden_array("minibatch.npy")
    got = Session(str(path), providers=["cpu"])(x)
    # MindSpore's ensemble outputs for the same checkpoints, and graphcell's Python API
    np.testing.assert_allclose(got, softmax(golden_array("vmap_in_axes_none.npy")).mean(0), atol=1e-6)
    api = ms.vmap(nn.CellList([load_lenet(i) for i in range(4)]), in_axes=None)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, softmax(api).mean(0), atol=1e-6)


def test_run_reports_provider_latency_and_saves_output(mean_ensemble, tmp_path):
    path, _ = mean_ensemble
    x = golden_array("minibatch.npy")[[0, 1, 2, 0, 1]]
    np.save(tmp_path / "x.npy", x)
    out = cli("run", path, "--input", tmp_path / "x.npy", "--provider", "cuda,cpu", "-o", tmp_path / "y.npy",
              "--repeat", 3).stdout
    assert "provider: CPUExecutionProvider" in out        # no CUDA here: the fallback is reported
    assert re.search(r"latency: median [0-9.]+ ms, min [0-9.]+ ms over 3 runs", out)
    assert "output output: float32[5, 10]" in out
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"),
                               softmax(golden_array("vmap_in_axes_none.npy")).mean(0)[[0, 1, 2, 0, 1]], atol=1e-6)


# -- check and bench -----------------------------------------------------------------------------

def test_check_reports_parity():
    report = json.loads(cli("check", LENET, "--input-shape", "batch,1,32,32", "--checkpoint", CKPTS[1],
                            "--json").stdout)
    assert report["ok"] and report["first_divergence"] is None
    assert report["outputs"][0]["shape"] == [2, 10]
    assert report["outputs"][0]["xla"] < 1e-5 and report["outputs"][0]["onnx"] < 1e-5


def test_check_of_an_ensemble_vmaps_the_checkpoints_as_export_does():
    report = json.loads(cli("check", LENET, "--input-shape", "batch,1,32,32", "--checkpoint", *CKPTS[:3],
                            "--in-axes", "0", "--json").stdout)
    assert report["ok"] and report["outputs"][0]["shape"] == [3, 2, 10]
    assert report["outputs"][0]["onnx"] < 1e-5


def test_half_precision_networks_check_and_export_at_half_precision_tolerances(tmp_path, capsys):
    """An amp O1 network computes its conv in float16, where onnxruntime and XLA round one
    ulp apart (9.8e-4 at 1..2): check reported a MISMATCH and export 'TOO LARGE' (exit 1)
    at float32's 1e-5/1e-4. The defaults follow the graph's precision; explicit ones hold."""
    from tests.models.cli_models import SmallConv
    model, shape = f"{TINY}:amp_o1_conv", ["--input-shape", "batch,1,6,6"]
    assert main(["check", model, *shape]) == 0
    assert "first divergence: none (rtol=0.002, atol=0.001)" in capsys.readouterr().out
    main(["check", model, *shape, "--rtol", "1e-7", "--atol", "1e-7"])
    assert "(rtol=1e-07, atol=1e-07)" in capsys.readouterr().out
    ms.set_seed(3)
    float32_net = SmallConv().set_train(False)
    ms.save_checkpoint(float32_net, str(tmp_path / "net.ckpt"))
    assert main(["export", model, *shape, "--checkpoint", str(tmp_path / "net.ckpt"),
                 "-o", str(tmp_path / "o1.onnx")]) == 0
    assert "(ok, atol 0.005)" in capsys.readouterr().out
    # the file: the float32 network's outputs to float16's precision
    x = np.random.default_rng(0).standard_normal((3, 1, 6, 6)).astype(np.float32)
    got = Session(str(tmp_path / "o1.onnx")).run(x)[0]
    want = float32_net(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2)
    assert np.abs(got - want).max() > 1e-6   # it did compute in float16


def test_a_training_step_keeps_its_mode_and_a_network_infers(capsys):
    """The command put every model in inference mode, a training step too (its Dropout off,
    its BatchNorm on moving statistics): graphcell.export keeps a step's modes, and so does
    the command now. A plain network left training by its factory still infers."""
    assert main(["dump", f"{TINY}:dropout_train_step", "--input-shape", "2,4"]) == 0
    step = capsys.readouterr().out
    assert re.search(r"random_uniform\(.*# net\.drop cli_models\.py:\d+$", step, re.M), step
    assert main(["dump", f"{TINY}:dropout_net_training", "--input-shape", "2,4"]) == 0
    assert "random" not in capsys.readouterr().out


def test_export_verifies_a_training_step_at_the_state_it_wrote(tmp_path, capsys):
    """Verifying a dynamic batch calls the XLA step twice: the first call trained the
    Parameters (and advanced Dropout's key), so the second compared the file with a later
    step: 'TOO LARGE', exit 1. Each XLA call now starts from the exported state."""
    from tests.models.cli_models import dropout_train_step
    ms.save_checkpoint(dropout_train_step(), str(tmp_path / "step.ckpt"))
    assert main(["export", f"{TINY}:dropout_train_step", "--input-shape", "batch,4", "--checkpoint",
                 str(tmp_path / "step.ckpt"), "-o", str(tmp_path / "step.onnx"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] and [v["shapes"] for v in summary["verified"]] == [[[2, 4]], [[1, 4]]]
    # the file is the step, Dropout on: it returns the new weights and the advanced random key
    names = [o["name"] for o in summary["outputs"]]
    assert {"output", "global_rng_key.new", "opt.net.fc.weight.new"} <= set(names), names


def test_bench_times_every_pair():
    result = json.loads(cli("bench", f"{TINY}:TinyNet", "--input-shape", "batch,4", "--members", "1,3",
                            "--batch", "1,5", "--repeat", 2, "--json").stdout)
    pairs = [(r["members"], r["batch"]) for r in result["results"]]
    assert pairs == [(1, 1), (3, 1), (1, 5), (3, 5)]
    for r in result["results"]:
        assert r["ensemble_ms"] > 0 and r["loop_ms"] > 0
        assert r["speedup"] == pytest.approx(r["loop_ms"] / r["ensemble_ms"])


# -- user errors: one line on stderr, exit status 2 ----------------------------------------------

def test_user_error_exits_2_with_one_line():
    done = cli("dump", "no/such/file.py:Net", "--input-shape", "2,4", expect=2)
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "model file no/such/file.py does not exist" in done.stderr
    with pytest.raises(UserError, match="does not exist"):     # --debug: the exception itself
        main(["dump", "no/such/file.py:Net", "--input-shape", "2,4", "--debug"])


@pytest.mark.parametrize("argv, message", [
    (["dump", f"{TINY}:Nope", "--input-shape", "2,4"],
     "has no 'Nope'; it defines ComplexInside, DropoutNet, DropoutTrainStep, SmallConv, TinyNet, amp_o1_conv, dropout_net_training, dropout_train_step, not_a_cell, tiny_net"),
    (["dump", f"{TINY}:not_a_cell", "--input-shape", "2,4"], "returned int 42, not a graphcell nn.Cell"),
    (["dump", "tests.models.no_such_module:Net", "--input-shape", "2,4"], "no module named"),
    (["dump", f"{TINY}:TinyNet", "--input-shape", "2,x4"], "bad --input-shape '2,x4'"),
    (["dump", f"{TINY}:TinyNet", "--input-shape", "2,0"], "dimensions must be positive"),
    (["dump", f"{TINY}:TinyNet"], "give the model's input shape with --input-shape"),
    (["check", f"{TINY}:TinyNet", "--input-shape", "2,4", "--input-shape", "2,4"],
     f"{TINY}:TinyNet: construct takes 1 input(s) (x), got 2 --input-shape: give one per input"),
    (["dump", f"{TINY}:TinyNet", "--input-shape", "2,5"], "Dense 'fc1'"),
    # the Python API's fix (x.astype(...)) becomes the command's option
    (["dump", f"{TINY}:TinyNet", "--input-shape", "2,4", "--input-dtype", "float64"],
     "with type Tensor[Float64] and 'x2' with type Tensor[Float32]. Dense 'fc1': pass --input-dtype float32"),
    (["dump", f"{TINY}:TinyNet", "--args", "{oops", "--input-shape", "2,4"], "--args is not valid JSON"),
    (["dump", f"{TINY}:TinyNet", "--args", '{"width": 3}', "--input-shape", "2,4"], "unexpected keyword"),
    (["dump", f"{TINY}:TinyNet", "--input-shape", "2,4", "--passes", "cse,nope"], "unknown pass 'nope'"),
    (["dump", f"{TINY}:TinyNet", "--input-shape", "2,4", "--in-axes", "0"], "--in-axes 0 applies to an ensemble"),
    (["check", f"{TINY}:TinyNet", "--input-shape", "2,4", "--in-axes", "0"], "--in-axes 0 applies to an ensemble"),
    (["dump", f"{TINY}:TinyNet", "--input-shape", "2,4", "--checkpoint", CKPTS[0]],
     f"checkpoint {CKPTS[0]} does not fit {TINY}:TinyNet"),
    (["export", LENET, "--checkpoint", CKPTS[0], "--input-shape", "2,1,32,32", "--reduce", "mean", "-o", "x.onnx"],
     "--reduce mean needs an ensemble"),
    (["run", "missing.onnx", "--input", "x.npy"], "ONNX file missing.onnx does not exist"),
    (["dump", f"{TINY}:TinyNet", "--input-shape", "2,4", "--checkpoint", "/dev/null"],
     "checkpoint /dev/null is not a regular file"),
    (["run", os.path.dirname(TINY), "--input", "x.npy"], f"ONNX file {os.path.dirname(TINY)} is a folder, not a file"),
    # A text dump named .onnx: `graphcell run` then called the file truncated or corrupt.
    (["dump", f"{TINY}:TinyNet", "--input-shape", "2,4", "--format", "onnx", "-o", "t.onnx"],
     "--format onnx writes ONNX's text syntax, without weights, not a model file: name it t.onnx.txt"),
    # Found by fuzzing the command: an internal error after the work was done.
    (["dump", f"{TINY}:TinyNet", "--input-shape", "2,4", "-o", "no_such_folder/out.txt"],
     "no_such_folder/out.txt: folder"),
])
def test_user_errors_name_the_problem(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_export_reads_the_members_of_an_ensemble_checkpoint(tmp_path, capsys):
    """One checkpoint holding a whole ensemble (save_checkpoint(nn.CellList(nets)), as a
    vmapped ensemble trains it) exports every member, named `<file>#<i>`; onnxruntime's outputs
    are the members' own, one by one. A member count it cannot give is a clear error."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("cli_models", os.path.join(ROOT, TINY))
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)
    ms.set_seed(7)
    nets = [models.TinyNet() for _ in range(3)]
    path = str(tmp_path / "stacked.ckpt")
    ms.save_checkpoint(nn.CellList(nets), path)
    onnx_path = str(tmp_path / "ens.onnx")
    assert main(["export", f"{TINY}:TinyNet", "--checkpoint", path, "--input-shape", "2,4", "-o", onnx_path,
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["members"] == 3 and summary["ok"]
    meta = {p.key: p.value for p in onnx.load(onnx_path).metadata_props}
    assert json.loads(meta["graphcell.member_checkpoints"]) == [f"{os.path.abspath(path)}#{i}" for i in range(3)]
    x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
    want = np.stack([net(ms.Tensor(x)).asnumpy() for net in nets])   # a per-member loop
    np.testing.assert_allclose(Session(onnx_path, providers=["cpu"])(x), want, rtol=1e-5, atol=1e-6)

    # dump --vmap asks for another member count; with other checkpoints it must come alone
    assert main(["dump", f"{TINY}:TinyNet", "--checkpoint", path, "--vmap", "2", "--input-shape", "2,4"]) == 2
    assert (f"checkpoint {path} holds an ensemble of 3 members, not 2: ask for 3 (dump: --vmap 3), or split it "
            "with graphcell.train.extract_member") in capsys.readouterr().err
    other = str(tmp_path / "one.ckpt")
    ms.save_checkpoint(nets[0], other)
    assert main(["export", f"{TINY}:TinyNet", "--checkpoint", other, path, "--input-shape", "2,4",
                 "-o", str(tmp_path / "x.onnx")]) == 2
    err = capsys.readouterr().err
    assert f"checkpoint {path} (member 1) holds an ensemble (members 0, 1, 2), not one" in err
    assert "give it as the only --checkpoint" in err and not (tmp_path / "x.onnx").exists()


def test_python_dash_m_graphcell_is_the_command_and_tolerances_are_not_negative():
    done = subprocess.run([sys.executable, "-m", "graphcell", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and "usage: graphcell" in done.stdout
    done = subprocess.run([sys.executable, "-m", "graphcell", "check", f"{TINY}:TinyNet", "--input-shape", "2,4",
                           "--rtol", "-1"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and "argument --rtol: must be a number >= 0, got -1" in done.stderr


def test_model_file_runs_alone():
    """Loading file.py:Name executes that file only: not as __main__, no sys.path change."""
    from graphcell.cli.loader import load_model
    before = list(sys.path)
    spec = load_model(f"{TINY}:tiny_net", '{"hidden": 6}')
    assert sys.path == before
    net = spec.build()
    assert net.fc1.weight.shape == (6, 4) and type(net).__module__.startswith("_graphcell_model_cli_models_")


@pytest.mark.slow
def test_demo_under_a_minute_and_ensemble_at_least_best_member(tmp_path):
    import time
    t0 = time.perf_counter()
    out = cli("demo", "-o", tmp_path, "--json").stdout
    elapsed = time.perf_counter() - t0
    result = json.loads(out[out.index("\n{\n") + 1:])
    assert result["ensemble_accuracy"] >= max(result["member_accuracy"])
    assert (tmp_path / "ensemble.onnx").exists()
    assert elapsed < 60, f"demo took {elapsed:.1f} s (load: {os.getloadavg()})"
