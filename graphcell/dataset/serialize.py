"""mindspore.dataset.serialize / deserialize / show / compare: a pipeline as MindSpore 2.10's
JSON layout (measured by serialising pipelines under 2.10) and back.

Each node is a dict with sorted keys, its inputs under "children" and its kind under "op_type";
sources and dataset ops also carry "num_parallel_workers" and "connector_queue_size" (16).
Map operations are {"tensor_op_name", "tensor_op_params"} for the vision/transforms classes
known here; a Python callable becomes {"python_module", "tensor_op_name"} and, as in 2.10,
cannot be rebuilt. Nodes are written from the arguments the user gave (Dataset._arguments), so
a rebuilt pipeline reads the same rows (except Multi30kDataset's, whose usage 2.10 does not record).
The audio and text corpus readers are rebuilt too, where 2.10's deserialize rebuilds only
LJSpeechDataset of them (measured). Nothing is pickled: the JSON is the whole record."""
from __future__ import annotations

import inspect
import json
import logging
import os
import tempfile

import numpy as np

from ._checks import default_workers
from .engine import (BatchDataset, Dataset, MapDataset, RepeatDataset, ShuffleDataset, SkipDataset,
                     TakeDataset)

__all__ = ["serialize", "deserialize", "show", "compare"]

_QUEUE = 16      # 2.10's connector_queue_size
_PYTHON_MODULE = "mindspore.dataset.transforms.py_transforms_util"
# MindSpore's C++ enums in the JSON (2.10 writes Inter.LINEAR as 0)
_INTER_CODE = {2: 0, 0: 1, 3: 2, 4: 3, 5: 4}
_BORDER_CODE = {"constant": 0, "edge": 1, "reflect": 2, "symmetric": 3}


def _f32(v) -> float:
    return float(np.float32(v))       # 2.10 stores float parameters as float32


def _arguments(node: Dataset) -> dict:
    """The node's constructor arguments by name, defaults filled in."""
    args, kwargs = getattr(node, "_arguments", ((), {}))
    bound = inspect.signature(type(node).__init__).bind(None, *args, **kwargs)
    bound.apply_defaults()
    return dict(list(bound.arguments.items())[1:])


def _names(value) -> list:
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def _workers(value) -> int:
    return int(value) if value else default_workers()


# -- sources --------------------------------------------------------------------------------------

def _sampler(kind: str, a: dict) -> dict:
    if a.get("sampler") is not None or a.get("num_shards") is not None:
        raise ValueError(f"serialize: {kind} with a sampler or shards has no JSON form here; give num_samples "
                         "and shuffle only")
    count = a.get("num_samples") or 0
    if a.get("shuffle") is False:
        return {"num_samples": count, "sampler_name": "SequentialSampler", "start_index": 0}
    return {"num_samples": count, "replacement": False, "reshuffle_each_epoch": True,
            "sampler_name": "RandomSampler", "shuffle_mode": 2}


def _shuffle_code(shuffle) -> int:
    from .text_files import Shuffle
    if shuffle is None or shuffle is True or shuffle is Shuffle.GLOBAL:
        return 2
    if shuffle is False or shuffle is Shuffle.FALSE:
        return 0
    if shuffle is Shuffle.FILES:
        return 1
    raise ValueError(f"serialize: shuffle={shuffle} has no JSON form in MindSpore 2.10's layout")


def _folder_source(kind: str):
    def write(node, a):
        out = {"dataset_dir": a["dataset_dir"], "sampler": _sampler(kind, a)}
        if kind == "ImageFolderDataset":
            out.update(class_indexing=dict(a["class_indexing"] or {}), decode=bool(a["decode"]),
                       extensions=list(a["extensions"] or []), recursive=False)
        else:
            out["usage"] = a["usage"] or "all"
        return out
    return write


def _shard_fields(a: dict) -> dict:
    """The sharding and shuffling fields of the file-reading sources (TextFile, CSV, the text corpora)."""
    return {"num_samples": a["num_samples"] or 0, "num_shards": a["num_shards"] or 1, "shard_id": a["shard_id"] or 0,
            "shuffle": _shuffle_code(a["shuffle"])}


