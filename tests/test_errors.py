"""The bad-input catalogue: each user mistake gets an error in the user's terms (the Cell
path, the argument, the file) and what to do, never a bare jax traceback. One test per row;
README's troubleshooting table lists the same rows."""
import logging

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor, nn
from tests.models.lenet import LeNet5


def x_of(*shape, dtype=np.float32):
    return Tensor(np.zeros(shape, dtype))


@pytest.mark.parametrize("call", ["eager", "jit"])
def test_wrong_input_rank_names_the_cell_and_shape(call):
    net = LeNet5()
    fn = ms.jit(net) if call == "jit" else net
    with pytest.raises(ValueError, match=r"Conv2d 'conv1': expected a 4-D input \[N, C, H, W\], got shape \[1, 32, 32\]"):
        fn(x_of(1, 32, 32))


def test_wrong_channel_count_names_the_cell_and_both_sizes():
    with pytest.raises(ValueError, match=r"Conv2d 'conv1': expected input \(in_channels=1\) with 1 at axis 1, "
                                         r"got shape \[2, 3, 32, 32\] \(3\)"):
        LeNet5()(x_of(2, 3, 32, 32))


def test_too_small_image_names_the_dense_layer():
    with pytest.raises(ValueError, match=r"Dense 'fc1': expected input \(in_channels=400\)"):
        LeNet5()(x_of(2, 1, 28, 28))


def test_dtype_mismatch_names_the_cell_and_the_fix():
    with pytest.raises(TypeError, match=r"Conv2d 'conv1': input .* has dtype Float64 but the parameters are "
                                        r"Float32; cast it with x.astype\(graphcell.float32\)"):
        LeNet5()(x_of(1, 1, 32, 32, dtype=np.float64))


def test_non_tensor_argument():
    with pytest.raises(TypeError, match="Conv2d 'conv1': input .* must be a Tensor, got list"):
        LeNet5()([[0.0]])


