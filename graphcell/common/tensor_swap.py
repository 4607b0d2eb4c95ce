"""`swap_tensors(t1, t2)`: exchanges two Tensors' contents in place (MindSpore 2.10, measured:
a Float32 [1., 2.] and an Int32 [3, 4, 5] trade values, shapes and dtypes; a non-Tensor fails)."""
from __future__ import annotations


def swap_tensors(t1, t2) -> None:
    from ..tensor import Parameter, Tensor
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'swap_tensors', '{name}' must be a Tensor, but got {type(t)}.")
    if t1 is t2:
        return
    if isinstance(t1, Parameter) != isinstance(t2, Parameter):   # 2.10 fails here too (AttributeError)
        raise TypeError("For 'swap_tensors', a Parameter can be swapped with a Parameter only.")
    t1._payload, t2._payload = t2._payload, t1._payload
    hooks1, hooks2 = getattr(t1, "_grad_hooks", None), getattr(t2, "_grad_hooks", None)
    if hooks1 is not None or hooks2 is not None:
        t1._grad_hooks, t2._grad_hooks = hooks2, hooks1
