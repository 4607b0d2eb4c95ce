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


class SmallConv(nn.Cell):
    """A 3x3 convolution and a Dense: in float16 under amp O1 (tests/test_cli.py)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="same")
        self.relu = nn.ReLU()
        self.flat = nn.Flatten()
        self.fc = nn.Dense(4 * 6 * 6, 3)

    def construct(self, x):
        return self.fc(self.flat(self.relu(self.conv(x))))


def amp_o1_conv():
    """An amp O1 network (a `SmallConvOpt` copy computing its conv and Dense in float16)."""
    from graphcell import amp
    return amp.auto_mixed_precision(SmallConv(), "O1")


class DropoutNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.drop(self.fc(x))


class DropoutTrainStep(nn.Cell):
    """A training step (experimental.optim) around a network with Dropout."""

    def __init__(self):
        super().__init__()
        from graphcell import value_and_grad
        from graphcell.experimental import optim
        self.net = DropoutNet()
        self.opt = optim.SGD(self.net.trainable_params(), lr=0.1)
        self.grad_fn = value_and_grad(self.loss, None, self.opt.parameters)

    def loss(self, x):
        return (self.net(x) ** 2).mean()

    def construct(self, x):
        loss, grads = self.grad_fn(x)
        self.opt(grads)
        return loss


def dropout_net_training():
    """A plain network left in training mode by its factory: the command still infers."""
    return DropoutNet().set_train()


def dropout_train_step():
    """A training step set to train, as Model.train would: it keeps Dropout on."""
    return DropoutTrainStep().set_train()


def not_a_cell():
    return 42


if __name__ == "__main__":  # loading this file must not run this block
    raise SystemExit("the graphcell command ran the file's __main__ block")
