"""The `graphcell` command's numeric options and its quieter paths: out-of-range --seed and
--batch-size are one-line usage errors (exit status 2), not internal errors (exit 1); a
checkpoint that does not fit is one line with no logger line before it; `dump --json`
without -o prints the JSON summary its help promises. In-process through `main`."""
import json
import logging

import numpy as np
import pytest

import graphcell as ms
from graphcell import nn
from graphcell.cli import main
from graphcell.runtime import Session
from tests.conftest import ROOT

TINY = f"{ROOT}/tests/models/cli_models.py:TinyNet"


def _usage_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("argv, message", [
    # each used to end in "internal error: ValueError ... please report it", exit status 1
    (["dump", TINY, "--input-shape", "2,4", "--seed", "-1"], "--seed: must be an integer in [0, 4294967295], got -1"),
    (["dump", TINY, "--input-shape", "2,4", "--seed", "4294967296"], "got 4294967296"),
    (["check", TINY, "--input-shape", "2,4", "--seed", "-2"], "--seed: must be an integer"),
    (["dump", TINY, "--input-shape", "batch,4", "--batch-size", "-3"], "--batch-size: must be a positive integer"),
    # a zero batch is refused, as a 0 in --input-shape is
    (["check", TINY, "--input-shape", "batch,4", "--batch-size", "0"], "--batch-size: must be a positive integer"),
    (["dump", TINY, "--input-shape", "2,4", "--seed", "abc"], "--seed: invalid int value: 'abc'"),
    (["demo", "--seed", "-1"], "--seed: must be an integer"),
    (["demo", "--epochs", "0"], "--epochs: must be a positive integer"),
])
def test_numeric_options_out_of_range_are_usage_errors(argv, message, capsys):
    assert message in _usage_error(argv, capsys)


def test_the_largest_seed_is_accepted(capsys):
    assert main(["dump", TINY, "--input-shape", "2,4", "--seed", "4294967295"]) == 0
    assert capsys.readouterr().out.startswith("graph TinyNet(")


