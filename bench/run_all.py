"""Runs every benchmark script in one go and writes their tables to bench/RESULTS.md.

    make bench                      # or: .venv/bin/python bench/run_all.py [--quick]

Each script prints medians and ratios against peers measured in the same run; this file adds
the machine's float32 matmul rate (the physical reference) and its load average, because the
machine is shared and single numbers are noisy.
"""
from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = [  # (script, arguments for --quick)
    ("bench_jit.py", []),
    ("bench_vmap.py", ["--quick"]),
    ("bench_onnx.py", ["--quick"]),
    ("bench_train.py", ["--quick"]),
    ("bench_rnn.py", ["--quick"]),
    ("bench_while_grad.py", ["--quick"]),
    ("bench_distributed.py", []),
    ("bench_models.py", ["--quick"]),
    ("bench_overhead.py", ["--quick"]),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smaller configurations only")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from common import matmul_gflops
    sections = [f"# Benchmark results\n\nWritten by `bench/run_all.py` on {datetime.date.today()}, "
                f"{os.cpu_count()} CPU cores, load average {os.getloadavg()[0]:.2f} at the start; "
                f"float32 matmul (1024^3, XLA): {matmul_gflops():.1f} GFLOP/s.\n"]
    for script, quick_args in SCRIPTS:
        command = [sys.executable, str(HERE / script), *(quick_args if args.quick else [])]
        print(f"== {script}", flush=True)
        proc = subprocess.run(command, capture_output=True, text=True, cwd=HERE.parent)
        print(proc.stdout, flush=True)
        body = proc.stdout.strip() if proc.returncode == 0 else f"FAILED ({proc.returncode}):\n{proc.stderr[-2000:]}"
        sections.append(f"## {script}\n\n```\n{body}\n```\n")
    (HERE / "RESULTS.md").write_text("\n".join(sections))
    print(f"wrote {HERE / 'RESULTS.md'}")


if __name__ == "__main__":
    main()
