"""Result objects: :class:`ComponentResult` for one component (every solver), and
:class:`SparsePCAResult` for several (:func:`eigensparse.sparse_pca`, the estimator's
``result_``, and, as its subclass :class:`eigensparse.text.TopicsResult`, the topic
pipeline), with the one JSON schema (:data:`JSON_SCHEMA`) every command writes
(:func:`write_json`: strict JSON, atomically) and the tables of :mod:`eigensparse._summary`."""
from __future__ import annotations

import json
import math
import os
import threading
import warnings
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from ._summary import (MINUS, bound_note, component_columns, component_repr, format_summary,
                       result_repr, shows_deflated, summary_html)

__all__ = ["ComponentResult", "SparsePCAResult", "JSON_SCHEMA", "write_json", "jsonable",
           "PendingBound", "defer_bound", "with_info", "info_entry", "known_info"]

#: the name and version of the one JSON schema (see :meth:`SparsePCAResult.to_dict`)
JSON_SCHEMA = "eigensparse.result/1"


@dataclass(frozen=True)
class ComponentResult:
    """One sparse principal component found by a single-component solver.

    Attributes
    ----------
    loadings : ndarray of shape (n_features,)
        Unit-norm loading vector, zero outside ``support``; sign fixed by
        :func:`eigensparse._linalg.fix_sign` (largest-|.| entry positive).
    support : ndarray of int, shape (cardinality,)
        Sorted indices of the nonzero loadings.
    variance : float
        ``loadings @ Σ @ loadings`` on the operator the solver saw.
    method : str
        Registry name of the solver.
    n_iter : int
        Iterations (or greedy steps) performed.
    converged : bool
        Whether the solver's own stopping rule was met.
    upper_bound : float or None
        An upper bound on the optimal value of the problem solved, if known.
    gap : float or None
        ``upper_bound - variance`` (or a duality gap), if known.
    message : str
        Human-readable termination message.
    info : dict
        Solver-specific extras (paths, objectives, penalties, timings).

    Notes
    -----
    **The bound is computed on first read.** A solver may return its answer with a
    cheap bound and leave the expensive tightening pending (the default method does, see
    :func:`defer_bound`): the first read of ``upper_bound``, ``gap``, ``info`` (whose
    ``"bound"`` names the bound), ``certified``, ``relative_gap``, the ``repr``, a table
    or the JSON computes it, exactly once and deterministically, and drops what it
    needed. The numbers are those of a bound computed inside the solve; a refit nobody
    reads the bound of (a stability resample, a chain the refinement sets aside) does not
    pay for it. Pickling and copying compute it first.

    Examples
    --------
    >>> import eigensparse as es
    >>> P = es.Covariance(es.datasets.load_pitprops().data)
    >>> r = es.sparse_pca(P, n_components=1, cardinality=3).results[0]
    >>> r.cardinality, r.support.tolist(), round(r.variance, 3)
    (3, [0, 1, 8], 2.475)
    """

    loadings: np.ndarray
    support: np.ndarray
    variance: float
    method: str
    n_iter: int = 0
    converged: bool = True
    upper_bound: float | None = None
    gap: float | None = None
    message: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def cardinality(self) -> int:
        return int(self.support.size)

    @property
    def certified(self) -> bool:
        """Whether the support is proven optimal: the solver's own certificate
        (``info["certified"]``) or an upper bound equal to the variance up to rounding."""
        flag = self.info.get("certified") if isinstance(self.info, dict) else None
        if flag is not None:
            return bool(flag)
        if self.upper_bound is None:
            return False
        v = float(self.variance)
        return bool(float(self.upper_bound) - v <= 1e-9 * max(abs(v), 1e-300))

    @property
    def relative_gap(self) -> float | None:
        """``gap / upper_bound`` (0: proven optimal), None when no bound is known."""
        if self.upper_bound is None or self.gap is None:
            return None
        ub = float(self.upper_bound)
        return 0.0 if ub == 0 else max(0.0, float(self.gap)) / abs(ub)

    def __repr__(self) -> str:
        return component_repr(self)

    def _resolve(self) -> None:
        """Compute a pending bound (:func:`defer_bound`) into ``upper_bound``, ``gap``
        and ``info``, once."""
        d = self.__dict__
        pending = d.get("_pending")
        if pending is None:
            return
        ub, entries = pending.value()
        d["_upper_bound"] = ub
        d["_gap"] = None if ub is None else ub - float(self.variance)
        d["_info"] = {**(d["_info"] or {}), **entries}
        d["_pending"] = None

    def __getstate__(self) -> dict:  # pickle and copy: the bound computed, nothing pending
        self._resolve()
        return {k: v for k, v in self.__dict__.items() if k != "_pending"}

    def __setstate__(self, state: dict) -> None:
        for name in _LAZY:  # a result pickled before the bound could be pending
            if name in state:
                state["_" + name] = state.pop(name)
        self.__dict__.update(state)


