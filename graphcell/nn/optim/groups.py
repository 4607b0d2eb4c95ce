"""Parameter groups: MindSpore's `params=[{'params': [...], 'lr': ..., 'weight_decay': ...,
'grad_centralization': ...}, ..., {'order_params': [...]}]`, checked and flattened to one
entry per parameter (as MindSpore 2.10's Optimizer keeps `group_params`, `group_lr`,
`group_weight_decay` and `group_grad_centralization`, measured).

What a group sets applies to its parameters only; a group without 'lr' or 'weight_decay'
takes the optimizer's argument. A group's 'weight_decay' may be a Cell (a dynamic weight
decay, called with global_step), as the optimizer's may. 'order_params' (a dict with that key alone) reorders the
flattened parameters, which must be exactly the groups' parameters.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ...tensor import Parameter

GROUP_KEYS = ["params", "lr", "weight_decay", "order_params", "grad_centralization"]
UNSET = object()   # a group that does not set a key


@dataclass
class GroupEntry:
    """One parameter of a grouped optimizer, with what its group set (UNSET where nothing)."""
    param: Parameter
    group: int            # the group's index in the list of dicts ('learning_rate_group_<group>')
    lr: object
    weight_decay: object
    grad_centralization: bool


def check_parameter_list(optimizer: str, parameters, what: str = "params") -> list:
    """`parameters` (any iterable but a single Parameter or a dict) as a non-empty list."""
    if parameters is None:
        raise ValueError(f"For '{optimizer}', the argument {what} can not be None.")
    if isinstance(parameters, (Parameter, dict)) or not isinstance(parameters, Iterable):
        raise TypeError(f"For '{optimizer}', the '{what}' should be a list of Parameters or of parameter-group "
                        f"dicts, but got {type(parameters).__name__}")
    items = list(parameters)
    if not items:
        raise ValueError(f"For '{optimizer}', the '{what}' should not be empty.")
    return items


def is_grouped(optimizer: str, items: list) -> bool:
    """True for a list of dicts; a list that mixes dicts and Parameters is an error."""
    dicts = [isinstance(x, dict) for x in items]
    if any(dicts) and not all(dicts):
        raise TypeError(f"For '{optimizer}', all elements of 'params' must be Parameters or all must be "
                        f"parameter-group dicts, but params[{dicts.index(not dicts[0])}] is a "
                        f"{type(items[dicts.index(not dicts[0])]).__name__}")
    return bool(dicts) and dicts[0]


def flatten_groups(optimizer: str, groups: list) -> tuple[list[GroupEntry], bool]:
    """The groups' parameters in order (or in 'order_params' order), each with its group's
    settings; and whether an 'order_params' dict was given."""
    entries, order, ordered = [], None, False
    for index, group in enumerate(groups):
        unknown = [k for k in group if k not in GROUP_KEYS]
        if unknown:
            raise KeyError(f"For '{optimizer}', the key in group params must be one of {GROUP_KEYS}, but "
                           f"params[{index}] has {unknown}.")
        if "order_params" in group:
            if len(group) > 1:
                raise ValueError(f"For '{optimizer}', the order params dict in group parameters should only "
                                 f"include the 'order_params' key, but got {sorted(group)}.")
            if not isinstance(group["order_params"], Iterable):
                raise TypeError(f"For '{optimizer}', the value of 'order_params' should be an iterable of "
                                f"Parameters, but got {type(group['order_params']).__name__}.")
            order, ordered = list(group["order_params"]), True
            continue
        if "params" not in group:
            raise KeyError(f"For '{optimizer}', params[{index}] has no 'params' key (the group's Parameters)")
        members = check_parameter_list(optimizer, group["params"], "group `params`")
        centralize = group.get("grad_centralization", False)
        if not isinstance(centralize, bool):
            raise TypeError(f"For '{optimizer}', the 'grad_centralization' of params[{index}] must be bool, "
                            f"but got {type(centralize).__name__}.")
        for i, p in enumerate(members):
            if not isinstance(p, Parameter):
                raise TypeError(f"For '{optimizer}', the element in group parameters must be Parameter type, "
                                f"but params[{index}]['params'][{i}] is a {type(p).__name__}.")
            entries.append(GroupEntry(p, index, group.get("lr", UNSET), group.get("weight_decay", UNSET),
                                      centralize))
    seen = {}
    for e in entries:
        if e.param.name in seen:
            raise RuntimeError(f"For '{optimizer}', the parameter '{e.param.name}' is in params[{seen[e.param.name]}] "
                               f"and params[{e.group}] (or twice in one group): each parameter may be set once.")
        seen[e.param.name] = e.group
    if order:
        entries = _reorder(optimizer, entries, order)
    return entries, ordered


def _reorder(optimizer: str, entries: list[GroupEntry], order: list) -> list[GroupEntry]:
    if len(order) != len(entries):
        raise ValueError(f"For '{optimizer}', the length of order parameters must be the same as the length of "
                         f"group parameters, but got order parameters' length {len(order)}, group parameters' "
                         f"length {len(entries)}.")
    by_name = {e.param.name: e for e in entries}
    out = []
    for i, p in enumerate(order):
        name = getattr(p, "name", None)
        if not isinstance(p, Parameter) or name not in by_name:
            label = repr(name) if isinstance(p, Parameter) else f"a {type(p).__name__}"
            raise ValueError(f"For '{optimizer}', order_params[{i}] ({label}) is not a Parameter of any group "
                             "(or is named twice)")
        out.append(by_name.pop(name))
    if by_name:   # order named a parameter twice, so one was left out
        raise ValueError(f"For '{optimizer}', 'order_params' leaves out {sorted(by_name)}")
    return out
