"""`device_context.gpu`: available when jax has a GPU backend (2.10's CPU build: is_available()
False, device_count() RuntimeError "Device_target GPU not exist.")."""
from . import op_precision, op_tuning  # noqa: F401
from .op_precision import conv_allow_tf32, matmul_allow_tf32  # noqa: F401
from .op_tuning import conv_dgrad_algo, conv_fprop_algo, conv_wgrad_algo  # noqa: F401


def _gpus() -> list:
    import jax
    try:
        return jax.devices("gpu")
    except RuntimeError:
        return []


def device_count() -> int:
    gpus = _gpus()
    if not gpus:
        raise RuntimeError("Device_target GPU not exist.")
    return len(gpus)


def is_available() -> bool:
    return bool(_gpus())
