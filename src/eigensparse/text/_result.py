"""The topic pipeline's result: the multi-component result on all words
(:class:`eigensparse.SparsePCAResult`) with the words and the pipeline's record."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .._result import SparsePCAResult, _fmt, write_json

__all__ = ["Topic", "TopicsResult", "write_json", "topics_table"]


def topics_table(res, *, corpus=None, n_docs=None, n_words=None, scaling=None,
                 max_words: int | None = None, legend: bool = True, ascii: bool = False) -> str:
    """The topics table of any multi-component result ``res`` (a
    :class:`~eigensparse.SparsePCAResult` on words): signed words by |loading|, the
    corpus in the title, the footer and the legend of
    :func:`eigensparse.text._format.format_topics`, with the support stability row
    (``stability=B``) and the choices of ``cardinality="auto"`` when the result has them."""
    from ._format import format_topics

    topics = []
    for j in range(res.components.shape[0]):
        ids = res.ordered_support(j)
        topics.append({"rank": j + 1, "words": [res.feature_label(i) for i in ids],
                       "loadings": res.components[j, ids], "variance": float(res.variances[j]),
                       "explained_variance_ratio": float(res.explained_variance_ratio[j]),
                       "penalty": res.penalty_of(j),
                       "stability": None if res.stability is None else float(res.stability.stability[j])})
    text = format_topics(topics, corpus=corpus, n_docs=n_docs, n_words=n_words, scaling=scaling,
                         method=res.method, max_words=max_words, legend=legend, ascii=ascii)
    if res.cardinality_choices:
        text += "\n\n" + "\n".join([f"cardinality ({res.info.get('cardinality_rule')} rule):"]
                                   + ["  " + line for line in res.choice_lines()])
    return text


@dataclass(frozen=True)
class Topic:
    """A read-only view of one component (:class:`eigensparse.ComponentResult`) of a
    :class:`TopicsResult` as a topic.

    ``words``, ``word_ids`` (0-based columns of the corpus) and ``loadings`` are ordered
    by decreasing |loading|. ``variance`` is xᵀΣx on the (undeflated) covariance,
    ``explained_variance`` the adjusted variance (beyond the earlier topics), and
    ``explained_variance_ratio`` that over the total variance Tr Σ of all words.
    ``penalty`` is the ρ of a penalized method (None otherwise); ``working_set_safe`` is
    True when ρ >= the largest variance left out of the working set (safe elimination
    proves no other word can enter), None when the method has no penalty (a heuristic
    check was used), False when the working set could not be made large enough.

    Examples
    --------
    >>> from eigensparse.datasets import load_kos
    >>> from eigensparse.text import extract_topics
    >>> kos = load_kos()
    >>> res = extract_topics(kos.data, kos.feature_names, n_topics=2, cardinality=3, progress=False)
    >>> topic = res.topics[0]
    >>> topic.rank, len(topic.words), len(topic.word_ids), topic.penalty is None
    (1, 3, 3, True)
    """

    rank: int
    words: list
    word_ids: np.ndarray
    loadings: np.ndarray
    variance: float
    explained_variance: float
    explained_variance_ratio: float
    penalty: float | None
    working_set_safe: bool | None
    seconds: float
    method: str
    info: dict = field(default_factory=dict)
    #: the component this topic reads (:class:`eigensparse.ComponentResult`): its
    #: ``upper_bound`` and ``gap`` when the solver gives them
    result: Any = field(default=None, repr=False, compare=False)

    @property
    def cardinality(self) -> int:
        return int(len(self.word_ids))

    @property
    def upper_bound(self):
        """The solver's upper bound on the topic's problem (None when it gives none)."""
        return getattr(self.result, "upper_bound", None)

    @property
    def gap(self):
        """The solver's gap (None when it gives none)."""
        return getattr(self.result, "gap", None)