def _file_source(kind: str):
    def write(node, a):
        files = a["dataset_files"]
        out = {"dataset_files": [files] if isinstance(files, str) else list(files), **_shard_fields(a)}
        if kind == "CSVDataset":
            out.update(column_names=list(a["column_names"] or []), field_delim=a["field_delim"])
        return out
    return write


def _field(value, default):
    value = default if value is None else value
    return list(value) if isinstance(value, tuple) else value


# Folder readers written with a sampler (audio) or with shard fields (text), plus the arguments 2.10
# records for each, with the value it writes for None (measured). 2.10 records no usage for Multi30k.
_SAMPLED_FIELDS = {"YesNoDataset": {}, "SpeechCommandsDataset": {"usage": "all"}, "LJSpeechDataset": {},
                   "LibriTTSDataset": {"usage": "all"}, "GTZANDataset": {"usage": "all"},
                   "CMUArcticDataset": {"name": "aew"},
                   "TedliumDataset": {"release": None, "usage": "all", "extensions": ".sph"}}
_SHARDED_FIELDS = {"CoNLL2000Dataset": {"usage": "all"}, "UDPOSDataset": {"usage": "all"},
                   "Multi30kDataset": {"language_pair": ("en", "de")},
                   "IWSLT2016Dataset": {"usage": "all", "language_pair": ("de", "en"), "valid_set": "tst2013",
                                        "test_set": "tst2014"},
                   "IWSLT2017Dataset": {"usage": "all", "language_pair": ("de", "en")}}
# 2.10's op_type where it is not the class name
_OP_TYPES = {"YesNoDataset": "YesNoNode", "GTZANDataset": "kGTZANNode", "CoNLL2000Dataset": "CoNLL2000Node",
             "UDPOSDataset": "UDPOSNode"}


def _reader_source(kind: str):
    def write(node, a):
        sampled = kind in _SAMPLED_FIELDS
        out = {"dataset_dir": a["dataset_dir"]}
        out.update({"sampler": _sampler(kind, a)} if sampled else _shard_fields(a))
        fields = _SAMPLED_FIELDS[kind] if sampled else _SHARDED_FIELDS[kind]
        out.update({name: _field(a[name], default) for name, default in fields.items()})
        return out
    return write


_SOURCES = {"MnistDataset": _folder_source("MnistDataset"), "Cifar10Dataset": _folder_source("Cifar10Dataset"),
            "ImageFolderDataset": _folder_source("ImageFolderDataset"), "CSVDataset": _file_source("CSVDataset"),
            "TextFileDataset": _file_source("TextFileDataset"),
            **{kind: _reader_source(kind) for kind in (*_SAMPLED_FIELDS, *_SHARDED_FIELDS)}}


# -- map operations -------------------------------------------------------------------------------

def _op_writers():
    from .transforms import transforms as T
    from .vision import decode as D
    from .vision import transforms as V

    def crop(op):
        pad = list(op.padding) if op.padding is not None else [0, 0, 0, 0]
        fill = list(op.fill_value) if isinstance(op.fill_value, (tuple, list)) else [op.fill_value] * 3
        border = getattr(op.padding_mode, "value", op.padding_mode)
        return {"fill_value": fill, "pad_if_needed": op.pad_if_needed, "padding": pad,
                "padding_mode": _BORDER_CODE[border], "size": list(op.size)}
    return {
        D.Decode: ("Decode", lambda op: {"device_target": "CPU", "rgb": True}),
        V.Resize: ("Resize", lambda op: {"device_target": "CPU", "interpolation": _INTER_CODE[int(op.interpolation)],
                                         "size": [op.size] if isinstance(op.size, int) else list(op.size)}),
        V.Rescale: ("Rescale", lambda op: {"rescale": _f32(op.rescale), "shift": _f32(op.shift)}),
        V.Normalize: ("Normalize", lambda op: {"device_target": "CPU", "is_hwc": op.is_hwc,
                                               "mean": [_f32(v) for v in op.mean], "std": [_f32(v) for v in op.std]}),
        V.HWC2CHW: ("HwcToChw", lambda op: None),
        T.TypeCast: ("TypeCast", lambda op: {"data_type": np.dtype(op.np_dtype).name}),
        V.RandomCrop: ("RandomCrop", crop),
        V.CenterCrop: ("CenterCrop", lambda op: {"size": list(op.size)}),
        V.RandomHorizontalFlip: ("RandomHorizontalFlip", lambda op: {"prob": _f32(op.prob)}),
        V.RandomVerticalFlip: ("RandomVerticalFlip", lambda op: {"prob": _f32(op.prob)}),
        T.OneHot: ("OneHot", lambda op: {"num_classes": op.num_classes, "smoothing_rate": _f32(op.smoothing_rate)}),
    }


