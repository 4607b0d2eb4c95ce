"""Cell, container and Parameter behaviour against MindSpore 2.10, measured on the real thing
(each expectation below is what MindSpore 2.10 printed for the same program)."""
from collections import OrderedDict

import numpy as np
import pytest

import graphcell as ms
from graphcell import Parameter, ParameterTuple, Tensor, nn


class Scale(nn.Cell):
    def __init__(self, k=1.0):
        super().__init__()
        self.w = Parameter(Tensor(np.full((2,), k, np.float32)), name="w")

    def construct(self, x):
        return x * self.w


class Holder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([Scale(), Scale()])
        self.seq = nn.SequentialCell([Scale(), Scale()])


def names(net):
    return [p.name for p in net.get_parameters()]


@pytest.mark.parametrize("change,want", [
    (lambda n: n.layers.append(Scale()), ["layers.0.w", "layers.1.w", "layers.2.w", "seq.0.w", "seq.1.w"]),
    (lambda n: n.layers.extend([Scale()]), ["layers.0.w", "layers.1.w", "layers.2.w", "seq.0.w", "seq.1.w"]),
    (lambda n: n.layers.insert(0, Scale()), ["layers.0.w", "layers.1.w", "layers.2.w", "seq.0.w", "seq.1.w"]),
    (lambda n: n.layers.__setitem__(1, Scale()), ["layers.0.w", "layers.1.w", "seq.0.w", "seq.1.w"]),
    (lambda n: n.layers.__delitem__(0), ["layers.0.w", "seq.0.w", "seq.1.w"]),
    (lambda n: n.seq.append(Scale()), ["layers.0.w", "layers.1.w", "seq.0.w", "seq.1.w", "seq.2.w"]),
    (lambda n: n.seq.__setitem__(0, Scale()), ["layers.0.w", "layers.1.w", "seq.0.w", "seq.1.w"]),
    (lambda n: n.seq.__delitem__(0), ["layers.0.w", "layers.1.w", "seq.0.w"]),
])
def test_changing_a_container_inside_a_parent_keeps_the_parents_prefix(change, want):
    """They named the new or moved cells' Parameters without it ('2.w', not 'layers.2.w')."""
    net = Holder()
    change(net)
    assert names(net) == want


def test_insert_moves_the_parameters_names_with_the_cells():
    net = Holder()
    first, second, new = net.layers[0], net.layers[1], Scale(5.0)
    net.layers.insert(1, new)
    assert list(net.layers) == [first, new, second]
    assert (first.w.name, new.w.name, second.w.name) == ("layers.0.w", "layers.1.w", "layers.2.w")
    net.layers.insert(-1, Scale())   # list.insert's position: before the last cell
    assert net.layers[3] is second and second.w.name == "layers.3.w"
    with pytest.raises(IndexError, match=r"range \[-4, 4\], but got 5"):
        net.layers.insert(5, Scale())


def test_del_renumbers_the_rest_and_their_parameters():
    dense = [nn.Dense(2, 2) for _ in range(4)]
    cells = nn.CellList(dense)
    del cells[0:2]
    assert [k for k, _ in cells.parameters_and_names() if k.endswith("weight")] == ["0.weight", "1.weight"]
    assert names(cells)[::2] == ["0.weight", "1.weight"] and list(cells) == dense[2:]
    # keys given by name stay (MindSpore keeps an OrderedDict's keys)
    seq = nn.SequentialCell(OrderedDict([("fc1", nn.Dense(2, 2)), ("act", nn.ReLU()), ("fc2", nn.Dense(2, 2))]))
    del seq[1]
    assert list(seq.name_cells()) == ["fc1", "fc2"] and names(seq)[::2] == ["fc1.weight", "fc2.weight"]
    x = Tensor(np.ones((1, 2), np.float32))
    np.testing.assert_allclose(seq(x).asnumpy(), seq[1](seq[0](x)).asnumpy())


