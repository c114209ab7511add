"""The rules of :mod:`eigensparse.selection`, one function each (``"fraction"``,
``"knee"``, ``"topics"``, ``"cv"``), and the variance–cardinality path they share.
Each returns a :class:`eigensparse.selection.CardinalityChoice`; the module docstring of
:mod:`eigensparse.selection` says what each rule does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._util import draw_seed
from ._validation import InvalidParameterError, check_random_state
from .bounds import _gershgorin_bounds, certify_support, monotone_upper_bounds
from .diagnostics import _adjusted_variance, variance_cardinality_path
from .operators import as_operator
from .solvers import polish

#: bounds of the ``"topics"`` rule: a topic a reader can take in at a glance
TOPIC_CARDINALITY_MIN, TOPIC_CARDINALITY_MAX = 5, 30
#: the cardinalities at which the ``"topics"`` rule runs the solver
TOPIC_GRID = (1, 2, 3, 5, 7, 10, 14, 20, 30)
#: relative tolerance when comparing a variance with the fraction's threshold
_RTOL = 1e-10
#: first cardinality tried by the doubling search of the fraction rule
_FIRST_K = 16


@dataclass(frozen=True)
class CardinalityChoice:
    """The cardinality chosen for one component, with the evidence.

    Attributes
    ----------
    cardinality : int
        The chosen s.
    rule : str
    dense_variance : float
        λmax of the operator (the dense leading component's variance).
    cardinalities : ndarray (K,)
        1..K, the cardinalities on the path.
    variances : ndarray (K,)
        Variance reached at each cardinality (a lower bound on v(s)): the path method's,
        improved where the refining solver was run, made nondecreasing (a support of
        size j < s counts for s; its entry in ``supports`` is then of size j).
    upper_bounds : ndarray (K,)
        Best upper bound on v(s) computed (NaN where none was computed).
    supports : list of K ndarrays
    result : ComponentResult
        The component at the chosen cardinality (loadings optimal on its support).
    fraction : float or None
        The rule's fraction (``"fraction"`` rule).
    proven : bool or None
        ``"fraction"`` rule: True when the bounds prove that no support of size s−1 reaches
        the threshold (s is then the exact minimum), False when they cannot.
    s_lower : int or None
        ``"fraction"`` rule: a proven lower bound on the minimal cardinality (1 + the largest
        k whose upper bound is below the threshold).
    scores : dict
        ``"cv"`` rule: ``"mean"`` and ``"se"`` arrays (K,) of the held-out score.
    reason : str
        Why this s, in words.

    Examples
    --------
    >>> import eigensparse as es
    >>> P = es.Covariance(es.datasets.load_pitprops().data)
    >>> from eigensparse.selection import choose_cardinality
    >>> choice = choose_cardinality(P, fraction=0.8)
    >>> choice.cardinality, choice.rule, choice.proven
    (5, 'fraction', True)
    >>> print(choice.line())
    s=5 chosen: reaches 0.81 >= 0.80 of λ1; s=4 cannot (bound 0.7... of λ1)
    """

    cardinality: int
    rule: str
    dense_variance: float
    cardinalities: np.ndarray
    variances: np.ndarray
    upper_bounds: np.ndarray
    supports: list
    result: object
    fraction: float | None = None
    proven: bool | None = None
    s_lower: int | None = None
    scores: dict = field(default_factory=dict)
    reason: str = ""
    #: ``solver(op, s) -> ComponentResult``, the request's method (the default method when
    #: a front door passed its own solve), and the operator the choice was made on: what
    #: :meth:`solver_variances` runs (for the plot)
    solver: object = field(default=None, repr=False, compare=False)
    operator: object = field(default=None, repr=False, compare=False)
    _solved: dict = field(default_factory=dict, repr=False, compare=False)

    def solver_variances(self, max_cardinality=None) -> np.ndarray:
        """What the request's solver reaches at s = 1..max_cardinality (default: the path's
        length), never below the path (a support of the path counts), NaN where no
        solver is known. The rule's path may be a cheaper method's (greedy, whose first
        pick on standardized data is arbitrary); this is what a fit at that s returns.

        Examples
        --------
        >>> import eigensparse as es
        >>> from eigensparse.selection import choose_cardinality
        >>> X = es.datasets.load_pitprops().data
        >>> ch = choose_cardinality(es.Covariance(X), fraction=0.8)
        >>> v = ch.solver_variances(4)
        >>> bool((v >= ch.variances[:4] - 1e-12).all()), v.shape
        (True, (4,))
        """
        K = len(self.cardinalities) if max_cardinality is None else int(max_cardinality)
        K = min(K, len(self.cardinalities))
        base = np.asarray(self.variances[:K], dtype=float)
        if self.solver is None or self.operator is None:
            return base.copy()
        out = np.empty(K)
        for s in range(1, K + 1):
            if s not in self._solved:
                try:
                    self._solved[s] = float(self.solver(self.operator, s).variance)
                except Exception:  # a solver that cannot do this s: the path's value
                    self._solved[s] = np.nan
            out[s - 1] = np.fmax(self._solved[s], base[s - 1])
        return out

    @property
    def explained_fraction(self) -> np.ndarray:
        """variances / dense_variance, per cardinality."""
        return self.variances / max(self.dense_variance, 1e-300)

    def line(self) -> str:
        """The choice in one line, for tables: ``"s=20 chosen: reaches 0.91 >= 0.90 of λ1;
        s=19 cannot (bound 0.89 of λ1)"``, or ``"…; not proven: minimum in [15, 20]"``."""
        s, lam = self.cardinality, max(self.dense_variance, 1e-300)
        if self.rule != "fraction":
            return f"s={s} chosen ({self.rule}): reaches {self.variances[s - 1] / lam:.2f} of λ1"
        head = (f"s={s} chosen: reaches {self.variances[s - 1] / lam:.2f} >= "
                f"{self.fraction:.2f} of λ1")
        if s >= 2 and self.proven:
            return head + f"; s={s - 1} cannot (bound {self.upper_bounds[s - 2] / lam:.2f} of λ1)"
        if self.proven is False and self.s_lower is not None:
            return head + f"; not proven: minimum in [{self.s_lower}, {s}]"
        return head

    def to_dict(self) -> dict:
        """The choice as plain values (JSON): rule, s, the path and its bounds, the reason."""
        return {"rule": self.rule, "cardinality": int(self.cardinality),
                "fraction": self.fraction, "proven": self.proven, "s_lower": self.s_lower,
                "dense_variance": float(self.dense_variance),
                "variances": [float(v) for v in self.variances],
                "upper_bounds": [float(v) for v in self.upper_bounds],
                "reason": self.reason, "line": self.line()}

    def plot(self, ax=None, **kwargs):
        """The path, its bounds and the chosen s (see :mod:`eigensparse.plotting`)."""
        from .plotting import plot_cardinality_path

        return plot_cardinality_path(self, ax=ax, **kwargs)


