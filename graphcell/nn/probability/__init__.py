"""graphcell.nn.probability: MindSpore 2.10's `mindspore.nn.probability` distributions and
bijectors, as Cells composed of graphcell ops (so jit, grad, vmap and ONNX export follow)."""
from . import bijector, distribution  # noqa: F401
