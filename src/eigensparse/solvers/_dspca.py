"""DSPCA: the ℓ1-penalized semidefinite relaxation of sparse PCA and its first-order method.

Relaxation (d'Aspremont, El Ghaoui, Jordan & Lanckriet 2007; handbook §2.1):

    φ(ρ) = max { Tr ΣZ − ρ·1ᵀ|Z|1 : Tr Z = 1, Z ⪰ 0 } = min { λmax(Σ + U) : |U_ij| <= ρ }.

First-order method (handbook §3.1, Algorithm 1; Nesterov 2005/2007): smooth
f(U) = λmax(Σ + U) by f_μ(U) = μ log Tr exp((Σ + U)/μ) − μ log p with μ = ε / (2 log p);
∇f_μ(U) = exp((Σ+U)/μ) / Tr exp((Σ+U)/μ) is a feasible primal point and is (1/μ)-Lipschitz;
run Nesterov's optimal scheme on Q = {|U_ij| <= ρ} (projection = entrywise clipping)
and stop on the duality gap λmax(Σ + U) − Tr ΣZ + ρ‖Z‖₁.

This module also holds what the two DSPCA solvers (``dspca`` here, ``bca`` in
:mod:`._bca`) share: safe feature elimination, the penalty search for a target
cardinality (bisection over the sorted variances, then between two of them, with warm
starts and elimination at every step: the NYTimes workflow of Zhang & El Ghaoui 2011),
the extraction of a sparse component from Z, and the bounds attached to the result.

Bounds. For a result of cardinality k the ``upper_bound`` bounds
max{xᵀΣx : ‖x‖₂ = 1, ‖x‖₀ <= k}: for every ρ tried and the dual U found there,

    max_{‖x‖₀<=k} xᵀΣx  <=  ψ(ρ) + ρk  <=  φ_K(ρ) + ρk  <=  λmax(Σ_KK + U) + ρk,

with ψ the ℓ0-penalized value (weak duality), K the features surviving elimination at ρ
(exact for ψ), and φ_K >= ψ_K because rank-one Z = xxᵀ has ‖Z‖₁ = ‖x‖₁² <= ‖x‖₀.
"""
from __future__ import annotations

import math
import numbers
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import linalg as sla

from .._linalg import fix_sign, top_eigh
from .._result import ComponentResult
from .._validation import Interval, InvalidParameterError, validate_params
from ..operators import Operator
from . import register
from ._common import polish_loadings

__all__ = ["dspca", "first_order_relaxation", "RelaxationSolution", "primal_value",
           "dual_value", "relaxation_component"]


@dataclass
class RelaxationSolution:
    """Approximate primal–dual solution of DSPCA on a dense Σ (one penalty)."""

    Z: np.ndarray  # primal: Tr Z = 1, Z ⪰ 0
    U: np.ndarray  # dual: |U_ij| <= ρ
    primal: float  # Tr ΣZ − ρ‖Z‖₁  (a lower bound on φ)
    dual: float  # λmax(Σ + U)     (an upper bound on φ)
    n_iter: int
    converged: bool
    seconds: float
    state: object = None  # engine-specific warm-start state
    info: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        return self.dual - self.primal

    @property
    def relative_gap(self) -> float:
        return self.gap / max(abs(self.dual), 1e-300)


def primal_value(S, Z, rho) -> float:
    """DSPCA objective Tr ΣZ − ρ·1ᵀ|Z|1."""
    return float(np.einsum("ij,ij->", S, Z) - rho * np.abs(Z).sum())


def dual_value(S, U) -> float:
    """DSPCA dual objective λmax(Σ + U)."""
    M = S + U
    M = 0.5 * (M + M.T)
    p = M.shape[0]
    if p == 1:
        return float(M[0, 0])
    return float(sla.eigh(M, eigvals_only=True, subset_by_index=[p - 1, p - 1], driver="evr")[0])


def _psd_project_trace_one(Z):
    """Nearest (eigenvalue-clipped) PSD matrix with unit trace (round-off clean-up)."""
    w, Q = np.linalg.eigh(0.5 * (Z + Z.T))
    w = np.clip(w, 0, None)
    w /= w.sum()
    return (Q * w) @ Q.T


