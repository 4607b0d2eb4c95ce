"""mindspore.scipy.optimize: minimize (BFGS, LBFGS), line_search and linear_sum_assignment, eager only
as MindSpore 2.10's."""
from .line_search import line_search
from .linear_sum_assignment import linear_sum_assignment
from .minimize import minimize

__all__ = ["minimize", "line_search", "linear_sum_assignment"]
