"""`graphcell dump MODEL`: the IR as text, dot, svg, JSON, StableHLO or ONNX, after the
stages asked for: trace, then `--vmap N` (an N-member ensemble), then `--grad` (gradients of
the outputs' sum with respect to every parameter), then `--passes` (optimisation passes).

With `-o DIR` (a folder) every stage is written as a numbered file, as MindSpore's
save_graphs does (which graphcell honours too, for the compiles of a running program:
compiler/save_graphs.py): `00-trace.ir`, `01-vmap.ir`, `02-grad.ir`, `03-cse.ir`, ..., plus
`summary.json`; a table per stage (node count by op, parameter count, FLOPs, peak live
memory) is printed.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from . import loader
from .errors import UserError, check_output_folder, one_line, positive_int, seed
from .output import human_bytes, human_count

FORMATS = ("text", "dot", "svg", "json", "stablehlo", "onnx")
SUFFIX = {"text": ".ir", "dot": ".dot", "svg": ".svg", "json": ".json", "stablehlo": ".mlir", "onnx": ".onnx.txt"}


@dataclass
class Stage:
    """The graph after one step, with the arrays of its non-argument inputs (parameters)."""
    name: str
    graph: object
    params: list = field(default_factory=list)   # numpy arrays for graph.inputs[n_args:]
    changed: bool = True


def add_parser(sub, common):
    p = sub.add_parser("dump", parents=[common], help="print or save the IR (text, dot, svg, json, "
                       "stablehlo, onnx) after trace / vmap / grad / passes",
                       description=__doc__.split("\n\n")[0])
    loader_args(p)
    p.add_argument("--checkpoint", nargs="+", metavar="F", help="load parameters (one file, or one per "
                   "--vmap member)")
    p.add_argument("--vmap", type=int, metavar="N", help="dump the N-member ensemble vmap(CellList)")
    p.add_argument("--in-axes", choices=("none", "0"), default="none",
                   help="with --vmap: one input shared by all members (none) or one per member (0)")
    p.add_argument("--grad", action="store_true", help="add gradients of the outputs' sum w.r.t. the parameters")
    p.add_argument("--passes", metavar="all|LIST", help="run passes after the other stages: 'all' (the XLA "
                   "pipeline), 'xla', 'onnx', or a comma list of pass names (cse,fold,simplify,dce)")
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("-o", "--output", metavar="PATH", help="a file (default: stdout), or a folder for "
                   "one numbered .ir file per stage")
    p.add_argument("--json", action="store_true", help="print the per-stage summary as JSON (on stdout; without "
                   "-o it replaces the graph there)")
    p.set_defaults(handler=run)


def loader_args(p, batch_default: int | None = 1):
    """MODEL and the options every model-taking subcommand shares (`batch_default=None`: no
    --batch-size, for bench, whose --batch gives the sizes)."""
    p.add_argument("model", metavar="MODEL", help="path/to/file.py:Name or package.module:Name "
                   "(a Cell class, or a function returning a Cell)")
    p.add_argument("--args", metavar="JSON", help="constructor arguments as JSON: '{\"num_class\": 10}'")
    p.add_argument("--input-shape", action="append", metavar="DIMS", help="one model input's shape, "
                   "e.g. 3,1,32,32 or batch,1,32,32 (repeat for several inputs)")
    p.add_argument("--input-dtype", action="append", metavar="DTYPE", help="float32 (default), ...: once "
                   "for all inputs or once per input")
    if batch_default is not None:
        p.add_argument("--batch-size", type=positive_int, default=batch_default, metavar="B",
                       help=f"the size that 'batch' stands for (default {batch_default})")
    p.add_argument("--seed", type=seed, default=0, help="seed of the random example inputs and of initialisers "
                   "(0 to 4294967295)")


def build_stages(args) -> list[Stage]:
    """trace -> [vmap] -> [grad] -> [passes], each kept for the dump."""
    import graphcell as ms
    from ..frontend.trace import trace
    ms.set_seed(args.seed)
    inputs = loader.parse_inputs(args.input_shape, args.input_dtype)   # first: loading a script runs it
    spec = loader.load_model(args.model, args.args)
    if args.vmap is not None and args.vmap < 1:
        raise UserError(f"--vmap must be at least 1, got {args.vmap}")
    n = args.vmap or (len(args.checkpoint) if args.checkpoint and len(args.checkpoint) > 1 else None)
    if n is None and args.in_axes != "none":   # it was ignored without a word
        raise UserError(f"--in-axes {args.in_axes} applies to an ensemble: add --vmap N (or one --checkpoint "
                        "per member)")
    nets = loader.build_members(spec, args.checkpoint, n or 1, inputs=inputs)
    example = loader.random_inputs(inputs, args.batch_size, args.seed)
    traced = loader.traced_user_call(f"tracing {args.model}", trace, nets[0], *example)
    graph = traced.graph
    params = [np.asarray(p._payload) for p in list(traced.params) + list(traced.captures)]
    stages = [Stage("trace", graph, params)]
    if n is not None:
        graph, params = _vmap_stage(traced, nets, n, args.in_axes)
        stages.append(Stage("vmap", graph, params))
    if args.grad:
        from ..passes.grad import grad_graph
        wrt = [i for i, v in enumerate(graph.inputs) if v.kind == "param" and v.dtype.is_floating]
        if not wrt:
            raise UserError(f"--grad: {args.model} has no floating-point parameters to differentiate")
        graph = loader.traced_user_call("--grad", grad_graph, graph, wrt)
        stages.append(Stage("grad", graph, params))
    if args.passes:
        passes, rounds = pass_list(args.passes), pipeline_rounds(args.passes)
        for round_ in range(rounds):   # a pipeline runs again while a round changes something, as jit's does
            done = []
            for name, pass_ in passes:
                graph, changed = pass_(graph)
                done.append(Stage(name, graph, params, changed))
            if round_ and not any(s.changed for s in done):
                break   # a round that found nothing left to do is not shown
            stages += done
            if not any(s.changed for s in done):
                break
    return stages


def _vmap_stage(traced, nets, n, in_axes):
    """The traced member graph mapped over N members: parameters stacked on axis 0."""
    from ..passes.vmap import vmap_graph
    graph = traced.graph
    arg_axis = None if in_axes == "none" else 0
    member_params = [dict(net.parameters_and_names()) for net in nets]
    names = [name for name, p in nets[0].parameters_and_names()]
    index = {id(p): name for name, p in zip(names, member_params[0].values())}
    axes = [arg_axis] * traced.n_args
    params = []
    for p in traced.params:
        name = index.get(id(p))
        axes.append(0 if name is not None else None)
        params.append(np.stack([np.asarray(m[name]._payload) for m in member_params]) if name is not None
                      else np.asarray(p._payload))
    axes += [None] * len(traced.captures)
    params += [np.asarray(t._payload) for t in traced.captures]
    n_user = len(graph.outputs) - len(graph.state_names)
    out_axes = [0] * n_user + [0] * len(graph.state_names)
    vgraph = loader.traced_user_call("--vmap", vmap_graph, graph, axes, out_axes, n, name=f"vmap_{graph.name}")
    return vgraph, params


def pipeline_rounds(text: str) -> int:
    """How many times `--passes TEXT` may run its list: a pipeline as often as run_pipeline
    runs it for jit and export (so the last stage is the graph they compile), a list once."""
    from ..passes.manager import PIPELINE_ROUNDS, PIPELINES
    return PIPELINE_ROUNDS if text == "all" or text in PIPELINES else 1


def pass_list(text: str) -> list:
    from ..passes.manager import PASSES as known, PIPELINES
    if text == "all":
        return list(PIPELINES["xla"])
    if text in PIPELINES:
        return list(PIPELINES[text])
    out = []
    for name in text.split(","):
        name = name.strip()
        if name not in known:
            raise UserError(f"unknown pass {name!r} in --passes; known: all, {', '.join(sorted(PIPELINES))}, "
                            f"{', '.join(sorted(known))}")
        out.append((name, known[name]))
    return out


# -- formats ----------------------------------------------------------------------------------

def render(stage: Stage, fmt: str) -> str | bytes:
    from ..ir import format_graph, to_dot, to_json
    graph = stage.graph
    if fmt == "text":
        return format_graph(graph, source=True)
    if fmt == "dot":
        return to_dot(graph)
    if fmt == "svg":
        done = subprocess.run([graphviz_dot(), "-Tsvg"], input=to_dot(graph).encode(), capture_output=True)
        if done.returncode != 0:
            raise UserError(f"dot -Tsvg failed: {one_line(done.stderr.decode() or 'no message')}")
        return done.stdout.decode()
    if fmt == "json":
        return to_json(graph)
    if fmt == "stablehlo":
        from ..compiler.to_jax import stablehlo_text
        return stablehlo_text(graph)
    if fmt == "onnx":
        return onnx_text(stage)
    raise AssertionError(fmt)


def graphviz_dot() -> str:
    """The path of Graphviz's `dot`, which --format svg runs (checked before any work)."""
    dot = shutil.which("dot")
    if dot is None:
        raise UserError("--format svg needs Graphviz's 'dot' program, which is not on PATH; install "
                        "graphviz (apt install graphviz, brew install graphviz) or use --format dot")
    return dot


