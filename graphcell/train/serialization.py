"""MindSpore's checkpoint API: ``save_checkpoint``, ``load_checkpoint``, ``load_param_into_net``.

Files move both ways between graphcell and MindSpore 2.10: the bytes come from ``ckpt_format``
(``.ckpt`` byte-identical to MindSpore's, safetensors with ``{"format": "ms"}`` metadata) and the keys
are ``param.name``, so a net that was in a ``CellList`` saves ``0.conv1.weight`` exactly as MindSpore
does. Writes are atomic; loads validate everything before changing any parameter.

Ensembles: :func:`stack_checkpoints` turns N single-model checkpoints into the file
``save_checkpoint(nn.CellList(nets))`` would write (keys ``0.conv1.weight``, ``1.conv1.weight``, ...);
:func:`extract_member` takes member k back out as a standalone checkpoint.

>>> save_checkpoint(net, "lenet")                       # writes lenet.ckpt
>>> params = load_checkpoint("lenet.ckpt")              # {'conv1.weight': Parameter (...), ...}
>>> load_param_into_net(other_net, params)              # ([], []): nothing missing, nothing left over
"""

from __future__ import annotations

import atexit
import binascii
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..nn.cell import Cell
from ..tensor import Parameter, Tensor
from ._param_load import ParameterLoadError, as_numpy, assign_all
from .ckpt_format import (CheckpointError, MS_SAFETENSORS_METADATA, read_ckpt_file,
                          read_safetensors_file, write_ckpt_file, write_safetensors_file)

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "stack_checkpoints",
           "extract_member", "async_ckpt_thread_status", "CheckpointError", "ParameterLoadError"]

logger = logging.getLogger(__name__)

_FORMATS = ("ckpt", "safetensors")


# --------------------------------------------------------------------------------------------------------
# File names and formats
# --------------------------------------------------------------------------------------------------------


def _check_format(fmt: str, api: str) -> str:
    if fmt not in _FORMATS:
        raise ValueError(f"For '{api}', the format must be 'ckpt' or 'safetensors', but got {fmt!r}.")
    return fmt


def _save_path(ckpt_file_name, fmt: str) -> str:
    """MindSpore's rule: an absolute path, with ``.<format>`` appended unless the name already ends
    with the format (its check is ``endswith(format)``, so ``"netckpt"`` also counts)."""
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"For 'save_checkpoint', 'ckpt_file_name' must be a str, but got "
                        f"{type(ckpt_file_name).__name__}.")
    path = os.path.realpath(os.fspath(ckpt_file_name))
    if os.path.isdir(path):
        raise IsADirectoryError(f"For 'save_checkpoint', 'ckpt_file_name' {path} is a directory; it must be "
                                "a file name.")
    return path if path.endswith(fmt) else f"{path}.{fmt}"


def _load_path_and_format(ckpt_file_name, fmt: str | None) -> tuple[str, str]:
    """The file to read and its format. MindSpore requires the name to end with the format; we also
    accept a ``.safetensors`` name with the default format, since the suffix says what it is."""
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"For 'load_checkpoint', 'ckpt_file_name' must be a str, but got "
                        f"{type(ckpt_file_name).__name__}.")
    path = os.fspath(ckpt_file_name)
    if fmt is None or (fmt == "ckpt" and path.endswith(".safetensors")):
        fmt = "safetensors" if path.endswith(".safetensors") else "ckpt"
    _check_format(fmt, "load_checkpoint")
    if not path.endswith(fmt):
        raise ValueError(f"For 'load_checkpoint', the file name must end with the format, but got "
                         f"file name {path!r} and format {fmt!r}.")
    path = os.path.realpath(path)
    if not os.path.isfile(path):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file: {path} does not exist, please check "
                         "whether the 'ckpt_file_name' is correct.")
    return path, fmt


# --------------------------------------------------------------------------------------------------------
# What to save
# --------------------------------------------------------------------------------------------------------


