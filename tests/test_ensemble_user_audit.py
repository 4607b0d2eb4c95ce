"""Session 20's ensemble audit by user programs: vmap's messages where MindSpore 2.10 has one
(measured on 2.10, quoted below), the architecture check naming the extra op, and the command
naming the ensemble member whose checkpoint does not fit (nothing written)."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops
from graphcell.cli import main

TINY = "tests/models/cli_models.py:TinyNet"
X = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
Y = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))


def mul(a, b):
    return a * b


def three(a):
    return a.sum(0), a * 2, a.mean()


@pytest.mark.parametrize("call, message", [
    # every message below is MindSpore 2.10's, measured (RuntimeError each)
    (lambda: ms.vmap(mul, in_axes=(0.5, None))(X, Y),
     "The axis in vmap's 'in_axes' should be a None or a scalar of type Int64Imm, but got a 0.5."),
    (lambda: ms.vmap(three, in_axes=0, out_axes=(0, 1))(X),
     "The size of vmap's 'out_axes' should be equal to the number of results of 'fn': 3, but got size: 2."),
    (lambda: ms.vmap(mul, in_axes=(None, None))(X, Y),
     "The 'in_axes' of 'vmap' cannot be all None while 'fn' is not a 'CellList', but got (None, None)."),
])
def test_vmap_messages_are_mindspores(call, message):
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value) == message


def test_axis_sizes_differing_inside_one_argument_name_both_places():
    """It said "2 (argument 0) and 5 (argument 0)" for two leaves of one tuple argument."""
    def f(pair):
        return pair[0].sum() + pair[1].sum()
    with pytest.raises(RuntimeError) as e:
        ms.vmap(f, in_axes=((0, 1),))((X, Tensor(np.ones((3, 5), np.float32))))
    assert str(e.value).startswith("The 'axis_size' of each argument in the scope of 'vmap' should be equal, "
                                   "but got 2 and 5.")   # 2.10's words
    assert "2 (argument 0[0]) and 5 (argument 0[1])" in str(e.value)


class Plain(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        return self.fc(x)


class Squashed(Plain):
    def construct(self, x):
        return ops.tanh(self.fc(x))


def test_members_whose_construct_does_more_name_the_extra_op():
    """MindSpore 2.10 runs member 0's graph for every member here, silently; graphcell refuses,
    and names the op only member 1 has (it said only "2 nodes vs 3")."""
    with pytest.raises(RuntimeError, match=r"member 1's traced graph differs .* 2 nodes vs 3; member 1 goes "
                                           r"on with `.*= tanh\("):
        ms.vmap(nn.CellList([Plain(), Squashed()]), in_axes=None)(Tensor(np.ones((5, 4), np.float32)))


def test_export_names_the_member_whose_checkpoint_does_not_fit(tmp_path, capsys):
    from tests.models.cli_models import TinyNet
    good, bad = str(tmp_path / "good.ckpt"), str(tmp_path / "bad.ckpt")
    ms.save_checkpoint(TinyNet(), good)
    ms.save_checkpoint(TinyNet(hidden=5), bad)
    out = tmp_path / "ens.onnx"
    assert main(["export", TINY, "--checkpoint", good, bad, good, "--input-shape", "batch,4",
                 "--reduce", "mean", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"checkpoint {bad} (member 1) does not fit {TINY}" in err and "fc1.weight" in err, err
    assert not list(tmp_path.glob("ens.onnx*"))          # nothing half-written
