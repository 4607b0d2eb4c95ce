"""User errors of the `graphcell` command: one line on stderr and exit status 2."""
import argparse
import os


class UserError(Exception):
    """A mistake in what the user asked for (a missing file, an unknown name, a bad shape).
    `main` prints its message as one line and exits with status 2 (`--debug`: the traceback)."""


def check_output_folder(path: str) -> None:
    """`-o PATH` must go into an existing folder (checked before any work is done)."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(f"-o {path}: folder {folder} does not exist")


def tolerance(text: str) -> float:
    """An argparse type: a float >= 0 (a negative tolerance fails every comparison)."""
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


def one_line(error: BaseException) -> str:
    """An exception's message on one line: its lines joined with '; ' (list bullets dropped)."""
    text = ""
    for part in str(error).splitlines():
        part = part.strip()
        if part.startswith("- "):
            part = part[2:]
        if part:
            text += part if not text else (" " if text.endswith(":") else "; ") + part
    return text or type(error).__name__
