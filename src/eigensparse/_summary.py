"""Readable results: the short ``repr``, the ``summary()`` table and the notebook HTML of
:class:`eigensparse.ComponentResult` and :class:`eigensparse.SparsePCAResult`.

The numbers come from the result's own JSON view
(:meth:`eigensparse.SparsePCAResult.component_dict`), so the table, the HTML and the
JSON schema always agree; this module only lays them out. It sits in the lowest layer,
beside :mod:`eigensparse._result` (which delegates to it); of eigensparse it imports
only :mod:`eigensparse._validation`.
"""
from __future__ import annotations

import html
import math

import numpy as np

from ._validation import InvalidParameterError

__all__ = ["component_repr", "result_repr", "summary_rows", "format_summary", "summary_html",
           "SUMMARY_COLUMNS"]

#: column heads of the summary table, in order
SUMMARY_COLUMNS = ("PC", "card", "variance", "adj. var", "cum. %", "bound", "gap", "certified",
                   "top loadings")


_BOUND_NOTE = ("bound, gap: the solver's, on the operator it saw (the original Σ for the "
               "component found first, the deflated Σ for later ones: info['found_at'])")


def _fmt(v: float) -> str:
    if v is None or not math.isfinite(v):
        return str(v)
    a = abs(v)
    if a != 0 and (a < 1e-3 or a >= 1e5):
        return f"{v:.3e}"
    return f"{v:.4g}"


def _num(v) -> str:
    return "-" if v is None else _fmt(float(v))


def component_repr(r) -> str:
    """One line for a :class:`~eigensparse.ComponentResult`: method, cardinality,
    variance, bound/gap when known, iterations (no arrays).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import ComponentResult
    >>> r = ComponentResult(np.array([0.6, 0.8, 0.0]), np.array([0, 1]), 2.5, "greedy",
    ...                     n_iter=2, upper_bound=2.75, gap=0.25)
    >>> r
    ComponentResult(method='greedy', cardinality=2, n_features=3, variance=2.5, upper_bound=2.75, gap=0.25, n_iter=2, converged=True)
    """
    parts = [f"method={r.method!r}", f"cardinality={r.cardinality}",
             f"n_features={np.shape(r.loadings)[0]}", f"variance={_fmt(float(r.variance))}"]
    if r.upper_bound is not None:
        parts.append(f"upper_bound={_fmt(float(r.upper_bound))}")
    if r.gap is not None:
        parts.append(f"gap={_fmt(float(r.gap))}")
    parts += [f"n_iter={r.n_iter}", f"converged={bool(r.converged)}"]
    return f"{type(r).__name__}({', '.join(parts)})"


def result_repr(res) -> str:
    """One line for a :class:`~eigensparse.SparsePCAResult` (or a subclass): shape,
    method, cardinalities and the explained fraction (no arrays).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import sparse_pca
    >>> X = np.random.default_rng(0).standard_normal((40, 6))
    >>> sparse_pca(X, n_components=2, cardinality=3, method="greedy")  # doctest: +ELLIPSIS
    SparsePCAResult(n_components=2, n_features=6, method='greedy', deflation='schur', cardinalities=[3, 3], explained=...%)
    """
    k, p = res.components.shape
    cards = [int(s.size) for s in res.supports]
    explained = 100 * float(np.sum(res.explained_variance_ratio))
    return (f"{type(res).__name__}(n_components={k}, n_features={p}, method={res.method!r}, "
            f"deflation={res.deflation!r}, cardinalities={cards}, explained={explained:.2f}%)")


def _signed(v: float) -> str:
    """A loading with its sign, never ``-0.000``/``+0.000`` (tiny ones in scientific form)."""
    text = f"{v:+.3f}"
    return text if float(text) != 0 else f"{v:+.1e}"


def _loadings_text(comp: dict, n_loadings: int) -> str:
    shown = list(zip(comp["features"], comp["loadings"]))[:n_loadings]
    text = ", ".join(f"{name} {_signed(v)}" for name, v in shown)
    more = comp["cardinality"] - len(shown)
    return text + (f", … (+{more})" if more > 0 else "")


