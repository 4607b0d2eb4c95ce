"""`Cell`: MindSpore's module class, with its parameter-naming rules.

Naming follows MindSpore 2.x exactly (MINDSPORE_NOTES.md section 1), because checkpoints
are keyed by `param.name`: a Parameter assigned to a Cell takes the attribute name if it has
none; a child Cell assigned to a Cell with `auto_prefix=True` has all its parameters renamed
to `<attr>.<path inside the child>`; Parameters of a ParameterTuple are registered under
their current names.
"""
from __future__ import annotations

import functools
from collections import OrderedDict
from typing import Iterator

import jax
import numpy as np

from ..compiler.jit import Jit, bump_config_epoch
from ..frontend.ast_transform import converted
from ..frontend.trace import bump_mode_epoch
from ..frontend.tracer import current_tracer, note_training_mode, scope
from ..ops.custom_bprop import with_custom_bprop
from ..ops.member_hooks import backward_hooks_of, counterpart_hooked
from ..dtype import DType
from ..tensor import PARAMETER_NAME_DEFAULT, Parameter, ParameterTuple, Tensor

_BUILDING: set[int] = set()  # ids of the Cells whose __init__ is running


def _constructing(init):
    """`init` (a Cell subclass's __init__) with the Cell marked as being built meanwhile."""
    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        if id(self) in _BUILDING:  # super().__init__ of a subclass's: the outermost one unmarks
            return init(self, *args, **kwargs)
        _BUILDING.add(id(self))
        try:
            init(self, *args, **kwargs)
        finally:
            _BUILDING.discard(id(self))
    return __init__


