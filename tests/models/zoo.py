"""A zoo of small networks as MindSpore users write them (tests/test_onnx_zoo.py exports each
to ONNX). Every model also runs unchanged under MindSpore 2.10 with the imports swapped."""
import numpy as np

import graphcell as ms
from graphcell import Tensor, nn, ops


def conv_bn(cin, cout, k=3, stride=1, group=1, act="relu"):
    layers = [nn.Conv2d(cin, cout, k, stride=stride, pad_mode="pad" if k > 1 else "valid",
                        padding=k // 2 if k > 1 else 0, group=group, has_bias=False), nn.BatchNorm2d(cout)]
    if act == "relu":
        layers.append(nn.ReLU())
    elif act == "relu6":
        layers.append(nn.ReLU6())
    return nn.SequentialCell(layers)


class BasicBlock(nn.Cell):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, pad_mode="pad", padding=1, has_bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, pad_mode="pad", padding=1, has_bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.SequentialCell([nn.Conv2d(cin, cout, 1, stride=stride, has_bias=False),
                                           nn.BatchNorm2d(cout)])

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down is not None:
            identity = self.down(x)
        return self.relu(out + identity)


class ResNetTiny(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = conv_bn(3, 8)
        self.pool = nn.MaxPool2d(2, 2)
        self.layer1 = nn.SequentialCell([BasicBlock(8, 8), BasicBlock(8, 8)])
        self.layer2 = nn.SequentialCell([BasicBlock(8, 16, 2), BasicBlock(16, 16)])
        self.avg = nn.AdaptiveAvgPool2d((1, 1))
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(16, num_classes)

    def construct(self, x):
        x = self.pool(self.stem(x))
        x = self.layer2(self.layer1(x))
        return self.fc(self.flatten(self.avg(x)))


class InvertedResidual(nn.Cell):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        layers = []
        if expand != 1:
            layers.append(conv_bn(cin, hidden, 1, act="relu6"))
        layers += [conv_bn(hidden, hidden, 3, stride, group=hidden, act="relu6"),
                   nn.Conv2d(hidden, cout, 1, has_bias=False), nn.BatchNorm2d(cout)]
        self.conv = nn.SequentialCell(layers)

    def construct(self, x):
        if self.use_res:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetTiny(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.SequentialCell([conv_bn(3, 8, 3, 2, act="relu6"), InvertedResidual(8, 8, 1, 1),
                                           InvertedResidual(8, 12, 2, 4), InvertedResidual(12, 12, 1, 4),
                                           conv_bn(12, 32, 1, act="relu6")])
        self.head = nn.SequentialCell([nn.Dropout(p=0.2), nn.Dense(32, num_classes)])

    def construct(self, x):
        x = self.features(x)
        x = ops.mean(x, (2, 3))
        return self.head(x)


class UNetTiny(nn.Cell):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.SequentialCell([nn.Conv2d(1, 8, 3, has_bias=True), nn.ReLU()])
        self.enc2 = nn.SequentialCell([nn.MaxPool2d(2, 2), nn.Conv2d(8, 16, 3, has_bias=True), nn.ReLU()])
        self.enc3 = nn.SequentialCell([nn.MaxPool2d(2, 2), nn.Conv2d(16, 16, 3, has_bias=True), nn.ReLU()])
        self.up2 = nn.Conv2dTranspose(16, 16, 2, stride=2)
        self.dec2 = nn.SequentialCell([nn.Conv2d(32, 16, 3, has_bias=True), nn.ReLU()])
        self.up1 = nn.Upsample(scale_factor=(2.0, 2.0), mode="nearest", recompute_scale_factor=True)
        self.dec1 = nn.SequentialCell([nn.Conv2d(24, 8, 3, has_bias=True), nn.ReLU()])
        self.resize = ops.ResizeBilinearV2(align_corners=False, half_pixel_centers=True)
        self.head = nn.Conv2d(8, 2, 1, has_bias=True)

    def construct(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        e3 = self.enc3(e2)
        d2 = self.dec2(ops.cat((self.up2(e3), e2), 1))
        d1 = self.dec1(ops.cat((self.up1(d2), e1), 1))
        out = self.head(d1)
        out = ops.interpolate(out, scale_factor=(0.5, 0.5), mode="bilinear", recompute_scale_factor=True)
        return self.resize(out, (x.shape[2], x.shape[3]))


class TextRNN(nn.Cell):
    def __init__(self, vocab=50, emb=8, hidden=6, num_classes=3):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(2 * hidden, hidden, num_layers=1, batch_first=True, bidirectional=True)
        self.fc = nn.Dense(2 * hidden, num_classes)

    def construct(self, ids):
        x = self.embedding(ids)
        x, _ = self.lstm(x)
        x, h = self.gru(x)
        feat = ops.cat((h[-2], h[-1]), 1)
        return self.fc(feat)


class TextTransformer(nn.Cell):
    def __init__(self, vocab=50, d_model=16, nhead=2, num_classes=3, seq=6):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model)
        self.pos = ms.Parameter(Tensor(np.random.default_rng(0).normal(0, 0.1, (1, seq, d_model)).astype(np.float32)),
                                name="pos")
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=32, dropout=0.1,
                                           activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm((d_model,)))
        self.fc = nn.Dense(d_model, num_classes)

    def construct(self, ids, pad_mask):
        x = self.embedding(ids) + self.pos
        x = self.encoder(x, src_key_padding_mask=pad_mask)
        keep = ops.logical_not(pad_mask).astype(x.dtype).expand_dims(-1)
        x = (x * keep).sum(1) / keep.sum(1)
        return self.fc(x)


class Generator(nn.Cell):
    def __init__(self, nz=8, ngf=8):
        super().__init__()
        self.fc = nn.Dense(nz, ngf * 2 * 4 * 4)
        self.ngf = ngf
        self.net = nn.SequentialCell([
            nn.BatchNorm2d(ngf * 2), nn.ReLU(),
            nn.Conv2dTranspose(ngf * 2, ngf, 4, stride=2, pad_mode="pad", padding=1, has_bias=False),
            nn.BatchNorm2d(ngf), nn.ReLU(),
            nn.Conv2dTranspose(ngf, 1, 4, stride=2, pad_mode="pad", padding=1, has_bias=False), nn.Tanh()])

    def construct(self, z):
        x = self.fc(z).view(-1, self.ngf * 2, 4, 4)
        return self.net(x)


class VAE(nn.Cell):
    def __init__(self, d=16, h=12, z=4):
        super().__init__()
        self.enc = nn.SequentialCell([nn.Dense(d, h), nn.ReLU()])
        self.mu = nn.Dense(h, z)
        self.logvar = nn.Dense(h, z)
        self.dec = nn.SequentialCell([nn.Dense(z, h), nn.ReLU(), nn.Dense(h, d), nn.Sigmoid()])

    def construct(self, x):
        hid = self.enc(x)
        mu, logvar = self.mu(hid), self.logvar(hid)
        if self.training:
            z = mu + ops.randn_like(mu) * ops.exp(0.5 * logvar)
        else:
            z = mu
        return self.dec(z), mu, logvar


class QuickGELU(nn.Cell):
    def construct(self, x):
        return x * ops.sigmoid(1.702 * x)


class MLP(nn.Cell):
    def __init__(self, d=16, h=32, num_classes=5):
        super().__init__()
        self.fc1 = nn.Dense(d, h)
        self.act1 = QuickGELU()
        self.drop1 = nn.Dropout(p=0.3)
        self.fc2 = nn.Dense(h, h)
        self.act2 = nn.Mish()
        self.drop2 = nn.Dropout(p=0.3)
        self.fc3 = nn.Dense(h, num_classes)

    def construct(self, x):
        x = self.drop1(self.act1(self.fc1(x)))
        x = self.drop2(ops.silu(self.fc2(x)) + self.act2(x))
        return self.fc3(x)


class ControlFlowNet(nn.Cell):
    def __init__(self, d=8):
        super().__init__()
        self.fc = nn.Dense(d, d)
        self.out = nn.Dense(d, 2)

    def construct(self, x):
        for _ in range(3):
            x = ops.tanh(self.fc(x)) + x
        if x.sum() > 0:
            x = x * 2
        else:
            x = x - 1
        i = 0
        while x.abs().max() > 1.0 and i < 4:
            x = x / 2
            i += 1
        return self.out(x)


def inputs(name, batch):
    """Example inputs of model `name` at `batch` rows."""
    rng = np.random.default_rng(batch)
    f = lambda *s: Tensor(rng.standard_normal(s).astype(np.float32))
    if name == "resnet":
        return (f(batch, 3, 16, 16),)
    if name == "mobilenet":
        return (f(batch, 3, 16, 16),)
    if name == "unet":
        return (f(batch, 1, 16, 16),)
    if name == "rnn":
        return (Tensor(rng.integers(0, 50, (batch, 7)).astype(np.int32)),)
    if name == "transformer":
        mask = np.zeros((batch, 6), bool)
        mask[:, 4:] = rng.random((batch, 2)) < 0.5
        return (Tensor(rng.integers(0, 50, (batch, 6)).astype(np.int32)), Tensor(mask))
    if name == "gan":
        return (f(batch, 8),)
    if name == "vae":
        return (f(batch, 16),)
    if name == "mlp":
        return (f(batch, 16),)
    if name == "control":
        return (f(batch, 8),)
    if name == "ensemble":
        return (f(batch, 3, 16, 16),)


FACTORIES = {"resnet": ResNetTiny, "mobilenet": MobileNetTiny, "unet": UNetTiny, "rnn": TextRNN,
             "transformer": TextTransformer, "gan": Generator, "vae": VAE, "mlp": MLP, "control": ControlFlowNet}
