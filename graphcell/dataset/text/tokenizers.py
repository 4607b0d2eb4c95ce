"""The tokenizers of mindspore.dataset.text: a string (a numpy str scalar) -> a 1-D str array of
tokens, and with `with_offsets=True` also the tokens' UTF-8 byte start and end (uint32), as
MindSpore 2.10 returns them (measured). No token gives [''] (offsets [0], [0]).

Where 2.10 transforms the text first (BasicTokenizer's folding and normalization, its control
characters turned into spaces), offsets are positions in the transformed text, as in 2.10.
Regular expressions are Python's `re` (2.10 uses ICU's: `\\p{...}` classes are not available).
"""
from __future__ import annotations

import re
import unicodedata

import numpy as np

from . import _unicode as uc
from .utils import NormalizeForm, Vocab


class _Tokenizer:
    """Base: `_spans(text)` gives (processed text, [(start, end) character spans of the tokens])."""
    _name = "Tokenizer"

    def __init__(self, with_offsets=False):
        if not isinstance(with_offsets, bool):
            raise TypeError(f"Argument with_offsets with value {with_offsets} is not of type [<class 'bool'>], "
                            f"but got {type(with_offsets)}.")
        self.with_offsets = with_offsets

    def _input(self, text) -> str:
        return uc.string_scalar(text, f"{self._name}: the input shape should be scalar and the input datatype "
                                      "should be string.")

    def _spans(self, text: str):
        raise NotImplementedError

    def __call__(self, text):
        processed, spans = self._spans(self._input(text))
        byte = uc.utf8_offsets(processed)
        return uc.token_result([processed[a:b] for a, b in spans], [int(byte[a]) for a, _ in spans],
                               [int(byte[b]) for _, b in spans], self.with_offsets)


def _runs(text: str, key) -> list[tuple[int, int, object]]:
    """Maximal runs of characters with the same key(ch): (start, end, key)."""
    runs, start = [], 0
    for i in range(1, len(text) + 1):
        if i == len(text) or key(text[i]) != key(text[start]):
            runs.append((start, i, key(text[start])))
            start = i
    return runs if text else []


class WhitespaceTokenizer(_Tokenizer):
    """Splits on Unicode whitespace (ICU's White_Space: space, tab, newlines, no-break spaces...)."""
    _name = "WhitespaceTokenizerOp"

    def _spans(self, text):
        return text, [(a, b) for a, b, space in _runs(text, lambda ch: ch in uc.WHITESPACE) if not space]


class UnicodeCharTokenizer(_Tokenizer):
    """One token per Unicode character."""
    _name = "UnicodeCharTokenizerOp"

    def _spans(self, text):
        return text, [(i, i + 1) for i in range(len(text))]


class UnicodeScriptTokenizer(_Tokenizer):
    """Splits where the Unicode script changes (Latin, Han, Common for digits and punctuation...)
    and on whitespace, a whitespace run being a token with `keep_whitespace`. The script of a
    character is approximated from its Unicode name (see _unicode.script), 2.10 asks ICU."""
    _name = "UnicodeScriptTokenizerOp"

    def __init__(self, keep_whitespace=False, with_offsets=False):
        super().__init__(with_offsets)
        self.keep_whitespace = bool(keep_whitespace)

    def _spans(self, text):
        key = lambda ch: " " if ch in uc.WHITESPACE else uc.script(ch)   # noqa: E731
        return text, [(a, b) for a, b, k in _runs(text, key) if k != " " or self.keep_whitespace]


class RegexTokenizer(_Tokenizer):
    """Splits at the matches of `delim_pattern`; a delimiter that `keep_delim_pattern` matches
    entirely is kept as a token."""
    _name = "RegexTokenizerOp"

    def __init__(self, delim_pattern, keep_delim_pattern="", with_offsets=False):
        super().__init__(with_offsets)
        for name, value in (("delim_pattern", delim_pattern), ("keep_delim_pattern", keep_delim_pattern)):
            if not isinstance(value, str):
                raise TypeError(f"Argument {name} with value {value} is not of type [<class 'str'>], "
                                f"but got {type(value)}.")
        self.delim_pattern, self.keep_delim_pattern = delim_pattern, keep_delim_pattern
        self._delim = re.compile(delim_pattern)
        self._keep = re.compile(keep_delim_pattern) if keep_delim_pattern else None

    def _spans(self, text):
        spans, pos = [], 0
        for match in self._delim.finditer(text):
            a, b = match.span()
            if a > pos:
                spans.append((pos, a))
            if b > a and self._keep is not None and self._keep.fullmatch(match.group()):
                spans.append((a, b))
            pos = b
        if pos < len(text):
            spans.append((pos, len(text)))
        return text, [(a, b) for a, b in spans if b > a]


