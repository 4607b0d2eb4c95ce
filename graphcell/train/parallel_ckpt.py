"""MindSpore 2.10's parallel-checkpoint utilities, on one host.

`load_segmented_checkpoints` joins the checkpoints of one folder (pipeline stages saved apart,
say) into one dict. `unified_safetensors` merges the per-rank safetensors of a data-parallel run
(`src_dir/rank_N/*.safetensors`, every parameter whole on the rank that holds it) when it is
given no strategy file; a strategy file describes sliced parameters, which needs MindSpore's
distributed layouts (refused, as `build_searched_strategy` is). `transform_checkpoints`,
`transform_checkpoint_by_rank` and `get_ckpt_path_with_strategy` exist only to re-slice between
parallel strategies, and refuse.
"""
from __future__ import annotations

import glob
import json
import os

import numpy as np

_ONE_DEVICE = ("graphcell trains on one device, and its checkpoints hold every parameter whole: load one with "
               "load_checkpoint + load_param_into_net (several per-rank safetensors of replicated parameters: "
               "unified_safetensors(src_dir, None, dst_dir))")


def load_segmented_checkpoints(ckpt_file_dir, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                               dec_mode="AES-GCM", specify_prefix=None, choice_func=None):
    """Every `.ckpt` file in `ckpt_file_dir` (not its sub-folders), in name order, read with
    `load_checkpoint`'s filters, into one {name: Parameter} (a name in two files: the later
    file's); loaded into `net` too when given. Returns the dict."""
    from .serialization import load_checkpoint, load_param_into_net
    if not isinstance(ckpt_file_dir, str):   # 2.10's messages (measured), its wording included
        raise TypeError("The ckpt_file_dir should be a str.")
    if not os.path.isdir(ckpt_file_dir):
        raise ValueError(f"The dst_strategy_file: {ckpt_file_dir} doesn't exist. Or it's not a directory")
    params = {}
    for path in sorted(glob.glob(os.path.join(glob.escape(ckpt_file_dir), "*.ckpt"))):
        params.update(load_checkpoint(path, filter_prefix=filter_prefix, dec_key=dec_key, dec_mode=dec_mode,
                                      specify_prefix=specify_prefix, choice_func=choice_func))
    if net is not None:
        load_param_into_net(net, params, strict_load=strict_load)
    return params


def _rank_files(src_dir: str, file_suffix) -> dict[int, str]:
    """{rank: its safetensors file} from `src_dir/rank_N/`; one file per rank."""
    pattern = f"*{file_suffix}.safetensors" if file_suffix is not None else "*.safetensors"
    files = {}
    for folder in glob.glob(os.path.join(glob.escape(src_dir), "rank_*")):
        rank = os.path.basename(folder)[len("rank_"):]
        if not (os.path.isdir(folder) and rank.isdigit()):
            continue
        found = sorted(glob.glob(os.path.join(glob.escape(folder), pattern)))
        if len(found) > 1:
            raise ValueError(f"For 'unified_safetensors', {folder} holds several safetensors files {found}: pass "
                             "file_suffix to choose one per rank.")
        if not found and file_suffix is not None:
            raise ValueError(f"No safetensors files found in directory '{folder}' with suffix '{file_suffix}'.")
        if found:
            files[int(rank)] = found[0]
    if not files:
        raise ValueError(f"For 'unified_safetensors', no safetensors files in '{src_dir}/rank_<N>/'.")
    return dict(sorted(files.items()))


def unified_safetensors(src_dir, src_strategy_file, dst_dir, merge_with_redundancy=True, file_suffix=None,
                        max_process_num=64, choice_func=None, split_dst_file=()):
    """Merges the per-rank safetensors under `src_dir/rank_N/` into `dst_dir/part0.safetensors`,
    with `param_name_map.json` ({name: file}) beside it, as 2.10 names its output. Without a
    strategy file (`src_strategy_file=None`; 2.10 fails there) every parameter is taken whole:
    one held by several ranks must be equal on all of them (replicated), and ranks that saved
    without redundancy contribute the parameters they hold. `choice_func(name)` keeps (True), drops
    (False) or renames (a str) a parameter. `max_process_num` and `split_dst_file` are accepted."""
    from .distributed_ckpt import build_searched_strategy
    from .serialization import load_checkpoint, save_checkpoint
    if src_strategy_file is not None:
        build_searched_strategy(src_strategy_file)   # 2.10's check of the file, then the refusal
    if not isinstance(src_dir, str) or not isinstance(dst_dir, str):
        raise TypeError("For 'unified_safetensors', 'src_dir' and 'dst_dir' must be str.")
    if os.path.isfile(src_dir):
        raise ValueError("For 'unified_safetensors', the 'src_dir' can not be a file.")   # 2.10's
    merged, origin = {}, {}
    for rank, path in _rank_files(src_dir, file_suffix).items():
        for name, param in load_checkpoint(path, format="safetensors").items():
            if choice_func is not None:
                choice = choice_func(name)
                if not isinstance(choice, (bool, str)):
                    raise TypeError(f"For 'unified_safetensors', choice_func must return a bool or a str, but got "
                                    f"{type(choice).__name__} for {name!r}.")
                if choice is False:
                    continue
                if isinstance(choice, str):
                    name = choice
            value = param.asnumpy() if hasattr(param, "asnumpy") else param
            if name in merged:
                if not (np.shape(merged[name]) == np.shape(value) and np.array_equal(merged[name], value)):
                    raise ValueError(f"For 'unified_safetensors', parameter {name!r} differs between rank "
                                     f"{origin[name]} and rank {rank}: it is sliced or not replicated, and merging "
                                     "slices needs the parallel strategy file of MindSpore's distributed training, "
                                     "which graphcell does not read.")
                continue
            merged[name], origin[name] = value, rank
    os.makedirs(dst_dir, exist_ok=True)
    from ..tensor import Tensor
    part = "part0.safetensors"
    save_checkpoint([{"name": n, "data": v if isinstance(v, str) else Tensor(v)} for n, v in merged.items()],
                    os.path.join(dst_dir, part), format="safetensors")
    with open(os.path.join(dst_dir, "param_name_map.json"), "w") as f:
        json.dump({n: part for n in merged}, f, indent=2)


def transform_checkpoints(src_checkpoints_dir, dst_checkpoints_dir, ckpt_prefix, src_strategy_file=None,
                          dst_strategy_file=None, process_num=1, output_format="ckpt"):
    raise NotImplementedError("transform_checkpoints re-slices the per-rank checkpoints of MindSpore's distributed "
                              "training from one parallel strategy to another; " + _ONE_DEVICE + ".")


def transform_checkpoint_by_rank(rank_id, checkpoint_files_map, save_checkpoint_file_name, src_strategy_file=None,
                                 dst_strategy_file=None):
    raise NotImplementedError("transform_checkpoint_by_rank re-slices one rank's checkpoint between the parallel "
                              "strategies of MindSpore's distributed training; " + _ONE_DEVICE + ".")


def get_ckpt_path_with_strategy(cur_ckpt_path, cur_strategy_path):
    raise NotImplementedError("get_ckpt_path_with_strategy finds, by the parallel strategy file of MindSpore's "
                              "distributed training, another rank's checkpoint that holds this rank's slices; "
                              + _ONE_DEVICE + ".")

