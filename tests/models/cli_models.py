"""Small models for the `graphcell` command's tests (tests/test_cli.py)."""
from graphcell import nn, ops


class TinyNet(nn.Cell):
    """A two-layer perceptron: small enough that every CLI test runs in a second or two."""

    def __init__(self, in_features=4, hidden=8, num_class=3):
        super().__init__()
        self.fc1 = nn.Dense(in_features, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(hidden, num_class)

    def construct(self, x):
        x = self.fc1(x)
        x = self.relu(x)
        return self.fc2(x)


def tiny_net(hidden=8):
    """A function returning a Cell, as MODEL may name."""
    return TinyNet(hidden=hidden)


class ComplexInside(nn.Cell):
    """Real input and output, a complex value inside (ONNX carries it as a real [..., 2])."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        y = self.fc(x)
        return ops.real(ops.polar(y, y * 2.0))


def not_a_cell():
    return 42


if __name__ == "__main__":  # loading this file must not run this block
    raise SystemExit("the graphcell command ran the file's __main__ block")