def first_order_relaxation(S, rho, *, tol=1e-3, max_iter=100000, warm_start=None,
                           time_limit=None, callback=None) -> RelaxationSolution:
    """Solve DSPCA on a dense Σ with the smoothed first-order method (handbook Alg. 1).

    Parameters
    ----------
    S : ndarray (p, p), symmetric PSD
    rho : float >= 0
    tol : float
        Target relative duality gap; the smoothing is μ = tol·φ̂ / (2 log p), with φ̂ an
        estimate of φ (refreshed, with a restart, when the primal value outgrows it).
    max_iter : int
    warm_start : ndarray (p, p) or None
        Initial dual U (clipped to the box); default 0.
    time_limit : float or None
        Seconds; stop (not converged) after it.
    callback : callable(iteration, elapsed, primal, dual) or None
    """
    S = np.ascontiguousarray(S, dtype=np.float64)
    S = 0.5 * (S + S.T)
    p = S.shape[0]
    rho = float(rho)
    t0 = time.perf_counter()
    if p == 1:
        Z = np.ones((1, 1))
        U = -rho * np.ones((1, 1))
        v = float(S[0, 0] - rho)
        return RelaxationSolution(Z, U, v, v, 0, True, time.perf_counter() - t0, state=U)
    d = np.diag(S)
    phi_hat = max(float(d.max()) - rho, 1e-12 * max(float(d.max()), 1e-300))
    logp = np.log(p)
    U = np.zeros((p, p)) if warm_start is None else np.clip(np.array(warm_start, dtype=float),
                                                             -rho, rho)
    best_primal, best_dual = -np.inf, np.inf
    best_Z, best_U = None, U.copy()
    converged = False
    k_total = 0
    while True:  # restarts when φ̂ was badly underestimated
        mu = tol * phi_hat / (2.0 * logp)
        G = np.zeros((p, p))
        Xavg = np.zeros((p, p))
        restart = False
        k = 0
        while k_total < max_iter:
            w, Q = np.linalg.eigh(S + U)
            wmax = w[-1]
            e = np.exp((w - wmax) / mu)
            keep = e > 1e-18
            ek = e[keep] / e[keep].sum()
            Qk = Q[:, keep]
            X = (Qk * ek) @ Qk.T  # ∇f_μ(U): feasible, Tr X = 1, X ⪰ 0
            if wmax < best_dual:
                best_dual, best_U = float(wmax), U.copy()
            # weighted average of the gradients: the primal sequence of the smoothing scheme
            a = 2.0 * (k + 1) / ((k + 1) * (k + 2))
            Xavg = (1 - a) * Xavg + a * X
            for cand in (X, Xavg):
                pv = primal_value(S, cand, rho)
                if pv > best_primal:
                    best_primal, best_Z = pv, cand.copy()
            k += 1
            k_total += 1
            elapsed = time.perf_counter() - t0
            if callback is not None:
                callback(k_total, elapsed, best_primal, best_dual)
            if best_dual - best_primal <= tol * abs(best_dual):
                converged = True
                break
            if time_limit is not None and elapsed > time_limit:
                break
            if best_primal > 1.5 * phi_hat and k > 20:
                phi_hat = best_primal
                restart = True
                break
            Y = np.clip(U - mu * X, -rho, rho)
            G += 0.5 * (k) * X  # (i+1)/2 with i = k-1
            W = np.clip(-mu * G, -rho, rho)
            U = (2.0 / (k + 2)) * W + (k / (k + 2.0)) * Y
        if not restart:
            break
        U = best_U.copy()
    return RelaxationSolution(Z=best_Z, U=best_U, primal=best_primal, dual=best_dual,
                              n_iter=k_total, converged=converged,
                              seconds=time.perf_counter() - t0, state=best_U,
                              info={"mu": mu})


# --------------------------------------------------------------------------------------
# shared driver: elimination, penalty search, component extraction, bounds
# --------------------------------------------------------------------------------------

def _engine(name):
    if name == "bca":
        from ._bca import bca_relaxation

        return bca_relaxation
    return first_order_relaxation


