"""The names `import graphcell` gives at once (jax with 64-bit types, dtypes, Tensor, ops, nn,
jit, ...), in a module of their own so that the `graphcell` command can load them after its
arguments parse: `graphcell --help` and an argument error do not import jax."""
import jax

# MindSpore's Tensor(1) is Int64 and float64 arrays stay Float64: jax must keep 64-bit types.
jax.config.update("jax_enable_x64", True)

from . import dtype  # noqa: E402
from .dtype import (DType, bfloat16, bool_, complex64, complex128, float16, float32, float64, float_, int8, int16,  # noqa: E402,F401
                    int32, int64, int_, uint8, uint16, uint32, uint64, dtype_to_nptype, dtype_to_pytype,
                    pytype_to_dtype)
from .dtype import Int, TensorType, Type, list_, number, string, tensor_type, tuple_, type_none, uint  # noqa: E402,F401
from .dtype import float8_e4m3fn, float8_e5m2  # noqa: E402,F401
from .tensor import Parameter, ParameterTuple, Tensor  # noqa: E402
from .sparse_tensor import COOTensor, CSRTensor, RowTensor  # noqa: E402,F401
from . import ops  # noqa: E402
from .context import (GRAPH_MODE, PYNATIVE_MODE, ParallelMode, get_auto_parallel_context,  # noqa: E402,F401
                      get_context, reset_auto_parallel_context, set_auto_parallel_context, set_context)
from .compiler.jit import jit  # noqa: E402
from .frontend.trace import trace  # noqa: E402
from . import nn  # noqa: E402
from . import numpy  # noqa: E402,F401
from .common.initializer import get_seed  # noqa: E402

__all__ = [name for name in dir() if not name.startswith("_") and name != "jax"]
