"""DSPCA by Nesterov's smoothed first-order method (handbook §3.1, Algorithm 1).

Smooth f(U) = λmax(Σ + U) by f_μ(U) = μ log Tr exp((Σ + U)/μ) − μ log p with
μ = ε / (2 log p); ∇f_μ(U) = exp((Σ+U)/μ) / Tr exp((Σ+U)/μ) is a feasible primal point
and is (1/μ)-Lipschitz; run Nesterov's optimal scheme on Q = {|U_ij| <= ρ} (projection
= entrywise clipping) and stop on the duality gap λmax(Σ + U) − Tr ΣZ + ρ‖Z‖₁.
"""
from __future__ import annotations

import time

import numpy as np

from .._validation import renamed
from .problem import RelaxationSolution, primal_value

__all__ = ["first_order_relaxation"]


def first_order_relaxation(S, rho, *, tol=1e-3, max_iter=100000, warm_start=None,
                           max_time=None, callback=None, time_limit=None) -> RelaxationSolution:
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
    max_time : float or None
        Seconds; stop (not converged) after it.
    callback : callable(iteration, elapsed, primal, dual) or None
    time_limit : float or None
        Deprecated name of ``max_time``.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.relaxation import first_order_relaxation, leading_support
    >>> S = es.datasets.load_pitprops().data[:6, :6]
    >>> sol = first_order_relaxation(S, 0.3, tol=1e-3)
    >>> sol.converged, round(sol.dual, 2), leading_support(sol.Z, 0.1)[1].tolist()
    (True, 1.38, [0, 1, 2, 3])
    """
    max_time = renamed(max_time, time_limit, new="max_time", old="time_limit",
                       caller="first_order_relaxation")
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
            if max_time is not None and elapsed > max_time:
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
