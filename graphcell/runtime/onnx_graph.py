"""`graphcell.load` and `nn.GraphCell`'s graph: an exported ONNX file read back for inference.

MindSpore's `load` reads a MindIR file into a graph that `nn.GraphCell` runs. graphcell writes
ONNX, so its `load("model.onnx")` returns an `OnnxGraph`: the model, its inputs' and outputs'
names, shapes and dtypes, its metadata (an ensemble's member count, ...), and an onnxruntime
`Session` over it. The graph holds the file's initializers as they are; `GraphCell(graph,
params_init=...)` makes its own session with some of them replaced."""
from __future__ import annotations

import json
import os

import numpy as np
import onnx
from onnx import numpy_helper

from .. import dtype as mstype
from .session import OnnxModelError, Session

__all__ = ["OnnxGraph", "load_onnx"]


def _dims(value_info) -> tuple:
    """An ONNX input/output's shape: ints, and names for symbolic dimensions."""
    shape = value_info.type.tensor_type.shape
    return tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in shape.dim)


def _dtype(value_info):
    elem = value_info.type.tensor_type.elem_type
    try:
        return mstype.to_dtype(onnx.helper.tensor_dtype_to_np_dtype(elem))
    except (TypeError, KeyError):
        return onnx.TensorProto.DataType.Name(elem)   # a type graphcell has no DType for


class OnnxGraph:
    """An ONNX model loaded by `graphcell.load`: run it with `nn.GraphCell(graph)`.

    - `inputs` / `outputs`: (name, shape, dtype) per model input and output, a shape's symbolic
      dimensions by name (`("batch", 1, 28, 28)`).
    - `metadata`: the model's metadata (graphcell writes `graphcell.version`,
      `graphcell.dynamic_axes`, and for an ensemble `graphcell.members`).
    - `members`: an ensemble's member count, or None.
    - `parameter_names`: the initializers `params_init` may replace (the exported Parameters,
      named by their Parameter names).
    - `session`: the onnxruntime `Session` over the file as it is.
    """

    def __init__(self, path: str, model: onnx.ModelProto, session: Session):
        self.file_name = path
        self.model = model
        self.session = session
        initializers = set(t.name for t in model.graph.initializer)
        self.inputs = [(i.name, _dims(i), _dtype(i)) for i in model.graph.input if i.name not in initializers]
        self.outputs = [(o.name, _dims(o), _dtype(o)) for o in model.graph.output]
        self.metadata = {p.key: p.value for p in model.metadata_props}
        members = self.metadata.get("graphcell.members")
        self.members = int(members) if members is not None else None
        recorded = self.metadata.get("graphcell.parameters")
        self.parameter_names = json.loads(recorded) if recorded is not None else \
            [t.name for t in model.graph.initializer]

    @property
    def input_names(self) -> list:
        return [n for n, _, _ in self.inputs]

    @property
    def output_names(self) -> list:
        return [n for n, _, _ in self.outputs]

    def initializer(self, name: str) -> np.ndarray:
        for t in self.model.graph.initializer:
            if t.name == name:
                return numpy_helper.to_array(t)
        raise KeyError(name)

    def __repr__(self):
        return (f"OnnxGraph({self.file_name!r}, inputs={self.input_names}, outputs={self.output_names}"
                + (f", members={self.members}" if self.members is not None else "") + ")")


def load_onnx(file_name, **kwargs) -> OnnxGraph:
    """`graphcell.load`: reads an ONNX file graphcell exported (or any ONNX model). Errors
    follow 2.10's `load` where it has one (measured): a file name that is not a string, a
    missing file, a dec_key that is not bytes."""
    if not isinstance(file_name, (str, os.PathLike)):
        raise ValueError(f"For 'load', the argument 'file_name' must be string, but got {type(file_name)}.")
    path = os.fspath(file_name)
    if path.lower().endswith(".mindir"):
        raise NotImplementedError(f"load({path!r}): graphcell cannot read MindIR files. It exports ONNX "
                                  "(graphcell.export(net, x, file_name=..., file_format='ONNX')) and loads "
                                  "those; or rebuild the network and load_checkpoint its weights.")
    if not path.lower().endswith(".onnx"):
        raise ValueError(f"For 'load', the argument 'file_name'(ONNX file) should end with '.onnx', please input "
                         f"the correct 'file_name', but got {path!r}.")
    if not os.path.isfile(path):
        raise ValueError(f"For 'load', the argument 'file_name'(ONNX file) does not exist, please check whether "
                         f"the 'file_name' is correct: {path!r}.")
    dec_key = kwargs.get("dec_key")
    if dec_key is not None:
        if not isinstance(dec_key, bytes):
            raise ValueError(f"The parameter 'dec_key' must be isinstance of {bytes}, but got {dec_key}.")
        raise RuntimeError(f"load({path!r}): graphcell's ONNX exports are not encrypted; load them without "
                           "dec_key and dec_mode.")
    try:
        model = onnx.load(path)
    except Exception as e:   # protobuf's DecodeError and others: say which file and what it should be
        raise RuntimeError(f"Load ONNX failed: {path!r} is not a readable ONNX model ({e}); re-export it with "
                           "graphcell.export(...).") from None
    try:
        session = Session(path, providers=["cpu"])
    except OnnxModelError as e:
        raise RuntimeError(f"Load ONNX failed: {e}") from None
    return OnnxGraph(path, model, session)


def with_initializers(graph: OnnxGraph, params: dict) -> Session:
    """A session over `graph`'s model with the named initializers replaced (arrays already
    checked against the originals' shapes and dtypes)."""
    model = onnx.ModelProto()
    model.CopyFrom(graph.model)
    for t in model.graph.initializer:
        if t.name in params:
            t.CopyFrom(numpy_helper.from_array(params[t.name], t.name))
    return Session(model, providers=["cpu"], name=graph.file_name)
