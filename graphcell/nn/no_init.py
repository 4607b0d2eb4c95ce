"""MindSpore 2.10's nn.no_init_parameters.

2.10 uses it to skip initialising parameters that a checkpoint will overwrite; on its CPU build
nothing under it is visible to the user (every Parameter's `init_param` stays True and the
network computes with its initialised values: measured). graphcell initialises parameters
eagerly and cheaply, so the context manager changes nothing either.
"""
from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def no_init_parameters():
    """`with nn.no_init_parameters(): net = Net()`: accepted; parameters initialise as usual."""
    yield
