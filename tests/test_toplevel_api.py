"""MindSpore 2.10's top-level API that graphcell adds in graphcell/__init__.py's lazy table:
dtype aliases, Tensor makers, the Generator functions, mutable, the compile decorators, and the
checkpoint conversions. Literals were measured on MindSpore 2.10 (CPU); file contents are also
read back with the safetensors library."""
import os

import jax
import numpy as np
import pytest
import safetensors.numpy

import graphcell as ms
from graphcell import Parameter, Tensor, nn

# --- dtype aliases ---------------------------------------------------------------------------------------

# measured: repr(mindspore.<alias>) on 2.10
ALIASES = {"float": "float32", "single": "float32", "half": "float16", "double": "float64", "long": "int64",
           "int": "int32", "intc": "int32", "intp": "int64", "short": "int16", "byte": "int8", "bool": "bool_",
           "ubyte": "uint8", "ushort": "uint16", "uintc": "uint32", "uintp": "uint64"}


@pytest.mark.parametrize("alias,name", sorted(ALIASES.items()))
def test_dtype_aliases(alias, name):
    assert getattr(ms, alias) is getattr(ms, name) is getattr(ms.dtype, alias)


def test_aliases_leave_python_builtins_alone():
    assert ms.dtype.to_dtype("int") is ms.int64      # the string keeps graphcell's meaning
    with pytest.raises(AttributeError):
        ms.no_such_dtype  # noqa: B018


def test_type_categories_as_measured():
    # measured on 2.10: str() of each, and isinstance against the classes Type, Int, TensorType
    assert [str(t) for t in (ms.number, ms.string, ms.list_, ms.tuple_, ms.type_none, ms.uint, ms.tensor_type)] == \
        ["Number", "String", "List", "Tuple", "None", "UInt", "Tensor"]
    assert repr(ms.string) == "graphcell.string_" and repr(ms.Int()) == "graphcell.int"
    kinds = (ms.float32, ms.int32, ms.uint8, ms.bool_, ms.number, ms.string, ms.tensor_type, ms.list_,
             ms.type_none, ms.uint)
    assert all(isinstance(t, ms.Type) for t in kinds)
    assert [isinstance(t, ms.Int) for t in kinds] == [False, True] + [False] * 8
    assert [isinstance(t, ms.TensorType) for t in kinds] == [False] * 6 + [True, False, False, False]
    assert ms.Int(32) == ms.int32 and ms.number != ms.float32 and ms.uint != ms.uint8
    t = ms.TensorType(ms.float32)
    assert str(t) == "Tensor[Float32]" and t.element_type() is ms.float32 and t != ms.tensor_type
    with pytest.raises(RuntimeError, match="but got 7bits"):
        ms.Int(7)
    with pytest.raises(TypeError, match="No constructor defined"):
        ms.Type()
    with pytest.raises(TypeError):
        ms.dtype.to_dtype(ms.number)   # a kind, not a dtype


# --- from_numpy, frombuffer, is_tensor -------------------------------------------------------------------

def test_from_numpy_keeps_dtype_and_shape():
    for array, dtype in ((np.arange(3), ms.int64), (np.array(1.5), ms.float64),
                         (np.arange(6, dtype=np.float32).reshape(2, 3)[:, ::2], ms.float32)):
        t = ms.from_numpy(array)
        assert t.dtype is dtype and t.shape == array.shape
        np.testing.assert_array_equal(t.asnumpy(), array)
    with pytest.raises(TypeError, match="Expected a NumPy array."):
        ms.from_numpy([1, 2])


def test_frombuffer_reads_as_numpy_does():
    data = bytearray([1, 2, 3, 4, 5, 6])
    for dtype, count, offset in ((ms.int8, -1, 0), (ms.int16, -1, 0), (ms.int16, 2, 2), (ms.int16, 1, 1)):
        t = ms.frombuffer(data, dtype, count, offset)
        np.testing.assert_array_equal(t.asnumpy(), np.frombuffer(data, dtype.np_dtype, count, offset))
        assert t.dtype is dtype
    # measured: [513, 1027, 1541] and, from offset 1, [770]
    assert ms.frombuffer(data, ms.int16).asnumpy().tolist() == [513, 1027, 1541]
    assert ms.frombuffer(data, ms.int16, count=1, offset=1).asnumpy().tolist() == [770]
    floats = ms.frombuffer(np.array([1.5, 2.5], np.float32).tobytes(), ms.float32)
    assert floats.asnumpy().tolist() == [1.5, 2.5]


