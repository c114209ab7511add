"""Result objects of :func:`eigensparse.text.extract_topics`."""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Topic", "TopicsResult", "write_json"]


@dataclass
class Topic:
    """One sparse principal component read as a topic.

    ``words``, ``word_ids`` (0-based columns of the corpus) and ``loadings`` are ordered
    by decreasing |loading|. ``variance`` is xᵀΣx on the (undeflated) covariance,
    ``explained_variance`` the adjusted variance (beyond the earlier topics), and
    ``explained_variance_ratio`` that over the total variance Tr Σ of all words.
    ``penalty`` is the ρ of a penalized method (None otherwise); ``working_set_safe`` is
    True when ρ >= the largest variance left out of the working set (safe elimination
    proves no other word can enter), None when the method has no penalty (a heuristic
    check was used), False when the working set could not be made large enough.
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

    @property
    def cardinality(self) -> int:
        return int(len(self.word_ids))

    def to_dict(self) -> dict:
        return {
            "rank": self.rank,
            "words": list(self.words),
            "word_ids": [int(i) for i in self.word_ids],
            "loadings": [float(v) for v in self.loadings],
            "cardinality": self.cardinality,
            "variance": float(self.variance),
            "explained_variance": float(self.explained_variance),
            "explained_variance_ratio": float(self.explained_variance_ratio),
            "penalty": None if self.penalty is None else float(self.penalty),
            "working_set_safe": self.working_set_safe,
            "seconds": float(self.seconds),
            "method": self.method,
        }


@dataclass
class TopicsResult:
    """What :func:`~eigensparse.text.extract_topics` found, and how.

    Attributes
    ----------
    topics : list of Topic
    name : str
        The corpus (file name).
    n_docs, n_words, nnz : int
    method, deflation, scaling : str
    center : bool
    word_mean, word_variance : ndarray of shape (n_words,)
        Exact per-word statistics from pass 1 (after scaling).
    total_variance : float
        Σ of all word variances (Tr Σ).
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
    """

    topics: list
    name: str
    n_docs: int
    n_words: int
    nnz: int
    method: str
    deflation: str
    scaling: str
    center: bool
    cardinality: Any
    word_mean: np.ndarray
    word_variance: np.ndarray
    total_variance: float
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

    # -- views ------------------------------------------------------------------
    @property
    def components(self) -> list[dict]:
        """Per topic: words, loadings, cardinality, variance (JSON-ready dicts)."""
        return [t.to_dict() for t in self.topics]

    @property
    def explained_variance_ratio(self) -> np.ndarray:
        return np.array([t.explained_variance_ratio for t in self.topics])

    def solve_seconds(self) -> list[float]:
        return [t.seconds for t in self.topics]

    def to_dict(self) -> dict:
        """A JSON-serialisable summary (no per-word arrays, no covariance)."""
        return {
            "corpus": self.name, "n_docs": self.n_docs, "n_words": self.n_words, "nnz": self.nnz,
            "method": self.method, "deflation": self.deflation, "scaling": self.scaling,
            "center": self.center, "cardinality": self.cardinality,
            "total_variance": float(self.total_variance),
            "working_set_size": int(self.working_set.size),
            "working_set_sizes": [int(m) for m in self.working_set_sizes],
            "elimination_threshold": float(self.threshold),
            "components": self.components,
            "timings": {k: float(v) for k, v in self.timings.items()},
            "passes": self.passes,
            "rereads": list(self.rereads),
            "cache": self.cache,
            "messages": list(self.messages),
        }

    def format_table(self, max_words: int | None = None) -> str:
        """The topics as a table: one column per topic, words by |loading|, then
        cardinality, variance explained and penalty."""
        cols = []
        for t in self.topics:
            ws = t.words if max_words is None else t.words[:max_words]
            cols.append([f"PC{t.rank} ({t.cardinality} words)"] + list(ws))
        if not cols:
            return "(no topics)"
        n = max(len(c) for c in cols)
        foot = [
            ["cardinality"] + [str(t.cardinality) for t in self.topics],
            ["variance"] + [_fmt(t.variance) for t in self.topics],
            ["explained %"] + [f"{100 * t.explained_variance_ratio:.2f}" for t in self.topics],
            ["penalty"] + ["-" if t.penalty is None else _fmt(t.penalty) for t in self.topics],
        ]
        width = [max(len(c[i]) if i < len(c) else 0 for i in range(n)) for c in cols]
        width = [max(w, max(len(f[j + 1]) for f in foot)) for j, w in enumerate(width)]
        lw = max(len(f[0]) for f in foot)
        lines = []
        for i in range(n):
            cells = [(c[i] if i < len(c) else "").ljust(w) for c, w in zip(cols, width)]
            lines.append(" " * lw + "  " + "  ".join(cells).rstrip())
            if i == 0:
                lines.append(" " * lw + "  " + "  ".join("-" * w for w in width))
        lines.append("")
        for f in foot:
            lines.append(f[0].ljust(lw) + "  " + "  ".join(v.ljust(w) for v, w in zip(f[1:], width)).rstrip())
        return "\n".join(lines)

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


def _fmt(v: float) -> str:
    if v is None or not math.isfinite(v):
        return str(v)
    a = abs(v)
    if a != 0 and (a < 1e-3 or a >= 1e5):
        return f"{v:.3e}"
    return f"{v:.4g}"


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if hasattr(obj, "to_dict"):
        return _jsonable(obj.to_dict())
    return obj


def write_json(path, obj) -> str:
    """Write ``obj`` (a dict, or anything with ``to_dict()``) as JSON, atomically
    (a temporary file in the same directory, then ``os.replace``). Returns the path."""
    from ..io._atomic import atomic_write_text

    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    try:  # strict JSON: a NaN or infinity is a bug to report, never a file to write
        text = json.dumps(_jsonable(obj), indent=2, allow_nan=False)
    except ValueError as exc:
        raise ValueError(f"{path}: not written: the result holds NaN or infinity ({exc}).") from None
    atomic_write_text(path, text + "\n")
    return path
