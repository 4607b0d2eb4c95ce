"""Argument checks shared by the file-reading datasets, with MindSpore 2.10's messages (measured)."""
from __future__ import annotations

import os

USAGES = ("train", "test", "all")


def check_folder(name: str, dataset_dir) -> str:
    if not isinstance(dataset_dir, (str, os.PathLike)):
        raise TypeError(f"{name}: Argument dataset_dir with value {dataset_dir!r} is not of type [<class 'str'>], "
                        f"but got {type(dataset_dir)}.")
    dataset_dir = os.fspath(dataset_dir)
    if not os.path.isdir(dataset_dir) or not os.access(dataset_dir, os.R_OK):
        raise ValueError(f"{name}: The folder {dataset_dir} does not exist or is not a directory or permission denied!")
    return dataset_dir


def check_usage(name: str, usage, valid: tuple = USAGES, default: str = "all", arg: str = "usage") -> str:
    """`usage` (or another choice argument, `arg`) checked against `valid` with 2.10's messages;
    None means `default` ("all" for most readers, as in MindSpore)."""
    if usage is None:
        return default
    if not isinstance(usage, str):
        raise TypeError(f"{name}: Argument {arg} with value {usage!r} is not of type [<class 'str'>], "
                        f"but got {type(usage)}.")
    if usage not in valid:
        raise ValueError(f"{name}: Input {arg} is not within the valid set of {list(valid)}.")
    return usage


def check_bool(name: str, arg: str, value) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name}: Argument {arg} with value {value!r} is not of type [<class 'bool'>], "
                        f"but got {type(value)}.")
    return value


def default_workers() -> int:
    """config.get_num_parallel_workers(): by default 8, or fewer CPUs (measured 2 on a 2-CPU machine)."""
    from . import config
    return config.get_num_parallel_workers()


def check_file(name: str, path) -> str:
    if not os.path.isfile(path) or not os.access(path, os.R_OK):
        raise ValueError(f"{name}: The file {path} does not exist or permission denied!")
    return os.fspath(path)


def check_type(name: str, arg: str, value, kind: type):
    """MindSpore's type message for `arg`: str, dict, list, ..."""
    if not isinstance(value, kind):
        raise TypeError(f"{name}: Argument {arg} with value {value!r} is not of type [{kind}], "
                        f"but got {type(value)}.")
    return value


def check_workers(name: str, num_parallel_workers) -> int:
    """None -> the configured default; otherwise 1..CPUs, with 2.10's message (measured)."""
    if num_parallel_workers is None:
        return default_workers()
    cpus = os.cpu_count() or 1
    if isinstance(num_parallel_workers, bool) or not isinstance(num_parallel_workers, int):
        check_type(name, "num_parallel_workers", num_parallel_workers, int)
    if not 1 <= num_parallel_workers <= cpus:
        raise ValueError(f"{name}: num_parallel_workers exceeds the boundary between 1 and {cpus}!")
    return num_parallel_workers


def check_class_indexing(name: str, class_indexing) -> dict:
    check_type(name, "class_indexing", class_indexing, dict)
    for key, value in class_indexing.items():
        if not isinstance(key, str) or isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name}: class_indexing maps class names (str) to labels (int), got {key!r}: {value!r}")
    return class_indexing
