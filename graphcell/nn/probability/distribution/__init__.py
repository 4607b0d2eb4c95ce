"""graphcell.nn.probability.distribution: MindSpore 2.10's `mindspore.nn.probability.distribution`
as Cells composed of graphcell ops."""
from .continuous import Cauchy, Exponential, HalfNormal, Laplace, Logistic, Normal, StudentT, Uniform  # noqa: F401
from .discrete import Bernoulli, Categorical, Geometric  # noqa: F401
from .distribution import Distribution  # noqa: F401
from .gamma_family import Beta, Gamma, Poisson  # noqa: F401
from .transformed import Gumbel, LogNormal, TransformedDistribution  # noqa: F401

__all__ = ["Bernoulli", "Beta", "Categorical", "Cauchy", "Distribution", "Exponential", "Gamma", "Geometric",
           "Gumbel", "HalfNormal", "Laplace", "LogNormal", "Logistic", "Normal", "Poisson", "StudentT",
           "TransformedDistribution", "Uniform"]
