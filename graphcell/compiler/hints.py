"""MindSpore 2.10's compile-time decorators and settings, as graphcell reads them.

graphcell traces Python (any object's methods, any function), so most of these only check
their argument as MindSpore does and return it:

- `jit_class`: MindSpore's graph parser needs it to call a plain class's methods; a trace
  calls them anyway. It marks the class (`__ms_class__`) and refuses Cells and non-classes.
- `constexpr`: a function run at compile time on constant arguments; a trace runs Python at
  trace time, so the function is simply called.
- `lazy_inline`, `no_inline`, `recompute`: how MindSpore shares compiled sub-graphs or keeps
  memory low; they change no value or gradient (measured on 2.10: `recompute(dense, x)` and
  its gradients equal `dense(x)`'s), so graphcell leaves the graph as it is.
- `JitConfig`: `jit(jit_config=...)`'s options, checked and kept.
- `set_deterministic`: records the context key, and asks XLA's GPU backend for deterministic
  kernels (`--xla_gpu_deterministic_ops`), which takes effect when jax first starts its
  backend (call it before the first computation); XLA on CPU is deterministic already.
"""
from __future__ import annotations

import functools
import os

# MindSpore's jit_syntax_level values (mindspore.STRICT etc.), ints as in 2.10.
STRICT, COMPATIBLE, LAX = 0, 1, 2


def jit_class(cls):
    """Marks a user class whose instances `jit`/`construct` may use; returns the class."""
    from ..nn.cell import Cell
    if not isinstance(cls, type):
        raise TypeError(f"Decorator jit_class can only be used for class type, but got {cls}.")
    if issubclass(cls, Cell):
        raise TypeError(f"Decorator jit_class is used for user-defined classes and cannot be used for nn.Cell: "
                        f"{cls}.")
    cls.__ms_class__ = True
    return cls


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """A function evaluated at compile time: in graphcell, called as it is (traces run Python).
    `get_instance=False` returns a factory of the callable, as MindSpore returns the op's class."""
    def decorate(f):
        @functools.wraps(f)
        def const_fn(*args, **kwargs):
            return f(*args, **kwargs)
        return const_fn if get_instance else (lambda: const_fn)
    return decorate if fn is None else decorate(fn)


def lazy_inline(fn=None, attrs=None, policy=None):
    """Decorates a Cell's `__init__` (MindSpore reuses its compiled graph); no change here."""
    def decorate(f):
        if getattr(f, "__name__", None) != "__init__":
            code = getattr(f, "__code__", None)
            where = f" line: {code.co_firstlineno} in {code.co_filename}" if code else ""
            raise ValueError(f"The lazy_inline should decorate the __init__ function, not the function: "
                             f"{getattr(f, '__name__', f)}.{where}")
        return f
    return decorate if fn is None else decorate(fn)


def no_inline(fn=None):
    """Keeps a function a separate sub-graph in MindSpore; returns it unchanged here."""
    return (lambda f: f) if fn is None else fn


def recompute(block, *args, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None,
              **kwargs):
    """`block(*args, **kwargs)`; MindSpore recomputes its activations in the backward pass to
    save memory, with the same values and gradients."""
    from ..nn.cell import Cell
    if use_reentrant and not isinstance(block, Cell):
        raise TypeError("Recompute function now only support block which inherited from Cell when "
                        "use_reentrant=True!")
    return block(*args, **kwargs)


_CHOICES = {"jit_level": ("O0", "O1", "O2"), "exc_mode": ("auto", "sink", "no_sink"),
            "jit_syntax_level": ("STRICT", "LAX"), "debug_level": ("RELEASE", "DEBUG"), "infer_boost": ("on", "off")}


class JitConfig:
    """MindSpore's jit options (level, syntax level, ...), checked and kept in `jit_config_dict`
    (graphcell compiles every graph one way)."""

    def __init__(self, jit_level="", exc_mode="auto", jit_syntax_level="", debug_level="RELEASE",
                 infer_boost="off", **kwargs):
        options = {"jit_level": jit_level, "exc_mode": exc_mode, "jit_syntax_level": jit_syntax_level,
                   "debug_level": debug_level, "infer_boost": infer_boost}
        for key, value in options.items():
            allowed = _CHOICES[key]
            if value not in allowed and not (value == "" and key in ("jit_level", "jit_syntax_level")):
                shown = list(allowed)
                raise ValueError(f"For '{key}' must be one of {shown}." if key == "jit_level"
                                 else f"For '{key}' must be one of '{shown}'.")
        self.jit_config_dict = {**kwargs, **options}


_DETERMINISTIC_SET = [False]


def set_deterministic(deterministic: bool) -> None:
    """Deterministic kernels (context key "deterministic" = "ON"/"OFF"); settable once."""
    from ..context import set_context
    if not isinstance(deterministic, bool):
        raise TypeError(f"The parameter 'deterministic' must be {bool}, but got {type(deterministic)}")
    if _DETERMINISTIC_SET[0]:
        raise RuntimeError("The 'mindspore.set_deterministic' can not be set repeatedly.")
    _DETERMINISTIC_SET[0] = True
    set_context(deterministic="ON" if deterministic else "OFF")
    if deterministic:
        flag = "--xla_gpu_deterministic_ops=true"
        flags = os.environ.get("XLA_FLAGS", "")
        if flag not in flags:
            os.environ["XLA_FLAGS"] = f"{flags} {flag}".strip()