class Cell:
    """Base class of every network and layer. Subclasses define `construct`."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__init__" in cls.__dict__:
            cls.__init__ = _constructing(cls.__dict__["__init__"])

    def __init__(self, auto_prefix: bool = True, flags=None):
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_params_list", OrderedDict())
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "_scope_name", "")
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "_graph_jit", None)

    # -- attribute registration ------------------------------------------------------------
    def __setattr__(self, name: str, value):
        if "_params" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}: call super().__init__() before "
                                 f"assigning attribute {name!r}")
        buffers = self.__dict__.get("_buffers")
        if buffers and name in buffers:
            if value is not None:   # MindSpore 2.10's rule (measured): a buffer is replaced by register_buffer
                raise TypeError(f"Buffer '{name}' already exists in network, can not assign this type: "
                                f"'{type(value)}' as a buffer.")
            buffers[name] = None
            self._structure_changed()
        elif isinstance(value, Parameter):
            self.insert_param_to_cell(name, value)
        elif isinstance(value, ParameterTuple):
            for item in value:
                self.insert_param_to_cell(item.name, item, check_name_contain_dot=False)
            self._params_list[name] = value
            self.__dict__.pop(name, None)
            self._structure_changed()
        elif isinstance(value, Cell):
            self.insert_child_to_cell(name, value)
        else:
            if name in self._params and value is not None:
                if isinstance(value, Tensor) and self._params[name] is not None:
                    # MindSpore's: the Parameter takes the value (self.count += 1 in
                    # construct records an assign; outside it is set_data's cast)
                    self._params[name].set_data(value)
                    return
                raise TypeError(f"For '{type(self).__name__}', '{name}' is a Parameter: it takes a Parameter, "
                                f"a Tensor (its new value) or None, not {type(value).__name__}; to change its "
                                f"value use self.{name}.set_data(...)")
            if name in self._cells and value is not None:
                raise TypeError(f"For '{type(self).__name__}', '{name}' is a sub-Cell: it takes a Cell or None, "
                                f"not {type(value).__name__} (MindSpore: \"Sub cell '{name}' already exists in "
                                f"network, can not assign this type\"); del self.{name} first to reuse the name")
            if value is None and name in self._params:
                self._params[name] = None
            elif value is None and name in self._cells:
                self._cells[name] = None
            else:
                self._cells.pop(name, None) if name in self._cells else None
                old = self.__dict__.get(name, _UNSET)
                object.__setattr__(self, name, value)
                if _RUNNING[0] == 0 and old is not _UNSET and name not in _BOOKKEEPING and _changed(old, value):
                    # A hyperparameter changed between calls (opt.weight_decay = 0.1): graphs
                    # traced with the old value are stale. (Inside construct, a Cell's own
                    # bookkeeping, a step counter, say, changes nothing compiled.)
                    self._structure_changed()

    def __getattr__(self, name: str):
        d = self.__dict__
        # A ParameterTuple attribute first: its members are registered by their own names, and
        # one may share the attribute's (a grouped optimizer's `learning_rate` tuple holds the
        # default rate, a Parameter named 'learning_rate'), as in MindSpore.
        for table in ("_params_list", "_params", "_cells", "_buffers"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str):
        for table in (self._params, self._cells, self._params_list, self.__dict__.get("_buffers") or {}):
            if name in table:
                del table[name]
                self._structure_changed()
                return
        object.__delattr__(self, name)

    def insert_param_to_cell(self, param_name: str, param: Parameter, check_name_contain_dot=True):
        """MindSpore's checks: a Parameter (or None), a name without '.', not a child Cell's."""
        if not isinstance(param_name, str) or not param_name:
            raise KeyError(f"For 'insert_param_to_cell', the parameter name must be a non-empty string, "
                           f"but got {param_name!r}")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"The name of a parameter attribute may not contain '.': {param_name!r}")
        if param_name in self._cells:
            raise KeyError(f"For 'insert_param_to_cell', {param_name!r} is already the name of a child Cell")
        if param is None:
            self._params[param_name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'insert_param_to_cell', the argument 'param' must be a Parameter (or None), "
                            f"but got {type(param).__name__}")
        if param.name == PARAMETER_NAME_DEFAULT:
            param.name = param_name
        self._params[param_name] = param
        self.__dict__.pop(param_name, None)
        self._structure_changed()

    def insert_child_to_cell(self, child_name: str, child: "Cell"):
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"For 'insert_child_to_cell', the child name must be a non-empty string without "
                           f"'.', but got {child_name!r}")
        if child_name in self._params:
            raise KeyError(f"For 'insert_child_to_cell', {child_name!r} is already the name of a Parameter")
        if not isinstance(child, Cell):
            raise TypeError(f"For 'insert_child_to_cell', the argument 'child' must be a Cell, but got "
                            f"{type(child).__name__}")
        if self._auto_prefix:
            child.update_parameters_name(child_name + ".")
        object.__setattr__(child, "_scope_name", child_name)
        self._cells[child_name] = child
        self.__dict__.pop(child_name, None)
        self._structure_changed()

    def _structure_changed(self) -> None:
        """Graphs traced through this Cell are stale. A Cell still in its __init__ has none, so
        building a network elsewhere leaves every compiled graph in place."""
        if id(self) not in _BUILDING:
            bump_config_epoch()

    def update_parameters_name(self, prefix: str = "", recurse: bool = True):
        for name, param in self.parameters_and_names(expand=recurse):
            param.name = prefix + name

    # -- traversal -------------------------------------------------------------------------
    def cells_and_names(self, cell_list=None, name_prefix: str = "") -> Iterator[tuple[str, "Cell"]]:
        seen = cell_list if cell_list is not None else set()
        if id(self) not in seen:
            seen.add(id(self))
            yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is not None:
                prefix = f"{name_prefix}.{name}" if name_prefix else name
                yield from cell.cells_and_names(seen, prefix)

    def parameters_and_names(self, name_prefix: str = "", expand: bool = True):
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        seen = set()
        for cell_name, cell in cells:
            for par_name, par in cell._params.items():
                if par is not None and id(par) not in seen:
                    seen.add(id(par))
                    yield (f"{cell_name}.{par_name}" if cell_name else par_name), par

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        for _, param in self.parameters_and_names(expand=expand):
            yield param

    def _unlisted_parameters(self) -> tuple:
        """State Parameters this Cell keeps out of its Parameter lists, where MindSpore 2.10 keeps
        the same state as Python values (mint.optim's group rates): get_parameters,
        trainable_params and save_checkpoint leave them out, as 2.10's; a compiled graph reads
        and writes them as any Parameter it meets, and `state_parameters` lists them."""
        return ()

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> OrderedDict:
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def cells(self):
        return [c for c in self._cells.values() if c is not None]

    def name_cells(self) -> OrderedDict:
        return OrderedDict((k, v) for k, v in self._cells.items() if v is not None)

    def get_sub_cell(self, target: str) -> "Cell":
        """The Cell at dotted path `target` ('' is this Cell)."""
        cell = self
        for part in target.split(".") if target else ():
            if part not in cell._cells or cell._cells[part] is None:
                if hasattr(cell, part):
                    raise AttributeError(f"`{part}` is not an nn.Cell")
                raise AttributeError(f"{type(cell).__name__} has no attribute `{part}`")
            cell = cell._cells[part]
        return cell

    # -- buffers and state -----------------------------------------------------------------
    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """A Tensor the Cell holds that is not a Parameter: not trained, not in
        parameters_and_names or checkpoints, in state_dict when `persistent`. construct reads it
        as a constant of its graph (load_state_dict recompiles). Assigning to it afterwards is a
        TypeError, as in MindSpore 2.10; register it again to replace it."""
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string.But got this type: {type(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if not name:
            raise KeyError('buffer name can\'t be empty string ""')
        buffers = self.__dict__.get("_buffers")
        if (buffers is None or name not in buffers) and hasattr(self, name):
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor)}' object to buffer '{name}' (Tensor or None required)")
        if buffers is None:
            buffers = OrderedDict()
            object.__setattr__(self, "_buffers", buffers)
            object.__setattr__(self, "_non_persistent_buffers", set())
        buffers[name] = tensor
        (self._non_persistent_buffers.discard if persistent else self._non_persistent_buffers.add)(name)
        self._structure_changed()

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """(path, buffer) pairs: this Cell's, then its sub-cells' (a shared sub-cell once)."""
        cells = self.cells_and_names(name_prefix=prefix) if recurse else [(prefix, self)]
        seen = set()
        for cell_name, cell in cells:
            for name, buffer in (cell.__dict__.get("_buffers") or {}).items():
                if buffer is None or (remove_duplicate and id(buffer) in seen):
                    continue
                seen.add(id(buffer))
                yield (f"{cell_name}.{name}" if cell_name else name), buffer

    def buffers(self, recurse: bool = True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def get_buffer(self, target: str) -> Tensor:
        path, _, name = target.rpartition(".")
        cell = self.get_sub_cell(path)
        if name not in (cell.__dict__.get("_buffers") or {}):
            if hasattr(cell, name):
                raise AttributeError(f"`{name}` is not a buffer")
            raise AttributeError(f"{type(cell).__name__} has no attribute `{name}`")
        return cell._buffers[name]

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False) -> OrderedDict:
        """Parameters and persistent buffers by attribute path (`net.weight`), this Cell's
        first, then each sub-cell's (`nn/state_dict.py`). The values are the Parameter and
        buffer objects (MindSpore 2.10 returns them whatever `keep_vars`)."""
        from . import state_dict as sd
        if args:   # MindSpore's deprecated positional form (destination, prefix, keep_vars)
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
        return sd.state_dict(self, destination, prefix)

    def load_state_dict(self, state_dict, strict: bool = True):
        """Copies `state_dict`'s values into the Parameters (keeping their dtypes) and buffers.
        With `strict`, missing or unexpected keys are a RuntimeError; returns the
        (missing_keys, unexpected_keys) pair."""
        from . import state_dict as sd
        return sd.load_state_dict(self, state_dict, strict)

    def get_extra_state(self):
        """Override (with set_extra_state) to put more in state_dict, under '_extra_state'."""
        raise RuntimeError("Reached a code path in Cell.get_extra_state() that should never be called.")

    def set_extra_state(self, state) -> None:
        raise RuntimeError("Reached a code path in Cell.set_extra_state() that should never be called.")

    # -- modes -----------------------------------------------------------------------------
    def set_train(self, mode: bool = True) -> "Cell":
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", bool(mode))
        # cached traces recheck the modes of the Cells they called, so switching back to an
        # earlier mode reuses the graphs already compiled for it
        bump_mode_epoch()
        return self

    def set_grad(self, requires_grad: bool = True) -> "Cell":
        """Sets `requires_grad` (MindSpore's PYNATIVE flag for building the backward graph; graphcell
        builds it when grad asks, so it changes nothing computed)."""
        object.__setattr__(self, "requires_grad", bool(requires_grad))
        return self

    requires_grad = False

    def add_flags(self, **flags) -> "Cell":
        """Records `flags` (get_flags) and sets each as an attribute, as MindSpore does."""
        table = self.__dict__.get("_flags")
        if table is None:
            table = {}
            object.__setattr__(self, "_flags", table)
        table.update(flags)
        for name, value in flags.items():
            object.__setattr__(self, name, value)
        self._structure_changed()
        return self

    def add_flags_recursive(self, **flags) -> "Cell":
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self) -> dict:
        return self.__dict__.get("_flags", {})

    def set_inputs(self, *inputs, **kwargs) -> None:
        """Records the inputs MindSpore compiles for (dynamic shapes: a `Tensor(shape=[None, 2],
        dtype=...)`); graphcell traces per input signature anyway, so they are only kept."""
        object.__setattr__(self, "_inputs", inputs)

    def get_inputs(self):
        return self.__dict__.get("_inputs")

    def recompute(self, **kwargs) -> None:
        """MindSpore's activation recomputation, which trades memory for time and changes no
        result; graphcell accepts the call and leaves the graph as it is."""

    def init_parameters_data(self, auto_parallel_mode: bool = False) -> dict:
        """MindSpore's: Parameters are initialised when made; returns {Parameter: Parameter}."""
        return {p: p for p in self.get_parameters()}

    def to(self, *args, **kwargs) -> "Cell":
        """MindSpore 2.10's Cell.to(dtype), to(device=None, dtype=None) or to(tensor): casts the
        floating Parameters and buffers of this Cell and its sub-cells to `dtype` (integer ones
        stay); the device is accepted and left as it is (graphcell places arrays itself)."""
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        for arg in args:
            if isinstance(arg, Tensor):
                dtype = arg.dtype
            elif isinstance(arg, DType):
                dtype = arg
            elif not isinstance(arg, (str, bool)) and arg is not None:
                raise TypeError(f'Failed calling Cell.to with "Cell.to({type(arg)})".')
        if kwargs:
            raise TypeError(f"Cell.to() got unexpected keyword arguments {sorted(kwargs)}")
        if dtype is None:
            return self
        if not dtype.is_floating:
            raise TypeError(f"Cell.to only accepts floating point or complex dtypes, but got desired dtype={dtype}")
        for param in self.get_parameters():
            if param.dtype.is_floating and param.dtype is not dtype:
                param.set_dtype(dtype)
        for _, buffer in self.named_buffers():
            if buffer.dtype.is_floating and buffer.dtype is not dtype:
                buffer._payload = buffer.astype(dtype)._payload   # in place, as a Parameter's set_dtype
        self._structure_changed()   # the graphs' input and constant types changed
        return self

    def compile(self, *args, **kwargs) -> None:
        """Traces and compiles construct for these arguments (graph mode's program) without running it."""
        from ..compiler.jit import compiled_fn
        traced, _ = self._graph_mode_jit().get_traced(*args, **kwargs)
        compiled_fn(traced)

    def compile_and_run(self, *args, **kwargs):
        """Runs construct as graph mode would: compiled, once per input signature."""
        return self._graph_mode_jit()(*args, **kwargs)

    def _graph_mode_jit(self):
        if self._graph_jit is None:
            object.__setattr__(self, "_graph_jit", Jit(self, name=type(self).__name__))
        return self._graph_jit

    def to_float(self, dst_type) -> "Cell":
        """MindSpore's: this Cell and its sub-cells compute in `dst_type`. Floating inputs and
        trainable Parameters are cast where they are used; the Parameters keep their dtype
        (the float32 master weights that gradients, optimizers and checkpoints see)."""
        from .. import dtype as mstype
        from ..amp import wrap_construct
        if not any(dst_type is t for t in (mstype.float16, mstype.float32, mstype.bfloat16)):
            raise ValueError("For 'to_float', the argument 'dst_type' must be mstype.float32, mstype.float16 or "
                             f"mstype.bfloat16, but got {type(dst_type).__name__} {dst_type!r}")
        for _, cell in self.cells_and_names():
            wrap_construct(cell, dst_type, None)
        self._structure_changed()
        return self

    def apply(self, fn) -> "Cell":
        """Calls `fn` on every sub-cell, depth first, then on this Cell (MindSpore's and torch's
        order, e.g. to re-initialise weights); returns this Cell."""
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    # -- forward hooks ---------------------------------------------------------------------
    def register_forward_pre_hook(self, hook_fn, *, prepend: bool = False, with_kwargs: bool = False):
        """`hook_fn(cell, args)` (or `(cell, args, kwargs)` with `with_kwargs`) runs before
        construct; a non-None result replaces the arguments (a tuple, or one value; with
        kwargs an (args, kwargs) pair). Runs in graph mode too, at trace time. Returns a
        handle whose remove() unregisters it."""
        return self._add_hook("_forward_pre_hooks", (hook_fn, with_kwargs, False), prepend)

    def register_forward_hook(self, hook_fn, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False):
        """`hook_fn(cell, args, output)` (or `(cell, args, kwargs, output)`) runs after
        construct; a non-None result replaces the output. With `always_call` it also runs
        when construct raises (output None), before the error goes on."""
        return self._add_hook("_forward_hooks", (hook_fn, with_kwargs, always_call), prepend)

    # -- backward hooks --------------------------------------------------------------------
    def register_backward_pre_hook(self, hook_fn):
        """`hook_fn(cell, grad_output)` runs when the backward pass reaches this Cell's outputs:
        `grad_output` holds one gradient per Tensor output (None where none flows). A non-None
        result (a tuple of as many Tensors, or one Tensor) replaces them. Runs on the gradients'
        values, in PYNATIVE and in graph mode alike (a host call in the compiled backward
        pass). Returns a handle whose remove() unregisters it."""
        return self._add_hook("_backward_pre_hooks", (hook_fn,), False)

    def register_backward_hook(self, hook_fn):
        """`hook_fn(cell, grad_input, grad_output)` runs when the backward pass has this Cell's
        input gradients: `grad_input` holds one per positional Tensor argument (None for an
        integer one or one without a gradient), `grad_output` as for the pre-hook. A non-None
        result (a tuple of as many Tensors) replaces grad_input. Weight gradients are left
        alone. Second-order gradients through a hooked Cell are refused."""
        return self._add_hook("_backward_hooks", (hook_fn,), False)

    def _run_backward_hooks(self, kind: str, grads: tuple, grad_output) -> tuple:
        """Runs the hooks of `kind` ("pre" or "post") on concrete gradients, each seeing the
        previous one's result; checks what they return as MindSpore 2.10 does."""
        pre = kind == "pre"
        hooks = self.__dict__.get("_backward_pre_hooks" if pre else "_backward_hooks")
        for (fn,) in list(hooks.values()) if hooks else ():
            result = fn(self, grads) if pre else fn(self, grads, grad_output)
            if result is None:
                continue
            result = result if isinstance(result, tuple) else (result,)
            if len(result) != len(grads):
                raise TypeError(f"The backward pre hook return value size is {len(result)} not equal to expect "
                                f"output size {len(grads)}" if pre else
                                f"The backward hook return value size is {len(result)} not equal to expect grad "
                                f"input size {len(grads)}")
            what = "hook_backward_pre_grad" if pre else "hook_backward_grad"
            for new, old in zip(result, grads):
                if old is None:
                    continue   # no gradient flows there: nothing to replace
                if not isinstance(new, Tensor):
                    raise TypeError(f"The output type of function: {what} should be a tensor but got "
                                    f"{type(new).__name__}.")
                if new.shape != old.shape or new.dtype is not old.dtype:
                    raise ValueError(f"The output type of function: {what} is not consistent with the expected, it "
                                     f"should be Tensor shape:{list(old.shape)}{old.dtype}, but got Tensor "
                                     f"shape:{list(new.shape)}{new.dtype} (a backward hook of {type(self).__name__})")
            grads = result
        return grads

    def _hooked_inputs(self, args: tuple, hooked: tuple):
        """`args` with their floating Tensors passed through the backward-hook enter marker,
        and the marker's token. grad_input has a slot per positional Tensor argument (kwargs
        and Python values have none); a Cell without one gets (None,), as in MindSpore 2.10.
        `hooked`: (site, has pre-hooks, has post-hooks), from ops/member_hooks.backward_hooks_of."""
        from ..ops import hooks
        layout, positions = [], []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                layout.append(a.dtype.is_floating)
                if a.dtype.is_floating:
                    positions.append(i)
        outs = hooks.enter.bind(*[args[i] for i in positions], site=hooked[0],
                                layout=tuple(layout) or (False,), post=hooked[2])
        args = list(args)
        for i, new in zip(positions, outs):
            args[i] = new
        return tuple(args), outs[-1]

    def _hooked_output(self, output, token, hooked: tuple):
        """`output` with its floating Tensors passed through the exit marker; grad_output has a
        slot per Tensor in it (flattened)."""
        from ..frontend import pytree
        from ..ops import hooks
        leaves, structure = pytree.flatten(output, arrays_are_tensors=False)
        if not leaves:
            return output
        floating = [t for t in leaves if t.dtype.is_floating]
        new = iter(hooks.exit_.bind(token, *floating, site=hooked[0],
                                    layout=tuple(t.dtype.is_floating for t in leaves),
                                    pre=hooked[1]))
        return pytree.unflatten(structure, [next(new) if t.dtype.is_floating else t for t in leaves])

    def _add_hook(self, table: str, entry: tuple, prepend: bool) -> "HookHandle":
        if not callable(entry[0]):
            raise TypeError(f"Expected a callable hook function, but got {type(entry[0]).__name__}.")
        hooks = self.__dict__.get(table)
        if hooks is None:
            hooks = OrderedDict()
            object.__setattr__(self, table, hooks)
        handle = HookHandle(hooks)
        hooks[handle.id] = entry
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        self._structure_changed()   # compiled graphs of this Cell ran without it
        return handle

    def _run_forward(self, args, kwargs):
        pre, post = self.__dict__.get("_forward_pre_hooks"), self.__dict__.get("_forward_hooks")
        for fn, with_kwargs, _ in list(pre.values()) if pre else ():
            result = fn(self, args, kwargs) if with_kwargs else fn(self, args)
            if result is not None:
                if with_kwargs:
                    args, kwargs = result
                else:
                    args = result if isinstance(result, tuple) else (result,)
        tracing = current_tracer() is not None
        construct = converted(self.construct) if tracing else self.construct
        backward = backward_hooks_of(self) if tracing else None
        if backward:   # a gradient of this trace runs them (eagerly, no trace: no gradient)
            args, token = self._hooked_inputs(args, backward)
        try:   # graph mode: tensor if/while/for in construct compile (ast_transform)
            output = construct(*args, **kwargs)
            if tracing and getattr(type(self), "bprop", None) is not None:
                output = with_custom_bprop(self, args, output)
            if backward:
                output = self._hooked_output(output, token, backward)
        except Exception:
            for fn, with_kwargs, always in list(post.values()) if post else ():
                if always:
                    fn(self, args, kwargs, None) if with_kwargs else fn(self, args, None)
            raise
        for fn, with_kwargs, _ in list(post.values()) if post else ():
            result = fn(self, args, kwargs, output) if with_kwargs else fn(self, args, output)
            if result is not None:
                output = result
        return output

    # -- calling ---------------------------------------------------------------------------
    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *args, **kwargs):
        if current_tracer() is None:
            from ..context import GRAPH_MODE, get_context
            if get_context("mode") == GRAPH_MODE:
                return self._graph_mode_jit()(*args, **kwargs)
        _RUNNING[0] += 1
        try:
            if current_tracer() is not None:
                note_training_mode(self)
            with scope(self._scope_name):
                if not self.__dict__.keys().isdisjoint(_HOOK_TABLES) or counterpart_hooked(self):
                    return self._run_forward(args, kwargs)
                if current_tracer() is not None:  # graph mode: tensor if/while/for compile (ast_transform)
                    output = converted(self.construct)(*args, **kwargs)
                    if getattr(type(self), "bprop", None) is not None:   # its own backward (ops/custom_bprop.py)
                        output = with_custom_bprop(self, args, output)
                    return output
                return self.construct(*args, **kwargs)
        finally:
            _RUNNING[0] -= 1

    # -- printing --------------------------------------------------------------------------
    def extend_repr(self) -> str:
        return ""

    def __repr__(self):
        # MindSpore 2.10's frame (torch's): Name(extend_repr), children indented, then ")".
        extra = self.extend_repr()
        children = [f"  ({name}): " + repr(cell).replace("\n", "\n  ") for name, cell in self._cells.items()]
        if not children:
            return f"{type(self).__name__}({extra})"
        lines = ([f"  {extra}"] if extra else []) + children
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"

    @property
    def cls_name(self) -> str:
        return type(self).__name__

    def check_input(self, x: Tensor, rank: int | tuple | None = None, axis: int | None = None,
                    size: int | None = None, what: str = "input", dtype=None):
        """Raises an error naming this Cell if `x` is not a Tensor or has the wrong rank (one
        rank, or a tuple of those allowed), axis size or dtype."""
        from ..frontend.tracer import current_scope
        where = current_scope() or type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"{type(self).__name__} '{where}': {what} must be a Tensor, got "
                            f"{type(x).__name__}")
        ranks = (rank,) if isinstance(rank, int) else rank
        if ranks is not None and x.ndim not in ranks:
            wanted = " or ".join(f"{r}-D" for r in ranks)
            raise ValueError(f"{type(self).__name__} '{where}': expected a {wanted} {what}, got shape "
                             f"{list(x.shape)}")
        if axis is not None and x.shape[axis] != size:
            raise ValueError(f"{type(self).__name__} '{where}': expected {what} with {size} at axis "
                             f"{axis}, got shape {list(x.shape)} ({x.shape[axis]})")
        if dtype is not None and x.dtype is not dtype:
            raise TypeError(f"{type(self).__name__} '{where}': {what} has dtype {x.dtype} but the "
                            f"parameters are {dtype}; cast it with x.astype(graphcell.{dtype.name})")

    def check_indices(self, ids: Tensor, size: int, what: str, ignore=None, lowest: int | None = 0) -> None:
        """Integer `ids` into `size` rows. Concrete (eager) ids out of [lowest, size) raise, naming
        this Cell, as MindSpore's Gather does; traced ones cannot be read, and the gather
        clamps them. `lowest=None` checks only the dtype (ids out of range are meaningful)."""
        from ..frontend.tracer import current_scope
        where = current_scope() or type(self).__name__
        if not ids.dtype.is_integer:
            raise TypeError(f"{type(self).__name__} '{where}': {what} must be integers, got {ids.dtype}")
        if ids.is_symbolic or ids.size == 0 or lowest is None:
            return
        values = np.asarray(ids.asnumpy())
        bad = values[((values < lowest) | (values >= size)) & (values != ignore if ignore is not None else True)]
        if bad.size:
            raise ValueError(f"{type(self).__name__} '{where}': {what} must be in [{lowest}, {size}), "
                             f"got {bad.flat[0]}")


