"""Translation corpora: row k pairs the k-th sentences of the two languages' files, as columns "text"
(the first language of language_pair) and "translation"; read, sharded and shuffled as the other text
corpora (text_files.py), as measured on MindSpore 2.10.

- Multi30kDataset: the Multi30k English-German captions, training/train.{en,de}, validation/val.{en,de}
  and mmt16_task1_test/test.{en,de}, non-empty lines; usage "all" (default) reads test, train, then valid
  (file-name order).
- IWSLT2016Dataset, IWSLT2017Dataset: the TED talk transcripts of IWSLT's evaluation campaigns, the
  training talks in train.tags.<src>-<tgt>.<lang> (one sentence a line, talk metadata lines dropped)
  and the valid / test sets in IWSLT1x.TED.<set>.<src>-<tgt>.<lang>.xml (<seg> elements); usage "all"
  (default) reads train, valid, then test. 2.10 writes merged copies of these files into the dataset
  folder and reads those; graphcell reads the originals and writes nothing.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree

import numpy as np

from ._checks import check_file, check_folder, check_type, check_usage
from .text_corpora import _CorpusDataset, _lines
from .text_files import Shuffle

_MULTI30K_FILES = {"train": "training/train", "valid": "validation/val", "test": "mmt16_task1_test/test"}


class Multi30kDataset(_CorpusDataset):
    """Multi30k: usage "train", "valid", "test" or "all"; language_pair ["en", "de"] (default) or ["de", "en"]."""

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, num_shards=None, shard_id=None, cache=None):
        name = "Multi30kDataset"
        dataset_dir = check_folder(name, dataset_dir)
        usage = check_usage(name, usage, ("train", "test", "valid", "all"))
        pair = ["en", "de"] if language_pair is None else language_pair
        if not isinstance(pair, (list, tuple)) or list(pair) not in (["en", "de"], ["de", "en"]):
            # 2.10's message, its repeated pair included (measured)
            raise ValueError(f"language_pair can only be ['en', 'de'] or ['en', 'de'], but got {language_pair}")
        parts = sorted(_MULTI30K_FILES.values(), key=os.path.basename) if usage == "all" else [_MULTI30K_FILES[usage]]
        for part in parts:
            for language in pair:
                check_file(name, os.path.join(dataset_dir, f"{part}.{language}"))
        self._pair = list(pair)
        super().__init__([os.path.join(dataset_dir, p) for p in parts], ["text", "translation"], self._read,
                         num_samples, num_parallel_workers, Shuffle.GLOBAL if shuffle is None else shuffle,
                         num_shards, shard_id)

    def _read(self, base):
        source, target = (_lines(f"{base}.{language}", keep_empty=False) for language in self._pair)
        if len(source) != len(target):
            raise RuntimeError(f"Multi30kDataset: {base}.{self._pair[0]} has {len(source)} lines but "
                               f"{base}.{self._pair[1]} has {len(target)}")
        return [(np.array(s), np.array(t)) for s, t in zip(source, target)]


# the training files' talk metadata: a line holding one of these is not a sentence (measured on 2.10)
_IWSLT_TAGS = ("<url", "<keywords", "<talkid", "<description", "<reviewer", "<translator", "<title", "<speaker",
               "<doc", "</doc")
_IWSLT_SETS = ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014")
# 2.10's lists, in its order (en-ar twice in 2016's, as its message prints it)
_IWSLT2016_PAIRS = (("en", "ar"), ("en", "ar"), ("en", "de"), ("en", "fr"), ("en", "cs"), ("ar", "en"), ("fr", "en"),
                    ("de", "en"), ("cs", "en"))
_IWSLT2017_PAIRS = tuple((s, t) for s, targets in (("en", "nl de it ro"), ("ro", "de en nl it"), ("de", "ro en nl it"),
                                                   ("it", "en nl de ro"), ("nl", "de en it ro"))
                         for t in targets.split())


def _iwslt_train_lines(name: str, path: str) -> list[str]:
    """A train.tags file's sentences: metadata lines dropped, spaces around each sentence stripped."""
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "" in lines:
        raise RuntimeError(f"{name}: Invalid file, read an empty line: {path} line {lines.index('') + 1}")
    return [line.strip(" ") for line in lines if not any(tag in line for tag in _IWSLT_TAGS)]


