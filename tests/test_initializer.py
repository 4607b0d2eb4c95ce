"""Tests for graphcell.common.initializer: MindSpore 2.10 initial values, bit for bit."""
import math
import pathlib

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from safetensors.numpy import load_file

from graphcell.common import initializer as I
from graphcell.train.ckpt_format import read_ckpt_file

GOLDEN = pathlib.Path(__file__).parent / "data" / "golden"
GOLDEN_SEED = 20261129  # the seed the golden script passed to mindspore.set_seed


def bits(a):
    """The float32 bit patterns, so equality is bitwise (-0.0 != 0.0, NaNs compare)."""
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def lenet5_initial_params():
    """LeNet5's parameters in MindSpore's build order and default initialisers.

    Conv2d: weight only (has_bias=False), HeUniform(sqrt 5).  Dense: weight HeUniform(sqrt 5)
    then bias U(+-1/sqrt(in)) -- two seed draws.
    """
    he = I.HeUniform(negative_slope=math.sqrt(5))
    params = {
        "conv1.weight": he.sample((6, 1, 5, 5)),
        "conv2.weight": he.sample((16, 6, 5, 5)),
    }
    for name, (fan_in, fan_out) in (("fc1", (400, 120)), ("fc2", (120, 84)), ("fc3", (84, 10))):
        params[f"{name}.weight"] = he.sample((fan_out, fan_in))
        params[f"{name}.bias"] = I.Uniform(scale=1 / math.sqrt(fan_in)).sample((fan_out,))
    return params


@pytest.fixture(scope="module")
def four_nets():
    """Four LeNet5 built in sequence after set_seed, as the golden script did."""
    state = np.random.get_state()
    try:
        I.set_seed(GOLDEN_SEED)
        return [lenet5_initial_params() for _ in range(4)]
    finally:
        np.random.set_state(state)


# ------------------------------------------------------------------ golden truth

@pytest.mark.parametrize("index", range(4))
def test_golden_ckpt_bit_exact(four_nets, index):
    expected = read_ckpt_file(GOLDEN / f"net{index}.ckpt")
    got = four_nets[index]
    assert list(expected) == list(got)  # same names, same build order
    for name, value in expected.items():
        assert value.shape == got[name].shape, name
        assert got[name].dtype == np.float32, name
        assert np.array_equal(bits(value), bits(got[name])), name


def test_golden_safetensors_bit_exact(four_nets):
    expected = load_file(str(GOLDEN / "net0.safetensors"))
    assert sorted(expected) == sorted(four_nets[0])
    for name, value in expected.items():
        assert np.array_equal(bits(value), bits(four_nets[0][name])), name


# ------------------------------------------------------------------ Philox

# Known-answer vectors of the Random123 reference (counter, key -> output).
PHILOX_KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("counter,key,expected", PHILOX_KAT)
def test_philox_known_answers(counter, key, expected):
    out = I._philox_rounds([np.array([c], dtype=np.uint64) for c in counter], key)
    assert out.dtype == np.uint32
    assert tuple(int(w) for w in out[0]) == expected


def test_philox_stream_layout():
    # seed 0 -> key (0, 0), first counter (0, 0, 0, 0): the first Random123 vector.
    assert tuple(int(w) for w in I.philox4x32_10(0, 4)) == PHILOX_KAT[0][2]
    seed = 0x0123456789ABCDEF
    lo, hi = seed & 0xFFFFFFFF, seed >> 32
    words = I.philox4x32_10(seed, 11)
    assert words.dtype == np.uint32 and words.shape == (11,)
    for block in range(3):  # block i: counter (i, 0, lo, hi), key (lo, hi)
        ref = I._philox_rounds([np.array([v], dtype=np.uint64) for v in (block, 0, lo, hi)],
                               (lo, hi))[0]
        n = min(4, 11 - 4 * block)
        assert np.array_equal(words[4 * block:4 * block + n], ref[:n])


def test_philox_carries_into_counter_word_1():
    """Block 2^32 has counter (0, 1, lo, hi); check via the round function directly."""
    seed = 12345
    ref = I._philox_rounds([np.array([v], dtype=np.uint64) for v in (0, 1, seed, 0)], (seed, 0))
    block = np.uint64(2 ** 32)
    counter = (block & np.uint64(0xFFFFFFFF), block >> np.uint64(32),
               np.uint64(seed), np.uint64(0))
    assert np.array_equal(I._philox_rounds([np.array([c]) for c in counter], (seed, 0)), ref)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(1, 2 ** 63 - 1), n=st.integers(0, 40), m=st.integers(0, 40))
def test_philox_prefix_property(seed, n, m):
    """One stream: a shorter request is a prefix of a longer one."""
    short, long_ = sorted((n, m))
    assert np.array_equal(I.philox4x32_10(seed, long_)[:short], I.philox4x32_10(seed, short))


