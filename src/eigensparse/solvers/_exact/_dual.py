"""The row-shift dual in the branch and bound: one matrix U, optimized at the root, shifts
every node's block.

For any symmetric U with a zero diagonal, the node (F, A) (F fixed in, R = A \\ F free,
k = s − |F| free slots) has the bound λmax(M + D) with M = Σ[A, A] − U[A, A] except
M_FF = Σ_FF (U is not used between two fixed variables) and D = diag(r), r_i the largest
Σ_{j∈S, j≠i} |U_ij| over the supports S = F ∪ T (T ⊆ R, |T| = k) containing i: for
i ∈ F its k largest |U_ij| over j ∈ R; for i ∈ R its fixed columns plus its k − 1
largest over R \\ {i}. The proof is that of :func:`._bounds.soft_eig_bound`, which holds
for every symmetric U (the clipped Σ there is one choice): for a unit x supported on such
an S, xᵀUx <= Σ_{i∈S} r_i x_i², so xᵀΣx <= xᵀ(M + D)x <= λmax(M + D).

The clipped Σ minimizes nothing in particular; :func:`optimize_u` lowers the root's
λmax(M + D) by the subgradient steps of :func:`eigensparse.bounds._rowshift_kernels.descend`
from the root's clipped U (the steps only choose U: every bound is evaluated afterwards,
from scratch, on the U reached). The tree then uses that U at every node
(:func:`dual_block`), with Σ_FF kept whole and the node's own row shifts.
"""
from __future__ import annotations

import time

import numba
import numpy as np

from ..._linalg import top_eigh
from ...bounds._rowshift_kernels import descend, ritz, row_shifts
from ._lowrank import lowrank_bound

__all__ = ["clipped_u", "dual_block", "optimize_u", "push_top", "root_dual", "u_order"]

#: subgradient steps per call of the compiled descent (the deadline is checked between)
CHUNK = 50


def clipped_u(S: np.ndarray, rho: float, scale: np.ndarray | None) -> np.ndarray:
    """U_ij = clip(Σ_ij, ±ρ·w_iw_j) off the diagonal, U_ii = 0 (w = ``scale``, default 1):
    the U of :func:`._bounds.soft_eig_bound` at the root."""
    w = np.ones(S.shape[0]) if scale is None else np.asarray(scale, dtype=float)
    cap = rho * np.outer(w, w)
    U = np.clip(S, -cap, cap)
    np.fill_diagonal(U, 0.0)
    return U


def _estimate(S: np.ndarray, U: np.ndarray, k: int, v0: np.ndarray,
              steps: int) -> tuple[float, np.ndarray]:
    """A Lanczos estimate (θ, Ritz vector) of the root's λmax(Σ − U + diag r(U)) (r: the
    k largest |U_ij|) from ``v0``."""
    n = S.shape[0]
    r = row_shifts(U, np.zeros((n, 0)), k, np.zeros(n))
    M = S - U
    M[np.diag_indices(n)] += r
    theta, x = ritz(M, v0, steps)
    return float(theta), np.abs(x) + 1e-3 * float(np.abs(x).max())