def _path(op, K, method, random_state, **kw):
    return variance_cardinality_path(op, K, method, random_state=random_state, **kw)


def _first_reaching(variances, threshold):
    ok = np.flatnonzero(variances >= threshold * (1 - _RTOL))
    return int(ok[0]) + 1 if ok.size else None


def _refiner(method, options, random_state):
    """``solve(op, s)`` from ``method`` (None: tpower, 20 starts; False: no refinement)."""
    if method is False:
        return None
    if callable(method):
        return method
    from .solvers import get_solver

    if method is None:
        method, options = "tpower", {"n_starts": 20} if options is None else options
    spec = get_solver(method)
    opts = spec.check_options(dict(options or {}))
    return lambda op, s: spec.trusted(op, s, random_state=random_state, **opts)


def _bisect_refine(op, refine, path, lo, hi, thr):
    """Smallest s in [lo, hi] the refining solver brings to ``thr`` (hi is known to reach it),
    by bisection; the path's variances and supports are improved where the solver does better.
    Returns (s, {s: result})."""
    found = {}
    while lo < hi:
        mid = (lo + hi) // 2
        r = refine(op, mid)
        if r.variance > path.variances[mid - 1]:
            path.variances[mid - 1] = r.variance
            path.supports[mid - 1] = np.sort(np.asarray(r.support))
        found[mid] = r
        if path.variances[mid - 1] >= thr * (1 - _RTOL):
            hi = mid
        else:
            lo = mid + 1
    return hi, found


