"""mindspore.scipy: linalg, optimize and fft with MindSpore 2.10's names, signatures and
results (MindSpore 2.10 has no scipy.sparse)."""
from . import fft, linalg, optimize  # noqa: F401

__all__ = ["fft", "linalg", "optimize"]
