"""The dataflow of a lowered ONNX node list, read by the rewrites after lowering
(`onnx_peepholes`, `onnx_fusions`, `onnx_dense_gemm`, `onnx_blocked`): producers, readers and
use counts, static shapes, constants' values, node attributes."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper

from .onnx import subgraphs


class Dataflow:
    """Who makes and who reads each value of a node list, for the pattern rewrites."""

    def __init__(self, nodes: list, keep: set, constants: dict, shapes: dict):
        self.uses = use_counts(nodes)
        self.producer = {o: n for n in nodes for o in n.output}
        self.readers: dict[str, list] = {}
        for n in nodes:
            for name in set(n.input):
                self.readers.setdefault(name, []).append(n)
        self.keep, self.constants, self.shapes = keep, constants, shapes
        self.ints = int_reader(constants)

    def made_by(self, name: str, op: str):
        node = self.producer.get(name)
        return node if node is not None and node.op_type == op else None

    def static_shape(self, name: str) -> tuple | None:
        """A value's shape when every dimension is static, else None: from the lowering's
        shapes, an initializer's dims, or through a Transpose of either (a matmul rule's
        transposed weight, a value the IR does not name)."""
        shape = self.shapes.get(name)
        if shape is None and name in self.constants:
            shape = tuple(self.constants[name].dims)
        transpose = self.made_by(name, "Transpose") if shape is None else None
        if transpose is not None:
            source = self.static_shape(transpose.input[0])
            perm = ints_attr(transpose, "perm") or (list(range(len(source)))[::-1] if source else None)
            shape = tuple(source[p] for p in perm) if source is not None else None
        return tuple(shape) if shape is not None and -1 not in shape else None

    def private(self, name: str, readers: int = 1) -> bool:
        """Whether `name` is read exactly `readers` times and is no graph output."""
        return self.uses.get(name) == readers and name not in self.keep

    def only_reader(self, name: str, op: str):
        """The one node reading `name` (once, no graph output) when it is an `op`, else None."""
        found = self.readers.get(name, [])
        ok = len(found) == 1 and found[0].op_type == op and self.private(name)
        return found[0] if ok else None

    def reduction(self, name: str, op: str, x: str, through=("Reshape", "Identity"), guard=None):
        """(axes, nodes) when `name` is `op` of `x` over some axes, viewed with those axes
        kept (through Reshapes and Identities, or the ops `through` names, each read once),
        else None. `guard(flow, node)`, given, sees through a guard after the reduction: it
        returns (the guarded value, the guard's nodes) or None."""
        chain, node = [], self.producer.get(name)
        while node is not None and self.private(node.output[0]):
            if node.op_type in through:
                chain.append(node)
                node = self.producer.get(node.input[0])
                continue
            guarded = guard(self, node) if guard is not None else None
            if guarded is None:
                break
            chain += guarded[1]
            node = self.producer.get(guarded[0])
        shape = self.shapes.get(x)
        if (node is None or node.op_type != op or node.input[0] != x or len(node.input) != 2 or shape is None
                or not self.private(node.output[0]) or not self.ints(node.input[1])):
            return None
        axes = sorted({a % len(shape) for a in self.ints(node.input[1])})
        if self.shapes.get(name) != tuple(1 if i in axes else d for i, d in enumerate(shape)):
            return None
        return axes, chain + [node]

    def mean(self, name: str, x: str):
        """(axes, nodes) when `name` is the mean of `x` over static axes as functional.mean
        writes it (a sum kept as axes of one, divided by the count), else None."""
        div = self.made_by(name, "Div")
        found = self.reduction(div.input[0], "ReduceSum", x) if div is not None else None
        if found is None or not self.private(div.input[0]):
            return None
        dims = [self.shapes[x][a] for a in found[0]]
        if -1 in dims or scalar_value(self.constants.get(div.input[1])) != float(np.prod(dims)):
            return None
        return found[0], found[1] + [div]


def int_reader(constants: dict):
    """`ints(name)`: an int64 constant's values as a tuple (None for anything else), each
    constant converted once."""
    memo: dict = {}

    def ints(name: str) -> tuple | None:
        if name not in memo:
            tensor = constants.get(name)
            memo[name] = (tuple(numpy_helper.to_array(tensor).reshape(-1).tolist())
                          if tensor is not None and tensor.data_type == onnx.TensorProto.INT64 else None)
        return memo[name]
    return ints


def use_counts(nodes) -> dict:
    """How many times each name is read (by the nodes and their subgraphs)."""
    uses: dict[str, int] = {}
    for n in nodes:
        for name in all_inputs(n):
            uses[name] = uses.get(name, 0) + 1
    return uses


def all_inputs(node) -> list:
    """A node's inputs and the outer names its subgraphs read."""
    names = list(node.input)
    for g in subgraphs(node):
        for n in g.node:
            names += all_inputs(n)
    return names


def scalar_value(tensor) -> float | None:
    """A one-element floating-point constant's value, or None."""
    if tensor is None or tensor.data_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE,
                                                  onnx.TensorProto.FLOAT16):
        return None
    array = numpy_helper.to_array(tensor)
    return float(array.reshape(-1)[0]) if array.size == 1 else None


def ints_attr(node, name: str, single: bool = False, default=None):
    """A node's int or ints attribute (a list), or `default` when it has none."""
    for a in node.attribute:
        if a.name == name:
            return a.i if single else list(a.ints)
    return default
