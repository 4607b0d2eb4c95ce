"""`run_check`: MindSpore 2.10's installation check, on graphcell's jax/XLA backend."""
from __future__ import annotations

import numpy as np


def run_check() -> None:
    """Multiplies two small Tensors through XLA and prints whether the result is right, with
    graphcell's version and the platform jax runs on (MindSpore prints the same two lines)."""
    import jax

    import graphcell
    from graphcell import ops
    from graphcell.tensor import Tensor
    print(f"graphcell version:  {graphcell.__version__}")
    platform = jax.default_backend().upper()
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    try:
        ok = np.array_equal(ops.mul(Tensor(x), Tensor(x)).asnumpy(), x * x)
    except Exception as e:  # noqa: BLE001 - reported, as MindSpore reports a failed run
        print(f"graphcell running check failed on platform [{platform}]: {e}")
        return
    if ok:
        print(f"The result of multiplication calculation is correct, graphcell has been installed on platform "
              f"[{platform}] successfully!")
    else:
        print(f"The result of multiplication calculation is wrong on platform [{platform}].")
