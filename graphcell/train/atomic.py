"""Crash-safe file replacement.

A checkpoint that is half-written when the process dies (or when the disk fills up) is worse than no
checkpoint: the previous good one is gone and the new one cannot be loaded. So every writer here follows
the usual POSIX recipe:

1. write the new contents to a temporary file *in the same directory* (so the final rename cannot cross
   file systems),
2. flush and ``fsync`` it (so the data is on disk before the name points at it),
3. ``os.replace`` it over the target (atomic on POSIX and Windows),
4. ``fsync`` the directory (so the rename itself survives a power cut).

If anything fails before step 3, the temporary file is deleted and the file at ``path`` is untouched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from typing import IO

__all__ = ["atomic_write", "atomic_open", "check_folder"]

_WRITE_MODES = ("wb", "w", "wt")


def atomic_write(path: str | os.PathLike, data: bytes) -> None:
    """Replace the file at ``path`` with ``data`` atomically (all or nothing)."""
    with atomic_open(path, "wb") as f:
        f.write(data)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "wb", encoding: str | None = None) -> Iterator[IO]:
    """Open a temporary file that replaces ``path`` when the ``with`` block ends without an exception.

    ``mode`` is ``"wb"`` (default) or ``"w"``/``"wt"`` (text; ``encoding`` defaults to UTF-8). If the block
    raises (including ``KeyboardInterrupt``), the temporary file is removed, the exception propagates and the
    previous file at ``path`` is left byte-for-byte intact. A replaced file keeps its permission bits.
    """
    if mode not in _WRITE_MODES:
        raise ValueError(f"atomic_open: mode must be one of {_WRITE_MODES}, got {mode!r}")
    target = os.path.abspath(os.fspath(path))
    directory = os.path.dirname(target)
    check_folder(target)
    try:
        fd, tmp_path = _create_temp(directory, os.path.basename(target))
    except OSError as e:   # numpy's or the OS's words would name the hidden temporary file
        raise type(e)(e.errno, f"cannot write {target}: {e.strerror} in folder {directory}") from None
    try:
        f = _wrap_descriptor(fd, mode, encoding, target)
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_path, target)
    except BaseException:
        _remove_quietly(tmp_path)
        raise
    _fsync_directory(directory)


def check_folder(path: str | os.PathLike, who: str = "") -> None:
    """Raises the OSError a write to ``path`` would meet because its folder is missing, or is a
    file, naming ``path`` itself (the atomic write's own error would name its temporary file)."""
    target = os.path.abspath(os.fspath(path))
    folder = os.path.dirname(target)
    if os.path.isdir(folder):
        return
    existing = folder
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise NotADirectoryError(errno.ENOTDIR, f"{who}cannot write {os.fspath(path)}: {existing} is a file, "
                                                f"not a folder")
    raise FileNotFoundError(errno.ENOENT, f"{who}cannot write {os.fspath(path)}: folder {folder} does not "
                                          f"exist; create it first (os.makedirs)")


def _create_temp(directory: str, base: str) -> tuple[int, str]:
    """Create a new, empty, uniquely named hidden file next to the target.

    ``os.open(..., 0o666)`` rather than ``tempfile.mkstemp`` so that a brand-new file gets the usual
    umask-derived permissions instead of mkstemp's private 0600.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp_path = os.path.join(directory, f".{base}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp_path, flags, 0o666), tmp_path
        except FileExistsError:  # astronomically unlikely name clash: pick another name
            continue


def _wrap_descriptor(fd: int, mode: str, encoding: str | None, target: str) -> IO:
    """Turn the raw descriptor into a file object; close it ourselves if that fails (nobody else will)."""
    try:
        _copy_mode(target, fd)
        if "b" in mode:
            return os.fdopen(fd, "wb")
        return os.fdopen(fd, "w", encoding=encoding or "utf-8", newline="")
    except BaseException:
        os.close(fd)
        raise


def _copy_mode(target: str, fd: int) -> None:
    """Give the temp file the permission bits of the file it will replace, if there is one."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return
    if hasattr(os, "fchmod"):
        # The descriptor is already open for writing, so even a read-only mode (MindSpore marks the
        # checkpoints it saves 0400) can be copied now without blocking our own writes.
        os.fchmod(fd, mode)


def _remove_quietly(path: str) -> None:
    """Delete ``path`` if it exists; used on the error path, where the original exception matters more."""
    try:
        os.unlink(path)
    except OSError:
        pass


def _fsync_directory(directory: str) -> None:
    """Make the rename durable. Not possible on Windows (no directory handles), where it is skipped."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
