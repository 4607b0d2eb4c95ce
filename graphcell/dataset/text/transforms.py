"""mindspore.dataset.text.transforms: the text transforms for `map`, on numpy str arrays
(MindSpore 2.10's arguments, outputs, dtypes and messages, measured). The tokenizers are in
tokenizers.py and re-exported here, as 2.10's module holds them all.

    vocab = text.Vocab.from_list(["[PAD]", "[UNK]", "hello", "world"])
    ds = ds.map(text.WhitespaceTokenizer(), input_columns="text")
    ds = ds.map(text.Lookup(vocab, "[UNK]"), input_columns="text")

Strings are numpy str ('U') arrays, as graphcell's datasets give them; a bytes ('S') array is
refused as 2.10 refuses it (to_str converts one).
"""
from __future__ import annotations

import numbers
import re
import unicodedata

import numpy as np

from ...dtype import DType, bool_, to_dtype
from . import _unicode as uc
from .tokenizers import (BasicTokenizer, BertTokenizer, JiebaTokenizer, PythonTokenizer,  # noqa: F401
                         RegexTokenizer, UnicodeCharTokenizer, UnicodeScriptTokenizer, WhitespaceTokenizer,
                         WordpieceTokenizer, _check_vocab)
from .utils import NormalizeForm
from .vectors import ToVectors  # noqa: F401 - 2.10's transforms module holds it


def _positive(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 1 <= value <= 2147483647:
        raise ValueError(f"Input {name} is not within the required interval of [1, 2147483647].")
    return int(value)


def _numeric_dtype(data_type) -> DType:
    """A graphcell dtype from a graphcell or numpy dtype."""
    return data_type if isinstance(data_type, DType) else to_dtype(data_type)


class Lookup:
    """Tokens -> their ids in `vocab` (any shape), as `data_type` (int32); a token not in the
    vocabulary takes `unknown_token`'s id, or is an error without one."""

    def __init__(self, vocab, unknown_token=None, data_type=None):
        self.vocab = _check_vocab(vocab)
        words = vocab.vocab()
        if unknown_token is not None and unknown_token not in words:
            raise RuntimeError(f'Lookup: "{unknown_token}" doesn\'t exist in vocab.')
        self.unknown_token = unknown_token
        self._unknown_id = words.get(unknown_token) if unknown_token is not None else None
        try:
            dtype = _numeric_dtype(data_type) if data_type is not None else None
        except TypeError:
            dtype = None
            if data_type is not None:
                raise RuntimeError("Lookup : The parameter data_type must be numeric including bool.") from None
        self.data_type = dtype.np_dtype if dtype is not None else np.dtype(np.int32)
        self._words = words

    def _id(self, token: str) -> int:
        found = self._words.get(token, self._unknown_id)
        if found is None:
            raise RuntimeError(f'Lookup: invalid data, token: "{token}" doesn\'t exist in vocab and no unknown token '
                               'is specified.')
        return found

    def __call__(self, tokens):
        array = uc.string_array(tokens, "Lookup: input is not string datatype.")
        ids = np.array([self._id(str(t)) for t in array.ravel()], np.int64).reshape(array.shape)
        return ids.astype(self.data_type)


# C's strtol / strtod prefixes, as 2.10 parses (std::stoll, std::stod): "12abc" is 12.
_C_SPACE = "[ \t\n\v\f\r]*"
_INT = re.compile(_C_SPACE + r"([+-]?[0-9]+)")
_FLOAT = re.compile(_C_SPACE + r"([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
                    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan))", re.IGNORECASE)


def _c_float(text: str) -> float:
    number = text.lstrip("+-")
    sign = -1.0 if text.startswith("-") else 1.0
    if number[:2].lower() == "0x":
        mantissa = number if "p" in number.lower() else number + "p0"
        return sign * float.fromhex(mantissa)
    return float(text)