def summary_rows(res, n_loadings: int = 5) -> list:
    """One row of strings per component, under :data:`SUMMARY_COLUMNS`.

    ``bound`` and ``gap`` are the solver's (an upper bound on the problem it solved, on
    the operator it saw: the original Σ for the first component, the deflated one after);
    ``certified`` says whether the support is proven optimal
    (:attr:`eigensparse.ComponentResult.certified`); ``-`` where the method gives none.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import sparse_pca
    >>> from eigensparse._summary import summary_rows
    >>> X = np.random.default_rng(0).standard_normal((40, 6))
    >>> rows = summary_rows(sparse_pca(X, n_components=2, cardinality=3, method="greedy"))
    >>> [r[0] for r in rows], rows[0][1]
    (['1', '2'], '3')
    """
    rows, cum = [], 0.0
    for j in range(res.components.shape[0]):
        comp = res.component_dict(j)
        r = res.results[j] if j < len(res.results) else None
        cum += 100 * comp["explained_variance_ratio"]
        rows.append([str(j + 1), str(comp["cardinality"]), _num(comp["variance"]),
                     _num(comp["explained_variance"]), f"{cum:.2f}", _num(comp["upper_bound"]),
                     _num(None if r is None else r.gap),
                     "-" if comp["certified"] is None else ("yes" if comp["certified"] else "no"),
                     _loadings_text(comp, n_loadings)])
    return rows


def _header(res, title: str | None) -> list:
    k, p = res.components.shape
    name = title or type(res).__name__
    order = res.info.get("order")
    head = (f"{name}: {k} components, {p} {res.feature_unit}, method {res.method!r}, "
            f"deflation {res.deflation!r}" + (f", order {order!r}" if order else ""))
    explained = 100 * float(np.sum(res.explained_variance_ratio))
    return [head, f"total variance {_fmt(float(res.total_variance))}; explained {explained:.2f}% "
                  "(adjusted variance, Zou-Hastie-Tibshirani)"]


def format_summary(res, n_loadings: int = 5, title: str | None = None) -> str:
    """The summary of ``res`` as plain text: a two-line header (size, method, total and
    explained variance) and one row per component (:func:`summary_rows`).

    Parameters
    ----------
    res : SparsePCAResult
    n_loadings : int, default=5
        Largest-|.| loadings shown per component (with their signs and feature names).
    title : str, optional
        Replaces the class name in the header.

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import sparse_pca
    >>> from eigensparse._summary import format_summary
    >>> X = np.random.default_rng(0).standard_normal((40, 6))
    >>> print(format_summary(sparse_pca(X, n_components=1, cardinality=2, method="greedy")))
    ... # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
    SparsePCAResult: 1 components, 6 features, method 'greedy', deflation 'schur', order 'variance'
    total variance ...; explained ...% (adjusted variance, Zou-Hastie-Tibshirani)
    PC card variance adj. var cum. % bound gap certified top loadings
    -- ---- ... 
    1 2 ... x... +0..., x... ...
    """
    if not isinstance(n_loadings, (int, np.integer)) or isinstance(n_loadings, bool) or n_loadings < 0:
        raise InvalidParameterError(f"parameter 'n_loadings' must be an int >= 0; got {n_loadings!r}.")
    rows = summary_rows(res, n_loadings)
    table = [list(SUMMARY_COLUMNS)] + rows
    width = [max(len(r[i]) for r in table) for i in range(len(SUMMARY_COLUMNS))]
    last = len(SUMMARY_COLUMNS) - 1

    def line(cells):
        out = [c.ljust(w) if i == last else c.rjust(w) for i, (c, w) in enumerate(zip(cells, width))]
        return "  ".join(out).rstrip()

    lines = _header(res, title) + [line(table[0]), line(["-" * w for w in width])]
    lines += [line(r) for r in rows] or ["(no components)"]
    if any(r[5] != "-" for r in rows):
        lines.append(_BOUND_NOTE)
    lines += _notes(res)
    return "\n".join(lines)


def summary_html(res, n_loadings: int = 5) -> str:
    """The summary of ``res`` as an HTML table (what notebooks show).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import sparse_pca
    >>> X = np.random.default_rng(0).standard_normal((40, 6))
    >>> html = sparse_pca(X, n_components=2, cardinality=3, method="greedy")._repr_html_()
    >>> html.startswith("<div") and html.count("<tr>") == 3
    True
    """
    head = "".join(f"<th>{html.escape(c)}</th>" for c in SUMMARY_COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                   for r in summary_rows(res, n_loadings))
    caption = "<br>".join(html.escape(t) for t in _header(res, None))
    return (f"<div><p>{caption}</p><table><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table></div>")


def _notes(res) -> list:
    """Lines under the table: a first component traded for the total by the refinement
    (``refine="total"``), and the support stability when it was measured."""
    out = []
    for r in res.results[:1]:
        ref = (r.info or {}).get("refine") if isinstance(r.info, dict) else None
        if isinstance(ref, dict) and ref.get("first_traded"):
            out.append(f"PC1 traded for the total (refine='total'): variance "
                       f"{_fmt(float(ref['first_variance']))} < {_fmt(float(ref['first_variance_single']))}"
                       " of the best single component")
    st = getattr(res, "stability", None)
    if st is not None:
        out.append(f"support stability ({int(st.n_resamples)} {st.resampling} resamples):")
        out += ["  " + line for line in st.lines(label="PC")]
    return out
