"""Lanczos estimates and Cholesky proofs of λmax for the branch and bound (no other
module of the search is imported here, so every one of them may use these).

:func:`top_eig_upper`: a proven upper bound on λmax(B) from a short Lanczos run;
:func:`proves_below`: λmax(B) <= t proven by one Cholesky factor.
"""
from __future__ import annotations

import numpy as np
import numba
from scipy import linalg as sla
from scipy.linalg import lapack

from ..._linalg import top_eigh

__all__ = ["LANCZOS_MIN", "LANCZOS_STEPS", "proves_below", "top_eig_upper"]


#: blocks at least this large get a Lanczos estimate proven by a Cholesky factor instead of
#: a dense eigensolve (:func:`top_eig_upper`)
LANCZOS_MIN = 150
#: Lanczos steps (full reorthogonalization) from the start vector
LANCZOS_STEPS = 30


@numba.njit(cache=True, nogil=True)
def _lanczos_tridiagonal(B, v0, m):
    """``m`` Lanczos steps on the symmetric B from ``v0`` with full reorthogonalization
    (twice): the tridiagonal (a, b), the basis Q (rows) and the steps k taken (fewer on
    an invariant subspace)."""
    n = B.shape[0]
    Q = np.zeros((m + 1, n))
    a = np.zeros(m)
    b = np.zeros(m)
    Q[0] = v0 / np.sqrt(np.dot(v0, v0))
    c = np.empty(m + 1)
    k = m
    for j in range(m):
        w = np.dot(B, Q[j])
        a[j] = np.dot(Q[j], w)
        for _ in range(2):
            for i in range(j + 1):
                c[i] = np.dot(Q[i], w)
            for i in range(j + 1):
                ci = c[i]
                for t in range(n):
                    w[t] -= ci * Q[i, t]
        b[j] = np.sqrt(np.dot(w, w))
        bmax = 0.0
        for i in range(j):
            bmax = max(bmax, abs(b[i]))
        if b[j] <= 1e-13 * (abs(a[j]) + bmax + 1e-300):
            k = j + 1
            break
        Q[j + 1] = w / b[j]
    return a, b, Q, k


def _lanczos(B: np.ndarray, v0: np.ndarray, steps: int) -> tuple[float, np.ndarray]:
    """Top Ritz pair of B from ``steps`` Lanczos steps (full reorthogonalization) started
    at ``v0``: (Rayleigh quotient of the Ritz vector, unit Ritz vector). The steps are
    compiled (:func:`_lanczos_tridiagonal`)."""
    m = min(steps, B.shape[0])
    a, b, Q, k = _lanczos_tridiagonal(np.ascontiguousarray(B, dtype=float),
                                      np.asarray(v0, dtype=float), m)
    if k == 1:
        x = Q[0]
    else:
        _, y = sla.eigh_tridiagonal(a[:k], b[:k - 1], select="i", select_range=(k - 1, k - 1))
        x = Q[:k].T @ y[:, 0]
        x /= np.linalg.norm(x)
    return float(x @ (B @ x)), x


def top_eig_upper(B: np.ndarray, v0: np.ndarray | None = None,
                  cut: float | None = None, ritz=None) -> tuple[float, np.ndarray]:
    """(u, v) with u >= λmax(B) proven and v an (approximate) top unit eigenvector.

    Below ``LANCZOS_MIN`` rows, or without a start ``v0``: :func:`~eigensparse._linalg.top_eigh` (u = λmax).
    Above: the top Ritz pair (θ, x) of a short Lanczos run from ``v0``, u = θ + ‖Bx − θx‖
    (plus a relative 1e-10), accepted only when :func:`proves_below` proves λmax(B) <= u
    (a Cholesky factor, a fraction of the cost of a dense eigensolve); when the factor
    fails, once more after ``2·LANCZOS_STEPS`` steps restarted from the Ritz vector;
    otherwise, and when [θ, u] contains ``cut`` (the prune decision needs the exact
    value), the exact pair. ``ritz``: that Lanczos run's (θ, x) when the caller already
    made it. Proof: u is returned only with the Cholesky proof of λmax(B) <= u. ∎"""
    n = B.shape[0]
    if n < LANCZOS_MIN or v0 is None or not np.any(v0):
        return top_eigh(B, small=0, check_finite=False)
    theta, x = _lanczos(B, v0, LANCZOS_STEPS) if ritz is None else ritz
    scale = max(abs(theta), float(np.abs(np.diag(B)).max()), 1e-300)
    for restart in (False, True):
        if restart:
            theta, x = _lanczos(B, x, 2 * LANCZOS_STEPS)
        u = theta + float(np.linalg.norm(B @ x - theta * x)) + 1e-10 * scale
        if cut is not None and theta <= cut < u:
            break
        if proves_below(B, u):
            return u, x
    return top_eigh(B, small=0, check_finite=False)


def proves_below(B: np.ndarray, t: float) -> bool:
    """True only if λmax(B) <= t for the symmetric B, proven by a Cholesky factor of
    (t − δ)·I − B (LAPACK ``potrf``), at a quarter of the cost of an eigenvalue solve.

    Proof. If Cholesky runs to completion on a symmetric C in floating point, the factor
    satisfies RᵀR = C + E with |E_ij| <= γ_{n+1}√(C_iiC_jj) (Demmel; Higham, Accuracy and
    Stability, Thm 10.5), so ‖E‖₂ <= n·γ_{n+1}·max_i C_ii =: δ' and C + E ⪰ 0 gives
    λmin(C) >= −δ'. With C = (t − δ)I − B and δ >= δ' (here δ = 2n(n + 1)·ε·max_i C_ii,
    γ_{n+1} = (n + 1)ε/(1 − (n + 1)ε)), λmax(B) <= t − δ + δ' <= t. Returns False when the
    factorization breaks down (nothing proven; the caller computes λmax). ∎
    """
    n = B.shape[0]
    C = -B
    diag = t - np.diag(B)
    if n == 0 or diag.min() <= 0:
        return False
    delta = 2.0 * n * (n + 1) * np.finfo(float).eps * float(diag.max())
    C[np.diag_indices_from(C)] = diag - delta
    _, info = lapack.dpotrf(C, lower=False, clean=False, overwrite_a=True)
    return info == 0
