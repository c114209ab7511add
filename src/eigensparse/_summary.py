"""Readable results: the short ``repr``, and the one table renderer of every component
table — :meth:`eigensparse.SparsePCAResult.summary` (one row per component, and its
notebook HTML), :meth:`eigensparse.SparsePCAResult.format_table` (what ``eigensparse fit``
prints: one column per component) and the topics table of ``eigensparse topics``
(:func:`eigensparse.text._format.format_topics`, the same columns with a title and a legend).

Every table reads a component through :func:`component_cells`, which lays out the
component's JSON view (:meth:`eigensparse.SparsePCAResult.component_dict`): the same
cells — signed loadings, variance, explained %, the solver's upper bound, its relative
gap and ``certified`` — in every table, and the same numbers as the JSON. The tables are
laid out by :func:`render_table`. This module sits in the lowest layer, beside
:mod:`eigensparse._result` (which delegates to it); of eigensparse it imports only
:mod:`eigensparse._validation`.
"""
from __future__ import annotations

import html
import math

import numpy as np

from ._validation import InvalidParameterError

__all__ = ["component_repr", "result_repr", "component_cells", "render_table",
           "component_columns", "summary_rows", "format_summary", "summary_html",
           "signed_label", "loading_cell", "certified_cell", "SUMMARY_COLUMNS", "FOOTER_ROWS",
           "MINUS"]

#: the minus sign of the tables (U+2212); ``ascii=True`` prints ``-``
MINUS = "−"

#: column heads of the summary table, in order (``penalty`` and ``stability`` only when
#: some component has one, as the rows of the same names in the column tables)
SUMMARY_COLUMNS = ("PC", "card", "variance", "explained %", "cum. %", "penalty",
                   "deflated var.", "bound", "rel. gap", "certified", "stability", "top loadings")

#: the rows under the loadings of a column table (:func:`component_columns`), in order;
#: each is a key of :func:`component_cells`
FOOTER_ROWS = ("cardinality", "variance", "explained %", "penalty", "deflated var.", "bound",
               "rel. gap", "certified", "stability")

#: cells shown only when some component has a value (a penalized method, ``stability=B``)
_OPTIONAL = ("penalty", "stability")

#: the variance on the matrix the bound is about (the deflated Σ of a later component),
#: shown when it differs from the variance on the original Σ for some component
DEFLATED = "deflated var."


def bound_note(deflated: bool) -> str:
    """What ``bound``, ``rel. gap`` and ``certified`` mean, with the gap's formula on the
    printed numbers (``deflated``: the table shows the ``deflated var.`` row), wrapped
    at 96 characters."""
    import textwrap

    if deflated:
        return textwrap.fill("bound: the solver's upper bound on the matrix it solved (the original Σ for "
                "the component found first, the deflated Σ for later ones: info['found_at']); "
                "deflated var.: the component's variance on that matrix; rel. gap: "
                "(bound - deflated var.) / bound; certified: the support is proven optimal "
                "on that matrix", 96)
    return textwrap.fill("bound: the solver's upper bound on the matrix it solved; rel. gap: "
                         "(bound - variance) / bound; certified: the support is proven optimal",
                         96)


def _fmt(v: float) -> str:
    if v is None or not math.isfinite(v):
        return str(v)
    a = abs(v)
    if a != 0 and (a < 1e-3 or a >= 1e5):
        return f"{v:.3e}"
    return f"{v:.4g}"


def _num(v) -> str:
    """A number of a table cell; ``-`` when unknown (None or not finite)."""
    return "-" if v is None or not math.isfinite(float(v)) else _fmt(float(v))


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


# ---------------------------------------------------------------------------- the cells

def signed_label(name, v: float, minus: str = MINUS) -> str:
    """``+name`` for a positive (or zero) loading, ``−name`` for a negative one.

    The name prints safely (:func:`eigensparse._printable.printable`: control characters
    escaped; ASCII only with ``minus="-"``).

    >>> signed_label("kerry", -0.5), signed_label("bush", 0.8, minus="-")
    ('−kerry', '+bush')
    >>> signed_label("a\\nb", 1.0), signed_label("café", -1.0, minus="-")
    ('+a\\\\nb', '-caf\\\\xe9')
    """
    from ._printable import printable

    return ("+" if float(v) >= 0 else minus) + printable(name, ascii=minus != MINUS)


