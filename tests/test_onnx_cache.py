"""The on-disk cache of lowered ONNX models (compiler/onnx_cache.py), used by jit(backend="onnx")
and export when set_context(compile_cache_dir=...) names a folder."""
import numpy as np
import onnx
import pytest

import graphcell as ms
import graphcell.compiler.export  # noqa: F401 - imported before any test patches onnx.lower
from graphcell import nn
from graphcell.runtime import Session
from tests.conftest import golden_array, load_lenet


@pytest.fixture
def cache_dir(tmp_path):
    ms.set_context(compile_cache_dir=tmp_path / "cache")
    yield tmp_path / "cache" / "onnx"
    ms.set_context(compile_cache_dir=None)


def no_lowering(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("lowered although the cache holds the model")
    monkeypatch.setattr("graphcell.compiler.onnx.lower", refuse)
    monkeypatch.setattr("graphcell.compiler.export.lower", refuse)


def test_jit_onnx_reads_the_lowered_model_back_and_keys_on_the_constants(cache_dir, monkeypatch):
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))

    def scaled(k):
        def f(t):
            return ms.ops.relu(t * k - 1.0)
        return f

    first = ms.jit(scaled(2.0), backend="onnx")(x).asnumpy()
    assert len(list(cache_dir.glob("*.onnx"))) == 1
    with monkeypatch.context() as m:
        no_lowering(m)
        again = ms.jit(scaled(2.0), backend="onnx")(x).asnumpy()   # a new trace, the same graph
    np.testing.assert_array_equal(again, first)
    other = ms.jit(scaled(3.0), backend="onnx")(x).asnumpy()       # another constant: another model
    np.testing.assert_array_equal(other, np.maximum(np.arange(6).reshape(2, 3) * 3.0 - 1.0, 0))
    assert len(list(cache_dir.glob("*.onnx"))) == 2


def test_export_reads_an_unchanged_ensemble_back_and_relowers_a_changed_one(cache_dir, tmp_path, monkeypatch):
    x = ms.Tensor(golden_array("minibatch.npy"))
    nets = nn.CellList([load_lenet(i) for i in range(2)])
    first = ms.export(ms.vmap(nets, in_axes=None), x, file_name=str(tmp_path / "a"))
    (cached,) = cache_dir.glob("*.onnx")
    with monkeypatch.context() as m:
        no_lowering(m)
        second = ms.export(ms.vmap(nets, in_axes=None), x, file_name=str(tmp_path / "b"))
    assert onnx.load(first) == onnx.load(second)
    nets[1].fc3.bias.set_data(np.full(10, 5.0, np.float32))         # new weights: lowered again
    third = ms.export(ms.vmap(nets, in_axes=None), x, file_name=str(tmp_path / "c"))
    want = ms.vmap(nets, in_axes=None)(x).asnumpy()
    np.testing.assert_allclose(Session(third, providers=["cpu"])(x.asnumpy()), want, atol=1e-5)
    assert len(list(cache_dir.glob("*.onnx"))) == 2
    cached.write_bytes(b"\x0a\xff not a model")                       # damaged: rebuilt, not read
    fourth = ms.export(ms.vmap(nn.CellList([load_lenet(i) for i in range(2)]), in_axes=None), x,
                       file_name=str(tmp_path / "d"))
    assert onnx.load(fourth) == onnx.load(first)
    assert onnx.load_model_from_string(cached.read_bytes()).graph.node


def test_without_a_cache_folder_nothing_is_written(tmp_path):
    assert ms.get_context("compile_cache_dir") is None
    x = ms.Tensor(golden_array("minibatch.npy"))
    ms.export(load_lenet(0), x, file_name=str(tmp_path / "one"))
    ms.jit(lambda t: t * 2.0, backend="onnx")(x)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.onnx"]


# -- onnxruntime's optimised models (runtime/optimized_cache.py) ----------------------------------