def onnx_text(stage: Stage) -> str:
    """The ONNX model in onnx's printable syntax; parameters as graph inputs (no weights)."""
    from ..compiler.onnx import model_text
    try:
        return model_text(stage.graph)
    except Exception as e:
        raise UserError(f"--format onnx: the graph cannot be lowered to ONNX: {one_line(e)}") from e


# -- the summary ----------------------------------------------------------------------------------

def summarize(index: int, stage: Stage) -> dict:
    from ..ir import node_flops, peak_live_bytes
    graph = stage.graph
    ops = Counter(n.primitive.name for n in graph.nodes)
    params = sum(int(np.prod(v.shape)) for v in graph.inputs if v.kind == "param")
    return {"index": index, "stage": stage.name, "changed": stage.changed, "nodes": len(graph.nodes),
            "ops": dict(sorted(ops.items(), key=lambda kv: (-kv[1], kv[0]))),
            "parameters": params, "flops": int(sum(node_flops(n) for n in graph.nodes)),
            "peak_live_bytes": int(peak_live_bytes(graph))}


def summary_rows(summaries: list[dict]) -> list[list]:
    rows = []
    for s in summaries:
        top = ", ".join(f"{op} {k}" for op, k in list(s["ops"].items())[:5])
        more = len(s["ops"]) - 5
        rows.append([f"{s['index']:02d}-{s['stage']}", "yes" if s["changed"] else "no", s["nodes"], human_count(s["parameters"]),
                     human_count(s["flops"]), human_bytes(s["peak_live_bytes"]),
                     top + (f", +{more} more" if more > 0 else "")])
    return rows


