"""The `graphcell` command on a user's training script (a file that trains and prints at its top
level, as tutorial scripts do), run in-process through `main`."""
import json

from graphcell.cli import main

SCRIPT = '''
import numpy as np
import graphcell as ms
from graphcell import nn, Tensor

class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)
    def construct(self, x):
        return self.fc(x)

open({marker!r}, "w").close()
print("epoch: 1 step: 1, loss is 0.5")
'''


def _script(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT.format(marker=str(tmp_path / "ran")))
    return path


def test_a_scripts_prints_go_to_stderr_so_stdout_holds_the_commands_output(tmp_path, capsys):
    # The script's "epoch: ..." line came first on stdout, and `--json | jq` failed to parse.
    assert main(["dump", f"{_script(tmp_path)}:Net", "--input-shape", "2,4", "--json"]) == 0
    out, err = capsys.readouterr()
    assert isinstance(json.loads(out), (dict, list)) and "epoch: 1 step: 1" in err


def test_a_missing_input_shape_is_reported_before_the_script_runs(tmp_path, capsys):
    # The script (which may train for minutes) ran in full before this error.
    assert main(["dump", f"{_script(tmp_path)}:Net"]) == 2
    assert "--input-shape" in capsys.readouterr().err and not (tmp_path / "ran").exists()
