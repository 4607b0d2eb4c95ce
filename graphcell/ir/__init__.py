"""The IR: Graph, Node, Value, the text printer, the verifier and other views."""
from .core import Graph, GraphBuilder, Node, SourceInfo, TensorType, Value, graph_signature, replay  # noqa: F401
from .printer import format_graph  # noqa: F401
from .verify import VerificationError, verify  # noqa: F401
from .views import from_json, node_flops, peak_live_bytes, to_dot, to_json, to_networkx  # noqa: F401