def _value_of(name: str, data, what: str):
    """A saved value: numpy array for tensors, str kept as str."""
    if isinstance(data, str):
        return data
    if isinstance(data, (Tensor, np.ndarray, np.generic)):
        return as_numpy(data)
    raise TypeError(f"For 'save_checkpoint', {what} '{name}' must be a Parameter, Tensor, numpy array or "
                    f"str, but got {type(data).__name__}.")


def _entries_of(save_obj, choice_func) -> OrderedDict:
    """``{name: numpy array | str}`` in MindSpore's order. Later entries with an existing name replace the value but
    keep the first position, as MindSpore's ``OrderedDict`` does."""
    keep = (lambda name: True) if choice_func is None else choice_func
    entries: OrderedDict = OrderedDict()

    def put(name, data, what):
        if not isinstance(name, str):
            raise TypeError(f"For 'save_checkpoint', {what} names must be str, but got {type(name).__name__}.")
        if keep(name):
            if name in entries:
                logger.warning("save_checkpoint: two values are named %r; the later one is saved", name)
            entries[name] = _value_of(name, data, what)

    if isinstance(save_obj, Cell):
        for _, param in save_obj.parameters_and_names():
            put(param.name, param, "parameter")
    elif isinstance(save_obj, (list, tuple)):
        for i, item in enumerate(save_obj):
            if isinstance(item, Parameter):
                put(item.name, item, "parameter")
            elif isinstance(item, Mapping) and "name" in item and "data" in item:
                if not isinstance(item["data"], Tensor):
                    raise TypeError(f"For 'save_checkpoint', save_obj[{i}]['data'] must be a Parameter or "
                                    f"Tensor, but got {type(item['data']).__name__}.")
                put(item["name"], item["data"], "entry")
            else:
                raise TypeError(f"For 'save_checkpoint', a list save_obj holds Parameters or "
                                f"{{'name': ..., 'data': ...}} dicts, but save_obj[{i}] is "
                                f"{type(item).__name__}.")
    elif isinstance(save_obj, Mapping):
        for name, data in save_obj.items():
            put(name, data, "entry")
    else:
        raise TypeError(f"For 'save_checkpoint', save_obj must be a Cell, list or dict, but got "
                        f"{type(save_obj).__name__}.")
    return entries


def _append_entries(entries: OrderedDict, append_dict) -> None:
    """``append_dict`` goes last: int -> Int64 scalar, float -> Float32 (np.float64 -> Float64), bool -> Bool (``Tensor(v)``),
    str stays a string, Tensors as they are. Not filtered by ``choice_func`` (MindSpore doesn't)."""
    if append_dict is None:
        return
    if not isinstance(append_dict, Mapping):
        raise TypeError(f"For 'save_checkpoint', 'append_dict' must be a dict, but got "
                        f"{type(append_dict).__name__}.")
    for name, value in append_dict.items():
        if not isinstance(name, str) or not isinstance(value, (int, float, bool, str, Tensor)):
            raise TypeError(f"For 'save_checkpoint', append_dict entries must be str: int, float, bool, str, "
                            f"Parameter or Tensor, but got {name!r}: {type(value).__name__}.")
        if name in entries:
            logger.warning("save_checkpoint: append_dict's %r replaces the net's value of that name", name)
        if isinstance(value, bool):
            entries[name] = np.array(value, np.bool_)
        elif isinstance(value, int):
            if not -2**63 <= value < 2**63:
                raise ValueError(f"For 'save_checkpoint', append_dict's {name!r} = {value} does not fit in Int64.")
            entries[name] = np.array(value, np.int64)
        elif isinstance(value, np.float64):   # a float subclass; 2.10 keeps it Float64
            entries[name] = np.array(value, np.float64)
        elif isinstance(value, float):
            entries[name] = np.array(value, np.float32)
        else:
            entries[name] = _value_of(name, value, "append_dict entry")