def _magnitude(v: float) -> str:
    """|v| with three decimals; a tiny one in scientific form (never ``0.000``)."""
    a = abs(float(v))
    text = f"{a:.3f}"
    return text if float(text) != 0 or a == 0 else f"{a:.1e}"


def loading_cell(name, v: float, minus: str = MINUS) -> str:
    """The cell of one loading in every table: its sign on the name, then its magnitude
    (so a negative loading always shows its sign, and nothing prints as ``-0.000``).

    Examples
    --------
    >>> loading_cell("kerry", -0.5), loading_cell("x3", 2e-6), loading_cell("x1", -1e-9, minus="-")
    ('−kerry 0.500', '+x3 2.0e-06', '-x1 1.0e-09')
    """
    return f"{signed_label(name, v, minus)} {_magnitude(v)}"


def _percent(r) -> str:
    if r is None or not math.isfinite(float(r)):
        return "-"
    p = 100 * float(r)
    if p == 0:
        return "0%"
    return f"{p:.3g}%" if p >= 0.01 else "<0.01%"


def certified_cell(comp: dict) -> str:
    """``yes`` (the support is proven optimal), ``no (gap r%)`` (not proven; ``r`` is the
    relative gap), or ``-`` when the solver gives no bound (``certified`` is null in the
    JSON).

    Examples
    --------
    >>> certified_cell({"certified": True, "relative_gap": 0.0})
    'yes'
    >>> certified_cell({"certified": False, "relative_gap": 0.0298})
    'no (gap 2.98%)'
    >>> certified_cell({"certified": None, "relative_gap": None})
    '-'
    """
    flag = comp.get("certified")
    if flag is None:
        return "-"
    if flag:
        return "yes"
    gap = comp.get("relative_gap")
    return "no" if gap is None else f"no (gap {_percent(gap)})"


def component_cells(comp: dict, *, n_loadings: int | None = None, minus: str = MINUS) -> dict:
    """The cells of one component, as every table prints them.

    Parameters
    ----------
    comp : dict
        The component in the JSON schema (:meth:`eigensparse.SparsePCAResult.component_dict`):
        ``features`` and ``loadings`` by decreasing |loading|, ``cardinality``,
        ``variance``, ``explained_variance``, ``explained_variance_ratio``, ``penalty``,
        ``solved_variance`` (on the matrix the bound is about), ``upper_bound``,
        ``relative_gap``, ``certified`` and ``stability`` (missing keys read as unknown).
    n_loadings : int, optional
        Loadings kept (the largest by |.|; all by default).
    minus : str, default="−"
        The sign of a negative loading (``"-"`` for ASCII).

    Returns
    -------
    dict
        ``loadings`` (list of :func:`loading_cell`), ``more`` (loadings not shown) and one
        string per key of :data:`FOOTER_ROWS` and ``explained_variance``; ``-`` where unknown;
        ``_deflated``: whether the ``deflated var.`` differs from the variance as printed.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import sparse_pca
    >>> from eigensparse._summary import component_cells
    >>> res = sparse_pca(np.random.default_rng(0).standard_normal((40, 6)), n_components=1,
    ...                  cardinality=2, method="exhaustive")
    >>> cells = component_cells(res.component_dict(0))
    >>> cells["cardinality"], cells["rel. gap"], cells["certified"], len(cells["loadings"])
    ('2', '0%', 'yes', 2)
    """
    features, loadings = list(comp.get("features") or []), list(comp.get("loadings") or [])
    shown = list(zip(features, loadings))
    if n_loadings is not None:
        shown = shown[:n_loadings]
    ratio = comp.get("explained_variance_ratio")
    stability = comp.get("stability")
    solved = comp.get("solved_variance")
    return {
        "loadings": [loading_cell(name, v, minus) for name, v in shown],
        "more": int(comp.get("cardinality", len(features))) - len(shown),
        "cardinality": str(comp.get("cardinality", len(features))),
        "variance": _num(comp.get("variance")),
        "explained_variance": _num(comp.get("explained_variance")),
        "explained %": "-" if ratio is None else f"{100 * float(ratio):.2f}",
        "penalty": _num(comp.get("penalty")),
        DEFLATED: _num(solved) if comp.get("upper_bound") is not None else "-",
        "_deflated": comp.get("upper_bound") is not None and _num(solved) != "-"
                     and _num(solved) != _num(comp.get("variance")),
        "bound": _num(comp.get("upper_bound")),
        "rel. gap": _percent(comp.get("relative_gap")) if comp.get("upper_bound") is not None else "-",
        "certified": certified_cell(comp),
        "stability": "-" if stability is None else f"{float(stability):.2f}",
    }


