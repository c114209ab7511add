"""Block coordinate ascent for the DSPCA relaxation (Zhang & El Ghaoui, NIPS 2011, §3).

DSPCA (d'Aspremont et al. 2007):   φ(ρ) = max { Tr ΣZ − ρ·1ᵀ|Z|1 : Tr Z = 1, Z ⪰ 0 },
dual:                               min { λmax(Σ + U) : |U_ij| <= ρ }.

With X = φZ the problem becomes max Tr ΣX − ρ‖X‖₁ − ½(Tr X)² over X ⪰ 0, and a log-det
barrier β log det X (β = ε/p) makes it strictly concave, so row/column coordinate
ascent converges to its optimum. Updating row/column j of X (Y = X without row and
column j, s = Σ_{·j} without Σ_jj, t = Tr Y, c = Σ_jj − ρ − t):

1. box QP  R² = min_u uᵀYu  s.t. ‖u − s‖∞ <= ρ, by coordinate descent with the closed
   form of the paper's eqs. (12)–(13): u_i = clip(−g_i / Y_ii, s_i − ρ, s_i + ρ) where
   g_i = Σ_{k≠i} Y_ik u_k (if Y_ii = 0: s_i − ρ when g_i > 0, else s_i + ρ);
2. τ > 0 minimising R²/τ − β log τ + ½(c + τ)²: the unique positive root of
   τ³ + cτ² − βτ − R² = 0;
3. X_{·j} = Y u / τ and X_jj = c + τ.

The Schur complement of the new row is exactly β/τ > 0, so X stays positive definite.
At the barrier optimum, U with off-diagonal entries u − s (symmetrised) and U_jj = −ρ
satisfies the KKT conditions Σ + U + βX⁻¹ = (Tr X)·I, so it is a dual certificate:
λmax(Σ + U) − [Tr ΣZ − ρ‖Z‖₁] (Z = X / Tr X) is a duality gap <= βp / Tr X. The solver
therefore sets β = ½·tol·φ̂² / p from the current estimate φ̂ of φ and stops on the
relative duality gap, computed exactly every sweep.

The inner loops are compiled with numba (``cache=True``), O(p²) per column, O(K p³) in
all for K sweeps. Features with Σ_ii <= ρ should be removed first (safe elimination,
:mod:`eigensparse.screening`); the ``bca`` solver (:mod:`eigensparse.solvers._relaxation`)
does so.
"""
from __future__ import annotations

import time

import numba
import numpy as np

from .._validation import renamed
from .problem import RelaxationSolution, dual_value, primal_value

__all__ = ["bca_relaxation"]


@numba.njit(cache=True)
def _positive_cubic_root(c, beta, R2):
    """Unique positive root of τ³ + cτ² − βτ − R² (β > 0 or R² > 0)."""
    hi = 1.0 + abs(c) + beta + R2
    lo = 0.0
    # initial guess: the root without the β and R² terms, clipped into (lo, hi)
    tau = -c if c < 0 else 0.5 * hi
    if tau <= lo or tau >= hi:
        tau = 0.5 * (lo + hi)
    for _ in range(200):
        f = ((tau + c) * tau - beta) * tau - R2
        if f > 0:
            hi = tau
        else:
            lo = tau
        df = (3.0 * tau + 2.0 * c) * tau - beta
        step_ok = False
        if df > 0:
            new = tau - f / df
            if lo < new < hi:
                step_ok = True
                if abs(new - tau) <= 1e-15 * max(1.0, tau):
                    return new
                tau = new
        if not step_ok:
            tau = 0.5 * (lo + hi)
        if hi - lo <= 1e-16 * max(1.0, hi):
            break
    return tau


@numba.njit(cache=True)
def _bca_sweep(S, rho, beta, X, V, u, g, cd_tol, cd_max_iter):
    """One sweep over all columns; X (p×p, PD) and V (dual off-diagonals) updated in place.

    Returns the total number of coordinate-descent passes performed.
    """
    p = S.shape[0]
    trace = 0.0
    for i in range(p):
        trace += X[i, i]
    passes = 0
    for j in range(p):
        t = trace - X[j, j]
        c = S[j, j] - rho - t
        # warm start u from the stored dual column: u = s + v
        for i in range(p):
            u[i] = S[i, j] + V[i, j]
        u[j] = 0.0
        # g = Y u (u_j = 0, so column j of X does not contribute; g_j is unused)
        for i in range(p):
            acc = 0.0
            for k in range(p):
                acc += X[i, k] * u[k]
            g[i] = acc
        for it in range(cd_max_iter):
            passes += 1
            maxd = 0.0
            for i in range(p):
                if i == j:
                    continue
                yii = X[i, i]
                gi = g[i] - yii * u[i]
                si = S[i, j]
                if yii > 0.0:
                    new = -gi / yii
                    if new < si - rho:
                        new = si - rho
                    elif new > si + rho:
                        new = si + rho
                else:
                    new = si - rho if gi > 0.0 else si + rho
                d = new - u[i]
                if d != 0.0:
                    u[i] = new
                    for k in range(p):
                        g[k] += d * X[i, k]
                    ad = abs(d) * np.sqrt(yii) if yii > 0.0 else abs(d)
                    if ad > maxd:
                        maxd = ad
            if maxd <= cd_tol:
                break
        R2 = 0.0
        for i in range(p):
            if i != j:
                R2 += u[i] * g[i]
        if R2 < 0.0:
            R2 = 0.0
        tau = _positive_cubic_root(c, beta, R2)
        for i in range(p):
            if i != j:
                val = g[i] / tau
                X[i, j] = val
                X[j, i] = val
                V[i, j] = u[i] - S[i, j]
        newx = c + tau
        trace += newx - X[j, j]
        X[j, j] = newx
        V[j, j] = -rho
    return passes


