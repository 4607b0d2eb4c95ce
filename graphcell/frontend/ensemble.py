"""Model ensembles: the parameters of N same-architecture Cells stacked on a new axis 0.

While an `Ensemble` owns its members, the stacked Parameters are the source of truth: each
member Parameter is "homed" in a `StackSlot` (`param._home`, `param._home_index`), so reading
`net1.conv1.weight` returns its slice of the stack and writing it writes into the stack. A
vmapped step then reads and writes the stacked Parameters only and copies nothing per member.

Another ensemble over the same Cells may adopt them later (the seed runs `vmap(train_nets)`
and then `vmap(nets)`): it reads the current values, re-homes the members, and marks the old
ensemble as not owning them; the old one re-adopts (one copy) the next time its stacks are
read: by its vmapped callable, or by any compiled graph that inlined it (`StackedParameter`),
so alternating two ensembles over the same Cells retraces nothing.
"""
from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np

from ..tensor import Parameter, host_to_device

# Up to and including the first index component: a CellList held as `self.nets` names its
# members' Parameters `nets.0.fc.weight` (MindSpore 2.10 stacks those; measured).
_INDEX_PREFIX = re.compile(r"^(?:[^.]+\.)*?\d+\.")


def postfix_name(name: str) -> str:
    """A member parameter's name without the CellList index (`0.conv1.weight` -> `conv1.weight`,
    `nets.1.conv1.weight` -> `conv1.weight`), which is how MindSpore matches parameters across
    members."""
    return _INDEX_PREFIX.sub("", name, count=1)


class StackedParameter(Parameter):
    """An ensemble's stacked Parameter. Reading its value first makes its ensemble the members'
    home again if another ensemble adopted them since, so a graph traced against these stacks
    (a vmapped step, or a jitted function that called it) stays valid and reads current values."""
    __slots__ = ("_ensemble",)

    def __init__(self, array, ensemble: "Ensemble", **kwargs):
        super().__init__(array, **kwargs)
        self._ensemble = ensemble

    @property
    def _payload(self):
        if not self._ensemble.owns:
            self._ensemble.ensure_home()
        return self._array

    @_payload.setter
    def _payload(self, array):
        self._array = array


class StackSlot:
    """The home of one parameter's N member copies: a stacked Parameter of shape [N, ...]."""

    def __init__(self, ensemble: "Ensemble", stacked: StackedParameter):
        self.ensemble = ensemble
        self.stacked = stacked
        self._slices: tuple = (None, {})  # (the stacked array they came from, {i: slice})

    def member_array(self, i: int):
        # Reading a member's shape or dtype reads its array, so slices are cached until the
        # stack changes. Slicing eagerly with jax compiles one program per shape (and index):
        # on the CPU a numpy view copied once compiles nothing.
        stack = self.stacked._array   # this slot is the member's home: its array is current
        source, slices = self._slices
        if source is not stack:
            slices = {}
            self._slices = (stack, slices)
        if i not in slices:
            slices[i] = _member_slice(stack, i)
        return slices[i]

    def write_member(self, i: int, array) -> None:
        self.stacked._array = _write_slice(self.stacked._array, i, jnp.asarray(array))


def _stack(arrays: list):
    """The members' arrays stacked on a new axis 0. On the CPU through numpy: jnp.stack (and
    jnp.asarray) compile an XLA program per shape and member count (~20-35 ms each, most of a
    new ensemble's set-up)."""
    if all(isinstance(a, np.ndarray) or _on_cpu(a) for a in arrays):
        return jax.device_put(np.stack([np.asarray(a) for a in arrays]))  # a fresh array: no alias
    return jnp.stack([jnp.asarray(a) for a in arrays])


def _on_cpu(array) -> bool:
    return all(d.platform == "cpu" for d in array.devices())


def _copy(stack):
    if _on_cpu(stack):
        return jax.device_put(np.array(stack))   # see _stack
    return jnp.copy(stack)


def _member_slice(stack, i: int):
    if _on_cpu(stack):
        return host_to_device(np.asarray(stack)[i])
    return _device_slice(stack, i)


_device_slice = jax.jit(lambda stack, i: stack[i])
_write_slice = jax.jit(lambda stack, i, value: stack.at[i].set(value.astype(stack.dtype)))