_PRESERVED = re.compile(r"\[CLS\]|\[SEP\]|\[UNK\]|\[PAD\]|\[MASK\]|\[unused\d+\]")


def _check_form(form) -> NormalizeForm:
    if not isinstance(form, NormalizeForm):
        raise TypeError(f"Argument normalization_form with value {form} is not of type [<enum 'NormalizeForm'>], "
                        f"but got {type(form)}.")
    return form


class BasicTokenizer(_Tokenizer):
    """BERT's basic tokenization: control characters become spaces, then the text splits on
    whitespace, around every punctuation mark and every CJK ideograph. `lower_case` first applies
    NFKC_Casefold and removes accents (NFD, then the Mn marks); otherwise `normalization_form`
    (if not NONE) normalizes. `preserve_unused_token` keeps [CLS], [SEP], [UNK], [PAD], [MASK]
    and [unusedN] whole.

    2.10 garbles the output of lower_case=True with a preserved token in the text (it repeats
    the lower-cased text before each preserved token, measured); this gives the tokens of the
    text with the preserved tokens kept, the other parts lower-cased."""
    _name = "BasicTokenizer"

    def __init__(self, lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False):
        super().__init__(with_offsets)
        self.lower_case, self.keep_whitespace = bool(lower_case), bool(keep_whitespace)
        self.normalization_form = _check_form(normalization_form)
        self.preserve_unused_token = bool(preserve_unused_token)

    def _input(self, text) -> str:
        array = np.asarray(text)
        if array.ndim != 0:
            raise RuntimeError("BasicTokenizer: the input should be a scalar, but got a tensor with rank: "
                               f"{array.ndim}")
        if array.dtype.kind != "U":
            raise RuntimeError("BasicTokenizer: the input should be a string tensor.")
        return str(array)

    def _normalize(self, text: str) -> str:
        if self.lower_case:
            text = unicodedata.normalize("NFD", uc.nfkc_casefold(text))
            text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
        elif self.normalization_form is not NormalizeForm.NONE:
            text = unicodedata.normalize(self.normalization_form.name, text)
        return "".join(" " if uc.is_control(ch) else ch for ch in text)

    def _spans(self, text):
        pieces, pos = [], 0     # (text, preserved?) with the preserved tokens left as they are
        if self.preserve_unused_token:
            for match in _PRESERVED.finditer(text):
                pieces += [(self._normalize(text[pos:match.start()]), False), (match.group(), True)]
                pos = match.end()
        pieces.append((self._normalize(text[pos:]), False))
        spans, start = [], 0
        for piece, preserved in pieces:
            if preserved:
                spans.append((start, start + len(piece)))
            else:
                spans += [(start + a, start + b) for a, b in self._split(piece)]
            start += len(piece)
        return "".join(p for p, _ in pieces), spans

    def _split(self, text: str) -> list[tuple[int, int]]:
        spans, word = [], None
        i = 0
        while i < len(text):
            ch = text[i]
            if ch in uc.WHITESPACE or uc.is_punctuation(ch) or uc.is_cjk(ch):
                if word is not None:
                    spans.append((word, i))
                    word = None
                if ch in uc.WHITESPACE:
                    j = i
                    while j < len(text) and text[j] in uc.WHITESPACE:
                        j += 1
                    if self.keep_whitespace:
                        spans.append((i, j))
                    i = j
                    continue
                spans.append((i, i + 1))
            elif word is None:
                word = i
            i += 1
        if word is not None:
            spans.append((word, len(text)))
        return spans


def _check_vocab(vocab):
    if not isinstance(vocab, Vocab):
        raise TypeError(f"Argument vocab is not an instance of text.Vocab. with value {vocab} is not of type "
                        f"[<class 'graphcell.dataset.text.utils.Vocab'>], but got {type(vocab)}.")
    return vocab


