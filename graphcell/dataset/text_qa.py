"""CLUEDataset (the Chinese Language Understanding Evaluation tasks, JSON lines) and SQuADDataset
(Stanford Question Answering, SQuAD 1.1 / 2.0 JSON), read as the other text files are (see
text_files.py for the order, sharding and shuffling). Columns and types measured on MindSpore 2.10.
"""
from __future__ import annotations

import json
import os

import numpy as np

from ._checks import check_folder, check_usage
from .text_corpora import _CorpusDataset
from .text_files import Shuffle, _expand_files

# the columns of each task, (train and eval; test), in 2.10's (sorted) order; WSC's target fields
# are flattened into the row
_CLUE_COLUMNS = {
    "AFQMC": (("label", "sentence1", "sentence2"), ("id", "sentence1", "sentence2")),
    "TNEWS": (("keywords", "label", "label_desc", "sentence"), ("id", "keywords", "sentence")),
    "IFLYTEK": (("label", "label_des", "sentence"), ("id", "sentence")),
    "CMNLI": (("label", "sentence1", "sentence2"), ("id", "sentence1", "sentence2")),
    "WSC": (("idx", "label", "span1_index", "span1_text", "span2_index", "span2_text", "text"),
            ("idx", "span1_index", "span1_text", "span2_index", "span2_text", "text")),
    "CSL": (("abst", "id", "keyword", "label"), ("abst", "id", "keyword")),
}


def _json_value(value) -> np.ndarray:
    """A JSON value as 2.10 gives it: a number as uint32, a string as numpy str, a list as an array."""
    if isinstance(value, list):
        return np.array([str(v) for v in value]) if value and isinstance(value[0], str) else np.array(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return np.array(str(value) if not isinstance(value, str) else value)
    return np.array(value, dtype=np.uint32 if isinstance(value, int) else np.float32)


class CLUEDataset(_CorpusDataset):
    """CLUE's JSON-lines files (`dataset_files`, patterns or a list) for `task` (AFQMC, TNEWS,
    IFLYTEK, CMNLI, WSC, CSL) and `usage` ("train", "eval": labelled columns; "test": with ids)."""

    def __init__(self, dataset_files, task="AFQMC", usage="train", num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        if task not in _CLUE_COLUMNS:
            raise ValueError("task should be 'AFQMC', 'TNEWS', 'IFLYTEK', 'CMNLI', 'WSC' or 'CSL'.")
        if usage not in ("train", "test", "eval"):
            raise ValueError("usage should be 'train', 'test' or 'eval'.")
        files = _expand_files("CLUEDataset", dataset_files)
        columns = _CLUE_COLUMNS[task][usage == "test"]
        super().__init__(files, list(columns), lambda path: self._read(path, columns), num_samples,
                         num_parallel_workers, shuffle, num_shards, shard_id)

    @staticmethod
    def _read(path, columns):
        rows = []
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as e:
                    raise RuntimeError(f"CLUEDataset: Invalid json file {path}, line {number}: {e}") from None
                record.update(record.pop("target", None) or {})
                missing = [c for c in columns if c not in record]
                if missing:
                    raise RuntimeError(f"CLUEDataset: Invalid json file, in given JSON file, failed to find key: "
                                       f"{missing[0]} ({path}, line {number})")
                rows.append(tuple(_json_value(record[c]) for c in columns))
        return rows


_SQUAD_FILES = ("{}-v1.1.json", "{}-v2.0.json")
_NO_ANSWER = np.uint32(0xFFFFFFFF)     # answer_start of an unanswerable question (-1 as uint32, measured)


class SQuADDataset(_CorpusDataset):
    """SQuAD 1.1 or 2.0 in `dataset_dir` (train-v1.1.json / dev-v1.1.json, or the -v2.0 files):
    one row per question, columns "context", "question", "text" (the answers, str [n]) and
    "answer_start" (uint32 [n]); an unanswerable question has text [""] and answer_start
    [4294967295]. usage "train", "dev" or "all" (default: train then dev)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        dataset_dir = check_folder("SQuADDataset", dataset_dir)
        usage = check_usage("SQuADDataset", usage, ("train", "dev", "all"))
        files = [self._find(dataset_dir, u) for u in (("train", "dev") if usage == "all" else (usage,))]
        super().__init__(files, ["context", "question", "text", "answer_start"], self._read, num_samples,
                         num_parallel_workers, shuffle, num_shards, shard_id)

    @staticmethod
    def _find(dataset_dir, usage):
        for pattern in _SQUAD_FILES:
            path = os.path.join(dataset_dir, pattern.format(usage))
            if os.path.isfile(path):
                return path
        raise RuntimeError(f"SQuADDataset: Invalid path, failed to find SQuAD {usage} data file: {dataset_dir} "
                           f"(expected {' or '.join(p.format(usage) for p in _SQUAD_FILES)})")

    @staticmethod
    def _read(path):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        rows = []
        for article in data["data"]:
            for paragraph in article["paragraphs"]:
                context = np.array(paragraph["context"])
                for qa in paragraph["qas"]:
                    answers = qa.get("answers") or []
                    texts = np.array([a["text"] for a in answers] or [""])
                    starts = (np.array([a["answer_start"] for a in answers], dtype=np.uint32) if answers
                              else np.array([_NO_ANSWER]))
                    rows.append((context, np.array(qa["question"]), texts, starts))
        return rows
