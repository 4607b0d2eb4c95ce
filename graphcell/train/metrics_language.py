"""Language-model metrics: `Perplexity` and `BleuScore`, with MindSpore 2.10's measured semantics."""
from __future__ import annotations

from collections import Counter

import numpy as np

from .metrics import Metric, _check_type, _update_first, rearrange_inputs

__all__ = ["Perplexity", "BleuScore"]


class Perplexity(Metric):
    """exp(mean over samples of -log p(label)): y_pred [..., C] probabilities, label the class
    indices of shape y_pred.shape[:-1]; samples whose label is `ignore_label` are skipped.
    Probabilities are clipped below at 1e-10, as MindSpore's."""

    def __init__(self, ignore_label=None):
        super().__init__()
        self.ignore_label = ignore_label if ignore_label is None else _check_type("ignore_label", ignore_label,
                                                                                   int, "int")
        self.clear()

    def clear(self):
        self._sum_metric, self._num_inst = 0.0, 0

    @rearrange_inputs
    def update(self, *inputs):
        self._check_inputs(inputs, 2, "predicted value, label")
        preds, labels = self._convert_data(inputs[0]), self._convert_data(inputs[1])
        if preds.ndim < 1 or labels.shape != preds.shape[:-1]:
            raise RuntimeError("For 'Perplexity.update', the label (input[1]) must have the shape of the predicted "
                               "value (input[0]) without its last (class) axis, but got predicted value shape "
                               f"{preds.shape}, label shape {labels.shape}.")
        preds, labels = preds.reshape(-1, preds.shape[-1]), labels.reshape(-1).astype(np.int64)
        if self.ignore_label is not None:
            keep = labels != self.ignore_label
            preds, labels = preds[keep], labels[keep]
        probs = np.maximum(preds[np.arange(labels.size), labels].astype(np.float64), 1e-10)
        self._sum_metric -= float(np.log(probs).sum())
        self._num_inst += labels.size

    def eval(self):
        if self._num_inst == 0:
            raise RuntimeError("The 'Perplexity' can not be calculated, because the number of samples is 0, please "
                               "check whether the update method has been called before calling eval method.")
        return float(np.exp(self._sum_metric / self._num_inst))


def _ngram_counts(tokens, n: int) -> Counter:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


class BleuScore(Metric):
    """Corpus BLEU over every update: clipped n-gram precisions for n = 1..n_gram (with
    `smooth`, (matches + 1) / (n-grams + 1) for every n), their geometric mean, times the
    brevity penalty exp(1 - r / c) when the candidates' length c is at most r, the sum of each
    candidate's closest reference length (the first one on a tie). A corpus with no match for
    some n scores 0 (a 0-d array, as MindSpore returns)."""

    def __init__(self, n_gram=4, smooth=False):
        super().__init__()
        self.n_gram = _check_type("n_gram", n_gram, int, "int")
        if not 1 <= n_gram <= 4:
            raise ValueError(f"For 'BleuScore', the argument 'n_gram' should range from 1 to 4, but got {n_gram}.")
        self.smooth = _check_type("smooth", smooth, bool, "bool")
        self.clear()

    def clear(self):
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._candidate_len = self._reference_len = 0.0
        self._is_update = False

    def update(self, *inputs):
        self._check_inputs(inputs, 2, "candidate_corpus, reference_corpus")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError("For 'BleuScore.update', 'translate_corpus' (inputs[0]) and 'reference_corpus' "
                             f"(inputs[1]) should be equal in length, but got {len(candidates)}, {len(references)}")
        for candidate, refs in zip(candidates, references):
            self._candidate_len += len(candidate)
            self._reference_len += min((len(r) for r in refs), key=lambda n: abs(len(candidate) - n))
            for n in range(1, self.n_gram + 1):
                counts, most_in_a_reference = _ngram_counts(candidate, n), Counter()
                for ref in refs:
                    most_in_a_reference |= _ngram_counts(ref, n)
                self._numerator[n - 1] += sum((counts & most_in_a_reference).values())
                self._denominator[n - 1] += sum(counts.values())
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise _update_first()
        if self._numerator.min() == 0.0:
            return np.array(0.0)
        if self.smooth:
            precision = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precision = self._numerator / self._denominator
        brevity = 1.0 if self._candidate_len > self._reference_len else \
            np.exp(1.0 - self._reference_len / self._candidate_len)
        return np.float64(brevity * np.exp(np.log(precision).sum() / self.n_gram))
