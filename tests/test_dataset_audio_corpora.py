"""Speech and music corpora (dataset/audio_corpora.py) over small WAV files in their published layouts;
rows, dtypes, shapes, orders and messages measured on MindSpore 2.10 reading the same files."""
import os
import wave

import numpy as np
import pytest

import graphcell.dataset as ds


def _wav(path, samples, rate, channels=1):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(str(path), "wb") as f:
        f.setnchannels(channels)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(np.asarray(samples, dtype="<i2").tobytes())


def _sig(k, n):
    return np.arange(n) * 1000 - 3000 + 7 * k


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def _rows(d):
    return [[v.tolist() for v in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def test_audio_corpora(tmp_path):
    yesno = tmp_path / "yesno"
    for k, name in enumerate(["0_1_0_0_1_0_1_0", "1_1_1_0_0_0_1_1"]):
        _wav(f"{yesno}/{name}.wav", _sig(k, 4), 8000)
    _wav(f"{tmp_path}/stereo/1_0_1_0_1_0_1_0.wav", _sig(5, 6), 16000, channels=2)
    d = ds.YesNoDataset(str(yesno), shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "label"]
    first = next(d.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert [v.dtype for v in first] == [np.float32, np.int32, np.int32] and first[2].shape == (8,)
    # measured: samples / 32767, rows in the folder's listing order
    order = [f[:-4] for f in os.listdir(yesno)]
    assert [r[2] for r in _rows(d)] == [[int(c) for c in name.split("_")] for name in order]
    np.testing.assert_allclose(next(r[0] for r in _rows(d) if r[2][0] == 0),
                               [[-0.09155552834272385, -0.06103701889514923, -0.030518509447574615, 0.0]], rtol=1e-7)
    # measured: a stereo file is one channel of interleaved samples, [1, frames * channels]
    stereo = _rows(ds.YesNoDataset(str(tmp_path / "stereo")))[0]
    assert np.array(stereo[0]).shape == (1, 6) and stereo[1] == 16000
    assert len(_rows(ds.YesNoDataset(str(yesno), shuffle=False, num_shards=2, shard_id=1))) == 1

    sc = tmp_path / "sc"
    for word in ("yes", "no", "_background_noise_"):
        for speaker, n in (("0a7c2a8d", 0), ("0a7c2a8d", 1), ("ffd2ba2f", 0)):
            _wav(f"{sc}/{word}/{speaker}_nohash_{n}.wav", _sig(n, 3), 16000)
    _write(f"{sc}/validation_list.txt", "yes/0a7c2a8d_nohash_1.wav\n")
    _write(f"{sc}/testing_list.txt", "no/ffd2ba2f_nohash_0.wav\nyes/ffd2ba2f_nohash_0.wav\n")
    d = ds.SpeechCommandsDataset(str(sc), shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "label", "speaker_id", "utterance_number"]
    assert [r[1:] for r in _rows(d)] == [[16000, "no", "0a7c2a8d", 0], [16000, "no", "0a7c2a8d", 1],
                                         [16000, "no", "ffd2ba2f", 0], [16000, "yes", "0a7c2a8d", 0],
                                         [16000, "yes", "0a7c2a8d", 1], [16000, "yes", "ffd2ba2f", 0]]
    split = {u: [r[2:4] for r in _rows(ds.SpeechCommandsDataset(str(sc), usage=u, shuffle=False))]
             for u in ("train", "valid", "test")}
    assert split == {"train": [["no", "0a7c2a8d"], ["no", "0a7c2a8d"], ["yes", "0a7c2a8d"]],
                     "valid": [["yes", "0a7c2a8d"]], "test": [["no", "ffd2ba2f"], ["yes", "ffd2ba2f"]]}
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['train', 'test', 'valid', "
                                         r"'all'\]"):
        ds.SpeechCommandsDataset(str(sc), usage="bad")

    lj = tmp_path / "lj"
    _write(f"{lj}/metadata.csv", "LJ002-0001|Text two Mr. 1|Norm two mister one\nLJ001-0001|Text one|Norm one\n")
    _wav(f"{lj}/wavs/LJ001-0001.wav", _sig(0, 5), 22050)
    _wav(f"{lj}/wavs/LJ002-0001.wav", _sig(1, 5), 22050)
    d = ds.LJSpeechDataset(str(lj), shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "transcription", "normalized_transcription"]
    assert [r[1:] for r in _rows(d)] == [[22050, "Text two Mr. 1", "Norm two mister one"],
                                         [22050, "Text one", "Norm one"]]          # metadata.csv's order

    tts = tmp_path / "libritts"
    for usage in ("train-clean-100", "dev-clean"):
        folder = f"{tts}/{usage}/84/121123"
        _write(f"{folder}/84_121123.trans.tsv", "".join(f"84_121123_00000{u}_000000\tOrig {usage} {u}.\tnorm {u}\n"
                                                        for u in (2, 1)))
        for u in (1, 2):
            _wav(f"{folder}/84_121123_00000{u}_000000.wav", _sig(u, 2), 24000)
    d = ds.LibriTTSDataset(str(tts), shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "original_text", "normalized_text", "speaker_id",
                                 "chapter_id", "utterance_id"]
    rows = _rows(d)       # "all": the subsets in 2.10's order (dev before train), then trans.tsv's order
    assert [r[2] for r in rows] == ["Orig dev-clean 2.", "Orig dev-clean 1.", "Orig train-clean-100 2.",
                                    "Orig train-clean-100 1."]
    assert rows[0][1:] == [24000, "Orig dev-clean 2.", "norm 2", 84, 121123, "84_121123_000002_000000"]
    sample = next(d.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert [v.dtype for v in sample[1:]][:5:4] == [np.uint32, np.uint32] and sample[5].dtype == np.uint32
    with pytest.raises(RuntimeError, match="no valid data matching the dataset API LibriTTSDataset"):
        ds.LibriTTSDataset(str(tts), usage="test-clean")

    gtzan = tmp_path / "gtzan"
    for genre in ("rock", "blues"):
        for n in (0, 1):
            _wav(f"{gtzan}/{genre}/{genre}.{n:05d}.wav", _sig(n, 2), 22050)
    _wav(f"{tmp_path}/gtzan8k/jazz/jazz.00000.wav", _sig(0, 2), 8000)
    d = ds.GTZANDataset(str(gtzan), shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "label"]
    assert [r[1:] for r in _rows(d)] == [[22050, "blues"]] * 2 + [[22050, "rock"]] * 2
    with pytest.raises(RuntimeError, match="sampling rate of GTZAN wav file must be 22050"):
        _rows(ds.GTZANDataset(str(tmp_path / "gtzan8k")))

    arctic = tmp_path / "cmu" / "cmu_us_bdl_arctic"
    _write(f"{arctic}/etc/txt.done.data", '( arctic_b0002 "Second." )\n( arctic_a0001 "Author, etc." )\n')
    _wav(f"{arctic}/wav/arctic_a0001.wav", _sig(1, 3), 16000)
    _wav(f"{arctic}/wav/arctic_b0002.wav", _sig(2, 3), 16000)
    d = ds.CMUArcticDataset(str(tmp_path / "cmu"), name="bdl", shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "transcript", "utterance_id"]
    assert [r[1:] for r in _rows(d)] == [[16000, "Second.", "b0002"], [16000, "Author, etc.", "a0001"]]
    with pytest.raises(RuntimeError, match="failed to find label file: .*cmu_us_aew_arctic/etc/txt.done.data"):
        ds.CMUArcticDataset(str(tmp_path / "cmu"))
    with pytest.raises(ValueError, match="The folder .*nope does not exist or is not a directory"):
        ds.YesNoDataset(str(tmp_path / "nope"))


def test_gtzan_filtered_split(tmp_path):
    # measured on MindSpore 2.10 with this tree: blues.00029 and jazz.00054 are train names, blues.00000,
    # blues.00001 and jazz.00003 valid, blues.00012 test, disco.00038 in none of the lists
    for genre, numbers in (("jazz", (54, 3)), ("blues", (29, 0, 12, 1)), ("disco", (38,))):
        for n in numbers:
            _wav(f"{tmp_path}/{genre}/{genre}.{n:05d}.wav", [n, -n], 22050)

    def names(usage):
        return [(r[2], round(r[0][0][0] * 32767)) for r in _rows(ds.GTZANDataset(str(tmp_path), usage, shuffle=False))]
    assert names("train") == [("blues", 29), ("jazz", 54)]
    assert names("valid") == [("blues", 0), ("blues", 1), ("jazz", 3)]
    assert names("test") == [("blues", 12)]
    assert sorted(names("all")) == sorted([("blues", n) for n in (29, 0, 12, 1)] + [("disco", 38), ("jazz", 54),
                                                                                   ("jazz", 3)])
    # the shipped lists: 443 / 197 / 290 of the 1000 names, disjoint (counted on 2.10 over all 1000 names)
    from graphcell.dataset.audio_corpora import _gtzan_splits
    splits = _gtzan_splits()
    assert [len(splits[u]) for u in ("train", "valid", "test")] == [443, 197, 290]
    assert len({f for files in splits.values() for _, f in files}) == 930
    os.remove(f"{tmp_path}/blues/blues.00012.wav")
    with pytest.raises(RuntimeError, match="no valid data found in path"):
        ds.GTZANDataset(str(tmp_path), "test")
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['train', 'valid', 'test', "):
        ds.GTZANDataset(str(tmp_path), "dev")


def _sph(path, samples, rate=16000):
    """A NIST SPHERE file of 16-bit little-endian PCM (TED-LIUM's .sph layout)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    head = (f"NIST_1A\n   1024\nsample_count -i {len(samples)}\nsample_n_bytes -i 2\nchannel_count -i 1\n"
            f"sample_byte_format -s2 01\nsample_rate -i {rate}\nsample_coding -s3 pcm\nend_head\n").encode()
    with open(path, "wb") as f:
        f.write(head.ljust(1024, b" ") + np.asarray(samples, "<i2").tobytes())


def test_tedlium(tmp_path):
    # rows, orders, dtypes, segment lengths and messages measured on MindSpore 2.10 with these trees
    top = tmp_path / "TEDLIUM_release2"
    for talk, part, lines in (("Same", "train", 12), ("Abe", "train", 2), ("Same", "test", 2), ("Mid", "dev", 1)):
        _sph(f"{top}/{part}/sph/{talk}.sph", np.arange(400) * 100 - 3000)
        _write(f"{top}/{part}/stm/{talk}.stm", "".join(f"{talk} 1 {talk}_spk {k / 1000:.3f} {(k + 1) / 1000:.3f} "
                                                       f"<o,f0,male> {part} {talk} {k}\n" for k in range(lines)))
    _write(f"{top}/train/stm/Abe.stm", "Abe 1 Abe_spk 0.0 0.001 <o,f0,male> many   spaces  here \n"
                                       "Abe 1 inter_segment_gap 0.002 0.0035 <o,,unknown> ignore_time_segment_in_scoring\n")
    d = ds.TedliumDataset(str(top), "release2", shuffle=False)
    assert d.get_col_names() == ["waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier"]
    rows = _rows(d)
    # sorted by line number as a string ("10" before "2"), then by .stm file name
    assert [r[2] for r in rows] == ["many   spaces  here ", "dev Mid 0", "test Same 0", "train Same 0",
                                    "ignore_time_segment_in_scoring", "test Same 1", "train Same 1", "train Same 10",
                                    "train Same 11"] + [f"train Same {k}" for k in range(2, 10)]
    assert rows[4][1:] == [16000, "ignore_time_segment_in_scoring", "Abe", "inter_segment_gap", "<o,,unknown>"]
    sample = next(d.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert sample[0].dtype == np.float32 and sample[1].dtype == np.int32 and sample[1].shape == ()
    # [floor(start * rate), floor(end * rate)) samples: 16 and 24 (2.10's lengths); 2.10's values are zeros
    # for PCM .sph files (measured), graphcell's are the samples / 32767 as in the WAV readers
    np.testing.assert_array_equal(np.array(rows[0][0], np.float32), ((np.arange(16) * 100 - 3000)[None] / 32767).astype(np.float32))
    assert np.array(rows[4][0]).shape == (1, 24) and np.float32(rows[4][0][0][0]) == np.float32(200 / 32767)
    assert len(_rows(ds.TedliumDataset(str(top), "release2", "dev"))) == 1

    release3 = tmp_path / "TEDLIUM_release-3"
    _sph(f"{release3}/data/sph/TalkC.sph", np.zeros(16100))
    _write(f"{release3}/data/stm/TalkC.stm", "TalkC 1 TalkC 1.0 1.001 <o,f0,male> three\n")
    [row] = _rows(ds.TedliumDataset(str(release3), "release3"))
    assert np.array(row[0]).shape == (1, 15) and row[1:] == [16000, "three", "TalkC", "TalkC", "<o,f0,male>"]
    _write(f"{release3}/data/stm/TalkC.stm", "TalkC 1 TalkC 1.0 1.001 <o,f0,male> three\nTalkC 1 TalkC 2.0 2.5 <o> b\n")
    with pytest.raises(RuntimeError, match="failed to read data part from sph file: .*TalkC.sph"):
        _rows(ds.TedliumDataset(str(release3), "release3", shuffle=False))

    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['all'\]"):
        ds.TedliumDataset(str(release3), "release3", "train")
    with pytest.raises(ValueError, match=r"Input release is not within the valid set of \['release1', 'release2', "):
        ds.TedliumDataset(str(top), "release4")
    with pytest.raises(TypeError, match="Argument release with value None is not of type"):
        ds.TedliumDataset(str(top), None)
    with pytest.raises(RuntimeError, match="extension .wav is not supported"):
        ds.TedliumDataset(str(top), "release2", extensions=".wav")
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.TedliumDataset(str(tmp_path / "none"), "release1")
    with pytest.raises(RuntimeError, match="failed to open folder: .*TEDLIUM_release-3.train.stm"):
        ds.TedliumDataset(str(release3), "release2")
    os.remove(f"{top}/dev/stm/Mid.stm")
    with pytest.raises(RuntimeError, match="no valid data matching the dataset API TedliumDataset"):
        ds.TedliumDataset(str(top), "release2", "dev")
