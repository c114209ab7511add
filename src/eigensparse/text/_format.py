"""The topics table a reader understands: signed words, a title, a legend.

:func:`format_topics` takes per-topic words, loadings, variances (and optionally the
adjusted "explained" ratio and the penalty) and returns plain text: one column per
topic, words ordered by |loading| with the sign of their loading (``+bush``,
``−kerry``: a topic with both signs contrasts the + words against the − words), a
footer (words, variance, explained %, penalty) and a legend explaining the footer.
"""
from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence

import numpy as np

from .._validation import InvalidParameterError

__all__ = ["format_topics", "signed_words", "LEGEND"]

#: the legend printed under the table (one entry per footer row, then the signs)
LEGEND = (
    ("variance", "xᵀΣx of the topic's unit loading vector x on the word covariance Σ "
                 "(after scaling), unadjusted: overlapping topics count shared variance twice."),
    ("explained %", "adjusted variance (Zou, Hastie & Tibshirani 2006): what the topic adds "
                    "beyond the topics before it, as a percentage of the total variance "
                    "(sum of all word variances)."),
    ("penalty", "the penalty ρ at which a penalized method found the topic (words of "
                "variance <= ρ cannot enter); '-' for exact-cardinality methods."),
    ("+word / −word", "sign of the word's loading; words are sorted by |loading|. All '+': "
                      "the words co-occur; mixed signs: the + words against the − words."),
)


def _get(topic, name, default=None):
    if isinstance(topic, Mapping):
        return topic.get(name, default)
    return getattr(topic, name, default)


def signed_words(words, loadings, *, minus: str = "−", max_words: int | None = None) -> list[str]:
    """``["+w1", "−w2", …]`` ordered by decreasing |loading| (ties: given order).

    Parameters
    ----------
    words : sequence of str, shape (s,)
    loadings : array-like of float, shape (s,)
    minus : str, default="−" (U+2212); use ``"-"`` for ASCII output
    max_words : int, optional
        Keep the first ``max_words`` after sorting.
    """
    lv = np.asarray(loadings, dtype=float).ravel()
    if len(words) != lv.size:
        raise InvalidParameterError(
            f"parameter 'loadings' must have one value per word ({len(words)}); got {lv.size}.")
    order = np.argsort(-np.abs(lv), kind="stable")
    if max_words is not None:
        order = order[:max_words]
    return [("+" if lv[i] >= 0 else minus) + str(words[i]) for i in order]


def _num(v) -> str:
    if v is None:
        return "-"
    v = float(v)
    if not math.isfinite(v):
        return "-"
    a = abs(v)
    if a != 0 and (a < 1e-3 or a >= 1e5):
        return f"{v:.3e}"
    return f"{v:.4g}"


def _title(corpus, n_docs, n_words, scaling, method) -> str:
    size = (f" ({n_docs:,} documents × {n_words:,} words)"
            if n_docs is not None and n_words is not None else "")
    how = ", ".join(x for x in (f"scaling {scaling}" if scaling else "",
                                f"method {method}" if method else "") if x)
    return f"Topics of {corpus or 'the corpus'}{size}" + (f" — {how}" if how else "")


def format_topics(topics: Sequence, *, corpus: str | None = None, n_docs: int | None = None,
                  n_words: int | None = None, scaling: str | None = None,
                  method: str | None = None, max_words: int | None = None,
                  legend: bool = True, ascii: bool = False) -> str:
    """The topics as a text table with signed words, a title and a legend.

    Parameters
    ----------
    topics : sequence of Topic or mapping
        Each with ``words`` (s,), ``loadings`` (s,), ``variance`` and, optionally,
        ``explained_variance_ratio`` (a fraction; printed as %), ``penalty`` and
        ``stability`` (the support stability; a row only when some topic has one)
        (attributes, e.g. :class:`eigensparse.text.Topic`, or dict keys).
    corpus : str, optional
        The corpus name, in the title.
    n_docs, n_words : int, optional
        Corpus size, in the title.
    scaling, method : str, optional
        In the title.
    max_words : int, optional
        Words shown per topic (all by default; the footer counts all).
    legend : bool, default=True
        Print the legend under the table.
    ascii : bool, default=False
        ASCII only: ``-`` for negative loadings, ``x`` for ×, ``-`` for the title dash,
        ``rho`` for ρ, ``Sigma`` for Σ and ``'`` for ᵀ (for terminals that cannot print them).

    Returns
    -------
    str
    """
    minus = "-" if ascii else "−"
    cols, foot = [], [["words"], ["variance"], ["explained %"], ["penalty"]]
    for i, t in enumerate(topics):
        words, lv = _get(t, "words"), _get(t, "loadings")
        if words is None or lv is None:
            raise InvalidParameterError(
                f"parameter 'topics': topic {i + 1} needs 'words' and 'loadings'.")
        rank = _get(t, "rank", i + 1)
        cols.append([f"topic {rank}"] + signed_words(words, lv, minus=minus, max_words=max_words))
        ratio = _get(t, "explained_variance_ratio")
        foot[0].append(str(len(words)))
        foot[1].append(_num(_get(t, "variance")))
        foot[2].append("-" if ratio is None else f"{100 * float(ratio):.2f}")
        foot[3].append(_num(_get(t, "penalty")))
    stability = [_get(t, "stability") for t in topics]
    if any(v is not None for v in stability):
        foot.append(["stability"] + ["-" if v is None else f"{float(v):.2f}" for v in stability])
    title = _title(corpus, n_docs, n_words, scaling, method)
    if not cols:
        return title + "\n(no topics)"
    rows = max(len(c) for c in cols)
    lw = max(len(f[0]) for f in foot)
    width = [max(max(len(x) for x in c), max(len(f[j + 1]) for f in foot))
             for j, c in enumerate(cols)]
    line = lambda label, cells: (label.ljust(lw) + "  " + "  ".join(
        v.ljust(w) for v, w in zip(cells, width))).rstrip()
    out = [title, ""]
    for r in range(rows):
        out.append(line("", [c[r] if r < len(c) else "" for c in cols]))
        if r == 0:
            out.append(line("", ["-" * w for w in width]))
    out.append("")
    out.extend(line(f[0], f[1:]) for f in foot)
    if legend:
        out.append("")
        kw = max(len(k) for k, _ in LEGEND)
        for k, v in LEGEND:
            out.extend(textwrap.wrap(v, width=max(40, 96 - kw), initial_indent=f"  {k.ljust(kw)}  ",
                                     subsequent_indent=" " * (kw + 4)))
    text = "\n".join(out)
    if ascii:
        for a, b in (("−", "-"), ("×", "x"), ("—", "-"), ("ρ", "rho"), ("Σ", "Sigma"), ("ᵀ", "'")):
            text = text.replace(a, b)
    return text
