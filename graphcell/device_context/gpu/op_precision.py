"""TF32 for GPU matmuls and convolutions: jax's `jax_default_matmul_precision` (it governs
both: 'tensorfloat32' when allowed, 'float32' when not). Without a GPU backend the setting is
checked and has no effect (2.10's CPU build logs "CPU device is not supported" and returns)."""
import warnings

from .._checks import check_bool


def _set(api: str, value) -> None:
    import jax
    from . import is_available
    check_bool(api, value)
    if not is_available():
        warnings.warn(f"'{api}' sets GPU precision; jax has no GPU backend here, so it has no effect.",
                      stacklevel=3)
        return
    jax.config.update("jax_default_matmul_precision", "tensorfloat32" if value else "float32")


def matmul_allow_tf32(value) -> None:
    _set("matmul_allow_tf32", value)


def conv_allow_tf32(value) -> None:
    _set("conv_allow_tf32", value)
