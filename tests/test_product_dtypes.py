"""Matrix products of two Tensors of different dtypes are refused, as MindSpore 2.10 refuses them
(ops/product_dtypes.py). Measured on 2.10 (CPU), each case in a fresh process, PYNATIVE_MODE and
GRAPH_MODE, called twice: every case below was a TypeError with the message held here, the same
on both calls and in a second fresh process; none was promoted."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops

PAIRS = [("float16", "float32"), ("float32", "float16"), ("float32", "float64"), ("int32", "float32"),
         ("float32", "int32"), ("bfloat16", "float32"), ("int32", "int64")]
# op -> (how it is called, 2.10's primitive in its message, whether graph mode words it otherwise)
OPS = {
    "ops.matmul": (lambda x, y, w: ops.matmul(x, y), "MatMulExt", True),
    "@": (lambda x, y, w: x @ y, "MatMulExt", True),
    "Tensor.matmul": (lambda x, y, w: x.matmul(y), "MatMulExt", True),
    "ops.MatMul": (lambda x, y, w: ops.MatMul()(x, y), "MatMul", False),
    "ops.mm": (lambda x, y, w: ops.mm(x, y), "MatMul", False),
    "ops.bmm": (lambda x, y, w: ops.bmm(x, y), "BatchMatMul", True),
    "ops.BatchMatMul": (lambda x, y, w: ops.BatchMatMul()(x, y), "BatchMatMul", True),
    "ops.dense": (lambda x, y, w: ops.dense(x, w), "Dense", True),
}
# 2.10's words for float16 x float32, as measured
PYNATIVE_F16_F32 = ("For 'MatMulExt', the type of 'x2' should be same as 'x1', but got 'x1' with type "
                    "Tensor[Float16] and 'x2' with type Tensor[Float32].")
GRAPH_F16_F32 = "For primitive[MatMulExt], the input type must be same.\nname:[w]:Tensor[Float32].\nname:[x]:Tensor[Float16]."


def _name(d: str) -> str:
    return {"bfloat16": "BFloat16"}.get(d, d.capitalize())


def _expected(prim: str, graph_form: bool, graph: bool, d1: str, d2: str) -> str:
    if graph and graph_form:
        return f"For primitive[{prim}], the input type must be same.\nname:[w]:Tensor[{_name(d2)}].\nname:[x]:Tensor[{_name(d1)}]."
    return (f"For '{prim}', the type of 'x2' should be same as 'x1', but got 'x1' with type Tensor[{_name(d1)}] and "
            f"'x2' with type Tensor[{_name(d2)}].")


def _operands(d1, d2, batched: bool):
    lead = (1,) if batched else ()
    x = Tensor(np.ones(lead + (2, 3)), getattr(ms, d1))
    return x, Tensor(np.ones(lead + (3, 4)), getattr(ms, d2)), Tensor(np.ones((4, 3)), getattr(ms, d2))


def _message(fn, args, graph: bool) -> str:
    with pytest.raises(TypeError) as info:
        (ms.jit(fn) if graph else fn)(*args)
    return str(info.value)


@pytest.mark.parametrize("graph", [False, True], ids=["pynative", "graph"])
def test_mixed_dtype_products_are_refused(graph):
    assert _expected("MatMulExt", True, False, "float16", "float32") == PYNATIVE_F16_F32
    assert _expected("MatMulExt", True, True, "float16", "float32") == GRAPH_F16_F32
    for name, (fn, prim, graph_form) in OPS.items():
        for d1, d2 in PAIRS:
            got = _message(fn, _operands(d1, d2, prim == "BatchMatMul"), graph)
            assert got == _expected(prim, graph_form, graph, d1, d2), (name, d1, d2)


@pytest.mark.parametrize("graph", [False, True], ids=["pynative", "graph"])
def test_dense_layer_refuses_as_matmul_and_says_the_cast(graph):
    net = nn.Dense(3, 4)   # float32 parameters
    x = Tensor(np.ones((2, 3)), ms.float16)
    message = _message(net, (x,), graph)
    # 2.10's words, in both modes, then graphcell's hint
    assert message == ("For 'MatMul', the type of 'x2' should be same as 'x1', but got 'x1' with type Tensor[Float16] "
                       "and 'x2' with type Tensor[Float32]. Dense 'Dense': cast it with x.astype(graphcell.float32)")


def test_same_dtypes_and_python_numbers_still_multiply():
    x = Tensor(np.ones((2, 3)), ms.float16)
    assert ops.matmul(x, Tensor(np.ones((3, 4)), ms.float16)).dtype == ms.float16
    assert nn.Dense(3, 4, dtype=ms.float16)(x).dtype == ms.float16