@pytest.mark.parametrize("args,message", [  # messages measured on MindSpore 2.10 (RuntimeError)
    ((ms.int32,), r"buffer length \(6 bytes\) after offset \(0 bytes\) must be a multiple of element size \(4\)"),
    ((ms.int8, 0), r"both buffer length \(6\) and count \(0\) must not be 0"),
    ((ms.int8, -2), r"count \(-2\) must be -1 or positive"),
    ((ms.int8, -1, 6), r"offset \(6 bytes\) must be non-negative and no greater than buffer length \(6 bytes\)"),
    ((ms.int8, 10), r"is not enough for the requested count of elements \(10 elements of size 1 bytes each"),
    ((np.int8,), "dtype must be mindspore dtype object"),
])
def test_frombuffer_errors(args, message):
    with pytest.raises(RuntimeError, match=message):
        ms.frombuffer(bytearray([1, 2, 3, 4, 5, 6]), *args)


def test_frombuffer_needs_a_buffer():
    with pytest.raises(RuntimeError, match="does not implement Python buffer protocol"):
        ms.frombuffer([1, 2], ms.int8)


def test_is_tensor():
    assert ms.is_tensor(Tensor(1)) and ms.is_tensor(Parameter(Tensor(1.0), name="p"))
    assert not ms.is_tensor(np.zeros(1)) and not ms.is_tensor(1)


# --- Generator and the default generator ------------------------------------------------------------------

def test_manual_seed_state_reads_as_mindspore():
    g = ms.Generator()
    assert g.initial_seed() == 0 and g.get_state().asnumpy().tolist() == [0] * 16   # measured
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    state = g.get_state()
    assert state.dtype is ms.uint8 and state.shape == (16,)
    assert state.asnumpy().tolist() == [5] + [0] * 15                               # measured
    g.manual_seed(-1)                                                                # measured: wraps as int64
    assert g.initial_seed() == -1 and g.get_state().asnumpy().tolist() == [255] * 8 + [0] * 8
    g.manual_seed(2 ** 63)
    assert g.initial_seed() == -2 ** 63 and g.get_state().asnumpy().tolist() == [0] * 7 + [128] + [0] * 8
    assert ms.manual_seed(7) is ms.default_generator and ms.initial_seed() == 7
    assert ms.get_rng_state().asnumpy().tolist() == [7] + [0] * 15                  # measured


def test_generator_errors():
    g = ms.Generator()
    for bad in (3.0, "x", np.int64(3)):
        with pytest.raises(TypeError, match="Seed must be an integer."):
            g.manual_seed(bad)
    with pytest.raises(RuntimeError, match="State data type must be UInt8, but got Int64"):
        g.set_state(Tensor(np.zeros(16, np.int64)))
    with pytest.raises(RuntimeError, match="State data size must be 16, but got 8"):
        g.set_state(Tensor(np.zeros(8, np.uint8)))
    with pytest.raises(RuntimeError, match="Invalid tensor input"):
        g.set_state(np.zeros(16, np.uint8))
    with pytest.raises(TypeError, match="'generator' must be a mindspore Generator"):
        Tensor(np.zeros(2, np.float32)).uniform(generator=3)


def test_set_state_replays_draws_and_states_are_copies():
    t = Tensor(np.zeros(4, np.float32))
    g = ms.Generator().manual_seed(3)
    state = g.get_state()
    first = t.normal_(generator=g).asnumpy().copy()
    assert g.get_state().asnumpy()[8:].any()            # the draw advanced the stream
    assert state.asnumpy().tolist() == [3] + [0] * 15   # a copy, not a view
    second = t.normal_(generator=g).asnumpy().copy()
    g.set_state(state)
    np.testing.assert_array_equal(t.normal_(generator=g).asnumpy(), first)
    other = ms.Generator()
    other.set_state(state)                               # a state moves between generators
    assert other.initial_seed() == 3
    np.testing.assert_array_equal(t.normal_(generator=other).asnumpy(), first)
    assert not np.array_equal(first, second)


