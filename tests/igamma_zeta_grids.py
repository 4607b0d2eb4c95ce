"""Wide value grids for igamma, igammac, igamma_grad_a and zeta (float64; the tests cast them
to float32 as well): tests/test_onnx_prims.py compares their ONNX rules with the XLA lowering
on them, tests/test_onnx_igamma_zeta.py with scipy."""
import numpy as np

NAN, INF = np.nan, np.inf

# a and x from 1e-3 to 1e3 and past, x near a (where the series gives way to the continued
# fraction), x = 0, and the edges: -0.0, negative, inf, NaN
A_VALUES = [1e-3, 0.01, 0.1, 0.5, 1.0, 1.5, 2.0, 4.5, 10.0, 30.0, 100.0, 300.0, 999.0, 1000.0, 1e4]
X_VALUES = [0.0, 1e-30, 1e-3, 0.1, 0.5, 0.999, 1.0, 1.001, 2.0, 5.0, 10.0, 31.0, 100.0, 500.0, 999.0, 1000.0,
            1001.0, 1e4, 1e6]
EDGES = [0.0, -0.0, -1.0, INF, NAN]


def _igamma_grid():
    a, x = np.meshgrid(A_VALUES + EDGES, X_VALUES + EDGES, indexing="ij")
    near_a = np.array([[v, v * f] for v in A_VALUES for f in (1 - 1e-7, 1 + 1e-7, 0.9, 1.1)]
                      + [[v, v + d] for v in A_VALUES for d in (-1.0, 1.0) if v + d >= 0])
    return np.concatenate([a.ravel(), near_a[:, 0]]), np.concatenate([x.ravel(), near_a[:, 1]])


def _zeta_grid():
    # x: below 1 (NaN), 1 (inf), just above, integers (the poles at q <= 0), large, inf
    xs = [0.5, 1.0, 1.0001, 1.01, 1.5, 2.0, 2.5, 3.0, 4.0, 7.0, 10.0, 21.0, 22.0, 50.0, 100.0, INF, NAN, -2.0]
    qs = [1e-3, 0.1, 0.5, 1.0, 2.0, 10.0, 1000.0, 1e6, 0.0, -0.0, -1.0, -2.0, -2.5, -0.5, INF, NAN]
    x, q = np.meshgrid(xs, qs, indexing="ij")
    return x.ravel(), q.ravel()


IGAMMA_A, IGAMMA_X = _igamma_grid()
ZETA_X, ZETA_Q = _zeta_grid()
