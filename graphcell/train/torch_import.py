"""Load a PyTorch ``state_dict`` into a graphcell network.

PyTorch and MindSpore name a layer's parameters differently (BatchNorm's ``weight`` is MindSpore's
``gamma``, Embedding's ``weight`` its ``embedding_table``). Rather than rewriting key strings, we walk
the graphcell network: each sub-Cell at attribute path ``p`` holds parameters under attribute names,
and the table :data:`TORCH_NAMES` says what PyTorch calls each of them for that Cell type, so the
parameter's PyTorch key is ``p + "." + torch_name``. A PyTorch model with the same structure (same
attribute names; ``nn.Sequential``/``nn.ModuleList`` use indices, as ``SequentialCell``/``CellList`` do)
therefore loads key for key, whatever MindSpore prefixes the parameters' own names carry.

Layouts: Linear/Dense weights are ``[out, in]``, Conv2d weights ``[out, in/group, kh, kw]`` and
ConvTranspose2d/Conv2dTranspose weights ``[in, out/group, kh, kw]`` in both frameworks, so none needs a
transpose; MindSpore's Conv1d and Conv1dTranspose store PyTorch's 3-D weight with a height axis
(``[a, b, 1, k]``), which their table entries' converter inserts.

Files are read without unpickling arbitrary objects: ``torch.load(path, weights_only=True)`` for
``.pt``/``.pth`` (needs torch), the safetensors library for ``.safetensors`` (no torch needed).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

import numpy as np

from ..nn.cell import Cell
from ..nn.layer.conv import Conv1d, Conv1dTranspose
from ..nn.layer.normalization import Embedding, LayerNorm, _BatchNorm
from ..tensor import Parameter, Tensor
from ._param_load import as_numpy, assign_all
from .ckpt_format import CheckpointError, read_safetensors_file

__all__ = ["load_torch_state_dict", "TORCH_NAMES", "TORCH_ONLY"]

Converter = Callable[[np.ndarray], np.ndarray]


def _height_axis(weight: np.ndarray) -> np.ndarray:
    """PyTorch's Conv1d/ConvTranspose1d weight [a, b, k] as MindSpore stores it, [a, b, 1, k]."""
    return np.expand_dims(weight, 2) if weight.ndim == 3 else weight

#: Cell type -> {graphcell attribute: PyTorch name, or (PyTorch name, converter)}. Looked up along the
#: Cell's MRO; attributes not listed keep their name (Dense/Conv2d ``weight``/``bias``).
TORCH_NAMES: dict[type, dict[str, str | tuple[str, Converter]]] = {
    _BatchNorm: {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean",
                 "moving_variance": "running_var"},
    LayerNorm: {"gamma": "weight", "beta": "bias"},
    Embedding: {"embedding_table": "weight"},
    Conv1d: {"weight": ("weight", _height_axis)},
    Conv1dTranspose: {"weight": ("weight", _height_axis)},
}

#: Cell type -> PyTorch entries with no MindSpore counterpart, skipped without being reported.
TORCH_ONLY: dict[type, tuple[str, ...]] = {
    _BatchNorm: ("num_batches_tracked",),
}


def _lookup(table: dict, cell: Cell, default):
    for cls in type(cell).__mro__:
        if cls in table:
            return table[cls]
    return default


def _walk(cell: Cell, path: str = ""):
    """Every sub-Cell with its attribute path, shared sub-Cells under each of their paths (as PyTorch's
    state_dict lists them)."""
    yield path, cell
    for name, child in cell.name_cells().items():
        yield from _walk(child, f"{path}.{name}" if path else name)


def _torch_keys(net: Cell):
    """``[(param, [(torch_key, converter), ...])]`` in parameter order, and the torch-only keys."""
    by_param: dict[int, tuple[Parameter, list]] = {}
    ignored: set[str] = set()
    for path, cell in _walk(net):
        names = _lookup(TORCH_NAMES, cell, {})
        join = (lambda n: f"{path}.{n}") if path else (lambda n: n)
        for attr, param in cell.parameters_and_names(expand=False):
            spec = names.get(attr, attr)
            torch_name, convert = (spec, None) if isinstance(spec, str) else spec
            by_param.setdefault(id(param), (param, []))[1].append((join(torch_name), convert))
        ignored.update(join(n) for n in _lookup(TORCH_ONLY, cell, ()))
    return list(by_param.values()), ignored