def test_default_generator_drives_op_draws():
    ms.manual_seed(11)
    a = ms.ops.uniform((5,)).asnumpy()
    state = ms.get_rng_state()
    b = ms.ops.uniform((5,)).asnumpy()
    ms.manual_seed(11)
    np.testing.assert_array_equal(ms.ops.uniform((5,)).asnumpy(), a)
    ms.set_rng_state(state)
    np.testing.assert_array_equal(ms.ops.uniform((5,)).asnumpy(), b)
    ms.set_seed(4)                                       # set_seed reseeds the same stream
    assert ms.initial_seed() == 4 and ms.get_rng_state().asnumpy().tolist() == [4] + [0] * 15


def test_manual_seed_leaves_initialisers_alone():
    # measured: manual_seed does not seed numpy (initialisers' seeds) nor set get_seed
    ms.set_seed(1)
    numpy_state = np.random.get_state()[1].copy()
    ms.manual_seed(9)
    np.testing.assert_array_equal(np.random.get_state()[1], numpy_state)
    assert ms.get_seed() == 1


def test_seed_picks_and_reports_a_seed():
    s = ms.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 32 and ms.initial_seed() == s
    assert ms.get_rng_state().asnumpy().tolist() == list(np.array([s], "<i8").view(np.uint8)) + [0] * 8


def test_generator_draws_under_jit_advance_its_state():
    g = ms.Generator().manual_seed(1)
    x = Tensor(np.ones(3, np.float32))
    draw = ms.jit(lambda x: x.uniform(generator=g))
    state = g.get_state()
    a = draw(x).asnumpy()
    assert not np.array_equal(g.get_state().asnumpy(), state.asnumpy())
    b = draw(x).asnumpy()
    g.set_state(state)
    np.testing.assert_array_equal(draw(x).asnumpy(), a)
    assert not np.array_equal(a, b) and draw.cache_size == 1


# --- mutable ------------------------------------------------------------------------------------------------

def test_mutable_numbers_are_jit_inputs():
    x = Tensor(np.ones(2, np.float32))
    plain = ms.jit(lambda x, n: x * n)
    plain(x, 2), plain(x, 3)
    assert plain.cache_size == 2
    marked = ms.jit(lambda x, n: x * n)
    assert marked(x, ms.mutable(2)).asnumpy().tolist() == [2.0, 2.0]
    assert marked(x, ms.mutable(3)).asnumpy().tolist() == [3.0, 3.0]
    assert marked.cache_size == 1
    nested = ms.jit(lambda x, t: (x * t[0] + t[1]["b"], t[2]))
    out, flag = nested(x, ms.mutable((2, {"b": 0.5}, True)))
    out2, flag2 = nested(x, ms.mutable((3, {"b": 1.5}, False)))
    assert out.asnumpy().tolist() == [2.5, 2.5] and out2.asnumpy().tolist() == [4.5, 4.5]
    assert flag is True and flag2 is False   # a mutable number comes back a number (2.10, measured)
    assert nested.cache_size == 1


def test_mutable_eagerly_is_the_value():
    assert ms.mutable(1) == 1 and isinstance(ms.mutable(1), int)
    assert ms.mutable(2.5) == 2.5 and repr(ms.mutable(True)) == "True"
    assert ms.mutable((1, 2)) == (1, 2) and ms.mutable([1, 2], True) == [1, 2]
    t = Tensor(1.0)
    assert ms.mutable(t) is t


@pytest.mark.parametrize("value,shown", [("s", "str: s"), (None, "NoneType: None"), (np.array(1), "ndarray: 1")])
def test_mutable_errors(value, shown):  # measured messages
    with pytest.raises(TypeError, match=f"should be one of \\(bool, int, float, Tensor, tuple, list, dict\\) "
                                        f"or their nested structures with no self-reference, but got {shown}"):
        ms.mutable(value)


def test_mutable_dynamic_len_needs_a_sequence():
    with pytest.raises(TypeError, match="when the variable_len is True, the first input should be list or tuple, "
                                        "but got: int"):
        ms.mutable(1, True)