class _Blocks:
    """Dense principal blocks Σ[K, K] for prefixes K of the variance order (cached)."""

    def __init__(self, op: Operator):
        self.op = op
        self.d = np.asarray(op.diag(), dtype=float)
        self.order = np.argsort(-self.d, kind="stable")
        self.dsorted = self.d[self.order]
        self.S = np.zeros((0, 0))
        self.psd_checked = 0
        self.check_psd = not op.has_data

    def n_kept(self, rho) -> int:
        return int(np.count_nonzero(self.dsorted > rho))

    def block(self, k) -> np.ndarray:
        if k > self.S.shape[0]:
            kk = max(k, min(2 * self.S.shape[0], self.d.size)) if self.S.shape[0] else k
            kk = min(kk, self.d.size)
            B = self.op.block(self.order[:kk])
            self.S = np.ascontiguousarray(0.5 * (B + B.T))
        S = self.S[:k, :k]
        if self.check_psd and k > self.psd_checked:
            w = np.linalg.eigvalsh(S)
            if w[0] < -1e-9 * max(abs(w[-1]), 1e-300) * max(1, k) ** 0.5:
                raise InvalidParameterError(
                    f"the covariance is not positive semidefinite: its principal block on the "
                    f"{k} features of largest variance has smallest eigenvalue {w[0]:.4g} "
                    f"(largest {w[-1]:.4g}); DSPCA needs a PSD covariance (use a sample "
                    "covariance, or add a multiple of the identity).")
            self.psd_checked = k
        return S


def _embed_state(state, k_old, k_new, engine):
    """Warm-start state of a prefix of size k_old turned into one of size k_new."""
    if state is None:
        return None
    if engine == "bca":
        X, V = state
        if k_new <= k_old:
            return (X[:k_new, :k_new].copy(), V[:k_new, :k_new].copy())
        Xn = np.zeros((k_new, k_new))
        Vn = np.zeros((k_new, k_new))
        Xn[:k_old, :k_old] = X
        Vn[:k_old, :k_old] = V
        fill = max(float(np.trace(X)) / max(k_old, 1) * 1e-2, 1e-12)
        idx = np.arange(k_old, k_new)
        Xn[idx, idx] = fill
        return (Xn, Vn)
    U = state
    if k_new <= k_old:
        return U[:k_new, :k_new].copy()
    Un = np.zeros((k_new, k_new))
    Un[:k_old, :k_old] = U
    return Un


@dataclass
class _Solve:
    rho: float
    k: int  # working-set size (prefix of the variance order)
    sol: RelaxationSolution
    z: np.ndarray  # leading eigenvector of Z (working-set coordinates)
    support: np.ndarray  # thresholded support (working-set coordinates)

    @property
    def card(self) -> int:
        return int(self.support.size)


def _extract(Z, support_tol):
    lam, z = top_eigh(0.5 * (Z + Z.T))
    z = fix_sign(z)
    m = np.abs(z).max() if z.size else 0.0
    supp = np.flatnonzero(np.abs(z) > support_tol * m) if m > 0 else np.zeros(0, dtype=np.intp)
    return z, supp


def _empty_result(op, rho, method, message, info):
    p = op.n_features
    return ComponentResult(loadings=np.zeros(p), support=np.zeros(0, dtype=np.intp), variance=0.0,
                           method=method, n_iter=0, converged=True, upper_bound=0.0, gap=0.0,
                           message=message, info=info)


def _check_args(op, cardinality, penalty, method, tol, support_tol):
    if not isinstance(op, Operator):
        raise InvalidParameterError(
            f"{method}: parameter 'op' must be an eigensparse Operator; got {type(op).__name__}.")
    p = op.n_features
    if cardinality is not None and (not isinstance(cardinality, numbers.Integral)
                                    or isinstance(cardinality, bool)
                                    or not 1 <= int(cardinality) <= p):
        raise InvalidParameterError(
            f"{method}: parameter 'cardinality' must be an int in [1, n_features={p}] or None "
            f"(with a penalty); got {cardinality!r}.")
    if penalty is not None and (isinstance(penalty, bool) or not isinstance(penalty, numbers.Real)
                                or not np.isfinite(penalty) or penalty < 0):
        raise InvalidParameterError(
            f"{method}: parameter 'penalty' must be a finite real number >= 0 (the ℓ1 penalty ρ); "
            f"got {penalty!r}.")
    if cardinality is None and penalty is None:
        raise InvalidParameterError(
            f"{method}: give a target 'cardinality' (the penalty is then searched) or a "
            "'penalty' ρ >= 0.")
    for name, val in (("tol", tol), ("support_tol", support_tol)):
        if isinstance(val, bool) or not isinstance(val, numbers.Real) or not 0 < val < 1:
            raise InvalidParameterError(
                f"{method}: parameter {name!r} must be a real number in (0, 1); got {val!r}.")


