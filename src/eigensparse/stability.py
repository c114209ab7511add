"""Support stability: would the same variables come back on other data?

:func:`support_stability` fits once on the data (the *reference*), then refits on
``n_resamples`` resampled data sets (rows drawn with replacement, or subsamples without),
matches each refit's components to the reference components by their loadings
(maximum total |cosine|, :func:`scipy.optimize.linear_sum_assignment`), and counts how often
each variable is in the support of the component matched to reference component j.

- ``frequencies[j, i]``: the share of refits whose component matched to j selects variable i.
- ``stability[j]``: mean of ``frequencies[j, I_j]`` over the reference support I_j
  (1 when every refit selects exactly the reference's variables).

Each resample's rows and solver seed are drawn up front from ``random_state``, so the
result does not depend on ``n_jobs`` or the backend. Sparse data are row-indexed (never
densified); a Dask array is resampled lazily and every refit runs on its cluster, up to
``n_jobs`` refits at a time.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

from ._validation import (IntInterval, Interval, InvalidParameterError, StrOptions,
                          check_random_state, validate_params)
from ._result import SparsePCAResult
from ._util import draw_seed

__all__ = ["StabilityResult", "support_stability", "resample_stability", "match_components"]

RESAMPLINGS = ("bootstrap", "subsample")


@dataclass(frozen=True)
class StabilityResult:
    """Outcome of :func:`support_stability`.

    Attributes
    ----------
    frequencies : ndarray (n_components, n_features)
        Selection frequency of each variable in the component matched to each reference
        component.
    stability : ndarray (n_components,)
        Mean selection frequency over each reference support.
    reference : SparsePCAResult
        The fit on the full data.
    cosines : ndarray (n_resamples, n_components)
        |cosine| between each reference component and its match in each refit.
    matches : ndarray of int (n_resamples, n_components)
        Index of the refit component matched to each reference component.
    n_resamples : int
    resampling : str

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 12))
    >>> X[:, :3] += 2 * rng.standard_normal((300, 1))  # a planted block
    >>> from eigensparse.stability import support_stability
    >>> st = support_stability(X, 1, 3, n_resamples=5, random_state=0)
    >>> st.frequencies.shape, st.stability.round(2).tolist()
    ((1, 12), [1.0])
    """

    frequencies: np.ndarray
    stability: np.ndarray
    reference: object
    cosines: np.ndarray
    matches: np.ndarray
    n_resamples: int
    resampling: str

    def __repr__(self) -> str:
        return (f"StabilityResult(n_components={self.stability.size}, "
                f"n_features={self.frequencies.shape[1]}, n_resamples={int(self.n_resamples)}, "
                f"resampling={self.resampling!r}, stability={[round(float(v), 3) for v in self.stability]})")

    @validate_params({"component": [IntInterval(0, None, closed="left")],
                      "n": [None, IntInterval(1, None, closed="left")]})
    def top_variables(self, component, n=None):
        """Variables of a component by decreasing selection frequency: (indices,
        frequencies); ``component`` in [0, n_components), ``n`` (None: every variable
        selected at least once) an int >= 1."""
        k = self.frequencies.shape[0]
        if component >= k:
            raise InvalidParameterError(
                f"parameter 'component' must be in [0, {k - 1}] (the result has {k} "
                f"component(s)); got {component}.")
        f = self.frequencies[int(component)]
        order = np.argsort(-f, kind="stable")
        order = order[f[order] > 0] if n is None else order[:n]
        return order, f[order]

    def lines(self, feature_names=None, *, label="component"):
        """One line per component, for tables: ``"component 1: stability 0.94 (word 1.00, …)"``
        with the reference support's variables and their selection frequencies."""
        from ._printable import printable

        out = []
        label_of = getattr(self.reference, "feature_label", None)
        for j, supp in enumerate(self.reference.supports):
            names = [str(feature_names[i]) if feature_names is not None
                     else (label_of(i) if label_of is not None else str(i)) for i in supp]
            freqs = ", ".join(f"{printable(w)} {f:.2f}"
                              for w, f in zip(names, self.frequencies[j, supp]))
            out.append(f"{label} {j + 1}: stability {self.stability[j]:.2f} ({freqs})")
        return out

    def to_dict(self) -> dict:
        """Plain values (JSON): per component its stability and the selection frequency of
        each variable of its reference support."""
        return {"n_resamples": int(self.n_resamples), "resampling": self.resampling,
                "stability": [float(v) for v in self.stability],
                "support_frequencies": [[float(f) for f in self.frequencies[j, supp]]
                                        for j, supp in enumerate(self.reference.supports)]}

    def plot(self, ax=None, **kwargs):
        """Heat map of the frequencies (see :func:`eigensparse.plotting.plot_stability`)."""
        from .plotting import plot_stability

        return plot_stability(self, ax=ax, **kwargs)


