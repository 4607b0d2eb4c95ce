"""Activations and elementwise ops at their kinks and at special values (0, -0.0, the kinks,
+-inf, NaN, large values), values and gradients (grad of the sum), eagerly, under jit (XLA) and
through onnxruntime, against MindSpore 2.10's arrays, measured on the real install (CPU,
PYNATIVE, mindspore.grad) and recorded here as literals.

Where graphcell departs from them on purpose, DEPARTURES says what it gives instead and why.
Departures not listed here are MindSpore's CPU kernels' own inaccuracies, which these inputs
avoid (tests/test_layers_more.py lists them): approximate exp and tanh (tanh(6) = 1.0), LogSigmoid
-inf below -88, Mish and FastGelu NaN far out, SeLU's wrong gradient below 0."""
import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn, ops

nan, inf = np.nan, np.inf
X32 = [0.0, -0.0, 1e-7, -1e-7, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 6.0, -6.0, 20.0, -20.0, 1e4, -1e4, inf, -inf, nan]
X16 = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 6.0, -6.0, 10.0, -10.0, 1e4, -1e4, 65000.0, -65000.0, inf, -inf, nan]

FUNCTIONS = {
    "relu": ops.relu, "relu6": ops.relu6, "leaky_relu": ops.leaky_relu,
    "leaky_relu2": lambda x: ops.leaky_relu(x, 2.0), "elu": ops.elu, "hardsigmoid": ops.hardsigmoid,
    "hardswish": ops.hardswish, "hardtanh": ops.hardtanh, "softsign": ops.softsign, "sign": ops.sign,
    "abs": ops.abs, "clamp": lambda x: ops.clamp(x, -1.0, 1.0),
    "clip_by_value": lambda x: ops.clip_by_value(x, -1.0, 1.0),
    "maximum0": lambda x: ops.maximum(x, ops.zeros_like(x)), "minimum0": lambda x: ops.minimum(x, ops.zeros_like(x)),
    "PReLU": nn.PReLU(), "softplus": ops.softplus, "logsigmoid": ops.logsigmoid, "sigmoid": ops.sigmoid,
    "gelu_tanh": lambda x: ops.gelu(x, "tanh"), "sqrt": ops.sqrt, "round": ops.round, "floor": ops.floor,
    "rsqrt": ops.rsqrt, "log": ops.log, "pow0": lambda x: ops.pow(x, 0.0), "div_self": lambda x: ops.div(x, x),
    "Threshold": nn.Threshold(1.0, 20.0), "threshold": lambda x: ops.threshold(x, 0.5, -2.0),
}

