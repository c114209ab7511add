"""Vocabulary pruning as scikit-learn's vectorizers mean it.

``min_df`` / ``max_df`` (document-frequency bounds, an ``int`` is a count of documents,
a ``float`` in [0, 1] a proportion of them) and ``stop_words`` (``"english"`` for
scikit-learn's ``ENGLISH_STOP_WORDS``, or any collection of words) have the meaning of
:class:`sklearn.feature_extraction.text.CountVectorizer`; ``max_features`` keeps the
words of largest total count among those left, as there. Everything is computed from
pass-1 statistics (per-word document frequencies and, for ``max_features``, total
counts), so pruning costs no pass over the data: the pipeline ANDs the returned mask
into the words eligible for the working set.
"""
from __future__ import annotations

import numbers
from collections.abc import Iterable
from numbers import Integral, Real

import numpy as np

from .._validation import Interval, InvalidParameterError, validate_params

__all__ = ["VocabularyPruning", "prune_vocabulary", "pruning_limits", "keep_words", "stop_word_set"]


def _english_stop_words() -> frozenset:
    """scikit-learn's ``ENGLISH_STOP_WORDS``, read from its module file without importing
    the ``sklearn`` package (whose import loads pandas and scipy.stats) unless it is
    loaded already or its file is not where the package is."""
    import importlib.util
    import pathlib
    import sys

    if "sklearn" not in sys.modules:
        spec = importlib.util.find_spec("sklearn")  # finds the package, imports nothing
        path = pathlib.Path(spec.origin).parent / "feature_extraction" / "_stop_words.py"
        if path.is_file():
            words = importlib.util.spec_from_file_location("_sklearn_stop_words", path)
            module = importlib.util.module_from_spec(words)
            words.loader.exec_module(module)
            return frozenset(module.ENGLISH_STOP_WORDS)
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def stop_word_set(stop_words) -> frozenset:
    """The stop words meant by ``stop_words``: None → empty, ``"english"`` →
    scikit-learn's ``ENGLISH_STOP_WORDS``, a collection of str → those words."""
    if stop_words is None:
        return frozenset()
    if isinstance(stop_words, str):
        if stop_words != "english":
            raise InvalidParameterError(
                "parameter 'stop_words' must be None, 'english' or a collection of words; "
                f"got {stop_words!r}.")
        return _english_stop_words()
    if not isinstance(stop_words, Iterable):
        raise InvalidParameterError(
            "parameter 'stop_words' must be None, 'english' or a collection of words; "
            f"got {stop_words!r}.")
    words = list(stop_words)
    bad = [w for w in words if not isinstance(w, str)]
    if bad:
        raise InvalidParameterError(
            f"parameter 'stop_words' must hold strings; got {bad[0]!r} ({type(bad[0]).__name__}).")
    return frozenset(words)


#: a df bound: an int is a number of documents, a float in [0, 1] a proportion (sklearn)
_DF_BOUND = [Interval(Integral, 0, None, closed="left"), Interval(Real, 0.0, 1.0, closed="both")]