# --------------------------------------------------------------------------------------------------------
# Writing (optionally on a background thread)
# --------------------------------------------------------------------------------------------------------


def _safetensors_metadata(entries: Mapping, crc_check: bool, remove_redundancy) -> dict[str, str]:
    """MindSpore's metadata: ``format``, plus ``remove_redundancy`` and ``crc_num`` when asked for.
    The CRC covers, in name order, each name's UTF-8 bytes then its raw C-order data."""
    meta = dict(MS_SAFETENSORS_METADATA)
    if isinstance(remove_redundancy, bool):
        meta["remove_redundancy"] = str(remove_redundancy)
    if crc_check:
        crc = 0
        for name in sorted(entries):
            crc = binascii.crc32(name.encode("utf-8"), crc)
            crc = binascii.crc32(np.ascontiguousarray(entries[name]).tobytes(), crc)
        meta["crc_num"] = str(crc)
    return meta


def _write(path: str, entries: Mapping, fmt: str, crc_check: bool, remove_redundancy) -> None:
    if fmt == "ckpt":
        write_ckpt_file(path, entries, crc_check=crc_check)
        return
    strings = [name for name, v in entries.items() if isinstance(v, str)]
    if strings:
        raise TypeError(f"For 'save_checkpoint', safetensors stores tensors only, but {strings} are strings; "
                        "use format='ckpt' or drop them from append_dict.")
    write_safetensors_file(path, entries, _safetensors_metadata(entries, crc_check, remove_redundancy))


class _AsyncSaver:
    """One background save at a time (MindSpore waits for the previous one too). An error in the
    background is re-raised by the next save, or logged at exit, so it is never silently lost."""

    def __init__(self):
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    def _run(self, *args):
        try:
            _write(*args)
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            self._error = e

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        error, self._error = self._error, None
        if error is not None:
            raise RuntimeError(f"an earlier save_checkpoint(async_save=...) failed: {error}") from error

    def start(self, *args) -> None:
        self.wait()
        self._thread = threading.Thread(target=self._run, args=args, name="asyn_save_ckpt", daemon=False)
        self._thread.start()

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait_at_exit(self) -> None:
        try:
            self.wait()
        except RuntimeError as e:
            logger.error("%s", e)


_ASYNC = _AsyncSaver()
atexit.register(_ASYNC.wait_at_exit)


def wait_for_async_save() -> None:
    """Blocks until a `save_checkpoint(..., async_save=True)` in flight is on disk; raises
    RuntimeError if it failed. (ModelCheckpoint calls it when training ends or raises.)"""
    _ASYNC.wait()


def async_ckpt_thread_status() -> bool:
    """True while a ``save_checkpoint(..., async_save=True)`` is still writing (MindSpore 2.10's name)."""
    return _ASYNC.alive()