class ToNumber:
    """Strings -> numbers of `data_type` (any numeric dtype but bool), parsed as C does: leading
    spaces skipped, the longest number prefix read ("12abc" is 12, "1.5" is 1 for ints); a value
    outside the dtype's range is an error."""

    def __init__(self, data_type):
        dtype = _numeric_dtype(data_type)
        if dtype is bool_ or dtype.np_dtype.kind not in "iuf":
            raise TypeError(f"data_type: {dtype.ms_name if hasattr(dtype, 'ms_name') else dtype} is not numeric "
                            "data type.")
        self.data_type = dtype
        self._np = dtype.np_dtype

    @staticmethod
    def _range_error(text, dtype, low, high):
        return RuntimeError(f"ToNumber: string input {text} will be out of bounds if cast to {dtype}. The valid "
                            f"range is: [{low}, {high}].")

    def _parse(self, text: str):
        name = self.data_type.name
        if self._np.kind in "iu":
            match = _INT.match(text)
            unsigned = self._np.kind == "u"
            if match is None:
                raise RuntimeError(f'ToNumber: It is invalid to convert "{text}" to an unsigned integer.' if unsigned
                                   else f'ToNumber: it is invalid to convert "{text}" to a number.')
            value, info = int(match.group(1)), np.iinfo(self._np)
            # 2.10 refuses any '-' in an unsigned input, "1e-50" too (measured)
            if not info.min <= value <= info.max or (unsigned and "-" in text):
                raise self._range_error(text, name, info.min, info.max)
            return value
        match = _FLOAT.match(text)
        if match is None:   # 2.10's message says "unsigned integer" for every float dtype (measured)
            raise RuntimeError(f'ToNumber: it is invalid to convert "{text}" to an unsigned integer.')
        value = _c_float(match.group(1))
        parse_as = np.float64 if self._np == np.float64 else np.float32   # float16 goes through float32
        limit, tiny = float(np.finfo(parse_as).max), float(np.finfo(parse_as).tiny)
        if value == value and (abs(value) > limit or 0 < abs(value) < tiny):
            raise self._range_error(text, name, f"{-limit:f}", f"{limit:f}")
        if self._np == np.float16 and abs(value) > 65504.0:
            raise RuntimeError(f"ToFloat16: value {float(np.float32(value)):f}in input data is outside of valid "
                               "float16 range [65504.000000, -65504.000000].")
        return value

    def __call__(self, strings):
        array = uc.string_array(strings, "ToNumber: input should be string datatype.")
        values = [self._parse(str(s)) for s in array.ravel()]
        return np.array(values, dtype=np.float64 if self._np.kind == "f" else object).astype(self._np) \
            .reshape(array.shape)


class Truncate:
    """The first `max_seq_len` entries of a 1-D array (of each row of a 2-D one)."""

    def __init__(self, max_seq_len):
        self.max_seq_len = _positive(max_seq_len, "max_seq_len")

    def __call__(self, array):
        array = np.asarray(array)
        if array.ndim not in (1, 2):
            raise RuntimeError("Truncate: the input tensor should be of dimension 1 or 2.")
        return array[..., :self.max_seq_len].copy()


class TruncateSequencePair:
    """Shortens two 1-D arrays to at most `max_length` entries together, dropping from the end of
    the longer one first."""

    def __init__(self, max_length):
        self.max_length = _positive(max_length, "max_length")

    def __call__(self, first, second):
        first, second = np.asarray(first), np.asarray(second)
        if first.ndim != 1 or second.ndim != 1:
            raise RuntimeError("TruncateSequencePair: both data column should be of rank 1.")
        a, b = len(first), len(second)
        while a + b > self.max_length:
            if a > b:
                a -= 1
            else:
                b -= 1
        return first[:a].copy(), second[:b].copy()


class SlidingWindow:
    """The windows of `width` consecutive entries of a 1-D array, as rows of a 2-D array (an
    empty 1-D array when the input is shorter than `width`)."""

    def __init__(self, width, axis=0):
        self.width = _positive(width, "width")
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"Argument axis with value {axis} is not of type [<class 'int'>], but got {type(axis)}.")
        self.axis = int(axis)

    def __call__(self, array):
        array = np.asarray(array)
        if array.ndim != 1:
            raise RuntimeError(f"SlidingWindow: SlidingWindow supports 1D input only for now, but got {array.ndim}D.")
        if len(array) < self.width:
            return np.empty((0,), array.dtype)
        return np.lib.stride_tricks.sliding_window_view(array, self.width).copy()


def _pad_arg(pad, name):
    if not (isinstance(pad, tuple) and len(pad) == 2 and isinstance(pad[0], str)
            and isinstance(pad[1], numbers.Integral) and not isinstance(pad[1], bool)):
        raise TypeError(f"{name} should be a tuple of (str, int), got {pad!r}.")
    if pad[1] < 0:
        raise ValueError(f"padding width need to be positive numbers, got {pad[1]}.")
    return pad[0], int(pad[1])