def test_philox_rejects_bad_arguments():
    with pytest.raises(ValueError):
        I.philox4x32_10(-1, 4)
    with pytest.raises(ValueError):
        I.philox4x32_10(2 ** 64, 4)
    with pytest.raises(ValueError):
        I.philox4x32_10(1, -1)


# ------------------------------------------------------------------ distributions

def test_uniform_formula_is_double_precision():
    words = np.array([0, 1, 2 ** 31, 2 ** 32 - 1, 123456789], dtype=np.uint32)
    a, b = -0.05, 0.05
    af, bf = float(np.float32(a)), float(np.float32(b))
    expected = [np.float32((bf - af) * (int(u) / 2 ** 32) + af) for u in words]
    assert np.array_equal(bits(I.uniform_from_words(words, a, b)), bits(expected))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(1, 2 ** 63 - 1), scale=st.floats(1e-3, 10.0))
def test_uniform_stays_in_bounds(seed, scale):
    out = I.uniform_from_words(I.philox4x32_10(seed, 64), -scale, scale)
    bound = np.float32(scale)
    assert np.all(out >= -bound) and np.all(out <= bound)


def _normal_reference(words, n, mean, sigma):
    """Scalar Box-Muller with the C library's log/cos/sin (via math), as in MindSpore."""
    meanf, sigmaf = float(np.float32(mean)), float(np.float32(sigma))
    pi, eps = float(np.float32(3.1415926)), float(np.float32(1e-7))
    out = []
    for k in range(0, n, 2):
        u1 = max((int(words[k]) & 0x7FFFFF) / 2 ** 23, eps)
        u2 = max((int(words[k + 1]) & 0x7FFFFF) / 2 ** 23, eps)
        r = math.sqrt(-2.0 * math.log(u1)) * sigmaf
        theta = 2.0 * pi * u2
        out += [meanf + r * math.cos(theta), meanf + r * math.sin(theta)]
    return np.array(out[:n], dtype=np.float32)


@pytest.mark.parametrize("n", [1, 2, 7, 2000])
def test_normal_matches_scalar_box_muller(n):
    words = I.philox4x32_10(987654321, 2 * ((n + 1) // 2))
    got = I.normal_from_words(words, n, 0.5, 0.01)
    assert np.array_equal(bits(got), bits(_normal_reference(words, n, 0.5, 0.01)))


def test_normal_clamps_tiny_uniforms():
    words = np.zeros(2, dtype=np.uint32)  # both uniforms 0 -> clamped to f32(1e-7)
    out = I.normal_from_words(words, 2, 0.0, 1.0)
    assert np.all(np.isfinite(out))
    assert np.array_equal(bits(out), bits(_normal_reference(words, 2, 0.0, 1.0)))


def test_normal_statistics_and_determinism():
    I.set_seed(7)
    a = I.Normal(sigma=0.02, mean=0.3).sample((400, 500))
    I.set_seed(7)
    b = I.Normal(sigma=0.02, mean=0.3).sample((400, 500))
    assert np.array_equal(bits(a), bits(b))
    assert abs(a.mean() - 0.3) < 5e-4
    assert abs(a.std() - 0.02) < 5e-4
    c = I.Normal(sigma=0.02, mean=0.3).sample((400, 500))  # next seed: a different tensor
    assert not np.array_equal(a, c)


def test_normal_odd_size_is_prefix_of_even():
    I.set_seed(3)
    odd = I.Normal().sample((5,))
    I.set_seed(3)
    even = I.Normal().sample((6,))
    assert np.array_equal(bits(odd), bits(even[:5]))


def test_he_and_xavier_normal_statistics():
    I.set_seed(11)
    he = I.HeNormal(nonlinearity='relu').sample((256, 128, 3, 3))
    assert abs(he.std() / (math.sqrt(2.0) / math.sqrt(128 * 9)) - 1) < 0.01
    xn = I.XavierNormal(gain=2).sample((300, 200))
    assert abs(xn.std() / (2 * math.sqrt(2.0 / 500)) - 1) < 0.01


def test_truncated_normal():
    I.set_seed(5)
    t = I.TruncatedNormal(sigma=0.01).sample((500, 400))
    assert abs(t.mean()) < 1e-4 and abs(t.std() - 0.01) < 1e-4
    wide = I.TruncatedNormal(sigma=1.5).sample((500, 400))  # bounds are +-2 absolute
    assert wide.min() >= -2 and wide.max() <= 2
    assert abs(wide.mean()) < 0.02 and wide.std() < 1.5
    I.set_seed(5)
    assert np.array_equal(bits(I.TruncatedNormal(sigma=0.01).sample((500, 400))), bits(t))


def test_truncated_normal_inverse_cdf_accuracy():
    p = np.array([1e-300, 1e-45, 1e-10, 0.01, 0.02425, 0.3, 0.5, 0.7, 0.99, 1 - 1e-12])
    x = I._ndtri(p)
    phi = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x])
    assert np.allclose(phi, p, rtol=1e-12, atol=0)