def _symmetric_dual(V, rho):
    U = 0.5 * (V + V.T)
    np.clip(U, -rho, rho, out=U)
    np.fill_diagonal(U, -rho)
    return U


def bca_relaxation(S, rho, *, tol=1e-3, max_sweeps=200, warm_start=None, cd_tol=None,
                   cd_max_iter=None, check_every=5, max_time=None, callback=None,
                   time_limit=None) -> RelaxationSolution:
    """Solve DSPCA on a dense Σ (features with Σ_ii <= ρ should be eliminated first).

    Parameters
    ----------
    S : ndarray (p, p), symmetric PSD
    rho : float >= 0
    tol : float
        Target relative duality gap (λmax(Σ+U) − primal) / λmax(Σ+U).
    max_sweeps : int
    warm_start : (X, V) or None
        Previous barrier iterate X (p×p, PD) and dual off-diagonals V; default X = I.
    cd_tol, cd_max_iter : float, int
        Coordinate-descent tolerance (default 1e-9·max Σ_ii) and passes per column (default
        1 when tol >= 1e-4, else 10; warm-started from the previous sweep).
    check_every : int
        Sweeps between two evaluations of the dual bound λmax(Σ+U) (O(p³) each).
    max_time : float or None
        Seconds; stop (not converged) after it.
    callback : callable(sweep, elapsed, primal, dual) or None
    time_limit : float or None
        Deprecated name of ``max_time``.

    Stops on the relative duality gap, or when the primal value stalls (two sweeps each
    gaining less than tol/50, relative): the primal converges in a few sweeps while the
    dual certificate built from the box-QP solutions can lag; ``info["stopping"]`` says
    which rule fired and ``relative_gap`` is the certified gap either way.

    Returns
    -------
    RelaxationSolution with Z (Tr Z = 1, Z ⪰ 0), U (|U_ij| <= ρ), primal, dual values.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.relaxation import bca_relaxation, leading_support
    >>> S = es.datasets.load_pitprops().data[:6, :6]
    >>> sol = bca_relaxation(S, 0.3, tol=1e-3)
    >>> sol.converged, round(sol.dual, 2), leading_support(sol.Z, 0.1)[1].tolist()
    (True, 1.38, [0, 1, 2, 3])
    """
    max_time = renamed(max_time, time_limit, new="max_time", old="time_limit",
                       caller="bca_relaxation")
    S = np.ascontiguousarray(S, dtype=np.float64)
    p = S.shape[0]
    rho = float(rho)
    t0 = time.perf_counter()
    if warm_start is not None:
        X = np.array(warm_start[0], dtype=np.float64, order="C")
        V = np.array(warm_start[1], dtype=np.float64, order="C")
        np.clip(V, -rho, rho, out=V)
    else:
        X = np.eye(p)
        V = np.zeros((p, p))
    d = np.diag(S)
    phi_lo = max(float(d.max()) - rho, 1e-300)  # φ >= max_i Σ_ii − ρ (Z = e_i e_iᵀ)
    scale = float(d.max()) + rho
    if cd_tol is None:
        cd_tol = 1e-9 * max(scale, 1e-300)
    if cd_max_iter is None:
        # one warm-started coordinate-descent pass per column is enough at moderate accuracy
        # (the box QP's solution moves little between sweeps); more for tight tolerances
        cd_max_iter = 1 if tol >= 1e-4 else 10
    u = np.zeros(p)
    g = np.zeros(p)
    best_primal, best_dual = -np.inf, np.inf
    best_Z, best_U = None, None
    converged = False
    stopping = "max_sweeps"
    sweeps = 0
    passes = 0
    phi_hat = phi_lo
    prev = -np.inf
    stall = 0
    for sweeps in range(1, max_sweeps + 1):
        beta = 0.5 * tol * phi_hat**2 / p
        passes += _bca_sweep(S, rho, beta, X, V, u, g, cd_tol, cd_max_iter)
        trX = float(np.trace(X))
        Z = X / trX
        pv = primal_value(S, Z, rho)
        if pv > best_primal:
            best_primal, best_Z = pv, Z
        phi_hat = max(phi_lo, best_primal)
        # the primal has stalled when a sweep gains less than tol/50 (relative), twice
        stall = stall + 1 if abs(pv - prev) <= 0.02 * tol * abs(pv) and sweeps > 2 else 0
        prev = pv
        last = sweeps == max_sweeps or stall >= 2
        if sweeps % check_every == 0 or last or sweeps <= 2:
            U = _symmetric_dual(V, rho)
            dv = dual_value(S, U)
            if dv < best_dual:
                best_dual, best_U = dv, U
        elapsed = time.perf_counter() - t0
        if callback is not None:
            callback(sweeps, elapsed, best_primal, best_dual)
        if best_dual - best_primal <= tol * abs(best_dual):
            converged, stopping = True, "duality gap"
            break
        if stall >= 2:
            converged, stopping = True, "primal stalled"
            break
        if max_time is not None and elapsed > max_time:
            stopping = "time limit"
            break
    return RelaxationSolution(Z=best_Z, U=best_U, primal=best_primal, dual=best_dual,
                              n_iter=sweeps, converged=converged,
                              seconds=time.perf_counter() - t0, state=(X, V),
                              info={"cd_passes": int(passes), "beta": beta,
                                    "stopping": stopping})
