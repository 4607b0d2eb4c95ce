import os
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = Path(__file__).resolve().parent / "data"
GOLDEN = DATA / "golden"
SHARED = ROOT.parent / "shared"

# Nine tenths of a typical test's time is XLA compiling small programs (about 8,000 of them in the
# eleven largest files). XLA's classic CPU emitters without LLVM's optimisations compile them in
# half the time, and every test checks values against an independent reference under either
# compiler. `make test-slow` (GRAPHCELL_TEST_FAST_COMPILE=0) keeps XLA's default compiler, the one
# users run. Set before anything imports jax; subprocesses inherit it.
FAST_COMPILE_FLAGS = "--xla_cpu_use_fusion_emitters=false --xla_backend_optimization_level=0"
if os.environ.get("GRAPHCELL_TEST_FAST_COMPILE", "1") == "1":
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {FAST_COMPILE_FLAGS}".strip()


@pytest.fixture
def golden():
    return GOLDEN


@pytest.fixture(autouse=True)
def _reset_context():
    """Each test starts from the default context and dataset settings, whatever the last one set."""
    import graphcell as ms
    from graphcell.dataset import config
    saved = dict(config._settings)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, backend="xla")
    config._settings.clear()
    config._settings.update(saved)


def load_lenet(i: int = 0, trained: bool = False):
    """A LeNet5 with golden checkpoint net{i}.ckpt loaded."""
    from graphcell.train.ckpt_format import read_ckpt_file
    from tests.models.lenet import LeNet5
    net = LeNet5()
    params = read_ckpt_file(GOLDEN / f"net{i}{'_trained' if trained else ''}.ckpt")
    for p in net.get_parameters():
        p.set_data(params[p.name])
    return net


def golden_array(name: str) -> np.ndarray:
    return np.load(GOLDEN / name)


def fuzz_examples(default: int) -> int:
    """Examples per fuzz test: bounded in the default run, GRAPHCELL_FUZZ_EXAMPLES for long runs
    (`make test-fuzz`)."""
    return int(os.environ.get("GRAPHCELL_FUZZ_EXAMPLES", default))


def fuzz_derandomized() -> bool:
    """The bounded default run draws the same examples every time (CI stays reproducible); a
    long run (GRAPHCELL_FUZZ_EXAMPLES set) draws new ones."""
    return "GRAPHCELL_FUZZ_EXAMPLES" not in os.environ


# The longest test files, started first: `make test` hands whole files to its two workers
# (--dist loadfile) in collection order, so a long file collected last (alphabetically,
# test_vmap_rules.py) ran alone at the end while the other worker sat idle.
LONGEST_FIRST = ["test_vmap_rules.py", "test_ensemble_properties.py", "test_ops_more.py", "test_numpy_api.py",
                 "test_ops_classes_more.py", "test_vmap_ensemble.py", "test_tile_rows.py", "test_grad_prims.py",
                 "test_onnx_prims.py", "test_primitives.py", "test_special_more.py", "test_random_more.py",
                 "test_linalg_more.py", "test_ensemble_training_properties.py", "test_properties.py",
                 "test_transformer.py", "test_tensor_methods_more.py"]


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(Path(str(item.fspath)).name, len(rank)))   # stable: files keep their order