def _lazy_field(name: str) -> property:
    """A field of :class:`ComponentResult` read after any pending bound is computed."""
    key = "_" + name

    def get(self):
        if self.__dict__.get("_pending") is not None:
            self._resolve()
        return self.__dict__[key]

    def put(self, value):  # the dataclass's __init__ only (frozen otherwise)
        self.__dict__[key] = value

    return property(get, put, doc=f"``{name}`` (see the class attributes); reading it "
                                  "computes a pending bound.")


_LAZY = ("upper_bound", "gap", "info")
for _name in _LAZY:
    setattr(ComponentResult, _name, _lazy_field(_name))


class PendingBound:
    """A bound left to compute on first read: ``compute()`` returns ``(upper_bound,
    info_entries)`` (``upper_bound`` a float or None; the entries, e.g. ``{"bound":
    name}``, go into ``info``). :meth:`value` calls it once, keeps its value and drops
    ``compute`` (and the arrays it holds)."""

    __slots__ = ("_compute", "_value", "_lock")

    def __init__(self, compute):
        self._compute, self._value, self._lock = compute, None, threading.Lock()

    def value(self):
        with self._lock:  # two threads reading at once: one computes, the other waits
            if self._compute is not None:
                self._value, self._compute = self._compute(), None
        return self._value


def defer_bound(result: ComponentResult, compute) -> ComponentResult:
    """``result`` (returned) with its bound pending: ``compute`` (no arguments, see
    :class:`PendingBound`) replaces ``upper_bound``, ``gap`` (= upper_bound −
    variance) and the entries it returns in ``info`` on the first read of any of them."""
    result.__dict__["_pending"] = PendingBound(compute)
    return result


def info_entry(result: ComponentResult, key: str, default=None):
    """``result.info.get(key, default)`` for a key a pending bound does not set (not
    ``"bound"``), read without computing it."""
    return known_info(result).get(key, default)


def known_info(result: ComponentResult) -> dict:
    """``result.info`` as known without computing a pending bound (the entries the bound
    sets are missing while it is pending): a new dict."""
    d = getattr(result, "__dict__", {})
    info = d["_info"] if "_info" in d else getattr(result, "info", None)
    return dict(info or {})


def with_info(result: ComponentResult, _changes: dict | None = None,
              **entries) -> ComponentResult:
    """A copy of ``result`` with ``entries`` added to ``info`` and the fields of
    ``_changes`` replaced (``loadings`` and ``support`` keep a pending bound pending, as
    they do not change the problem it bounds; any other change computes it first, as
    ``dataclasses.replace`` does)."""
    changes = dict(_changes or {})
    pending = result.__dict__.get("_pending")
    if pending is None or not changes.keys() <= {"loadings", "support"}:
        return replace(result, info={**(result.info or {}), **entries}, **changes)
    kept = {f.name: result.__dict__["_" + f.name] if f.name in _LAZY else getattr(result, f.name)
            for f in fields(result)}
    kept.update(changes)
    kept["info"] = {**(kept["info"] or {}), **entries}
    new = type(result)(**kept)
    new.__dict__["_pending"] = pending
    return new