def _to_numpy(key: str, value):
    """A torch tensor, graphcell Tensor or array as numpy; a TypeError naming ``key`` for anything
    else (the key names a parameter, so its value must be one)."""
    if type(value).__module__.startswith("torch"):
        import torch
        if isinstance(value, torch.Tensor):
            if value.is_meta:
                raise TypeError(f"load_torch_state_dict: '{key}' is a meta tensor (a shape without data); "
                                "materialise the PyTorch model's weights before saving its state dict")
            value = value.detach().cpu()
            if value.dtype == torch.bfloat16:  # numpy has no bfloat16: reinterpret the bits
                from ml_dtypes import bfloat16
                return value.view(torch.int16).numpy().view(bfloat16)
            return value.numpy()
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        return as_numpy(value)
    raise TypeError(f"load_torch_state_dict: '{key}' holds a {type(value).__name__}, not a tensor; "
                    "a state dict maps parameter names to tensors (model.state_dict())")


#: Keys under which training scripts commonly nest the state dict in a checkpoint.
_WRAPPER_KEYS = ("state_dict", "model_state_dict", "model", "net", "network")


def _unwrap(state: Mapping, wanted: set) -> Mapping:
    """The state dict inside a checkpoint dict ({"state_dict": sd, "epoch": 3}, {"model": sd}), and
    keys without DataParallel's ``module.`` prefix, where that is what matches ``wanted``."""
    if not any(key in wanted for key in state):
        for key in _WRAPPER_KEYS:
            if isinstance(state.get(key), Mapping):
                state = state[key]
                break
    if state and not any(key in wanted for key in state) and \
            all(isinstance(key, str) and key.startswith("module.") for key in state):
        state = {key[len("module."):]: value for key, value in state.items()}
    return state


def _read(state_dict_or_path) -> Mapping:
    if not isinstance(state_dict_or_path, (str, os.PathLike)):
        return state_dict_or_path
    path = os.fspath(state_dict_or_path)
    if path.endswith(".safetensors"):
        return read_safetensors_file(path)[0]
    try:
        import torch
    except ImportError:
        raise ImportError(f"load_torch_state_dict: reading {path} needs PyTorch (it is loaded with "
                          "torch.load(weights_only=True)); without torch, save the state dict with "
                          "safetensors and pass the .safetensors file") from None
    if not os.path.isfile(path):
        raise FileNotFoundError(f"load_torch_state_dict: {path} does not exist")
    try:
        # weights_only=True: tensors and plain containers only, never arbitrary pickled objects.
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch raises many types for a bad file
        raise CheckpointError(path, None, f"torch.load(weights_only=True) could not read it ({e})",
                              "Save it with torch.save(model.state_dict(), path); files holding other "
                              "pickled objects are refused for safety.") from None


def load_torch_state_dict(cell: Cell, state_dict_or_path, strict: bool = False):
    """Load a PyTorch ``state_dict`` (a dict, or a ``.pt``/``.pth``/``.safetensors`` file) into ``cell``.

    Returns ``(not_loaded, unmapped)``: the names of ``cell``'s parameters that found no PyTorch
    value, and the PyTorch keys that map to no parameter (BatchNorm's ``num_batches_tracked`` is
    skipped silently). ``strict=True`` raises a KeyError if either is non-empty, before loading
    anything. A checkpoint that nests the state dict (``{"state_dict": sd, "epoch": 3}``, or under
    "model_state_dict", "model", "net" or "network") is unwrapped, and DataParallel's ``module.``
    key prefix dropped, when the network's keys are not found as they are.

    Values are checked before any is written: a shape mismatch raises ParameterLoadError naming every
    mismatched parameter and leaves ``cell`` unchanged (shapes must be equal: the checkpoint rule
    that drops trailing size-1 dimensions does not apply). Float values are cast to the parameter's
    float dtype (float64 to float32, for instance).
    """
    if not isinstance(cell, Cell):
        raise TypeError(f"load_torch_state_dict: 'cell' must be a Cell, but got {type(cell).__name__}")
    state = _read(state_dict_or_path)
    if not isinstance(state, Mapping):
        raise TypeError(f"load_torch_state_dict: expected a state dict (a mapping of names to tensors), "
                        f"got {type(state).__name__}")
    params, ignored = _torch_keys(cell)
    state = _unwrap(state, {key for _, keys in params for key, _ in keys})

    items, not_loaded, used = [], [], set()
    for param, keys in params:
        values = [(key, convert, _to_numpy(key, state[key])) for key, convert in keys if key in state]
        if not values:
            not_loaded.append(param.name)
            continue
        key, convert, value = values[0]
        items.append((param, key, convert(value) if convert else value))
        used.update(k for k, _, _ in values)  # a shared parameter appears under several keys
    unmapped = [key for key in state if key not in used and key not in ignored]
    if strict and (not_loaded or unmapped):
        raise KeyError(f"load_torch_state_dict(strict=True): parameters without a PyTorch value: {not_loaded}; "
                       f"PyTorch keys that map to no parameter: {unmapped}. Nothing was loaded.")
    assign_all(items, False, "load_torch_state_dict", "the PyTorch state dict", exact_shape=True)
    return not_loaded, unmapped
