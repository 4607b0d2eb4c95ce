"""The three ways the op and layer tests run a function, to compare them: eagerly, under jit
(XLA), and under jit with onnxruntime (the ONNX export path)."""
import graphcell as ms
from graphcell import Tensor

MODES = ["eager", "jit", "onnx"]


def compiled(fn, mode: str):
    """fn as `mode` runs it ("xla" is "jit")."""
    return fn if mode == "eager" else ms.jit(fn, backend="xla" if mode in ("jit", "xla") else "onnx")


def as_numpy(out):
    """A Tensor, or a (nested) tuple of them, as numpy arrays of the same structure."""
    return tuple(as_numpy(o) for o in out) if isinstance(out, (tuple, list)) else out.asnumpy()


def call(fn, mode: str, *arrays):
    """fn over Tensors of `arrays`, in `mode`; its outputs as numpy arrays (a tuple for several)."""
    return as_numpy(compiled(fn, mode)(*(Tensor(a) for a in arrays)))


def run_table(cases: dict, names, mode: str) -> dict:
    """The cases `names` of `cases` (name: (fn, input arrays, ...)) as one function of all their
    inputs, run in `mode` (one compilation per backend); each case's output (numpy) by name."""
    names = sorted(names)
    arrays = [a for n in names for a in cases[n][1]]

    def every_case(*tensors):
        outs, at = [], 0
        for n in names:
            fn, inputs = cases[n][:2]
            outs.append(fn(*tensors[at:at + len(inputs)]))
            at += len(inputs)
        return tuple(outs)
    return dict(zip(names, call(every_case, mode, *arrays)))