def match_components(reference, other):
    """Match the rows of ``other`` to the rows of ``reference`` by maximum total |cosine|.

    Parameters
    ----------
    reference : ndarray (k, p)
    other : ndarray (m, p), m >= k

    Returns
    -------
    (matches, cosines) : ndarray of int (k,), ndarray (k,)
        ``other[matches[j]]`` is the match of ``reference[j]`` and ``cosines[j]`` their
        |cosine|.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.stability import match_components
    >>> matches, cosines = match_components(np.eye(3)[:2], np.eye(3)[[2, 1, 0]])
    >>> matches.tolist(), cosines.tolist()
    ([2, 1], [1.0, 1.0])
    """
    A = np.atleast_2d(np.asarray(reference, dtype=float))
    B = np.atleast_2d(np.asarray(other, dtype=float))
    if A.ndim != 2 or B.ndim != 2 or A.shape[1] != B.shape[1] or B.shape[0] < A.shape[0]:
        raise InvalidParameterError(
            f"parameters 'reference' and 'other' must be components (k, p) and (m, p) with "
            f"m >= k; got shapes {A.shape} and {B.shape}.")
    na = np.linalg.norm(A, axis=1, keepdims=True)
    nb = np.linalg.norm(B, axis=1, keepdims=True)
    cos = np.abs((A / np.maximum(na, 1e-300)) @ (B / np.maximum(nb, 1e-300)).T)
    rows, cols = linear_sum_assignment(-cos)
    matches = np.empty(A.shape[0], dtype=np.intp)
    matches[rows] = cols
    return matches, cos[rows, cols][np.argsort(rows)]


#: the resampling parameters of :func:`support_stability` and :func:`resample_stability`
_CONSTRAINTS = {
    "n_resamples": [Interval(Integral, 2, None, closed="left")],
    "resampling": [StrOptions(set(RESAMPLINGS))],
    "subsample_fraction": [Interval(Real, 0, 1, closed="neither")],
    "n_jobs": [None, IntInterval(None, -1, closed="right"), IntInterval(1, None, closed="left")],
    "backend": [StrOptions({"threads", "processes"})],
    "random_state": ["random_state", np.random.Generator],
    "reference": [None, SparsePCAResult],
    "n_samples": [IntInterval(1, None, closed="left")],
    "refit": [callable],
}


def _check(X, n_jobs):
    check_resamplable(X)


def check_resamplable(X, name: str = "X") -> None:
    """A clear error unless ``X`` is a data matrix whose rows can be resampled (an
    operator such as a precomputed ``Covariance`` has no rows)."""
    from .operators import Operator

    if isinstance(X, Operator):
        raise InvalidParameterError(
            f"parameter '{name}': support stability resamples the data rows; a {X.kind} "
            f"({type(X).__name__}) has none. Pass the data matrix.")
    if getattr(X, "ndim", 2) != 2 or not hasattr(X, "shape"):
        raise InvalidParameterError(
            f"parameter '{name}' must be a 2-D data matrix (array, scipy.sparse matrix or dask "
            f"array) with rows as samples; got {type(X).__name__}.")


def _draw_rows(rng, n, resampling, subsample_fraction):
    if resampling == "bootstrap":
        return np.sort(rng.integers(0, n, size=n))
    m = max(2, int(round(subsample_fraction * n)))
    return np.sort(rng.choice(n, size=m, replace=False))