def _op_readers():
    from .transforms import transforms as T
    from .vision import decode as D
    from .vision import transforms as V
    from .vision.utils import Border, Inter
    inter = {code: Inter(value) for value, code in _INTER_CODE.items()}
    border = {code: Border(value) for value, code in _BORDER_CODE.items()}

    def crop(p):
        return V.RandomCrop(tuple(p["size"]), tuple(p["padding"]) if any(p["padding"]) else None, p["pad_if_needed"],
                            tuple(p["fill_value"]), border[p["padding_mode"]])
    return {
        "Decode": lambda p: D.Decode(),
        "Resize": lambda p: V.Resize(p["size"][0] if len(p["size"]) == 1 else tuple(p["size"]),
                                     inter[p["interpolation"]]),
        "Rescale": lambda p: V.Rescale(p["rescale"], p["shift"]),
        "Normalize": lambda p: V.Normalize(p["mean"], p["std"], p["is_hwc"]),
        "HwcToChw": lambda p: V.HWC2CHW(),
        "TypeCast": lambda p: T.TypeCast(np.dtype(p["data_type"])),
        "RandomCrop": crop,
        "CenterCrop": lambda p: V.CenterCrop(tuple(p["size"])),
        "RandomHorizontalFlip": lambda p: V.RandomHorizontalFlip(p["prob"]),
        "RandomVerticalFlip": lambda p: V.RandomVerticalFlip(p["prob"]),
        "OneHot": lambda p: T.OneHot(p["num_classes"], p["smoothing_rate"]),
    }


def _write_op(op, writers) -> dict:
    for cls, (name, params) in writers.items():
        if type(op) is cls:
            return {"tensor_op_name": name, "tensor_op_params": params(op)}
    return {"python_module": _PYTHON_MODULE, "tensor_op_name": getattr(op, "__name__", type(op).__name__)}


# -- nodes ----------------------------------------------------------------------------------------