# ---------------------------------------------------------------------------- the layout

def render_table(rows, *, align: str = "", rule_after: int | None = 0, sep: str = "  ") -> str:
    """Lay out ``rows`` (lists of string cells) in aligned columns: the one layout of
    every table.

    Parameters
    ----------
    rows : list of list of str or None
        One list per line (shorter ones are padded with empty cells); ``None`` is an
        empty line.
    align : str, default=""
        One letter per column, ``"l"`` or ``"r"`` (missing letters: ``"l"``).
    rule_after : int or None, default=0
        A rule of dashes under this row (the heads), under its non-empty cells; None: no rule.
    sep : str, default="  "
        Between columns.

    Examples
    --------
    >>> print(render_table([["PC", "variance"], ["1", "2.5"], None, ["10", "0.25"]], align="rr"))
    PC  variance
    --  --------
     1       2.5
    <BLANKLINE>
    10      0.25
    """
    cells = [r for r in rows if r is not None]
    n = max((len(r) for r in cells), default=0)
    width = [max((len(r[i]) for r in cells if i < len(r)), default=0) for i in range(n)]
    align = align.ljust(n, "l")

    def line(row):
        row = list(row) + [""] * (n - len(row))
        out = [c.rjust(w) if a == "r" else c.ljust(w) for c, w, a in zip(row, width, align)]
        return sep.join(out).rstrip()

    lines = []
    for i, r in enumerate(rows):
        lines.append("" if r is None else line(r))
        if rule_after is not None and i == rule_after and r is not None:  # under the heads
            lines.append(line(["-" * w if i < len(r) and r[i] else "" for i, w in enumerate(width)]))
    return "\n".join(lines)


def _shown(cells: list, key: str) -> bool:
    if key == DEFLATED:  # only where a bound is about another matrix than the variance
        return any(c["_deflated"] for c in cells)
    return key not in _OPTIONAL or any(c[key] != "-" for c in cells)


def shows_deflated(comps) -> bool:
    """Whether the tables of these components (JSON entries) show the ``deflated var.``
    row: some component's bound is about a deflated matrix on which its variance differs
    (as printed) from its variance on the original one."""
    return _shown([component_cells(c, n_loadings=0) for c in comps], DEFLATED)


def component_columns(comps, heads, *, labels: dict | None = None, n_loadings: int | None = None,
                      minus: str = MINUS) -> str:
    """One column per component: its head, its loadings (:func:`loading_cell`, by
    decreasing |loading|), then the rows of :data:`FOOTER_ROWS` (``penalty`` and
    ``stability`` only when some component has one). The layout of ``eigensparse fit``
    and of the topics table.

    Parameters
    ----------
    comps : list of dict
        The components in the JSON schema (:func:`component_cells`).
    heads : list of str
        The column heads.
    labels : dict, optional
        Row labels replacing the keys of :data:`FOOTER_ROWS` (the topics table says
        ``words`` for ``cardinality``).
    n_loadings : int, optional
        Loadings shown per component (all by default; the cardinality row counts all).
    minus : str, default="−"

    Examples
    --------
    >>> comp = {"features": ["b", "a"], "loadings": [0.8, -0.6], "cardinality": 2,
    ...         "variance": 2.5, "explained_variance_ratio": 0.25, "upper_bound": 2.5,
    ...         "relative_gap": 0.0, "certified": True}
    >>> print(component_columns([comp], ["PC1"]))
                 PC1
                 --------
                 +b 0.800
                 −a 0.600
    <BLANKLINE>
    cardinality  2
    variance     2.5
    explained %  25.00
    bound        2.5
    rel. gap     0%
    certified    yes
    """
    cells = [component_cells(c, n_loadings=n_loadings, minus=minus) for c in comps]
    labels = labels or {}
    n = max((len(c["loadings"]) for c in cells), default=0)
    rows = [[""] + list(heads)]
    rows += [[""] + [c["loadings"][i] if i < len(c["loadings"]) else "" for c in cells]
             for i in range(n)]
    rows.append(None)
    rows += [[labels.get(key, key)] + [c[key] for c in cells]
             for key in FOOTER_ROWS if _shown(cells, key)]
    return render_table(rows)