def _check_crc_flag(crc_check) -> None:
    if not isinstance(crc_check, bool):   # 2.10's exception type and words
        raise ValueError(f"The parameter 'crc_check' must be isinstance of {bool}, but got {crc_check}.")


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False, append_dict=None,
                    enc_key=None, enc_mode="AES-GCM", choice_func: Callable[[str], bool] | None = None,
                    crc_check=False, format="ckpt", **kwargs) -> None:
    """Save parameters to a MindSpore ``.ckpt`` (or ``.safetensors``) file, atomically.

    Args:
        save_obj: a Cell (every parameter of ``parameters_and_names()``, non-trainable ones such as BN
            statistics included, shared ones once, keyed by ``param.name``; an optimizer is a Cell, so
            its state saves too), a list of Parameters, a list of ``{"name": str, "data": Tensor}``
            dicts, or a dict ``{name: Parameter | Tensor | numpy array | str}`` (what
            :func:`load_checkpoint` returns).
        ckpt_file_name: the file; ``.ckpt``/``.safetensors`` is appended when the name does not end
            with the format. An existing file is replaced only once the new one is complete.
        async_save: ``True``, ``"thread"`` or ``"process"`` write in a background thread (values are
            copied first, so training may continue); the next save waits for it.
        append_dict: extra entries saved last: int (Int64 scalar), float (Float32 scalar), bool, str
            (``.ckpt`` only) or Tensor.
        choice_func: ``choice_func(name) -> bool`` keeps the parameters it returns True for.
        crc_check: append MindSpore's ``crc_num`` trailer (``.ckpt``) or ``crc_num`` metadata
            (safetensors).
        format: ``"ckpt"`` or ``"safetensors"``.
        integrated_save: accepted for compatibility; graphcell has no model-parallel slices to merge.
        enc_key, enc_mode: encryption is not supported (a key raises NotImplementedError).
        kwargs: ``remove_redundancy=bool`` is recorded in safetensors metadata as MindSpore does.
    """
    fmt = _check_format(format, "save_checkpoint")
    path = _save_path(ckpt_file_name, fmt)
    if not isinstance(integrated_save, bool):
        raise TypeError(f"For 'save_checkpoint', 'integrated_save' must be a bool, but got "
                        f"{type(integrated_save).__name__}.")
    _check_crc_flag(crc_check)
    if not isinstance(async_save, (bool, str)) or (isinstance(async_save, str)
                                                   and async_save not in ("process", "thread")):
        raise ValueError(f"For 'save_checkpoint', 'async_save' must be a bool, 'process' or 'thread', but got "
                         f"{async_save!r}.")
    if enc_key is not None:
        raise NotImplementedError("save_checkpoint: encrypted checkpoints (enc_key) are not supported by "
                                  "graphcell (no AES implementation); save without enc_key.")
    remove_redundancy = kwargs.pop("remove_redundancy", None)
    if kwargs:
        raise TypeError(f"save_checkpoint() got unsupported keyword arguments {sorted(kwargs)}")

    entries = _entries_of(save_obj, choice_func)
    _append_entries(entries, append_dict)
    if async_save:
        # Copy now: the caller may update parameters while the file is written.
        entries = OrderedDict((k, v if isinstance(v, str) else np.array(v, copy=True)) for k, v in entries.items())
        _ASYNC.start(path, entries, fmt, crc_check, remove_redundancy)
    else:
        _ASYNC.wait()  # never let an older background save land after (and over) this one
        _write(path, entries, fmt, crc_check, remove_redundancy)


# --------------------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------------------


def _check_prefix(prefix, name: str):
    if prefix is None:
        return None
    if isinstance(prefix, str):
        prefix = (prefix,)
    if not isinstance(prefix, (list, tuple)) or not prefix:
        raise TypeError(f"For 'load_checkpoint', '{name}' must be a str or a non-empty list/tuple of str, "
                        f"but got {prefix!r}.")
    for i, p in enumerate(prefix):
        if not isinstance(p, str) or p == "":
            raise ValueError(f"For 'load_checkpoint', {name}[{i}] must be a non-empty str, but got {p!r}.")
    return tuple(prefix)


def _has_crc_trailer(path: str) -> bool:
    """Whether the file ends with MindSpore's ``crc_num`` + 10-byte CRC trailer."""
    with open(path, "rb") as f:
        if f.seek(0, os.SEEK_END) < 17:
            return False
        f.seek(-17, os.SEEK_END)
        return f.read(7) == b"crc_num"


def _read_entries(path: str, fmt: str, crc_check: bool) -> dict:
    """``{name: np.ndarray | str}`` from either format (errors name the file)."""
    if fmt == "ckpt":
        if crc_check and not _has_crc_trailer(path):
            logger.warning("load_checkpoint: crc_check=True but %s has no crc_num trailer", path)
        return read_ckpt_file(path)  # a trailer that is present is always verified
    tensors, meta = read_safetensors_file(path)
    if crc_check:
        if "crc_num" not in meta:
            logger.warning("load_checkpoint: crc_check=True but %s has no crc_num metadata", path)
        elif str(_safetensors_metadata(tensors, True, None)["crc_num"]) != meta["crc_num"]:
            raise CheckpointError(path, None, "the crc_num in the metadata does not match the data",
                                  "The file is damaged; restore it from a good copy.")
    return tensors


