"""cuDNN's convolution algorithm choices: XLA picks its own algorithms (autotuning), so these
are checked, kept and not applied."""
import warnings

_MODES = ("normal", "performance", "implicit_gemm", "precomp_gemm", "gemm", "direct", "fft", "fft_tiling",
          "winograd", "winograd_nonfused", "algo_0", "algo_1", "algo_3")
SETTINGS: dict = {}


def _set(api: str, mode) -> None:
    if not isinstance(mode, str) or mode not in _MODES:
        raise ValueError(f"For '{api}', the argument 'mode' must be one of {list(_MODES)}, but got {mode!r}.")
    SETTINGS[api] = mode
    warnings.warn(f"'{api}': XLA chooses its convolution algorithms itself; the mode is kept and not applied.",
                  stacklevel=3)


def conv_fprop_algo(mode) -> None:
    _set("conv_fprop_algo", mode)


def conv_dgrad_algo(mode) -> None:
    _set("conv_dgrad_algo", mode)


def conv_wgrad_algo(mode) -> None:
    _set("conv_wgrad_algo", mode)