def test_op_shape_error_names_the_cell_scope():
    class Bad(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def construct(self, x):
            return self.inner(x)

    class Inner(nn.Cell):
        def construct(self, x):
            return x + ms.ops.ones((5,))

    with pytest.raises(ValueError, match=r"in Cell 'inner': add\(f32\[2,3\], f32\[5\]\).*cannot be broadcast"):
        ms.jit(Bad())(x_of(2, 3))


def _helper_with_python_branch(x):
    return x * max(x.sum(), 1.0)  # the builtin max compares in Python: bool() of a traced Tensor


def test_python_branch_on_traced_tensor():
    @ms.jit
    def f(x):
        return _helper_with_python_branch(x)
    with pytest.raises(RuntimeError, match=r"bool\(\) of a traced Tensor at .*test_errors\.py:\d+: .*graph mode"):
        f(x_of(2))


def test_function_that_may_fall_off_its_end_names_it_and_the_fix():
    from graphcell.frontend.cf_build import ControlFlowError

    def f(x):
        if x.sum() > 0:
            return x * 2

    with pytest.raises(ControlFlowError, match=r"'f' returns a value on some paths and falls off its end "
                                               r"\(returning None\) on others.*end it with a return"):
        ms.jit(f)(x_of(2))


def test_leaked_traced_tensor():
    store = []

    @ms.jit
    def f(x):
        store.append(x * 2)
        return x

    f(x_of(2))
    with pytest.raises(RuntimeError, match="a Tensor from a finished trace was used outside it"):
        store[0] + 1


def test_reshape_size_mismatch():
    with pytest.raises(ValueError, match=r"reshape: cannot reshape \[2, 3\] to \[4, -1\]"):
        x_of(2, 3).reshape(4, -1)


def test_axis_out_of_range():
    with pytest.raises(ValueError, match=r"axis 3 is out of range for a tensor of rank 2"):
        x_of(2, 3).sum(axis=3)


def test_unknown_activation_lists_known_ones():
    with pytest.raises(KeyError, match="unknown activation 'rleu'; known: .*relu"):
        nn.Dense(2, 2, activation="rleu")


def test_set_context_rejects_bad_values():
    with pytest.raises(ValueError, match="backend must be 'xla' or 'onnx'"):
        ms.set_context(backend="tpu")


# ---- vmap ------------------------------------------------------------------------------------------


def test_vmap_in_axis_out_of_range_names_the_axis_and_rank():
    with pytest.raises(RuntimeError, match=r"The axis: 2 in 'in_axes' is out of bounds for array of dimension \[-2,2\)"):
        ms.vmap(lambda a: a * 2, in_axes=2)(x_of(3, 4))


def test_vmap_mismatched_axis_sizes_names_both_arguments():
    with pytest.raises(RuntimeError, match=r"should be equal, but got 3 and 5.*3 \(argument 0\) and 5 \(argument 1\)"):
        ms.vmap(lambda a, b: a + b, in_axes=(0, 0))(x_of(3, 4), x_of(5, 4))


def test_vmap_in_axes_structure_mismatch_gives_both_counts():
    with pytest.raises(RuntimeError, match=r"'in_axes' is a tuple or list, and its size must be equal to the number "
                                           r"of arguments of 'fn': 2, but got size: 3"):
        ms.vmap(lambda a, b: a + b, in_axes=(0, 0, 0))(x_of(3, 4), x_of(3, 4))


class _Head(nn.Cell):
    def __init__(self, out):
        super().__init__()
        self.fc = nn.Dense(4, out)

    def construct(self, x):
        return self.fc(x)


def test_vmap_celllist_of_differing_architectures_names_the_parameter_and_shapes():
    with pytest.raises(RuntimeError, match=r"shape in each cell should be consistent.*fc\.weight.*"
                                           r"member 0: \[2, 4\], member 1: \[3, 4\]"):
        ms.vmap(nn.CellList([_Head(2), _Head(3)]), in_axes=None)(x_of(3, 4))


# ---- control flow and grad -------------------------------------------------------------------------


def _with_try(x):
    try:
        y = x * 2
    finally:
        pass
    if y.sum() > 0:
        return y
    return -y


def test_try_around_traced_code_names_the_function_and_the_fix():
    from graphcell.frontend.ast_transform import UnsupportedSyntaxError
    with pytest.raises(UnsupportedSyntaxError, match=r"test_errors\.py:\d+: `try` statement in '_with_try'.*"
                                                     r"Move the try/except outside the compiled function"):
        ms.jit(_with_try)(x_of(2))


def test_grad_of_integer_input_names_the_argument():
    def square_sum(a):
        return (a * a).sum()
    with pytest.raises(TypeError, match=r"grad: argument 0 \('a'\) of square_sum is Int32; gradients exist only "
                                        r"for floating-point and complex inputs"):
        ms.grad(square_sum)(Tensor(np.ones(3, np.int32)))


def test_int64_labels_into_cross_entropy_are_refused_in_mindspores_words():
    # MindSpore 2.10's message, as test_nn_layers records it
    with pytest.raises(TypeError, match=r"For 'CrossEntropyLoss', the 'labels' should be Int32, but got "
                                        r"'mindspore\.int64'\."):
        nn.CrossEntropyLoss()(x_of(2, 3), Tensor(np.array([0, 1], np.int64)))


# ---- checkpoints and ONNX files --------------------------------------------------------------------


def _lenet_ckpt():
    from tests.conftest import GOLDEN
    return str(GOLDEN / "net0.ckpt")


def test_checkpoint_for_another_model_names_the_parameters_and_leaves_the_net_unchanged(caplog):
    net = _Head(2)
    before = net.fc.weight.asnumpy().copy()
    # MindSpore 2.10 reports the parameters it could not load (with strict_load too) and loads nothing.
    with caplog.at_level(logging.WARNING, logger="graphcell"):
        ms.load_checkpoint(_lenet_ckpt(), net=net, strict_load=True)
    assert "fc.weight" in caplog.text and "was it saved from this network?" in caplog.text
    assert ms.load_param_into_net(net, ms.load_checkpoint(_lenet_ckpt()), strict_load=True)[0] == \
        ["fc.weight", "fc.bias"]
    np.testing.assert_array_equal(net.fc.weight.asnumpy(), before)


def test_checkpoint_with_other_shapes_lists_both_shapes():
    class Wide(nn.Cell):   # LeNet's names, other sizes
        def __init__(self):
            super().__init__()
            self.fc3 = nn.Dense(84, 7)

        def construct(self, x):
            return self.fc3(x)
    with pytest.raises(RuntimeError, match=r"(?s)fc3\.weight: the network has shape \(7, 84\), the checkpoint has shape \(10, 84\).*"
                                             r"same network architecture"):
        ms.load_checkpoint(_lenet_ckpt(), net=Wide())


@pytest.mark.parametrize("suffix", ["ckpt", "safetensors"])
def test_truncated_checkpoint_names_the_file(tmp_path, suffix):
    from tests.conftest import GOLDEN
    path = tmp_path / f"cut.{suffix}"
    path.write_bytes((GOLDEN / f"net0.{suffix}").read_bytes()[:100])
    from graphcell.train import CheckpointError
    with pytest.raises(CheckpointError, match=rf"cut\.{suffix}: .*It may be truncated or corrupt"):
        ms.load_checkpoint(str(path))


def test_corrupt_onnx_file_names_the_file_and_the_fix(tmp_path):
    from graphcell.runtime.session import OnnxModelError, Session
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"\x08\x07\x12\x05hello this is not a model")
    with pytest.raises(OnnxModelError, match=r"broken\.onnx.*truncated or corrupt; re-export it"):
        Session(str(path), providers=["cpu"])