def test_slicing_a_nested_container_keeps_every_name():
    """Slices of two containers inside a parent renamed both originals' Parameters to '1.w'
    (the parent prefix dropped), so a checkpoint lost one of them."""
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.enc = nn.CellList([Scale(2.0), Scale(3.0)])
            self.dec = nn.SequentialCell([Scale(5.0), Scale(7.0)])

        def construct(self, x):
            for layer in self.enc[1:]:
                x = layer(x)
            return self.dec[1:](x)

    net = Net()
    np.testing.assert_allclose(net(Tensor(np.ones(2, np.float32))).asnumpy(), [21.0, 21.0])
    assert names(net) == ["enc.0.w", "enc.1.w", "dec.0.w", "dec.1.w"]
    assert list(net.parameters_dict()) == names(net)


class Counter(nn.Cell):
    def __init__(self, augmented):
        super().__init__()
        self.augmented = augmented
        self.count = Parameter(Tensor(0.0), name="count", requires_grad=False)

    def construct(self, x):
        if self.augmented:
            self.count += 1
        else:
            self.count = self.count + 1
        return x * self.count


@pytest.mark.parametrize("augmented", [False, True])
@pytest.mark.parametrize("graph", [False, True])
def test_assigning_a_tensor_to_a_parameter_attribute_updates_it(augmented, graph):
    """`self.count = self.count + 1` in construct raised a TypeError; MindSpore 2.10 updates the
    Parameter, in PyNative and in graph mode: [1, 1], then [2, 2]."""
    counter = Counter(augmented)
    run = ms.jit(counter) if graph else counter
    x = Tensor(np.ones(2, np.float32))
    np.testing.assert_allclose(run(x).asnumpy(), [1.0, 1.0])
    np.testing.assert_allclose(run(x).asnumpy(), [2.0, 2.0])
    assert isinstance(counter.count, Parameter) and float(counter.count.asnumpy()) == 2.0


def test_assigning_outside_construct_sets_the_data_and_other_values_are_refused():
    counter = Counter(False)
    counter.count = Tensor(5.0)
    assert isinstance(counter.count, Parameter) and counter.count.name == "count"
    assert float(counter.count.asnumpy()) == 5.0
    with pytest.raises(TypeError, match="'count' is a Parameter: it takes a Parameter, a Tensor"):
        counter.count = 5.0

    class Parent(nn.Cell):
        def __init__(self):
            super().__init__()
            self.sub = nn.Dense(2, 2)

    parent = Parent()
    for value in (3, "dense"):
        with pytest.raises(TypeError, match="'sub' is a sub-Cell: it takes a Cell or None"):
            parent.sub = value
    assert names(parent) == ["sub.weight", "sub.bias"]


def test_to_float_takes_float_types_only():
    dense = nn.Dense(3, 2)
    for bad in (ms.int32, "float16"):
        with pytest.raises(ValueError, match="'dst_type' must be mstype.float32, mstype.float16 or mstype.bfloat16"):
            dense.to_float(bad)
    assert dense.to_float(ms.float16) is dense


def test_parameter_checks_and_methods_as_mindspore():
    assert Parameter(1).dtype == ms.int32 and Parameter([1, 2]).dtype == ms.int64
    assert Parameter(1.0).dtype == ms.float32
    with pytest.raises(ValueError, match="can not be `bool`"):
        Parameter(True)
    p = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="p")
    with pytest.raises(ValueError, match="name should be 'string' or 'None'"):
        p.name = 3
    p.name = None
    assert p.name == "Parameter"
    for bad in (1, None, "yes"):
        with pytest.raises(TypeError, match="requires_grad must be a bool"):
            p.requires_grad = bad
    value, same = p.value(), p.init_data()
    assert type(value) is Tensor and same is p
    np.testing.assert_array_equal(value.asnumpy(), [1.0, 2.0])
    copy = p.copy()
    assert isinstance(copy, Parameter) and copy is not p and copy.name == p.name


def test_parameter_tuple_refuses_two_parameters_of_one_name():
    a = Parameter(Tensor(np.ones(2, np.float32)), name="x")
    b = Parameter(Tensor(np.ones(2, np.float32)), name="x")
    with pytest.raises(ValueError, match="its name 'x' already exists"):
        ParameterTuple([a, b])
    assert len(ParameterTuple([a, a])) == 2
    unnamed = [Parameter(Tensor(np.ones(2, np.float32))) for _ in range(2)]
    assert len(ParameterTuple(unnamed)) == 2