class _IndexedContainer(Cell):
    """Shared list behaviour of CellList and SequentialCell: children named "0", "1", ...

    Parameter names follow MindSpore 2.10's containers: a cell added, moved or renumbered takes
    its new index in the place where the container's other Parameter names hold theirs
    (`layers.2.w` inside a parent, `2.w` at the top), read from those names (`_index_place`).
    Keys given by name (SequentialCell of an OrderedDict) stay.
    `auto_prefix=False`, as MindSpore's CellList takes it, leaves the children's Parameter
    names alone (an optimizer's per-parameter learning rates)."""

    def __init__(self, cells=None, auto_prefix: bool = True):
        super().__init__(auto_prefix=auto_prefix)
        object.__setattr__(self, "_named_keys", ())
        for cell in cells or ():
            self.append(cell)

    def _put(self, key: str, cell: Cell) -> None:
        """Holds `cell` under `key`, its Parameter names as they are."""
        _check_cell(self, cell)
        object.__setattr__(cell, "_scope_name", key)
        self._cells[key] = cell
        self._structure_changed()

    def _add(self, key: str, cell: Cell) -> None:
        """Holds a new `cell` under `key`, its Parameters named for that place."""
        _check_cell(self, cell)
        if self._auto_prefix:
            prefix, _ = _index_place(self._cells)
            cell.update_parameters_name(prefix + key + ".")
        self._put(key, cell)

    def _renumber(self, cells: list) -> None:
        """Holds `cells`, (old key or None for a new cell, cell) pairs, under 0, 1, ... (named
        keys stay), renaming the Parameters of the cells whose key changed."""
        prefix, place = _index_place(self._cells)   # read before the cells move
        self._cells.clear()
        for i, (old_key, cell) in enumerate(cells):
            key = old_key if old_key in self._named_keys else str(i)
            if self._auto_prefix and old_key is None:
                cell.update_parameters_name(prefix + key + ".")
            elif self._auto_prefix and key != old_key:
                for param in cell.get_parameters():
                    param.name = prefix + key + "." + ".".join(param.name.split(".")[place + 1:])
            self._put(key, cell)

    def append(self, cell: Cell):
        key = len(self._cells)
        while str(key) in self._cells:   # a slice keeps its cells' keys ("1", "2")
            key += 1
        self._add(str(key), cell)
        return self

    def extend(self, cells):
        for cell in cells:
            self.append(cell)
        return self

    __iadd__ = extend

    def insert(self, index: int, cell: Cell):
        """Puts `cell` before position `index` (as list.insert; MindSpore's range
        [-len, len]); the cells from there move up one, and their Parameters are renamed by
        their new positions, as MindSpore's CellList.insert does."""
        _check_cell(self, cell)
        cells = list(self._cells.items())
        n = len(cells)
        if not isinstance(index, int) or not -n <= index <= n:
            raise IndexError(f"For '{type(self).__name__}', the value of 'index' must be a number in range "
                             f"[{-n}, {n}], but got {index!r}.")
        index = index % n if n and index != n else index
        self._renumber(cells[:index] + [(None, cell)] + cells[index:])

    def __setitem__(self, index: int, cell: Cell):
        if not isinstance(index, int):
            raise TypeError(f"For '{type(self).__name__}', the type of 'index' must be int, "
                            f"but got {type(index).__name__}.")
        keys = list(self._cells)
        self._add(keys[_position(self, index, len(keys))], cell)   # the key keeps its place

    def __delitem__(self, index):
        """Removes cells; the rest are renumbered 0, 1, ..., and so are their Parameters, as
        MindSpore 2.10 renames them (measured: del cells[0] leaves 0.weight, 1.weight)."""
        keys = list(self._cells)
        if isinstance(index, slice):
            gone = set(keys[index])
        elif isinstance(index, int):
            gone = {keys[_position(self, index, len(keys))]}
        else:
            raise TypeError(f"For '{type(self).__name__}', the type of 'index' must be int or slice, "
                            f"but got {type(index).__name__}.")
        self._renumber([(k, c) for k, c in self._cells.items() if k not in gone])

    def __getitem__(self, index):
        if isinstance(index, slice):
            # The cells keep their keys and their Parameters their names (re-adding them under
            # new indices renamed the original container's Parameters: seq[1:] turned
            # '2.weight' into '1.weight', and a checkpoint of seq then had the wrong keys).
            # MindSpore 2.10 does rename, at the slicing (measured: blocks[1:] makes the parent's
            # 'blocks.1.dense.weight' '0.dense.weight'; self.a[:1] and self.b[:1] in construct
            # both make '0.weight', and the parent's checkpoint loses half its Parameters).
            part = type(self).__new__(type(self))
            _IndexedContainer.__init__(part, auto_prefix=self._auto_prefix)
            for key, cell in list(self._cells.items())[index]:
                part._cells[key] = cell
            return part
        if not isinstance(index, int):
            raise TypeError(f"For '{type(self).__name__}', the type of 'index' must be int or slice, "
                            f"but got {type(index).__name__}.")
        return list(self._cells.values())[_position(self, index, len(self._cells))]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())


