"""The topics table a reader understands: signed words, a title, a legend.

:func:`format_topics` lays out topics — the components of a result on words
(:meth:`eigensparse.SparsePCAResult.component_dict`), :class:`eigensparse.text.Topic`
views, or mappings with ``words`` and ``loadings`` — with the one column layout of
every component table (:func:`eigensparse._summary.component_columns`): one column per
topic, words ordered by |loading| with the sign of their loading (``+bush 0.800``,
``−kerry 0.500``: a topic with both signs contrasts the + words against the − words),
the footer (words, variance, explained %, penalty, upper bound, relative gap,
``certified``, stability), a title and a legend explaining the footer.
"""
from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import numpy as np

from .._summary import DEFLATED, MINUS, component_columns, shows_deflated, signed_label
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
    ("deflated var.", "the topic's variance on the deflated covariance its bound is about "
                      "(shown when it differs from the variance on Σ)."),
    ("bound", "an upper bound on the variance any topic of that many words can reach: of "
              "the whole vocabulary's words that the other topics leave (disjoint topics), or "
              "on the deflated covariance the topic was solved on; '-' when the method gives "
              "none."),
    ("rel. gap", "(bound - variance) / bound: how far the topic may be from the best."),
    ("certified", "yes: the words are proven the best; no (gap r%): not proven, within r%."),
    ("+word / −word", "sign of the word's loading, then its magnitude; words are sorted by "
                      "|loading|. All '+': the words co-occur; mixed signs: the + words "
                      "against the − words."),
)

#: the topics table's names of the footer rows that differ from the ``fit`` table's
_LABELS = {"cardinality": "words"}

#: the attributes (or keys) of a topic read into its component entry
_FIELDS = ("variance", "solved_variance", "explained_variance", "explained_variance_ratio",
           "penalty", "upper_bound", "relative_gap", "certified", "stability")


def _get(topic, name, default=None):
    if isinstance(topic, Mapping):
        return topic.get(name, default)
    return getattr(topic, name, default)


def signed_words(words, loadings, *, minus: str = MINUS, max_words: int | None = None) -> list[str]:
    """``["+w1", "−w2", …]`` ordered by decreasing |loading| (ties: given order).

    Parameters
    ----------
    words : sequence of str, shape (s,)
    loadings : array-like of float, shape (s,)
    minus : str, default="−" (U+2212); use ``"-"`` for ASCII output
    max_words : int, optional
        Keep the first ``max_words`` after sorting.

    Examples
    --------
    >>> signed_words(["a", "b", "c"], [0.1, -0.9, 0.5])
    ['−b', '+c', '+a']
    """
    lv = np.asarray(loadings, dtype=float).ravel()
    order = _by_magnitude(words, lv)
    if max_words is not None:
        order = order[:max_words]
    return [signed_label(words[i], lv[i], minus) for i in order]


def _by_magnitude(words, lv) -> np.ndarray:
    if len(words) != lv.size:
        raise InvalidParameterError(
            f"parameter 'loadings' must have one value per word ({len(words)}); got {lv.size}.")
    return np.argsort(-np.abs(lv), kind="stable")


def _component(topic, i: int) -> dict:
    """A topic (component entry, Topic view or mapping) as a component entry of the JSON
    schema, its words by decreasing |loading|."""
    if isinstance(topic, Mapping) and "features" in topic:
        return topic
    words, lv = _get(topic, "words"), _get(topic, "loadings")
    if words is None or lv is None:
        raise InvalidParameterError(
            f"parameter 'topics': topic {i + 1} needs 'words' and 'loadings'.")
    lv = np.asarray(lv, dtype=float).ravel()
    order = _by_magnitude(words, lv)
    comp = {"rank": _get(topic, "rank", i + 1), "cardinality": len(words),
            "features": [words[k] for k in order], "loadings": [float(lv[k]) for k in order]}
    comp.update({k: _get(topic, k) for k in _FIELDS})
    return comp


def _title(corpus, n_docs, n_words, scaling, method) -> str:
    size = (f" ({n_docs:,} documents × {n_words:,} words)"
            if n_docs is not None and n_words is not None else "")
    how = ", ".join(x for x in (f"scaling {scaling}" if scaling else "",
                                f"method {method}" if method else "") if x)
    from .._printable import printable

    return f"Topics of {printable(corpus or 'the corpus')}{size}" + (f" — {how}" if how else "")


def format_topics(topics: Sequence, *, corpus: str | None = None, n_docs: int | None = None,
                  n_words: int | None = None, scaling: str | None = None,
                  method: str | None = None, max_words: int | None = None,
                  legend: bool = True, ascii: bool = False) -> str:
    """The topics as a text table with signed words, a title and a legend.

    Parameters
    ----------
    topics : sequence of dict, Topic or mapping
        Component entries of the JSON schema
        (:meth:`eigensparse.SparsePCAResult.component_dict`), or topics with ``words``
        (s,), ``loadings`` (s,), ``variance`` and, optionally,
        ``explained_variance_ratio`` (a fraction; printed as %), ``penalty``,
        ``upper_bound``, ``relative_gap``, ``certified`` and ``stability`` (attributes,
        e.g. :class:`eigensparse.text.Topic`, or dict keys).
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

    Examples
    --------
    >>> print(format_topics([{"words": ["kerry", "bush"], "loadings": [-0.6, 0.8],
    ...                       "variance": 2.5, "upper_bound": 2.6, "relative_gap": 0.038,
    ...                       "certified": False}], corpus="kos", legend=False))
    Topics of kos
    <BLANKLINE>
                 topic 1
                 -------------
                 +bush 0.800
                 −kerry 0.600
    <BLANKLINE>
    words        2
    variance     2.5
    explained %  -
    bound        2.6
    rel. gap     3.8%
    certified    no (gap 3.8%)
    """
    comps = [_component(t, i) for i, t in enumerate(topics)]
    title = _title(corpus, n_docs, n_words, scaling, method)
    if not comps:
        return title + "\n(no topics)"
    heads = [f"topic {c.get('rank', i + 1)}" for i, c in enumerate(comps)]
    out = [title, "", component_columns(comps, heads, labels=_LABELS, n_loadings=max_words,
                                        minus="-" if ascii else MINUS)]
    if legend:
        out.append("")
        kw = max(len(k) for k, _ in LEGEND)
        penalized = any(c.get("penalty") is not None for c in comps)
        deflated = shows_deflated(comps)
        for k, v in LEGEND:
            if (k == "penalty" and not penalized) or (k == DEFLATED and not deflated):
                continue  # no such row to explain
            if k == "rel. gap" and deflated:  # the formula on the printed numbers
                v = v.replace("(bound - variance)", "(bound - deflated var.)")
            out.extend(textwrap.wrap(v, width=max(40, 96 - kw), initial_indent=f"  {k.ljust(kw)}  ",
                                     subsequent_indent=" " * (kw + 4)))
    text = "\n".join(out)
    if ascii:
        for a, b in (("−", "-"), ("×", "x"), ("—", "-"), ("ρ", "rho"), ("Σ", "Sigma"), ("ᵀ", "'")):
            text = text.replace(a, b)
    return text
