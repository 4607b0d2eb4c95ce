"""A whole training step exported to ONNX: onnxruntime runs ten Adam(amsgrad) steps of the
seed's TrainOneStepNet and reproduces MindSpore 2.10's losses (train_losses.npy).

Autodiff is a pass, so the step's graph (forward, backward, optimizer update) is ordinary IR;
with parameters as graph inputs, the updated parameters and optimizer state come out as
outputs named `<parameter>.new`, which the caller feeds back."""
import numpy as np
import onnxruntime as ort

import graphcell as ms

from graphcell.compiler.export import to_onnx
from tests.conftest import golden_array, load_lenet
from tests.models.train_step import TrainOneStepNet


def test_ten_training_steps_in_onnxruntime_match_mindspore():
    step = TrainOneStepNet(load_lenet(0), 1e-2)
    x = ms.Tensor(golden_array("train_images.npy")[0])
    y = ms.Tensor(golden_array("train_labels.npy")[0])
    exported = to_onnx(step, x, y, dynamic_axes=False, params_as_inputs=True)
    session = ort.InferenceSession(exported.model.SerializeToString(), providers=["CPUExecutionProvider"])
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    state = {name: np.asarray(p._payload) for name, p in zip(inputs[2:], exported.traced.params)}
    assert set(outputs[1:]) <= {f"{name}.new" for name in state}, outputs[:5]
    losses = []
    for _ in range(10):
        results = session.run(None, {inputs[0]: x.asnumpy(), inputs[1]: y.asnumpy(), **state})
        losses.append(float(results[0]))
        state.update({name[:-len(".new")]: value for name, value in zip(outputs[1:], results[1:])})
    np.testing.assert_allclose(losses, golden_array("train_losses.npy")[:, 0], rtol=1e-4)
    # The trained weights also match MindSpore's (the same tolerance as the XLA path's test).
    from graphcell.train.ckpt_format import read_ckpt_file
    from tests.conftest import GOLDEN
    trained = read_ckpt_file(GOLDEN / "net0_trained.ckpt")
    w = state["adam_optim.loss_fn._backbone.fc3.weight"]
    np.testing.assert_allclose(w, trained["fc3.weight"], atol=5e-5)