def test_a_python_number_is_a_sens_value():
    """grad(sens_param=True)(x, y, 2.0) said 'expected 1 sens tensor(s), got 0'; MindSpore 2.10
    gives [6, 8] for (a * b).sum() at a = [1, 2], b = [3, 4]."""
    x, y = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 4.0], np.float32))

    def f(a, b):
        return (a * b).sum()

    np.testing.assert_allclose(ms.grad(f, 0, sens_param=True)(x, y, 2.0).asnumpy(), [6.0, 8.0])
    value, g = ms.value_and_grad(f, 0, sens_param=True)(x, y, 2.0)
    assert float(value.asnumpy()) == 11.0
    np.testing.assert_allclose(g.asnumpy(), [6.0, 8.0])


def test_containers_of_containers_are_named_by_position():
    """MindSpore 2.10's constructors give these names; its append reads the index from the
    wrong place in '0.0.weight' and gave '0.1.0.weight' to the second cell, where graphcell
    gives '1.0.weight' either way."""
    def seqs(n):
        return [nn.SequentialCell([nn.Dense(2, 2)]) for _ in range(n)]

    want = ["0.0.weight", "0.0.bias", "1.0.weight", "1.0.bias", "2.0.weight", "2.0.bias"]
    assert names(nn.CellList(seqs(3))) == want
    assert names(nn.SequentialCell(seqs(3))) == want
    appended = nn.CellList()
    for seq in seqs(3):
        appended.append(seq)
    assert names(appended) == want
    pairs = nn.CellList([nn.SequentialCell([nn.Dense(2, 2), nn.Dense(2, 2)]) for _ in range(2)])
    assert names(pairs)[::2] == ["0.0.weight", "0.1.weight", "1.0.weight", "1.1.weight"]


# -- hooks, apply, CellDict, initializer ----------------------------------------------------------

def _dense():
    dense = nn.Dense(2, 2)
    dense.weight.set_data(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)))
    dense.bias.set_data(Tensor(np.array([0.5, -0.5], np.float32)))
    return dense


@pytest.mark.parametrize("graph", [False, True])
def test_forward_hooks_replace_inputs_and_outputs_and_remove(graph):
    """As MindSpore 2.10 measured: the pre hook gets the arguments as a tuple and may return new
    ones, the forward hook gets (args, output) and may return a new output."""
    dense, seen = _dense(), []
    x = Tensor(np.ones((1, 2), np.float32))
    run = ms.jit(dense) if graph else dense

    def pre(cell, args):
        seen.append(("pre", type(cell).__name__, len(args)))
        return args[0] * 2        # one value: the new single argument

    def post(cell, args, output):
        seen.append(("post", type(output).__name__))
        return output + 100.0

    h_pre, h_post = dense.register_forward_pre_hook(pre), dense.register_forward_hook(post)
    np.testing.assert_allclose(run(x).asnumpy(), [[106.5, 113.5]])   # (2x) @ W.T + b + 100
    assert seen[:2] == [("pre", "Dense", 1), ("post", "Tensor")]
    h_pre.remove()
    np.testing.assert_allclose(run(x).asnumpy(), [[103.5, 106.5]])
    h_post.remove()
    np.testing.assert_allclose(run(x).asnumpy(), [[3.5, 6.5]])


def test_hook_order_kwargs_and_always_call():
    dense, order = _dense(), []
    dense.register_forward_hook(lambda c, a, o: order.append("second"))
    dense.register_forward_hook(lambda c, a, o: order.append("first"), prepend=True)
    dense.register_forward_pre_hook(lambda c, a, k: (a, k) if order.append(("kwargs", k)) is None else None,
                                    with_kwargs=True)
    dense(Tensor(np.ones((1, 2), np.float32)))
    assert order == [("kwargs", {}), "first", "second"]

    class Failing(nn.Cell):
        def construct(self, x):
            raise ValueError("boom")

    failing, calls = Failing(), []
    failing.register_forward_hook(lambda c, a, o: calls.append(o), always_call=True)
    failing.register_forward_hook(lambda c, a, o: calls.append("not always"))
    with pytest.raises(ValueError, match="boom"):
        failing(Tensor(np.ones(2, np.float32)))
    assert calls == [None]