def load_checkpoint(ckpt_file_name, net: Cell | None = None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None,
                    choice_func: Callable[[str], bool] | None = None, crc_check=False,
                    remove_redundancy=False, format="ckpt") -> dict:
    """Read a checkpoint into ``{name: Parameter}`` (append_dict strings stay ``str``), in file order.

    Args:
        ckpt_file_name: a ``.ckpt`` or ``.safetensors`` file (the suffix picks the format).
        net: if given, the values are also loaded into it with :func:`load_param_into_net`.
        strict_load: passed to :func:`load_param_into_net`.
        specify_prefix / filter_prefix: keep only names starting with / drop names starting with
            these prefixes (str or list); either one overrides ``choice_func``, as in MindSpore.
        choice_func: ``choice_func(name) -> bool`` keeps the entries it returns True for.
        crc_check: warn if the file has no CRC (a CRC that is present is always checked).
        format: ``"ckpt"`` or ``"safetensors"``.

    Raises:
        CheckpointError (a ValueError) naming the file if it is not a valid checkpoint; ValueError if
        the filters leave nothing.
    """
    if dec_key is not None:
        raise NotImplementedError("load_checkpoint: encrypted checkpoints (dec_key) are not supported by "
                                  "graphcell; decrypt the file with MindSpore (load_checkpoint with dec_key, then "
                                  "save_checkpoint without enc_key).")
    _check_crc_flag(crc_check)
    if choice_func is not None and not callable(choice_func):
        raise TypeError(f"For 'load_checkpoint', 'choice_func' must be a function name -> bool, but got "
                        f"{type(choice_func).__name__}.")
    specify_prefix = _check_prefix(specify_prefix, "specify_prefix")
    filter_prefix = _check_prefix(filter_prefix, "filter_prefix")
    path, fmt = _load_path_and_format(ckpt_file_name, format)

    def wanted(name: str) -> bool:
        if specify_prefix is None and filter_prefix is None:
            return choice_func is None or bool(choice_func(name))
        if specify_prefix is not None and not name.startswith(specify_prefix):
            return False
        return filter_prefix is None or not name.startswith(filter_prefix)

    parameter_dict = {}
    entries = _read_entries(path, fmt, crc_check)
    for name, value in entries.items():
        if wanted(name):
            parameter_dict[name] = value if isinstance(value, str) else Parameter(value, name=name)
    if not entries:
        raise ValueError(f"For 'load_checkpoint', {path} holds no parameters.")
    if not parameter_dict:
        raise ValueError(f"For 'load_checkpoint', nothing is left of {path} after filtering; check "
                         "'choice_func', 'specify_prefix' and 'filter_prefix'.")
    if net is not None:
        load_param_into_net(net, parameter_dict, strict_load, remove_redundancy)
    return parameter_dict


def _match_by_prefix(missing: list[str], keys: Sequence[str]) -> dict[str, str]:
    """MindSpore's fallback for names that did not match: find the first checkpoint key that ends with
    a missing name, take what precedes it as a prefix (``"0."``, ``"net."``...), load every missing
    name for which ``prefix + name`` exists, and repeat with the names still missing."""
    keyset, remaining, found = set(keys), list(missing), {}
    while remaining:
        prefix = next((key[:-len(name)] for name in remaining for key in keys
                       if key.endswith(name) and key != name), None)
        if prefix is None:
            break
        for name in [n for n in remaining if prefix + n in keyset]:
            found[name] = prefix + name
            remaining.remove(name)
    return found


