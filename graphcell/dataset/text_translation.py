"""Multi30kDataset: the Multi30k English-German captions, training/train.{en,de},
validation/val.{en,de} and mmt16_task1_test/test.{en,de}; row k pairs the k-th non-empty lines of the
two languages' files, as columns "text" (the first language of language_pair) and "translation".
Read, sharded and shuffled as the other text corpora (text_files.py); usage "all" (default) reads
test, train, then valid (file-name order), as measured on MindSpore 2.10."""
from __future__ import annotations

import os

import numpy as np

from ._checks import check_file, check_folder, check_usage
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
