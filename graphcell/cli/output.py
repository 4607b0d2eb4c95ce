"""How the `graphcell` command prints: rich tables and progress bars in a terminal, plain
aligned text otherwise (pipes, files, tests), and JSON on request."""
from __future__ import annotations

import json
import math
import sys


class Reporter:
    """Prints lines, tables and progress to stdout. `rich=None` decides by `isatty()`."""

    def __init__(self, rich: bool | None = None, stream=None):
        self.stream = stream or sys.stdout
        self.rich = self.stream.isatty() if rich is None else rich
        if self.rich:
            from rich.console import Console
            self.console = Console(file=self.stream)

    def line(self, text: str = "") -> None:
        if self.rich:
            self.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.stream, flush=True)

    def json(self, data) -> None:
        # NaN and Infinity are not JSON (jq and JSON.parse reject them): they print as strings
        print(json.dumps(_strict(data), indent=1, default=_jsonable, allow_nan=False), file=self.stream,
              flush=True)

    def table(self, title: str, columns: list[str], rows: list[list]) -> None:
        """Left-aligned first column, right-aligned numbers; plain text when not a terminal."""
        if self.rich:
            from rich.table import Table
            t = Table(title=title, title_justify="left")
            for i, c in enumerate(columns):
                t.add_column(c, justify="left" if i == 0 else "right")
            for r in rows:
                t.add_row(*[str(v) for v in r])
            self.console.print(t)
            return
        print(format_table(title, columns, rows), file=self.stream, flush=True)

    def progress(self, total: int, description: str):
        """A context manager with `advance(n=1, status="")`: a rich bar in a terminal, else a
        line every tenth of the way."""
        return _RichProgress(self, total, description) if self.rich else _PlainProgress(self, total, description)


def format_table(title: str, columns: list[str], rows: list[list]) -> str:
    cells = [[str(c) for c in columns]] + [[str(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]

    def fmt(r):
        return "  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths))).rstrip()
    lines = ([title] if title else []) + [fmt(cells[0])] + [fmt(r) for r in cells[1:]]
    return "\n".join(lines)


class _RichProgress:
    def __init__(self, reporter, total, description):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[status]}"), TimeElapsedColumn(), console=reporter.console)
        self.task = self.bar.add_task(description, total=total, status="")

    def __enter__(self):
        self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        return self.bar.__exit__(*exc)

    def advance(self, n: int = 1, status: str | None = None):
        kwargs = {} if status is None else {"status": status}
        self.bar.update(self.task, advance=n, **kwargs)


class _PlainProgress:
    def __init__(self, reporter, total, description):
        self.reporter, self.total, self.description = reporter, total, description
        self.done, self.status, self.next_report = 0, "", max(1, total // 10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def advance(self, n: int = 1, status: str | None = None):
        self.done += n
        self.status = self.status if status is None else status
        if self.done >= self.next_report or self.done == self.total:
            self.reporter.line(f"{self.description}: {self.done}/{self.total} {self.status}".rstrip())
            self.next_report = self.done + max(1, self.total // 10)


def _strict(value):
    """`value` with every non-finite float as the string "nan", "inf" or "-inf"."""
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


def _jsonable(value):
    import numpy as np
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def human_count(n: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.2f}{unit}"
    return str(int(n))