def _choose_fraction(op, lam1, fraction, s_max, method, refine, random_state, certify,
                     relaxation, exact_supports):
    """Doubling search on the path, bisection with the refining solver between the bounds'
    lower limit and s, then bounds at s−1 (see the module docstring)."""
    thr = fraction * lam1
    K = min(_FIRST_K, s_max)
    while True:
        path = _path(op, K, method, random_state, certificate=False, relaxation=False,
                     penalized=False)
        s = _first_reaching(path.variances, thr)
        if s is not None or K == s_max:
            break
        K = min(2 * K, s_max)
    if s is None:  # not reached within s_max
        return _choice(op, path, s_max, "fraction", lam1, fraction=fraction, proven=False,
                       reason=f"no support of size <= s_max={s_max} found reaching "
                              f"{fraction:g}·λmax = {thr:.6g}; s_max returned")
    # bounds on v(k), k <= s (the path is recomputed up to s with the stronger bounds)
    path = _path(op, s, method, random_state, certificate=False, relaxation=relaxation,
                 penalized=True)
    ub = np.array(path.upper_bounds, dtype=float)
    cert_note = ""
    s_lower = _proven_lower(ub, s, thr)
    if refine is not None and s_lower < s:
        s, _ = _bisect_refine(op, refine, path, s_lower, s, thr)
        _running_best(path)
        method = f"{path.method}+refined"
    s, exact_note = _exact_descent(op, path, ub, s, thr, exact_supports)
    if certify and s > 1 and not ub[s - 2] < thr:
        c = certify_support(op, path.supports[s - 2])
        if c.bound is not None:
            ub[s - 2] = min(ub[s - 2], c.bound)
        cert_note = f"; Prop. 2 test of the size-{s - 1} support: {c.reason}"
    s_lower = _proven_lower(ub, s, thr)
    proven = s_lower == s
    if s == 1:
        why = "a single variable already reaches the threshold"
    elif proven:
        why = (f"upper bound on v({s - 1}) = {ub[s - 2]:.6g} < threshold: no support of size "
               f"{s - 1} reaches it, s is minimal")
    else:
        why = (f"not proven minimal: best upper bound on v({s - 1}) = {ub[s - 2]:.6g} >= "
               f"threshold; the minimal cardinality lies in [{s_lower}, {s}]")
    reason = (f"{method} support of size {s} reaches {path.variances[s - 1]:.6g} >= "
              f"{fraction:g}·λmax = {thr:.6g} (size {s - 1}: "
              f"{path.variances[s - 2] if s > 1 else 0.0:.6g}); {why}{exact_note}{cert_note}")
    return _choice(op, path, s, "fraction", lam1, upper_bounds=ub, fraction=fraction,
                   proven=proven or s == 1, s_lower=s_lower, reason=reason)


def _exact_descent(op, path, ub, s, thr, budget):
    """While v(s−1) is not bounded below the threshold and C(p, s−1) <= budget, compute it
    exactly: s−1 either falls short (s proven minimal) or reaches (s ← s−1, repeat)."""
    import math

    from .solvers import get_solver

    note = ""
    while s > 1 and not ub[s - 2] < thr and math.comb(op.n_features, s - 1) <= budget:
        r = get_solver("exhaustive").trusted(op, s - 1, max_supports=budget)
        ub[s - 2] = max(r.variance, path.variances[s - 2])
        note = f"; exhaustive search over the C({op.n_features}, {s - 1}) supports of size {s - 1}"
        if r.variance < thr * (1 - _RTOL):
            ub[s - 2] = r.variance
            break
        path.variances[s - 2] = r.variance
        path.supports[s - 2] = np.sort(np.asarray(r.support))
        s -= 1
    return s, note


def _running_best(path):
    """v is nondecreasing, so the best variance reached at any j <= k is reached at k (a
    support of size j is feasible there): make the path's lower bounds monotone."""
    best = np.maximum.accumulate(path.variances)
    for k in np.flatnonzero(best > path.variances):
        j = int(np.flatnonzero(path.variances[: k + 1] == best[k])[0])
        path.supports[k] = path.supports[j]
    path.variances[:] = best


def _proven_lower(ub, s, thr):
    """1 + the largest k < s whose upper bound on v(k) is below the threshold (v is
    nondecreasing, so no k below it reaches the threshold either)."""
    below = np.flatnonzero(ub[: s - 1] < thr)
    return int(below.max()) + 2 if below.size else 1


def _choice(op, path, s, rule, lam1, *, upper_bounds=None, **kw):
    ub = path.upper_bounds if upper_bounds is None else upper_bounds
    res = polish(op, path.supports[s - 1], path.method)
    return CardinalityChoice(
        cardinality=int(s), rule=rule, dense_variance=float(lam1),
        cardinalities=np.asarray(path.cardinalities), variances=np.asarray(path.variances),
        upper_bounds=np.asarray(ub, dtype=float), supports=list(path.supports), result=res, **kw)


def _knee_index(y):
    """0-based index of the largest distance of y above the chord from y[0] to y[-1]."""
    K = y.size
    if K <= 2:
        return K - 1
    chord = y[0] + (y[-1] - y[0]) * np.arange(K) / (K - 1)
    return int(np.argmax(y - chord))


def _choose_knee(op, lam1, K, method, random_state):
    path = _path(op, K, method, random_state, certificate=False, relaxation=False,
                 penalized=True)
    y = path.variances / max(lam1, 1e-300)
    s = _knee_index(y) + 1
    reason = (f"knee of v(s)/λmax on s=1..{K}: largest distance above the chord from "
              f"({1}, {y[0]:.4f}) to ({K}, {y[-1]:.4f}) at s={s} (v/λmax={y[s - 1]:.4f})")
    return _choice(op, path, s, "knee", lam1, reason=reason)