class Ensemble:
    """The stacked parameters of a CellList's members (checked to share an architecture)."""

    def __init__(self, cells):
        self.members = list(cells)
        from ..nn.cell import state_parameters   # nn builds on frontend: here, at the call
        n = len(self.members)
        if n == 0:
            raise ValueError("vmap: the CellList is empty")
        self.member_params = [state_parameters(c) for c in self.members]
        check_same_parameters(self.member_params)
        self.owns = False
        self.slots: list[StackSlot] = []
        self._slot_of: dict[int, StackSlot] = {}   # id(member-0 Parameter) -> slot
        arrays = self._current_stacks()
        for p0, array in zip(self.member_params[0], arrays):
            slot = StackSlot(self, StackedParameter(array, self, name=postfix_name(p0.name),
                                                    requires_grad=p0.requires_grad))
            self.slots.append(slot)
            self._slot_of[id(p0)] = slot
        self.mesh = None  # set by place(): the 1-D `ensemble` mesh the stacks are split over
        self._adopt(arrays)

    def __len__(self):
        return len(self.members)

    def members_changed(self) -> bool:
        """Whether a member's Parameters are other objects than the ones stacked (a member's
        `bias` replaced by a new Parameter after the ensemble was built)."""
        from ..nn.cell import state_parameters
        for cell, stacked in zip(self.members, self.member_params):
            now = state_parameters(cell)
            if len(now) != len(stacked) or any(a is not b for a, b in zip(now, stacked)):
                return True
        return False

    def stacked_for(self, member0_param) -> Parameter | None:
        """The stacked Parameter standing for a member-0 Parameter (None: not a member's)."""
        slot = self._slot_of.get(id(member0_param))
        return None if slot is None else slot.stacked

    def place(self, mesh) -> None:
        """Splits every stack's axis 0 over `mesh` (None: leaves them where they are), so each
        device holds its share of the members (issue 10; see graphcell/parallel.py)."""
        from ..parallel import ensemble_sharding, place
        self.mesh = mesh
        if mesh is None:
            return
        for slot in self.slots:
            array = slot.stacked._array
            slot.stacked._array = place(array, ensemble_sharding(mesh, array.ndim))

    def _current_stacks(self) -> list:
        stacks = []
        for j in range(len(self.member_params[0])):
            params = [ps[j] for ps in self.member_params]
            home = params[0]._home
            if home is not None and all(p._home is home and p._home_index == i for i, p in enumerate(params)) \
                    and len(home.ensemble) == len(params):
                stacks.append(_copy(home.stacked._array))   # another ensemble of these members, in order
            else:
                stacks.append(_stack([p._payload for p in params]))
        return stacks

    def ensure_home(self) -> None:
        """Makes the stacks the home of every member parameter again if another ensemble
        adopted them since (reading their current values first)."""
        if not self.owns:
            self._adopt(self._current_stacks())

    def _adopt(self, arrays) -> None:
        for slot, array in zip(self.slots, arrays):
            slot.stacked._array = array
        for i, params in enumerate(self.member_params):
            for slot, p in zip(self.slots, params):
                old = p._home
                if old is not None and old.ensemble is not self:
                    old.ensemble.owns = False
                p._home, p._home_index = slot, i
        self.owns = True
        self.place(self.mesh)  # re-adopted stacks go back onto the ensemble mesh


def check_same_parameters(member_params: list[list[Parameter]]) -> None:
    """Raises MindSpore's errors (with the member and parameter named) on the first
    difference in parameter count, postfix name, shape or dtype."""
    first = member_params[0]
    owner: dict[int, int] = {}
    for i, params in enumerate(member_params):
        for p in params:
            if owner.setdefault(id(p), i) != i:
                raise ValueError(f"vmap: members {owner[id(p)]} and {i} share Parameter {p.name!r}; "
                                 "ensemble members need their own parameters")
    for i, params in enumerate(member_params[1:], 1):
        if len(params) != len(first):
            raise ValueError(f"Parameter size of each cell should be consistent, but get {len(first)} and "
                             f"{len(params)}. (member 0 has {len(first)} parameters, member {i} has "
                             f"{len(params)})")
        for p0, p in zip(first, params):
            if postfix_name(p0.name) != postfix_name(p.name):
                raise RuntimeError(f"The corresponding parameter's postfix name in each cell should be "
                                   f"consistent, but get {p0.name} and {p.name}. (member 0 and member {i})")
            if p0.shape != p.shape:
                raise RuntimeError(
                    f"The corresponding parameter's shape in each cell should be consistent, but get "
                    f" Shape: {' '.join(map(str, p0.shape))} and  Shape: {' '.join(map(str, p.shape))} "
                    f"for the parameter vmap.{postfix_name(p0.name)}. (member 0: {list(p0.shape)}, "
                    f"member {i}: {list(p.shape)})")
            if p0.dtype is not p.dtype:
                raise RuntimeError(f"The corresponding parameter's dtype in each cell should be consistent, "
                                   f"but get {p0.dtype} and {p.dtype} for the parameter "
                                   f"vmap.{postfix_name(p0.name)} (member 0 and member {i})")
