"""Text corpora in their published file layouts, read as TextFileDataset and CSVDataset read files
(same file interleaving across workers, sharding and shuffling; see text_files.py):

- CSV classification sets, a train.csv and a test.csv in `dataset_dir` (all fields strings):
  AGNewsDataset, DBpediaDataset, YelpReviewDataset, AmazonReviewDataset, SogouNewsDataset,
  YahooAnswersDataset;
- SST2Dataset: train.tsv / dev.tsv / test.tsv (GLUE's layout, a header line);
- line corpora, one row per non-empty line: WikiTextDataset (wiki.{train,valid,test}.tokens),
  PennTreebankDataset (ptb.{train,valid,test}.txt); EnWik9Dataset (the file enwik9, empty lines kept).

usage "all" reads the files in name order (so test before train), as measured on MindSpore 2.10.
"""
from __future__ import annotations

import csv
import os

import numpy as np

from ._checks import check_file, check_folder, check_usage, check_workers
from .text_files import Shuffle, _FileRowsDataset


def _files(name, dataset_dir, usage, valid, default, file_of) -> list[str]:
    """The files of `usage` in `dataset_dir` ("all": every usage's file, sorted by name)."""
    dataset_dir = check_folder(name, dataset_dir)
    usage = check_usage(name, usage, valid, default)
    parts = ([u for u in valid if u != "all"] or ["all"]) if usage == "all" else [usage]
    return sorted(check_file(name, os.path.join(dataset_dir, file_of(u))) for u in parts)


def _lines(path: str, keep_empty: bool) -> list[str]:
    with open(path, encoding="utf-8", newline="") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()              # the newline ending the last line
    return lines if keep_empty else [line for line in lines if line]


class _CorpusDataset(_FileRowsDataset):
    """Rows of `files` made by `read(path)` (a list of tuples of numpy values per file)."""

    def __init__(self, files, column_names, read, num_samples, num_parallel_workers, shuffle, num_shards, shard_id):
        name = type(self).__name__
        workers = check_workers(name, num_parallel_workers)
        super().__init__(name, files, column_names, [read(path) for path in files], num_samples, workers, shuffle,
                         num_shards, shard_id)


class _CsvCorpus(_CorpusDataset):
    """A train.csv / test.csv classification set; COLUMNS names its fields."""
    COLUMNS: tuple = ()

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        name = type(self).__name__
        files = _files(name, dataset_dir, usage, ("train", "test", "all"), "all", lambda u: f"{u}.csv")
        super().__init__(files, list(self.COLUMNS), self._read, num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

    def _read(self, path):
        rows = []
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.reader(f)
            for fields in reader:
                if not fields:
                    continue
                if len(fields) != len(self.COLUMNS):
                    raise RuntimeError(f"{type(self).__name__}: Invalid file, failed to parse csv file: {path} at "
                                       f"line {reader.line_num}: it has {len(fields)} fields, but there are "
                                       f"{len(self.COLUMNS)} columns {list(self.COLUMNS)}")
                rows.append(tuple(np.array(v) for v in fields))
        return rows


class AGNewsDataset(_CsvCorpus):
    """AG's News: columns "index" (the class, 1-4), "title", "description"."""
    COLUMNS = ("index", "title", "description")


class DBpediaDataset(_CsvCorpus):
    """DBpedia ontology classification: columns "class" (1-14), "title", "content"."""
    COLUMNS = ("class", "title", "content")


class YelpReviewDataset(_CsvCorpus):
    """Yelp reviews (polarity or full, the same layout): columns "label", "text"."""
    COLUMNS = ("label", "text")


class AmazonReviewDataset(_CsvCorpus):
    """Amazon reviews (polarity or full): columns "label", "title", "content"."""
    COLUMNS = ("label", "title", "content")


class SogouNewsDataset(_CsvCorpus):
    """Sogou News: columns "index" (the class), "title", "content"."""
    COLUMNS = ("index", "title", "content")


class YahooAnswersDataset(_CsvCorpus):
    """Yahoo! Answers: columns "class", "title", "content", "answer"."""
    COLUMNS = ("class", "title", "content", "answer")


class SST2Dataset(_CorpusDataset):
    """Stanford Sentiment Treebank (GLUE's SST-2): usage "train" (default) or "dev" give columns
    "sentence", "label" (a string, as 2.10 reads it); "test" gives "sentence" (its index column
    dropped). Fields are split on tabs without CSV quoting: 2.10 fails on a sentence starting with
    a double quote (measured), graphcell reads it as written."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        name = "SST2Dataset"
        usage = check_usage(name, usage, ("train", "test", "dev"), "train")
        files = _files(name, dataset_dir, usage, ("train", "test", "dev"), "train", lambda u: f"{u}.tsv")
        columns = ["sentence"] if usage == "test" else ["sentence", "label"]
        super().__init__(files, columns, lambda path: self._read(path, usage == "test"), num_samples,
                         num_parallel_workers, shuffle, num_shards, shard_id)

    @staticmethod
    def _read(path, test):
        rows = []
        for number, line in enumerate(_lines(path, keep_empty=False)[1:], 2):    # line 1 is the header
            fields = line.split("\t")
            if len(fields) != 2:
                raise RuntimeError(f"SST2Dataset: Invalid file {path}, line {number} has {len(fields)} "
                                   "tab-separated fields, expected 2")
            rows.append((np.array(fields[1]),) if test else (np.array(fields[0]), np.array(fields[1])))
        return rows


class _LineCorpus(_CorpusDataset):
    """One row per line, column "text"; FILE_OF maps a usage to its file name."""
    USAGES = ("train", "valid", "test", "all")
    KEEP_EMPTY = False

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        files = _files(type(self).__name__, dataset_dir, usage, self.USAGES, "all", self.file_of)
        super().__init__(files, ["text"], self._read, num_samples, num_parallel_workers, shuffle, num_shards,
                         shard_id)

    def _read(self, path):
        return [(np.array(line),) for line in _lines(path, self.KEEP_EMPTY)]


class WikiTextDataset(_LineCorpus):
    """WikiText-2 or WikiText-103 (wiki.train.tokens, wiki.valid.tokens, wiki.test.tokens)."""

    @staticmethod
    def file_of(usage):
        return f"wiki.{usage}.tokens"


class PennTreebankDataset(_LineCorpus):
    """Penn Treebank language-modelling text (ptb.train.txt, ptb.valid.txt, ptb.test.txt)."""

    @staticmethod
    def file_of(usage):
        return f"ptb.{usage}.txt"


class EnWik9Dataset(_LineCorpus):
    """The first 10^9 bytes of English Wikipedia's XML dump (the file enwik9): every line a row,
    empty ones too (measured on 2.10); shuffled by default."""
    USAGES = ("all",)
    KEEP_EMPTY = True

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(dataset_dir, None, num_samples, num_parallel_workers, shuffle, num_shards, shard_id)

    @staticmethod
    def file_of(usage):
        return "enwik9"