def test_apply_visits_children_first():
    net = nn.SequentialCell([nn.Dense(2, 2), nn.SequentialCell([nn.ReLU()])])
    visited = []
    assert net.apply(lambda c: visited.append(type(c).__name__)) is net
    assert visited == ["Dense", "ReLU", "SequentialCell", "SequentialCell"]


def test_cell_dict_as_mindspore():
    """Names, checks and messages as MindSpore 2.10's nn.CellDict, measured."""
    d = nn.CellDict({"conv": nn.Dense(2, 2), "act": nn.ReLU()})
    assert names(d) == ["conv.weight", "conv.bias"] and list(d.keys()) == ["conv", "act"]
    assert len(d) == 2 and "conv" in d and type(d["conv"]) is nn.Dense

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.d = nn.CellDict({"a": nn.Dense(2, 2)})

    net = Net()
    net.d["b"] = nn.Dense(2, 2)
    net.d.update({"c": nn.Dense(2, 2)})
    assert names(net) == ["d.a.weight", "d.a.bias", "d.b.weight", "d.b.bias", "d.c.weight", "d.c.bias"]
    assert type(net.d.pop("a")) is nn.Dense and names(net)[0] == "d.b.weight"
    for key, cell, error, message in [("x.y", nn.ReLU(), KeyError, "can not contain"),
                                      ("", nn.ReLU(), KeyError, "empty string"),
                                      ("training", nn.ReLU(), KeyError, "attributes of Cell"),
                                      ("k", nn.CellList(), TypeError, "can not be CellDict, CellList or SequentialCell"),
                                      ("k", 3, TypeError, "should be Cell, but got int")]:
        with pytest.raises(error, match=message):
            d[key] = cell
    with pytest.raises(NotImplementedError, match="not callable"):
        d(Tensor(np.ones(2, np.float32)))
    d.clear()
    assert len(d) == 0


def test_initializer_makes_a_filled_tensor():
    from graphcell.common.initializer import Normal, initializer
    ones = initializer("ones", [2, 3])
    assert type(ones) is Tensor and ones.shape == (2, 3) and ones.dtype == ms.float32
    np.testing.assert_array_equal(ones.asnumpy(), np.ones((2, 3)))
    assert initializer(Normal(), (2,), ms.float16).dtype == ms.float16
    assert initializer(Tensor(np.zeros((2, 2), np.float32))).shape == (2, 2)
    with pytest.raises(ValueError, match="'shape' is needed"):
        initializer("ones")
    with pytest.raises(ValueError, match=r"'init' shape \[2, 2\] and the 'shape' \[3, 3\]"):
        initializer(Tensor(np.zeros((2, 2), np.float32)), (3, 3))


def test_ops_has_the_transforms():
    assert ms.ops.grad is ms.grad and ms.ops.value_and_grad is ms.value_and_grad and ms.ops.vmap is ms.vmap


# -- buffers, state_dict and the smaller Cell methods (each expectation measured on MindSpore 2.10) --

class Buffered(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(2, np.float32)), name="w")
        self.register_buffer("running", Tensor(np.array([1.0, 2.0], np.float32)))
        self.register_buffer("tmp", Tensor(np.array([3.0], np.float32)), persistent=False)
        self.register_buffer("nothing", None)

    def construct(self, x):
        return x * self.w + self.running


class BufferedOuter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = Buffered()
        self.register_buffer("ob", Tensor(np.int32(5)))

    def construct(self, x):
        return self.net(x)


