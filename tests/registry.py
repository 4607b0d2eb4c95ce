"""The primitive registry as the coverage tests must see it."""
import importlib
import pkgutil

import graphcell.ops
from graphcell.ops import PRIMITIVES


def every_primitive() -> dict:
    """PRIMITIVES once every graphcell.ops module is imported: a primitive defined in a module
    nothing has imported yet (an operator class's module, loaded on first use) must not slip
    past the checks that every primitive has its rules and test records."""
    for module in pkgutil.iter_modules(graphcell.ops.__path__):
        importlib.import_module(f"graphcell.ops.{module.name}")
    return PRIMITIVES
