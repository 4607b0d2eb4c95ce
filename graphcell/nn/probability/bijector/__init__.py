"""graphcell.nn.probability.bijector: MindSpore 2.10's `mindspore.nn.probability.bijector`."""
from .bijector import Bijector, Exp, GumbelCDF, Invert, PowerTransform, ScalarAffine, Softplus  # noqa: F401

__all__ = ["Bijector", "Exp", "GumbelCDF", "Invert", "PowerTransform", "ScalarAffine", "Softplus"]