class _Wordpiece:
    """Greedy longest-match-first split of words into vocabulary pieces (BERT's WordPiece)."""

    def __init__(self, vocab, suffix_indicator, max_bytes_per_token, unknown_token):
        self.vocab = _check_vocab(vocab)
        for name, value in (("suffix_indicator", suffix_indicator), ("unknown_token", unknown_token)):
            if not isinstance(value, str):
                raise TypeError(f"Argument {name} with value {value} is not of type [<class 'str'>], "
                                f"but got {type(value)}.")
        if isinstance(max_bytes_per_token, bool) or not isinstance(max_bytes_per_token, int) \
                or not 0 <= max_bytes_per_token <= 2147483647:
            raise ValueError("Input max_bytes_per_token is not within the required interval of [0, 2147483647].")
        self.suffix_indicator, self.max_bytes_per_token = suffix_indicator, max_bytes_per_token
        self.unknown_token = unknown_token
        self._words = vocab.vocab()

    def pieces(self, word: str) -> list[tuple[str, int, int]]:
        """(piece, byte start, byte end within the word); an unsplittable word is unknown_token
        (the word itself when unknown_token is '')."""
        if not word:
            return []
        byte = uc.utf8_offsets(word)
        unknown = [(self.unknown_token or word, 0, int(byte[-1]))]
        if byte[-1] > self.max_bytes_per_token:
            return unknown
        out, start = [], 0
        while start < len(word):
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else self.suffix_indicator + word[start:end]
                if piece in self._words:
                    out.append((piece, int(byte[start]), int(byte[end])))
                    start = end
                    break
            else:
                return unknown
        return out


class WordpieceTokenizer:
    """Splits each word of a 1-D str array (or a str scalar) into vocabulary pieces, greedily
    longest first, continuation pieces prefixed by `suffix_indicator`; a word that cannot be
    split (or is longer than max_bytes_per_token bytes) becomes `unknown_token`. Offsets are the
    byte positions within each word.

    2.10's offsets of a word that fails after some pieces also hold those pieces' offsets (more
    offsets than tokens), and a too-long word's end offset is len(unknown_token) (measured);
    here each token has the one offset pair of its word part."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]",
                 with_offsets=False):
        self._wordpiece = _Wordpiece(vocab, suffix_indicator, max_bytes_per_token, unknown_token)
        self.with_offsets = bool(with_offsets)

    def __call__(self, words):
        array = np.asarray(words)
        if array.dtype.kind != "U" or array.ndim > 1:
            raise RuntimeError("WordpieceTokenizer: The input shape should be 1D scalar the input datatype should "
                               "be string.")
        found = [p for w in array.ravel() for p in self._wordpiece.pieces(str(w))]
        return uc.token_result([p for p, _, _ in found], [a for _, a, _ in found], [b for _, _, b in found],
                               self.with_offsets)


class BertTokenizer:
    """BasicTokenizer, then WordpieceTokenizer on every token (offsets: the basic token's start
    plus the piece's offset, in the BasicTokenizer's processed text)."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]",
                 lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False):
        self._wordpiece = _Wordpiece(vocab, suffix_indicator, max_bytes_per_token, unknown_token)
        self._basic = BasicTokenizer(lower_case, keep_whitespace, normalization_form, preserve_unused_token,
                                     with_offsets=True)
        self.with_offsets = bool(with_offsets)

    def __call__(self, text):
        words, starts, _ = self._basic(text)
        found = [(p, int(s) + a, int(s) + b) for w, s in zip(words, starts) for p, a, b in
                 self._wordpiece.pieces(str(w))]
        return uc.token_result([p for p, _, _ in found], [a for _, a, _ in found], [b for _, _, b in found],
                               self.with_offsets)


class PythonTokenizer:
    """A user function str -> list of str tokens, on a str scalar (or on every string of an array,
    stacked)."""

    def __init__(self, tokenizer):
        if not callable(tokenizer):
            raise TypeError("tokenizer is not a callable Python function.")
        self.tokenizer = tokenizer

    def __call__(self, text):
        if not isinstance(text, np.ndarray):
            raise TypeError(f"input should be a NumPy array. Got {type(text)}.")
        if text.dtype.kind == "S":
            text = np.char.decode(text, "utf-8")
        if text.ndim == 0:
            return np.array(self.tokenizer(text[()]), dtype=str)
        return np.array([self.tokenizer(s) for s in text], dtype=str)


class JiebaTokenizer:
    """Needs the `jieba` package, which graphcell does not depend on."""

    def __init__(self, hmm_path, mp_path, mode=None, with_offsets=False):
        raise NotImplementedError("JiebaTokenizer: graphcell does not implement Jieba segmentation (MindSpore runs "
                                  "cppjieba on its HMM and MP dictionaries); tokenize Chinese text with the `jieba` "
                                  "package in a PythonTokenizer: PythonTokenizer(lambda s: list(jieba.cut(str(s)))).")
