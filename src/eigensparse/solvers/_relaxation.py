"""The ``dspca`` and ``bca`` methods: one sparse component from the DSPCA relaxation.

The relaxation and its engines live in :mod:`eigensparse.relaxation` (first-order
method for ``dspca``, block coordinate ascent for ``bca``); this module adds what turns
them into a sparse-PCA solver: safe elimination and the penalty search for a target
cardinality (:func:`eigensparse.screening.penalty_search` over the variance breakpoints,
with warm starts and elimination at every step: the NYTimes workflow of Zhang & El
Ghaoui 2011), the sparse component read off Z and polished, and the bounds attached to
the result.

Bounds. For a result of cardinality k the ``upper_bound`` bounds
max{xᵀΣx : ‖x‖₂ = 1, ‖x‖₀ <= k}: for every ρ tried and the dual U found there,

    max_{‖x‖₀<=k} xᵀΣx  <=  ψ(ρ) + ρk  <=  φ_K(ρ) + ρk  <=  λmax(Σ_KK + U) + ρk,

with ψ the ℓ0-penalized value (weak duality), K the features surviving elimination at ρ
(exact for ψ), and φ_K >= ψ_K because rank-one Z = xxᵀ has ‖Z‖₁ = ‖x‖₁² <= ‖x‖₀.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from .._linalg import fix_sign
from .._result import ComponentResult
from .._util import Deadline
from .._validation import Interval, InvalidParameterError
from ..bounds import certify_support
from ..operators import Operator
from ..relaxation import (PrefixBlocks, RelaxationSolution, bca_relaxation, embed_warm_start,
                          first_order_relaxation, leading_support)
from ..screening import Breakpoints, penalty_search
from ..registry import BoundedSolve
from . import register
from ._common import polish_loadings

__all__ = ["dspca", "bca", "relaxation_component"]

#: engine name -> (function, name of its iteration-limit option)
_ENGINES = {"first_order": (first_order_relaxation, "max_iter"),
            "bca": (bca_relaxation, "max_sweeps")}
#: geometric refinement of ρ between two consecutive breakpoints stops at this ratio
_REFINE_RTOL = 1e-7


@dataclass
class RelaxationTrial:
    """One relaxation solved at one penalty."""

    penalty: float
    #: features kept by safe elimination (a prefix of the variance order)
    working_set_size: int
    solution: RelaxationSolution
    #: leading eigenvector of Z (working-set coordinates)
    leading_vector: np.ndarray
    #: its thresholded support (working-set coordinates)
    support: np.ndarray

    @property
    def cardinality(self) -> int:
        return int(self.support.size)


class _RelaxationRun:
    """Every relaxation solved for one component (kept for the bounds), within the
    call's ``deadline`` (a :class:`~eigensparse._util.Deadline`), with an optional tqdm bar."""

    def __init__(self, op: Operator, engine: str, tol, max_iter, solve_time, support_tol, *,
                 deadline: Deadline | None = None, bar=None):
        self.blocks = PrefixBlocks(op)
        self.deadline, self.bar = Deadline() if deadline is None else deadline, bar
        self.engine = engine
        self.solver, iter_name = _ENGINES[engine]
        self.options = {"tol": tol}
        if max_iter is not None:
            self.options[iter_name] = int(max_iter)
        if solve_time is not None:
            self.options["max_time"] = solve_time
        self.support_tol = support_tol
        self.trials: list[RelaxationTrial] = []

    def solve(self, rho, warm_start=None) -> RelaxationTrial:
        """Solve on the features kept at ``rho``; ``warm_start`` = (state, its size)."""
        k = self.blocks.n_kept(rho)
        S = self.blocks.block(k)
        ws = None if warm_start is None else embed_warm_start(*warm_start, k)
        options = self.options
        if self.deadline.bounded:  # each relaxation gets the time left (at least 1e-3 s)
            left = self.deadline.left(floor=1e-3)
            options = dict(options, max_time=min(options.get("max_time", math.inf), left))
        sol = self.solver(S, rho, warm_start=ws, **options)
        z, supp = leading_support(sol.Z, self.support_tol)
        trial = RelaxationTrial(float(rho), k, sol, z, supp)
        self.trials.append(trial)
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(rho=f"{rho:.4g}", working_set=k, card=trial.cardinality)
        return trial

    def time_left(self) -> float | None:
        """Seconds left before the deadline (None without one)."""
        return self.deadline.left() if self.deadline.bounded else None

    def out_of_time(self) -> bool:
        return self.deadline.passed()

    def search_step(self, rho, warm_start, kept):
        """The ``solve`` callback of :func:`~eigensparse.screening.penalty_search`."""
        trial = self.solve(rho, warm_start)
        return trial.cardinality, trial, (trial.solution.state, trial.working_set_size)