def _index_place(cells) -> tuple[str, int]:
    """(the prefix before the key in the Parameter names of a container's `cells` (key ->
    Cell), the key's position among a name's dotted parts): ("", 0) when they hold none.

    Read from the first Parameter of the first cell that has one: its name ends with
    "<key>.<its path inside the cell>" when the container named it, and what comes before
    is the prefix. Names set otherwise are scanned for the key as MindSpore's
    `_get_prefix_and_index` does (which alone misreads a nested container: appending
    to CellList([Seq, ...]) gave '0.1.0.weight' in MindSpore 2.10)."""
    named = []   # (key, first Parameter name) of the first two cells with Parameters
    for key, cell in cells.items():
        inner, first = next(iter(cell.parameters_and_names()), (None, None))
        if first is None:
            continue
        tail = f"{key}.{inner}"
        if not named and (first.name == tail or first.name.endswith("." + tail)):
            prefix = first.name[:len(first.name) - len(tail)]
            return prefix, prefix.count(".")
        named.append((key, first.name.split(".")))
        if len(named) == 2:
            break
    if not named:
        return "", 0
    (key, parts), prefix, place = named[0], "", 0
    for i, part in enumerate(parts):
        if part == key:
            prefix, place = ".".join(parts[:i]) + "." if i else "", i
            # a second cell confirms the place (a key may recur deeper in a name)
            if len(named) == 2 and named[1][1][i:i + 1] == [named[1][0]]:
                break
    return prefix, place



