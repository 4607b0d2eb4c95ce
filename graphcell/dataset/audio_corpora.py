"""Speech and music corpora in their published folder layouts (MindSpore 2.10's audio datasets):
YesNoDataset, SpeechCommandsDataset, LJSpeechDataset, LibriTTSDataset, GTZANDataset, CMUArcticDataset
and TedliumDataset. The file lists and texts are read at construction; a row's audio file is read when
the row is (on the reading workers), through GeneratorDataset's samplers, sharding and shuffling.

As measured on MindSpore 2.10: "waveform" is float32 [1, samples] (16-bit PCM / 32767); a
multi-channel file is not split into channels but read as one channel of interleaved samples,
[1, frames * channels]. Where 2.10 lists a folder without sorting it (YesNo's files, GTZAN's,
LibriTTS's speaker and chapter folders), rows come in the folder's listing order (os.listdir).
"""
from __future__ import annotations

import os
import wave

import numpy as np

from ._checks import check_folder, check_type, check_usage
from ._parallel import DatasetError
from .sources import GeneratorDataset


def read_wav(name: str, path: str, rate: int | None = None) -> tuple[np.ndarray, int]:
    """The 16-bit PCM samples of a WAV file as float32 [1, n] (divided by 32767, as 2.10), and its rate;
    `rate`: the only sampling rate the corpus allows."""
    if not os.path.isfile(path):
        raise DatasetError(f"{name}: Invalid file, failed to open wav file: {path}")
    try:
        with wave.open(path, "rb") as f:
            width, sample_rate, frames = f.getsampwidth(), f.getframerate(), f.readframes(f.getnframes())
    except (wave.Error, EOFError) as e:
        raise DatasetError(f"{name}: Invalid file, {path} is not a readable WAV file ({e})") from None
    if width != 2:
        raise DatasetError(f"{name}: {path} has {8 * width}-bit samples; only 16-bit PCM WAV files are read")
    if rate is not None and sample_rate != rate:
        corpus = name[:-len("Dataset")]
        raise DatasetError(f"{name}: Invalid file, sampling rate of {corpus} wav file must be {rate}, "
                           f"file path: {path}")
    samples = np.frombuffer(frames, dtype="<i2").astype(np.float64) / 32767.0
    return samples.astype(np.float32)[None, :], sample_rate


class _AudioRows:
    """Row i: (waveform, sample_rate, *values[i]) read from paths[i]."""

    def __init__(self, name: str, paths: list[str], values: list[tuple], rate_dtype, rate: int | None = None):
        self.name, self.paths, self.values, self.rate_dtype, self.rate = name, paths, values, rate_dtype, rate

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        waveform, sample_rate = read_wav(self.name, self.paths[i], self.rate)
        return (waveform, np.array(sample_rate, dtype=self.rate_dtype)) + tuple(self.values[i])


class _AudioDataset(GeneratorDataset):
    """A GeneratorDataset over `_AudioRows`; subclasses list their rows in `_rows_of`."""
    COLUMNS: tuple = ()
    RATE_DTYPE = np.uint32
    RATE = None
    ROWS = _AudioRows

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        """The readers of one folder with no usage (YesNo, LJSpeech); the others take theirs."""
        self._read(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id)

    def _read(self, dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, *args):
        name = type(self).__name__
        dataset_dir = check_folder(name, dataset_dir)
        paths, values = self._rows_of(name, dataset_dir, *args)
        source = self.ROWS(name, paths, values, self.RATE_DTYPE, self.RATE)
        GeneratorDataset.__init__(self, source, ["waveform", "sample_rate", *self.COLUMNS], num_samples=num_samples,
                                  num_parallel_workers=num_parallel_workers or 1, shuffle=shuffle, sampler=sampler,
                                  num_shards=num_shards, shard_id=shard_id)
        self._name = f"{name}({dataset_dir!r})"


def _text_lines(path: str) -> list[str]:
    with open(path, encoding="utf-8", newline="") as f:
        return [line.rstrip("\r") for line in f.read().split("\n") if line.strip()]


class YesNoDataset(_AudioDataset):
    """Yes/No (Hebrew yes/no recordings): every *.wav in `dataset_dir`, named by its eight answers
    ("0_1_0_0_1_0_1_0.wav"): columns "waveform", "sample_rate" (int32), "label" (int32 [8])."""
    COLUMNS = ("label",)
    RATE_DTYPE = np.int32

    @staticmethod
    def _rows_of(name, dataset_dir):
        files = [f for f in os.listdir(dataset_dir) if f.endswith(".wav")]
        if not files:
            raise RuntimeError(f"{name}: Invalid file, failed to open directory: {dataset_dir}")
        labels = []
        for file in files:
            try:
                labels.append((np.array([int(v) for v in file[:-4].split("_")], dtype=np.int32),))
            except ValueError:
                raise RuntimeError(f"{name}: Invalid file name {file}: expected eight 0/1 answers joined by '_'") \
                    from None
        return [os.path.join(dataset_dir, f) for f in files], labels