def _empty_result(op, rho, method, message, info):
    p = op.n_features
    return ComponentResult(loadings=np.zeros(p), support=np.zeros(0, dtype=np.intp), variance=0.0,
                           method=method, n_iter=0, converged=True, upper_bound=0.0, gap=0.0,
                           message=message, info=info)


#: the options of both relaxation methods (their types; the solver's problem is checked
#: by :data:`~eigensparse.solvers.PROBLEM_CONSTRAINTS` and :func:`_check_args`)
_CONSTRAINTS = {
    "penalty": [None, Interval(Real, 0, None, closed="left")],
    "tol": [Interval(Real, 0, 1, closed="neither")],
    "support_tol": [Interval(Real, 0, 1, closed="neither")],
    "max_penalties": [Interval(Integral, 1, None, closed="left")],
    "certify": ["boolean"],
    "max_time": [None, Interval(Real, 0, None, closed="neither")],
    "progress": ["boolean"],
}


def _check_args(op, cardinality, penalty, method):
    """What the constraints cannot say: the cardinality fits the operator, and a
    cardinality or a penalty is given."""
    p = op.n_features
    if cardinality is not None and not 1 <= int(cardinality) <= p:
        raise InvalidParameterError(
            f"{method}: parameter 'cardinality' must be an int in [1, n_features={p}] or None "
            f"(with a penalty); got {cardinality!r}.")
    if cardinality is None and penalty is None:
        raise InvalidParameterError(
            f"{method}: give a target 'cardinality' (the penalty is then searched) or a "
            "'penalty' ρ >= 0.")


def relaxation_component(op: Operator, cardinality, penalty, *, engine: str, method: str,
                         tol=1e-3, max_iter=None, support_tol=1e-3, max_penalties=40,
                         certify=True, solve_time=None, max_time=None,
                         progress=False) -> ComponentResult:
    """One sparse component from the DSPCA relaxation (see :func:`dspca` / :func:`bca`).

    ``max_time`` (seconds, whole call): each relaxation gets the time left, the penalty
    search starts no solve after it, and the best component so far is returned with a
    RuntimeWarning (``converged=False``, ``info["stopped"] = "max_time"``). ``progress``
    shows a tqdm bar over the relaxations solved (penalty, working set, cardinality).
    ``solve_time``: seconds per relaxation solve (dspca's deprecated ``time_limit``)."""
    _check_args(op, cardinality, penalty, method)
    deadline = Deadline(max_time)
    bar = _progress_bar(method) if progress else None
    try:
        run = _RelaxationRun(op, engine, tol, max_iter, solve_time, support_tol,
                             deadline=deadline, bar=bar)
        dmax = float(run.blocks.dsorted[0])
        if cardinality is None:
            rho = float(penalty)
            if not dmax > rho:
                return _all_eliminated(op, rho, dmax, method, engine)
            chosen, search_hit = run.solve(rho), True
        else:
            # as many features as carry variance at most (fewer than asked: the caller
            # says so for every method); none: the empty component
            n_pos = Breakpoints.of(run.blocks.d).n_positive
            if n_pos == 0:
                return _all_eliminated(op, 0.0, dmax, method, engine)
            cardinality = min(int(cardinality), n_pos)
            chosen, search_hit = _solve_for_cardinality(run, op, cardinality, penalty,
                                                        max_penalties, method)
    finally:
        if bar is not None:
            bar.close()
    x, lam = _sparse_component(op, run, chosen, cardinality, method)
    return _make_result(op, run, chosen, x, lam, cardinality, search_hit, certify, method,
                        max_time)


def _deprecated_time_limit(time_limit):
    """dspca's ``time_limit`` (seconds per relaxation solve), with a FutureWarning."""
    if time_limit is not None:
        import warnings

        warnings.warn("dspca: option 'time_limit' (seconds per relaxation solve) is deprecated "
                      "and will be removed; use 'max_time' (seconds for the whole call).",
                      FutureWarning, stacklevel=4)
    return time_limit


def _progress_bar(method):
    """A tqdm bar over the relaxations solved."""
    from tqdm.auto import tqdm

    return tqdm(desc=f"{method} relaxations", unit="relaxation", leave=False)