def _check_cell(container, cell) -> None:
    if not isinstance(cell, Cell):   # 2.10's messages
        if type(container).__name__ == "CellList":
            raise TypeError(f"For 'CellList', each cell must be subclass of Cell, but got {type(cell).__name__}.")
        raise TypeError(f"For 'insert_child_to_cell', the argument 'child_cell' must be 'Cell' if not None, but got "
                        f"type {type(cell)}.")


def _position(container, index: int, length: int) -> int:
    """`index` (negative from the end) as a position in [0, length), or MindSpore's IndexError."""
    if not -length <= index < length:
        raise IndexError(f"For '{type(container).__name__}', the index must be in range [{-length}, {length}), "
                         f"but got {index}.")
    return index % length


class CellList(_IndexedContainer):
    """A list of Cells. `vmap(CellList([...]))` runs them as one ensemble."""

    def construct(self, *args, **kwargs):
        raise TypeError("a CellList is not callable; index it, or wrap it in vmap(...) to run "
                        "its members as an ensemble")


class SequentialCell(_IndexedContainer):
    """Runs its Cells in order, feeding each one's output to the next."""

    def __init__(self, *args):
        cells = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple, OrderedDict)) else args
        if isinstance(cells, OrderedDict):
            super().__init__()
            object.__setattr__(self, "_named_keys", tuple(cells))
            for name, cell in cells.items():
                self._add(name, cell)
        else:
            super().__init__(list(cells))

    def construct(self, x):
        for cell in self._cells.values():
            x = cell(x)
        return x