@dataclass(frozen=True, kw_only=True, repr=False)  # the short repr of SparsePCAResult
class TopicsResult(SparsePCAResult):
    """What :func:`~eigensparse.text.extract_topics` found, and how.

    The :class:`~eigensparse.SparsePCAResult` fields hold the components on all
    ``n_words`` words (``feature_names``: the vocabulary); the per-component solver
    results carry ``working_set_safe`` and ``seconds`` in their ``info``.

    Attributes
    ----------
    topics : list of Topic
        Each component read as a topic (a view).
    name : str
        The corpus (file name).
    n_docs, n_words, nnz : int
    scaling : str
    center : bool
    word_mean, word_variance : ndarray of shape (n_words,)
        Exact per-word statistics from pass 1 (after scaling).
    word_df : ndarray of int, shape (n_words,)
        Documents containing each word (pass 1).
    pruning : dict
        The vocabulary pruning: its options, the words kept and what each rule removed.
    device : str or None
        The device the solve ran on (``device=``), else None.
    working_set : ndarray of int
        Sorted word ids of the final working set (the covariance is built on these).
    working_set_sizes : list of int
        Every working-set size used (more than one when a re-read enlarged it).
    threshold : float
        Largest variance among the words left out of the final working set (0 when none
        with positive variance was left out): a penalty ρ >= threshold is safe.
    covariance : ndarray (m × m)
        Covariance of the working set (undeflated).
    timings : dict
        Seconds per phase, in order (``"total"`` last).
    passes : list of dict
        One entry per pass over the data: name, source ("text", "cache", "memory"),
        seconds, nnz.
    rereads : list of str
        Why the data had to be read again (empty when the first working set sufficed).
    cache : dict
        Cache status and directory.

    Examples
    --------
    >>> from eigensparse.datasets import load_kos
    >>> from eigensparse.text import extract_topics
    >>> kos = load_kos()
    >>> res = extract_topics(kos.data, kos.feature_names, n_topics=2, cardinality=3, progress=False)
    >>> [t.cardinality for t in res.topics], res.n_docs, res.scaling
    ([3, 3], 3430, 'tfidf')
    >>> len(set(res.topics[0].words) & set(res.topics[1].words))  # distinct topics
    0
    """

    name: str
    n_docs: int
    n_words: int
    nnz: int
    scaling: str
    center: bool
    word_mean: np.ndarray
    word_variance: np.ndarray
    working_set: np.ndarray
    working_set_sizes: list
    threshold: float
    covariance: np.ndarray
    timings: dict
    passes: list
    rereads: list
    cache: dict
    messages: list = field(default_factory=list)
    vocabulary: list | None = None
    pruning: dict = field(default_factory=dict)
    device: str | None = None
    word_df: np.ndarray | None = None

    feature_unit = "words"

    def feature_label(self, i: int) -> str:
        return str(self.feature_names[i]) if self.feature_names is not None else f"word{i + 1}"

    @property
    def cardinality(self) -> Any:
        """The words per topic asked for (one int, or one per topic; None: a penalty)."""
        cards = self.info.get("cardinalities", [])
        return cards[0] if len(set(cards)) == 1 else cards

    @cached_property
    def topics(self) -> list:
        out = []
        for j in range(self.components.shape[0]):
            ids = self.ordered_support(j)
            r = self.results[j]
            rinfo = r.info if isinstance(r.info, dict) else {}
            info = {k: v for k, v in rinfo.items()
                    if isinstance(v, (int, float, str, bool, type(None)))}
            info.update({"n_iter": r.n_iter, "converged": r.converged})
            out.append(Topic(
                rank=j + 1, words=[self.feature_label(i) for i in ids], word_ids=ids,
                loadings=self.components[j, ids], variance=float(self.variances[j]),
                explained_variance=float(self.explained_variance[j]),
                explained_variance_ratio=float(self.explained_variance_ratio[j]),
                penalty=self.penalty_of(j), working_set_safe=rinfo.get("working_set_safe"),
                seconds=float(rinfo.get("seconds", 0.0)), method=self.method, info=info,
                result=r))
        return out

    def solve_seconds(self) -> list[float]:
        return [t.seconds for t in self.topics]

    def component_dict(self, j: int) -> dict:
        """The schema's component entry, with the topic's words (``words``/``word_ids``
        repeat ``features``/``feature_ids``), working-set safety and seconds."""
        d = super().component_dict(j)
        t = self.topics[j]
        d.update(words=d["features"], word_ids=d["feature_ids"],
                 working_set_safe=t.working_set_safe, seconds=float(t.seconds), method=self.method)
        return d

    def to_dict(self) -> dict:
        """The one JSON schema plus the corpus and the pipeline's record (no per-word
        arrays, no covariance)."""
        d = super().to_dict()
        d.update({
            "corpus": self.name, "n_docs": self.n_docs, "n_words": self.n_words, "nnz": self.nnz,
            "scaling": self.scaling, "center": self.center, "cardinality": self.cardinality,
            "working_set_size": int(self.working_set.size),
            "working_set_sizes": [int(m) for m in self.working_set_sizes],
            "elimination_threshold": float(self.threshold),
            "timings": {k: float(v) for k, v in self.timings.items()},
            "passes": self.passes,
            "rereads": list(self.rereads),
            "cache": self.cache,
            "messages": list(self.messages),
            "pruning": self.pruning,
            "device": self.device,
        })
        return d

    def format_table(self, max_words: int | None = None, unit: str | None = None, *,
                     legend: bool = True, ascii: bool = False) -> str:
        """The topics table (:func:`topics_table`): signed words, the corpus name and
        size in the title, the footer and its legend. ``unit`` is accepted for the
        shared printer's signature (the topics table always says words)."""
        return topics_table(self, corpus=self.name, n_docs=self.n_docs, n_words=self.n_words,
                            scaling=self.scaling + ("" if self.center else ", uncentered"),
                            max_words=max_words, legend=legend, ascii=ascii)

    def phase_table(self) -> str:
        """Seconds per phase (and per topic), as printed by the benchmark and ``-v``."""
        rows = [(k, v) for k, v in self.timings.items()]
        w = max(len(k) for k, _ in rows) if rows else 10
        out = [f"{'phase'.ljust(w)}  seconds"]
        for k, v in rows:
            out.append(f"{k.ljust(w)}  {v:8.3f}")
        for p in self.passes:
            out.append(f"  pass {p['name']!r} read {p['nnz']} nonzeros from {p['source']} "
                       f"in {p['seconds']:.3f} s")
        out.append(f"  working set: {int(self.working_set.size)} of {self.n_words} words "
                   f"(sizes used: {self.working_set_sizes}); elimination threshold "
                   f"{_fmt(self.threshold)}")
        for r in self.rereads:
            out.append(f"  re-read: {r}")
        return "\n".join(out)

    def __str__(self) -> str:
        return (f"{self.name}: {self.n_docs} documents x {self.n_words} words, "
                f"{len(self.topics)} topics ({self.method})\n" + self.format_table())
