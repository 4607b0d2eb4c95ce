"""mindspore.dataset.text.utils: Vocab (token <-> id tables), the enums of the text transforms,
and to_str / to_bytes (MindSpore 2.10's behaviour and messages, measured)."""
from __future__ import annotations

import collections
import enum
import numbers
import os

import numpy as np

_MAX_ID = 2147483647


class NormalizeForm(enum.IntEnum):
    """Unicode normalization forms of NormalizeUTF8 and BasicTokenizer."""
    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


class JiebaMode(enum.IntEnum):
    MIX = 0
    MP = 1
    HMM = 2


def _check_type(value, types, name):
    if isinstance(value, bool) or not isinstance(value, types):
        raise TypeError(f"Argument {name} with value {value} is not of type {list(types)}, but got {type(value)}.")


def _check_strings(words, name):
    if not isinstance(words, (list, tuple)):
        raise TypeError(f"Argument {name} with value {words} is not of type [<class 'list'>], but got {type(words)}.")
    for word in words:
        _check_type(word, (str,), name)


def _with_specials(words: list, special_tokens, special_first: bool) -> dict:
    specials = list(special_tokens or [])
    ordered = specials + words if special_first else words + specials
    return {word: i for i, word in enumerate(ordered)}


class Vocab:
    """A token -> id table (`vocab()` is the dict). Build one with from_list, from_dict, from_file
    or from_dataset."""

    def __init__(self, word_dict: dict | None = None):
        self._ids = dict(word_dict or {})
        self._tokens = {}
        for word, i in self._ids.items():
            self._tokens.setdefault(i, word)

    # -- building -------------------------------------------------------------------------------
    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True) -> "Vocab":
        """Ids by position; `special_tokens` take the first ids (or the last, special_first=False)."""
        _check_strings(word_list, "word_list")
        seen = set()
        for word in word_list:
            if word in seen:
                raise ValueError(f"word_list contains duplicate word: {word}.")
            seen.add(word)
        if special_tokens is not None:
            _check_strings(special_tokens, "special_tokens")
            both = seen & set(special_tokens)
            if both:
                raise ValueError(f"special_tokens and word_list contain duplicate word :{both}.")
        return cls(_with_specials(list(word_list), special_tokens, special_first))

    @classmethod
    def from_dict(cls, word_dict) -> "Vocab":
        """The given {word: id}; ids need not be contiguous (nor unique, as 2.10)."""
        if not isinstance(word_dict, dict):
            raise TypeError(f"Argument word_dict with value {word_dict} is not of type [<class 'dict'>], "
                            f"but got {type(word_dict)}.")
        for word, i in word_dict.items():
            _check_type(word, (str,), "word")
            _check_type(i, (int,), "word_id")
            if not 0 <= i <= _MAX_ID:
                raise ValueError(f"Input word_id is not within the required interval of [0, {_MAX_ID}].")
        return cls(word_dict)

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None, special_first=True) -> "Vocab":
        """One word per line (the text before the first `delimiter`, the whole line when it is
        empty; an empty line is the word ''), the first `vocab_size` lines."""
        _check_type(file_path, (str,), "file_path")
        _check_type(delimiter, (str,), "delimiter")
        if vocab_size is not None:
            _check_type(vocab_size, (int,), "vocab_size")
            if vocab_size <= 0:
                raise ValueError(f"Input vocab_size is not within the required interval of [1, {_MAX_ID}].")
        if special_tokens is not None:
            _check_strings(special_tokens, "special_tokens")
        if not os.path.exists(file_path):
            raise RuntimeError(f"Get real path failed, path={file_path}")
        if os.path.isdir(file_path):       # 2.10 reads a folder as an empty vocabulary (measured)
            lines = []
        else:
            with open(file_path, encoding="utf-8", newline="") as f:
                lines = f.read().split("\n")
            if lines and lines[-1] == "":  # the newline ending the last line starts no word
                lines.pop()
        words = []
        for line in lines:
            if vocab_size is not None and len(words) >= vocab_size:
                break
            words.append(line.split(delimiter, 1)[0] if delimiter else line)
        seen = set()
        for word in words:
            if word in seen:
                raise RuntimeError(f"from_file: word_list contains duplicate word:{word}")
            seen.add(word)
        for word in special_tokens or []:
            if word in seen:
                raise RuntimeError(f"from_file: special_tokens and word_list contain duplicate word:{word}")
        return cls(_with_specials(words, special_tokens, special_first))

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None, special_tokens=None,
                     special_first=True) -> "Vocab":
        """The words of `columns` (default: all) of one pass over `dataset`, by descending
        frequency (ties in string order), those with a count in `freq_range` (min, max; None is
        open), the `top_k` first."""
        if isinstance(columns, str):
            columns = [columns]
        if freq_range is not None:
            low, high = freq_range
            low = 0 if low is None else low
            high = _MAX_ID if high is None else high
            if not 0 <= low <= high:
                raise ValueError("frequency range [a,b] should be 0 <= a <= b (a,b are inclusive).")
        else:
            low, high = 0, _MAX_ID
        if top_k is not None:
            _check_type(top_k, (int,), "top_k")
            if top_k <= 0:
                raise ValueError("Input top_k must be greater than 0.")
        if special_tokens is not None:
            _check_strings(special_tokens, "special_tokens")
        names = dataset.get_col_names()
        columns = list(columns) if columns else names
        for c in columns:
            if c not in names:
                raise RuntimeError(f"Invalid column name, column name: {c} does not exist, check existed column "
                                   "with dataset API 'get_col_names'")
        index = [names.index(c) for c in columns]
        counts = collections.Counter()
        for row in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True):
            for i in index:
                values = np.asarray(row[i])
                if values.dtype.kind != "U":
                    raise RuntimeError("Invalid datatype, 'build_vocab' only supports string type of input, but "
                                       f"got numeric type: {values.dtype}")
                counts.update(str(w) for w in values.ravel())
        words = sorted((w for w, n in counts.items() if low <= n <= high), key=lambda w: (-counts[w], w))
        if top_k is not None:
            words = words[:top_k]
        taken = [w for w in special_tokens or [] if w in words]
        if taken:
            raise RuntimeError("Invalid special words, these special words are already in the vocab: "
                               + "".join(f"{w}\t" for w in taken) + ".")
        return cls(_with_specials(words, special_tokens, special_first))

    # -- using ----------------------------------------------------------------------------------
    def vocab(self) -> dict:
        """{word: id}."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens):
        """The id of a token (-1 when absent), or a list of ids for a list or array of tokens."""
        if isinstance(tokens, np.ndarray):
            return [self._ids.get(str(t), -1) for t in tokens.ravel()]
        if isinstance(tokens, list):
            return [self._ids.get(t, -1) for t in tokens]
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        raise TypeError(f"Argument tokens with value {tokens} is not of type [<class 'str'>, <class 'list'>, "
                        f"<class 'numpy.ndarray'>], but got {type(tokens)}.")

    def ids_to_tokens(self, ids):
        """The token of an id ('' when absent), or a list of tokens for a list or array of ids."""
        if isinstance(ids, np.ndarray):
            ids = ids.ravel().tolist()
        elif not isinstance(ids, (list, int)) or isinstance(ids, bool):
            raise TypeError(f"Argument ids with value {ids} is not of type [<class 'int'>, <class 'list'>, "
                            f"<class 'numpy.ndarray'>], but got {type(ids)}.")
        for i in ids if isinstance(ids, list) else [ids]:
            if not isinstance(i, numbers.Integral) or not 0 <= i <= _MAX_ID:
                raise ValueError(f"Input ids is not within the required interval of [0, {_MAX_ID}].")
        if isinstance(ids, list):
            return [self._tokens.get(int(i), "") for i in ids]
        return self._tokens.get(ids, "")

    def __len__(self):
        return len(self._ids)


def to_str(array, encoding="utf8") -> np.ndarray:
    """A bytes array (numpy 'S') decoded to str."""
    if not isinstance(array, np.ndarray):
        raise TypeError("input should be a NumPy array.")
    if array.dtype.kind != "S":
        raise TypeError(f"to_str: the array must hold bytes (numpy 'S' dtype), got {array.dtype}.")
    return np.char.decode(array, encoding)


def to_bytes(array, encoding="utf8") -> np.ndarray:
    """A str array (numpy 'U') encoded to bytes."""
    if not isinstance(array, np.ndarray):
        raise TypeError("input should be a NumPy array.")
    if array.dtype.kind != "U":
        raise TypeError(f"to_bytes: the array must hold str (numpy 'U' dtype), got {array.dtype}.")
    return np.char.encode(array, encoding)