class HookHandle:
    """What the register_*_hook methods return: remove() unregisters the hook."""
    _next_id = 0

    def __init__(self, hooks: OrderedDict):
        self._hooks = hooks
        HookHandle._next_id += 1
        self.id = HookHandle._next_id

    @property
    def handle_id(self) -> int:   # MindSpore's name
        return self.id

    def remove(self) -> None:
        if self._hooks.pop(self.id, None) is not None:
            bump_config_epoch()


class CellDict(Cell):
    """Cells by name, as a dict (MindSpore's nn.CellDict): `d['conv'] = nn.Conv2d(...)`.
    Keys are non-empty, without '.', and not the names of Cell attributes; values are Cells
    other than containers. Not callable: index it in construct."""

    def __init__(self, *args, **kwargs):
        super().__init__(kwargs.pop("auto_prefix", True))
        if kwargs:
            raise TypeError(f"CellDict got unexpected keyword arguments {sorted(kwargs)}")
        if len(args) > 1:
            raise TypeError(f"CellDict takes one mapping or iterable of (key, Cell) pairs, got {len(args)} arguments")
        if args:
            self.update(args[0])

    def __setitem__(self, key: str, cell: Cell):
        if not isinstance(key, str):
            raise TypeError(f"For 'CellDict', the type of key should be str, but got {type(key).__name__}.")
        if not key:
            raise KeyError(f"For 'CellDict', key can not be empty string \"\", but got key {key}")
        if "." in key:
            raise KeyError(f"For 'CellDict', key can not contain \".\", but got key {key}")
        if hasattr(Cell, key) or key in ("training",):
            raise KeyError(f"For 'CellDict', the key can not be same with the attributes of Cell, but got key {key}.")
        if isinstance(cell, (CellDict, _IndexedContainer)):
            raise TypeError(f"For 'CellDict', the type of cell can not be CellDict, CellList or SequentialCell, "
                            f"but got {type(cell).__name__}.")
        if not isinstance(cell, Cell):
            raise TypeError(f"For 'CellDict', the type of cell should be Cell, but got {type(cell).__name__}.")
        if self._auto_prefix:   # named for where the others sit (d.b.weight inside a parent's d)
            prefix, _ = _index_place(self._cells)
            cell.update_parameters_name(prefix + key + ".")
        object.__setattr__(cell, "_scope_name", key)
        self._cells[key] = cell
        self._structure_changed()

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __delitem__(self, key: str):
        del self._cells[key]
        self._structure_changed()

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def pop(self, key: str) -> Cell:
        cell = self[key]
        del self[key]
        return cell

    def clear(self) -> None:
        self._cells.clear()
        self._structure_changed()

    def update(self, cells) -> None:
        pairs = cells.items() if hasattr(cells, "items") else cells
        for pair in pairs:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"For 'CellDict', each element must be a (key, Cell) pair, got {pair!r}")
            self[pair[0]] = pair[1]

    def construct(self, *args, **kwargs):
        raise NotImplementedError("a CellDict is not callable; index it by key in construct")


