"""`graphcell demo`: the main job (see graphcell/demo.py)."""
from __future__ import annotations

from .errors import positive_int, seed


def add_parser(sub, common):
    text = ("train an 8-member LeNet5 ensemble on the digits in one vmapped loop, export it to ONNX, serve it "
            "with onnxruntime")
    p = sub.add_parser("demo", parents=[common], help=text, description=f"`graphcell demo`: {text}.")
    p.add_argument("--members", type=int, default=8, help="ensemble size, at least 2 (default 8)")
    p.add_argument("--epochs", type=positive_int, default=None,
                   help="training epochs (default: the demo's tuned value)")
    p.add_argument("--seed", type=seed, default=None, help="seed of initialisers and data order (0 to 4294967295)")
    p.add_argument("-o", "--out-dir", default=None, help="folder for ensemble.onnx (default: a temporary one)")
    p.add_argument("--json", action="store_true", help="print the results as JSON at the end")
    p.set_defaults(handler=run)


def run(args, out) -> int:
    from ..demo import run as run_demo
    from .errors import UserError
    if args.members < 2:
        raise UserError(f"--members must be at least 2 for an ensemble, got {args.members}")
    options = {k: v for k, v in (("epochs", args.epochs), ("seed", args.seed)) if v is not None}
    result = run_demo(members=args.members, out_dir=args.out_dir, reporter=out, **options)
    if args.json:
        out.json({k: v for k, v in result.items()})
    return 0
