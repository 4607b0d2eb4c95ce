"""MindSpore 2.10's functional in-place ops (ops.zero_, ops.clamp_, ops.uniform_, ops.put_, ...):
each is its Tensor method (tensor_methods.py, which writes the result into the Tensor through
Tensor._write and returns it), after checking that `input` is a Tensor. 2.10's CPU build has
no kernel for any of them ("The kernel InplaceZero unregistered", measured), so they follow the
Tensor methods, whose semantics are documented and tested there.
"""
from __future__ import annotations

from ..tensor import Tensor

__all__ = ["zero_", "uniform_", "normal_", "random_", "exponential_", "bernoulli_", "put_", "clamp_", "tanh_",
           "erfinv_"]


def _tensor(kernel: str, input) -> Tensor:  # noqa: A002 - MindSpore's names
    if not isinstance(input, Tensor):
        raise TypeError(f'Failed calling {kernel} with "{kernel}()(input={type(input).__name__})".\nThe valid '
                        f'calling should be: \n"{kernel}()(input=<Tensor>)".')
    return input


def zero_(input):  # noqa: A002
    """input filled with zeros, in place."""
    return _tensor("InplaceZero", input).zero_()


def clamp_(input, min=None, max=None):  # noqa: A002 - MindSpore's names
    """input clamped to [min, max], in place."""
    return _tensor("InplaceClampScalar", input).clamp_(min, max)


def tanh_(input):  # noqa: A002
    return _tensor("InplaceTanh", input).tanh_()


def erfinv_(input):  # noqa: A002
    return _tensor("InplaceErfinv", input).erfinv_()


def put_(input, index, source, accumulate=False):  # noqa: A002
    """source written (added, with accumulate) at the flat positions index, in place."""
    return _tensor("InplacePut", input).put_(index, source, accumulate)


def uniform_(input, from_=0, to=1, *, generator=None):  # noqa: A002
    """input filled with uniform draws in [from_, to), in place."""
    return _tensor("InplaceUniform", input).uniform_(from_, to, generator=generator)


def normal_(input, mean=0, std=1, *, generator=None):  # noqa: A002
    return _tensor("InplaceNormal", input).normal_(mean, std, generator=generator)


def random_(input, from_=0, to=None, *, generator=None):  # noqa: A002
    return _tensor("InplaceRandom", input).random_(from_, to, generator=generator)


def exponential_(input, lambd=1, *, generator=None):  # noqa: A002
    return _tensor("InplaceExponential", input).exponential_(lambd, generator=generator)


def bernoulli_(input, p=0.5, *, generator=None):  # noqa: A002
    return _tensor("InplaceBernoulli", input).bernoulli_(p, generator=generator)
