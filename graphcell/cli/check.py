"""`graphcell check MODEL`: eager vs XLA vs ONNX (onnxruntime) on random inputs, naming the
first graph node whose ONNX value departs from jax's. Exit status 1 when they disagree."""
from __future__ import annotations

from . import loader
from .dump import loader_args
from .errors import tolerance


def add_parser(sub, common):
    p = sub.add_parser("check", parents=[common], help="eager vs XLA vs ONNX parity, with the first "
                       "diverging node", description=__doc__.split("\n\n")[0])
    loader_args(p, batch_default=2)
    p.add_argument("--checkpoint", metavar="F", help="load parameters from a checkpoint")
    p.add_argument("--rtol", type=tolerance, default=1e-5)
    p.add_argument("--atol", type=tolerance, default=1e-5)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler=run)


def run(args, out) -> int:
    import graphcell as ms
    ms.set_seed(args.seed)
    spec = loader.load_model(args.model, args.args)
    specs = loader.parse_inputs(args.input_shape, args.input_dtype)
    net = loader.build_members(spec, [args.checkpoint] if args.checkpoint else None)[0]
    inputs = loader.random_inputs(specs, args.batch_size, args.seed)
    report = loader.traced_user_call(f"checking {args.model}", ms.check, net, *inputs,
                                     rtol=args.rtol, atol=args.atol)
    if args.json:
        first = report.first_divergence
        out.json({"ok": report.ok, "provider": report.provider, "rtol": report.rtol, "atol": report.atol,
                  "outputs": report.outputs,
                  "first_divergence": None if first is None else {
                      "node": first["text"], "scope": first["scope"], "max_abs_diff": first["max_diff"]}})
    else:
        out.line(f"{args.model}: eager vs XLA vs ONNX ({report.provider}) on random inputs "
                 f"{', '.join(str(list(t.shape)) for t in inputs)}")
        out.line(str(report))
        out.line("ok" if report.ok else "MISMATCH")
    return 0 if report.ok else 1