def summary_rows(res, n_loadings: int = 5, *, minus: str = MINUS) -> tuple:
    """The heads and one row of strings per component of the summary table.

    The cells are :func:`component_cells`'s (the same as the ``fit`` and topics tables),
    plus the cumulative explained %; ``top loadings`` joins the ``n_loadings`` largest.

    Returns
    -------
    heads : list of str
        :data:`SUMMARY_COLUMNS`, less ``penalty``/``stability`` when no component has one.
    rows : list of list of str

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import sparse_pca
    >>> from eigensparse._summary import summary_rows
    >>> X = np.random.default_rng(0).standard_normal((40, 6))
    >>> heads, rows = summary_rows(sparse_pca(X, n_components=2, cardinality=3, method="greedy"))
    >>> [r[0] for r in rows], rows[0][1], rows[0][heads.index("certified")]
    (['1', '2'], '3', '-')
    """
    cells, total = [], 0.0
    for j in range(res.components.shape[0]):
        comp = res.component_dict(j)
        total += 100 * comp["explained_variance_ratio"]
        c = component_cells(comp, n_loadings=n_loadings, minus=minus)
        c["cum. %"] = f"{total:.2f}"
        cells.append(c)
    heads = [h for h in SUMMARY_COLUMNS if _shown(cells, h)]
    rows = []
    for j, c in enumerate(cells):
        top = ", ".join(c["loadings"]) + (f", … (+{c['more']})" if c["more"] > 0 else "")
        c.update({"PC": str(j + 1), "card": c["cardinality"], "top loadings": top})
        rows.append([c[h] for h in heads])
    return heads, rows


def _header(res, title: str | None) -> list:
    k, p = res.components.shape
    name = title or type(res).__name__
    order = res.info.get("order")
    head = (f"{name}: {k} components, {p} {res.feature_unit}, method {res.method!r}, "
            f"deflation {res.deflation!r}" + (f", order {order!r}" if order else ""))
    explained = 100 * float(np.sum(res.explained_variance_ratio))
    out = [head, f"total variance {_fmt(float(res.total_variance))}; explained {explained:.2f}% "
                 "(adjusted variance, Zou-Hastie-Tibshirani)"]
    total = res.total_line() if hasattr(res, "total_line") else None
    return out + ([total] if total else [])


def format_summary(res, n_loadings: int = 5, title: str | None = None) -> str:
    """The text of :meth:`eigensparse.SparsePCAResult.summary` (parameters as there): a
    two-line header (size, method, total and explained variance), one row per component
    (:func:`summary_rows`) and the notes under it.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import sparse_pca
    >>> from eigensparse._summary import format_summary
    >>> res = sparse_pca(np.random.default_rng(0).standard_normal((40, 6)), n_components=1,
    ...                  cardinality=2, method="greedy")
    >>> print(format_summary(res, title="fit"))  # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
    fit: 1 components, 6 features, method 'greedy', deflation 'schur', order 'variance'
    total variance ...; explained ...% (adjusted variance, Zou-Hastie-Tibshirani)
    PC card variance explained % cum. % bound rel. gap certified top loadings
    -- ---- ...
    1 2 ... - - - ...x... 0..., ...x... 0...
    """
    if not isinstance(n_loadings, (int, np.integer)) or isinstance(n_loadings, bool) or n_loadings < 0:
        raise InvalidParameterError(f"parameter 'n_loadings' must be an int >= 0; got {n_loadings!r}.")
    heads, rows = summary_rows(res, n_loadings)
    align = "".join("l" if h in ("top loadings", "certified") else "r" for h in heads)
    lines = _header(res, title)
    lines.append(render_table([heads] + rows, align=align) if rows
                 else render_table([heads], align=align) + "\n(no components)")
    bound = heads.index("bound")
    if any(r[bound] != "-" for r in rows):
        lines.append(bound_note(DEFLATED in heads))
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
    heads, rows = summary_rows(res, n_loadings)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in heads)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                   for r in rows)
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
