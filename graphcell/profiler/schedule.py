"""`schedule`: which steps a Profiler records, as MindSpore 2.10 counts them (measured:
schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1) gives, for steps 0..7,
NONE NONE WARM_UP RECORD RECORD_AND_SAVE NONE NONE NONE; repeat=0 cycles for ever; a bad
value is warned about and reset: wait/warmup/repeat/skip_first to 0, active to 1)."""
from __future__ import annotations

import enum
import warnings


class ProfilerAction(enum.Enum):
    NONE = 0
    WARM_UP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def _checked(name: str, value, default: int, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):   # 2.10's words
        warnings.warn(f"Parameter '{name}' should be of type int, but got {type(value).__name__}. "
                      f"reset to int {default}.", stacklevel=3)
        return default
    if value < least:
        warnings.warn(f"Parameter '{name}' should be greater than or equal to {least}, but got {value}. "
                      f"reset to int {default}.", stacklevel=3)
        return default
    return value


class Schedule:
    def __init__(self, *, wait: int, active: int, warmup: int = 0, repeat: int = 0, skip_first: int = 0) -> None:
        self.wait = _checked("wait", wait, 0, 0)
        self.active = _checked("active", active, 1, 1)
        self.warmup = _checked("warmup", warmup, 0, 0)
        self.repeat = _checked("repeat", repeat, 0, 0)
        self.skip_first = _checked("skip_first", skip_first, 0, 0)
        if self.warmup == 0:
            warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def __call__(self, step: int) -> ProfilerAction:
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        cycle = self.wait + self.warmup + self.active
        if self.repeat > 0 and step // cycle >= self.repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < self.wait:
            return ProfilerAction.NONE
        if pos < self.wait + self.warmup:
            return ProfilerAction.WARM_UP
        return ProfilerAction.RECORD_AND_SAVE if pos == cycle - 1 else ProfilerAction.RECORD

    def to_dict(self) -> dict:
        return {"wait": self.wait, "active": self.active, "warmup": self.warmup, "repeat": self.repeat,
                "skip_first": self.skip_first}

    def __repr__(self):
        return "Schedule(" + ", ".join(f"{k}={v}" for k, v in self.to_dict().items()) + ")"


schedule = Schedule
