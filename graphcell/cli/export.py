"""`graphcell export MODEL --checkpoint a.ckpt b.ckpt ... -o ensemble.onnx`: the checkpoints
stacked into one ONNX ensemble (one checkpoint: a single model), verified in onnxruntime
against the XLA path on a random batch, with a summary of what was written."""
from __future__ import annotations

import contextlib
import os

import numpy as np

from . import loader
from .dump import loader_args
from .errors import UserError, check_output_folder, opset, tolerance
from .output import human_bytes

REDUCE = ("none", "mean", "vote", "mean_std")


def add_parser(sub, common):
    p = sub.add_parser("export", parents=[common], help="stack checkpoints into one ONNX ensemble, "
                       "verified in onnxruntime", description=__doc__.split("\n\n")[0])
    loader_args(p, batch_default=2)
    p.add_argument("--checkpoint", nargs="+", required=True, metavar="F",
                   help="one checkpoint per member (.ckpt or .safetensors), or one that holds the whole ensemble "
                   "(save_checkpoint(nn.CellList(nets)); its members are recorded as FILE#i)")
    p.add_argument("--in-axes", choices=("none", "0"), default="none",
                   help="one input for all members (none), or one per member stacked on axis 0 (0)")
    p.add_argument("--reduce", choices=REDUCE, default="none",
                   help="an ensemble head in the graph: mean (the members' softmax probabilities averaged), vote "
                   "(the class most members pick; a tie goes to the lower class), mean_std (mean and "
                   "population standard deviation of the probabilities)")
    p.add_argument("--opset", type=opset, help="ONNX opset, 17 to the newest the installed onnx knows (default 18)")
    p.add_argument("--dynamic-batch", action="store_true",
                   help="find the batch axis and make it dynamic (also implied by 'batch' in --input-shape)")
    p.add_argument("--input-name", action="append", metavar="NAME", help="the ONNX input's name, once per "
                   "input (default: the names of construct's arguments)")
    p.add_argument("--output-name", action="append", metavar="NAME", help="the ONNX output's name, once per "
                   "output (default: output; output_0, output_1, ...; mean and std for --reduce mean_std)")
    p.add_argument("--external-data", action="store_true", help="store the weights in FILE.onnx.data beside "
                   "the model (automatic above 2 GB)")
    p.add_argument("--atol", type=tolerance, help="largest |ONNX - XLA| accepted (default 1e-4; 5e-3 for a "
                   "model that computes in float16, as an amp O1/O2 network does, 5e-2 in bfloat16)")
    p.add_argument("-o", "--output", required=True, metavar="FILE.onnx")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(handler=run)


def build_exportable(args):
    """(callable, example inputs, members, dynamic_axes) for the model and checkpoints."""
    import graphcell as ms
    from ..frontend.trace import _arg_names
    from ..nn import CellList
    ms.set_seed(args.seed)
    specs = loader.parse_inputs(args.input_shape, args.input_dtype)   # first: loading a script runs it
    spec = loader.load_model(args.model, args.args)
    sources = []   # each member's (checkpoint, index in it: None for a single model's file)
    nets = loader.build_members(spec, args.checkpoint, inputs=specs, sources=sources)
    n = len(nets)
    per_member = args.in_axes == "0" and n > 1
    if n == 1:
        if args.reduce != "none":
            raise UserError(f"--reduce {args.reduce} needs an ensemble: give two or more checkpoints, or one "
                            "that holds an ensemble")
        fn = nets[0]
    else:
        fn = ms.vmap(CellList(nets), in_axes=0 if per_member else None)
    lead = (n,) if per_member else ()
    shift = len(lead)
    if any(s.batch_axes for s in specs):
        dynamic = {i: {a + shift: "batch" for a in s.batch_axes} for i, s in enumerate(specs) if s.batch_axes}
    else:
        dynamic = None if args.dynamic_batch else False
    # The ONNX inputs are named after the model's construct arguments (`x`), not the
    # ensemble wrapper's (`*args`).
    names = _arg_names(nets[0], [1] * len(specs))
    if args.input_name:
        if len(args.input_name) != len(specs):
            raise UserError(f"{len(args.input_name)} --input-name for {len(specs)} inputs: give one per "
                            f"--input-shape (the model's arguments: {', '.join(names)})")
        names = list(args.input_name)
    return fn, specs, lead, n, dynamic, names, sources