def load_param_into_net(net: Cell, parameter_dict: dict, strict_load=False, remove_redundancy=False):
    """Load ``parameter_dict`` into ``net``, matching ``param.name``; returns
    ``(param_not_load, ckpt_not_load)``: the net's parameters that got no value, and the dict's keys
    that were not used.

    With ``strict_load=False`` (the default), names that do not match try MindSpore's prefix fallback
    (a checkpoint key ``"0.conv1.weight"`` loads into ``conv1.weight``), and a float value loads into a
    float parameter of another precision (an int into an int), cast to the parameter's dtype.
    ``strict_load=True`` turns both off. Either way a parameter the dict does not have is reported in
    ``param_not_load`` (and logged), not raised, as in MindSpore 2.10: fine-tuning loads a backbone's
    checkpoint into a net with a new head.

    Every value is checked before any is written: a shape or dtype mismatch raises
    :class:`ParameterLoadError` (a RuntimeError) that lists every mismatched parameter with both
    shapes, and leaves the whole network unchanged.
    """
    if not isinstance(net, Cell):
        raise TypeError(f"For 'load_param_into_net', the argument 'net' should be a Cell, but got {type(net)}.")
    if not isinstance(parameter_dict, Mapping):
        raise TypeError(f"For 'load_param_into_net', the argument 'parameter_dict' should be a dict, but got "
                        f"{type(parameter_dict)}.")
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, (Tensor, np.ndarray, str)):
            raise TypeError(f"For 'load_param_into_net', 'parameter_dict' maps str to Parameter, but got "
                            f"{key!r}: {type(value).__name__}.")
    if not isinstance(strict_load, bool):
        raise TypeError(f"For 'load_param_into_net', 'strict_load' must be a bool, but got "
                        f"{type(strict_load).__name__}.")
    if remove_redundancy:
        raise TypeError("The deduplication feature for loading checkpoint can only be used in parallel "
                        "scenarios, but got stand_alone.")

    params = [param for _, param in net.parameters_and_names()]
    source: dict[int, str] = {}  # id(param) -> key it loads from
    param_not_load: list[str] = []
    for param in params:
        if param.name in parameter_dict and not isinstance(parameter_dict[param.name], str):
            source[id(param)] = param.name
        else:   # missing, or a string entry (a note: no tensor to load)
            param_not_load.append(param.name)
    if param_not_load and not strict_load:
        found = _match_by_prefix(param_not_load, list(parameter_dict))
        for param in params:
            if param.name in found and id(param) not in source:
                source[id(param)] = found[param.name]
        param_not_load = [name for name in param_not_load if name not in found]

    assign_all(((p, source[id(p)], parameter_dict[source[id(p)]]) for p in params if id(p) in source),
               strict_load, "load_param_into_net", "the checkpoint")
    used = set(source.values())
    # MindSpore leaves prefix-matched keys in ckpt_not_load; we report what was really not loaded.
    ckpt_not_load = [key for key in parameter_dict if key not in used]
    if param_not_load:
        hint = (" (none of the net's parameters is in the checkpoint: was it saved from this network?)"
                if len(param_not_load) == len(params) else "")
        logger.warning("load_param_into_net: %d parameters of the net are not loaded%s: %s",
                       len(param_not_load), hint, param_not_load)
    return param_not_load, ckpt_not_load


# --------------------------------------------------------------------------------------------------------
# Ensemble checkpoints
# --------------------------------------------------------------------------------------------------------


def _as_entries(ckpt, what: str) -> dict:
    """A path (either format) or a dict of Parameters/Tensors/arrays/str, as ``{name: array | str}``."""
    if isinstance(ckpt, (str, os.PathLike)):
        ckpt = load_checkpoint(ckpt, format=None)
    if not isinstance(ckpt, Mapping):
        raise TypeError(f"{what} must be a checkpoint path or a dict, but got {type(ckpt).__name__}.")
    return {name: value if isinstance(value, str) else _value_of(name, value, what)
            for name, value in ckpt.items()}