# ------------------------------------------------------------------ seeds

def _seed_draws(fn):
    """How many initialiser seeds ``fn`` drew from numpy's global RNG."""
    I.set_seed(99)
    fn()
    after = np.random.get_state()[1].copy(), np.random.get_state()[2]
    I.set_seed(99)
    for draws in range(4):
        state = np.random.get_state()
        if np.array_equal(state[1], after[0]) and state[2] == after[1]:
            return draws
        I.draw_seed()
    raise AssertionError("more than 3 draws")


@pytest.mark.parametrize("init,shape", [
    (I.Zero(), (4, 4, 3, 3)), (I.One(), (4, 4, 3, 3)), (I.Constant(0.5), (4, 4, 3, 3)),
    (I.Identity(), (4, 6)), (I.Dirac(), (4, 4, 3, 3)),
    (I.ArrayInitializer(np.zeros((4, 4, 3, 3))), (4, 4, 3, 3)),
])
def test_deterministic_initialisers_draw_no_seed(init, shape):
    assert not init.draws_seed
    assert _seed_draws(lambda: init.sample(shape)) == 0


@pytest.mark.parametrize("init", [I.Uniform(), I.Normal(), I.TruncatedNormal(), I.HeUniform(),
                                  I.HeNormal(), I.XavierUniform(), I.XavierNormal(),
                                  I.VarianceScaling(), I.Orthogonal()])
def test_random_initialisers_draw_one_seed(init):
    assert init.draws_seed
    assert _seed_draws(lambda: init.sample((6, 4, 3, 3))) == 1


def test_seed_draw_is_mindsporess_randint():
    I.set_seed(1)
    drawn = I.draw_seed()
    np.random.seed(1)
    assert drawn == int(np.random.randint(1, 2 ** 63, dtype=np.int64))


def test_uniform_uses_the_drawn_seed():
    I.set_seed(42)
    got = I.Uniform(0.3).sample((3, 5))
    I.set_seed(42)
    seed = I.draw_seed()
    expected = I.uniform_from_words(I.philox4x32_10(seed, 15), -0.3, 0.3).reshape(3, 5)
    assert np.array_equal(bits(got), bits(expected))


def test_set_seed_and_get_seed():
    I.set_seed(123)
    assert I.get_seed() == 123
    with pytest.raises(TypeError):
        I.set_seed(1.5)
    with pytest.raises(TypeError):
        I.set_seed(True)
    with pytest.raises(ValueError):
        I.set_seed(-1)
    assert I.get_seed() == 123


def test_seed_hooks_run_on_set_seed():
    seen = []
    I.register_seed_hook(seen.append)
    try:
        I.set_seed(17)
    finally:
        I._SEED_HOOKS.remove(seen.append)
    assert seen == [17]


# ------------------------------------------------------------------ fans, bounds, names

def test_fan_in_and_fan_out():
    assert I._calculate_fan_in_and_fan_out((16, 6, 5, 5)) == (150, 400)
    assert I._calculate_fan_in_and_fan_out((120, 400)) == (400, 120)
    assert I._calculate_fan_in_and_fan_out((8, 3, 2)) == (6, 16)
    with pytest.raises(ValueError):
        I._calculate_fan_in_and_fan_out((5,))
    assert I._calculate_correct_fan((16, 6, 5, 5), 'FAN_OUT') == 400
    with pytest.raises(ValueError):
        I._calculate_correct_fan((16, 6), 'fan_avg')


def test_gain_table():
    assert I._calculate_gain('linear') == 1 and I._calculate_gain('sigmoid') == 1
    assert I._calculate_gain('tanh') == 5.0 / 3
    assert I._calculate_gain('relu') == math.sqrt(2.0)
    assert I._calculate_gain('leaky_relu', math.sqrt(5)) == math.sqrt(2.0 / 6)
    assert I._calculate_gain('leaky_relu') == math.sqrt(2.0 / (1 + 0.01 ** 2))
    with pytest.raises(ValueError):
        I._calculate_gain('gelu')
    with pytest.raises(ValueError):
        I._calculate_gain('leaky_relu', 'x')


def test_layer_bounds():
    I.set_seed(0)
    w = I.HeUniform(math.sqrt(5)).sample((120, 400))
    assert np.abs(w).max() <= np.float32(1 / 20) and np.abs(w).max() > 0.049
    x = I.XavierUniform().sample((30, 20))
    assert np.abs(x).max() <= np.float32(math.sqrt(6 / 50))


