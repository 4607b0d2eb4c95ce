"""What every primitive that holds subgraphs in its attrs needs (cond, while_loop, scan, the
tiled matmul's row loop): a subgraph as a jax function, which of its outputs a batched input
reaches, its vmap, replaying it into the active trace, building one from a Python function,
and trimming a `grad_graph` result to the gradients."""
from __future__ import annotations

import weakref

from ..ir.core import Graph, replay

_JAX_FNS: "weakref.WeakKeyDictionary[Graph, object]" = weakref.WeakKeyDictionary()


def jax_fn(graph: Graph):
    """`graph` as a function over jax arrays, built once per subgraph."""
    fn = _JAX_FNS.get(graph)
    if fn is None:
        from ..compiler.to_jax import graph_to_jax
        fn = _JAX_FNS[graph] = graph_to_jax(graph)
    return fn


def types_of(values) -> list:
    return [v.type for v in values]


def batched_outputs(graph: Graph, in_batched) -> list[bool]:
    """Which outputs of `graph` depend on a batched input (conservatively: random primitives
    count as batched, since vmap may give each member its own stream)."""
    batched = {v for v, b in zip(graph.inputs, in_batched) if b}
    for node in graph.nodes:
        if not node.primitive.deterministic or any(v in batched for v in node.inputs):
            batched.update(node.outputs)
    return [v in batched for v in graph.outputs]


def vmap_subgraph(ctx, graph: Graph, in_axes, out_axes) -> Graph:
    """`graph` vmapped with the settings of the vmap pass now running (`ctx`)."""
    from ..passes.vmap import vmap_graph
    return vmap_graph(graph, tuple(in_axes), tuple(out_axes), ctx.axis_size, randomness=ctx.randomness,
                      conv_strategy=ctx.conv_strategy, target=ctx.target, **ctx.options)


def inline_graph(graph: Graph, args) -> list:
    """Replays `graph` into the active trace on Tensors `args`; returns Tensors."""
    from ..frontend.tracer import current_tracer
    from ..tensor import Tensor
    tracer = current_tracer()
    outs = replay(graph, tracer, [tracer.lift(a) for a in args])
    return [Tensor._symbolic(v) for v in outs]


def build_graph(name: str, template, fn) -> Graph:
    """A new graph whose inputs copy `template`'s (types, names, kinds), computing `fn`."""
    from ..frontend.tracer import Tracer
    from ..tensor import Tensor
    tracer = Tracer(name)
    ins = [tracer.add_input(v.type, v.name, v.kind) for v in template]
    with tracer:
        outs = [tracer.lift(o) for o in fn([Tensor._symbolic(v) for v in ins])]
    return tracer.build(outs)


def grads_only(graph: Graph, n_forward_outputs: int) -> Graph:
    """`grad_graph`'s result keeping only the gradients (the forward outputs are dropped and
    the nodes only they needed are pruned)."""
    from ..passes.grad import prune
    return prune(Graph(graph.inputs, graph.nodes, graph.outputs[n_forward_outputs:], (), graph.name,
                       graph.meta))