def _choose_topics(op, lam1, s_max, solver):
    """The ``"topics"`` rule: the solver on :data:`TOPIC_GRID`, the knee, clipped to [5, 30]."""
    hi = min(TOPIC_CARDINALITY_MAX, s_max, op.n_features)
    lo = min(TOPIC_CARDINALITY_MIN, hi)
    grid = sorted({g for g in TOPIC_GRID if g <= hi} | {hi, lo})
    results = {g: solver(op, g) for g in grid}
    v = np.maximum.accumulate(np.array([results[g].variance for g in grid], dtype=float))
    x = (np.asarray(grid, dtype=float) - 1) / max(hi - 1, 1)
    span = v[-1] - v[0]
    y = (v - v[0]) / span if span > 0 else np.zeros_like(v)
    knee = grid[int(np.argmax(y - x))]
    s = int(min(max(knee, lo), hi))
    variances = np.full(hi, np.nan)
    supports = [np.zeros(0, dtype=np.intp) for _ in range(hi)]
    for g, r in results.items():
        variances[g - 1] = r.variance
        supports[g - 1] = np.sort(np.asarray(r.support))
    d = np.sort(np.asarray(op.diag(), dtype=float))[::-1]
    ks = np.arange(1, hi + 1)
    ub = np.minimum(np.full(hi, lam1), np.cumsum(d[:hi]))
    if op.n_features <= 3000:
        ub = np.minimum(ub, _gershgorin_bounds(op, hi))
    ub = np.maximum(monotone_upper_bounds(ub), np.nan_to_num(variances))
    reason = (f"solver at s={', '.join(map(str, grid))}: knee of v(s)/λmax at s={knee} "
              f"(largest distance above the chord, both axes scaled to [0, 1])"
              + (f", clipped to [{lo}, {hi}]" if knee != s else "")
              + f"; reaches {results[s].variance / max(lam1, 1e-300):.2f} of λ1")
    return CardinalityChoice(cardinality=s, rule="topics", dense_variance=float(lam1),
                             cardinalities=ks, variances=variances, upper_bounds=ub,
                             supports=supports, result=results[s], reason=reason)


def _cv_select(mean, se, select):
    best = int(np.argmax(mean))
    if select == "max":
        return best
    return int(np.flatnonzero(mean >= mean[best] - se[best])[0])


def _choose_cv(X, op, lam1, K, method, random_state, n_folds, select, previous, deflation,
               center, scale, fit=None):
    """K-fold CV (see :mod:`eigensparse.selection`); ``fit(op, s) -> ComponentResult``,
    when given, is each training fold's component at s (the request's solve), otherwise
    the fold's ``method`` path supports, polished."""
    from sklearn.model_selection import KFold

    from .multi import deflate

    n = X.shape[0]
    if n_folds > n // 2:  # every held-out fold needs 2 samples for its covariance
        raise InvalidParameterError(
            f"parameter 'n_folds' must be <= n_samples // 2 = {n // 2} (each held-out fold "
            f"needs 2 samples); got {n_folds}.")
    prev = np.zeros((0, op.n_features)) if previous is None else np.atleast_2d(previous)
    seed = draw_seed(check_random_state(random_state))
    scores = np.zeros((n_folds, K))
    for f, (tr, te) in enumerate(KFold(n_folds, shuffle=True, random_state=int(seed)).split(
            np.arange(n))):
        train = as_operator(X[tr], center=center, scale=scale)
        test = as_operator(X[te], center=center, scale=scale)
        Q = []
        for c in prev:
            train = deflate(train, c, deflation, Q)
        if fit is None:
            path = _path(train, K, method, random_state, certificate=False, relaxation=False,
                         penalized=False)
            fold = (polish(train, supp, method) for supp in path.supports)
        else:
            fold = (fit(train, s) for s in range(1, K + 1))
        for k, r in enumerate(fold):
            x = np.vstack([prev, r.loadings])
            scores[f, k] = _adjusted_variance(test, x)[-1] / test.trace()
    mean = scores.mean(axis=0)
    se = scores.std(axis=0, ddof=1) / np.sqrt(n_folds)
    j = _cv_select(mean, se, select)
    Q = []
    for c in prev:
        op = deflate(op, c, deflation, Q)
    full = _path(op, K, method, random_state, certificate=False, relaxation=False,
                 penalized=False)
    reason = (f"{n_folds}-fold CV of the held-out adjusted explained variance: best mean "
              f"{mean.max():.5g} at s={int(np.argmax(mean)) + 1}; "
              + ("smallest s within one standard error" if select == "one_se" else "the best")
              + f": s={j + 1} (mean {mean[j]:.5g} ± {se[j]:.2g})")
    return _choice(op, full, j + 1, "cv", lam1, scores={"mean": mean, "se": se,
                                                         "folds": scores}, reason=reason)