# --- compile decorators and settings ----------------------------------------------------------------------

def test_jit_class():
    @ms.jit_class
    class Scale:
        def __init__(self):
            self.k = Tensor(2.0)

        def mul(self, x):
            return x * self.k

    assert Scale.__ms_class__ is True
    scale = Scale()
    out = ms.jit(lambda x: scale.mul(x))(Tensor(np.ones(2, np.float32)))
    assert out.asnumpy().tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="cannot be used for nn.Cell"):
        ms.jit_class(nn.Dense)
    with pytest.raises(TypeError, match="can only be used for class type"):
        ms.jit_class(scale)


def test_constexpr_runs_at_trace_time():
    @ms.constexpr
    def twice(n):
        return n * 2

    assert twice(3) == 6
    f = ms.jit(lambda x: x * twice(x.shape[0]))
    assert f(Tensor(np.ones(2, np.float32))).asnumpy().tolist() == [4.0, 4.0]   # measured
    assert ms.constexpr(reuse_result=False)(lambda: 3)() == 3


def test_lazy_inline_and_no_inline_change_nothing():
    class Block(nn.Cell):
        @ms.lazy_inline
        def __init__(self):
            super().__init__()
            self.d = nn.Dense(2, 2)

        def construct(self, x):
            return self.d(x)

    block = Block()
    x = Tensor(np.ones((1, 2), np.float32))
    np.testing.assert_array_equal(block(x).asnumpy(), block.d(x).asnumpy())
    with pytest.raises(ValueError, match="The lazy_inline should decorate the __init__ function, not the "
                                         "function: <lambda>"):
        ms.lazy_inline(lambda x: x)

    def plus_one(x):
        return x + 1
    assert ms.no_inline(plus_one) is plus_one and ms.no_inline()(plus_one) is plus_one


def test_recompute_is_the_call_with_the_same_gradients():
    dense = nn.Dense(2, 3)
    x = Tensor(np.array([[1.0, -2.0]], np.float32))
    np.testing.assert_array_equal(ms.recompute(dense, x).asnumpy(), dense(x).asnumpy())
    plain = ms.grad(lambda x: dense(x).sum(), None, dense.trainable_params())(x)
    recomputed = ms.grad(lambda x: ms.recompute(dense, x).sum(), None, dense.trainable_params())(x)
    for a, b in zip(plain, recomputed):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert ms.recompute(lambda a: a * 3, x, use_reentrant=False).asnumpy().tolist() == [[3.0, -6.0]]
    with pytest.raises(TypeError, match="only support block which inherited from Cell when use_reentrant=True"):
        ms.recompute(lambda a: a, x)


def test_jit_config():
    assert ms.JitConfig(jit_syntax_level="STRICT").jit_config_dict == {   # measured
        "jit_level": "", "exc_mode": "auto", "jit_syntax_level": "STRICT", "debug_level": "RELEASE",
        "infer_boost": "off"}
    assert ms.JitConfig(foo=1).jit_config_dict["foo"] == 1
    for kwargs, message in (({"jit_level": "O9"}, r"For 'jit_level' must be one of \['O0', 'O1', 'O2'\]."),
                            ({"exc_mode": "x"}, "For 'exc_mode' must be one of"),
                            ({"jit_syntax_level": "x"}, "For 'jit_syntax_level' must be one of"),
                            ({"debug_level": "x"}, "For 'debug_level' must be one of"),
                            ({"infer_boost": "x"}, "For 'infer_boost' must be one of")):
        with pytest.raises(ValueError, match=message):
            ms.JitConfig(**kwargs)
    assert (ms.STRICT, ms.COMPATIBLE, ms.LAX) == (0, 1, 2)    # measured


def test_set_deterministic(monkeypatch):
    from graphcell.compiler import hints
    monkeypatch.setattr(hints, "_DETERMINISTIC_SET", [False])
    monkeypatch.setenv("XLA_FLAGS", "")
    monkeypatch.setitem(__import__("graphcell.context", fromlist=["_CONTEXT"])._CONTEXT, "deterministic", "OFF")
    with pytest.raises(TypeError, match="The parameter 'deterministic' must be <class 'bool'>, but got <class 'int'>"):
        ms.set_deterministic(1)
    ms.set_deterministic(True)
    assert ms.get_context("deterministic") == "ON"
    assert "--xla_gpu_deterministic_ops=true" in os.environ["XLA_FLAGS"]
    with pytest.raises(RuntimeError, match="can not be set repeatedly"):
        ms.set_deterministic(False)