def _node(node: Dataset, writers) -> dict:
    from .combine import ConcatDataset, ProjectDataset, RenameDataset, ZipDataset
    from .mindrecord_dataset import MindDataset
    from .sources import GeneratorDataset
    children = [_node(c, writers) for c in node.children]
    a = _arguments(node)
    kind = type(node).__name__
    queue = {"connector_queue_size": _QUEUE, "num_parallel_workers": _workers(a.get("num_parallel_workers"))}
    if kind in _SOURCES:
        out = {"op_type": _OP_TYPES.get(kind, kind), **queue, **_SOURCES[kind](node, a)}
    elif isinstance(node, MindDataset):
        out = {"op_type": "MindDataDataset", **queue}         # 2.10 writes no file names for it
    elif isinstance(node, GeneratorDataset):                  # NumpySlicesDataset too: its data is not written
        out = {"op_type": "GeneratorDataset", **queue}
    elif isinstance(node, MapDataset):
        ops = a["operations"] if isinstance(a["operations"], (list, tuple)) else [a["operations"]]
        inputs = _names(a["input_columns"])
        out = {"op_type": "Map", **queue, "callback": [], "input_columns": inputs,
               "output_columns": _names(a["output_columns"]) or inputs,
               "operations": [_write_op(op, writers) for op in ops]}
        if any("python_module" in op for op in out["operations"]):
            logging.getLogger(__name__).warning("serialize: a Python function in map() is written by name only "
                                                "and cannot be deserialised.")
    elif isinstance(node, BatchDataset):
        if a["per_batch_map"] is not None:
            raise ValueError("serialize: batch(per_batch_map=...) has no JSON form")
        out = {"op_type": "Batch", **queue, "batch_size": a["batch_size"], "drop_remainder": bool(a["drop_remainder"]),
               "input_columns": _names(a["input_columns"]), "output_columns": _names(a["output_columns"])}
    elif isinstance(node, ShuffleDataset):
        out = {"op_type": "Shuffle", "buffer_size": node.buffer_size, "reset_each_epoch": True}
    elif isinstance(node, (RepeatDataset, TakeDataset, SkipDataset)):
        out = {"op_type": kind[:-len("Dataset")], "count": node.count}
    elif isinstance(node, ProjectDataset):
        out = {"op_type": "Project", "columns": list(node.columns)}
    elif isinstance(node, RenameDataset):
        out = {"op_type": "Rename", "input_columns": _names(a["input_columns"]),
               "output_columns": _names(a["output_columns"])}
    elif isinstance(node, ZipDataset):
        out = {"op_type": "Zip", **queue}
    elif isinstance(node, ConcatDataset):
        sizes = [c.get_dataset_size() for c in node.children]
        out = {"op_type": "Concat", "children_flag_and_nums": [[1, n] for n in sizes], "children_sizes": sizes,
               "children_start_end_index": [[-1, -1] for _ in sizes],
               "sampler": {"num_samples": 0, "sampler_name": "SequentialSampler", "start_index": 0}}
    else:
        raise ValueError(f"serialize: {kind} has no JSON form in MindSpore 2.10's layout here")
    out["children"] = children
    return dict(sorted(out.items()))


