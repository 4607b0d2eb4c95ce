"""graphcell.mint as a PyTorch migrant uses it: whole programs (an MLP, a CNN, a
Transformer-ish block, vmapped ensembles, ONNX export) checked against torch 2.13 on the
same initial weights, or against values measured on MindSpore 2.10."""
import numpy as np
import torch

import graphcell as ms
from graphcell import Parameter, Tensor, mint

# Measured on MindSpore 2.10: print(mint.optim.Adam(groups, lr=1e-2)) with two groups.
ADAM_REPR_2_10 = """Adam (
Parameter Group 0
    amsgrad: False
    betas: (0.9, 0.999)
    eps: 1e-08
    lr: 0.01
    maximize: False
    weight_decay: 0.05

Parameter Group 1
    amsgrad: False
    betas: (0.9, 0.999)
    eps: 1e-08
    lr: 0.003
    maximize: False
    weight_decay: 0.0
)"""


def test_optimizer_repr_is_torch_and_2_10_format():
    w = Parameter(np.ones(3, np.float32), name="w")
    b = Parameter(np.ones(1, np.float32), name="b")
    opt = mint.optim.Adam([{"params": [w], "weight_decay": 0.05}, {"params": [b], "lr": 3e-3}], lr=1e-2)
    assert repr(opt) == ADAM_REPR_2_10


def test_assigning_a_group_lr_as_torch_does_changes_the_jitted_update():
    """`group['lr'] = x` (torch's idiom) acts at the next step, inside jit too, as torch's does;
    the group keeps its rate Parameter (2.10 under jit ignores the assignment: measured)."""
    grads = ([0.1, -0.2, 0.3], [0.4, 0.1, -0.5], [-0.3, 0.2, 0.1], [0.2, 0.2, -0.1])
    w = Parameter(np.array([1.0, -2.0, 3.0], np.float32), name="w")
    opt = mint.optim.Adam([w], lr=0.1)
    step = ms.jit(lambda g: opt((g,)))
    tw = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    topt = torch.optim.Adam([tw], lr=0.1)
    for i, g in enumerate(grads):
        if i == 2:
            opt.param_groups[0]["lr"] = 0.02
            topt.param_groups[0]["lr"] = 0.02
        step(Tensor(np.array(g, np.float32)))
        tw.grad = torch.tensor(g)
        topt.step()
    np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert isinstance(opt.param_groups[0]["lr"], Parameter)
    assert "lr: 0.02\n" in repr(opt)
    try:
        opt.param_groups[0]["lr"] = -1.0
    except ValueError as e:
        assert str(e) == "Invalid learning rate: -1.0"
    else:
        raise AssertionError("a negative learning rate was accepted")