# Cell bookkeeping that differs between Cells without changing what they compute (the
# per-Cell jits, and the configuration an eager optimizer's jit was built for).
_BOOKKEEPING = frozenset({"_params", "_cells", "_params_list", "_scope_name", "_graph_jit", "_eager_config",
                          "_named_keys", "_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
                          "_backward_pre_hooks", "requires_grad", "_inputs", "_flags", "_non_persistent_buffers"})
_HOOK_TABLES = frozenset({"_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks"})


_UNSET = object()
_RUNNING = [0]   # how many Cell calls are running (attribute writes inside them are the Cells' own)


def _changed(old, new) -> bool:
    try:
        return _plain(old) != _plain(new)
    except _Incomparable:
        return old is not new


def configuration(cell, parameters: bool = True) -> tuple | None:
    """What decides `cell`'s traced graph besides its parameters' values: its class, its
    plain attributes (hyperparameters, flags), its parameters' shapes and dtypes, its
    constant Tensors by content, and the same of its sub-cells; None when an attribute is of
    a kind this cannot compare. Cells of equal configuration run the same `construct` on the
    same values and trace to one graph: vmap's architecture check traces an ensemble's member
    0 only (N=16 LeNet5 training steps: 15 traces, ~0.2 s, spared), and an eager optimizer
    rebuilds its compiled update when its configuration changes. `parameters=False` leaves
    the parameters out (a jit's signature covers them)."""
    try:
        return _configuration(cell, parameters)
    except _Incomparable:
        return None


