"""Checkpoint behaviours measured on MindSpore 2.10 (session 21 audit); literals below come from 2.10."""
import threading

import numpy as np
import pytest

import graphcell as ms
from graphcell import Tensor
from graphcell.train import serialization
from graphcell.train.ckpt_format import CheckpointError, decode_ckpt


def _one(tmp_path):
    return [{"name": "a", "data": Tensor(np.ones(1, np.float32))}]


def test_append_dict_numpy_float64_stays_float64(tmp_path):
    # mindspore 2.10: save_checkpoint([{'name': 'a', 'data': Tensor(np.ones(1, np.float32))}], ...,
    #   append_dict={'l': np.float64(1.5), 'e': 3, 'r': 0.5})  (np.float64 is a float subclass: Float64)
    expected = bytes.fromhex(
        "0a160a0161121108011207466c6f617433321a040000803f0a180a016c12131207466c6f617436341a08000000000000f83f"
        "0a160a016512111205496e7436341a0803000000000000000a140a0172120f1207466c6f617433321a040000003f")
    ms.save_checkpoint(_one(tmp_path), str(tmp_path / "ap.ckpt"),
                       append_dict={"l": np.float64(1.5), "e": 3, "r": 0.5})
    assert (tmp_path / "ap.ckpt").read_bytes() == expected


# Files mindspore 2.10 wrote for [Parameter(ones(2, float32), name='a')] with enc_key=b'0123456789abcdef'
# (the IV is random, so these are two of many possible files).
_MS_GCM = bytes.fromhex(
    "d85e3a7fe631948eaa81d159f7fe555e7cab6181340000001000000005676947896c6fe088ee216673eb49fe1c000000"
    "99d7e1ff5a5128f0d908ce537001dd379f5b9b8514acd23e249d9720")
_MS_CBC = bytes.fromhex(
    "d95e3a7f3800000010000000ce0cd19171264493ffe1b703b8e8d5ac20000000cf5c64b0d23021c2dee05bdd4c51f10c"
    "8151e36a2c7f9b753f34b836e3f9d1e4")


@pytest.mark.parametrize("data, mode", [(_MS_GCM, "AES-GCM"), (_MS_CBC, "AES-CBC")])
def test_encrypted_mindspore_file_is_named_as_such(tmp_path, data, mode):
    path = tmp_path / "enc.ckpt"
    path.write_bytes(data)
    with pytest.raises(CheckpointError, match=f"enc.ckpt: the file is encrypted .*enc_mode='{mode}'"):
        ms.load_checkpoint(str(path))
    # A plain checkpoint starting with field 1 is never taken for an encrypted one.
    assert decode_ckpt(bytes.fromhex("0a160a0161121108011207466c6f617433321a040000803f"))["a"].tolist() == [1.0]


def test_enc_and_dec_key_refused(tmp_path):
    with pytest.raises(NotImplementedError, match="enc_key"):
        ms.save_checkpoint(_one(tmp_path), str(tmp_path / "e.ckpt"), enc_key=b"0123456789abcdef")
    assert not (tmp_path / "e.ckpt").exists()
    ms.save_checkpoint(_one(tmp_path), str(tmp_path / "p.ckpt"))
    with pytest.raises(NotImplementedError, match="dec_key"):
        ms.load_checkpoint(str(tmp_path / "p.ckpt"), dec_key=b"0123456789abcdef")


def test_crc_check_flag_type_and_choice_func(tmp_path):
    # mindspore 2.10: ValueError "The parameter 'crc_check' must be isinstance of <class 'bool'>, but got 1."
    message = "The parameter 'crc_check' must be isinstance of <class 'bool'>, but got 1."
    with pytest.raises(ValueError) as err:
        ms.save_checkpoint(_one(tmp_path), str(tmp_path / "c.ckpt"), crc_check=1)
    assert str(err.value) == message
    ms.save_checkpoint(_one(tmp_path), str(tmp_path / "c.ckpt"))
    with pytest.raises(ValueError) as err:
        ms.load_checkpoint(str(tmp_path / "c.ckpt"), crc_check=1)
    assert str(err.value) == message
    with pytest.raises(TypeError, match="'choice_func' must be a function"):
        ms.load_checkpoint(str(tmp_path / "c.ckpt"), choice_func=3)


def test_async_ckpt_thread_status(tmp_path, monkeypatch):
    release, real_write = threading.Event(), serialization._write

    def held_write(*args):
        release.wait(10)
        real_write(*args)

    monkeypatch.setattr(serialization, "_write", held_write)
    assert ms.async_ckpt_thread_status() is False
    ms.save_checkpoint(_one(tmp_path), str(tmp_path / "as.ckpt"), async_save=True)
    assert ms.async_ckpt_thread_status() is True
    release.set()
    serialization.wait_for_async_save()
    assert ms.async_ckpt_thread_status() is False and (tmp_path / "as.ckpt").exists()


def test_obfuscation_refused():
    with pytest.raises(NotImplementedError, match="For 'obfuscate_ckpt', weight obfuscation"):
        ms.obfuscate_ckpt(None, "x.ckpt", target_modules=["fc"])
    with pytest.raises(NotImplementedError, match="For 'load_obf_params_into_net'"):
        ms.load_obf_params_into_net(None, target_modules=["fc"])