def test_checkpoint_that_does_not_fit_is_one_line_without_a_log_line(tmp_path, capsys, caplog):
    class Other(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(4, 3)

        def construct(self, x):
            return self.fc(x)
    path = str(tmp_path / "other.ckpt")
    ms.save_checkpoint(Other(), path)
    with caplog.at_level(logging.WARNING):
        assert main(["dump", TINY, "--input-shape", "2,4", "--checkpoint", path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not fit" in err and "has no value for fc1.weight" in err, err
    assert not [r for r in caplog.records if r.name.startswith("graphcell")], caplog.text


def test_dump_json_without_output_prints_the_summary(capsys):
    assert main(["dump", TINY, "--input-shape", "2,4", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)   # stdout is the JSON alone
    assert [s["stage"] for s in summary] == ["trace"]
    # two Dense layers: 4*8 + 8 + 8*3 + 3 parameters, and their two dot_generals
    assert summary[0]["parameters"] == 4 * 8 + 8 + 8 * 3 + 3 and summary[0]["ops"]["dot_general"] == 2
    # with a pass list, one entry per stage
    assert main(["dump", TINY, "--input-shape", "2,4", "--json", "--passes", "cse,dce"]) == 0
    assert [s["stage"] for s in json.loads(capsys.readouterr().out)] == ["trace", "cse", "dce"]


def test_dump_json_with_output_writes_the_graph_and_prints_the_summary(tmp_path, capsys):
    out = tmp_path / "g.txt"
    assert main(["dump", TINY, "--input-shape", "2,4", "--json", "-o", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["stage"] == "trace"
    assert out.read_text().startswith("graph TinyNet(")


def test_a_reader_that_leaves_early_is_not_an_internal_error():
    # `graphcell dump ... --json | head -3` reported "internal error: BrokenPipeError"
    import os
    import subprocess
    import sys
    read, write = os.pipe()
    os.close(read)   # the reader is gone before the command writes
    done = subprocess.run([sys.executable, "-m", "graphcell.cli", "dump", TINY, "--input-shape", "2,4", "--json"],
                          cwd=ROOT, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
    os.close(write)
    assert done.returncode == 141 and done.stderr == "", done.stderr


def test_check_compares_a_complex_intermediate_in_onnx_layout(capsys):
    # ONNX holds a complex [2, 3] as a real [2, 3, 2]; check compared it with jax's complex
    # value, found "max |diff| inf" at the complex node, printed MISMATCH and exited 1
    assert main(["check", f"{ROOT}/tests/models/cli_models.py:ComplexInside", "--input-shape", "2,4"]) == 0
    out = capsys.readouterr().out
    assert "first divergence: none" in out and out.rstrip().endswith("ok"), out
    assert not [line for line in out.splitlines() if line != line.rstrip()]   # no trailing blanks


def test_export_names_external_data_and_its_mistakes(tmp_path, capsys):
    from tests.models.cli_models import TinyNet
    ckpt = str(tmp_path / "t.ckpt")
    ms.save_checkpoint(TinyNet(hidden=128), ckpt)   # fc1.weight 2 KiB: over onnx's external threshold
    base = ["export", TINY, "--args", '{"hidden": 128}', "--checkpoint", ckpt, "--input-shape", "batch,4"]
    out = tmp_path / "m.onnx"
    assert main(base + ["-o", str(out), "--input-name", "features", "--output-name", "logits",
                        "--external-data", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert [i["name"] for i in summary["inputs"]] == ["features"] and summary["outputs"][0]["name"] == "logits"
    # a dynamic batch is verified at batch 1 too (an ensemble's small-batch If branch)
    assert [v["shapes"] for v in summary["verified"]] == [[[2, 4]], [[1, 4]]]
    data = tmp_path / "m.onnx.data"
    assert summary["data_file"] == str(data) and summary["data_bytes"] == data.stat().st_size > 2048
    # onnx wrote the data file 0600; both files now have the mode a new file gets
    assert data.stat().st_mode & 0o777 == out.stat().st_mode & 0o777
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    net = TinyNet(hidden=128)
    ms.load_param_into_net(net, ms.load_checkpoint(ckpt))
    np.testing.assert_allclose(Session(str(out), providers=["cpu"])(features=x), net(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-6)
    # a static shape: the summary names the shape verified, not --batch-size's 2
    assert main(base[:-1] + ["5,4", "-o", str(tmp_path / "s.onnx")]) == 0
    assert "on random inputs [5,4]:" in capsys.readouterr().out
    # mistakes, each one line before any tracing: a folder as -o (it wrote FOLDER.onnx beside
    # it), an opset out of range, a name count that does not match the inputs
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(base + ["-o", str(tmp_path)]) == 2
    assert "is a folder; name the file" in capsys.readouterr().err
    assert "--input-name for 1 inputs" in _error(base + ["-o", str(out), "--input-name", "a", "--input-name", "b"],
                                                  capsys)
    assert "--opset: must be in [17," in _usage_error(base + ["-o", str(out), "--opset", "12"], capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def _error(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def test_python_api_export_folder_and_a_quiet_default_session(tmp_path):
    import warnings
    from tests.models.cli_models import TinyNet
    x = ms.Tensor(np.ones((2, 4), np.float32))
    # the atomic write failed with FileNotFoundError on '.../.m.onnx.<hex>.tmp'
    with pytest.raises(FileNotFoundError, match=r"export: cannot write .*m\.onnx: folder .*nodir does not exist"):
        ms.export(TinyNet(), x, file_name=str(tmp_path / "nodir" / "m"))
    path = ms.export(TinyNet(), x, file_name=str(tmp_path / "m"))
    with warnings.catch_warnings():   # Session(path) warned "CUDA ... not available" on every CPU machine
        warnings.simplefilter("error")
        session = Session(path)
    assert session.provider in ("CUDAExecutionProvider", "CPUExecutionProvider")
    # the fallback is still reported, on the Session
    assert (session.fallback is None) == (session.provider == "CUDAExecutionProvider")
    if session.fallback is not None:
        assert "CUDAExecutionProvider is not available; running on CPUExecutionProvider" in session.fallback


def test_check_provider_and_opset_and_run_bench_options(tmp_path, capsys):
    # check takes run's --provider list (a fallback is a "note:" line, not a Python warning
    # with a file path) and export's --opset
    argv = ["check", TINY, "--input-shape", "2,4", "--provider", "cuda,cpu", "--opset", "23", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["provider"] in ("CUDAExecutionProvider", "CPUExecutionProvider")
    assert all(n.startswith("Session: CUDAExecutionProvider is not available") for n in report["notes"])
    assert "unknown provider 'cdua'" in _error(["check", TINY, "--input-shape", "2,4", "--provider", "cdua"], capsys)
    # --repeat 0 is a usage error in run and bench; bench has no --batch-size (--batch gives the sizes)
    assert "--repeat: must be a positive integer" in _usage_error(["run", "m.onnx", "--input", "x.npy",
                                                                   "--repeat", "0"], capsys)
    assert "unrecognized arguments: --batch-size" in _usage_error(["bench", TINY, "--input-shape", "batch,4",
                                                                   "--batch-size", "3"], capsys)
    # two outputs into one .npy: refused before the timed runs
    path = ms.export(lambda a: (a * 2.0, a + 1.0), ms.Tensor(np.ones((2, 3), np.float32)),
                     file_name=str(tmp_path / "two"))
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    err = _error(["run", path, "--input", str(tmp_path / "x.npy"), "-o", str(tmp_path / "o.npy"), "--repeat", "5"],
                 capsys)
    assert "2 outputs (output_0, output_1): save them with -o FILE.npz" in err and not (tmp_path / "o.npy").exists()


def test_an_output_folder_we_cannot_write_is_one_line_before_the_work(tmp_path, monkeypatch, capsys):
    import tempfile

    def refused(*args, **kwargs):   # a read-only folder (chmod has no effect for root)
        raise PermissionError(13, "Permission denied", kwargs.get("dir"))
    monkeypatch.setattr(tempfile, "TemporaryFile", refused)
    monkeypatch.setattr("graphcell.cli.dump.build_stages", lambda args: pytest.fail("traced before the check"))
    err = _error(["dump", TINY, "--input-shape", "2,4", "-o", str(tmp_path / "g.ir")], capsys)
    assert f"-o {tmp_path / 'g.ir'}: cannot write in {tmp_path}: Permission denied" in err
    # an OSError naming a file, anywhere else, is the user's too (it was "internal error", exit 1)

    def makedirs(path, exist_ok=False):
        raise PermissionError(1, "Operation not permitted", path)
    monkeypatch.setattr("graphcell.cli.dump.os.makedirs", makedirs)
    err = _error(["dump", TINY, "--input-shape", "2,4", "--passes", "all", "-o", str(tmp_path / "d") + "/"], capsys)
    assert err.endswith("/d/: Operation not permitted\n") and "internal" not in err


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out == f"graphcell {ms.__version__}\n"


def test_mean_std_outputs_are_named_mean_and_std(tmp_path):
    from tests.models.cli_models import TinyNet
    nets = [TinyNet() for _ in range(3)]
    x = np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32)
    path = ms.export(ms.vmap(nn.CellList(nets), in_axes=None), ms.Tensor(x), file_name=str(tmp_path / "e"),
                     reduce="mean_std")
    sess = Session(path, providers=["cpu"])
    assert sess.outputs == ["mean", "std"]   # were output_0, output_1
    logits = np.stack([n(ms.Tensor(x)).asnumpy() for n in nets]).astype(np.float64)
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    mean, std = sess(x)
    np.testing.assert_allclose(mean, probs.mean(0), atol=1e-6)
    np.testing.assert_allclose(std, probs.std(0), atol=1e-6)
