"""Compiled inner loops of :mod:`._rowshift`: the row shifts r(U), a Lanczos estimate of
the top eigenpair, and the subgradient steps on U (the bound itself is evaluated
afterwards, from scratch, by LAPACK)."""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["row_shifts", "ritz", "descend"]


@numba.njit(cache=True, nogil=True)
def row_shifts(U, fixed, k, thr):
    """r_i = the sum of the k largest of |U_ij| (j ≠ i) and ``fixed[i]`` (each row's k
    largest outside values, largest first); ``thr[i]`` receives the k-th largest (0 when
    fewer than k are positive)."""
    m = U.shape[0]
    r = np.zeros(m)
    buf = np.zeros(k)
    for i in range(m):
        n = 0
        for t in range(fixed.shape[1]):
            buf[t] = fixed[i, t]
            n += 1
        for j in range(m):
            if j == i:
                continue
            a = abs(U[i, j])
            if n == k and a <= buf[k - 1]:
                continue
            if n < k:
                n += 1
            w = n - 1
            while w > 0 and buf[w - 1] < a:
                buf[w] = buf[w - 1]
                w -= 1
            buf[w] = a
        tot = 0.0
        for t in range(n):
            tot += buf[t]
        r[i] = tot
        thr[i] = buf[k - 1] if n == k else 0.0
    return r


@numba.njit(cache=True, nogil=True)
def ritz(M, v0, steps):
    """Top Ritz pair (θ, x) of the symmetric M after ``steps`` Lanczos steps from ``v0``
    with full reorthogonalization: θ <= λmax(M), x a unit vector."""
    n = M.shape[0]
    steps = min(steps, n)
    Q = np.zeros((steps, n))
    a = np.zeros(steps)
    b = np.zeros(steps)
    q = v0 / np.sqrt(np.dot(v0, v0))
    k = steps
    for j in range(steps):
        Q[j] = q
        w = M @ q
        a[j] = np.dot(q, w)
        for _ in range(2):
            for i in range(j + 1):
                c = np.dot(Q[i], w)
                w -= c * Q[i]
        b[j] = np.sqrt(np.dot(w, w))
        if j == steps - 1 or b[j] <= 1e-12 * (abs(a[j]) + 1e-300):
            k = j + 1
            break
        q = w / b[j]
    T = np.zeros((k, k))
    for j in range(k):
        T[j, j] = a[j]
        if j + 1 < k:
            T[j, j + 1] = b[j]
            T[j + 1, j] = b[j]
    w_, V = np.linalg.eigh(T)
    x = Q[:k].T @ V[:, k - 1]
    x /= np.sqrt(np.dot(x, x))
    return w_[k - 1], x


@numba.njit(cache=True, nogil=True)
def descend(S, U0, fixed, k, value, steps, lanczos, v0, eta=0.5, warm=0):
    """``steps`` subgradient steps on λmax(S − U + diag r(U)) over symmetric U with a zero
    diagonal, from U0, with Polyak's step 0.5·(f − value)/‖g‖² (``value``: a lower
    bound's estimate of the minimum); f from Lanczos estimates warm-started at the
    previous vector. Returns the U of least estimate (U0 if no step improved on it)."""
    m = S.shape[0]
    U = U0.copy()
    best_U = U0.copy()
    best_f = np.inf
    thr = np.zeros(m)
    x = v0.copy()
    M = np.empty((m, m))
    for it in range(steps):
        r = row_shifts(U, fixed, k, thr)
        for i in range(m):
            for j in range(m):
                M[i, j] = S[i, j] - U[i, j]
            M[i, i] += r[i]
        f, x = ritz(M, x, lanczos if it == 0 or warm <= 0 else warm)
        if f < best_f:
            best_f = f
            best_U[:, :] = U
        if f <= value * (1 + 1e-9):
            break
        g2 = 0.0
        for i in range(m):  # the subgradient, into M (symmetric, zero diagonal)
            M[i, i] = 0.0
            for j in range(i + 1, m):
                u = U[i, j]
                g = -2.0 * x[i] * x[j]
                if u != 0.0:
                    a = abs(u)
                    t = (x[i] * x[i] if a >= thr[i] else 0.0) + (x[j] * x[j] if a >= thr[j] else 0.0)
                    g += t if u > 0 else -t
                M[i, j] = g
                M[j, i] = g
                g2 += 2 * g * g
        if g2 <= 0:
            break
        step = eta * (f - value) / g2
        for i in range(m):
            for j in range(m):
                U[i, j] -= step * M[i, j]
    return best_U


@numba.njit(cache=True, nogil=True)
def clipped_top(A, wr, wc, rho, k):
    """Each row's k largest of min(A_ij, ρ·wr_i·wc_j) (A >= 0), largest first,
    zero-padded: the clipped entries' contribution to the row shifts."""
    m, n = A.shape
    out = np.zeros((m, k))
    for i in range(m):
        c = 0
        lim = rho * wr[i]
        for j in range(n):
            a = min(A[i, j], lim * wc[j])
            if a <= 0.0 or (c == k and a <= out[i, k - 1]):
                continue
            if c < k:
                c += 1
            w = c - 1
            while w > 0 and out[i, w - 1] < a:
                out[i, w] = out[i, w - 1]
                w -= 1
            out[i, w] = a
    return out
