"""`graphcell check MODEL`: eager vs XLA vs ONNX (onnxruntime) on random inputs, naming the
first graph node whose ONNX value departs from jax's. Exit status 1 when they disagree."""
from __future__ import annotations

import warnings

from . import loader
from .errors import UserError, one_line
from .dump import loader_args
from .errors import opset, tolerance


def add_parser(sub, common):
    p = sub.add_parser("check", parents=[common], help="eager vs XLA vs ONNX parity, with the first "
                       "diverging node", description=__doc__.split("\n\n")[0])
    loader_args(p, batch_default=2)
    p.add_argument("--checkpoint", nargs="+", metavar="F", help="load parameters from a checkpoint; "
                   "several: check their vmapped ensemble, as export builds it")
    p.add_argument("--in-axes", choices=("none", "0"), default="none",
                   help="an ensemble's inputs: one for all members (none), or one per member on axis 0 (0)")
    p.add_argument("--rtol", type=tolerance, help="relative tolerance (default 1e-5; 2e-3 when the graph "
                   "computes in float16, as an amp O1/O2 network does, 1.6e-2 in bfloat16)")
    p.add_argument("--atol", type=tolerance, help="absolute tolerance (default 1e-5; 1e-3 in float16, "
                   "1e-2 in bfloat16)")
    p.add_argument("--provider", default="cpu", metavar="LIST",
                   help="onnxruntime execution providers in order of preference, as run's (default cpu)")
    p.add_argument("--opset", type=opset, help="ONNX opset of the lowering (default 18)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler=run)


def run(args, out) -> int:
    import graphcell as ms
    ms.set_seed(args.seed)
    specs = loader.parse_inputs(args.input_shape, args.input_dtype)   # first: loading a script runs it
    spec = loader.load_model(args.model, args.args)
    nets = loader.build_members(spec, args.checkpoint, inputs=specs)
    if len(nets) == 1:
        if args.in_axes != "none":
            raise UserError("--in-axes 0 applies to an ensemble: give two or more checkpoints")
        net, lead = nets[0], ()
    else:
        from ..nn import CellList
        per_member = args.in_axes == "0"
        net, lead = ms.vmap(CellList(nets), in_axes=0 if per_member else None), ((len(nets),) if per_member else ())
    inputs = loader.random_inputs(specs, args.batch_size, args.seed, lead)
    with warnings.catch_warnings(record=True) as caught:   # a provider fallback: a note, as run prints it
        warnings.simplefilter("always", RuntimeWarning)
        report = loader.traced_user_call(f"checking {args.model}", ms.check, net, *inputs,
                                         rtol=args.rtol, atol=args.atol, providers=_providers(args.provider),
                                         opset=args.opset)
    notes = [str(w.message) for w in caught if str(w.message).startswith("Session:")]
    for w in caught:
        if str(w.message) not in notes:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if args.json:
        first = report.first_divergence
        out.json({"ok": report.ok, "provider": report.provider, "notes": notes, "rtol": report.rtol,
                  "atol": report.atol, "outputs": report.outputs,
                  "first_divergence": None if first is None else {
                      "node": first["text"], "scope": first["scope"], "max_abs_diff": first["max_diff"],
                      **{k: first[k] for k in ("index", "onnx", "jax", "mismatched", "size") if k in first},
                      "operands": dict(first.get("operands", ()))}})
    else:
        for note in notes:
            out.line(f"note: {note}")
        out.line(f"{args.model}: eager vs XLA vs ONNX ({report.provider}) on random inputs "
                 f"{', '.join(str(list(t.shape)) for t in inputs)}")
        out.line(str(report))
        out.line("ok" if report.ok else "MISMATCH")
    return 0 if report.ok else 1


def _providers(text: str) -> list:
    from ..runtime.session import provider_name
    names = [p.strip() for p in text.split(",") if p.strip()]
    try:
        for name in names:
            provider_name(name)
    except ValueError as e:
        raise UserError(one_line(e)) from e
    return names
