"""Compiled inner loops of the default method on a dense working-set block B (m×m).

Both loops are sequential and touch only s of B's rows per step, which BLAS cannot
express: a truncated power step from an s-sparse iterate costs O(m·s) (rows of B
scaled and added), not the O(m²) of a dense product, and the approximate greedy path
scores every candidate from the s rows already selected. ``B`` must be symmetric and
C-contiguous (rows are columns).

Ties are broken towards the lower feature index everywhere, so the results do not
depend on a sorting routine's internals. The selection kernels (the s largest entries,
each row's partners) are in :mod:`eigensparse.solvers._auto_select`.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from ._auto_select import SAMPLE, _kth_largest_of, top_s

__all__ = ["tpower_from_supports", "approx_greedy_order", "swap_search", "support_values",
           "neighbourhood_scores", "gather_block_single", "rows_with_nonzero"]


#: the truncated power steps' selection pivot: the previous step's threshold times this
HINT_FACTOR = 0.95
#: the compiler may reorder the sums of products (vectorized dot products); NaN and
#: infinity semantics are kept
_REDUCE = {"nsz", "reassoc", "contract", "arcp"}


@numba.njit(cache=True, nogil=True)
def _sparse_product(B, idx, x, w):
    """w = B[:, idx] @ x (rows of the symmetric B)."""
    m = w.size
    n = idx.size
    for i in range(m):
        w[i] = 0.0
    t = 0
    while t + 8 <= n:  # eight rows per pass over w: an eighth of the loads and stores of w
        r0, r1, r2, r3 = idx[t], idx[t + 1], idx[t + 2], idx[t + 3]
        r4, r5, r6, r7 = idx[t + 4], idx[t + 5], idx[t + 6], idx[t + 7]
        x0, x1, x2, x3 = x[t], x[t + 1], x[t + 2], x[t + 3]
        x4, x5, x6, x7 = x[t + 4], x[t + 5], x[t + 6], x[t + 7]
        for i in range(m):
            w[i] += (((x0 * B[r0, i] + x1 * B[r1, i]) + (x2 * B[r2, i] + x3 * B[r3, i]))
                     + ((x4 * B[r4, i] + x5 * B[r5, i]) + (x6 * B[r6, i] + x7 * B[r7, i])))
        t += 8
    while t + 4 <= n:
        r0, r1, r2, r3 = idx[t], idx[t + 1], idx[t + 2], idx[t + 3]
        x0, x1, x2, x3 = x[t], x[t + 1], x[t + 2], x[t + 3]
        for i in range(m):
            w[i] += (x0 * B[r0, i] + x1 * B[r1, i]) + (x2 * B[r2, i] + x3 * B[r3, i])
        t += 4
    while t < n:
        r = idx[t]
        xt = x[t]
        for i in range(m):
            w[i] += xt * B[r, i]
        t += 1


@numba.njit(cache=True, nogil=True)
def tpower_from_supports(B, supports, values, max_iter, tol, Bp):
    """Truncated power iterations ``x ← T_s(Bx)/‖T_s(Bx)‖`` from N s-sparse starts.

    Parameters
    ----------
    B : ndarray of shape (m, m), symmetric, C-contiguous
    supports : int64 ndarray of shape (N, s)
        Each start's support (sorted feature indices of B).
    values : ndarray of shape (N, s)
        Each start's entries on its support (any scale; normalised here).
    max_iter : int
    tol : float
        A start stops when its support did not change and xᵀBx rose by at most
        ``tol`` × itself in one step.
    Bp : ndarray of shape (m, m), C-contiguous
        The matrix of the products B·x: B itself, or B in single precision (the iterates
        then carry about 1e-7 relative rounding, which can only change which of two
        nearly tied features enters a support); the final objectives are computed
        with B.

    Returns
    -------
    supports : (N, s) int64, values : (N, s), objective : (N,) xᵀBx of the final iterates,
    n_iter : (N,) steps taken per start.
    """
    N, s = supports.shape
    m = B.shape[0]
    out_sup = np.empty((N, s), dtype=np.int64)
    out_val = np.empty((N, s))
    out_f = np.empty(N)
    out_it = np.zeros(N, dtype=np.int64)
    w = np.empty(m, dtype=Bp.dtype)
    scratch = np.empty(2 * m + SAMPLE)
    index = np.empty(m, dtype=np.int64)
    idx = np.empty(s, dtype=np.int64)
    new = np.empty(s, dtype=np.int64)
    x = np.empty(s, dtype=Bp.dtype)
    for c in range(N):
        nrm = 0.0
        for t in range(s):
            idx[t] = supports[c, t]
            x[t] = values[c, t]
            nrm += x[t] * x[t]
        nrm = math.sqrt(nrm)
        for t in range(s):
            x[t] = x[t] / nrm if nrm > 0 else 0.0
        f_prev = -math.inf
        it = 0
        thr = -1.0
        while it < max_iter:
            it += 1
            _sparse_product(Bp, idx, x, w)
            f = 0.0
            for t in range(s):
                f += x[t] * w[idx[t]]
            # the previous threshold, a little lowered, is the next selection's pivot (w
            # is the product with a unit vector, whose scale changes little per step)
            thr = top_s(w, s, new, scratch, index, HINT_FACTOR * thr if thr > 0 else -1.0)
            nrm = 0.0
            for t in range(s):
                nrm += w[new[t]] * w[new[t]]
            nrm = math.sqrt(nrm)
            same = True
            for t in range(s):
                if new[t] != idx[t]:
                    same = False
                idx[t] = new[t]
                x[t] = w[new[t]] / nrm if nrm > 0 else 0.0
            if nrm == 0.0 or (same and f - f_prev <= tol * abs(f)):
                break
            f_prev = f
        f = 0.0  # objective of the final iterate, on its support only (s² terms)
        for a in range(s):
            acc = 0.0
            for b in range(s):
                acc += B[idx[a], idx[b]] * x[b]
            f += x[a] * acc
        for t in range(s):  # element-wise stores: cheaper to compile than slice assignment
            out_sup[c, t] = idx[t]
            out_val[c, t] = x[t]
        out_f[c] = f
        out_it[c] = it
    return out_sup, out_val, out_f, out_it


@numba.njit(cache=True, nogil=True, fastmath=_REDUCE)
def _top_eigpair(A, v0, tol):
    """Leading eigenpair of the small symmetric A (k×k) by Lanczos with full
    reorthogonalisation from ``v0`` (a good guess: few steps), stopped when the Ritz
    residual ‖Az − θz‖ <= tol·|θ| (checked after 4, 7, 11, 16 and the last step: each
    check is an eigendecomposition of the tridiagonal matrix); a full ``eigh`` when k is
    small (k <= 10) or Lanczos has not converged in min(k − 1, 27) steps. Returns (θ, z)."""
    k = A.shape[0]
    nrm = np.sqrt(np.sum(v0 * v0))
    if k <= 10 or not nrm > 0:
        lam, Z = np.linalg.eigh(A)
        return lam[k - 1], Z[:, k - 1].copy()
    maxj = min(k - 1, 27)
    Q = np.zeros((maxj, k))
    alpha = np.zeros(maxj)
    beta = np.zeros(maxj)
    w = np.empty(k)
    for i in range(k):
        Q[0, i] = v0[i] / nrm
    for j in range(maxj):
        for r in range(k):  # w = A q_j (A symmetric: rows)
            acc = 0.0
            for c in range(k):
                acc += A[r, c] * Q[j, c]
            w[r] = acc
        a = 0.0
        for r in range(k):
            a += Q[j, r] * w[r]
        alpha[j] = a
        for _ in range(2):  # full reorthogonalisation, twice
            for i in range(j + 1):
                d = 0.0
                for r in range(k):
                    d += Q[i, r] * w[r]
                for r in range(k):
                    w[r] -= d * Q[i, r]
        b = 0.0
        for r in range(k):
            b += w[r] * w[r]
        b = np.sqrt(b)
        beta[j] = b
        n = j + 1
        if n == maxj or b <= 1e-300 or n == 4 or n == 7 or n == 11 or n == 16:
            T = np.zeros((n, n))
            for i in range(n):
                T[i, i] = alpha[i]
                if i < j:
                    T[i, i + 1] = beta[i]
                    T[i + 1, i] = beta[i]
            theta, Y = np.linalg.eigh(T)
            th = theta[j]
            if b * abs(Y[j, j]) <= tol * abs(th) or b <= 1e-300:
                z = np.zeros(k)
                for i in range(n):
                    for r in range(k):
                        z[r] += Y[i, j] * Q[i, r]
                return th, z / np.sqrt(np.sum(z * z))
        if j + 1 < maxj:
            for r in range(k):
                Q[j + 1, r] = w[r] / b
    lam, Z = np.linalg.eigh(A)
    return lam[k - 1], Z[:, k - 1].copy()


@numba.njit(cache=True, nogil=True)
def rows_with_nonzero(B, rows):
    """For each index of ``rows``, whether row B[rows[u]] has a nonzero entry (each row
    read until its first one)."""
    out = np.zeros(rows.size, dtype=np.bool_)
    m = B.shape[1]
    for u in range(rows.size):
        r = rows[u]
        for j in range(m):
            if B[r, j] != 0.0:
                out[u] = True
                break
    return out


@numba.njit(cache=True, nogil=True)
def gather_block_single(B, idx, single):
    """``(C, C32, energy)``: C = B[idx][:, idx] (C-contiguous, one allocation, no
    row-gathered intermediate), its copy in single precision when ``single`` (else shape
    (0, 0)), and each row's energy Σ_b C[a, b]² (summed in the order of b), in one pass
    over the gathered entries, four rows at a time (four independent sums in flight)."""
    k = idx.size
    out = np.empty((k, k))
    out32 = np.empty((k, k) if single else (0, 0), dtype=np.float32)
    energy = np.empty(k)
    a = 0
    while a < k:
        r0 = idx[a]
        if a + 4 <= k:
            r1, r2, r3 = idx[a + 1], idx[a + 2], idx[a + 3]
            e0 = e1 = e2 = e3 = 0.0
            for b in range(k):
                ib = idx[b]
                v0, v1, v2, v3 = B[r0, ib], B[r1, ib], B[r2, ib], B[r3, ib]
                out[a, b], out[a + 1, b], out[a + 2, b], out[a + 3, b] = v0, v1, v2, v3
                e0 += v0 * v0
                e1 += v1 * v1
                e2 += v2 * v2
                e3 += v3 * v3
            energy[a], energy[a + 1], energy[a + 2], energy[a + 3] = e0, e1, e2, e3
            n_rows = 4
        else:
            acc = 0.0
            for b in range(k):
                v = B[r0, idx[b]]
                out[a, b] = v
                acc += v * v
            energy[a] = acc
            n_rows = 1
        if single:
            for u in range(a, a + n_rows):
                for b in range(k):
                    out32[u, b] = out[u, b]
        a += n_rows
    return out, out32, energy


@numba.njit(cache=True, nogil=True)
def support_values(B, supports, starts):
    """λmax(B[I, I]) for each row I of ``supports`` (sorted indices, (N, s)): Lanczos on
    the gathered block from the row of ``starts`` (a near-eigenvector: the truncated
    power iterate on that support), to a relative Ritz residual of 1e-9 (the eigenvalue
    to about the square of that), with ``eigh`` as its fallback (:func:`_top_eigpair`)."""
    N, s = supports.shape
    out = np.empty(N)
    M = np.empty((s, s))
    v0 = np.empty(s)
    for c in range(N):
        for a in range(s):
            ra = supports[c, a]
            v0[a] = starts[c, a]
            for b in range(s):
                M[a, b] = B[ra, supports[c, b]]
        out[c] = _top_eigpair(M, v0, 1e-9)[0]
    return out


@numba.njit(cache=True, nogil=True)
def approx_greedy_order(B, s):
    """The approximate greedy path (handbook Alg. 3) on B up to cardinality s: the order
    in which features enter. Start at argmax B_ii; then add the candidate j of largest
    (B[j, I]·z)² / λ, with (λ, z) the leading eigenpair of B[I, I] (B_jj when λ <= 0).
    Each step's eigenpair is computed by Lanczos from the previous eigenvector (extended
    by the new feature's entry) to a relative residual of 1e-7: enough to rank the
    candidates (the order equals the operator version's on the tests' matrices)."""
    m = B.shape[0]
    order = np.empty(s, dtype=np.int64)
    chosen = np.zeros(m, dtype=np.bool_)
    best = 0
    for j in range(1, m):
        if B[j, j] > B[best, best]:
            best = j
    order[0] = best
    chosen[best] = True
    g = np.zeros(m)
    z = np.ones(1)
    top = B[best, best]
    for k in range(1, s):
        blk = np.empty((k, k))
        for a in range(k):
            for b in range(k):
                blk[a, b] = 0.5 * (B[order[a], order[b]] + B[order[b], order[a]])
        guess = np.empty(k)  # the previous eigenvector, extended by the new feature's pull
        for a in range(k - 1):
            guess[a] = z[a]
        guess[k - 1] = g[order[k - 1]] / top if top > 0 else 1.0
        top, z = _top_eigpair(blk, guess, 1e-7)
        if top > 0:
            _sparse_product(B, order[:k], z, g)  # g = B[:, I] z, from k rows
        else:
            for i in range(m):
                g[i] = 0.0
        best = -1
        best_score = -np.inf
        for i in range(m):
            if chosen[i]:
                continue
            sc = g[i] * g[i] / top if top > 0 else B[i, i]
            if sc > best_score:
                best_score = sc
                best = i
        order[k] = best
        chosen[best] = True
    return order


#: power steps behind each exchange's lower bound in :func:`swap_search`
LOWER_BOUND_STEPS = 3
#: relative Ritz residual at which :func:`swap_search`'s Lanczos runs stop (the eigenvalue
#: to about its square)
EIG_TOL = 1e-10


@numba.njit(cache=True, nogil=True)
def swap_search(B, support, n_exact, max_rounds, exact, z0):
    """1-swap local search on B from ``support`` (sorted, in place). Each round bounds
    every exchange (support entry i out, feature j in) from below by the top
    eigenvalue of a 2×2 matrix (the current eigenvector without i, plus e_j), evaluates
    the ``n_exact`` exchanges of best bound by a tighter lower bound (a few power steps)
    and takes the best when it proves an improvement; when none does and ``exact``,
    they are evaluated exactly (λmax of their s×s block; ties to the lower flat index
    i·m + j) and the best taken if it improves, until none does or ``max_rounds``
    rounds ran. Every λmax is computed by Lanczos (:func:`_top_eigpair`, to a relative
    Ritz residual of ``EIG_TOL``) from a near-eigenvector: ``z0`` (an approximate
    eigenvector of the start's block, in the order of ``support``; zeros: none) for the
    start, the moved current eigenvector for an exchange. Returns ``(value, rounds, z)``:
    z the unit leading eigenvector of the final support's block (in ``support``'s
    order)."""
    m = B.shape[0]
    s = support.size
    M = np.empty((s, s))  # the trial support's block, gathered
    for i in range(s):
        for j in range(s):
            M[i, j] = B[support[i], support[j]]
    lam, z = _top_eigpair(M, z0, EIG_TOL)
    if s == m or s == 1:
        return lam, 0, z
    n_flat = s * m
    bound = np.empty(n_flat)
    scratch = np.empty(n_flat + SAMPLE)
    g = np.empty(m)
    a = np.empty(s)
    root = np.empty(s)
    chosen = np.empty(n_exact, dtype=np.int64)
    x = np.empty(s)
    y = np.empty(s)
    best_x = np.empty(s)
    trial = np.empty(s, dtype=np.int64)
    diag = np.empty(m)
    for j in range(m):
        diag[j] = B[j, j]
    rounds = 0
    for rnd in range(1, max_rounds + 1):
        rounds = rnd
        _sparse_product(B, support, z, g)  # g = B[:, I] z, from s contiguous rows
        for i in range(s):
            zi2 = min(z[i] * z[i], 1.0 - 1e-12)
            a[i] = (lam * (1.0 - 2.0 * zi2) + zi2 * B[support[i], support[i]]) / (1.0 - zi2)
            root[i] = np.sqrt(1.0 - zi2)
        for i in range(s):
            row = support[i]
            ai, zi, ri = a[i], z[i], root[i]
            base = i * m
            for j in range(m):  # branch-free (vectorized); the support's entries next
                bij = (g[j] - B[row, j] * zi) / ri
                c = diag[j]
                half = 0.5 * (ai - c)
                bound[base + j] = 0.5 * (ai + c) + np.sqrt(half * half + bij * bij)
            for u in range(s):
                bound[base + support[u]] = -np.inf
        n = min(n_exact, s * (m - s))
        # the n largest bounds: a selection, then those n sorted (value desc, index asc)
        thr = _kth_largest_of(bound, n - 1, scratch)
        k = 0
        for f in range(n_flat):
            if bound[f] > thr:
                chosen[k] = f
                k += 1
        for f in range(n_flat):
            if k >= n:
                break
            if bound[f] == thr:
                chosen[k] = f
                k += 1
        for u in range(1, n):
            cu = chosen[u]
            vu = bound[cu]
            w = u - 1
            while w >= 0 and (bound[chosen[w]] < vu or (bound[chosen[w]] == vu and chosen[w] > cu)):
                chosen[w + 1] = chosen[w]
                w -= 1
            chosen[w + 1] = cu
        # first a lower bound per exchange (Rayleigh quotient after a few power steps from
        # the current eigenvector with entry i moved to j): an improvement it proves is
        # taken at once; only when none is proven are the exchanges evaluated exactly
        best, best_val = -1, -np.inf
        for u in range(n):
            _swap_start(B, support, z, chosen[u] // m, chosen[u] % m, trial, x, M)
            v = _rayleigh_steps(M, s, x, y, LOWER_BOUND_STEPS)
            if v > best_val:
                best, best_val = u, v
                for i in range(s):
                    best_x[i] = x[i]
        if exact and not best_val > lam * (1 + 1e-12) + 1e-300:
            for u in range(n):  # exactly (Lanczos from the moved eigenvector)
                _swap_start(B, support, z, chosen[u] // m, chosen[u] % m, trial, x, M)
                v, zz = _top_eigpair(M, x, EIG_TOL)
                if v > best_val:
                    best, best_val = u, v
                    for i in range(s):
                        best_x[i] = zz[i]
        if not best_val > lam * (1 + 1e-12) + 1e-300:
            break
        pos, cand = chosen[best] // m, chosen[best] % m
        for i in range(s):  # the new support, sorted, with its start vector alongside
            trial[i] = support[i]
        trial[pos] = cand
        order = np.argsort(trial)
        for i in range(s):
            support[i] = trial[order[i]]
            x[i] = best_x[order[i]]
        for i in range(s):
            for j in range(s):
                M[i, j] = B[support[i], support[j]]
        lam, z = _top_eigpair(M, x, EIG_TOL)
    return lam, rounds, z


@numba.njit(cache=True, nogil=True)
def _swap_start(B, support, z, pos, cand, trial, x, M):
    """The exchange (support entry ``pos`` out, feature ``cand`` in): its support into
    ``trial`` (position ``pos`` replaced), its block B[trial, trial] into ``M`` and its
    start into ``x``: the eigenvector z with entry ``pos`` given the weight that keeps
    it a unit vector."""
    s = support.size
    for i in range(s):
        trial[i] = support[i]
        x[i] = z[i]
    trial[pos] = cand
    x[pos] = 0.0
    nx = 0.0
    for i in range(s):
        nx += x[i] * x[i]
    x[pos] = np.sqrt(max(1.0 - nx, 0.0)) if nx < 1.0 else 0.0
    for i in range(s):
        for j in range(s):
            M[i, j] = B[trial[i], trial[j]]


@numba.njit(cache=True, nogil=True, fastmath=_REDUCE)
def _rayleigh_steps(M, k, x, y, steps):
    """A lower bound on λmax(M) for a gathered block M = B[sup, sup] (k×k): the Rayleigh
    quotient of ``x`` after ``steps`` power steps (``x`` is overwritten; ``y`` scratch),
    -inf when an iterate vanishes."""
    for _ in range(steps):
        nrm = 0.0
        for a in range(k):
            acc = 0.0
            for b in range(k):
                acc += M[a, b] * x[b]
            y[a] = acc
            nrm += acc * acc
        nrm = np.sqrt(nrm)
        if not nrm > 0:
            return -np.inf
        for a in range(k):
            x[a] = y[a] / nrm
    num = 0.0
    for a in range(k):
        acc = 0.0
        for b in range(k):
            acc += M[a, b] * x[b]
        num += x[a] * acc
    return num


@numba.njit(cache=True, nogil=True)
def neighbourhood_scores(B, rows, J, steps):
    """For each feature i of ``rows``, a lower bound on λmax of the block of
    N_i = {i} ∪ J[u] (``J[u]``: the partners of ``rows[u]``): the Rayleigh quotient after
    ``steps`` power steps from B[i, N_i] (row i's signs). Returns ``(rq, V)``: the bounds
    (len(rows),) and the vectors (len(rows), 1 + t), in the order of N_i. Each block is
    gathered once (k² reads of B), then the steps run on it."""
    n, t = J.shape
    k = t + 1
    rq = np.empty(n)
    V = np.empty((n, k))
    idx = np.empty(k, dtype=np.int64)
    M = np.empty((k, k))
    x = np.empty(k)
    y = np.empty(k)
    for u in range(n):
        idx[0] = rows[u]
        for a in range(t):
            idx[a + 1] = J[u, a]
        for a in range(k):
            ra = idx[a]
            for b in range(k):
                M[a, b] = B[ra, idx[b]]
        for a in range(k):
            x[a] = M[0, a]
        rq[u] = _rayleigh_steps(M, k, x, y, steps)
        for a in range(k):
            V[u, a] = x[a]
    return rq, V