def test_a_session_loads_the_optimised_model_a_former_one_wrote(tmp_path, monkeypatch):
    x = golden_array("minibatch.npy")
    path = ms.export(load_lenet(0), ms.Tensor(x), file_name=str(tmp_path / "lenet"))
    folder = tmp_path / "ort"
    first = Session(path, providers=["cpu"], optimized_cache=folder)
    (written,) = folder.glob("*.onnx")
    assert first.optimized_from_cache is None
    # onnxruntime wrote its optimised graph: fused and in the blocked (NCHWc) layout.
    assert any(n.domain == "com.microsoft.nchwc" for n in onnx.load(written).graph.node)
    with monkeypatch.context() as m:
        m.setattr(Session, "_optimize", lambda *a: pytest.fail("optimised although the cache holds the model"))
        second = Session(path, providers=["cpu"], optimized_cache=folder)
    assert second.optimized_from_cache == written
    plain = Session(path, providers=["cpu"])
    np.testing.assert_array_equal(second(x), plain(x))
    np.testing.assert_allclose(second(x), golden_array("net0_out.npy"), atol=1e-4)
    assert sorted(p.name for p in folder.iterdir()) == [written.name]   # no temporary left


def test_the_optimised_model_is_keyed_on_the_machine_and_the_options(tmp_path, monkeypatch):
    from graphcell.runtime import optimized_cache
    path = ms.export(load_lenet(0), ms.Tensor(golden_array("minibatch.npy")), file_name=str(tmp_path / "m"))
    folder = tmp_path / "ort"
    Session(path, providers=["cpu"], optimized_cache=folder)
    Session(path, providers=["cpu"], optimized_cache=folder, config={"session.intra_op.allow_spinning": "0"})
    assert len(list(folder.glob("*.onnx"))) == 2                        # other config entries
    monkeypatch.setattr(optimized_cache, "cpu_fingerprint", lambda: "x86_64|another CPU|avx2 fma")
    assert Session(path, providers=["cpu"], optimized_cache=folder).optimized_from_cache is None
    assert len(list(folder.glob("*.onnx"))) == 3                        # another CPU
    Session(path, providers=["cpu"], optimized_cache=folder, graph_optimization_level="basic")
    monkeypatch.setattr(optimized_cache, "cpu_fingerprint", lambda: None)   # a CPU it cannot read
    Session(path, providers=["cpu"], optimized_cache=folder)
    assert len(list(folder.glob("*.onnx"))) == 3                        # neither cached


def test_a_damaged_optimised_model_is_optimised_again_and_replaced(tmp_path):
    x = golden_array("minibatch.npy")
    path = ms.export(load_lenet(0), ms.Tensor(x), file_name=str(tmp_path / "m"))
    folder = tmp_path / "ort"
    Session(path, providers=["cpu"], optimized_cache=folder)
    (written,) = folder.glob("*.onnx")
    written.write_bytes(written.read_bytes()[:1000])                   # truncated
    again = Session(path, providers=["cpu"], optimized_cache=folder)
    assert again.optimized_from_cache is None
    np.testing.assert_allclose(again(x), golden_array("net0_out.npy"), atol=1e-4)
    assert Session(path, providers=["cpu"], optimized_cache=folder).optimized_from_cache == written


def test_jit_onnx_keeps_onnxruntimes_optimised_model_in_the_compile_cache(cache_dir, monkeypatch):
    x = ms.Tensor(golden_array("minibatch.npy"))
    net = load_lenet(0)
    first = ms.jit(net, backend="onnx")(x).asnumpy()
    (written,) = (cache_dir.parent / "onnxruntime").glob("*.onnx")
    with monkeypatch.context() as m:
        no_lowering(m)
        m.setattr(Session, "_optimize", lambda *a: pytest.fail("optimised although the cache holds the model"))
        again = ms.jit(load_lenet(0), backend="onnx")(x).asnumpy()      # a new trace, as in a new process
    np.testing.assert_array_equal(again, first)
    np.testing.assert_allclose(first, golden_array("net0_out.npy"), atol=1e-4)