def run(args, out) -> int:
    import graphcell as ms
    from ..compiler.export import _with_head, export
    from ..runtime import Session
    fn, specs, lead, n, dynamic, names, sources = build_exportable(args)
    example = loader.random_inputs(specs, args.batch_size, args.seed, lead)
    reduce = None if args.reduce == "none" else args.reduce
    check_output_folder(args.output)
    if os.path.isdir(args.output):   # export would append .onnx and write beside the folder
        raise UserError(f"-o {args.output} is a folder; name the file, e.g. -o "
                        f"{os.path.join(args.output, 'model.onnx')}")
    path = loader.traced_user_call(
        f"exporting {args.model}", export, fn, *example, file_name=args.output, reduce=reduce, opset=args.opset,
        input_names=names, output_names=args.output_name, dynamic_axes=dynamic, members=n if n > 1 else None,
        external_data=True if args.external_data else None,
        member_checkpoints=[os.path.abspath(path) + ("" if member is None else f"#{member}")
                            for path, member in sources] if n > 1 else None)

    # Verify: fresh random inputs through onnxruntime and through XLA (jit of the same callable
    # with the same head); a dynamic batch at batch 1 too, where an ensemble's file switches
    # to its small-batch form (an If on the batch size).
    session = Session(path, providers=["cpu"])
    batches = [args.batch_size]
    if args.batch_size != 1 and any(s.batch_axes for s in specs):
        batches.append(1)
    xla_fn = ms.jit(_with_head(fn, reduce))
    verified = []
    for k, batch in enumerate(batches):
        check_inputs = loader.random_inputs(specs, batch, args.seed + 1 + k, lead)
        onnx_outs = session.run(*[t.asnumpy() for t in check_inputs])
        with _state_kept(fn):   # a training step trains when called: each round from the exported state
            xla = xla_fn(*check_inputs)
        xla_outs = [np.asarray(t.asnumpy()) for t in (xla if isinstance(xla, (tuple, list)) else [xla])]
        diff = max(float(np.max(np.abs(o.astype(np.float64) - x.astype(np.float64)), initial=0.0))
                   for o, x in zip(onnx_outs, xla_outs))
        verified.append({"shapes": [list(t.shape) for t in check_inputs], "max_abs_diff": diff})
    max_diff = max(v["max_abs_diff"] for v in verified)
    atol = args.atol if args.atol is not None else default_atol(path)
    data_file = path + ".data"   # where export puts external data, when there is any
    data_file = data_file if os.path.isfile(data_file) else None
    summary = {
        "file": path, "bytes": os.path.getsize(path), "data_file": data_file,
        "data_bytes": os.path.getsize(data_file) if data_file else 0, "members": n, "reduce": args.reduce,
        "in_axes": args.in_axes if n > 1 else None,
        "inputs": [{"name": name, "shape": list(shape), "dtype": np.dtype(dt).name}
                   for name, shape, dt in session.inputs],
        "outputs": [{"name": o.name, "shape": _onnx_shape(o), "dtype": _onnx_dtype(o)}
                    for o in session._sess.get_outputs()],
        "provider": session.provider, "verified_batch": args.batch_size, "verified": verified,
        "max_abs_diff": max_diff,
        "atol": atol, "ok": max_diff <= atol,
    }
    if args.json:
        out.json(summary)
    else:
        what = f"{n} members" + (f", {args.reduce} head" if reduce else "") if n > 1 else "a single model"
        data = f" + {human_bytes(summary['data_bytes'])} in {data_file}" if data_file else ""
        out.line(f"wrote {path} ({human_bytes(summary['bytes'])}{data}): {what}")
        rows = [["input", i["name"], _fmt_shape(i["shape"]), i["dtype"]] for i in summary["inputs"]]
        rows += [["output", o["name"], _fmt_shape(o["shape"]), o["dtype"]] for o in summary["outputs"]]
        out.table("", ["", "name", "shape", "dtype"], rows)
        # the shapes, not --batch-size: a static --input-shape has its own batch
        shapes = " and ".join(", ".join(_fmt_shape(shape) for shape in v["shapes"]) for v in verified)
        out.line(f"verified in onnxruntime ({session.provider}) against XLA on random inputs {shapes}: "
                 f"max |difference| {max_diff:.3g} ({'ok' if summary['ok'] else 'TOO LARGE'}, atol {atol:g})")
    return 0 if summary["ok"] else 1


@contextlib.contextmanager
def _state_kept(fn):
    """The values of `fn`'s Parameters (and the global random key) are restored on exit: the
    file holds the state at export, and a training step's XLA call writes new values."""
    from ..nn.cell import Cell, state_parameters
    from ..ops.random_state import global_key
    from ..tensor import Tensor
    root = fn if isinstance(fn, Cell) else getattr(fn, "fn", None)
    params = (state_parameters(root) if isinstance(root, Cell) else []) + [global_key()]
    saved = [(p, p._payload) for p in params]
    try:
        yield
    finally:
        for p, payload in saved:
            p.set_data(Tensor._wrap(payload))


# --atol's default by the lowest float precision in the file: onnxruntime and XLA round a
# half-precision convolution or matmul one ulp apart (an amp O1 LeNet: ~4e-4 on its logits).
ATOL = {"float32": 1e-4, "float16": 5e-3, "bfloat16": 5e-2}


def default_atol(path: str) -> float:
    """--atol's default for the ONNX file at `path` (its weights are not read)."""
    import onnx
    model = onnx.load(path, load_external_data=False)
    types = {t.type.tensor_type.elem_type for t in list(model.graph.input) + list(model.graph.output)}
    types |= {t.data_type for t in model.graph.initializer}
    types |= {a.i for node in _all_nodes(model.graph) if node.op_type == "Cast" for a in node.attribute
              if a.name == "to"}
    if onnx.TensorProto.BFLOAT16 in types:
        return ATOL["bfloat16"]
    if onnx.TensorProto.FLOAT16 in types:
        return ATOL["float16"]
    return ATOL["float32"]


def _all_nodes(graph):
    """The graph's nodes and those of its subgraphs (an ensemble's If branches, Loop bodies)."""
    for node in graph.node:
        yield node
        for a in node.attribute:
            for sub in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                yield from _all_nodes(sub)


def _onnx_shape(value) -> list:
    return [d if isinstance(d, int) else str(d) for d in value.shape]


def _onnx_dtype(value) -> str:
    from ..runtime.session import _NP_OF_ORT
    dtype = _NP_OF_ORT.get(value.type)
    return np.dtype(dtype).name if dtype is not None else value.type


def _fmt_shape(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"