class _Incomparable(Exception):
    pass


def _configuration(cell, parameters: bool = True) -> tuple:
    attrs = tuple((k, _plain(v)) for k, v in sorted(cell.__dict__.items()) if k not in _BOOKKEEPING)
    cells = tuple((k, None if c is None else _configuration(c, parameters)) for k, c in cell._cells.items())
    if not parameters:
        return type(cell), attrs, cells
    params = tuple((k, None if p is None else (p.shape, p.dtype, p.requires_grad)) for k, p in cell._params.items())
    tuples = tuple((k, tuple((p.shape, p.dtype, p.requires_grad) for p in t)) for k, t in cell._params_list.items())
    return type(cell), attrs, params, tuples, cells


def _plain(v):
    if isinstance(v, (float, complex)):
        return type(v), repr(v)   # -0.0 and 0.0 are equal but make different constants
    if v is None or isinstance(v, (bool, int, str, bytes, DType)):
        return type(v), v
    if isinstance(v, (tuple, list)):
        return type(v), tuple(_plain(x) for x in v)
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return dict, tuple((k, _plain(x)) for k, x in sorted(v.items()))
    if isinstance(v, np.ndarray):
        return np.ndarray, v.shape, v.dtype.str, v.tobytes()
    if isinstance(v, Tensor) and not isinstance(v, Parameter) and isinstance(v._payload, jax.Array):
        return Tensor, _plain(np.asarray(v._payload))
    if callable(v) and hasattr(v, "__qualname__") and not isinstance(v, type):
        return "function", v   # compared by identity: the same function object
    key = getattr(v, "configuration_key", None)
    if key is not None and not isinstance(v, type):
        return type(v), _plain(key())   # an operator object (ops.ReduceSum(...)): its attributes
    raise _Incomparable(type(v).__name__)


def state_parameters(cell: Cell) -> list:
    """`cell.get_parameters()`, then the unlisted state Parameters of its Cells: everything a
    step of `cell` may read or write (ensembles stack it, export puts it back after a run)."""
    params = list(cell.get_parameters())
    seen = {id(p) for p in params}
    for _, sub in cell.cells_and_names():
        for p in sub._unlisted_parameters():
            if id(p) not in seen:
                seen.add(id(p))
                params.append(p)
    return params