class SpeechCommandsDataset(_AudioDataset):
    """Speech Commands: `dataset_dir`/<word>/<speaker>_nohash_<n>.wav (the _background_noise_ folder is
    skipped), words and files in name order. usage "valid" / "test": the files listed in
    validation_list.txt / testing_list.txt; "train": the others; "all" (default): every file.
    Columns "waveform", "sample_rate" (int32), "label", "speaker_id" (str), "utterance_number" (int32)."""
    COLUMNS = ("label", "speaker_id", "utterance_number")
    RATE_DTYPE = np.int32

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        usage = check_usage("SpeechCommandsDataset", usage, ("train", "test", "valid", "all"))
        self._read(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, usage)

    @staticmethod
    def _rows_of(name, dataset_dir, usage):
        def listed(file):
            path = os.path.join(dataset_dir, file)
            return set(_text_lines(path)) if os.path.isfile(path) else set()
        valid, test = listed("validation_list.txt"), listed("testing_list.txt")
        paths, values = [], []
        for word in sorted(os.listdir(dataset_dir)):
            folder = os.path.join(dataset_dir, word)
            if word == "_background_noise_" or not os.path.isdir(folder):
                continue
            for file in sorted(f for f in os.listdir(folder) if f.endswith(".wav")):
                key = f"{word}/{file}"
                part = "valid" if key in valid else "test" if key in test else "train"
                if usage not in ("all", part):
                    continue
                speaker, _, number = file[:-4].partition("_nohash_")
                paths.append(os.path.join(folder, file))
                values.append((np.array(word), np.array(speaker), np.array(int(number or 0), dtype=np.int32)))
        if not paths and usage == "all":
            raise RuntimeError(f"{name}: Invalid file, no .wav files found under {dataset_dir}")
        return paths, values


class LJSpeechDataset(_AudioDataset):
    """LJ Speech: metadata.csv ("id|transcription|normalized transcription" lines, read in order) and
    wavs/<id>.wav. Columns "waveform", "sample_rate" (int32), "transcription", "normalized_transcription"."""
    COLUMNS = ("transcription", "normalized_transcription")
    RATE_DTYPE = np.int32

    @staticmethod
    def _rows_of(name, dataset_dir):
        metadata = os.path.join(dataset_dir, "metadata.csv")
        if not os.path.isfile(metadata):
            raise RuntimeError(f"{name}: Invalid file, failed to find metadata file: {metadata}")
        paths, values = [], []
        for number, line in enumerate(_text_lines(metadata), 1):
            fields = line.split("|")
            if len(fields) != 3:
                raise RuntimeError(f"{name}: Invalid file {metadata}, line {number} has {len(fields)} '|'-separated "
                                   "fields, expected 3 (id, transcription, normalized transcription)")
            paths.append(os.path.join(dataset_dir, "wavs", fields[0] + ".wav"))
            values.append((np.array(fields[1]), np.array(fields[2])))
        return paths, values


_LIBRITTS_USAGES = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
                    "train-other-500")


class LibriTTSDataset(_AudioDataset):
    """LibriTTS: <usage>/<speaker>/<chapter>/<speaker>_<chapter>.trans.tsv (utterance id, original and
    normalised text, tab-separated) next to <utterance id>.wav. usage one of the subsets or "all"
    (default: the subsets present, in the order of _LIBRITTS_USAGES). Columns "waveform", "sample_rate"
    (uint32), "original_text", "normalized_text", "speaker_id", "chapter_id" (uint32), "utterance_id"."""
    COLUMNS = ("original_text", "normalized_text", "speaker_id", "chapter_id", "utterance_id")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        usage = check_usage("LibriTTSDataset", usage, _LIBRITTS_USAGES + ("all",))
        self._read(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, usage)

    @staticmethod
    def _rows_of(name, dataset_dir, usage):
        paths, values = [], []
        for part in _LIBRITTS_USAGES if usage == "all" else (usage,):
            root = os.path.join(dataset_dir, part)
            if not os.path.isdir(root):
                continue
            for speaker in os.listdir(root):
                for chapter in os.listdir(os.path.join(root, speaker)):
                    folder = os.path.join(root, speaker, chapter)
                    transcripts = os.path.join(folder, f"{speaker}_{chapter}.trans.tsv")
                    if not os.path.isfile(transcripts):
                        continue
                    for line in _text_lines(transcripts):
                        utterance, original, normalized = (line.split("\t") + ["", ""])[:3]
                        paths.append(os.path.join(folder, utterance + ".wav"))
                        values.append((np.array(original), np.array(normalized), np.uint32(speaker),
                                       np.uint32(chapter), np.array(utterance)))
        if not paths:
            raise RuntimeError(f"{name}: Invalid data, no valid data matching the dataset API LibriTTSDataset. "
                               f"Please check dataset API or file path: {dataset_dir}.")
        return paths, values


