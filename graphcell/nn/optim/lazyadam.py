"""LazyAdam: MindSpore's Adam for sparse gradients; graphcell's gradients are dense."""
from __future__ import annotations

from .adam import Adam


class LazyAdam(Adam):
    """Adam's update (and its use_nesterov), which is what MindSpore 2.10 computes for dense
    gradients (measured: the same trajectories as nn.Adam). "Lazy" updates only the rows a
    sparse gradient (a RowTensor from a sparse gather) touches; graphcell has no sparse
    gradients, so every row is updated. The difference from Adam is in the checkpoint:
    `beta1_power` and `beta2_power` have shape [1] (Adam's are scalars), and there is no
    use_amsgrad."""

    power_shape = (1,)

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
                 use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov, weight_decay,
                         loss_scale)