def relaxation_component(op: Operator, cardinality, penalty, *, engine: str, method: str,
                         tol=1e-3, max_iter=None, support_tol=1e-3, max_penalties=40,
                         certify=True, time_limit=None, max_time=None,
                         progress=False) -> ComponentResult:
    """One sparse component from the DSPCA relaxation (see :func:`dspca` / ``bca``).

    ``max_time`` (seconds, whole call): each relaxation gets the time left, the penalty
    search stops when it is spent, and the best component so far is returned with a
    RuntimeWarning (``converged=False``, ``info["stopped"] = "max_time"``). ``progress``
    shows a tqdm bar over the relaxations solved (penalty, working set, cardinality)."""
    _check_args(op, cardinality, penalty, method, tol, support_tol)
    validate_params({"max_time": max_time},
                    {"max_time": [None, Interval("real", 0, None, closed="neither")]}, where=method)
    if (isinstance(max_penalties, bool) or not isinstance(max_penalties, numbers.Integral)
            or max_penalties < 1):
        raise InvalidParameterError(
            f"{method}: parameter 'max_penalties' must be an int >= 1; got {max_penalties!r}.")
    t_start = time.perf_counter()
    solver = _engine(engine)
    kw = {"tol": tol}
    if max_iter is not None:
        kw["max_sweeps" if engine == "bca" else "max_iter"] = int(max_iter)
    if time_limit is not None:
        kw["time_limit"] = time_limit
    blocks = _Blocks(op)
    p = op.n_features
    s = None if cardinality is None else int(cardinality)
    dmax = float(blocks.dsorted[0])
    tried: list[_Solve] = []
    last_state = [None, 0]

    deadline = math.inf if max_time is None else t_start + float(max_time)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(desc=f"{method} relaxations", unit="relaxation", leave=False)

    def out_of_time():
        return time.perf_counter() >= deadline

    def solve(rho):
        if max_time is not None:
            left = max(deadline - time.perf_counter(), 1e-3)
            kw["time_limit"] = left if time_limit is None else min(time_limit, left)
        k = blocks.n_kept(rho)
        S = blocks.block(k)
        ws = _embed_state(last_state[0], last_state[1], k, engine)
        sol = solver(S, rho, warm_start=ws, **kw)
        last_state[0], last_state[1] = sol.state, k
        z, supp = _extract(sol.Z, support_tol)
        rec = _Solve(float(rho), k, sol, z, supp)
        tried.append(rec)
        if bar is not None:
            bar.update(1)
            bar.set_postfix(rho=f"{rho:.4g}", working_set=k, card=rec.card)
        return rec

    base_info = {"penalty": None, "working_set_size": 0, "n_penalties_tried": 0,
                 "engine": engine}

    # ---------------- penalty given, no cardinality: solve at ρ -----------------------
    if s is None:
        rho = float(penalty)
        if not dmax > rho:
            info = dict(base_info, penalty=rho, objective=0.0, certified=True,
                        bound_kind="l0-penalized: the empty support is optimal",
                        n_features=p)
            return _empty_result(
                op, rho, method,
                f"penalty ρ={rho:.6g} >= the largest variance max Σ_ii={dmax:.6g}: safe "
                "elimination removes every feature, so the solution is empty (all loadings 0). "
                "Use a smaller penalty (below max Σ_ii) or give a target cardinality.", info)
        rec = solve(rho)
        chosen, top = rec, None
        search_hit = True
    else:
        n_pos = int(np.count_nonzero(blocks.dsorted > 0))
        if s > n_pos:
            raise InvalidParameterError(
                f"{method}: target cardinality {s} is unreachable: only {n_pos} of the {p} "
                "features have positive variance, and a zero-variance feature can never carry "
                "a nonzero optimal loading. Use cardinality <= "
                f"{n_pos}.")
        if penalty is not None:
            rho = float(penalty)
            if not dmax > rho:
                raise InvalidParameterError(
                    f"{method}: penalty ρ={rho:.6g} >= max Σ_ii={dmax:.6g} eliminates every "
                    f"feature, so no component of cardinality {s} exists at this penalty; give a "
                    "smaller penalty or leave it out to search it.")
            chosen = solve(rho)
            search_hit = chosen.card == s
        else:
            chosen, search_hit = _penalty_search(solve, tried, blocks, s, max_penalties, method,
                                                 out_of_time)
        top = s
    if bar is not None:
        bar.close()
    sol = chosen.sol
    K = blocks.order[:chosen.k]
    # ---------------- the sparse component -------------------------------------------------
    if top is None:
        supp_local = chosen.support
    else:
        order = np.argsort(-np.abs(chosen.z), kind="stable")
        supp_local = order[:top]
    support = np.sort(K[supp_local])
    x, lam = polish_loadings(op, support)
    if top is not None and np.count_nonzero(x) < top:
        # degenerate block: the polished eigenvector has exact zeros; keep the relaxation's
        # own loadings on the s features instead (still exactly s nonzeros)
        z = np.zeros(p)
        z[K[supp_local]] = chosen.z[supp_local]
        if np.count_nonzero(z) == top:
            x = fix_sign(z / np.linalg.norm(z))
            lam = float(op.quad(x))
    card = int(np.count_nonzero(x))
    if top is not None and card < top:
        raise InvalidParameterError(
            f"{method}: target cardinality {top} is unreachable: the best support of {top} "
            f"features the relaxation points to has an optimal loading vector with only {card} "
            f"nonzero(s) (even at penalty 0 the relaxation's component has "
            f"{int(np.count_nonzero(chosen.z))} nonzero loading(s)); use cardinality <= {card} "
            "or another method.")
    # ---------------- bounds -----------------------------------------------------------------
    bounds = [float(r.sol.dual + r.rho * card) for r in tried]
    dsum = float(blocks.dsorted[:card].sum())
    ub = min(min(bounds), dsum)
    cert = None
    if certify and card > 0 and not out_of_time():
        from ..bounds import certify_support

        try:
            cert = certify_support(op, np.flatnonzero(x), n_grid=12, n_refine=8,
                                   max_working_set=1000)
        except InvalidParameterError:
            cert = None
        if cert is not None and cert.bound is not None:
            ub = min(ub, cert.bound)
    ub = max(ub, lam)  # round-off: a valid bound is never below an achieved value
    certified = bool((cert is not None and cert.certified) or ub - lam <= 1e-9 * max(lam, 1e-300))
    n_iter = int(sum(r.sol.n_iter for r in tried))
    stopped = out_of_time()
    converged = bool(sol.converged and search_hit and not stopped)
    if stopped:
        warnings.warn(f"{method}: stopped by max_time={max_time:g} s after {len(tried)} "
                      f"relaxation(s); returning the best component so far (variance {lam:.6g}, "
                      f"upper bound {max(min(bounds), lam):.6g}).", RuntimeWarning, stacklevel=3)
    if s is None:
        msg = (f"DSPCA ({engine}) at ρ={chosen.rho:.6g}: working set {chosen.k} of {p} features, "
               f"relative duality gap {sol.relative_gap:.2e}, cardinality {card}")
    else:
        msg = (f"DSPCA ({engine}) penalty search for cardinality {s}: ρ={chosen.rho:.6g} after "
               f"{len(tried)} penalties, working set {chosen.k} of {p}")
        if not search_hit:
            msg += (f"; no penalty tried gave exactly {s} nonzeros (nearest above: "
                    f"{chosen.card}), so the {s} largest loadings of that solution were kept")
    if certified:
        msg += "; support certified optimal"
    info = {
        "objective": float(sol.primal),
        "dual": float(sol.dual),
        "relaxation_gap": float(sol.gap),
        "relaxation_relative_gap": float(sol.relative_gap),
        "certified": certified,
        "certificate": cert,
        "penalty": float(chosen.rho),
        "working_set_size": int(chosen.k),
        "max_working_set_size": int(max(r.k for r in tried)),
        "n_penalties_tried": len(tried),
        "penalties_tried": [(r.rho, r.k, r.card) for r in tried],
        "relaxation_cardinality": chosen.card,
        "search_hit": bool(search_hit),
        "bound_kind": (f"cardinality: upper_bound >= max{{xᵀΣx : ‖x‖₂=1, ‖x‖₀ <= {card}}} "
                       "(min over the penalties tried of λmax(Σ_KK+U)+ρ·card, the sum of the "
                       f"{card} largest variances, and the Prop. 2 certificate's bound)"),
        "penalized_upper_bound": float(sol.dual),
        "penalized_bound_kind": ("λmax(Σ_KK+U) at the chosen ρ bounds the DSPCA relaxation on the "
                                 "working set and the ℓ0-penalized value ψ(ρ) on all features"),
        "X": sol.Z,
        "U": sol.U,
        "working_set": K,
        "engine": engine,
        "seconds": time.perf_counter() - t_start,
        "relaxation_converged": bool(sol.converged),
        "stopped": "max_time" if stopped else None,
    }
    return ComponentResult(loadings=x, support=np.flatnonzero(x), variance=float(lam),
                           method=method, n_iter=n_iter, converged=converged,
                           upper_bound=float(ub), gap=float(ub - lam), message=msg, info=info)


