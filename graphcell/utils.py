"""MindSpore 2.10's `mindspore.utils` names that mean something on one host: DLPack exchange.
(Its fault-tolerance, silent-data-corruption and stress-detection tools drive Ascend clusters.)"""
from .tensor_storage import from_dlpack, to_dlpack  # noqa: F401

__all__ = ["from_dlpack", "to_dlpack"]
