"""mindspore.mint: MindSpore's PyTorch-style API (`dim`, `keepdim`, `input` names), over
graphcell's ops. Every function here composes graphcell.ops, so jit, grad, vmap and ONNX
export work as they do for the ops themselves."""
from . import nn, optim  # noqa: E402,F401
