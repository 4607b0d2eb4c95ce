"""Graph -> Graph passes. Each pass lives in its own module (vmap, grad, ...)."""
from .base import PassResult  # noqa: F401
from .cse import cse  # noqa: F401
from .dce import dce  # noqa: F401
from .fold import FoldConstants, fold_constants  # noqa: F401
from .merge_scans import merge_scans  # noqa: F401
from .manager import PASSES, PIPELINES, PassError, run_passes, run_pipeline  # noqa: F401
from .simplify import simplify  # noqa: F401