def test_missing_execution_provider_with_strict_says_how_to_fix():
    import onnxruntime as ort
    from graphcell.runtime import Session
    from tests.conftest import GOLDEN
    if "MIGraphXExecutionProvider" in ort.get_available_providers():
        pytest.skip("this onnxruntime has MIGraphX")
    with pytest.raises(RuntimeError, match=r"none of \['MIGraphXExecutionProvider'\] is available.*"
                                           r"pass strict=False to fall back to CPU"):
        Session(str(GOLDEN / "net0_mindspore.onnx"), providers=["migraphx"], strict=True)


@pytest.mark.parametrize("shape, dtype, message", [
    ((3, 1, 28, 28), np.float32, r"input 'x' has shape \[3, 1, 28, 28\], the model expects float32\[3,1,32,32\]"),
    ((3, 1, 32, 32), np.float64, r"input 'x' is float64\[3,1,32,32\], the model expects float32\[3,1,32,32\]"),
])
def test_wrong_input_to_an_onnx_session_names_the_input(shape, dtype, message):
    from graphcell.runtime import Session, SessionInputError
    from tests.conftest import GOLDEN
    sess = Session(str(GOLDEN / "net0_mindspore.onnx"), providers=["cpu"])
    with pytest.raises(SessionInputError, match=r"net0_mindspore\.onnx: " + message):
        sess(np.zeros(shape, dtype))


# ---- the command line ------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, message", [
    (["bogus"], r"invalid choice: 'bogus' \(choose from 'dump', 'export', 'run'"),
    (["run"], r"the following arguments are required: MODEL\.onnx, --input \(see graphcell run --help\)"),
])
def test_cli_misuse_exits_2_with_usage(argv, message, capsys):
    from graphcell.cli import main
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    assert __import__("re").search(message, capsys.readouterr().err)