@dataclass(frozen=True)
class SparsePCAResult:
    """Several sparse components, as returned by :func:`eigensparse.sparse_pca`.

    ``repr`` is one line, :meth:`summary` one row per component, and notebooks show
    that table as HTML.

    Attributes
    ----------
    components : ndarray of shape (n_components, n_features)
        Unit-norm rows.
    variances : ndarray of shape (n_components,)
        Per-component ``xᵢᵀ Σ xᵢ`` on the *original* (undeflated) covariance.
    explained_variance : ndarray of shape (n_components,)
        Adjusted variance (Zou, Hastie & Tibshirani 2006): with ``Σ^{1/2} Xᵀ = Q R``
        (QR of the component scores), ``R[i, i]**2``, in the order of the rows.
        Correlated components are not double counted; the sum equals the sum of
        ``variances`` when the scores are uncorrelated, and is less otherwise.
    supports : list of ndarray
        Sorted support of each component.
    results : list of ComponentResult
        The per-component solver results (variances there are on the deflated operator).
    total_variance : float
        ``Tr Σ`` of the original operator.
    method, deflation : str
    info : dict
        ``operator`` (its kind), ``cardinalities`` (as resolved, one per row),
        ``order`` (``"variance"``: rows by decreasing ``variances``, or
        ``"deflation"``), ``found_at`` (per row, its 0-based position in the deflation),
        ``mean``/``scale`` (data input); with ``cardinality="auto"``, ``cardinality_rule``
        and ``cardinality_choices`` (one :class:`eigensparse.selection.CardinalityChoice`
        per row); with ``stability=B``, ``stability`` (a
        :class:`eigensparse.stability.StabilityResult`).
    feature_names : list of str or None
        One name per feature, when known (words of a corpus, DataFrame columns).
    plan : eigensparse._dispatch.Plan or None
        The checked request the components answer (method, options, cardinalities,
        deflation, seeds): a refit of the same request (support stability) takes
        ``plan.reseeded(seed)``.

    Examples
    --------
    >>> import eigensparse as es
    >>> P = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = es.sparse_pca(P, n_components=2, cardinality=3, random_state=0)
    >>> res.components.shape, [s.size for s in res.supports]
    ((2, 13), [3, 3])
    >>> bool(res.explained_variance.sum() <= res.variances.sum() + 1e-12)
    True
    """

    components: np.ndarray
    variances: np.ndarray
    explained_variance: np.ndarray
    supports: list
    results: list
    total_variance: float
    method: str
    deflation: str
    info: dict[str, Any] = field(default_factory=dict)
    feature_names: list | None = None
    plan: Any = field(default=None, repr=False, compare=False)

    #: what a feature is called in tables
    feature_unit = "features"

    def __repr__(self) -> str:
        return result_repr(self)

    def summary(self, n_loadings: int = 5, title: str | None = None) -> str:
        """One row per component: cardinality, variance, explained % and its cumulative
        sum, the solver's upper bound, relative gap and ``certified`` (``-`` where the
        method gives no bound), and the top loadings with their signs and feature names —
        the cells of :meth:`format_table` (:func:`eigensparse._summary.format_summary`).

        Parameters
        ----------
        n_loadings : int, default=5
            Largest-|.| loadings shown per component.
        title : str, optional
            Replaces the class name in the header.

        Returns
        -------
        str

        Examples
        --------
        >>> import numpy as np
        >>> from eigensparse import sparse_pca
        >>> X = np.random.default_rng(0).standard_normal((40, 6))
        >>> print(sparse_pca(X, n_components=2, cardinality=3, method="greedy").summary())
        ... # doctest: +ELLIPSIS
        SparsePCAResult: 2 components, 6 features, method 'greedy', deflation 'schur', order 'variance'
        ...
        """
        return format_summary(self, n_loadings=n_loadings, title=title)

    def _repr_html_(self) -> str:
        return summary_html(self)

    @property
    def explained_variance_ratio(self) -> np.ndarray:
        """``explained_variance / total_variance``; all zeros (with a RuntimeWarning, once
        per result) when the total variance is 0 (constant data), never NaN."""
        if not self.total_variance > 0:
            if not self.__dict__.get("_zero_total_said"):  # one result, one warning
                object.__setattr__(self, "_zero_total_said", True)
                warnings.warn("total variance is 0 (constant data): explained_variance_ratio "
                              "is set to 0.", RuntimeWarning, stacklevel=2)
            return np.zeros_like(np.asarray(self.explained_variance, dtype=float))
        return self.explained_variance / self.total_variance

    def feature_label(self, i: int) -> str:
        """The name of feature ``i`` (``x{i}`` when names are unknown)."""
        return str(self.feature_names[i]) if self.feature_names is not None else f"x{i}"

    def ordered_support(self, j: int) -> np.ndarray:
        """Support of component ``j`` by decreasing |loading| (ties: by index)."""
        c, supp = self.components[j], self.supports[j]
        return supp[np.lexsort((supp, -np.abs(c[supp])))]

    def penalty_of(self, j: int):
        """The penalty ρ component ``j`` was solved at (None for cardinality methods)."""
        r = self.results[j] if j < len(self.results) else None
        pen = r.info.get("penalty") if r is not None and isinstance(r.info, dict) else None
        return None if pen is None else float(pen)

    def component_dict(self, j: int) -> dict:
        """Component ``j`` in the JSON schema (features by decreasing |loading|)."""
        order = self.ordered_support(j)
        r = self.results[j] if j < len(self.results) else None
        return {
            "rank": j + 1, "cardinality": int(order.size),
            "feature_ids": [int(i) for i in order],
            "features": [self.feature_label(i) for i in order],
            "loadings": [float(self.components[j, i]) for i in order],
            "variance": float(self.variances[j]),
            "solved_variance": None if r is None else float(r.variance),
            "explained_variance": float(self.explained_variance[j]),
            "explained_variance_ratio": float(self.explained_variance_ratio[j]),
            "penalty": self.penalty_of(j),
            "upper_bound": None if r is None or r.upper_bound is None else float(r.upper_bound),
            "gap": None if r is None or r.gap is None else float(r.gap),
            "certified": None if r is None or r.upper_bound is None else r.certified,
            "relative_gap": None if r is None else r.relative_gap,
            "bound": None if r is None else (r.info or {}).get("bound"),
            "n_iter": None if r is None else int(r.n_iter),
            "converged": None if r is None else bool(r.converged),
            "stability": None if self.stability is None else float(self.stability.stability[j]),
            "cardinality_choice": (None if not self.cardinality_choices
                                   else jsonable(self.cardinality_choices[j])),
        }

    @property
    def total_found(self) -> float:
        """The components' total variance, the sum of ``variances``."""
        return float(np.sum(self.variances))

    @property
    def total_upper_bound(self) -> float | None:
        """A proven bound on the total variance of any components with pairwise disjoint
        supports of the asked sizes (:func:`eigensparse.bounds.total_upper_bound`), for a
        joint method or ``deflation="disjoint"``; None otherwise."""
        ub = self.info.get("total_upper_bound")
        return None if ub is None else max(float(ub), self.total_found)

    def total_line(self) -> str | None:
        """``total found F; bound B (gap r%)`` when :attr:`total_upper_bound` is known."""
        ub = self.total_upper_bound
        if ub is None:
            return None
        gap = 100 * (ub - self.total_found) / ub if ub > 0 else 0.0
        return (f"total variance of the components {self.total_found:.4g}; bound on any "
                f"{self.components.shape[0]} disjoint components of these sizes {ub:.4g} "
                f"(gap {gap:.1f}%)")

    @property
    def stability(self):
        """The :class:`eigensparse.stability.StabilityResult` (None unless asked for)."""
        return self.info.get("stability")

    @property
    def cardinality_choices(self) -> list | None:
        """The choices of ``cardinality="auto"`` (None otherwise)."""
        return self.info.get("cardinality_choices")

    def choice_lines(self) -> list[str]:
        """One line per component chosen by ``cardinality="auto"`` (empty otherwise)."""
        return [f"PC{j + 1}: {c.line()}" for j, c in enumerate(self.cardinality_choices or [])]

    def to_dict(self) -> dict:
        """The one JSON schema (:data:`JSON_SCHEMA`): the request, the totals and one
        entry per component (:meth:`component_dict`); subclasses add keys."""
        return {
            "schema": JSON_SCHEMA, "method": self.method, "deflation": self.deflation,
            "n_features": int(self.components.shape[1]),
            "cardinalities": jsonable(self.info.get("cardinalities")),
            "operator": self.info.get("operator"),
            "total_variance": float(self.total_variance),
            "explained_variance_ratio": float(np.sum(self.explained_variance_ratio)),
            "total_found": self.total_found, "total_upper_bound": self.total_upper_bound,
            "cardinality_rule": self.info.get("cardinality_rule"),
            "stability": None if self.stability is None else {
                "n_resamples": int(self.stability.n_resamples),
                "resampling": self.stability.resampling},
            "components": [self.component_dict(j) for j in range(self.components.shape[0])],
        }

    def format_table(self, max_words: int | None = None, unit: str | None = None, *,
                     ascii: bool = False) -> str:
        """The components as a table (what ``eigensparse fit`` prints): one column per
        component, its loadings by decreasing |loading| (``+name 0.500``, ``−name
        0.400``), then its cardinality, variance, explained %, penalty, upper bound,
        relative gap, ``certified`` and stability — the cells of every table
        (:func:`eigensparse._summary.component_columns`). A later component of a deflation
        whose bound is about the deflated matrix also shows its variance there
        (``deflated var.``), and the legend gives the gap's formula on the printed numbers.

        Parameters
        ----------
        max_words : int, optional
            Loadings shown per component (all by default).
        unit : str, optional
            What a feature is called in the column heads (default :attr:`feature_unit`).
        ascii : bool, default=False
            ``-`` for the minus sign.

        Returns
        -------
        str
        """
        unit = self.feature_unit if unit is None else unit
        k = self.components.shape[0]
        if k == 0:
            return "(no components)"
        minus = "-" if ascii else MINUS
        comps = [self.component_dict(j) for j in range(k)]
        heads = [f"PC{j + 1} ({c['cardinality']} {unit})" for j, c in enumerate(comps)]
        one = unit[:-1] if unit.endswith("s") else unit
        lines = [component_columns(comps, heads, n_loadings=max_words, minus=minus), "",
                 f"+{one} / {minus}{one}: sign of the loading, then its magnitude"]
        if any(c["upper_bound"] is not None for c in comps):
            note = bound_note(shows_deflated(comps))
            lines.append(note if not ascii else note.replace("Σ", "Sigma"))
        if self.cardinality_choices:
            lines += ["", f"cardinality ({self.info.get('cardinality_rule')} rule):"]
            lines += ["  " + line for line in self.choice_lines()]
        return "\n".join(lines)


def jsonable(obj):
    """``obj`` with NumPy scalars/arrays as Python values and non-finite floats as None
    (strict JSON has no NaN or Infinity)."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if hasattr(obj, "to_dict"):
        return jsonable(obj.to_dict())
    return obj


def write_json(path, obj) -> str:
    """Write ``obj`` (a dict, or anything with ``to_dict()``) as strict JSON
    (``allow_nan=False``), atomically. Returns the path.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from eigensparse._result import write_json
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = write_json(os.path.join(d, "r.json"), {"variance": float("nan"), "s": 3})
    ...     print(json.load(open(path)))  # strict JSON: NaN becomes null
    {'variance': None, 's': 3}
    """
    from .io._atomic import atomic_write_text

    path = os.fspath(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    atomic_write_text(path, json.dumps(jsonable(obj), indent=2, allow_nan=False) + "\n")
    return path