SUMMARY_COLUMNS = ["stage", "changed", "nodes", "params", "FLOPs", "peak live", "nodes by op"]


def run(args, out) -> int:
    folder = args.output is not None and (os.path.isdir(args.output) or args.output.endswith(("/", os.sep))
                                          or (args.passes and not os.path.splitext(args.output)[1]))
    if args.output is not None and not folder:
        check_output_folder(args.output)
        if args.format == "onnx" and args.output.endswith(".onnx"):   # `graphcell run` would call it corrupt
            raise UserError(f"--format onnx writes ONNX's text syntax, without weights, not a model file: "
                            f"name it {args.output}.txt, or write a runnable {args.output} with graphcell export")
    if folder:   # made (or refused) before the work
        os.makedirs(args.output, exist_ok=True)
    if args.format == "svg":
        graphviz_dot()
    stages = build_stages(args)
    if folder:
        summaries = []
        for i, stage in enumerate(stages):
            path = os.path.join(args.output, f"{i:02d}-{stage.name}.ir")
            with open(path, "w") as f:
                f.write(render(stage, "text") + "\n")
            summaries.append(summarize(i, stage))
        if args.format != "text":  # the final graph in the format asked for, beside the .ir files
            with open(os.path.join(args.output, f"final{SUFFIX[args.format]}"), "w") as f:
                f.write(render(stages[-1], args.format))
        with open(os.path.join(args.output, "summary.json"), "w") as f:
            json.dump(summaries, f, indent=1)
        if args.json:
            out.json(summaries)
        else:
            out.table(f"{args.model}: {len(stages)} stages written to {args.output}", SUMMARY_COLUMNS,
                      summary_rows(summaries))
        return 0
    if args.json and args.output is None:   # stdout carries one thing: the JSON asked for
        out.json([summarize(i, s) for i, s in enumerate(stages)])
        return 0
    text = render(stages[-1], args.format)
    if args.output is None:
        out.stream.write(text if text.endswith("\n") else text + "\n")
    else:
        with open(args.output, "w") as f:
            f.write(text if text.endswith("\n") else text + "\n")
    if args.json or (args.passes and args.output is not None):
        summaries = [summarize(i, s) for i, s in enumerate(stages)]
        if args.json:
            out.json(summaries)
        else:
            out.table(f"{args.model}: wrote {args.output}", SUMMARY_COLUMNS, summary_rows(summaries))
    return 0
