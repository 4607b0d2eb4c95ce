"""MindSpore 2.10's checkpoint utilities at the top level: converting between ``.ckpt`` and
``.safetensors`` files, loading on a background thread, and joining sliced Parameters.

Conversion follows 2.10 as measured: ``x.ckpt`` becomes ``<save_path>/x.safetensors`` (next to
the input when ``save_path`` is None) with metadata ``{"format": "ms"}`` and no CRC, byte for
byte the file MindSpore writes; ``safetensors_to_ckpt`` writes the entries in name order (the
order a safetensors file keeps). A folder holds ``rank*`` folders, converted one by one into
``<save_path>/<rank folder>/``; ``file_name_regex`` (``re.search``) picks the files.
``name_map`` renames entries (``{old: new}``); ``processes_num`` is accepted (graphcell converts
in one process).
"""
from __future__ import annotations

import concurrent.futures
import os
import re

import numpy as np

from ..tensor import Parameter
from .ckpt_format import read_ckpt_file, read_safetensors_file, write_ckpt_file, write_safetensors_file
from .serialization import _safetensors_metadata, load_checkpoint


def _convert_file(api: str, src: str, out_dir: str, name_map, dst_suffix: str) -> None:
    if api == "ckpt_to_safetensors":
        entries = read_ckpt_file(src)
        strings = [name for name, value in entries.items() if isinstance(value, str)]
        if strings:
            raise TypeError(f"For 'ckpt_to_safetensors', safetensors stores tensors only, but the entries "
                            f"{strings} of {src} are strings.")
    else:
        tensors = read_safetensors_file(src)[0]
        entries = {name: tensors[name] for name in sorted(tensors)}
    if name_map:
        entries = {name_map.get(name, name): value for name, value in entries.items()}
    stem = os.path.splitext(os.path.basename(src))[0]
    dst = os.path.join(out_dir, stem + dst_suffix)
    if dst_suffix == ".safetensors":
        write_safetensors_file(dst, entries, _safetensors_metadata(entries, False, None))
    else:
        write_ckpt_file(dst, entries)


def _convert(api: str, file_path, save_path, name_map, file_name_regex, src_suffix: str, dst_suffix: str):
    if name_map is not None and not isinstance(name_map, dict):
        raise ValueError(f"For {api}, the type of 'name_map' must be a directory, but got '{type(name_map)}'")
    is_file = isinstance(file_path, (str, os.PathLike)) and os.path.isfile(file_path)
    if not (is_file and os.fspath(file_path).endswith(src_suffix)
            or isinstance(file_path, (str, os.PathLike)) and os.path.isdir(file_path)):
        raise ValueError(f"For {api}, the input path must be a valid path or file, but got {file_path}")
    file_path = os.fspath(file_path)
    if is_file:
        if file_name_regex is not None and not re.search(file_name_regex, os.path.basename(file_path)):
            raise ValueError(f"For {api}, the input file does not match the regular expression.")
        out_dir = os.path.dirname(file_path) if save_path is None else os.fspath(save_path)
        os.makedirs(out_dir or ".", exist_ok=True)
        _convert_file(api, file_path, out_dir, name_map, dst_suffix)
        return
    ranks = sorted(d for d in os.listdir(file_path)
                   if d.startswith("rank") and os.path.isdir(os.path.join(file_path, d)))
    if not ranks:
        raise ValueError(f"For '{api}', no directories starting with 'rank' found in {file_path}.")
    out_root = file_path if save_path is None else os.fspath(save_path)
    for rank in ranks:
        out_dir = os.path.join(out_root, rank)
        os.makedirs(out_dir, exist_ok=True)
        for name in sorted(os.listdir(os.path.join(file_path, rank))):
            if name.endswith(src_suffix) and (file_name_regex is None or re.search(file_name_regex, name)):
                _convert_file(api, os.path.join(file_path, rank, name), out_dir, name_map, dst_suffix)


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1) -> None:
    """Converts a ``.ckpt`` file (or a folder of ``rank*`` folders of them) to ``.safetensors``."""
    _convert("ckpt_to_safetensors", file_path, save_path, name_map, file_name_regex, ".ckpt", ".safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1) -> None:
    """Converts a ``.safetensors`` file (or a folder of ``rank*`` folders of them) to ``.ckpt``."""
    _convert("safetensors_to_ckpt", file_path, save_path, name_map, file_name_regex, ".safetensors", ".ckpt")


_LOADER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="load_checkpoint_async")


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                          dec_mode="AES-GCM", specify_prefix=None, choice_func=None) -> concurrent.futures.Future:
    """`load_checkpoint` on a background thread; `.result()` returns its dict (or raises its error)."""
    return _LOADER.submit(load_checkpoint, ckpt_file_name, net, strict_load, filter_prefix, dec_key, dec_mode,
                          specify_prefix, choice_func)


def merge_sliced_parameter(sliced_parameters, strategy=None) -> Parameter:
    """Joins Parameters sliced along axis 0 (same name, same shape past axis 0) into one.
    A parallel `strategy` (other slicings) belongs to MindSpore's distributed training."""
    api = "For 'merge_sliced_parameter',"
    if not isinstance(sliced_parameters, list):
        raise TypeError(f"{api} the argument 'sliced_parameters' should be list, but got {type(sliced_parameters)}.")
    if not sliced_parameters:
        raise ValueError(f"{api} the argument 'sliced_parameters' should not be empty.")
    if strategy is not None:
        raise NotImplementedError(f"{api} graphcell joins slices along axis 0 only; 'strategy' (a parallel "
                                  "layout) is not supported.")
    for i, p in enumerate(sliced_parameters):
        if not isinstance(p, Parameter):
            raise TypeError(f"{api} the element in 'sliced_parameters' should be 'Parameter', but got {type(p)} "
                            f"at index {i}.")
    first = sliced_parameters[0]
    expected = (first.name, len(first.shape), tuple(first.shape[1:]))
    for i, p in enumerate(sliced_parameters[1:], 1):
        got = (p.name, len(p.shape), tuple(p.shape[1:]))
        if got != expected:
            raise ValueError(f"{api} please make sure that the elements in 'slice_parameters' have the same name, "
                             f"dimension length and shape except 0 axis. The name, dimension length, shape except "
                             f"0 axis should be {expected[0]}, {expected[1]}, {expected[2]}, but got name: {got[0]}, "
                             f"dimension length: {got[1]}, shape except 0 axis: {got[2]} at index {i}.")
    merged = np.concatenate([p.asnumpy() for p in sliced_parameters])
    return Parameter(merged, name=first.name, requires_grad=first.requires_grad)


_NO_OBFUSCATION = ("weight obfuscation (MindSpore's obfuscate_ckpt / load_obf_params_into_net) is not built in "
                   "graphcell; obfuscate or de-obfuscate the checkpoint with MindSpore.")


def obfuscate_ckpt(network, ckpt_files, target_modules=None, obf_config=None, saved_path="./", obfuscate_scale=100):
    """Not built: refuses with a clear error rather than writing a checkpoint that is not obfuscated."""
    raise NotImplementedError(f"For 'obfuscate_ckpt', {_NO_OBFUSCATION}")


def load_obf_params_into_net(network, target_modules=None, obf_ratios=None, obf_config=None, data_parallel_num=1,
                             **kwargs):
    """Not built: refuses with a clear error rather than leaving the network unobfuscated."""
    raise NotImplementedError(f"For 'load_obf_params_into_net', {_NO_OBFUSCATION}")