def test_buffers_as_mindspore():
    o = BufferedOuter()
    assert [(n, b.shape) for n, b in o.named_buffers()] == [("ob", ()), ("net.running", (2,)), ("net.tmp", (1,))]
    assert [n for n, _ in o.named_buffers(recurse=False)] == ["ob"]
    assert [n for n, _ in o.named_buffers(prefix="pre")] == ["pre.ob", "pre.net.running", "pre.net.tmp"]
    assert len(list(o.buffers())) == 3 and o.net.nothing is None
    assert type(o.net.running) is Tensor and "running" not in o.net.__dict__
    assert names(o) == ["net.w"] and list(o.parameters_dict()) == ["net.w"]   # not Parameters
    assert o.get_buffer("net.running") is o.net.running and o.get_sub_cell("net") is o.net
    assert o.get_sub_cell("") is o
    for call, error, message in [
        (lambda: o.get_buffer("net.zzz"), AttributeError, "Buffered has no attribute `zzz`"),
        (lambda: o.get_buffer("net.w"), AttributeError, "`w` is not a buffer"),
        (lambda: o.get_sub_cell("zz"), AttributeError, "BufferedOuter has no attribute `zz`"),
        (lambda: o.register_buffer("a.b", Tensor(1)), KeyError, r'contain "\."'),
        (lambda: o.register_buffer("", Tensor(1)), KeyError, 'be empty string'),
        (lambda: o.net.register_buffer("w", Tensor(1)), KeyError, "attribute 'w' already exists"),
        (lambda: o.register_buffer("training", Tensor(1)), KeyError, "attribute 'training' already exists"),
        (lambda: o.register_buffer("q", np.ones(2)), TypeError, "cannot assign .*ndarray.* to buffer 'q'"),
        (lambda: o.register_buffer(3, Tensor(1)), TypeError, "buffer name should be a string"),
        # MindSpore 2.10 refuses any value but None for a buffer attribute (construct's too)
        (lambda: setattr(o.net, "running", Tensor(np.zeros(2, np.float32))), TypeError,
         "Buffer 'running' already exists in network, can not assign this type"),
    ]:
        with pytest.raises(error, match=message):
            call()
    o.register_buffer("ob", Tensor(7))   # registering again replaces it
    assert o.ob.asnumpy() == 7
    o.net.tmp = None
    del o.net.running
    assert [n for n, _ in o.named_buffers()] == ["ob"]


def test_state_dict_and_load_state_dict_as_mindspore(tmp_path):
    o = BufferedOuter()
    sd = o.state_dict()
    assert type(sd) is OrderedDict and list(sd) == ["ob", "net.w", "net.running"]   # tmp: not persistent
    assert sd["net.w"] is o.net.w and type(sd["net.running"]) is Tensor
    assert list(o.state_dict(prefix="p.")) == ["p.ob", "p.net.w", "p.net.running"]
    dest = OrderedDict()
    assert o.state_dict(destination=dest) is dest
    x = Tensor(np.ones(2, np.float32))
    step = ms.jit(o)
    np.testing.assert_allclose(step(x).asnumpy(), [2.0, 3.0])
    running = o.net.running
    new = dict(sd, **{"net.running": Tensor(np.array([-1.0, -2.0], np.float64)),
                      "net.w": Tensor(np.array([5.0, 5.0], np.float64))})
    assert repr(o.load_state_dict(new)) == "<All keys matched successfully>"
    assert o.net.running is running and running.dtype is ms.float32 and o.net.w.dtype is ms.float32
    np.testing.assert_allclose(o(x).asnumpy(), [4.0, 3.0])
    # graphcell recompiles; MindSpore 2.10's graph mode kept the buffer's old value (a stale constant)
    np.testing.assert_allclose(step(x).asnumpy(), [4.0, 3.0])
    with pytest.raises(RuntimeError, match='Error\\(s\\) in loading state_dict for BufferedOuter:\n\t'
                                           'Missing key\\(s\\) in state_dict: "ob", "net.running". '):
        o.load_state_dict({"net.w": Tensor(np.ones(2, np.float32))})
    result = o.load_state_dict({"net.w": Tensor(np.ones(2, np.float32)), "zzz": Tensor(1)}, strict=False)
    assert result.missing_keys == ["ob", "net.running"] and result.unexpected_keys == ["zzz"]
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "zzz". '):
        o.load_state_dict(dict(o.state_dict(), zzz=Tensor(1)))
    with pytest.raises(RuntimeError, match=r"size mismatch for net.w: copying a param with shape \(3,\) from "
                                           r"checkpoint, the shape in current model is \(2,\)."):
        o.load_state_dict(dict(o.state_dict(), **{"net.w": Tensor(np.ones(3, np.float32))}))
    with pytest.raises(RuntimeError, match='While copying the parameter named "net.w", expected Tensor'):
        o.load_state_dict(dict(o.state_dict(), **{"net.w": np.ones(2, np.float32)}))
    ms.save_checkpoint(o, str(tmp_path / "o.ckpt"))   # buffers are not in checkpoints
    assert list(ms.load_checkpoint(str(tmp_path / "o.ckpt"))) == ["net.w"]