def _penalty_search(solve, tried, blocks, s, max_penalties, method, out_of_time=lambda: False):
    """Bisection for a penalty whose relaxation has exactly ``s`` nonzeros.

    ρ = d_(s) (the s-th largest variance) keeps fewer than s features, so its cardinality
    is < s. Working sets are grown by doubling along the sorted variances (ρ = d_(k+1)
    keeps the k features of largest variance) until the relaxation has >= s nonzeros; the
    bracket is then bisected over the sorted variances, and finally geometrically between
    two consecutive ones. Every solve eliminates features and is warm-started.
    Returns (the solve used, whether its cardinality is exactly s).
    """
    d = blocks.dsorted
    n_pos = int(np.count_nonzero(d > 0))

    def rho_for(k):
        """The largest breakpoint keeping at least the k features of largest variance:
        the first sorted variance strictly below d_(k) (ties kept together), else 0."""
        if k >= n_pos:
            return 0.0
        below = np.flatnonzero(d[k:] < d[k - 1])
        return float(d[k + below[0]]) if below.size and d[k + below[0]] > 0 else 0.0

    hi_k, hi_rho = s - 1, float(d[s - 1])  # cardinality < s guaranteed there
    lo = None
    k = min(2 * s, n_pos)
    while True:
        rec = solve(rho_for(k))
        if rec.card == s:
            return rec, True
        if rec.card > s:
            lo = rec
            break
        hi_k, hi_rho = k, rec.rho
        if k >= n_pos or out_of_time():
            break
        k = min(2 * k, n_pos)
    if lo is None:
        # even plain PCA (ρ = 0) has fewer than s loadings above the support threshold: use
        # its s largest loadings; the caller checks that s nonzeros are really reachable
        return rec, False
    lo_k, best = k, lo
    # bisection over the sorted variances: hi_k features kept -> card < s, lo_k -> card > s
    while lo_k - hi_k > 1 and len(tried) < max_penalties and not out_of_time():
        mid = (lo_k + hi_k) // 2
        rec = solve(rho_for(mid))
        if rec.card == s:
            return rec, True
        if rec.card > s:
            lo_k = mid
            if rec.card <= best.card:
                best = rec
        else:
            hi_k, hi_rho = mid, rec.rho
    # between two consecutive variances: geometric bisection on ρ
    lo_rho = best.rho
    while len(tried) < max_penalties and hi_rho > lo_rho * (1 + 1e-7) and not out_of_time():
        mid = float(np.sqrt(lo_rho * hi_rho)) if lo_rho > 0 else 0.5 * hi_rho
        rec = solve(mid)
        if rec.card == s:
            return rec, True
        if rec.card > s:
            lo_rho = mid
            if rec.card <= best.card:
                best = rec
        else:
            hi_rho = mid
    return best, False


@register("dspca", penalized=True,
          summary="DSPCA relaxation by Nesterov's smoothed first-order method (handbook §3.1), "
                  "safe elimination, penalty search for a target cardinality.")
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
        Seconds per relaxation solve.
    max_time : float or None
        Seconds for the whole call: when spent, the best component so far is returned
        with a RuntimeWarning (``converged=False``).
    progress : bool, default=False
        A tqdm bar over the relaxations solved.
    random_state : ignored (deterministic).

    Returns
    -------
    ComponentResult
        See ``bca``: ``upper_bound`` (on max xᵀΣx over cardinality <= card(result)),
        ``gap``, info["objective"], ["dual"], ["certified"], ["penalty"],
        ["working_set_size"], ["n_penalties_tried"], ["X"], ["U"].
    """
    return relaxation_component(op, cardinality, penalty, engine="first_order", method="dspca",
                                tol=tol, max_iter=max_iter, support_tol=support_tol,
                                max_penalties=max_penalties, certify=certify,
                                time_limit=time_limit, max_time=max_time, progress=progress)
