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


@pytest.fixture
def golden():
    return GOLDEN


@pytest.fixture(autouse=True)
def _reset_context():
    import graphcell as ms
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, backend="xla")


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