# name: (values, gradients) over X32, measured on MindSpore 2.10
MINDSPORE_F32 = {
    "relu": ([0.0, 0.0, 1e-07, 0.0, 0.5, 0.0, 1.0, 0.0, 3.0, 0.0, 6.0, 0.0, 20.0, 0.0, 10000.0, 0.0, inf, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]),
    "relu6": ([0.0, 0.0, 1e-07, 0.0, 0.5, 0.0, 1.0, 0.0, 3.0, 0.0, 6.0, 0.0, 6.0, 0.0, 6.0, 0.0, 6.0, 0.0, nan],
        [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "leaky_relu": ([0.0, -0.0, 1e-07, -2e-08, 0.5, -0.1, 1.0, -0.2, 3.0, -0.6, 6.0, -1.2, 20.0, -4.0, 10000.0,
                    -2000.0, inf, -inf, nan],
        [0.6, 0.6, 1.0, 0.2, 1.0, 0.2, 1.0, 0.2, 1.0, 0.2, 1.0, 0.2, 1.0, 0.2, 1.0, 0.2, 0.6, 0.6, 1.2]),
    "leaky_relu2": ([0.0, -0.0, 1e-07, -2e-07, 0.5, -1.0, 1.0, -2.0, 3.0, -6.0, 6.0, -12.0, 20.0, -40.0, 10000.0,
                     -20000.0, inf, -inf, nan],
        [1.5, 1.5, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.5, 1.5, 3.0]),
    "elu": ([0.0, 0.0, 1e-07, -1.1920929e-07, 0.5, -0.3934695, 1.0, -0.6321212, 3.0, -0.95021296, 6.0, -0.9975213,
             20.0, -1.0, 10000.0, -1.0, inf, -1.0, nan],
        [1.0, 1.0, 1.0, 0.9999999, 1.0, 0.6065305, 1.0, 0.3678788, 1.0, 0.049787045, 1.0, 0.0024787188, 1.0, 0.0, 1.0,
         0.0, 1.0, 0.0, 1.0]),
    "hardsigmoid": ([0.5, 0.5, 0.5, 0.5, 0.5833333, 0.41666666, 0.6666667, 0.33333334, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0,
                     1.0, 0.0, 1.0, 0.0, nan],
        [0.16666667, 0.16666667, 0.16666667, 0.16666667, 0.16666667, 0.16666667, 0.16666667, 0.16666667, 0.0, 0.0,
         0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.16666667]),
    "hardswish": ([0.0, -0.0, 5e-08, -5e-08, 0.29166666, -0.20833333, 0.6666667, -0.33333334, 3.0, 0.0, 6.0, 0.0,
                   20.0, 0.0, 10000.0, 0.0, inf, 0.0, nan],
        [0.5, 0.5, 0.50000006, 0.49999997, 0.6666667, 0.33333334, 0.8333333, 0.16666667, 1.5, -0.5, 1.0, 0.0, 1.0,
         0.0, 1.0, 0.0, 1.0, 0.0, nan]),
    "hardtanh": ([0.0, -0.0, 1e-07, -1e-07, 0.5, -0.5, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0,
                  -1.0, -1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
    "softsign": ([0.0, -0.0, 9.999999e-08, -9.999999e-08, 0.33333334, -0.33333334, 0.5, -0.5, 0.75, -0.75, 0.85714287,
                  -0.85714287, 0.95238096, -0.95238096, 0.9999, -0.9999, nan, nan, nan],
        [1.0, 1.0, 0.99999976, 0.99999976, 0.44444445, 0.44444445, 0.25, 0.25, 0.0625, 0.0625, 0.020408163,
         0.020408163, 0.0022675737, 0.0022675737, 9.998001e-09, 9.998001e-09, 0.0, 0.0, nan]),
    "sign": ([0.0, 0.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "abs": ([0.0, 0.0, 1e-07, 1e-07, 0.5, 0.5, 1.0, 1.0, 3.0, 3.0, 6.0, 6.0, 20.0, 20.0, 10000.0, 10000.0, inf, inf,
             nan],
        [0.0, 0.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 0.0]),
    "clamp": ([0.0, -0.0, 1e-07, -1e-07, 0.5, -0.5, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0,
               -1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "clip_by_value": ([0.0, -0.0, 1e-07, -1e-07, 0.5, -0.5, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0,
                       1.0, -1.0, -1.0],
        [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
    "maximum0": ([0.0, 0.0, 1e-07, 0.0, 0.5, 0.0, 1.0, 0.0, 3.0, 0.0, 6.0, 0.0, 20.0, 0.0, 10000.0, 0.0, inf, 0.0,
                  0.0],
        [0.5, 0.5, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]),
    "minimum0": ([0.0, 0.0, 0.0, -1e-07, 0.0, -0.5, 0.0, -1.0, 0.0, -3.0, 0.0, -6.0, 0.0, -20.0, 0.0, -10000.0, 0.0,
                  -inf, 0.0],
        [0.5, 0.5, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0]),
    "PReLU": ([0.0, -0.0, 1e-07, -2.5e-08, 0.5, -0.125, 1.0, -0.25, 3.0, -0.75, 6.0, -1.5, 20.0, -5.0, 10000.0,
               -2500.0, inf, -inf, nan],
        [0.25, 0.25, 1.0, 0.25, 1.0, 0.25, 1.0, 0.25, 1.0, 0.25, 1.0, 0.25, 1.0, 0.25, 1.0, 0.25, 1.0, 0.25, 1.0]),
    "softplus": ([0.693147, 0.693147, 0.693147, 0.693147, 0.97407687, 0.47407684, 1.313261, 0.3132612, 3.048587,
                  0.04858733, 6.0024757, 0.002475652, 20.0, 0.0, 10000.0, 0.0, inf, 0.0, inf],
        [0.5, 0.5, 0.50000006, 0.5, 0.6224594, 0.37754065, 0.7310589, 0.26894155, 0.95257413, 0.047425848, 0.9975274,
         0.00247262, 1.0, 2.061143e-09, 1.0, 0.0, 1.0, 0.0, 0.0]),
    "logsigmoid": ([-0.693147, -0.693147, -0.6931469, -0.693147, -0.4740767, -0.9740767, -0.31326106, -1.3132608,
                    -0.048587203, -3.048587, -0.0024756193, -6.0024757, 0.0, -19.999994, 0.0, -inf, 0.0, -inf, nan],
        [0.5, 0.5, 0.49999994, 0.5, 0.3775406, 0.62245935, 0.2689411, 0.7310585, 0.047425866, 0.95257413,
         0.0024725795, 0.99752736, 0.0, 1.0, 0.0, nan, 0.0, nan, nan]),
    "sigmoid": ([0.5, 0.5, 0.50000006, 0.5, 0.6224594, 0.37754065, 0.7310589, 0.26894155, 0.95257413, 0.047425848,
                 0.9975274, 0.00247262, 1.0, 2.0611537e-09, 1.0, 0.0, 1.0, 0.0, nan],
        [0.25, 0.25, 0.25, 0.25, 0.2350037, 0.23500371, 0.19661179, 0.196612, 0.045176655, 0.045176636, 0.0024664658,
         0.002466506, 0.0, 2.0611537e-09, 0.0, 0.0, 0.0, 0.0, nan]),
    "gelu_tanh": ([0.0, -0.0, 5.0000008e-08, -4.9999997e-08, 0.345714, -0.154286, 0.841192, -0.158808, 2.9963627,
                   -0.003637433, 6.0, -0.0, 20.0, -0.0, 10000.0, -0.0, inf, nan, nan],
        [0.5, 0.5, 0.5000001, 0.49999994, 0.8673699, 0.13263011, 1.0829641, -0.08296408, 1.0115843, -0.011584243, 1.0,
         0.0, 1.0, 0.0, 1.0, 0.0, nan, nan, nan]),
    "sqrt": ([0.0, -0.0, 0.00031622776, nan, 0.70710677, nan, 1.0, nan, 1.7320508, nan, 2.4494898, nan, 4.472136, nan,
              100.0, nan, inf, nan, nan],
        [inf, -inf, 1581.1389, nan, 0.70710677, nan, 0.5, nan, 0.28867513, nan, 0.20412414, nan, 0.1118034, nan,
         0.005, nan, 0.0, nan, nan]),
    "round": ([0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 6.0, -6.0, 20.0, -20.0, 10000.0, -10000.0, inf,
               -inf, nan],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "floor": ([0.0, -0.0, 0.0, -1.0, 0.0, -1.0, 1.0, -1.0, 3.0, -3.0, 6.0, -6.0, 20.0, -20.0, 10000.0, -10000.0, inf,
               -inf, nan],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    "rsqrt": ([inf, -inf, 3162.2778, nan, 1.4142135, nan, 1.0, nan, 0.57735026, nan, 0.40824828, nan, 0.2236068, nan,
               0.01, nan, 0.0, nan, nan],
        [-inf, inf, -1.581139e+10, nan, -1.4142134, nan, -0.5, nan, -0.09622504, nan, -0.03402069, nan, -0.0055901697,
         nan, -5e-07, nan, -0.0, nan, nan]),
    "log": ([-inf, -inf, -16.118095, nan, -0.6931472, nan, 0.0, nan, 1.0986123, nan, 1.7917595, nan, 2.9957323, nan,
             9.2103405, nan, inf, nan, nan],
        [inf, inf, 1e+07, -1e+07, 2.0, -2.0, 1.0, -1.0, 0.33333334, -0.33333334, 0.16666667, -0.16666667, 0.05, -0.05,
         1e-04, -1e-04, 0.0, -0.0, nan]),
    "pow0": ([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        [nan, nan, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, nan]),
    "div_self": ([nan, nan, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, nan, nan, nan],
        [inf, inf, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan, nan, nan]),
    "Threshold": ([20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 3.0, 20.0, 6.0, 20.0, 20.0, 20.0, 10000.0, 20.0,
                   inf, 20.0, 20.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]),
    "threshold": ([-2.0, -2.0, -2.0, -2.0, -2.0, -2.0, 1.0, -2.0, 3.0, -2.0, 6.0, -2.0, 20.0, -2.0, 10000.0, -2.0,
                   inf, -2.0, -2.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]),
}

# name: (values, gradients) over X16 in float16, measured on MindSpore 2.10
MINDSPORE_F16 = {
    "relu": ([0.0, 0.0, 0.5, 0.0, 1.0, 0.0, 3.0, 0.0, 6.0, 0.0, 10.0, 0.0, 1e+04, 0.0, 6.5e+04, 0.0, inf, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]),
    "leaky_relu": ([0.0, -0.0, 0.5, -0.1, 1.0, -0.2, 3.0, -0.5996, 6.0, -1.199, 10.0, -2.0, 1e+04, -2e+03, 6.5e+04,
                    -1.299e+04, inf, -inf, nan],
        [0.6, 0.6, 1.0, 0.2, 1.0, 0.2, 1.0, 0.2, 1.0, 0.2, 1.0, 0.2, 1.0, 0.2, 1.0, 0.2, 0.6, 0.6, 1.2]),
    "hardsigmoid": ([0.5, 0.5, 0.5835, 0.4167, 0.6665, 0.3333, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0,
                     0.0, nan],
        [0.1666, 0.1666, 0.1666, 0.1666, 0.1666, 0.1666, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
         0.1666]),
    "hardswish": ([0.0, -0.0, 0.2917, -0.2084, 0.6665, -0.3333, 3.0, 0.0, 6.0, 0.0, 10.0, 0.0, 1e+04, 0.0, 6.5e+04,
                   0.0, inf, 0.0, nan],
        [0.5, 0.5, 0.6665, 0.3333, 0.8335, 0.1666, 1.5, -0.5, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, nan]),
    "softplus": ([0.6934, 0.6934, 0.974, 0.474, 1.313, 0.3132, 3.049, 0.04858, 6.004, 0.002476, 10.0, 4.54e-05, 1e+04,
                  0.0, 6.5e+04, 0.0, inf, 0.0, inf],
        [0.5, 0.5, 0.6226, 0.3774, 0.731, 0.269, 0.9526, 0.04742, 0.9976, 0.002472, 1.0, 4.54e-05, 1.0, 0.0, 1.0, 0.0,
         1.0, 0.0, 0.0]),
    "gelu_tanh": ([0.0, -0.0, 0.3457, -0.1543, 0.8413, -0.1588, 2.996, -0.003637, 6.0, -0.0, 10.0, -0.0, 1e+04, -0.0,
                   6.5e+04, -0.0, inf, nan, nan],
        [0.5, 0.5, 0.867, 0.1327, 1.083, -0.08295, 1.012, -0.01158, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, nan, nan,
         nan]),
    "sign": ([0.0, 0.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
}

NAN_MAX = "max and min keep a NaN (MindSpore's CPU max(x, y) is `x > y ? x : y`: y for a NaN x); " \
          "onnxruntime has no such op, and Where runs 26x slower than Max"
# (dtype, name, "y" or "g", backend or "*") -> ([(input, graphcell's value)], the reason)
DEPARTURES = {
    ("*", "relu", "y", "onnx"): ([(nan, nan)], "onnxruntime's Relu keeps NaN: see compiler/onnx_rules.relu"),
    ("*", "hardswish", "y", "onnx"): ([(-inf, nan)], "onnxruntime's HardSwish is x * hardsigmoid(x): NaN at -inf"),
    ("*", "elu", "g", "onnx"): ([(nan, nan)], "the gradient's mask product meets exp(NaN) (XLA rewrites it to a select)"),
    ("*", "elu", "g", "*"): ([(nan, 0.0)], "as above: EluGrad's 1 at NaN would cost a Where in onnxruntime"),
    ("float32", "hardtanh", "y", "*"): ([(nan, nan)], NAN_MAX),
    ("float32", "clamp", "y", "*"): ([(nan, nan)], NAN_MAX),
    ("float32", "clip_by_value", "y", "*"): ([(nan, nan)], NAN_MAX),
    ("float32", "maximum0", "y", "*"): ([(nan, nan)], NAN_MAX),
    ("float32", "minimum0", "y", "*"): ([(nan, nan)], NAN_MAX),
    ("*", "softplus", "y", "*"): ([(nan, nan)], "MindSpore's Softplus turns NaN into inf"),
    ("*", "softplus", "g", "*"): ([(nan, nan)], "and its gradient into 0"),
    ("float32", "logsigmoid", "y", "*"): ([(-1e4, -1e4)], "MindSpore's overflows to -inf below -88"),
    ("float32", "logsigmoid", "g", "*"): ([(-1e4, 1.0), (-inf, 1.0), (nan, nan)], "and its gradient to NaN"),
    ("float32", "rsqrt", "g", "*"): ([(-0.0, -inf)], "-0.5 rsqrt(x) / x; MindSpore's sign at -0.0 is +"),
    ("float32", "log", "g", "*"): ([(-0.0, -inf)], "1 / x; MindSpore's sign at -0.0 is +"),
    ("float32", "pow0", "g", "*"): ([(0.0, 0.0), (-0.0, 0.0), (nan, 0.0)],
                                    "d/dx x^0 is 0 (jax's and torch's rule; MindSpore's is 0 * 0^-1)"),
    ("float32", "div_self", "g", "*"): ([(0.0, nan), (-0.0, nan)],
                                        "x's two cotangents at 0/0, 1/0 and -(0/0)/0, are inf and NaN; "
                                        "MindSpore's DivGrad gives inf for both"),
}


# MindSpore's gelu(-3) is 1.2e-5 off (1 + tanh(u) cancels; graphcell's x sigmoid(2u) is exact)
TOLERANCE = {"gelu_tanh": 2e-5}


def backends(fn):
    return {"eager": fn, "xla": ms.jit(fn), "onnx": ms.jit(fn, backend="onnx")}


def _expected(dtype, name, kind, backend, xs, want):
    want = np.array(want, np.float64)
    # the most specific last: a backend's own departure overrides the general one
    for key in (("*", name, kind, "*"), (dtype, name, kind, "*"), ("*", name, kind, backend),
                (dtype, name, kind, backend)):
        if key in DEPARTURES:
            for x, value in DEPARTURES[key][0]:
                for i, v in enumerate(xs):
                    if (v == x and np.signbit(v) == np.signbit(x)) or (np.isnan(v) and np.isnan(x)):
                        want[i] = value
    return want


CASES = [("float32", n) for n in MINDSPORE_F32] + [("float16", n) for n in MINDSPORE_F16]


@pytest.mark.parametrize("dtype,name", CASES, ids=[f"{n}-{d}" for d, n in CASES])
def test_values_and_gradients_at_special_values_are_mindspores(dtype, name):
    xs, table = (X32, MINDSPORE_F32) if dtype == "float32" else (X16, MINDSPORE_F16)
    x = Tensor(np.array(xs, dtype))
    fn = FUNCTIONS[name]
    tol = TOLERANCE.get(name, 1e-5) if dtype == "float32" else 2e-3
    for kind, f in (("y", fn), ("g", ms.grad(lambda v: fn(v).sum()))):
        for backend, run in backends(f).items():
            want = _expected(dtype, name, kind, backend, xs, table[name][0 if kind == "y" else 1])
            got = run(x).asnumpy()
            assert got.dtype == np.dtype(dtype)
            np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=1e-7, equal_nan=True,
                                       err_msg=f"{name} {dtype} {kind} {backend}")


# maximum and minimum of two tensors: ties (0 and -0.0, +-inf) send half the cotangent to each
# operand, a NaN on either side the whole of it to both; MindSpore 2.10, measured
A = [1.0, 2.0, 0.0, -0.0, 0.0, nan, 1.0, nan, inf, -inf, inf, nan, 3.0]
B = [2.0, 1.0, -0.0, 0.0, 0.0, 1.0, nan, nan, inf, -inf, 1.0, inf, 3.0]
MINMAX = {
    "maximum": ([2.0, 2.0, -0.0, 0.0, 0.0, 1.0, nan, nan, inf, -inf, inf, inf, 3.0],
                [0.0, 1.0, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 0.5, 0.5, 1.0, 1.0, 0.5],
                [1.0, 0.0, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 0.5, 0.5, 0.0, 1.0, 0.5]),
    "minimum": ([1.0, 1.0, -0.0, 0.0, 0.0, 1.0, nan, nan, inf, -inf, 1.0, inf, 3.0],
                [1.0, 0.0, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 0.5, 0.5, 0.0, 1.0, 0.5],
                [0.0, 1.0, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 0.5, 0.5, 1.0, 1.0, 0.5]),
}


@pytest.mark.parametrize("name", sorted(MINMAX))
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_maximum_and_minimum_share_ties_and_nan_as_mindspore(name, dtype):
    fn = getattr(ops, name)
    a, b = Tensor(np.array(A, dtype)), Tensor(np.array(B, dtype))
    want_y, want_ga, want_gb = (np.array(v, np.float64) for v in MINMAX[name])
    want_y[np.isnan(A)] = nan   # NAN_MAX: a NaN operand gives NaN (MindSpore's: the other operand)
    for backend, run in backends(fn).items():
        np.testing.assert_array_equal(run(a, b).asnumpy().astype(np.float64), want_y, err_msg=backend)
    for backend, run in backends(ms.grad(lambda p, q: fn(p, q).sum(), (0, 1))).items():
        ga, gb = run(a, b)
        np.testing.assert_array_equal(ga.asnumpy(), want_ga, err_msg=backend)
        np.testing.assert_array_equal(gb.asnumpy(), want_gb, err_msg=backend)
    # a broadcast operand sums its shares: MindSpore 2.10 gives [0.5, 0.5, 1, 0] and 2
    x, zero = Tensor(np.array([0.0, 0.0, 1.0, -1.0], dtype)), Tensor(np.zeros((), dtype))
    gx, gz = ms.grad(lambda p, q: ops.maximum(p, q).sum(), (0, 1))(x, zero)
    np.testing.assert_array_equal(gx.asnumpy(), [0.5, 0.5, 1.0, 0.0])
    assert float(gz.asnumpy()) == 2.0