def _resampled(X, rows, plan):
    """The resampled data set. Uncentered, unscaled bootstrap data are passed as their
    distinct rows each weighted by √(count): the covariance is the same up to the factor
    n/n_distinct (the same components), with about 63% of the rows."""
    if hasattr(X, "iloc"):  # a pandas DataFrame: rows by position
        return _resampled(X.to_numpy(dtype=float), rows, plan)
    if plan.center or plan.scale or _is_dask(X):
        return X[rows]
    u, counts = np.unique(rows, return_counts=True)
    if np.all(counts == 1):
        return X[u]
    w = np.sqrt(counts.astype(float))
    if sp.issparse(X):
        return sp.csr_matrix(sp.diags(w) @ X[u])
    return np.asarray(X[u], dtype=float) * w[:, None]


def _refit(X, rows, seed, plan):
    from ._dispatch import fit_plan

    return fit_plan(_resampled(X, rows, plan), plan.reseeded(int(seed))).components


def _refit_plan(reference):
    """The plan of the refits of ``reference``: its own plan, with the cardinalities it
    found fixed (in the order the deflation found them) when a rule chose them."""
    plan = reference.plan
    if plan.auto is None:
        return plan
    cards = [0] * plan.n_components
    for row, at in enumerate(reference.info["found_at"]):
        cards[at] = int(reference.info["cardinalities"][row])
    return plan.reseeded(plan.seeds[0], cards)


#: keyword arguments of :func:`eigensparse.sparse_pca` that are not method options
_FIT_KEYWORDS = ("penalty", "client", "device", "cardinality_rule", "cardinality_fraction")


@validate_params(_CONSTRAINTS)
def support_stability(X, n_components=None, cardinality=None, *, n_resamples=20,
                      resampling="bootstrap", subsample_fraction=0.5, method=None,
                      deflation="schur", center=True, scale=False, n_jobs=None,
                      backend="threads", random_state=None, reference=None,
                      **fit_options) -> StabilityResult:
    """Selection frequency of each variable in each sparse component, over resampled data.

    Parameters
    ----------
    X : ndarray, scipy.sparse matrix or dask array, shape (n_samples, n_features)
        The data; rows are resampled. Sparse data stay sparse.
    n_components : int, optional
    cardinality : int, list of int or "auto", optional
        As in :func:`eigensparse.sparse_pca` (the same for the reference and every refit;
        with ``"auto"`` every refit chooses its own). Ignored when ``reference`` is given.
    n_resamples : int, default=20
        Number of refits (>= 2).
    resampling : {"bootstrap", "subsample"}, default="bootstrap"
        Rows drawn with replacement (n of them), or ``subsample_fraction``·n rows without.
    subsample_fraction : float in (0, 1), default=0.5
    method, deflation, center, scale, **fit_options
        Passed to :func:`eigensparse.sparse_pca` (``method=None``: its default).
    n_jobs : int, optional
        Refits run in parallel with joblib (None: 1; -1: all cores). For a Dask array,
        ``n_jobs`` threads each submit one refit's computations to the cluster (the Dask
        scheduler in use: a ``distributed.Client`` when one is active), so up to
        ``n_jobs`` refits share the cluster at once.
    backend : {"threads", "processes"}, default="threads"
        joblib's preference; threads share the data (the sparse and dense products release
        the GIL), processes copy it to each worker.
    random_state : None, int or Generator
        Seeds the reference fit, the rows of each resample and each refit; the same value
        gives the same result whatever ``n_jobs`` and ``backend``.
    reference : SparsePCAResult, optional
        The fit on the full data when already done (``sparse_pca(..., stability=B)``,
        ``SparsePCA.support_stability``): every refit is then its request
        (``reference.plan.reseeded(seed)``: method, options, deflation, refinement,
        cardinalities, the ones chosen after ``cardinality="auto"``), and the other fit
        parameters here are not used.

    Returns
    -------
    StabilityResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 12))
    >>> X[:, :3] += 2 * rng.standard_normal((300, 1))  # a planted block
    >>> from eigensparse.stability import support_stability
    >>> st = support_stability(X, 1, 3, n_resamples=5, random_state=0)
    >>> import numpy as np
    >>> np.flatnonzero(st.frequencies[0] >= 0.8).tolist()  # the planted block, every time
    [0, 1, 2]
    """
    from ._dispatch import fit_plan, plan_fit

    _check(X, n_jobs)
    if reference is not None and reference.components.shape[1] != X.shape[1]:
        raise InvalidParameterError(
            f"parameter 'reference' was fitted on {reference.components.shape[1]} features "
            f"but X has {X.shape[1]}; pass the fit of this X.")
    rng = check_random_state(random_state)
    if reference is not None and reference.plan is not None:
        plan = _refit_plan(reference)
    else:
        if reference is not None:  # a result without its plan: its method and cardinalities
            n_components, method, deflation = len(reference.supports), reference.method, \
                reference.deflation
            cards = reference.info.get("cardinalities") or [None]
            cardinality = None if all(c is None for c in cards) else [int(c) for c in cards]
        fit_kwargs = dict(n_components=n_components, cardinality=cardinality,
                          deflation=deflation, center=center, scale=scale,
                          **{k: fit_options.pop(k) for k in _FIT_KEYWORDS if k in fit_options},
                          method_options=fit_options)
        if method is not None:
            fit_kwargs["method"] = method
        seed = draw_seed(rng) if reference is None else 0
        op, plan = plan_fit(X, random_state=seed, **fit_kwargs)
        if reference is None:
            reference = fit_plan(X, plan, op=op)
    return resample_stability(
        reference, int(X.shape[0]), lambda rows, seed: _refit(X, rows, seed, plan),
        n_resamples=n_resamples, resampling=resampling, subsample_fraction=subsample_fraction,
        n_jobs=n_jobs, backend="threads" if _is_dask(X) else backend, random_state=rng)