def _all_eliminated(op, rho, dmax, method, engine):
    """The empty component: ρ >= max Σ_ii eliminates every feature (said by a warning,
    as am says it when its starts collapse to 0)."""
    why = (f"penalty ρ={rho:g} >= the largest variance max Σ_ii={dmax:g}: every feature is "
           "eliminated, so the component is empty (all loadings 0); decrease 'penalty'."
           if rho >= dmax > 0 else
           "no feature has variance, so the component is empty (all loadings 0).")
    warnings.warn(f"{method}: {why}", RuntimeWarning, stacklevel=4)
    info = {"penalty": rho, "working_set_size": 0, "n_penalties_tried": 0, "engine": engine,
            "objective": 0.0, "certified": True,
            "bound_kind": "l0-penalized: the empty support is optimal",
            "n_features": op.n_features}
    return _empty_result(
        op, rho, method,
        f"penalty ρ={rho:.6g} >= the largest variance max Σ_ii={dmax:.6g}: safe "
        "elimination removes every feature, so the solution is empty (all loadings 0). "
        "Use a smaller penalty (below max Σ_ii) or give a target cardinality."
        if rho >= dmax > 0 else "no feature has variance: the solution is empty (all loadings 0).",
        info)


def _solve_for_cardinality(run, op, s, penalty, max_penalties, method):
    """(the trial used, whether its relaxation has exactly s nonzeros)."""
    p = op.n_features
    breakpoints = Breakpoints.of(run.blocks.d)
    n_pos = breakpoints.n_positive
    if penalty is None:
        # ρ = d_(s) keeps fewer than s features; the search doubles the working set from
        # 2s, bisects over the breakpoints, then geometrically between two of them
        search = penalty_search(run.search_step, s, breakpoints=breakpoints,
                                refine_rtol=_REFINE_RTOL, max_solves=max_penalties,
                                max_time=run.time_left())
        if search.best is None:  # the budget was spent before the first solve: solve once
            return run.solve(breakpoints.penalty_keeping(min(2 * s, n_pos))), False
        return search.best.result, search.hit
    rho = float(penalty)
    dmax = float(run.blocks.dsorted[0])
    if not dmax > rho:
        raise InvalidParameterError(
            f"{method}: penalty ρ={rho:.6g} >= max Σ_ii={dmax:.6g} eliminates every "
            f"feature, so no component of cardinality {s} exists at this penalty; give a "
            "smaller penalty or leave it out to search it.")
    chosen = run.solve(rho)
    return chosen, chosen.cardinality == s


def _sparse_component(op, run, chosen, top, method):
    """Loadings on the relaxation's support (its ``top`` largest entries when a
    cardinality is targeted), polished; (x, variance)."""
    p = op.n_features
    K = run.blocks.order[:chosen.working_set_size]
    if top is None:
        supp_local = chosen.support
    else:
        supp_local = np.argsort(-np.abs(chosen.leading_vector), kind="stable")[:top]
    x, lam = polish_loadings(op, np.sort(K[supp_local]))
    if top is not None and np.count_nonzero(x) < top:
        # degenerate block: the polished eigenvector has exact zeros; keep the relaxation's
        # own loadings on the s features instead (still exactly s nonzeros)
        z = np.zeros(p)
        z[K[supp_local]] = chosen.leading_vector[supp_local]
        if np.count_nonzero(z) == top:
            x = fix_sign(z / np.linalg.norm(z))
            lam = float(op.quad(x))
    # fewer than ``top`` nonzeros (a block whose optimal loadings have exact zeros, as a
    # diagonal one): returned as they are, and the caller says so for every method
    return x, lam


def _upper_bound(op, run, x, lam, card, certify):
    """(bound on max{xᵀΣx : ‖x‖₀ <= card}, whether it certifies x, the certificate); no
    certificate once the deadline has passed."""
    bounds = [float(t.solution.dual + t.penalty * card) for t in run.trials]
    ub = min(min(bounds), float(run.blocks.dsorted[:card].sum()))
    cert = None
    if certify and card > 0 and not run.out_of_time():
        try:
            cert = certify_support(op, np.flatnonzero(x), n_grid=12, n_refine=8,
                                   max_working_set=1000)
        except InvalidParameterError:
            cert = None
        if cert is not None and cert.bound is not None:
            ub = min(ub, cert.bound)
    ub = max(ub, lam)  # round-off: a valid bound is never below an achieved value
    certified = bool((cert is not None and cert.certified) or ub - lam <= 1e-9 * max(lam, 1e-300))
    return ub, certified, cert


