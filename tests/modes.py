"""The three ways the op and layer tests run a function, to compare them: eagerly, under jit
(XLA), and under jit with onnxruntime (the ONNX export path)."""
import graphcell as ms
from graphcell import Tensor

MODES = ["eager", "jit", "onnx"]


def compiled(fn, mode: str):
    """fn as `mode` runs it."""
    return fn if mode == "eager" else ms.jit(fn, backend="xla" if mode == "jit" else "onnx")


def as_numpy(out):
    """A Tensor, or a (nested) tuple of them, as numpy arrays of the same structure."""
    return tuple(as_numpy(o) for o in out) if isinstance(out, (tuple, list)) else out.asnumpy()


def call(fn, mode: str, *arrays):
    """fn over Tensors of `arrays`, in `mode`; its outputs as numpy arrays (a tuple for several)."""
    return as_numpy(compiled(fn, mode)(*(Tensor(a) for a in arrays)))
