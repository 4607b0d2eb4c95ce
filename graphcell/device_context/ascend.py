"""`device_context.ascend`: graphcell has no Ascend backend (as 2.10's CPU build answers:
is_available() False, device_count() RuntimeError "Device Ascend not exist."). Its tuning and
precision settings (op_precision, op_tuning, op_debug) are Ascend-only and not provided."""


def device_count() -> int:
    raise RuntimeError("Device Ascend not exist.")


def is_available() -> bool:
    return False