def _make_result(op, run, chosen, x, lam, s, search_hit, certify, method,
                 max_time=None):
    """The ComponentResult with its bounds, message and info (see :func:`bca`)."""
    p, engine, sol = op.n_features, run.engine, chosen.solution
    card = int(np.count_nonzero(x))
    ub, certified, cert = _upper_bound(op, run, x, lam, card, certify)
    tried = run.trials
    stopped = run.out_of_time()
    if stopped:
        warnings.warn(f"{method}: stopped by max_time={max_time:g} s after {len(tried)} "
                      f"relaxation(s); returning the best component so far (variance {lam:.6g}, "
                      f"upper bound {ub:.6g}).", RuntimeWarning, stacklevel=4)
    if s is None:
        msg = (f"DSPCA ({engine}) at ρ={chosen.penalty:.6g}: working set "
               f"{chosen.working_set_size} of {p} features, relative duality gap "
               f"{sol.relative_gap:.2e}, cardinality {card}")
    else:
        msg = (f"DSPCA ({engine}) penalty search for cardinality {s}: ρ={chosen.penalty:.6g} "
               f"after {len(tried)} penalties, working set {chosen.working_set_size} of {p}")
        if not search_hit:
            msg += (f"; no penalty tried gave exactly {s} nonzeros (nearest above: "
                    f"{chosen.cardinality}), so the {s} largest loadings of that solution were "
                    "kept")
    if certified:
        msg += "; support certified optimal"
    info = {
        "objective": float(sol.primal),
        "dual": float(sol.dual),
        "relaxation_gap": float(sol.gap),
        "relaxation_relative_gap": float(sol.relative_gap),
        "certified": certified,
        "certificate": cert,
        "penalty": float(chosen.penalty),
        "working_set_size": int(chosen.working_set_size),
        "max_working_set_size": int(max(t.working_set_size for t in tried)),
        "n_penalties_tried": len(tried),
        "penalties_tried": [(t.penalty, t.working_set_size, t.cardinality) for t in tried],
        "relaxation_cardinality": chosen.cardinality,
        "search_hit": bool(search_hit),
        "bound_kind": (f"cardinality: upper_bound >= max{{xᵀΣx : ‖x‖₂=1, ‖x‖₀ <= {card}}} "
                       "(min over the penalties tried of λmax(Σ_KK+U)+ρ·card, the sum of the "
                       f"{card} largest variances, and the Prop. 2 certificate's bound)"),
        "penalized_upper_bound": float(sol.dual),
        "penalized_bound_kind": ("λmax(Σ_KK+U) at the chosen ρ bounds the DSPCA relaxation on the "
                                 "working set and the ℓ0-penalized value ψ(ρ) on all features"),
        "X": sol.Z,
        "U": sol.U,
        "working_set": run.blocks.order[:chosen.working_set_size],
        "engine": engine,
        "seconds": run.deadline.elapsed(),
        "relaxation_converged": bool(sol.converged),
        "stopped": "max_time" if stopped else None,
    }
    return ComponentResult(loadings=x, support=np.flatnonzero(x), variance=float(lam),
                           method=method, n_iter=int(sum(t.solution.n_iter for t in tried)),
                           converged=bool(sol.converged and search_hit and not stopped),
                           upper_bound=float(ub), gap=float(ub - lam), message=msg, info=info)


@register("dspca", penalized=True,
          cost="O(m³) per iteration (eigendecomposition) on m screened features",
          summary="DSPCA relaxation by Nesterov's smoothed first-order method (handbook §3.1), "
                  "safe elimination, penalty search for a target cardinality.",
          constraints={**_CONSTRAINTS, "max_iter": [Interval(Integral, 1, None, closed="left")],
                       "time_limit": [None, Interval(Real, 0, None, closed="neither")]},
          deprecated=("time_limit",))
