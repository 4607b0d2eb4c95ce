"""audio.Vad. MindSpore 2.10's detector never triggers for a trigger_level above 0 (its measure stays below
0.5 on speech-like harmonics, noise, tones and pulse trains at any scale up to 1e9, measured), so its output is
always the last search_time + measure_duration (+ pre_trigger_time) of the input, or the whole input for a
level <= 0: those lengths, dtypes and the argument messages are measured on 2.10; the detection itself is
sox's, checked on a burst after near-silence."""
import numpy as np
import pytest

from graphcell.dataset import audio as A

TONE = 0.5 * np.sin(2 * np.pi * 440 * np.arange(12800) / 8000)


@pytest.mark.parametrize("kw,kept", [
    ({}, 8800),
    (dict(trigger_level=3.0, trigger_time=0.1, pre_trigger_time=0.05, allowed_gap=0.1), 9200),
    (dict(measure_freq=10.0, measure_duration=0.15, hp_lifter_freq=200.0, boot_time=0.2, noise_reduction_amount=2.0,
          search_time=0.5), 5200),
    (dict(trigger_level=0.0), 12800),
])
def test_untriggered_and_level_zero_lengths_as_mindspore(kw, kept):
    # 2.10: Vad(8000, **kw) keeps the last `kept` samples of a 1.6 s tone, dtype unchanged
    for dtype in (np.float32, np.float64):
        x = TONE.astype(dtype)
        got = A.Vad(8000, **kw)(x)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, x[-kept:])
    pair = np.stack([TONE, TONE[::-1]]).astype(np.float32)
    np.testing.assert_array_equal(A.Vad(8000, **kw)(pair), pair[:, -kept:])


def test_short_and_integer_inputs_as_mindspore():
    assert A.Vad(8000)(np.zeros(100, np.float32)).shape == (100,)
    assert A.Vad(8000)(np.zeros((2, 3, 4000), np.float32)).shape == (2, 3, 4000)
    got = A.Vad(8000)(np.zeros(4000, np.int32))
    assert got.shape == (4000,) and got.dtype == np.float32


def test_detects_a_burst_after_near_silence():
    rng = np.random.default_rng(0)
    x = np.concatenate([0.001 * rng.standard_normal(6000), 0.3 * rng.standard_normal(6000)])
    for level in (3.0, 7.0):
        cut = x.size - A.Vad(8000, trigger_level=level)(x).size
        assert 4800 <= cut <= 6000, cut      # starts within one measure (800 samples) before the burst


@pytest.mark.parametrize("kw,err,msg", [
    (dict(sample_rate=0), ValueError, "Input sample_rate is not within the required interval of [1, 2147483647]."),
    (dict(sample_rate=8000.0), TypeError,
     "Argument sample_rate with value 8000.0 is not of type [<class 'int'>], but got <class 'float'>."),
    (dict(sample_rate=8000, trigger_level="a"), TypeError, "Argument trigger_level with value a is not of type "
     "[<class 'int'>, <class 'float'>], but got <class 'str'>."),
    (dict(sample_rate=8000, trigger_level=-1e9), ValueError,
     "Input trigger_level is not within the required interval of [-16777216, 16777216]."),
    (dict(sample_rate=8000, search_time=-1.0), ValueError,
     "Input search_time is not within the required interval of [0, 16777216]."),
    (dict(sample_rate=8000, noise_reduction_amount=-1.0), ValueError,
     "Input noise_reduction_amount is not within the required interval of [0, 16777216]."),
    (dict(sample_rate=8000, noise_up_time=0.001), ValueError, "Input noise_up_time should be greater than "
     "noise_down_time, but got noise_up_time: 0.001 and noise_down_time: 0.01."),
    (dict(sample_rate=8000, measure_freq=0.0), ValueError,
     "Input measure_freq is not within the required interval of (0, 16777216]."),
    (dict(sample_rate=8000, lp_lifter_freq=0.0), ValueError,
     "Input lp_lifter_freq is not within the required interval of (0, 16777216]."),
])
def test_argument_messages_as_mindspore(kw, err, msg):
    with pytest.raises(err) as info:
        A.Vad(**kw)
    assert str(info.value) == msg


def test_zero_times_accepted_and_lifter_error_at_call_as_mindspore():
    for kw in (dict(trigger_time=0.0), dict(noise_down_time=0.0), dict(measure_duration=0.0),
               dict(measure_smooth_time=0.0)):
        A.Vad(8000, **kw)(np.zeros(4000, np.float32))
    with pytest.raises(RuntimeError, match=r"Vad: the end of cepstrum must be greater than the start. Check if "
                                           r"`hp_lifter_freq` is too large or `lp_lifter_freq` is too small."):
        A.Vad(8000, hp_lifter_freq=3000.0)(np.zeros(4000, np.float32))