@validate_params(_CONSTRAINTS)
def resample_stability(reference, n_samples, refit, *, n_resamples=20, resampling="bootstrap",
                       subsample_fraction=0.5, n_jobs=None, backend="threads",
                       random_state=None) -> StabilityResult:
    """The engine of :func:`support_stability`, for any refit: draw the resamples' rows and
    seeds, refit each, match its components to the reference's and count the selections.

    Parameters
    ----------
    reference : SparsePCAResult
        The fit on all ``n_samples`` rows.
    n_samples : int
    refit : callable
        ``refit(rows, seed) -> ndarray (m, n_features)``, m >= n_components: the
        components on the rows ``rows`` (sorted, with repeats for a bootstrap), seeded
        by ``seed`` (the topic pipeline refits on its working set).
    n_resamples, resampling, subsample_fraction, n_jobs, backend, random_state
        As :func:`support_stability` (``random_state`` may be a Generator, then advanced).

    Returns
    -------
    StabilityResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 12))
    >>> X[:, :3] += 2 * rng.standard_normal((300, 1))  # a planted block
    >>> import eigensparse as es
    >>> from eigensparse.stability import resample_stability
    >>> ref = es.sparse_pca(X, n_components=1, cardinality=3, random_state=0)
    >>> def refit(rows, seed):
    ...     return es.sparse_pca(X[rows], n_components=1, cardinality=3, random_state=seed).components
    >>> resample_stability(ref, X.shape[0], refit, n_resamples=4, random_state=0).stability.tolist()
    [1.0]
    """
    rng = check_random_state(random_state)
    draws = [_draw_rows(rng, n_samples, resampling, subsample_fraction)
             for _ in range(n_resamples)]
    seeds = draw_seed(rng, size=n_resamples)
    comps = _run_refits(refit, draws, seeds, n_jobs, backend)
    C = reference.components
    k, p = C.shape
    freq = np.zeros((k, p))
    cosines = np.zeros((n_resamples, k))
    matches = np.zeros((n_resamples, k), dtype=np.intp)
    for b, D in enumerate(comps):
        matches[b], cosines[b] = match_components(C, D)
        freq += D[matches[b]] != 0
    freq /= n_resamples
    stability = np.array([freq[j, reference.supports[j]].mean() if reference.supports[j].size
                          else np.nan for j in range(k)])
    return StabilityResult(freq, stability, reference, cosines, matches, n_resamples, resampling)


def _is_dask(X):
    return type(X).__module__.split(".")[0] == "dask"


def _run_refits(refit, draws, seeds, n_jobs, backend):
    """``refit(rows, seed)`` for each resample; with a Dask array each thread drives one
    refit's graphs on the cluster."""
    if n_jobs in (None, 1):
        return [refit(rows, int(s)) for rows, s in zip(draws, seeds)]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_jobs, prefer=backend)(
        delayed(refit)(rows, int(s)) for rows, s in zip(draws, seeds))
