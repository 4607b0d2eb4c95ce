"""Error classes for mistakes that MindSpore 2.10 reports as RuntimeError where Python's
convention says TypeError, ValueError or IndexError (measured: vmap's keyword arguments and
axis types, grad's position out of range). Each is both, so code written against either
catches it."""


class RuntimeTypeError(RuntimeError, TypeError):
    pass


class RuntimeValueError(RuntimeError, ValueError):
    pass


class RuntimeIndexError(RuntimeError, IndexError):
    pass
