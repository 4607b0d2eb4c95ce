"""`device_context.cpu.op_tuning.threads_num`: checked and set once, as 2.10 does (measured:
threads_num(0) -> ValueError, a second call -> RuntimeError "can not be set repeatedly").
XLA sizes its CPU thread pool when its backend starts, so the number is kept, not applied."""
from .._checks import check_positive_int

_THREADS = {"num": None}


def threads_num(num) -> None:
    num = check_positive_int("num", num)
    if _THREADS["num"] is not None:
        raise RuntimeError("The 'threads_num' can not be set repeatedly.")
    _THREADS["num"] = num
