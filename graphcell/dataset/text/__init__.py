"""mindspore.dataset.text: text transforms for `map` (NLP pipelines), on numpy str arrays.

    vocab = text.Vocab.from_file("vocab.txt", special_tokens=["<pad>", "<unk>"])
    ds = ds.map(text.WhitespaceTokenizer(), input_columns="text")
    ds = ds.map(text.Lookup(vocab, "<unk>"), input_columns="text")

As in 2.10, the classes live in .transforms (the tokenizers in .tokenizers, re-exported there)
and Vocab, the enums, to_str and to_bytes in .utils. Not provided: JiebaTokenizer (raises, it
needs jieba's dictionaries), SentencePiece and FilterWikipediaXML, and the pretrained FastText,
GloVe and CharNGram loaders (Vectors.from_file reads any word-vector text file).
"""
from . import transforms, utils  # noqa: F401 - mindspore.dataset.text.transforms / .utils
from .transforms import (AddToken, BasicTokenizer, BertTokenizer, CaseFold, JiebaTokenizer, Lookup, Ngram,  # noqa: F401
                         NormalizeUTF8, PythonTokenizer, RegexReplace, RegexTokenizer, SlidingWindow, ToNumber,
                         Truncate, TruncateSequencePair, UnicodeCharTokenizer, UnicodeScriptTokenizer,
                         WhitespaceTokenizer, WordpieceTokenizer)
from .utils import JiebaMode, NormalizeForm, Vocab, to_bytes, to_str  # noqa: F401
from .vectors import ToVectors, Vectors  # noqa: F401