def dspca(op: Operator, cardinality=None, *, random_state=None, penalty=None, tol=1e-3,
          max_iter=20000, support_tol=1e-3, max_penalties=40, certify=True, time_limit=None,
          max_time=None, progress=False):
    """DSPCA by the smoothed first-order method, with safe elimination and penalty search.

    Parameters
    ----------
    op : Operator
        The covariance Σ (positive semidefinite; checked by eigenvalues on the working set
        for operators without a data square root).
    cardinality : int or None
        Target number of nonzero loadings s: ρ is searched (bisection over the sorted
        variances, warm starts, elimination at each step) and the loadings have exactly
        s nonzeros (the s largest of the relaxation's component, polished). If a penalty
        is also given, the relaxation is solved at that penalty only.
    penalty : float >= 0, optional
        The ℓ1 penalty ρ (used directly when ``cardinality`` is None). ρ >= max Σ_ii gives
        an empty solution (explained in ``message``).
    tol : float, default=1e-3
        Relative duality gap at which each relaxation solve stops.
    max_iter : int, default=20000
        First-order iterations per relaxation solve (each costs one p×p eigendecomposition).
    support_tol : float, default=1e-3
        Support of the relaxation's component: |z_i| > support_tol·max|z|, z the leading
        eigenvector of Z.
    max_penalties : int, default=40
        Most relaxations solved by the penalty search.
    certify : bool, default=True
        Run the handbook Prop. 2 optimality test on the returned support.
    time_limit : float or None
        Deprecated (FutureWarning): seconds per relaxation solve; give ``max_time``, the
        seconds of the whole call (each relaxation gets the time left).
    max_time : float or None
        Seconds for the whole call: when spent, the best component so far is returned
        with a RuntimeWarning (``converged=False``, ``info["stopped"] = "max_time"``).
    progress : bool, default=False
        A tqdm bar over the relaxations solved.
    random_state : ignored (deterministic).

    Returns
    -------
    ComponentResult
        See ``bca``: ``upper_bound`` (on max xᵀΣx over cardinality <= card(result)),
        ``gap``, info["objective"], ["dual"], ["certified"], ["penalty"],
        ["working_set_size"], ["n_penalties_tried"], ["X"], ["U"].

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data[:6, :6])
    >>> res = get_solver("dspca").func(S, 2)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1], 1.954)
    >>> bool(res.upper_bound >= res.variance - 1e-9)  # the relaxation's bound
    True
    """
    return relaxation_component(op, cardinality, penalty, engine="first_order", method="dspca",
                                tol=tol, max_iter=max_iter, support_tol=support_tol,
                                max_penalties=max_penalties, certify=certify,
                                solve_time=_deprecated_time_limit(time_limit), max_time=max_time,
                                progress=progress)


@register("bca", penalized=True, cost="O(m³) per sweep on the m features left by elimination",
          summary="DSPCA relaxation by block coordinate ascent (Zhang & El Ghaoui 2011), "
                  "safe elimination, penalty search for a target cardinality.",
          constraints={**_CONSTRAINTS, "max_sweeps": [Interval(Integral, 1, None, closed="left")]},
          bounded=BoundedSolve(options={"certify": False}, cost_exponent=3, fallback="tpower"))
def bca(op: Operator, cardinality=None, *, random_state=None, penalty=None, tol=1e-3,
        max_sweeps=200, support_tol=1e-3, max_penalties=40, certify=True, max_time=None,
        progress=False):
    """DSPCA by block coordinate ascent, with safe elimination and penalty search.

    Parameters
    ----------
    op : Operator
        The covariance Σ (must be positive semidefinite; checked by eigenvalues on the
        working set).
    cardinality : int or None
        Target number of nonzero loadings s. The penalty ρ is then searched (bisection
        over the sorted variances, then between them, with warm starts and elimination
        at every step) and the returned loadings have exactly s nonzeros (polished on
        the support). None requires ``penalty``.
    penalty : float >= 0, optional
        Solve at this ρ directly (used when ``cardinality`` is None).
    tol : float, default=1e-3
        Relative duality gap at which each relaxation solve stops.
    max_sweeps : int, default=200
        Sweeps over the columns per relaxation solve.
    support_tol : float, default=1e-3
        Support of the relaxation's component: |z_i| > support_tol·max|z| for z the
        leading eigenvector of Z.
    max_penalties : int, default=40
        Most relaxations solved by the penalty search.
    certify : bool, default=True
        Also run the optimality test of handbook Prop. 2 on the returned support.
    max_time : float or None
        Seconds for the whole call: when spent, the best component so far is returned
        with a RuntimeWarning (``converged=False``, ``info["stopped"] = "max_time"``).
    progress : bool, default=False
        A tqdm bar over the relaxations solved.
    random_state : ignored (deterministic).

    Returns
    -------
    ComponentResult
        ``upper_bound`` bounds max{xᵀΣx : ‖x‖₀ <= card(result)} (see info["bound_kind"]);
        ``gap`` = upper_bound − variance; info has "objective" (relaxation value), "dual",
        "relaxation_gap", "certified", "penalty", "working_set_size",
        "n_penalties_tried", "penalties_tried", "X" (Z on the working set), "U",
        "working_set".

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("bca").func(S, 3)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 8], 2.475)
    >>> bool(res.upper_bound >= res.variance - 1e-9)  # the relaxation's bound
    True
    """
    return relaxation_component(op, cardinality, penalty, engine="bca", method="bca", tol=tol,
                                max_iter=max_sweeps, support_tol=support_tol,
                                max_penalties=max_penalties, certify=certify, max_time=max_time,
                                progress=progress)
