"""`nn.GraphCell`: a Cell that runs a graph `graphcell.load` read from an ONNX file, through
onnxruntime, taking and returning graphcell Tensors (2.10's GraphCell runs a loaded MindIR).

It runs eagerly only: the loaded graph is onnxruntime's, not graphcell IR, so jit, grad and
vmap cannot trace through it and a call inside them raises a GraphModeError saying so. Under
set_context(mode=GRAPH_MODE) a top-level call runs eagerly, as any call to it must."""
from __future__ import annotations

import warnings

import numpy as np

from ..frontend.tracer import GraphModeError, current_tracer
from ..runtime.onnx_graph import OnnxGraph, with_initializers
from ..tensor import Parameter, Tensor
from .cell import Cell

__all__ = ["GraphCell"]


def _checked_params(graph: OnnxGraph, params_init) -> dict:
    """params_init's arrays by name, checked as 2.10 checks them (measured messages). A name
    the graph has no parameter of is skipped with a warning (2.10 skips it silently)."""
    if not isinstance(params_init, dict):
        raise TypeError(f"For 'GraphCell', the argument 'params_init' must be a dict, but got {type(params_init)}.")
    arrays = {}
    known = set(graph.parameter_names)
    for name, value in params_init.items():
        if not isinstance(name, str) or not isinstance(value, (Tensor, Parameter)):
            raise TypeError(f"For 'GraphCell', the key of the 'params_init' must be str, and the value must be Tensor "
                            f"or Parameter, but got the key type: {type(name)}, and the value type: {type(value)}")
        if name not in known:
            warnings.warn(f"GraphCell: params_init names {name!r}, which is not a parameter of {graph.file_name!r} "
                          f"(its parameters: {sorted(known)}); it is ignored.", UserWarning, stacklevel=3)
            continue
        old = graph.initializer(name)
        new = value.asnumpy()
        if new.shape != old.shape or new.dtype != old.dtype:
            from .. import dtype as mstype
            raise ValueError(f"Only support update parameter by Tensor or Parameter with same shape and dtype as it. "
                             f"The parameter '{name}' has shape {list(old.shape)} and dtype "
                             f"{mstype.to_dtype(old.dtype)}, but got the update value with shape {list(new.shape)} "
                             f"and dtype {value.dtype}.")
        arrays[name] = np.ascontiguousarray(new)
    return arrays


class GraphCell(Cell):
    """Runs `graph` (from `graphcell.load("model.onnx")`) with onnxruntime.

    - `params_init`: {Parameter name: Tensor} replacing the file's weights of those names in
      this Cell's session (the graph and other GraphCells over it keep the file's; 2.10's
      GraphCell writes them into the shared graph).
    - `obf_random_seed`: for MindSpore's obfuscated MindIR; graphcell's exports are not
      obfuscated, so only None is accepted.
    Returns a Tensor for a one-output model, else a tuple of Tensors (2.10's, measured).
    """

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__(auto_prefix=True)
        if not isinstance(graph, OnnxGraph):
            raise TypeError(f"For 'GraphCell', the argument 'graph' must be a graph loaded by graphcell.load from an "
                            f"ONNX file, but got type {type(graph)}.")
        if obf_random_seed is not None:
            raise ValueError("For 'GraphCell', 'obf_random_seed' is for obfuscated MindIR models; graphcell's ONNX "
                             "exports are not obfuscated: leave it None.")
        object.__setattr__(self, "graph", graph)
        params = _checked_params(graph, params_init) if params_init is not None else {}
        object.__setattr__(self, "session", with_initializers(graph, params) if params else graph.session)

    def __call__(self, *args, **kwargs):
        if current_tracer() is not None or any(isinstance(a, Tensor) and a.is_symbolic for a in args):
            raise GraphModeError(
                f"nn.GraphCell runs the loaded ONNX model {self.graph.file_name!r} with onnxruntime, eagerly: jit, "
                "grad and vmap cannot trace through it (it is not a graphcell graph). Call it outside them, or "
                "rebuild the network as a Cell and load its weights to compile or differentiate it.")
        return self.construct(*args, **kwargs)   # eagerly in GRAPH_MODE too: there is nothing to compile

    def construct(self, *inputs):
        arrays = [x.asnumpy() if isinstance(x, Tensor) else x for x in inputs]
        outputs = [Tensor(a) for a in self.session.run(*arrays)]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def extend_repr(self) -> str:
        return repr(self.graph)
