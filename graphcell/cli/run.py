"""`graphcell run MODEL.onnx --input x.npy`: run an ONNX file in onnxruntime, report the
provider used and the latency (median of `--repeat` runs)."""
from __future__ import annotations

import os
import time
import warnings

import numpy as np

from .errors import UserError, check_output_folder, missing, one_line, positive_int


def add_parser(sub, common):
    p = sub.add_parser("run", parents=[common], help="run an ONNX file in onnxruntime and time it",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("onnx_file", metavar="MODEL.onnx")
    p.add_argument("--input", action="append", required=True, metavar="[NAME=]FILE",
                   help="an input as .npy (in model order, or NAME=file.npy), or one .npz of named inputs")
    p.add_argument("--provider", default="cpu", metavar="LIST",
                   help="execution providers in order of preference, e.g. cuda,cpu (default cpu)")
    p.add_argument("-o", "--output", metavar="FILE", help="save the output (.npy; .npz for several outputs)")
    p.add_argument("--repeat", type=positive_int, default=10, metavar="K", help="timed runs (default 10)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(handler=run)


def _read_inputs(items: list[str]) -> tuple[list, dict]:
    positional, named = [], {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep:
            name, path = None, item
        if not os.path.isfile(path):
            raise UserError(f"input file {path} {missing(path)}")
        try:
            data = np.load(path, allow_pickle=False)
            if isinstance(data, np.lib.npyio.NpzFile):  # members load lazily: read them here
                data = {k: data[k] for k in data.files}
        except Exception as e:
            raise UserError(f"cannot read {path} as .npy/.npz: {one_line(e)}") from e
        if isinstance(data, dict):
            named.update(data)
        elif name:
            named[name] = data
        else:
            positional.append(data)
    return positional, named


def run(args, out) -> int:
    from ..runtime import Session, SessionInputError
    if not os.path.isfile(args.onnx_file):
        raise UserError(f"ONNX file {args.onnx_file} {missing(args.onnx_file)}")
    if args.output:
        check_output_folder(args.output)
    providers = [p.strip() for p in args.provider.split(",") if p.strip()]
    notes = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            session = Session(args.onnx_file, providers=providers)
        notes = [str(w.message) for w in caught]
    except ValueError as e:   # an unknown provider name
        raise UserError(one_line(e)) from e
    except Exception as e:
        raise UserError(f"onnxruntime cannot load {args.onnx_file}: {one_line(e)}") from e
    positional, named = _read_inputs(args.input)
    try:
        outputs = session.run(*positional, **named)     # warm-up, and the result
    except SessionInputError as e:
        raise UserError(one_line(e)) from e
    if args.output and len(outputs) > 1 and not args.output.endswith(".npz"):   # before the timed runs
        raise UserError(f"the model has {len(outputs)} outputs ({', '.join(session.outputs)}): save them "
                        "with -o FILE.npz")
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        session.run(*positional, **named)
        times.append(time.perf_counter() - t0)
    if args.output:
        saved = _save(args.output, session.outputs, outputs)
    report = {"file": args.onnx_file, "provider": session.provider, "notes": notes,
              "outputs": [{"name": n, "shape": list(o.shape), "dtype": o.dtype.name}
                          for n, o in zip(session.outputs, outputs)],
              "repeat": args.repeat, "median_ms": float(np.median(times) * 1e3),
              "min_ms": float(np.min(times) * 1e3), "saved": args.output}
    if args.json:
        out.json(report)
        return 0
    for note in notes:
        out.line(f"note: {note}")
    out.line(f"provider: {session.provider}")
    for o in report["outputs"]:
        out.line(f"output {o['name']}: {o['dtype']}{o['shape']}")
    out.line(f"latency: median {report['median_ms']:.3f} ms, min {report['min_ms']:.3f} ms over {args.repeat} runs")
    if args.output:
        out.line(f"saved {saved}")
    return 0


def _save(path: str, names: list, outputs: list) -> str:
    """Writes the outputs; returns the file written (numpy adds .npy)."""
    if path.endswith(".npz"):
        np.savez(path, **dict(zip(names, outputs)))
        return path
    if len(outputs) == 1:
        path = path if path.endswith(".npy") else path + ".npy"
        np.save(path, outputs[0])
        return path
    else:
        raise UserError(f"the model has {len(outputs)} outputs ({', '.join(names)}): save them with -o FILE.npz")