def optimize_u(S: np.ndarray, A: np.ndarray, s: int, U0: np.ndarray, value: float, *,
               deadline: float, max_steps: int = 600,
               lanczos: int = 12) -> tuple[np.ndarray, bool]:
    """U (p × p, symmetric, zero diagonal, zero outside A × A) lowering the root bound
    λmax(Σ[A, A] − U + diag r(U)) (r_i: the s − 1 largest |U_ij|) from ``U0``: chunks of
    :data:`CHUNK` subgradient steps (Polyak's step, scaled by η, towards ``value``, the
    incumbent, which is below the minimum: η halves after a chunk that lowers the
    estimate by less than 0.02%) while ``deadline`` (a ``time.perf_counter`` value) has
    not passed, up to ``max_steps`` steps and while η >= 1/8. Returns (U, whether the
    steps lowered the estimate at all). Any U is valid; this one is only better."""
    A = np.asarray(A, dtype=np.intp)
    S_A = np.ascontiguousarray(S[np.ix_(A, A)])
    U = np.ascontiguousarray(U0[np.ix_(A, A)])
    n, k = A.size, s - 1
    v0 = np.sqrt(np.maximum(np.diag(S_A), 0.0)) + 1e-3
    fixed = np.zeros((n, 0))
    est, x = _estimate(S_A, U, k, v0, 2 * lanczos)
    done, improved, eta = 0, False, 0.5
    while done < max_steps and eta >= 1 / 8 and time.perf_counter() < deadline:
        V = descend(S_A, U, fixed, k, float(value), CHUNK, lanczos, x, eta,
                    max(lanczos // 2, 1))
        done += CHUNK
        new, y = _estimate(S_A, V, k, x, 2 * lanczos)
        if not new < est * (1 - 2e-4):
            eta *= 0.5
        if new < est:
            U, est, x, improved = V, new, y, True
    out = np.zeros(S.shape)
    out[np.ix_(A, A)] = 0.5 * (U + U.T)  # symmetric (the steps keep it so; rounding aside)
    return out, improved


def root_dual(S: np.ndarray, A: np.ndarray, s: int, rho: float, scale, value: float, *,
              deadline: float, max_steps: int) -> tuple[float, np.ndarray | None]:
    """The root (F = ∅, allowed A) with U optimized from the clipped Σ at (ρ, ``scale``)
    (:func:`optimize_u`, towards ``value``): (the smaller of λmax(M + D) and the low-rank
    bound of :mod:`._lowrank` on M + D, U), or (inf, None) when the steps did not lower
    the estimate (the clipped U stays)."""
    A = np.asarray(A, dtype=np.intp)
    if A.size < 3 or s < 2:
        return np.inf, None
    U, improved = optimize_u(S, A, s, clipped_u(S, rho, scale), value, deadline=deadline,
                             max_steps=max_steps)
    if not improved:
        return np.inf, None
    B = dual_block(S, U, np.zeros(0, dtype=np.intp), A, s)
    lam = float(top_eigh(B, small=0, check_finite=False)[0])
    return min(lam, lowrank_bound(B, 0, s)), U


@numba.njit(cache=True, nogil=True, inline="always")
def push_top(top, found, kk, v):
    """Keep the ``kk`` largest values seen in the ascending ``top[:found]``: insert ``v``
    (while fewer than kk are held) or let it replace the smallest; the new count."""
    if found < kk:
        m = found
        while m > 0 and top[m - 1] > v:
            top[m] = top[m - 1]
            m -= 1
        top[m] = v
        return found + 1
    if v > top[0]:
        m = 1
        while m < kk and top[m] < v:
            top[m - 1] = top[m]
            m += 1
        top[m - 1] = v
    return found


@numba.njit(cache=True, nogil=True)
def _fill_row(S, U, A, f, a, out):
    """Row ``a`` of M (off the diagonal) for the node whose positions are A (fixed first,
    ``f`` of them); returns the sum of |U_ij| over a free row's fixed columns (always in
    the support), 0 for a fixed row."""
    i = A[a]
    acc = 0.0
    for b in range(A.size):
        j = A[b]
        if a == b:
            continue
        if a < f and b < f:
            out[a, b] = S[i, j]
            continue
        u = U[i, j]
        out[a, b] = S[i, j] - u
        if a >= f and b < f:
            acc += abs(u)
    return acc


@numba.njit(cache=True, nogil=True)
def _dual_fill(S, U, A, f, k, status, out):
    """out = M + D of the module docstring for the node whose positions are A (fixed
    first, ``f`` of them); ``status[j]`` is 2 for the free indices."""
    n = A.size
    top = np.empty(max(k, 1))
    for a in range(n):
        i = A[a]
        kk = k if a < f else k - 1
        acc = _fill_row(S, U, A, f, a, out)
        # the kk largest |U_ij| over the free j != i
        found = 0
        if kk > 0:
            for b in range(f, n):
                j = A[b]
                if j == i or status[j] != 2:
                    continue
                found = push_top(top, found, kk, abs(U[i, j]))
            for q in range(found):
                acc += top[q]
        out[a, a] = S[i, i] + acc


@numba.njit(cache=True, nogil=True)
def _dual_fill_sorted(S, U, A, f, k, status, uorder, out):
    """:func:`_dual_fill` with each row's kk largest free |U_ij| read by walking
    ``uorder[i]`` (the row's columns by decreasing |U_ij|) until kk free ones are met."""
    n = A.size
    for a in range(n):
        i = A[a]
        kk = k if a < f else k - 1
        acc = _fill_row(S, U, A, f, a, out)
        found = 0
        if kk > 0:
            row = uorder[i]
            for q in range(row.size):
                j = row[q]
                if j == i or status[j] != 2:
                    continue
                acc += abs(U[i, j])
                found += 1
                if found == kk:
                    break
        out[a, a] = S[i, i] + acc


def u_order(U: np.ndarray) -> np.ndarray:
    """Each row's columns by decreasing |U_ij| (for :func:`dual_block`'s row shifts)."""
    return np.argsort(-np.abs(U), axis=1, kind="stable").astype(np.intp)


def dual_block(S: np.ndarray, U: np.ndarray, F: np.ndarray, R: np.ndarray,
               k: int, uorder: np.ndarray | None = None) -> np.ndarray:
    """The matrix M + D of the module docstring for the node (F, F ∪ R), rows and columns
    F then R: λmax of it (or of any principal submatrix holding the support) bounds
    v(F, F ∪ R). ``uorder``: :func:`u_order` of U (the row shifts then read only each
    row's largest entries)."""
    A = np.ascontiguousarray(np.concatenate([F, R]), dtype=np.intp)
    status = np.zeros(S.shape[0], dtype=np.int8)
    status[R] = 2
    out = np.empty((A.size, A.size))
    if uorder is None:
        _dual_fill(S, U, A, F.size, int(k), status, out)
    else:
        _dual_fill_sorted(S, U, A, F.size, int(k), status, uorder, out)
    return out
