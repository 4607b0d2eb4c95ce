"""graphcell.runtime: running exported models with onnxruntime."""
from .session import PROVIDERS, Session, SessionInputError, run_traced_onnx  # noqa: F401
