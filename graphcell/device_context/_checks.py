"""Argument checks shared by the device_context settings, in 2.10's words."""
import numbers


def check_positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"The parameter '{name}' must be {int}, but got {type(value)}")
    if value <= 0:
        raise ValueError(f"The '{name}' must be int and must > 0, but got '{value}' with type 'int'.")
    return int(value)


def check_bool(api: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"For '{api}', the argument 'value' must be bool, but got {type(value)}.")
    return value