def test_state_dict_keys_are_attribute_paths():
    class Leaf(nn.Cell):
        def __init__(self):
            super().__init__()
            self.weight = Parameter(Tensor(np.ones(2, np.float32)), name="foo")
            self.register_buffer("buf", Tensor(np.ones(1, np.float32)))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.seq = nn.SequentialCell([Leaf(), Leaf()])
            self.p = Parameter(Tensor(np.ones(1, np.float32)), name="pp")
            self.register_buffer("top", Tensor(np.ones(1, np.float32)))
            self.leaf = Leaf()
            self.shared = self.leaf

    net = Net()
    assert list(net.state_dict()) == ["p", "top", "seq.0.weight", "seq.0.buf", "seq.1.weight", "seq.1.buf",
                                      "leaf.weight", "leaf.buf", "shared.weight", "shared.buf"]
    assert [n for n, _ in net.named_buffers()] == ["top", "seq.0.buf", "seq.1.buf", "leaf.buf"]
    assert list(nn.WithLossCell(net.leaf, nn.MSELoss()).state_dict()) == ["_backbone.weight", "_backbone.buf"]
    assert repr(net.load_state_dict(net.state_dict())) == "<All keys matched successfully>"

    class Extra(Leaf):
        def get_extra_state(self):
            return {"step": 3}

        def set_extra_state(self, state):
            self.loaded = state

    extra = Extra()
    state = extra.state_dict()
    assert list(state) == ["weight", "buf", "_extra_state"] and state["_extra_state"] == {"step": 3}
    extra.load_state_dict(state)
    assert extra.loaded == {"step": 3}
    with pytest.raises(RuntimeError, match="Reached a code path in Cell.get_extra_state"):
        Leaf().get_extra_state()


def test_flags_grad_inputs_and_to_as_mindspore():
    net = nn.SequentialCell([nn.Dense(2, 2)])
    assert net.get_flags() == {} and net.requires_grad is False
    assert net.add_flags(a=1, b=True) is net and net.get_flags() == {"a": 1, "b": True} and net.a == 1
    assert net.add_flags_recursive(c=2) is net and net[0].get_flags() == {"c": 2}
    assert net.set_grad() is net and net.requires_grad is True and net[0].requires_grad is False
    assert net.get_inputs() is None
    net.set_inputs(Tensor(np.ones((1, 2), np.float32)))
    assert net.get_inputs()[0].shape == (1, 2)
    assert net.recompute() is None
    assert set(net.init_parameters_data()) == set(net.get_parameters())

    class Mixed(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(2, 2)
            self.i = Parameter(Tensor(np.ones(2, np.int32)), name="i", requires_grad=False)
            self.register_buffer("b", Tensor(np.ones(2, np.float32)))

        def construct(self, x):
            return self.dense(x) + self.b

    mixed = Mixed()
    x = Tensor(np.ones((1, 2), np.float32))
    step = ms.jit(mixed)
    assert step(x).dtype is ms.float32
    assert mixed.to(ms.float16) is mixed
    assert [p.dtype for p in mixed.get_parameters()] == [ms.int32, ms.float16, ms.float16]
    assert mixed.b.dtype is ms.float16
    assert step(x.astype(ms.float16)).dtype is ms.float16   # recompiled for the new types
    mixed.to(device="CPU", dtype=ms.float32)
    assert mixed.dense.weight.dtype is ms.float32
    mixed.to(Tensor(np.ones(1, np.float64)))
    assert mixed.dense.weight.dtype is ms.float64
    with pytest.raises(TypeError, match="Cell.to only accepts floating point or complex dtypes, but got desired "
                                        "dtype=Int32"):
        mixed.to(ms.int32)


def test_compile_and_compile_and_run():
    dense = _dense()
    x = Tensor(np.ones((1, 2), np.float32))
    assert dense.compile(x) is None and dense._graph_jit.cache_size == 1
    np.testing.assert_allclose(dense.compile_and_run(x).asnumpy(), [[3.5, 6.5]])
    assert dense._graph_jit.cache_size == 1
