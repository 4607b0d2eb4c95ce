"""dataset.config: 2.10's getters, setters, defaults and messages, and the behaviour the
settings drive (error samples mode, debug mode, default workers). Expected values were
measured on MindSpore 2.10 (CPU); no MindSpore is needed here."""
import os
import warnings

import numpy as np
import pytest

import graphcell
import graphcell.dataset as ds
from graphcell.dataset import config


def test_defaults_and_dataset_level_names():
    assert config.get_num_parallel_workers() == max(1, min(8, os.cpu_count()))   # 2 on a 2-CPU machine
    assert (config.get_debug_mode(), config.get_error_samples_mode()) == (False, ds.ErrorSamplesMode.RETURN)
    assert (config.get_multiprocessing_timeout_interval(), config.get_callback_timeout()) == (300, 60)
    assert (config.get_enable_watchdog(), config.get_multiprocessing_start_method()) == (True, "fork")
    assert [m.value for m in ds.config.ErrorSamplesMode] == [0, 1, 2]
    assert ds.get_seed is config.get_seed and ds.set_seed is config.set_seed
    config._settings["seed"] = None
    assert config.get_seed() == 5489      # std::mt19937's default, as 2.10 answers
    graphcell.set_seed(7)
    assert ds.get_seed() == 7             # mindspore.set_seed seeds the dataset too


@pytest.mark.parametrize("setter, value, error, message", [
    ("set_num_parallel_workers", 0, ValueError,
     "Number of parallel workers given is not within the required range (0, INT32_MAX(2147483647)]."),
    ("set_num_parallel_workers", True, TypeError, "num isn't of type int."),
    ("set_num_parallel_workers", 100000, RuntimeError, "num_parallel_workers exceeds the boundary between 1 and"),
    ("set_seed", -1, ValueError, "seed given is not within the required range [0, UINT32_MAX(4294967295)]."),
    ("set_seed", 2 ** 32, ValueError, "seed given is not within the required range"),
    ("set_seed", 1.5, TypeError, "seed isn't of type int."),
    ("set_debug_mode", 1, TypeError, "debug_mode_flag isn't of type boolean."),
    ("set_error_samples_mode", "x", TypeError,
     "Argument error_samples_mode with value x is not of type [<enum 'ErrorSamplesMode'>], but got <class 'str'>."),
    ("set_multiprocessing_timeout_interval", 0, ValueError,
     "Interval given is not within the required range (0, INT32_MAX(2147483647))."),
    ("set_callback_timeout", 0, ValueError, "Timeout given is not within the required range."),
    ("set_prefetch_size", 0, ValueError, "size is not within the required range (0, INT32_MAX(2147483647)]."),
    ("set_enable_watchdog", 1, TypeError, "enable must be a boolean dtype."),
    ("set_enable_shared_mem", "a", TypeError, "enable must be of type bool."),
])
def test_setter_errors_as_mindspore(setter, value, error, message):
    with pytest.raises(error) as info:
        getattr(config, setter)(value)
    assert str(info.value) == message or message in str(info.value)


def test_setters_round_trip_and_default_workers():
    config.set_seed(5)
    config.set_debug_mode(True)
    config.set_multiprocessing_timeout_interval(5)
    config.set_callback_timeout(10)
    config.set_num_parallel_workers(1)
    assert (config.get_seed(), config.get_debug_mode(), config.get_multiprocessing_timeout_interval(),
            config.get_callback_timeout(), config.get_num_parallel_workers()) == (5, True, 5, 10, 1)
    from graphcell.dataset._checks import default_workers
    assert default_workers() == 1


def _failing(x):
    if x in (2, 3):
        raise ValueError("bad")
    return x * 10


@pytest.mark.parametrize("mode, rows, batches, size", [
    # measured on 2.10: SKIP drops the rows; REPLACE re-emits the first good rows at the end
    (ds.ErrorSamplesMode.SKIP, [0, 10, 40, 50, 60], [[0, 10], [40, 50], [60]], 5),
    (ds.ErrorSamplesMode.REPLACE, [0, 10, 40, 50, 60, 0, 10], [[0, 10], [40, 50], [60, 0], [10]], 7),
])
def test_error_samples_mode(mode, rows, batches, size):
    config.set_error_samples_mode(mode)
    d = ds.NumpySlicesDataset(np.arange(7), shuffle=False).map(_failing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)] == rows
        assert d.get_dataset_size() == size
        assert [r[0].tolist() for r in d.batch(2).create_tuple_iterator(output_numpy=True, num_epochs=1)] == batches


def test_error_samples_mode_when_every_row_fails():
    def bad(x):
        raise ValueError("all bad")
    d = ds.NumpySlicesDataset(np.arange(3), shuffle=False).map(bad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config.set_error_samples_mode(ds.ErrorSamplesMode.SKIP)
        assert list(d.create_tuple_iterator(output_numpy=True, num_epochs=1)) == []   # as 2.10
        config.set_error_samples_mode(ds.ErrorSamplesMode.REPLACE)
        with pytest.raises(RuntimeError, match="every row failed"):   # 2.10 raises too
            list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))
    config.set_error_samples_mode(ds.ErrorSamplesMode.RETURN)
    with pytest.raises(RuntimeError, match="all bad"):
        list(d.create_tuple_iterator(output_numpy=True, num_epochs=1))


def test_debug_mode_runs_maps_on_one_thread():
    import threading
    seen = set()

    def record(x):
        seen.add(threading.get_ident())
        return x
    config.set_debug_mode(True)
    d = ds.NumpySlicesDataset(np.arange(16), shuffle=False).map(record, num_parallel_workers=4)
    assert [int(r[0]) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)] == list(range(16))
    assert len(seen) == 1
