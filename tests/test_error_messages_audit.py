"""Session 18's audit of the errors for common user mistakes: each row is a mistake, the error
type and the parts of the message a user needs (the argument, expected vs got, the user's line).
MindSpore 2.10's types and words, measured on the real install, are quoted where graphcell uses
them. Rows run eagerly: the shape rules run the same code inside jit (tests/test_errors.py covers
the jit side of the layer checks)."""
import os
import re

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops

THIS_FILE = re.escape(os.path.basename(__file__))


def ones(*shape, dtype=np.float32):
    return Tensor(np.ones(shape, dtype))


def _user_matmul(x, y):
    return ops.matmul(x, y)


def _user_add(x, y):
    return x + y


def _sce(sparse):
    return nn.SoftmaxCrossEntropyWithLogits(sparse=sparse, reduction="mean")


# (mistake, call, error type, regex the message must hold)
ROWS = [
    # numpy's ValueError about "an inhomogeneous shape" was the error; MindSpore 2.10 raises TypeError
    ("ragged nested list", lambda: Tensor([[1, 2], [3]]), TypeError,
     r"For 'Tensor', the input_data \[\[1, 2\], \[3\]\] is ragged"),
    ("ragged list with a dtype", lambda: Tensor([[1.0], [2.0, 3.0]], ms.float32), TypeError, r"is ragged"),
    # 2.10: TypeError for no input_data (graphcell's was a ValueError, and shape alone made zeros)
    ("Tensor(None)", lambda: Tensor(None), TypeError, r"'input_data' must be .* but got None"),
    ("Tensor(shape) without dtype", lambda: Tensor(shape=(2, 3)), TypeError, r"pass shape and dtype"),
    ("Tensor(shape, init) without dtype", lambda: Tensor(shape=(2, 3), init="ones"), ValueError,
     r"^init, dtype and shape must have values at the same time\.$"),     # 2.10's words
    # set_context stored any key: a misspelt one did nothing. 2.10's types and words:
    ("set_context misspelt key", lambda: ms.set_context(modee=0), ValueError,
     r"For 'context.set_context', the keyword argument modee is not recognized! Did you mean 'mode'\?"),
    ("set_context mode of the wrong type", lambda: ms.set_context(mode="graph"), TypeError,
     r"^The parameter 'mode' must be <class 'int'>, but got <class 'str'>$"),
    ("set_context mode out of range", lambda: ms.set_context(mode=5), ValueError,
     r"the argument 'mode' should be context.GRAPH_MODE \(0\) or context.PYNATIVE_MODE \(1\), but got 5\."),
    ("set_context unknown device", lambda: ms.set_context(device_target="TPU"), ValueError,
     r"the argument 'device_target' must be one of \['CPU', 'GPU', 'Ascend', 'Davinci'\], but got TPU\."),
    # sparse=False with class indices ran, one-hot-free, to a wrong loss; 2.10 raises TypeError
    ("dense softmax CE with int labels", lambda: _sce(False)(ones(4, 10), ones(4, 10, dtype=np.int32)), TypeError,
     r"the input type must be same\. name:\[label_type\]:Tensor\[Int32\]\. name:\[logits_type\]:"
     r"Tensor\[Float32\]\..*pass sparse=True"),
    ("dense softmax CE with float16 labels", lambda: _sce(False)(ones(4, 10), ones(4, 10, dtype=np.float16)),
     TypeError, r"label_type\]:Tensor\[Float16\]"),
    # sparse=True with one-hot labels reported the one-hot of the one-hot's shape, (4, 10, 10)
    ("sparse softmax CE with one-hot labels", lambda: _sce(True)(ones(4, 10), ones(4, 10, dtype=np.int32)),
     ValueError, r"sparse=True, 'labels' must be class indices of shape logits.shape\[:-1\] = \[4\], "
                 r"but got \[4, 10\]"),
    # matmul of 1-D operands reported the promoted shapes [1, 3] and [4, 1]
    ("matmul of 1-D operands", lambda: ops.matmul(ones(3), ones(4)), ValueError,
     r"matmul: shapes \[3\] and \[4\] do not align \(3 != 4\)"),
    # shape errors now name the user's line, eagerly and in jit
    ("matmul mismatch in user code", lambda: _user_matmul(ones(2, 3), ones(4, 5)), ValueError,
     rf"matmul: shapes \[2, 3\] and \[4, 5\] do not align \(3 != 4\) \(at .*{THIS_FILE}:\d+\)"),
    ("broadcast mismatch in jit", lambda: ms.jit(_user_add)(ones(2, 3), ones(4)), ValueError,
     rf"add\(f32\[2,3\], f32\[4\]\): .*cannot be broadcast together \(at .*{THIS_FILE}:\d+\)"),
    ("axis out of range", lambda: ops.concat((ones(2, 3), ones(2, 3)), 2), ValueError,
     rf"axis 2 is out of range for a tensor of rank 2 \(valid: \[-2, 2\)\) \(at .*{THIS_FILE}:\d+\)"),
    ("LayerNorm at the top level", lambda: nn.LayerNorm((5,))(ones(2, 4)), ValueError,
     r"^LayerNorm 'LayerNorm': input shape \[2, 4\] does not end with normalized_shape \[5\]"),
]


@pytest.mark.parametrize("mistake, call, error, message", ROWS, ids=[r[0] for r in ROWS])
def test_mistake_gets_a_clear_error(mistake, call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_refused_set_context_stores_nothing():
    before = ms.get_context("check_finite")
    with pytest.raises(ValueError, match="modee is not recognized"):
        ms.set_context(check_finite=not before, modee=0)
    assert ms.get_context("check_finite") == before
    ms.set_context(device_id=0, save_graphs=False, max_call_depth=2000)   # MindSpore keys that do nothing here


@pytest.mark.parametrize("blocker", ["missing", "file"])
def test_save_checkpoint_to_a_bad_folder_names_the_file_and_writes_nothing(tmp_path, blocker):
    if blocker == "file":
        (tmp_path / "afile").write_text("x")
        target, error = tmp_path / "afile" / "m.ckpt", NotADirectoryError   # 2.10's type
        message = r"cannot write .*afile/m\.ckpt: .*afile is a file, not a folder"
    else:
        target, error = tmp_path / "no" / "such" / "m.ckpt", FileNotFoundError   # 2.10's type
        message = r"cannot write .*such/m\.ckpt: folder .*such does not exist"
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(error, match=message):   # it named the hidden temporary file
        ms.save_checkpoint(nn.Dense(3, 4), str(target))
    assert sorted(os.listdir(tmp_path)) == before


def test_export_below_a_file_is_not_a_directory_error(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(NotADirectoryError, match=r"export: cannot write .*afile/m\.onnx: .*afile is a file"):
        ms.export(nn.Dense(3, 4), ones(2, 3), file_name=str(tmp_path / "afile" / "m"), file_format="ONNX")
    assert os.listdir(tmp_path) == ["afile"]