def _iwslt_xml_lines(name: str, path: str) -> list[str]:
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError):
        raise RuntimeError(f"{name}: Invalid file, failed to load xml file: {path}") from None
    return [(seg.text or "").strip() for seg in root.iter("seg")]


class _IWSLTDataset(_CorpusDataset):
    """IWSLT: `dataset_dir`/texts/<FOLDER>/<src>-<tgt>/ holds each language's train.tags and .xml files."""
    YEAR = ""
    PAIRS: tuple = ()

    def _setup(self, dataset_dir, usage, language_pair, valid_set, test_set, num_samples, num_parallel_workers,
               shuffle, num_shards, shard_id):
        name = type(self).__name__
        dataset_dir = check_folder(name, dataset_dir)
        usage = check_usage(name, usage, ("train", "test", "valid", "all"))
        pair = ("de", "en") if language_pair is None else language_pair
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError("language_pair should be a type list or tuple of length 2.")
        if tuple(pair) not in self.PAIRS:
            raise ValueError(f"Input language_pair{list(pair)} is not within the valid set of "
                             f"{[list(p) for p in self.PAIRS]}.")
        for arg, value in (("valid_set", valid_set), ("test_set", test_set)):
            check_usage(name, check_type(name, arg, value, str), _IWSLT_SETS, arg=arg)
        source, target = pair
        folder = os.path.join(dataset_dir, "texts", *self._folder(source, target))
        names = {"train": f"train.tags.{source}-{target}",
                 "valid": f"IWSLT{self.YEAR}.TED.{valid_set}.{source}-{target}",
                 "test": f"IWSLT{self.YEAR}.TED.{test_set}.{source}-{target}"}
        parts = ["train", "valid", "test"] if usage == "all" else [usage]
        self._pair = (source, target)
        super().__init__([os.path.join(folder, names[p]) for p in parts], ["text", "translation"], self._read,
                         num_samples, num_parallel_workers, Shuffle.GLOBAL if shuffle is None else shuffle,
                         num_shards, shard_id)

    def _read(self, base):
        name = type(self).__name__
        if os.path.basename(base).startswith("train.tags."):
            for language in self._pair:
                if not os.path.isfile(f"{base}.{language}"):
                    raise RuntimeError(f"{name}: Invalid file, the training file {base}.{language} "
                                       "does not exist")
            source, target = (_iwslt_train_lines(name, f"{base}.{language}") for language in self._pair)
        else:
            source, target = (_iwslt_xml_lines(name, f"{base}.{language}.xml") for language in self._pair)
        # 2.10 pairs the two files line by line up to the shorter one (measured)
        return [(np.array(s), np.array(t)) for s, t in zip(source, target)]


class IWSLT2016Dataset(_IWSLTDataset):
    """IWSLT 2016: texts/<src>/<tgt>/<src>-<tgt>/; language_pair ("de", "en") by default, valid_set
    "tst2013" and test_set "tst2014" by default (any of dev2010, tst2010 .. tst2014)."""
    YEAR = "16"
    PAIRS = _IWSLT2016_PAIRS

    def __init__(self, dataset_dir, usage=None, language_pair=None, valid_set=None, test_set=None, num_samples=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        self._setup(dataset_dir, usage, language_pair, "tst2013" if valid_set is None else valid_set,
                    "tst2014" if test_set is None else test_set, num_samples, num_parallel_workers, shuffle,
                    num_shards, shard_id)

    @staticmethod
    def _folder(source, target):
        return source, target, f"{source}-{target}"


class IWSLT2017Dataset(_IWSLTDataset):
    """IWSLT 2017 (the multilingual task): texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo/, any two of
    en, de, it, nl, ro (("de", "en") by default); valid is dev2010, test tst2010."""
    YEAR = "17"
    PAIRS = _IWSLT2017_PAIRS

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, num_parallel_workers=None, cache=None):
        self._setup(dataset_dir, usage, language_pair, "dev2010", "tst2010", num_samples, num_parallel_workers,
                    shuffle, num_shards, shard_id)

    @staticmethod
    def _folder(source, target):
        return "DeEnItNlRo", "DeEnItNlRo", "DeEnItNlRo-DeEnItNlRo"
