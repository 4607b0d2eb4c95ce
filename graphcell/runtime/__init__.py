"""graphcell.runtime: running exported models with onnxruntime."""
from .session import PROVIDERS, OnnxModelError, Session, SessionInputError, run_traced_onnx  # noqa: F401