def _write_atomic(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    handle, scratch = tempfile.mkstemp(dir=folder, prefix=".serialize-", suffix=".json")
    try:
        with os.fdopen(handle, "w") as f:
            f.write(text)
        os.replace(scratch, path)
    except BaseException:
        os.unlink(scratch)
        raise


def serialize(dataset, json_filepath=""):
    """The pipeline ending at `dataset` as a JSON dict (MindSpore 2.10's layout); also written
    to `json_filepath` (atomically) when given."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"serialize: dataset must be a Dataset, but got {type(dataset).__name__}")
    tree = _node(dataset, _op_writers())
    if json_filepath:
        _write_atomic(str(json_filepath), json.dumps(tree, indent=2))
    return tree


def show(dataset, indentation=2):
    """Logs the pipeline's JSON at INFO level, as 2.10 does (indentation=None: one line)."""
    logging.getLogger(__name__).info(json.dumps(serialize(dataset), indent=indentation))


def compare(pipeline1, pipeline2):
    """Whether the two pipelines serialise to the same JSON."""
    return serialize(pipeline1) == serialize(pipeline2)


# -- rebuilding -----------------------------------------------------------------------------------

def _read_sampler(kind: str, sampler: dict) -> dict:
    name = sampler.get("sampler_name")
    if name not in ("RandomSampler", "SequentialSampler"):
        raise ValueError(f"deserialize: {kind}'s sampler {name!r} cannot be rebuilt here")
    return {"num_samples": sampler.get("num_samples") or None, "shuffle": name == "RandomSampler"}


def _read_shard_fields(tree: dict) -> dict:
    sharded = tree["num_shards"] > 1
    return {"num_samples": tree["num_samples"] or None, "shuffle": _shuffle_of(tree["shuffle"]),
            "num_shards": tree["num_shards"] if sharded else None, "shard_id": tree["shard_id"] if sharded else None}


def _shuffle_of(code: int):
    from .text_files import Shuffle
    return {0: False, 1: Shuffle.FILES, 2: Shuffle.GLOBAL}[code]


def _build(tree: dict, readers) -> Dataset:
    from . import (Cifar10Dataset, CSVDataset, ImageFolderDataset, MnistDataset, TextFileDataset)
    from . import zip as zip_datasets
    if not isinstance(tree, dict) or "op_type" not in tree:
        raise ValueError(f"deserialize: a pipeline node must be a dict with an 'op_type', got {tree!r:.80}")
    kind = tree["op_type"]
    if kind == "Map":       # name an operation that cannot be rebuilt before the sources below
        operations = []
        for op in tree["operations"]:
            name = op.get("tensor_op_name")
            if "python_module" in op or name not in readers:
                raise ValueError(f"deserialize: the map operation {name!r} cannot be rebuilt from JSON "
                                 + ("(a Python callable is written by name only)" if "python_module" in op
                                    else "(an operation unknown here)"))
            operations.append(readers[name](op.get("tensor_op_params") or {}))
    children = [_build(c, readers) for c in tree.get("children", [])]
    workers = tree.get("num_parallel_workers")
    if kind in ("MnistDataset", "Cifar10Dataset"):
        cls = MnistDataset if kind == "MnistDataset" else Cifar10Dataset
        return cls(tree["dataset_dir"], tree["usage"], num_parallel_workers=workers,
                   **_read_sampler(kind, tree["sampler"]))
    if kind == "ImageFolderDataset":
        return ImageFolderDataset(tree["dataset_dir"], num_parallel_workers=workers,
                                  extensions=tree["extensions"] or None, class_indexing=tree["class_indexing"] or None,
                                  decode=tree["decode"], **_read_sampler(kind, tree["sampler"]))
    if kind in ("CSVDataset", "TextFileDataset"):
        common = dict(num_parallel_workers=workers, **_read_shard_fields(tree))
        if kind == "TextFileDataset":
            return TextFileDataset(tree["dataset_files"], **common)
        return CSVDataset(tree["dataset_files"], tree["field_delim"], column_names=tree["column_names"] or None,
                          **common)
    reader = {_OP_TYPES.get(k, k): k for k in (*_SAMPLED_FIELDS, *_SHARDED_FIELDS)}.get(kind)
    if reader is not None:
        from .. import dataset
        sampled = reader in _SAMPLED_FIELDS
        fields = {name: tree[name] for name in (_SAMPLED_FIELDS[reader] if sampled else _SHARDED_FIELDS[reader])}
        fields.update(_read_sampler(kind, tree["sampler"]) if sampled else _read_shard_fields(tree))
        return getattr(dataset, reader)(tree["dataset_dir"], num_parallel_workers=workers, **fields)
    if kind in ("GeneratorDataset", "MindDataDataset"):
        raise ValueError(f"deserialize: a {kind} cannot be rebuilt from JSON: MindSpore's layout does not record "
                         "its data source")
    if kind == "Map":
        return children[0].map(operations, tree["input_columns"] or None, tree["output_columns"] or None,
                               num_parallel_workers=workers)
    if kind == "Batch":
        return children[0].batch(tree["batch_size"], tree["drop_remainder"], workers,
                                 input_columns=tree["input_columns"] or None,
                                 output_columns=tree["output_columns"] or None)
    one_child = {"Shuffle": lambda c: c.shuffle(tree["buffer_size"]), "Repeat": lambda c: c.repeat(tree["count"]),
                 "Take": lambda c: c.take(tree["count"]), "Skip": lambda c: c.skip(tree["count"]),
                 "Project": lambda c: c.project(tree["columns"]),
                 "Rename": lambda c: c.rename(tree["input_columns"], tree["output_columns"])}
    if kind in one_child:
        return one_child[kind](children[0])
    if kind == "Zip":
        return zip_datasets(tuple(children))
    if kind == "Concat":
        return children[0].concat(children[1:])
    raise ValueError(f"deserialize: unknown op_type {kind!r}")


def deserialize(input_dict=None, json_filepath=None):
    """The pipeline a serialised dict (input_dict) or JSON file describes, rebuilt."""
    if input_dict is None and json_filepath is None:
        raise ValueError("deserialize: give input_dict or json_filepath")
    if json_filepath is not None:
        with open(json_filepath) as f:
            input_dict = json.load(f)
    return _build(input_dict, _op_readers())
