"""Safe feature elimination and penalty grids for the ℓ0 / ℓ1 penalized problems.

Zhang & El Ghaoui (NIPS 2011, Theorem 2.1), after d'Aspremont, Bach & El Ghaoui (2008):
with Σ = AᵀA (columns a_i), the ℓ0-penalized problem

    ψ(ρ) = max_{‖x‖₂=1} xᵀΣx − ρ‖x‖₀ = max_{‖ξ‖₂=1} Σ_i ((a_iᵀξ)² − ρ)₊

has its optimal support inside ``{i : (a_iᵀξ)² > ρ}``. Since (a_iᵀξ)² <= ‖a_i‖² = Σ_ii,
every feature with **Σ_ii <= ρ** is absent from every optimal support, whatever ξ: the
test is exact (never removes a feature of an optimal support) and costs only the
diagonal. The 2011 paper then solves the DSPCA relaxation on the kept features only;
that reduced relaxation still bounds ψ(ρ) from above (see :mod:`eigensparse.bounds`).

Features are kept when Σ_ii > ρ, so ``ρ = d_(k)`` (the k-th largest variance) keeps
fewer than k features: the sorted variances are the natural breakpoints of a penalty
search for a target cardinality (:class:`Breakpoints`).

:func:`penalty_search` is the one search for a penalty that gives a target cardinality:
every penalised method (DSPCA/BCA, the penalised alternating-maximization formulations,
the topic pipeline's coarse search) drives it with a ``solve(penalty, warm_start, kept)``
callback.

Ties. Variances equal up to rounding (``rtol`` of the largest, e.g. the unit diagonal
of a correlation matrix) form one *group*: a trial penalty never falls inside a group,
so a group is kept or eliminated as a whole, and the kept set of a penalty ρ is always
exactly {i : Σ_ii > ρ} (the rule of :func:`safe_elimination`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from numbers import Real

from ._util import Deadline
from ._validation import Interval, IntInterval, InvalidParameterError, validate_params
from .operators import Operator, as_operator

__all__ = ["Screening", "safe_elimination", "penalty_breakpoints", "penalty_for_working_set",
           "max_useful_penalty", "Breakpoints", "PenaltyTrial", "PenaltySearch", "penalty_search"]

#: variances within this fraction of the largest one are one tie group
TIE_RTOL = 1e-12


@dataclass(frozen=True)
class Screening:
    """Outcome of :func:`safe_elimination`.

    Attributes
    ----------
    kept : ndarray of int
        Sorted indices of the features that survive (Σ_ii > ρ).
    eliminated : ndarray of int
        Sorted indices of the features removed (Σ_ii <= ρ).
    penalty : float
        The ρ used.
    n_features : int
        p, the number of features before elimination.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.screening import safe_elimination
    >>> scr = safe_elimination(np.array([4.0, 1.0, 9.0, 2.5, 1.0]), penalty=2.0)
    >>> scr.kept.tolist(), scr.eliminated.tolist(), scr.working_set_size, round(scr.reduction, 3)
    ([0, 2, 3], [1, 4], 3, 1.667)
    """

    kept: np.ndarray
    eliminated: np.ndarray
    penalty: float
    n_features: int

    @property
    def working_set_size(self) -> int:
        """Number of kept features: the order of the matrix a solver has to handle."""
        return int(self.kept.size)

    @property
    def reduction(self) -> float:
        """p / working-set size (inf when nothing is kept)."""
        return float("inf") if self.kept.size == 0 else self.n_features / self.kept.size


def _diag_of(data_or_op_or_diag, check: bool = True) -> np.ndarray:
    if isinstance(data_or_op_or_diag, Operator):
        return np.asarray(data_or_op_or_diag.diag(), dtype=float)
    arr = np.asarray(data_or_op_or_diag)
    if arr.ndim == 1:  # the variances themselves (a user's: checked; a NaN was eliminated
        try:               # silently and sorted first among the breakpoints)
            d = arr.astype(float)
        except (TypeError, ValueError):
            d = None
        if check and (d is None or d.size == 0 or not np.all(np.isfinite(d))):
            raise InvalidParameterError(
                "parameter 'op' as a 1-D array is the variances Σ_ii: at least one, all "
                f"finite; got {data_or_op_or_diag!r}.")
        return d
    return as_operator(data_or_op_or_diag).diag()


@validate_params({"penalty": [Interval(Real, 0, None, closed="left")]})
def safe_elimination(op, penalty: float) -> Screening:
    """Features that can be dropped before solving at penalty ``ρ``.

    Parameters
    ----------
    op : Operator, data matrix or 1-D array of variances
        The covariance (only its diagonal is read).
    penalty : float >= 0
        The penalty ρ.

    Returns
    -------
    Screening
        ``kept`` = {i : Σ_ii > ρ}; ``working_set_size``; the rest is ``eliminated``.
        Exact for the ℓ0-penalized problem: no feature of an optimal support is removed.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.screening import safe_elimination
    >>> X = np.random.default_rng(0).standard_normal((200, 4)) * [1.0, 2.0, 3.0, 4.0]
    >>> safe_elimination(X, penalty=5.0).kept.tolist()  # variances ≈ 1, 4, 9, 16
    [2, 3]
    """
    rho = float(penalty)
    d = _diag_of(op)
    kept = np.flatnonzero(d > rho)
    elim = np.flatnonzero(~(d > rho))
    return Screening(kept=kept, eliminated=elim, penalty=rho, n_features=int(d.size))


def penalty_breakpoints(op) -> np.ndarray:
    """The sorted variances d_(1) >= d_(2) >= … >= d_(p) (the ρ breakpoints).

    With ρ in [d_(k+1), d_(k)) exactly k features survive elimination (ties aside), so a
    search for a target cardinality s only has to look at ρ < d_(s) and can bisect over
    these values before refining between two consecutive ones.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.screening import penalty_breakpoints
    >>> penalty_breakpoints(np.array([4.0, 1.0, 9.0, 2.5])).tolist()
    [9.0, 4.0, 2.5, 1.0]
    """
    d = _diag_of(op)
    return np.sort(d)[::-1]


@validate_params({"size": [IntInterval(1, None, closed="left")]})
def penalty_for_working_set(op, size: int) -> float:
    """The largest ρ (a sorted variance) that keeps at least ``size`` features.

    Returns d_(size+1) (so features 1..size, and ties of d_(size+1) excluded, survive), or
    0 when ``size >= p``.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.screening import penalty_for_working_set, safe_elimination
    >>> d = np.array([4.0, 1.0, 9.0, 2.5])
    >>> rho = penalty_for_working_set(d, 2)
    >>> rho, safe_elimination(d, rho).kept.tolist()
    (2.5, [0, 2])
    """
    d = penalty_breakpoints(op)
    if size >= d.size:
        return 0.0
    return float(max(d[size], 0.0))


def max_useful_penalty(op) -> float:
    """max_i Σ_ii: at or above it every feature is eliminated (the solution is empty).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.screening import max_useful_penalty, safe_elimination
    >>> d = np.array([4.0, 1.0, 9.0])
    >>> max_useful_penalty(d), safe_elimination(d, max_useful_penalty(d)).working_set_size
    (9.0, 0)
    """
    d = _diag_of(op)
    return float(d.max()) if d.size else 0.0


@dataclass(frozen=True)
class Breakpoints:
    """Sorted feature variances grouped into ties: the penalties where the kept set changes.

    Attributes
    ----------
    variances : ndarray (p,)
        Σ_ii in the original feature order.
    order : ndarray of int (p,)
        Features by decreasing variance (stable: ties keep their index order).
    group_max, group_min : ndarray (g,)
        Largest and smallest variance of each tie group of *positive* variances, groups
        by decreasing variance (values within ``TIE_RTOL``·max Σ_ii of their neighbour in
        the group).
    counts : ndarray of int (g,)
        counts[i] = number of features in groups 0..i: the features kept by any penalty
        in [group_max[i+1], group_min[i]).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.screening import Breakpoints
    >>> bp = Breakpoints.of(np.array([4.0, 1.0, 9.0, 2.5, 1.0]))  # the two 1.0 are one group
    >>> bp.order.tolist(), bp.counts.tolist(), bp.kept(2.0).tolist()
    ([2, 0, 3, 1, 4], [1, 2, 3, 5], [2, 0, 3])
    >>> bp.penalty_keeping(2)  # the largest penalty keeping 2 features
    2.5
    """

    variances: np.ndarray
    order: np.ndarray
    group_max: np.ndarray
    group_min: np.ndarray
    counts: np.ndarray

    @classmethod
    def of(cls, op_or_variances, *, rtol: float = TIE_RTOL) -> "Breakpoints":
        """Breakpoints of an operator, data matrix or 1-D array of variances."""
        d = _diag_of(op_or_variances, check=False)  # the library's own diagonals
        order = np.argsort(-d, kind="stable")
        ds = d[order]
        pos = ds[ds > 0]
        if pos.size == 0:
            empty = np.zeros(0)
            return cls(d, order, empty, empty, np.zeros(0, dtype=np.intp))
        new_group = np.ones(pos.size, dtype=bool)
        new_group[1:] = (pos[:-1] - pos[1:]) > rtol * pos[0]
        starts = np.flatnonzero(new_group)
        ends = np.append(starts[1:], pos.size)
        return cls(d, order, pos[starts], pos[ends - 1], ends.astype(np.intp))

    @property
    def sorted_variances(self) -> np.ndarray:
        """d_(1) >= d_(2) >= … >= d_(p)."""
        return self.variances[self.order]

    @property
    def n_positive(self) -> int:
        """Features of positive variance (the most any penalty >= 0 can keep)."""
        return int(self.counts[-1]) if self.counts.size else 0

    def n_kept(self, penalty: float) -> int:
        """|{i : Σ_ii > penalty}|."""
        return int(np.count_nonzero(self.variances > penalty))

    def kept(self, penalty: float) -> np.ndarray:
        """Features surviving elimination at ``penalty``, by decreasing variance."""
        return self.order[:self.n_kept(penalty)]

    def penalty_keeping(self, size: int, *, rule: str = "lower", lower: float = 0.0) -> float:
        """A penalty keeping the smallest whole set of tie groups with at least ``size``
        features.

        ``rule="lower"``: the largest variance of the next group (the smallest such
        penalty); ``"midpoint"``: halfway between the last kept group and the next one.
        ``lower`` when every positive variance is kept.
        """
        g = int(np.searchsorted(self.counts, size, side="left"))
        if g + 1 >= self.counts.size:
            return float(lower)
        nxt = float(self.group_max[g + 1])
        return nxt if rule == "lower" else 0.5 * (float(self.group_min[g]) + nxt)


@dataclass
class PenaltyTrial:
    """One solve of a penalty search.

    Examples
    --------
    >>> from eigensparse.screening import penalty_search
    >>> search = penalty_search(lambda rho, warm, kept: (int(10 / rho), None, None), 4,
    ...                         bracket=(0.1, 10.0))
    >>> trial = search.best
    >>> trial.cardinality, 2.0 < trial.penalty <= 2.5, trial.solved
    (4, True, True)
    """

    penalty: float
    cardinality: int
    #: what ``solve`` returned as its result
    result: object = None
    #: features kept by safe elimination (None without breakpoints)
    working_set_size: int | None = None
    #: False when elimination kept nothing and ``solve`` was not called
    solved: bool = True


@dataclass
class PenaltySearch:
    """Outcome of :func:`penalty_search`.

    ``best`` is a trial within the tolerance when ``hit``; otherwise the trial of
    smallest cardinality above the target (larger penalty on ties), or, when none is
    above, the largest cardinality below it (smaller penalty on ties). ``stopped``:
    "hit", "bracket" (the bracket closed), "max_solves", "max_time", "exhausted" (even
    the smallest penalty allowed stays below the target) or "lower" (the search needs a
    penalty below ``lower``: the caller's working set is too small).

    Examples
    --------
    >>> from eigensparse.screening import penalty_search
    >>> search = penalty_search(lambda rho, warm, kept: (int(10 / rho), None, None), 4,
    ...                         bracket=(0.1, 10.0))
    >>> search.hit, search.stopped, search.n_solves == len(search.trials)
    (True, 'hit', True)
    """

    best: PenaltyTrial | None
    hit: bool
    trials: list = field(default_factory=list)
    stopped: str = ""

    @property
    def n_solves(self) -> int:
        return sum(1 for t in self.trials if t.solved)


class _Searcher:
    """State of one :func:`penalty_search` (trials, warm start, budget)."""

    def __init__(self, solve, target, tolerance, breakpoints, lower, max_solves, max_time):
        self.solve, self.target, self.tol = solve, int(target), int(tolerance)
        self.bp, self.lower = breakpoints, float(lower)
        self.max_solves = max_solves
        self.deadline = Deadline(max_time)
        self.trials: list[PenaltyTrial] = []
        self.by_penalty: dict[float, PenaltyTrial] = {}
        self.state = None
        self.n_solves = 0

    def out_of_budget(self) -> str | None:
        if self.n_solves >= self.max_solves:
            return "max_solves"
        if self.deadline.passed():
            return "max_time"
        return None

    def hit(self, t: PenaltyTrial) -> bool:
        return abs(t.cardinality - self.target) <= self.tol

    def above(self, t: PenaltyTrial) -> bool:
        return t.cardinality > self.target + self.tol

    def trial(self, penalty: float) -> PenaltyTrial:
        """Solve at ``penalty`` (elimination re-applied, warm start from the last solve)."""
        penalty = float(penalty)
        if penalty in self.by_penalty:
            return self.by_penalty[penalty]
        kept = None if self.bp is None else self.bp.kept(penalty)
        if kept is not None and kept.size == 0:
            t = PenaltyTrial(penalty, 0, None, 0, solved=False)
        else:
            card, result, self.state = self.solve(penalty, self.state, kept)
            self.n_solves += 1
            t = PenaltyTrial(penalty, int(card), result, None if kept is None else int(kept.size))
        self.trials.append(t)
        self.by_penalty[penalty] = t
        return t

    def best_above(self):
        above = [t for t in self.trials if self.above(t)]
        return min(above, key=lambda t: (t.cardinality, -t.penalty)) if above else None

    def finish(self, stopped: str) -> PenaltySearch:
        hits = [t for t in self.trials if self.hit(t) and t.solved]
        if hits:
            return PenaltySearch(hits[0], True, self.trials, stopped)
        best = self.best_above()
        if best is None:
            below = [t for t in self.trials if t.solved]
            best = max(below, key=lambda t: (t.cardinality, -t.penalty)) if below else None
        return PenaltySearch(best, False, self.trials, stopped)

    def refine(self, lo: float, hi: float, rtol: float) -> str:
        """Geometric bisection of ρ in (lo, hi): cardinality above the target at lo,
        below at hi; returns why it stopped."""
        while hi > lo * (1 + rtol):
            why = self.out_of_budget()
            if why:
                return why
            # √lo·√hi, not √(lo·hi): the product underflows where Σ's scale is below
            # ~1e-154, and a midpoint equal to an end would be solved again forever
            mid = math.sqrt(lo) * math.sqrt(hi) if lo > 0 else 0.5 * hi
            if not lo < mid < hi:
                return "bracket"
            t = self.trial(mid)
            if self.hit(t):
                return "hit"
            if self.above(t):
                lo = mid
            else:
                hi = mid
        return "bracket"


def _search_sizes(sr: _Searcher, start_size, rule) -> tuple[str, float | None]:
    """Discrete phase over kept-set sizes: grow by doubling until the cardinality
    passes the target, then bisect over sizes. Returns (why it stopped, the smallest
    penalty known to leave the cardinality below the target)."""
    bp, s, tol = sr.bp, sr.target, sr.tol
    P = bp.n_positive
    short_size = max(s - tol - 1, 0)  # keeping this few features can never reach s − tol
    short_penalty = float(bp.sorted_variances[s - tol - 1]) if s - tol >= 1 else math.inf
    size = min(max(int(start_size), 1), P)
    above_size = None

    def step(size):
        """Solve keeping ``size`` features: "hit", "above", "short" or why it stopped."""
        rho = bp.penalty_keeping(size, rule=rule, lower=sr.lower)
        why = "lower" if rho < sr.lower else sr.out_of_budget()
        if why:
            return why, None
        t = sr.trial(rho)
        return ("hit" if sr.hit(t) else "above" if sr.above(t) else "short"), t

    while above_size is None or above_size - short_size > 1:
        growing = above_size is None
        outcome, t = step(size)
        if outcome == "above":
            above_size = size
        elif outcome == "short":
            short_size, short_penalty = size, t.penalty
            if growing and size >= P:
                return ("lower" if sr.lower > 0 else "exhausted"), short_penalty
        else:
            return outcome, short_penalty
        if above_size is None:
            size = min(2 * size, P)
        else:
            size = (above_size + short_size) // 2
    return "bracket", short_penalty


@validate_params({"target": [IntInterval(1, None, closed="left")]})
def penalty_search(solve: Callable, target: int, *, breakpoints: Breakpoints | None = None,
                   bracket: tuple[float, float] | None = None, tolerance: int = 0,
                   start_size: int | None = None, penalty_rule: str = "lower",
                   refine_rtol: float | None = None, lower: float = 0.0,
                   max_solves: int = 40, max_time: float | None = None) -> PenaltySearch:
    """Search a penalty whose solution has ``target`` ± ``tolerance`` nonzeros.

    Assumes the cardinality of the solution does not increase with the penalty.

    Parameters
    ----------
    solve : callable(penalty, warm_start, kept) -> (cardinality, result, state)
        Solves the penalised problem at ``penalty``. ``warm_start`` is the ``state``
        returned by the previous solve (None at first); ``kept`` the features surviving
        safe elimination at that penalty, by decreasing variance (None without
        ``breakpoints``). Not called when elimination keeps nothing (cardinality 0).
    target : int
        The cardinality s sought.
    breakpoints : Breakpoints, optional
        Variance breakpoints (the penalty is an ℓ0/ℓ1 penalty on the variance scale):
        the search first doubles the kept-set size from ``start_size`` (default
        min(2s, p₊)) until the cardinality passes s + tolerance, bisects over kept-set
        sizes (penalties between tie groups, see :meth:`Breakpoints.penalty_keeping`),
        and then, if ``refine_rtol`` is given, bisects ρ geometrically between the two
        closest penalties on either side.
    bracket : (lo, hi), optional
        Without breakpoints: geometric bisection of ρ in (lo, hi), lo > 0, with the
        cardinality above the target at lo and below it at hi, down to hi/lo < 1 +
        ``refine_rtol`` (default 1e-4).
    tolerance : int, default=0
        Accept a cardinality within ``tolerance`` of ``target``.
    penalty_rule : {"lower", "midpoint"}
        Which penalty between two tie groups (see :meth:`Breakpoints.penalty_keeping`).
    lower : float, default=0
        Smallest penalty the search may use. When no trial reaches the target, the
        search solves at ``lower`` (if it has not) before giving up.
    max_solves : int, default=40
        Most calls of ``solve``.
    max_time : float, optional
        Seconds; no new solve starts after it.

    Returns
    -------
    PenaltySearch
        ``best``, ``hit``, every trial and why the search stopped.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.screening import penalty_search
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> def solve(penalty, warm_start, kept):  # ℓ0-penalized alternating maximization
    ...     res = get_solver("am").func(S, formulation="l2_l0_pen", penalty=penalty, random_state=0)
    ...     return res.support.size, res, None
    >>> search = penalty_search(solve, 5, bracket=(1e-3, 1.0))
    >>> search.hit, search.best.result.support.tolist()
    (True, [0, 1, 6, 8, 9])
    """
    if (breakpoints is None) == (bracket is None):
        raise InvalidParameterError(
            "penalty_search: give exactly one of 'breakpoints' (variance-scale penalties) or "
            "'bracket' (a (lo, hi) penalty interval).")
    if penalty_rule not in ("lower", "midpoint"):
        raise InvalidParameterError(
            f"penalty_search: parameter 'penalty_rule' must be 'lower' or 'midpoint'; got "
            f"{penalty_rule!r}.")
    sr = _Searcher(solve, target, tolerance, breakpoints, lower, max_solves, max_time)
    if breakpoints is None:
        lo, hi = (float(v) for v in bracket)
        stopped = sr.refine(lo, hi, 1e-4 if refine_rtol is None else refine_rtol)
    elif breakpoints.n_positive == 0:
        stopped = "exhausted"
    else:
        start = min(2 * int(target), breakpoints.n_positive) if start_size is None else start_size
        stopped, short_penalty = _search_sizes(sr, start, penalty_rule)
        best = sr.best_above()
        if stopped == "bracket" and refine_rtol is not None and best is not None:
            stopped = sr.refine(best.penalty, short_penalty, refine_rtol)
    if stopped != "hit" and sr.best_above() is None and not any(sr.hit(t) for t in sr.trials) \
            and stopped not in ("lower", "max_time") and sr.lower not in sr.by_penalty:
        sr.trial(sr.lower)
    return sr.finish(stopped)