@pytest.mark.parametrize("name,cls", [
    ("zeros", I.Zero), ("Zero", I.Zero), ("ONES", I.One), ("one", I.One),
    ("normal", I.Normal), ("Uniform", I.Uniform), ("he_uniform", I.HeUniform),
    ("HeUniform", I.HeUniform), ("he_normal", I.HeNormal), ("henormal", I.HeNormal),
    ("xavier_uniform", I.XavierUniform), ("XavierUniform", I.XavierUniform),
    ("xavier_normal", I.XavierNormal), ("truncatedNormal", I.TruncatedNormal),
    ("identity", I.Identity), ("dirac", I.Dirac), ("orthogonal", I.Orthogonal),
    ("varianceScaling", I.VarianceScaling),
])
def test_string_names(name, cls):
    init = I.initializer_from(name)
    assert type(init) is cls


def test_initializer_from_other_specs():
    he = I.HeUniform()
    assert I.initializer_from(he) is he
    const = I.initializer_from(2.5)
    assert isinstance(const, I.Constant)
    assert np.array_equal(const.sample((2, 3), np.float64), np.full((2, 3), 2.5))
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert np.array_equal(I.initializer_from(arr).sample((2, 3)), arr)
    with pytest.raises(ValueError):
        I.initializer_from(arr).sample((3, 2))
    with pytest.raises(ValueError):
        I.initializer_from("constant")  # MindSpore registers no such name
    with pytest.raises(ValueError):
        I.initializer_from("kaiming")
    with pytest.raises(TypeError):
        I.initializer_from(None)


def test_initialize_front_door():
    I.set_seed(8)
    a = I.initialize("uniform", [4, 5])
    I.set_seed(8)
    b = I.Uniform().sample((4, 5))
    assert np.array_equal(bits(a), bits(b))
    assert I.initialize(1, 3, np.int32).tolist() == [1, 1, 1]
    with pytest.raises(ValueError):
        I.initialize("zeros", (2, 0))


# ------------------------------------------------------------------ dtypes and API

def test_dtype_is_cast_from_float32_values():
    I.set_seed(21)
    f32 = I.Normal(sigma=1.0).sample((50,))
    I.set_seed(21)
    f16 = I.Normal(sigma=1.0).sample((50,), dtype=np.float16)
    I.set_seed(21)
    f64 = I.Normal(sigma=1.0).sample((50,), dtype=np.float64)
    assert f16.dtype == np.float16 and np.array_equal(f16, f32.astype(np.float16))
    assert f64.dtype == np.float64 and np.array_equal(f64, f32.astype(np.float64))


def test_call_fills_in_place():
    arr = np.full((3, 4), 7.0, dtype=np.float32)
    assert I.Zero()(arr) is arr and not arr.any()
    I.set_seed(2)
    I.Uniform()(arr)
    I.set_seed(2)
    assert np.array_equal(bits(arr), bits(I.Uniform().sample((3, 4))))


def test_scalar_and_empty_shapes():
    assert I.One().sample(()).shape == ()
    assert I.Uniform().sample(()).shape == ()
    assert I.Normal().sample((0, 3)).shape == (0, 3)
    with pytest.raises(ValueError):
        I.Zero().sample((2, -1))


def test_deterministic_shapes():
    assert np.array_equal(I.Identity().sample((2, 3)), np.eye(2, 3, dtype=np.float32))
    d = I.Dirac(groups=2).sample((4, 2, 3, 3))
    assert d.sum() == 4 and d[0, 0, 1, 1] == 1 and d[1, 1, 1, 1] == 1 and d[2, 0, 1, 1] == 1
    with pytest.raises(ValueError):
        I.Identity().sample((2, 2, 2))


def test_orthogonal_is_orthogonal():
    I.set_seed(4)
    q = I.Orthogonal(gain=2.0).sample((6, 10)).astype(np.float64)
    assert np.allclose(q @ q.T, 4 * np.eye(6), atol=1e-5)


def test_variance_scaling_quirk_samples_uniform():
    I.set_seed(6)
    vs = I.VarianceScaling(scale=2.0).sample((40, 50))  # default 'truncated_normal' -> uniform
    I.set_seed(6)
    limit = np.sqrt(3.0 * 2.0 / 50)
    seed = I.draw_seed()
    expected = I.uniform_from_words(I.philox4x32_10(seed, 2000), -limit, limit).reshape(40, 50)
    assert np.array_equal(bits(vs), bits(expected))


def test_sparse_zeros_per_column():
    I.set_seed(9)
    s = I.Sparse(sparsity=0.5).sample((10, 4))
    assert all((s[:, c] == 0).sum() >= 5 for c in range(4))
