"""Unicode helpers of the text transforms: the input checks, UTF-8 byte offsets, and the
character classes MindSpore 2.10 takes from ICU (White_Space, NFKC_Casefold, scripts), built
here from Python's `unicodedata` (Unicode 14, as 2.10's ICU gives on the cases measured)."""
from __future__ import annotations

import unicodedata

import numpy as np

# ICU's White_Space property (u_isUWhiteSpace), which 2.10's tokenizers split on.
WHITESPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                       "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")

# Default_Ignorable_Code_Point (DerivedCoreProperties), which NFKC_Casefold removes.
_IGNORABLE_RANGES = ((0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))


def is_ignorable(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE_RANGES)


def nfkc_casefold(text: str) -> str:
    """ICU's NFKC_Casefold (what 2.10's CaseFold applies): compatibility forms folded ("ﬁ" -> "fi",
    "①" -> "1", "Ａ" -> "a"), case folded ("ß" -> "ss"), default-ignorable characters removed."""
    text = "".join(ch for ch in text if not is_ignorable(ch))
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def is_control(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Cf")


def is_punctuation(ch: str) -> bool:
    """BERT's punctuation: every ASCII non-alphanumeric symbol ($, +, ^...), and Unicode's P* classes."""
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(ch: str) -> bool:
    """The CJK Unified Ideographs blocks BERT splits into single characters (kana and hangul are not)."""
    cp = ord(ch)
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF
            or 0x2F800 <= cp <= 0x2FA1F)


_SCRIPT_PREFIXES = {"CJK": "Han", "IDEOGRAPHIC": "Han", "FULLWIDTH": None, "HALFWIDTH": None}


def script(ch: str) -> str:
    """An approximation of ICU's script property from the character's Unicode name: letters and
    script-specific marks and digits take the name's first word (LATIN, GREEK, CJK -> Han...),
    combining marks are "Inherited", the rest (digits, punctuation, symbols, spaces) "Common"."""
    cat = unicodedata.category(ch)
    name = unicodedata.name(ch, "")
    words = name.split()
    if not words:
        return "Common"
    if cat == "Mn" and words[0] == "COMBINING":
        return "Inherited"
    first = words[0]
    if first in _SCRIPT_PREFIXES:
        mapped = _SCRIPT_PREFIXES[first]
        if mapped is None:              # FULLWIDTH LATIN CAPITAL LETTER A: Latin; FULLWIDTH COMMA: Common
            return words[1] if cat[0] in "LM" and len(words) > 1 else "Common"
        return mapped
    if cat[0] in "LM" or (cat == "Nd" and first not in ("DIGIT", "MATHEMATICAL", "FULLWIDTH")):
        if first in ("MODIFIER", "SUPERSCRIPT", "SUBSCRIPT", "KATAKANA-HIRAGANA"):   # shared by scripts
            return "Common"
        return first.split("-")[0]       # ARABIC-INDIC DIGIT: Arabic
    return "Common"


def utf8_offsets(text: str) -> np.ndarray:
    """offsets[i]: the UTF-8 byte position of character i of `text` (offsets[len] the byte length);
    MindSpore's token offsets are byte positions."""
    out = np.zeros(len(text) + 1, np.int64)
    if text:
        np.cumsum([len(ch.encode("utf-8")) for ch in text], out=out[1:])
    return out


def string_array(value, message: str) -> np.ndarray:
    """`value` as a numpy str array; anything else (bytes, numbers) is 2.10's RuntimeError `message`."""
    array = np.asarray(value)
    if array.dtype.kind != "U":
        raise RuntimeError(message)
    return array


def string_scalar(value, message: str) -> str:
    array = np.asarray(value)
    if array.dtype.kind != "U" or array.ndim != 0:
        raise RuntimeError(message)
    return str(array)


def map_strings(array: np.ndarray, fn) -> np.ndarray:
    """fn on every string of `array`, keeping the shape (the dtype is the longest result's)."""
    out = [fn(str(s)) for s in array.ravel()]
    return np.array(out, dtype=str).reshape(array.shape) if out else array.copy()


def token_result(tokens: list, starts: list, ends: list, with_offsets: bool):
    """A tokenizer's output: a 1-D str array ([''] when there is no token, as 2.10), and with
    offsets the uint32 byte start and end of every token."""
    if not tokens:
        tokens, starts, ends = [""], [0], [0]
    words = np.array(tokens, dtype=str)
    if not with_offsets:
        return words
    return words, np.array(starts, np.uint32), np.array(ends, np.uint32)
