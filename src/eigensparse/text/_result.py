"""The topic pipeline's result: the multi-component result on all words
(:class:`eigensparse.SparsePCAResult`) with the words and the pipeline's record."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from .._result import SparsePCAResult, write_json
from .._summary import _fmt

__all__ = ["Topic", "TopicsResult", "write_json", "topics_table"]


def topics_table(res, *, corpus=None, n_docs=None, n_words=None, scaling=None,
                 max_words: int | None = None, legend: bool = True, ascii: bool = False) -> str:
    """The topics table of any multi-component result ``res`` (a
    :class:`~eigensparse.SparsePCAResult` on words): its component entries
    (:meth:`~eigensparse.SparsePCAResult.component_dict`) laid out by
    :func:`eigensparse.text._format.format_topics` — the cells of every table, the
    corpus in the title and the legend — with the choices of ``cardinality="auto"`` when
    the result has them."""
    from ._format import format_topics

    topics = [res.component_dict(j) for j in range(res.components.shape[0])]
    text = format_topics(topics, corpus=corpus, n_docs=n_docs, n_words=n_words, scaling=scaling,
                         method=res.method, max_words=max_words, legend=legend, ascii=ascii)
    if res.cardinality_choices:
        text += "\n\n" + "\n".join([f"cardinality ({res.info.get('cardinality_rule')} rule):"]
                                   + ["  " + line for line in res.choice_lines()])
    return text


class Topic:
    """A read-only view of component ``j`` of a :class:`TopicsResult` as a topic: every
    attribute reads the result (and its :class:`eigensparse.ComponentResult`,
    :attr:`result`); nothing is copied.

    ``words``, ``word_ids`` (0-based columns of the corpus) and ``loadings`` are ordered
    by decreasing |loading|. ``variance`` is xᵀΣx on the (undeflated) covariance,
    ``explained_variance`` the adjusted variance (beyond the earlier topics), and
    ``explained_variance_ratio`` that over the total variance Tr Σ of all words.
    ``penalty`` is the ρ of a penalized method (None otherwise); ``working_set_safe`` is
    True when ρ >= the largest variance left out of the working set (safe elimination
    proves no other word can enter), None when the method has no penalty (a heuristic
    check was used), False when the working set could not be made large enough.
    ``upper_bound``, ``gap``, ``relative_gap`` and ``certified`` are the component's, on
    the covariance it was solved on, where its variance is ``solved_variance``.

    Examples
    --------
    >>> from eigensparse.datasets import load_kos
    >>> from eigensparse.text import extract_topics
    >>> kos = load_kos()
    >>> res = extract_topics(kos.data, kos.feature_names, n_topics=2, cardinality=3, progress=False)
    >>> topic = res.topics[0]
    >>> topic.rank, len(topic.words), len(topic.word_ids), topic.penalty is None
    (1, 3, 3, True)
    >>> topic.result is res.results[0]
    True
    """

    __slots__ = ("_res", "_j")

    def __init__(self, res, j: int):
        self._res, self._j = res, int(j)

    @property
    def rank(self) -> int:
        return self._j + 1

    @property
    def result(self):
        """The component this topic reads (:class:`eigensparse.ComponentResult`)."""
        return self._res.results[self._j]

    @property
    def word_ids(self) -> np.ndarray:
        return self._res.ordered_support(self._j)

    @property
    def words(self) -> list:
        return [self._res.feature_label(i) for i in self.word_ids]

    @property
    def loadings(self) -> np.ndarray:
        return self._res.components[self._j, self.word_ids]

    @property
    def cardinality(self) -> int:
        return int(self._res.supports[self._j].size)

    @property
    def variance(self) -> float:
        return float(self._res.variances[self._j])

    @property
    def solved_variance(self) -> float:
        """xᵀΣ'x on the covariance Σ' its ``upper_bound`` is about: Σ itself for disjoint
        topics (the bound is on the words the other topics leave), else Σ deflated by the
        topics before it."""
        return float(self.result.variance)

    @property
    def explained_variance(self) -> float:
        return float(self._res.explained_variance[self._j])

    @property
    def explained_variance_ratio(self) -> float:
        return float(self._res.explained_variance_ratio[self._j])

    @property
    def penalty(self):
        return self._res.penalty_of(self._j)

    @property
    def stability(self):
        st = self._res.stability
        return None if st is None else float(st.stability[self._j])

    def _info(self) -> dict:
        info = self.result.info
        return info if isinstance(info, dict) else {}

    @property
    def working_set_safe(self):
        return self._info().get("working_set_safe")

    @property
    def seconds(self) -> float:
        return float(self._info().get("seconds", 0.0))

    @property
    def method(self) -> str:
        return self._res.method

    @property
    def info(self) -> dict:
        """The scalar entries of the component's ``info``, with ``n_iter`` and ``converged``."""
        r = self.result
        out = {k: v for k, v in self._info().items()
               if isinstance(v, (int, float, str, bool, type(None)))}
        out.update({"n_iter": r.n_iter, "converged": r.converged})
        return out

    @property
    def upper_bound(self):
        """The solver's upper bound on the topic's problem (None when it gives none)."""
        return self.result.upper_bound

    @property
    def gap(self):
        """The solver's gap (None when it gives none)."""
        return self.result.gap

    @property
    def relative_gap(self):
        return self.result.relative_gap

    @property
    def certified(self):
        """Whether the words are proven the best (None when the solver gives no bound,
        as in the JSON)."""
        return None if self.upper_bound is None else self.result.certified

    def __repr__(self) -> str:
        return (f"Topic(rank={self.rank}, words={self.words!r}, variance={_fmt(self.variance)}, "
                f"certified={self.certified})")


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
    cpu_timings : dict
        CPU seconds of the process (all threads) per phase of ``timings``.
    passes : list of dict
        One entry per pass over the data: name, source ("text", "cache", "memory"),
        seconds, CPU seconds (``cpu_seconds``), nnz.
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
    documents: list | None = None
    cpu_timings: dict = field(default_factory=dict)

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
        """Each component read as a topic (:class:`Topic`, a view)."""
        return [Topic(self, j) for j in range(self.components.shape[0])]

    def solve_seconds(self) -> list[float]:
        return [t.seconds for t in self.topics]

    def component_dict(self, j: int) -> dict:
        """The schema's component entry, with the topic's words (``words``/``word_ids``
        repeat ``features``/``feature_ids``), working-set safety and seconds."""
        d = super().component_dict(j)
        t = self.topics[j]
        d.update(words=d["features"], word_ids=d["feature_ids"],
                 working_set_safe=t.working_set_safe, seconds=float(t.seconds), method=self.method)
        if self.documents is not None:
            d["documents"] = self.documents[j]
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
            "cpu_timings": {k: float(v) for k, v in self.cpu_timings.items()},
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
        out = [f"{'phase'.ljust(w)}  seconds  CPU s"]
        for k, v in rows:
            cpu = self.cpu_timings.get(k)
            out.append(f"{k.ljust(w)}  {v:8.3f}" + ("" if cpu is None else f" {cpu:7.2f}"))
        for p in self.passes:
            cpu = f", {p['cpu_seconds']:.2f} CPU s" if "cpu_seconds" in p else ""
            out.append(f"  pass {p['name']!r} read {p['nnz']} nonzeros from {p['source']} "
                       f"in {p['seconds']:.3f} s{cpu}")
        out.append(f"  working set: {int(self.working_set.size)} of {self.n_words} words "
                   f"(sizes used: {self.working_set_sizes}); elimination threshold "
                   f"{_fmt(self.threshold)}")
        for r in self.rereads:
            out.append(f"  re-read: {r}")
        return "\n".join(out)

    def __str__(self) -> str:
        return (f"{self.name}: {self.n_docs} documents x {self.n_words} words, "
                f"{len(self.topics)} topics ({self.method})\n" + self.format_table())