def _doc_count(value, n_docs: int) -> float:
    """A checked df bound as a number of documents (Integral → count, Real → proportion)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return float(value)
    return float(value) * n_docs


#: the constraints of the pruning options (declared here, checked by the front door:
#: :func:`prune_vocabulary`, or ``extract_topics``' :class:`~eigensparse.text.TopicConfig`)
PRUNING_CONSTRAINTS = {"min_df": _DF_BOUND, "max_df": _DF_BOUND,
                       "max_features": [None, Interval(Integral, 1, None, closed="left")]}


def pruning_limits(n_docs: int, *, min_df=1, max_df=1.0, stop_words=None,
                   max_features: int | None = None) -> tuple:
    """``(min_doc_count, max_doc_count, stop_words)`` for options that satisfy
    :data:`PRUNING_CONSTRAINTS`: the df bounds in documents (an error when they cross for
    these ``n_docs``) and the stop words as a set (what :func:`keep_words` takes)."""
    lo, hi = _doc_count(min_df, n_docs), _doc_count(max_df, n_docs)
    if hi < lo:
        raise InvalidParameterError(
            f"prune_vocabulary: max_df={max_df!r} corresponds to {hi:g} documents, fewer than "
            f"min_df={min_df!r} ({lo:g} documents).")
    return lo, hi, stop_word_set(stop_words)


class VocabularyPruning:
    """What a pruning kept, with the counts of what each rule removed.

    Attributes
    ----------
    keep : ndarray of bool, shape (n_words,)
        True for the words that stay eligible.
    removed : dict
        ``{"min_df": int, "max_df": int, "stop_words": int, "max_features": int}``, the
        words each rule removed (a word is counted under the first rule removing it, in
        that order).
    min_doc_count, max_doc_count : float
        The bounds in documents.
    """

    def __init__(self, keep, removed, min_doc_count, max_doc_count):
        self.keep = keep
        self.removed = removed
        self.min_doc_count = min_doc_count
        self.max_doc_count = max_doc_count

    @property
    def n_kept(self) -> int:
        return int(np.count_nonzero(self.keep))

    def describe(self) -> str:
        """One line for logs: ``kept 9,812 of 12,000 words (min_df: 2,100, …)``."""
        parts = ", ".join(f"{k}: {v:,}" for k, v in self.removed.items() if v)
        return (f"kept {self.n_kept:,} of {self.keep.size:,} words"
                + (f" (removed by {parts})" if parts else ""))


@validate_params({"n_docs": [Interval(Integral, 1, None, closed="left")],
                  **PRUNING_CONSTRAINTS})
def prune_vocabulary(df, n_docs: int, *, min_df=1, max_df=1.0, stop_words=None, words=None,
                     max_features: int | None = None, counts=None) -> VocabularyPruning:
    """Boolean keep-mask over the vocabulary from document frequencies.

    Parameters
    ----------
    df : array-like of int, shape (n_words,)
        Documents containing each word (pass 1's ``df``).
    n_docs : int
        Documents in the corpus.
    min_df : int or float, default=1
        Drop words in fewer documents than this: an int is a count, a float in
        [0.0, 1.0] a proportion of ``n_docs`` (scikit-learn's convention).
    max_df : int or float, default=1.0
        Drop words in more documents than this (same convention). The defaults keep
        every word.
    stop_words : None, "english" or collection of str
        Words to drop: ``"english"`` is scikit-learn's ``ENGLISH_STOP_WORDS`` (needs
        ``words``).
    words : sequence of str, shape (n_words,), optional
        The vocabulary (needed only for ``stop_words``).
    max_features : int, optional
        Keep at most this many words, those of largest ``counts`` (ties: lower id).
    counts : array-like, shape (n_words,), optional
        Total count (or any score) per word, needed for ``max_features``.

    Returns
    -------
    VocabularyPruning
        ``keep`` (bool mask of shape (n_words,)) and what each rule removed.

    Raises
    ------
    InvalidParameterError
        A bound of the wrong type or range, ``max_df`` meaning fewer documents than
        ``min_df``, stop words without a vocabulary, or arrays of the wrong shape.
    """
    df = np.asarray(df)
    if df.ndim != 1 or (df.size and (not np.issubdtype(df.dtype, np.number) or df.min() < 0)):
        raise InvalidParameterError("parameter 'df' must be a 1-d array of non-negative document "
                                    f"frequencies; got shape {df.shape}, dtype {df.dtype}.")
    limits = pruning_limits(n_docs, min_df=min_df, max_df=max_df, stop_words=stop_words,
                            max_features=max_features)
    return keep_words(df, limits, words=words, max_features=max_features, counts=counts)


def keep_words(df, limits: tuple, *, words=None, max_features: int | None = None,
               counts=None) -> VocabularyPruning:
    """:func:`prune_vocabulary` for checked options: ``limits`` from
    :func:`pruning_limits`, ``df`` a 1-d array of document frequencies."""
    lo, hi, stops = limits
    removed = {"min_df": 0, "max_df": 0, "stop_words": 0, "max_features": 0}
    keep = df >= lo
    removed["min_df"] = int(df.size - np.count_nonzero(keep))
    high = keep & (df > hi)
    removed["max_df"] = int(np.count_nonzero(high))
    keep &= ~high
    if stops:
        if words is None or len(words) != df.size:
            raise InvalidParameterError(
                "parameter 'words' must be the vocabulary (one word per entry of df, "
                f"{df.size}) when stop_words is given; got "
                f"{'None' if words is None else f'{len(words)} words'}.")
        is_stop = np.fromiter((w in stops for w in words), dtype=bool, count=df.size)
        removed["stop_words"] = int(np.count_nonzero(keep & is_stop))
        keep &= ~is_stop
    if max_features is not None and np.count_nonzero(keep) > max_features:
        if counts is None or np.shape(counts) != df.shape:
            raise InvalidParameterError(
                f"parameter 'counts' must have shape {df.shape} when max_features is given.")
        score = np.where(keep, np.asarray(counts, dtype=float), -np.inf)
        top = np.argsort(-score, kind="stable")[:max_features]
        new = np.zeros_like(keep)
        new[top] = True
        removed["max_features"] = int(np.count_nonzero(keep) - max_features)
        keep = new
    return VocabularyPruning(keep, removed, lo, hi)