_GTZAN_GENRES = ("blues", "classical", "country", "disco", "hiphop", "jazz", "metal", "pop", "reggae", "rock")


def _gtzan_splits() -> dict[str, list[tuple[str, str]]]:
    """usage -> [(genre, file name)] in 2.10's order, from gtzan_splits.txt (ranges of file numbers)."""
    splits: dict = {"train": [], "valid": [], "test": []}
    with open(os.path.join(os.path.dirname(__file__), "gtzan_splits.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            usage, genre, runs = line.split()
            for run in runs.split(","):
                first, _, last = run.partition("-")
                splits[usage] += [(genre, f"{genre}.{n:05d}.wav") for n in range(int(first), int(last or first) + 1)]
    return splits


class GTZANDataset(_AudioDataset):
    """GTZAN music genres: <genre>/<genre>.000NN.wav (22050 Hz). Columns "waveform", "sample_rate"
    (uint32), "label" (the genre). usage "all" (default): every .wav, genres in name order, files in
    folder listing order; "train" / "valid" / "test": the files of GTZAN's standard filtered split
    (443 / 197 / 290 names, gtzan_splits.txt) that exist, in the list's order (missing ones skipped,
    unlisted ones never read), as measured on MindSpore 2.10."""
    COLUMNS = ("label",)
    RATE = 22050

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        usage = check_usage("GTZANDataset", usage, ("train", "valid", "test", "all"))
        self._read(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, usage)

    @staticmethod
    def _rows_of(name, dataset_dir, usage):
        if usage == "all":
            listed = [(genre, f) for genre in _GTZAN_GENRES if os.path.isdir(os.path.join(dataset_dir, genre))
                      for f in os.listdir(os.path.join(dataset_dir, genre)) if f.endswith(".wav")]
        else:
            listed = [(genre, f) for genre, f in _gtzan_splits()[usage]
                      if os.path.isfile(os.path.join(dataset_dir, genre, f))]
        if not listed:
            raise RuntimeError(f"{name}: Invalid data, no valid data found in path:{dataset_dir}")
        return [os.path.join(dataset_dir, g, f) for g, f in listed], [(np.array(g),) for g, _ in listed]


def read_sph_segment(name: str, path: str, start: float, end: float) -> tuple[np.ndarray, int]:
    """Samples [start, end) seconds of a NIST SPHERE file of 16-bit PCM (a text header of the size its second
    line gives, at least 1024 bytes; "sample_rate -i N"; "sample_byte_format -s2 10" for big-endian) as
    float32 [1, n] (divided by 32767, as read_wav), and its rate."""
    try:
        with open(path, "rb") as f:
            head = f.read(1024)
            fields = head.decode("latin-1").split("\n")
            if len(head) < 1024 or fields[0] != "NIST_1A":
                raise DatasetError(f"{name}: Invalid data, failed to read head part from sph file: {path}, "
                                   "re-download dataset(make sure the data is true).")
            header_size = int(fields[1])
            keys = {line.split(" ")[0]: line.split(" ")[-1] for line in fields[2:] if line.count(" ") >= 2}
            rate = int(keys.get("sample_rate", 16000))
            big_endian = keys.get("sample_byte_format") == "10"
            first, last = int(start * rate), int(end * rate)   # 2.10's sample counts: floor of the double product
            f.seek(header_size + 2 * first)
            data = f.read(2 * (last - first)) if last > first else b""
    except OSError:
        raise DatasetError(f"{name}: Invalid file, failed to open file: {path}") from None
    if len(data) != 2 * max(last - first, 0):
        raise DatasetError(f"{name}: Invalid data, failed to read data part from sph file: {path}, re-download "
                           "dataset(make sure the data is true).")
    samples = np.frombuffer(data, dtype=">i2" if big_endian else "<i2").astype(np.float64) / 32767.0
    return samples.astype(np.float32)[None, :], rate


class _SegmentRows(_AudioRows):
    """Row i: (waveform of the segment values[i][:2] of paths[i], sample_rate, *values[i][2:])."""

    def __getitem__(self, i):
        start, end, *rest = self.values[i]
        waveform, sample_rate = read_sph_segment(self.name, self.paths[i], start, end)
        return (waveform, np.array(sample_rate, dtype=self.rate_dtype), *rest)


_TEDLIUM_USAGES = {"release1": ("train", "test", "dev", "all"), "release2": ("train", "test", "dev", "all"),
                   "release3": ("all",)}


class TedliumDataset(_AudioDataset):
    """TED-LIUM: `dataset_dir` is the release's folder, holding <usage>/stm/<talk>.stm and
    <usage>/sph/<talk>.sph (release1, release2: usage "train", "test", "dev" or "all", the default;
    "all" needs all three folders) or data/stm and data/sph (release3: usage "all" only). Each .stm line
    "talk channel speaker start end identifier transcript" is a row: "waveform" (the [start, end)
    seconds of the talk's .sph, float32 [1, n]), "sample_rate" (int32), "transcript" (the rest of
    the line, spaces kept), "talk_id", "speaker_id", "identifier" (strings); ignore_time_segment_in_scoring
    lines are rows too. As measured on MindSpore 2.10, rows come sorted by their line number within
    their .stm file as a string ("10" before "2"), then by .stm file name, across usages.

    Measured difference: 2.10 returns waveforms of zeros (of the right length) for every PCM .sph
    file tried; graphcell returns the samples."""
    COLUMNS = ("transcript", "talk_id", "speaker_id", "identifier")
    RATE_DTYPE = np.int32
    ROWS = _SegmentRows

    def __init__(self, dataset_dir, release, usage=None, extensions=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        name = "TedliumDataset"
        release = check_usage(name, check_type(name, "release", release, str), tuple(_TEDLIUM_USAGES), arg="release")
        usage = check_usage(name, usage, _TEDLIUM_USAGES[release])
        if extensions not in (None, ".sph"):
            raise RuntimeError(f"TedliumNode: extension {extensions} is not supported.")
        self._read(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, release,
                   usage)

    @staticmethod
    def _rows_of(name, dataset_dir, release, usage):
        parts = ["data"] if release == "release3" else ["train", "test", "dev"] if usage == "all" else [usage]
        segments = []
        for part in parts:
            stm = os.path.join(dataset_dir, part, "stm")
            if not os.path.isdir(stm):
                raise RuntimeError(f"{name}: Invalid file, failed to open folder: {stm}")
            for file in (f for f in os.listdir(stm) if f.endswith(".stm")):
                with open(os.path.join(stm, file), encoding="utf-8") as f:
                    lines = f.read().split("\n")
                for number, line in enumerate(lines):
                    if not line.strip():
                        continue
                    fields = line.rstrip("\r").split(" ", 6)
                    if len(fields) < 7:
                        raise RuntimeError(f"{name}: Invalid file {os.path.join(stm, file)}, line {number + 1}: "
                                           "expected 'talk channel speaker start end identifier transcript'")
                    talk, _, speaker, start, end, identifier, transcript = fields
                    sph = os.path.join(dataset_dir, part, "sph", talk + ".sph")
                    key = (str(number), file, sph)
                    segments.append((key, sph, (float(start), float(end), np.array(transcript), np.array(talk),
                                                np.array(speaker), np.array(identifier))))
        if not segments:
            raise RuntimeError(f"{name}: Invalid data, no valid data matching the dataset API TedliumDataset. "
                               "Please check file path or dataset API.")
        segments.sort(key=lambda s: s[0])
        return [s[1] for s in segments], [s[2] for s in segments]


_ARCTIC_NAMES = ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk", "ksp", "ljm", "lnh",
                 "rms", "rxr", "slp", "slt")


class CMUArcticDataset(_AudioDataset):
    """CMU ARCTIC, one speaker `name` (default "aew"): cmu_us_<name>_arctic/etc/txt.done.data
    (`( arctic_a0001 "text" )` lines, read in order) and wav/arctic_a0001.wav (16000 Hz). Columns
    "waveform", "sample_rate" (uint32), "transcript", "utterance_id" ("a0001")."""
    COLUMNS = ("transcript", "utterance_id")
    RATE = 16000

    def __init__(self, dataset_dir, name=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        name = "aew" if name is None else check_usage("CMUArcticDataset", name, _ARCTIC_NAMES, arg="name")
        self._read(dataset_dir, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, name)

    @staticmethod
    def _rows_of(name, dataset_dir, speaker):
        folder = os.path.join(dataset_dir, f"cmu_us_{speaker}_arctic")
        labels = os.path.join(folder, "etc", "txt.done.data")
        if not os.path.isfile(labels):
            raise RuntimeError(f"{name}: Invalid file, failed to find label file: {labels}")
        paths, values = [], []
        for line in _text_lines(labels):
            body = line.strip().strip("()").strip()
            utterance, _, text = body.partition(" ")
            paths.append(os.path.join(folder, "wav", utterance + ".wav"))
            values.append((np.array(text.strip().strip('"')), np.array(utterance.removeprefix("arctic_"))))
        return paths, values
