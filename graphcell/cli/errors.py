"""User errors of the `graphcell` command: one line on stderr and exit status 2."""
import argparse
import os
import tempfile


class UserError(Exception):
    """A mistake in what the user asked for (a missing file, an unknown name, a bad shape).
    `main` prints its message as one line and exits with status 2 (`--debug`: the traceback)."""


def missing(path: str) -> str:
    """Why `path` cannot be read as a file: "does not exist", or what it is instead."""
    if os.path.isdir(path):
        return "is a folder, not a file"
    return "is not a regular file" if os.path.exists(path) else "does not exist"


def check_output_folder(path: str) -> None:
    """`-o PATH` must go into an existing folder we may write in (checked before any work)."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        what = f"{folder} is not a folder" if os.path.exists(folder) else f"folder {folder} does not exist"
        raise UserError(f"-o {path}: {what}")
    try:   # a read-only folder (or file system) fails here, not after the work, as an internal error
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        raise UserError(f"-o {path}: cannot write in {folder}: {e.strerror or e}") from e


def tolerance(text: str) -> float:
    """An argparse type: a float >= 0 (a negative tolerance fails every comparison)."""
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return value


def seed(text: str) -> int:
    """An argparse type: a seed in [0, 2**32 - 1], the range set_seed (numpy's seed) takes."""
    value = _int(text)
    if not 0 <= value < 2 ** 32:
        raise argparse.ArgumentTypeError(f"must be an integer in [0, 4294967295], got {text}")
    return value


def opset(text: str) -> int:
    """An argparse type: an ONNX opset export writes (checked before the model is traced)."""
    from ..compiler.onnx import MIN_OPSET, max_opset
    value = _int(text)
    if not MIN_OPSET <= value <= max_opset():
        raise argparse.ArgumentTypeError(f"must be in [{MIN_OPSET}, {max_opset()}] (the newest the installed "
                                         f"onnx knows), got {text}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: an int >= 1 (a batch of 0 is refused, as a 0 in --input-shape is)."""
    value = _int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None


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
