"""Generates tests/data/conv_family/: MindSpore 2.10 (CPU) parameters and outputs of its
convolution layers, for graphcell's tests/test_conv_family.py."""
import mindspore as ms
import numpy as np
from mindspore import Tensor, nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 6, 3, stride=2, has_bias=True)
        self.t2 = nn.Conv2dTranspose(4, 6, (2, 3), stride=2, pad_mode="pad", padding=(1, 0, 1, 1),
                                     output_padding=1, group=2, has_bias=True)
        self.t1 = nn.Conv1dTranspose(6, 4, 3, stride=2, dilation=2, has_bias=True)
        self.t2v = nn.Conv2dTranspose(4, 2, 3, stride=(2, 3), pad_mode="valid")

    def construct(self, x1, x2):
        return self.c1(x1), self.t2(x2), self.t1(self.c1(x1)), self.t2v(x2)


ms.set_seed(5)
net = Net()
rng = np.random.default_rng(0)
x1 = rng.standard_normal((2, 4, 9)).astype(np.float32)
x2 = rng.standard_normal((2, 4, 3, 4)).astype(np.float32)
ys = [y.asnumpy() for y in net(Tensor(x1), Tensor(x2))]
ms.save_checkpoint(net, "tests/data/conv_family/conv_family_seed5.ckpt")
np.savez("tests/data/conv_family/conv_family_outputs.npz", x1=x1, x2=x2, c1=ys[0], t2=ys[1], t1=ys[2], t2v=ys[3])
for p in net.get_parameters():
    print(p.name, p.shape)
print([y.shape for y in ys])
