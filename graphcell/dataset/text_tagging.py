"""Tagged-sentence corpora: CoNLL2000Dataset (chunking: train.txt / test.txt, "word POS chunk" lines
split on spaces) and UDPOSDataset (Universal Dependencies English POS: en-ud-tag.v2.{train,dev,test}.txt,
"word universal stanford" lines split on tabs). A blank line ends a sentence, which is one row of three
str [words] columns; read, sharded and shuffled as the other text corpora (text_files.py).

As measured on MindSpore 2.10: a last sentence that no blank line ends is dropped; usage "all" reads
the files in name order. Differences: 2.10's get_dataset_size counts the files' non-empty lines and its
shards split lines; graphcell counts and shards sentences (the rows).
"""
from __future__ import annotations

import numpy as np

from .text_corpora import _CorpusDataset, _files, _lines
from .text_files import Shuffle


class _TaggedSentences(_CorpusDataset):
    COLUMNS: tuple = ()
    USAGES: tuple = ()
    SEPARATOR = " "

    def __init__(self, dataset_dir, usage=None, num_samples=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, num_parallel_workers=None, cache=None):
        files = _files(type(self).__name__, dataset_dir, usage, self.USAGES, "all", self.file_of)
        super().__init__(files, list(self.COLUMNS), self._read, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

    def _read(self, path):
        rows, sentence = [], []
        for line in _lines(path, keep_empty=True):
            if not line.strip():
                if sentence:
                    rows.append(tuple(np.array(column) for column in zip(*sentence)))
                sentence = []
                continue
            fields = line.rstrip("\r").split(self.SEPARATOR)
            if len(fields) != 3:
                raise RuntimeError(f"{type(self).__name__}: Invalid file content, each line should contain three "
                                   f"columns, representing {', '.join(self.COLUMNS[:2])} and {self.COLUMNS[2]}. "
                                   f"({path}: {line!r})")
            sentence.append(fields)
        return rows        # a sentence no blank line ends is dropped, as in 2.10


class CoNLL2000Dataset(_TaggedSentences):
    """CoNLL-2000 chunking: columns "word", "pos_tag", "chunk_tag"; usage "train", "test" or "all"."""
    COLUMNS = ("word", "pos_tag", "chunk_tag")
    USAGES = ("train", "test", "all")

    @staticmethod
    def file_of(usage):
        return f"{usage}.txt"


class UDPOSDataset(_TaggedSentences):
    """UD English POS tags: columns "word", "universal", "stanford"; usage "train", "valid" (the dev
    file), "test" or "all"."""
    COLUMNS = ("word", "universal", "stanford")
    USAGES = ("train", "valid", "test", "all")
    SEPARATOR = "\t"

    @staticmethod
    def file_of(usage):
        return f"en-ud-tag.v2.{'dev' if usage == 'valid' else usage}.txt"
