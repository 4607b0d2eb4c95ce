"""`saved_tensors_hooks` / `register_saved_tensors_hooks`: refused, with the reason.

In MindSpore 2.10 they rewrite the tensors autodiff keeps for the backward pass (measured:
pack doubling each saved tensor doubles grad of sum(x*x)). graphcell's autodiff is a pass over
the whole traced graph that XLA then compiles; the backward pass reads forward values directly
and XLA decides what is kept, so there is no saved tensor to hand to a hook.
"""
_REASON = ("graphcell differentiates the traced graph as a whole and XLA decides which forward values the "
           "backward pass keeps; there are no saved tensors to pack or unpack. (For memory, use "
           "Cell.recompute; for the gradient itself, a custom bprop.)")


class saved_tensors_hooks:
    def __init__(self, pack_hook, unpack_hook):
        raise NotImplementedError(f"saved_tensors_hooks is not supported: {_REASON}")


def register_saved_tensors_hooks(pack_hook, unpack_hook):
    raise NotImplementedError(f"register_saved_tensors_hooks is not supported: {_REASON}")