def test_run_check(capsys):
    ms.run_check()
    out = capsys.readouterr().out
    assert f"installed on platform [{jax.default_backend().upper()}] successfully!" in out


# --- checkpoint conversions ---------------------------------------------------------------------------------

# Written by MindSpore 2.10: save_checkpoint(nn.Dense(2, 3) after set_seed(0), "a.ckpt"), and what its
# ckpt_to_safetensors and then safetensors_to_ckpt made of it.
MS_CKPT = bytes.fromhex(
    "0a310a067765696768741227080308021207466c6f617433321a185856b33e2866d4bcb1a1273ed70274bd91238e3ecc033dbe"
    "0a210a0462696173121908031207466c6f617433321a0c9a22f0be34dce03e4920413d")
MS_SAFETENSORS = bytes.fromhex(
    "98000000000000007b225f5f6d657461646174615f5f223a7b22666f726d6174223a226d73227d2c2262696173223a7b226474"
    "797065223a22463332222c227368617065223a5b335d2c22646174615f6f666673657473223a5b302c31325d7d2c2277656967"
    "6874223a7b226474797065223a22463332222c227368617065223a5b332c325d2c22646174615f6f666673657473223a5b3132"
    "2c33365d7d7d209a22f0be34dce03e4920413d5856b33e2866d4bcb1a1273ed70274bd91238e3ecc033dbe")
MS_CKPT_BACK = bytes.fromhex(  # name order: bias first
    "0a210a0462696173121908031207466c6f617433321a0c9a22f0be34dce03e4920413d"
    "0a310a067765696768741227080308021207466c6f617433321a185856b33e2866d4bcb1a1273ed70274bd91238e3ecc033dbe")


def test_ckpt_to_safetensors_writes_mindspores_bytes(tmp_path):
    (tmp_path / "a.ckpt").write_bytes(MS_CKPT)
    assert ms.ckpt_to_safetensors(str(tmp_path / "a.ckpt")) is None   # next to the input
    assert (tmp_path / "a.safetensors").read_bytes() == MS_SAFETENSORS
    ms.ckpt_to_safetensors(str(tmp_path / "a.ckpt"), save_path=str(tmp_path / "out"))
    written = tmp_path / "out" / "a.safetensors"
    assert written.read_bytes() == MS_SAFETENSORS
    ms.safetensors_to_ckpt(str(written), save_path=str(tmp_path / "back"))
    assert (tmp_path / "back" / "a.ckpt").read_bytes() == MS_CKPT_BACK


def test_conversion_of_scalars_and_name_map(tmp_path):
    net = nn.Dense(2, 3)
    ms.save_checkpoint(net, str(tmp_path / "n.v1.ckpt"), append_dict={"epoch_num": 2, "lr": 0.5})
    ms.ckpt_to_safetensors(str(tmp_path / "n.v1.ckpt"), save_path=str(tmp_path / "o"),
                           name_map={"weight": "w"})
    read = safetensors.numpy.load_file(str(tmp_path / "o" / "n.v1.safetensors"))
    assert sorted(read) == ["bias", "epoch_num", "lr", "w"]
    np.testing.assert_array_equal(read["w"], net.weight.asnumpy())
    assert read["epoch_num"].dtype == np.int64 and read["epoch_num"] == 2
    assert read["lr"].dtype == np.float32 and read["lr"] == 0.5
    ms.safetensors_to_ckpt(str(tmp_path / "o" / "n.v1.safetensors"), save_path=str(tmp_path / "b"),
                           name_map={"w": "weight"})
    loaded = ms.load_checkpoint(str(tmp_path / "b" / "n.v1.ckpt"))
    assert list(loaded) == ["bias", "epoch_num", "lr", "weight"]
    np.testing.assert_array_equal(loaded["weight"].asnumpy(), net.weight.asnumpy())