def test_cli_corrupt_onnx_file_returns_2_naming_it(tmp_path, capsys):
    from graphcell.cli import main
    model, x = tmp_path / "bad.onnx", tmp_path / "x.npy"
    model.write_bytes(b"not onnx")
    np.save(x, np.zeros((1, 4), np.float32))
    assert main(["run", str(model), "--input", str(x), "--provider", "cpu"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.onnx" in err and "truncated or corrupt" in err, err


# ---- set_context(check_finite=True) ----------------------------------------------------------------


class _Log(nn.Cell):
    def construct(self, x):
        return ms.ops.log(x)                                   # NaN for negative inputs


class _LogNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)
        self.inner = _Log()

    def construct(self, x):
        return self.inner(self.fc(x) - 1000.0) * 2.0


@pytest.fixture
def check_finite_on():
    ms.set_context(check_finite=True)
    yield
    ms.set_context(check_finite=False)


def test_check_finite_names_the_first_op_its_cell_and_line(check_finite_on):
    import re
    with pytest.raises(FloatingPointError) as e:
        ms.jit(_LogNet())(x_of(2, 3))
    message = str(e.value)
    # The log, not the later multiply that merely propagates the NaN.
    assert re.search(r"log produced NaN in Cell 'inner' at .*test_errors\.py:\d+", message), message
    assert "mul" not in message.split(";")[0] and "check_finite=False" in message


def test_check_finite_off_lets_nan_through():
    out = ms.jit(_LogNet())(x_of(2, 3)).asnumpy()
    assert np.isnan(out).all()


def test_check_finite_on_passes_finite_results_unchanged(check_finite_on):
    net = _LogNet()
    net.fc.weight.set_data(Tensor(np.eye(3, dtype=np.float32)))   # fc(x) = x + bias: log's input > 0
    x = Tensor(np.full((2, 3), 2000.0, np.float32))
    expected = 2.0 * np.log(x.asnumpy() @ net.fc.weight.asnumpy().T + net.fc.bias.asnumpy() - 1000.0)
    np.testing.assert_allclose(ms.jit(net)(x).asnumpy(), expected, rtol=1e-5)


# PYNATIVE mode: `frontend/tracer.bind`'s eager branch checks every op's result.
class _ExpNet(nn.Cell):
    """exp overflows to Inf in 'inner'; the later subtraction turns Inf into NaN (not the first op)."""

    def __init__(self):
        super().__init__()
        self.inner = _Exp()

    def construct(self, x):
        y = self.inner(x * 2.0)
        return y - y


class _Exp(nn.Cell):
    def construct(self, x):
        return ms.ops.exp(x)                                   # Inf for x > ~88 in float32


def _eager_check_message(net, x):
    import re
    with pytest.raises(FloatingPointError) as e:
        net(x)
    message = str(e.value)
    return message, re.search(r"(\w+) produced (NaN|Inf) in Cell '([\w.]+)' at .*test_errors\.py:(\d+)", message)


def test_check_finite_eager_names_the_first_op_its_cell_and_line(check_finite_on):
    message, m = _eager_check_message(_ExpNet(), Tensor(np.array([[1.0, 50.0]], np.float32)))
    assert m and m.groups()[:3] == ("exp", "Inf", "inner"), message
    assert "inputs: f32[1,2]" in message and "check_finite=False" in message
    message, m = _eager_check_message(_LogNet(), x_of(2, 3))
    assert m and m.groups()[:3] == ("log", "NaN", "inner"), message


def test_check_finite_eager_passes_finite_results_and_constants(check_finite_on):
    x = np.array([[1.0, 2.0]], np.float32)
    np.testing.assert_allclose(_ExpNet()(Tensor(x)).asnumpy(), np.zeros_like(x))
    mask = ms.ops.full((2,), float("-inf"), ms.float32)        # a deliberate -inf constant is no error
    assert np.isneginf(mask.asnumpy()).all()


def test_check_finite_eager_off_lets_inf_through():
    out = _ExpNet()(Tensor(np.array([[50.0]], np.float32))).asnumpy()
    assert np.isnan(out).all()


def test_check_finite_graph_mode_cell_call(check_finite_on):
    ms.set_context(mode=ms.GRAPH_MODE)                           # every Cell call goes through jit
    message, m = _eager_check_message(_ExpNet(), Tensor(np.array([[1.0, 50.0]], np.float32)))
    assert m and m.groups()[:3] == ("exp", "Inf", "inner"), message


def test_check_finite_eager_end_to_end(check_finite_on):
    out = None
    try:
        out = _ExpNet()(Tensor(np.array([[1.0, 50.0]], np.float32)))
    except FloatingPointError as e:
        assert "exp produced Inf in Cell 'inner'" in str(e)
    assert out is None, "PYNATIVE mode returned a NaN result without a check_finite error"


@pytest.mark.parametrize("call", ["ops.sub", "operator", "jit"])
def test_sub_of_bools_is_refused_in_mindspores_words(call):
    """MindSpore's Sub has no Bool kernel; graphcell says so (and what to use) instead of jax's TypeError."""
    a, b = Tensor(np.array([True, False])), Tensor(np.array([True, True]))
    fn = {"ops.sub": ms.ops.sub, "operator": lambda x, y: x - y, "jit": ms.jit(lambda x, y: x - y)}[call]
    with pytest.raises(TypeError, match=r"For primitive\[Sub\], the input argument\[x\] must be a type of "
                                        r"\{Tensor\[Complex128\].*\}, but got Tensor\[Bool\].*ops.not_equal\(x, y\)"):
        fn(a, b)
    assert fn(a.astype(ms.int32), b.astype(ms.int32)).asnumpy().tolist() == [0, -1]   # the fix works
