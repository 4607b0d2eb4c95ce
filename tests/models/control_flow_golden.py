"""The program of the control-flow IR golden text (its own file: subgraph names carry lines)."""


def f(x, n):
    if x.sum() > 0:
        x = x * 2
    while x.sum() < n:
        x = x + 1
    return x