def test_conversion_of_rank_folders(tmp_path):
    for rank in ("rank_0", "rank_1"):
        (tmp_path / "src" / rank).mkdir(parents=True)
        (tmp_path / "src" / rank / "m.ckpt").write_bytes(MS_CKPT)
        (tmp_path / "src" / rank / "other.ckpt").write_bytes(MS_CKPT)
    ms.ckpt_to_safetensors(str(tmp_path / "src"), save_path=str(tmp_path / "dst"), file_name_regex="m\\.ckpt")
    for rank in ("rank_0", "rank_1"):
        assert sorted(os.listdir(tmp_path / "dst" / rank)) == ["m.safetensors"]
        assert (tmp_path / "dst" / rank / "m.safetensors").read_bytes() == MS_SAFETENSORS
    ms.safetensors_to_ckpt(str(tmp_path / "dst"), save_path=str(tmp_path / "back"))
    assert (tmp_path / "back" / "rank_1" / "m.ckpt").read_bytes() == MS_CKPT_BACK


def test_conversion_errors(tmp_path):  # messages measured on MindSpore 2.10
    (tmp_path / "a.ckpt").write_bytes(MS_CKPT)
    with pytest.raises(ValueError, match="For ckpt_to_safetensors, the input path must be a valid path or file"):
        ms.ckpt_to_safetensors(str(tmp_path / "nope.ckpt"))
    with pytest.raises(ValueError, match="For safetensors_to_ckpt, the input path must be a valid path or file"):
        ms.safetensors_to_ckpt(str(tmp_path / "a.ckpt"))
    with pytest.raises(ValueError, match="no directories starting with 'rank' found in"):
        ms.ckpt_to_safetensors(str(tmp_path))
    with pytest.raises(ValueError, match="the input file does not match the regular expression"):
        ms.ckpt_to_safetensors(str(tmp_path / "a.ckpt"), file_name_regex="zz")
    with pytest.raises(ValueError, match="the type of 'name_map' must be a directory"):
        ms.ckpt_to_safetensors(str(tmp_path / "a.ckpt"), name_map=[1])
    ms.save_checkpoint(nn.Dense(2, 2), str(tmp_path / "s.ckpt"), append_dict={"name": "x"})
    with pytest.raises(TypeError, match="safetensors stores tensors only"):
        ms.ckpt_to_safetensors(str(tmp_path / "s.ckpt"))


def test_load_checkpoint_async(tmp_path):
    (tmp_path / "a.ckpt").write_bytes(MS_CKPT)
    net = nn.Dense(2, 3)
    loaded = ms.load_checkpoint_async(str(tmp_path / "a.ckpt"), net).result()
    assert list(loaded) == ["weight", "bias"]
    np.testing.assert_array_equal(net.bias.asnumpy(), np.frombuffer(MS_CKPT[-12:], np.float32))
    with pytest.raises(ValueError):
        ms.load_checkpoint_async(str(tmp_path / "zz.ckpt")).result()


def test_merge_sliced_parameter():
    parts = [Parameter(Tensor(np.full((2, 3), i, np.float32)), name="net.table") for i in range(3)]
    merged = ms.merge_sliced_parameter(parts)
    assert isinstance(merged, Parameter) and merged.name == "net.table" and merged.shape == (6, 3)
    np.testing.assert_array_equal(merged.asnumpy(), np.repeat(np.arange(3, dtype=np.float32), 2)[:, None] * np.ones(3))
    frozen = Parameter(Tensor(np.ones((2, 2), np.float32)), name="a", requires_grad=False)
    assert ms.merge_sliced_parameter([frozen, frozen]).requires_grad is False
    with pytest.raises(ValueError, match="have the same name, dimension length and shape except 0 axis"):
        ms.merge_sliced_parameter([Parameter(Tensor(np.ones(2, np.float32)), name="a"),
                                   Parameter(Tensor(np.ones(2, np.float32)), name="b")])
    with pytest.raises(TypeError, match="should be list"):
        ms.merge_sliced_parameter(parts[0])
    with pytest.raises(ValueError, match="should not be empty"):
        ms.merge_sliced_parameter([])
    with pytest.raises(TypeError, match="should be 'Parameter'"):
        ms.merge_sliced_parameter([Tensor(np.ones(2, np.float32))])
