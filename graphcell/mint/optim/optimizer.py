"""The base of `mint.optim`: torch-style parameter groups, MindSpore's call `optimizer(grads)`.

`params` is a list of Parameters or of group dicts ({'params': [...], 'lr': ..., 'weight_decay':
...}); each group takes the constructor's arguments for what it leaves out (`defaults`), as
torch.optim and MindSpore 2.10's mint.optim do. Each group's rate is a float32 scalar
Parameter `learning_rate_group_<i>`, so a scheduler or user can change it
(`opt.param_groups[0]['lr'].set_data(...)`) without recompiling; it stays out of the
optimizer's Parameter lists and checkpoint, where 2.10 has no rate. The other hyperparameters
are Python numbers, compiled in. The state is in Parameters, updated with `ops.assign`, so the
update runs eagerly, inside `jit`, and `save_checkpoint(optimizer)` saves it.
"""
from __future__ import annotations

import numbers

import numpy as np

from ...frontend.tracer import current_tracer
from ...tensor import Parameter, ParameterTuple, Tensor
from ...nn.cell import Cell
from ...nn.optim.groups import check_parameter_list, is_grouped
from ...nn.optim.optimizer import checked_gradients


def check_range(value, name: str, low: float = 0.0, what: str | None = None):
    """torch's and 2.10's "Invalid learning rate: -1.0" checks (a ValueError below `low`)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"'{name}' must be a number, but got {type(value).__name__}")
    if not value >= low:
        raise ValueError(f"Invalid {what or name}: {value}")
    return value


def check_betas(betas) -> tuple:
    betas = tuple(betas)
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    return betas


class ParamGroup(dict):
    """A parameter group. Its 'lr' stays the group's rate Parameter: `group['lr'] = 0.01` (torch's
    way to change a rate, which 2.10 under jit silently ignores) writes the number into it, so the
    compiled update uses it at the next step."""

    def __setitem__(self, key, value):
        rate = self.get("lr")
        if key == "lr" and isinstance(rate, Parameter) and value is not rate:
            value = float(value.asnumpy()) if isinstance(value, Tensor) and value.ndim == 0 else value
            check_range(value, "lr", what="learning rate")
            rate.set_data(Tensor(np.array(value, np.float32)))
            return
        super().__setitem__(key, value)


class Optimizer(Cell):
    """Holds `parameters` (every group's, in order), `param_groups` (dicts: 'params', 'lr' as a
    Parameter, and the group's hyperparameters) and `defaults`. Subclasses write `construct`
    over `self.groups_of_parameters()`."""

    is_training_step = True   # exported as the step it runs, not in inference mode (compiler/export.py)
    state_prefixes: tuple = ()   # the per-parameter state ParameterTuples, by attribute name (= prefix)

    def __init__(self, params, defaults: dict):
        super().__init__(auto_prefix=False)
        name = type(self).__name__
        items = check_parameter_list(name, params)
        groups = items if is_grouped(name, items) else [{"params": items}]
        self.defaults = dict(defaults)
        param_groups, flat, seen = [], [], set()
        for index, group in enumerate(groups):
            group = self._make_group(index, group, seen)
            param_groups.append(group)
            flat += group["params"]
        self.parameters = ParameterTuple(flat)
        object.__setattr__(self, "param_groups", param_groups)
        object.__setattr__(self, "_group_rates", ParameterTuple(g["lr"] for g in param_groups))

    def _make_group(self, index: int, group: dict, seen: set) -> ParamGroup:
        """A group dict checked, its missing hyperparameters taken from `defaults`, its rate made
        the Parameter `learning_rate_group_<index>`; `seen` (ids of Parameters already in a group)
        grows by its members."""
        name = type(self).__name__
        group = ParamGroup(group)
        members = group.get("params")
        members = [members] if isinstance(members, Parameter) else list(members or [])
        if not members:
            raise ValueError(f"For '{name}', params[{index}]['params'] should not be empty.")
        for p in members:
            if not isinstance(p, Parameter):
                raise TypeError(f"For '{name}', optimizer can only optimize Parameters, but one of the params "
                                f"is {type(p).__name__}")
            if id(p) in seen:
                raise ValueError("some parameters appear in more than one parameter group.")
            seen.add(id(p))
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        lr = group["lr"]
        if isinstance(lr, Tensor):
            if lr.ndim != 0:
                raise ValueError("For 'Optimizer', if 'learning_rate' is a Tensor, then it should be scalar Tensor")
            lr = float(lr.asnumpy())
        check_range(lr, "lr", what="learning rate")
        group["lr"] = Parameter(np.array(lr, np.float32), name=f"learning_rate_group_{index}", requires_grad=False)
        group["params"] = members
        self.check_group(group)
        return group

    def add_param_group(self, param_group: dict) -> None:
        """torch's `add_param_group`: a new group (what it leaves out from `defaults`) whose
        parameters get zero state, as the constructor's do; the next call recompiles the update.
        (2.10 appends the group but neither its parameters nor their state, so its next step
        fails: measured.)"""
        if not isinstance(param_group, dict):
            raise TypeError(f"For '{type(self).__name__}', param_group must be a dict, but got "
                            f"{type(param_group).__name__}")
        group = self._make_group(len(self.param_groups), param_group, {id(p) for p in self.parameters})
        added = ParameterTuple(group["params"])
        self.parameters = ParameterTuple(tuple(self.parameters) + tuple(added))
        self.param_groups.append(group)
        for prefix in self.state_prefixes:
            setattr(self, prefix, ParameterTuple(tuple(getattr(self, prefix)) + tuple(added.clone(prefix, "zeros"))))
        object.__setattr__(self, "_group_rates", ParameterTuple(tuple(self._group_rates) + (group["lr"],)))
        self.state_changed()
        object.__setattr__(self, "_mint_jit", None)

    def state_changed(self) -> None:
        """A subclass re-derives what depends on its state tuples here (after add_param_group)."""

    def check_group(self, group: dict) -> None:
        """A subclass checks a group's hyperparameters here (after the defaults are filled in)."""

    def _unlisted_parameters(self) -> tuple:
        """The groups' rate Parameters: read by the compiled update (a new rate needs no
        recompile), but not in get_parameters or a checkpoint, as 2.10's Python-number rates
        (measured: 2.10 lists and saves only the parameters and their state)."""
        return tuple(self._group_rates)

    def groups_of_parameters(self, gradients, *states):
        """(group, lr, [(param, grad, state_1, ...), ...]) for each group, gradients checked
        and cast to their parameter's dtype, `states` (ParameterTuples parallel to
        `parameters`) zipped in."""
        grads = self._check_gradients(gradients)
        start = 0
        for group in self.param_groups:
            n = len(group["params"])
            rows = [tuple(x[i] for x in (self.parameters, grads) + states) for i in range(start, start + n)]
            start += n
            yield group, group["lr"], rows

    def _check_gradients(self, gradients) -> tuple:
        return checked_gradients(type(self).__name__, gradients, self.parameters)

    def _hyper_key(self) -> tuple:
        """What the compiled update depends on besides Parameter values: each group's plain
        hyperparameters."""
        return tuple(tuple((k, repr(v)) for k, v in sorted(g.items()) if k not in ("params", "lr"))
                     for g in self.param_groups)

    def __call__(self, *args, **kwargs):
        """Eagerly, the whole update runs as one compiled program (as nn.Optimizer's does),
        rebuilt when a group's hyperparameter changes."""
        from ...compiler.jit import Jit
        if current_tracer() is not None:
            return super().__call__(*args, **kwargs)
        key = self._hyper_key()
        if self.__dict__.get("_mint_jit") is None or self.__dict__.get("_mint_key") != key:
            object.__setattr__(self, "_mint_jit", Jit(self, name=type(self).__name__))
            object.__setattr__(self, "_mint_key", key)
        return self._mint_jit(*args, **kwargs)

    def __repr__(self) -> str:
        """torch.optim's and 2.10's format: "Adam (", then each group after a blank line, its
        keys sorted, a rate printed as its float32 Tensor prints (0.01, not 0.009999999776...)."""
        text = f"{type(self).__name__} ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(k for k in group if k != "params"):
                value = group[key]
                text += f"    {key}: {str(value.value()) if isinstance(value, Parameter) else value}\n"
        return text + ")"