class Ngram:
    """The n-grams of a 1-D str array, for each n of `n` in turn, joined by `separator`; the
    sequence is padded with up to n - 1 copies of left_pad[0] / right_pad[0] (at most the given
    widths). An n longer than the padded sequence gives one ''."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" "):
        grams = [n] if isinstance(n, numbers.Integral) and not isinstance(n, bool) else list(n)
        for k, gram in enumerate(grams):
            if isinstance(gram, bool) or not isinstance(gram, numbers.Integral):
                raise TypeError(f"Argument gram[{k}] with value {gram} is not of type [<class 'int'>], "
                                f"but got {type(gram)}.")
            if gram <= 0:
                raise ValueError(f"Input gram_{k} must be greater than 0.")
        if not grams:
            raise ValueError("n needs to be a non-empty list.")
        self.n = [int(g) for g in grams]
        self.left_pad, self.right_pad = _pad_arg(left_pad, "left_pad"), _pad_arg(right_pad, "right_pad")
        if not isinstance(separator, str):
            raise TypeError(f"Argument separator with value {separator} is not of type [<class 'str'>], "
                            f"but got {type(separator)}.")
        self.separator = separator

    def __call__(self, tokens):
        array = np.asarray(tokens)
        if array.dtype.kind != "U" or array.ndim != 1:
            raise RuntimeError("Ngram: input is not a 1D data with string datatype.")
        words = [str(t) for t in array]
        out = []
        for n in self.n:
            seq = ([self.left_pad[0]] * min(self.left_pad[1], n - 1) + words
                   + [self.right_pad[0]] * min(self.right_pad[1], n - 1))
            grams = [self.separator.join(seq[i:i + n]) for i in range(len(seq) - n + 1)]
            out += grams or [""]        # one '' for each n too long for the sequence (measured)
        return np.array(out, dtype=str)


class AddToken:
    """`token` added at the start (`begin`) or end of a 1-D str array, or of each row of a 2-D one."""

    def __init__(self, token, begin=True):
        if not isinstance(token, str):
            raise TypeError(f"Argument token with value {token} is not of type [<class 'str'>], but got {type(token)}.")
        self.token, self.begin = token, bool(begin)

    def __call__(self, tokens):
        array = np.asarray(tokens)
        if array.dtype.kind != "U":
            raise RuntimeError("AddToken: input tensor type should be string.")
        if array.ndim not in (1, 2):
            raise RuntimeError("AddToken: input tensor rank should be 1 or 2.")
        extra = np.full(array.shape[:-1] + (1,), self.token)
        return np.concatenate([extra, array] if self.begin else [array, extra], axis=-1)


class CaseFold:
    """Unicode case folding of every string, NFKC_Casefold as 2.10 (ICU): "ß" -> "ss",
    "ﬁ" -> "fi", full-width letters -> ASCII, default-ignorable characters removed."""

    def __call__(self, strings):
        return uc.map_strings(uc.string_array(strings, "CaseFold: input is not string datatype."), uc.nfkc_casefold)


class NormalizeUTF8:
    """Unicode normalization of every string (`normalize_form`: NFKC by default; NONE keeps it)."""

    def __init__(self, normalize_form=NormalizeForm.NFKC):
        if not isinstance(normalize_form, NormalizeForm):
            raise TypeError(f"Argument normalize_form with value {normalize_form} is not of type "
                            f"[<enum 'NormalizeForm'>], but got {type(normalize_form)}.")
        self.normalize_form = normalize_form

    def __call__(self, strings):
        array = uc.string_array(strings, "NormalizeUTF8: input is not string datatype.")
        if self.normalize_form is NormalizeForm.NONE:
            return array.copy()
        return uc.map_strings(array, lambda s: unicodedata.normalize(self.normalize_form.name, s))


def _icu_replacement(replace: str) -> str:
    """An ICU replacement string ($1 and ${name} groups, \\ escapes) as a Python `re` template."""
    out, i = [], 0
    while i < len(replace):
        ch = replace[i]
        if ch == "\\" and i + 1 < len(replace):
            out.append(replace[i + 1].replace("\\", "\\\\"))
            i += 2
            continue
        if ch == "$":
            group = re.match(r"\$(\d+|\{\w+\})", replace[i:])
            if group:
                out.append(f"\\g<{group.group(1).strip('{}')}>")
                i += len(group.group())
                continue
        out.append("\\\\" if ch == "\\" else ch)
        i += 1
    return "".join(out)


class RegexReplace:
    """Replaces the matches of `pattern` by `replace` (ICU syntax: $1 is group 1) in every
    string; only the first match with replace_all=False.

    2.10 mixes up the results of a multi-string array (measured: ["a", "aa"] with a -> b gives
    ["bbb", ""]); here each string gets its own replacement."""

    def __init__(self, pattern, replace, replace_all=True):
        for name, value in (("pattern", pattern), ("replace", replace)):
            if not isinstance(value, str):
                raise TypeError(f"Argument {name} with value {value} is not of type [<class 'str'>], "
                                f"but got {type(value)}.")
        self.pattern, self.replace, self.replace_all = pattern, replace, bool(replace_all)
        self._regex, self._template = re.compile(pattern), _icu_replacement(replace)

    def __call__(self, strings):
        array = uc.string_array(strings, "RegexReplace: input is not string datatype.")
        count = 0 if self.replace_all else 1
        return uc.map_strings(array, lambda s: self._regex.sub(self._template, s, count=count))
