"""Word vectors: Vectors.from_file reads a word-vector text file (GloVe / fastText .vec layout),
and the ToVectors transform maps tokens to their vectors (MindSpore 2.10's behaviour, measured).
The pretrained FastText, GloVe and CharNGram classes (file names fixed per release) are not
provided: Vectors.from_file reads those files."""
from __future__ import annotations

import os

import numpy as np


class Vectors:
    """{token: float32 vector} of a text file: one `token v1 v2 ...` per line, an optional
    `count dim` header line first, the first `max_vectors` lines."""

    def __init__(self, table: dict, dim: int):
        self._table, self.dim = table, dim

    @classmethod
    def from_file(cls, file_path, max_vectors=None) -> "Vectors":
        if not isinstance(file_path, str) or not os.path.isfile(file_path):
            raise RuntimeError(f"Vectors: get real path failed, path: {file_path}")
        if max_vectors is not None and (isinstance(max_vectors, bool) or not isinstance(max_vectors, int)
                                        or max_vectors < 0):
            raise ValueError("Input max_vectors is not within the required interval of [0, 2147483647].")
        table, dim = {}, None
        with open(file_path, encoding="utf-8") as f:
            for k, line in enumerate(f):
                fields = line.rstrip("\n").rstrip("\r").split(" ")
                if k == 0 and len(fields) == 2 and all(x.isdigit() for x in fields):
                    continue                    # the "count dim" header of .vec files
                if max_vectors is not None and len(table) >= max_vectors:
                    break
                if len(fields) < 2:
                    continue
                values = np.array([float(x) for x in fields[1:] if x], np.float32)
                if dim is None:
                    dim = len(values)
                elif len(values) != dim:
                    raise RuntimeError(f"Vectors: the vector of {fields[0]!r} on line {k + 1} of {file_path} has "
                                       f"{len(values)} values, the ones before {dim}.")
                table.setdefault(fields[0], values)
        return cls(table, dim or 0)


class ToVectors:
    """Tokens -> their vectors (float32): shape (tokens, dim), or (dim,) for a single token.
    A token without a vector gets `unk_init` (zeros by default); `lower_case_backup` tries the
    lower-cased token first."""

    def __init__(self, vectors, unk_init=None, lower_case_backup=False):
        if not isinstance(vectors, Vectors):
            raise TypeError(f"Argument vectors with value {vectors} is not of type [<class 'Vectors'>], "
                            f"but got {type(vectors)}.")
        self.vectors, self.lower_case_backup = vectors, bool(lower_case_backup)
        self.unk_init = None if unk_init is None else np.asarray(unk_init, np.float32).ravel()

    def _vector(self, token: str) -> np.ndarray:
        table = self.vectors._table
        found = table.get(token)
        if found is None and self.lower_case_backup:
            found = table.get(token.lower())
        if found is not None:
            return found
        if self.unk_init is None:
            return np.zeros(self.vectors.dim, np.float32)
        if len(self.unk_init) != self.vectors.dim:
            raise RuntimeError(f"ToVectors: unk_init must be the same length as vectors, but got unk_init: "
                               f"{len(self.unk_init)} and vectors: {self.vectors.dim}")
        return self.unk_init

    def __call__(self, tokens):
        array = np.asarray(tokens)
        if array.dtype.kind != "U":
            raise RuntimeError("ToVectors: input tensor type should be string.")
        out = np.stack([self._vector(str(t)) for t in array.ravel()]) if array.size else \
            np.zeros((0, self.vectors.dim), np.float32)
        return out[0].copy() if array.size == 1 else out     # one token: (dim,), as 2.10
