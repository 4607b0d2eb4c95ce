"""MindSpore 2.10's distributed-checkpoint loaders on one device.

`build_searched_strategy` reads the strategy file 2.10's auto-parallel training writes; graphcell
trains on one device and has no such layouts, so it refuses. `load_distributed_checkpoint` is
meaningful here when nothing is sliced: one whole checkpoint and no strategies, which it loads
like `load_checkpoint` + `load_param_into_net`; sliced ones need the strategies and are refused.
"""
from __future__ import annotations

import os


def build_searched_strategy(strategy_filename):
    if not isinstance(strategy_filename, str) or not os.path.isfile(strategy_filename):   # 2.10's words
        raise ValueError(f"For 'build_searched_strategy', no such strategy file: {strategy_filename}. Please "
                         "check whether the 'strategy_filename' exists.")
    raise NotImplementedError("build_searched_strategy reads the parallel strategy of MindSpore's distributed "
                              "(auto-parallel) training; graphcell trains on one device and has no such layouts.")


def load_distributed_checkpoint(network, checkpoint_filenames=None, predict_strategy=None,
                                train_strategy_filename=None, strict_load=False, dec_key=None, dec_mode="AES-GCM",
                                format="ckpt", unified_safetensors_dir=None, dst_safetensors_dir=None, rank_id=None,
                                output_format="safetensors", name_map=None, max_process_num=64,
                                return_param_dict=False):
    from .serialization import load_checkpoint, load_param_into_net
    files = checkpoint_filenames
    if not isinstance(files, (list, tuple)) or not files:
        raise TypeError(f"For 'load_distributed_checkpoint', 'checkpoint_filenames' must be a non-empty list, "
                        f"but got {files!r}.")
    for i, name in enumerate(files):
        if not (isinstance(name, str) and name.endswith("." + format) and os.path.isfile(name)
                and os.path.getsize(name) > 0):   # 2.10's words
            raise ValueError(f"For 'load_distributed_checkpoint', please check 'checkpoint_filenames', and make sure "
                             f"the {name} at index {i} is a valid checkpoint file, it must be a string ending with "
                             f"'.{format}', and the checkpoint file it represents must be exist and not empty.")
    if len(files) != 1 or predict_strategy is not None or train_strategy_filename is not None:
        raise NotImplementedError("load_distributed_checkpoint: joining checkpoint slices by a parallel strategy "
                                  "belongs to MindSpore's distributed training; graphcell loads one whole "
                                  "checkpoint (one file, no strategies).")
    params = load_checkpoint(files[0], dec_key=dec_key, dec_mode=dec_mode, format=format)
    if return_param_dict:
        return params
    load_param_into_net(network, params, strict_load=strict_load)
    return None
