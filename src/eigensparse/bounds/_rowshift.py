"""The row-shift dual bound on v(s), optimized on a core block, with the outside block
bounded by its proven largest eigenvalue.

For a PSD Σ (p × p), a cardinality s and any symmetric U with a zero diagonal, let
r_i(U) be the sum of the s − 1 largest |U_ij|, j ≠ i, and M(U) = Σ − U + diag(r(U)).

**Bound.** For every unit x supported on a set T with |T| <= s,
xᵀΣx = xᵀ(Σ − U)x + xᵀUx and, since 2|x_ix_j| <= x_i² + x_j² and U is symmetric,
xᵀUx <= Σ_{i≠j∈T} |U_ij||x_i||x_j| <= Σ_{i∈T} x_i² Σ_{j∈T, j≠i} |U_ij| <= Σ_i r_i x_i²
(T ∖ {i} has at most s − 1 members). Hence xᵀΣx <= xᵀM(U)x, and v(s) <= λmax(M(U)) for
every such U. With U the clipped Σ (U_ij = clip(Σ_ij, −ρ, ρ)) this is the soft-threshold
bound of ``method="exact"``'s root, at most DSPCA's λmax(Σ − U) + ρs; since r is convex in
U and λmax is convex and nondecreasing in the diagonal, λmax(M(U)) is convex in U, and
:func:`row_shift_bound` lowers it by subgradient steps from the best clipped U.

**Core and outside.** With a core K (the features of largest partner score, where the
top eigenvector lives) and the outside O, only U_KK is optimized (U stays the clipped Σ
on every pair touching O). For a unit x = (x_K, x_O) with a = ‖x_K‖, b = ‖x_O‖,
xᵀMx <= λmax(M_KK)a² + 2‖M_KO‖₂ab + λmax(M_OO)b², so λmax(M) is at most the largest
eigenvalue of the 2 × 2 matrix [[λ_K, β], [β, λ_O]] for any λ_K >= λmax(M_KK),
β >= ‖M_KO‖₂ and λ_O >= λmax(M_OO): the core block's λmax is computed exactly (one dense
eigenvalue solve), β from the Frobenius norm or λmax(M_KO M_KOᵀ), λ_O from Gershgorin's
theorem or a Cholesky-proven bound (:func:`~eigensparse.bounds.lambda_max_upper_bound`).

The steps only choose U; whatever they reach, the bound is evaluated from scratch on the
final U, so its validity does not depend on their convergence. Relative rounding of the
eigenvalue solves is a few ulps of ‖M‖ times the size, far below the margin the caller
adds.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg as sla

from ._cheap import _lambda_max_upper_bound
from ._rowshift_kernels import clipped_top, descend, ritz, row_shifts

__all__ = ["row_shift_bound", "BOUND_ROW_SHIFT"]

#: the name the default method reports for this bound
BOUND_ROW_SHIFT = "row-shift dual (λmax(Σ − U + diag r(U)), U optimized on a core block)"


def _clipped(B: np.ndarray, rho: float, zero_diag: bool = True) -> np.ndarray:
    """B clipped to [−ρ, ρ] (with a zero diagonal)."""
    U = np.clip(B, -rho, rho)
    if zero_diag:
        np.fill_diagonal(U, 0.0)
    return U


def _tops(A: np.ndarray, k: int, rho: float = np.inf) -> np.ndarray:
    """Each row's k largest of min(A_ij, ρ) (A >= 0 with a zero diagonal), largest first,
    zero-padded; one compiled pass."""
    return clipped_top(np.ascontiguousarray(A), np.ones(A.shape[0]), np.ones(A.shape[1]),
                       float(rho), k)


def _best_penalty(S_KK, V_K, off: float, v0, n_grid: int, n_golden: int, lanczos: int):
    """ρ minimizing (approximately: Lanczos estimates) λmax(M) at the clipped U, by a
    grid on [0, off] and golden-section steps; ``V_K``: each core row's k largest
    |Σ_ij| over every j ≠ i, so that r_i = Σ_t min(V_it, ρ)."""
    def f(rho):
        M = S_KK - _clipped(S_KK, rho)
        M[np.diag_indices_from(M)] += np.minimum(V_K, rho).sum(axis=1)
        return ritz(M, v0, lanczos)[0]

    grid = np.linspace(0.0, off, n_grid + 1)[1:]
    vals = [f(r) for r in grid]
    j = int(np.argmin(vals))
    lo, hi = grid[j - 1] if j else 0.0, grid[min(j + 1, grid.size - 1)]
    g = (np.sqrt(5.0) - 1) / 2
    best = (vals[j], grid[j])
    for _ in range(n_golden):
        c1, c2 = hi - g * (hi - lo), lo + g * (hi - lo)
        f1, f2 = f(c1), f(c2)
        best = min(best, (f1, c1), (f2, c2))
        if f1 < f2:
            hi = c2
        else:
            lo = c1
    return float(best[1])


def _proves_below(M: np.ndarray, t: float) -> bool:
    """True only if λmax(M) <= t, proven by a Cholesky factor of C = (t − δ)I − M: a
    factorization that runs to completion gives RᵀR = C + E with
    ‖E‖₂ <= n·γ_{n+1}·max_i C_ii (Demmel; Higham, Thm 10.5), so δ >= that makes
    λmin(C) >= −δ, i.e. λmax(M) <= t."""
    n = M.shape[0]
    eps = np.finfo(float).eps
    cmax = float(t - np.min(np.diag(M)))
    delta = 2.0 * n * (n + 1) * eps * max(cmax, 0.0)
    C = -M
    C[np.diag_indices_from(C)] += t - delta
    try:
        sla.cholesky(C, lower=True, check_finite=False, overwrite_a=True)
    except np.linalg.LinAlgError:
        return False
    return True


def _top_upper(M: np.ndarray, v0: np.ndarray, lanczos: int) -> float:
    """A proven upper bound on λmax(M): a Lanczos estimate θ (with ``2·lanczos`` steps)
    raised by 1e-7 of the scale, or by its residual, accepted when a Cholesky factor
    proves it (:func:`_proves_below`), else the dense eigenvalue."""
    m = M.shape[0]
    if m > 64:
        theta, x = ritz(M, v0, 2 * lanczos)
        scale = max(abs(theta), float(np.abs(np.diag(M)).max()), 1e-300)
        res = float(np.linalg.norm(M @ x - theta * x))
        for t in (theta + 1e-7 * scale, theta + res + 1e-12 * scale):  # Ritz values converge
            if _proves_below(M.copy(), t):  # faster than their residuals
                return float(t)
    if m <= 16:
        return float(np.linalg.eigvalsh(M)[-1])
    return float(sla.eigh(M, eigvals_only=True, subset_by_index=[m - 1, m - 1], driver="evr",
                          check_finite=False)[0])


def _outside(S, A, K, O, rho, k, lam_K, slack):
    """Upper bounds (β², λ_O) on ‖M_KO‖₂² and λmax(M_OO) at the clipped U: Frobenius and
    Gershgorin; when those cost more than ``slack``·λ_K in the 2 × 2 bound, λ_O is the
    level that costs ``slack``·λ_K if a Cholesky factor proves it."""
    S_KO = S[np.ix_(K, O)]
    M_KO = S_KO - _clipped(S_KO, rho, zero_diag=False)
    S_OO = S[np.ix_(O, O)]
    M_OO = S_OO - _clipped(S_OO, rho)
    M_OO[np.diag_indices_from(M_OO)] += _tops(A[O], k, rho).sum(axis=1)
    beta2 = float(np.sum(M_KO * M_KO))
    dM = np.diag(M_OO)
    lam_O = float(np.max(np.abs(M_OO).sum(axis=1) - np.abs(dM) + dM))  # Gershgorin
    if _two_by_two(lam_K, beta2, lam_O) > lam_K * (1 + slack) and beta2 > 0:
        G = M_KO @ M_KO.T
        beta2 = min(beta2, float(sla.eigh(G, eigvals_only=True, check_finite=False,
                                          subset_by_index=[G.shape[0] - 1] * 2)[0]) * (1 + 1e-12))
    if _two_by_two(lam_K, beta2, lam_O) > lam_K * (1 + slack):
        # λmax([[a, β], [β, c]]) <= a(1 + η) when c <= a(1 + η) − β²/(aη)
        t = lam_K * (1 + slack) - beta2 / (lam_K * slack)
        if t < lam_O and _proves_below(M_OO.copy(), t):
            lam_O = t
        else:
            top = _lambda_max_upper_bound(M_OO, exact_below=0)
            lam_O = lam_O if top is None else min(lam_O, top)
    return beta2, lam_O


def _two_by_two(a: float, beta2: float, c: float) -> float:
    """λmax([[a, β], [β, c]])."""
    return 0.5 * (a + c) + np.sqrt(0.25 * (a - c) ** 2 + beta2)


def row_shift_bound(S: np.ndarray, cardinality: int, value: float, support=None, *,
                    core: int = 200, steps: int = 40, lanczos: int = 12, n_grid: int = 10,
                    n_golden: int = 6, slack: float = 1e-3) -> tuple[float, float]:
    """A valid upper bound on v(s) of the PSD matrix S (checked input, s >= 2): the
    row-shift dual of the module docstring, U optimized by ``steps`` subgradient steps
    (Polyak's step towards ``value``, a variance reached at s) on a core of at most
    ``core`` features (those of largest partner score, and ``support``), the outside
    block bounded once (at a cost of at most ``slack``·λ_K when a Cholesky factor proves
    it). Returns (bound, ρ of the clipped start); (inf, 0) when s < 2 or S is empty.
    """
    S = np.asarray(S, dtype=float)
    p, s = S.shape[0], int(cardinality)
    k = s - 1
    if p == 0 or k < 1:
        return np.inf, 0.0
    A = np.abs(S)
    np.fill_diagonal(A, 0.0)
    if p <= core:
        K, O = np.arange(p), np.zeros(0, dtype=np.intp)
    else:
        score = np.diag(S) + _tops(A, k).sum(axis=1)
        K = np.argsort(-score, kind="stable")[:core]
        if support is not None:
            K = np.union1d(K, np.asarray(support, dtype=np.intp))
        K = np.sort(K)
        O = np.setdiff1d(np.arange(p), K)
    S_KK = np.ascontiguousarray(S[np.ix_(K, K)])
    A_KO = A[np.ix_(K, O)]
    v0 = np.sqrt(np.maximum(np.diag(S_KK), 0.0)) + 1e-3
    off = float(A[np.ix_(K, K)].max()) if K.size > 1 else 0.0
    rho = _best_penalty(S_KK, _tops(A[K], k), off, v0, n_grid, n_golden,
                        lanczos) if off > 0 else 0.0
    fixed = _tops(A_KO, k, rho) if O.size else np.zeros((K.size, 0))
    U = descend(S_KK, _clipped(S_KK, rho), fixed, k, float(value), int(steps), int(lanczos),
                v0, 0.5, max(int(lanczos) // 2, 1))
    r = row_shifts(U, fixed, k, np.zeros(K.size))
    M = S_KK - U
    M[np.diag_indices_from(M)] += r
    lam_K = _top_upper(M, v0, lanczos)
    if not O.size:
        return lam_K, rho
    beta2, lam_O = _outside(S, A, K, O, rho, k, lam_K, slack)
    return float(_two_by_two(lam_K, beta2, lam_O)), rho