def _save_to(out_path, entries: Mapping, format: str | None) -> None:
    fmt = format or ("safetensors" if os.fspath(out_path).endswith(".safetensors") else "ckpt")
    save_checkpoint(entries, out_path, format=fmt)


def _as_parameters(entries: Mapping) -> dict:
    return {k: v if isinstance(v, str) else Parameter(v, name=k) for k, v in entries.items()}


def _describe(value) -> str:
    return "str" if isinstance(value, str) else f"{value.dtype}{list(value.shape)}"


def stack_checkpoints(checkpoints: Sequence, out_path=None, format: str | None = None) -> dict:
    """Combine N single-model checkpoints into one ensemble checkpoint.

    The keys are what ``save_checkpoint(nn.CellList(nets))`` writes, member by member: ``0.conv1.weight``,
    ..., ``1.conv1.weight``, ...; so the file loads into a ``CellList`` of the N models with
    :func:`load_param_into_net`, and is byte-identical to saving that CellList. The members must have
    the same names, shapes and dtypes (an ensemble shares one architecture); the first difference is
    reported.

    Args:
        checkpoints: paths (``.ckpt``/``.safetensors``) or dicts such as :func:`load_checkpoint` returns.
        out_path: if given, the ensemble is written there (format from the suffix unless ``format``).
    Returns:
        ``{name: Parameter}`` of the ensemble.
    """
    if isinstance(checkpoints, (str, os.PathLike, Mapping)) or len(checkpoints) == 0:
        raise TypeError("stack_checkpoints: 'checkpoints' must be a non-empty list of paths or dicts.")
    members = [_as_entries(c, f"checkpoints[{i}]") for i, c in enumerate(checkpoints)]
    first = members[0]
    for i, member in enumerate(members[1:], start=1):
        if list(member) != list(first):
            extra, missing = sorted(set(member) - set(first)), sorted(set(first) - set(member))
            detail = (f"it lacks {missing}" if missing else "") + ("; " if missing and extra else "") + \
                     (f"it has extra {extra}" if extra else "") or "its entries are in another order"
            raise ValueError(f"stack_checkpoints: member {i} does not match member 0: {detail}.")
        for name, value in member.items():
            if _describe(value) != _describe(first[name]):
                raise ValueError(f"stack_checkpoints: member {i} has '{name}' as {_describe(value)}, member 0 "
                                 f"as {_describe(first[name])}.")
    entries = OrderedDict((f"{i}.{name}", value) for i, member in enumerate(members)
                          for name, value in member.items())
    if out_path is not None:
        _save_to(out_path, entries, format)
    return _as_parameters(entries)


def extract_member(ensemble_ckpt, k: int, out_path=None, format: str | None = None) -> dict:
    """Member ``k`` of an ensemble checkpoint as a standalone checkpoint (keys without the ``k.`` prefix).

    Args:
        ensemble_ckpt: a path or dict whose keys are CellList names (``0.conv1.weight``, ...).
        k: the member index.
        out_path: if given, member k is written there (format from the suffix unless ``format``).
    Returns:
        ``{name: Parameter}`` of member k.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise TypeError(f"extract_member: k must be a non-negative int, but got {k!r}.")
    entries = _as_entries(ensemble_ckpt, "ensemble_ckpt")
    prefix = f"{k}."
    member = OrderedDict((name[len(prefix):], value) for name, value in entries.items()
                         if name.startswith(prefix))
    if not member:
        indices = sorted({int(n.split(".", 1)[0]) for n in entries if n.split(".", 1)[0].isdigit()})
        raise ValueError(f"extract_member: the ensemble has no member {k} (no key starts with {prefix!r}); "
                         f"its members are {indices}.")
    if out_path is not None:
        _save_to(out_path, member, format)
    return _as_parameters(member)
