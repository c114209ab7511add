"""Compiled kernels of the operator layer (numba, cached on disk at the first call).

- :func:`accumulate_gram`: the Gram matrix XᵀX of a CSR matrix (or of a working set of
  its columns), upper triangle, at a cost of Σ_rows nnz_row²; used by
  :class:`~eigensparse.operators.SparseData` and by the out-of-core text passes.
- :func:`accumulate_rows`: rows Σ[I, :] of the centered, scaled covariance of a CSR
  matrix, dense, reading only the documents of the features I; used by
  :class:`~eigensparse.operators.SparseData` for blocks of many columns.
- :func:`covariance_checks`: the one pass over the pairs (S_ij, S_ji) of a
  precomputed covariance that :class:`~eigensparse.operators.Covariance` needs
  (finiteness, asymmetry, 2×2 principal minors of the symmetrized, optionally
  scaled matrix).
- :func:`lanczos_step`: the reorthogonalization of one step of the PSD check's
  Lanczos run.
"""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["accumulate_gram", "add_upper_outer", "accumulate_rows", "covariance_checks",
           "lanczos_step"]

#: side of the square tiles of :func:`covariance_checks` (two 64×64 float64 tiles fit in L1)
_TILE = 64


@numba.njit(cache=True, nogil=True)
def accumulate_gram(indptr, indices, values, col_map, G, d_lo, d_hi):
    """G[a, b] += v_a v_b over documents ``d_lo … d_hi - 1`` of a CSR chunk, for the
    working-set words (``col_map[word]`` = position in the working set, or -1).

    Only the upper triangle (a <= b) is written: ``col_map`` must increase with the
    word id and the indices of each document must be sorted without duplicates (a
    canonical CSR matrix, as every chunk that :mod:`eigensparse.io` produces).
    Cost: Σ_d (nnz of d in the working set)².
    """
    m = G.shape[0]
    pos = np.empty(m, dtype=np.int64)
    val = np.empty(m, dtype=np.float64)
    for d in range(d_lo, d_hi):
        k = 0
        for t in range(indptr[d], indptr[d + 1]):
            a = col_map[indices[t]]
            if a >= 0:
                pos[k] = a
                val[k] = values[t]
                k += 1
        add_upper_outer(G, pos, val, k)


@numba.njit(cache=True, nogil=True, inline="always")
def add_upper_outer(G, pos, val, k):
    """G[pos[i], pos[j]] += val[i] val[j] for 0 <= i <= j < k: one document's entries
    (positions increasing) into the upper triangle of a Gram matrix."""
    for i in range(k):
        a = pos[i]
        va = val[i]
        for j in range(i, k):
            G[a, pos[j]] += va * val[j]


@numba.njit(cache=True, nogil=True)
def accumulate_rows(t_indptr, t_indices, t_values, indptr, indices, values, idx, mean, scale,
                    inv_n, G):
    """The rows Σ[idx, :] of the centered and scaled covariance of a CSR matrix X, into
    G (len(idx) × p): (Xᵀ X)[a, :]·inv_n − μ_a μ, divided by scale_a · scale.

    ``t_*`` is the CSR of Xᵀ (the documents of each feature), the others X's CSR: row
    a of Xᵀ X is Σ over the documents d of feature a of v_da · (row d of X), so only
    the documents of the chosen features are read. Cost: Σ_{a ∈ idx} Σ_{d ∋ a} nnz_d."""
    p = G.shape[1]
    for u in range(idx.size):
        a = idx[u]
        for b in range(p):
            G[u, b] = 0.0
        for t in range(t_indptr[a], t_indptr[a + 1]):
            d = t_indices[t]
            va = t_values[t]
            for e in range(indptr[d], indptr[d + 1]):
                G[u, indices[e]] += va * values[e]
        ma = mean[a]
        sa = scale[a]
        for b in range(p):
            G[u, b] = (G[u, b] * inv_n - ma * mean[b]) / (sa * scale[b])


@numba.njit(cache=True, nogil=True, fastmath={"nsz", "reassoc", "contract", "arcp"})
def covariance_checks(S, inv_scale, root_diag, low, pos):
    """One tiled pass over the pairs (S_ij, S_ji), i <= j, of a square matrix (read
    only, but for ``low``).

    Parameters
    ----------
    S : ndarray of shape (p, p), float64, C-contiguous
    inv_scale : ndarray of shape (p,)
        w: the minors are taken on M = ½(S + Sᵀ) ∘ wwᵀ (ones: on ½(S + Sᵀ)).
    root_diag : ndarray of shape (p,)
        √max(M_ii, 0).
    low : ndarray of shape (n, n), float32, or of shape (0, 0)
        Receives the upper triangle of M's principal block on the features that ``pos``
        keeps, in single precision, for a cheap estimate that needs products with M only
        to a few digits (the PSD check's Lanczos steps); nothing is written when its
        shape is (0, 0).
    pos : int64 ndarray of shape (p,) (or (0,) when nothing is written)
        Each feature's row and column in ``low``, increasing, −1 for a feature left out:
        M[i, j] (i <= j, both kept) goes to ``low[pos[i], pos[j]]``; the rest of ``low``
        is not written.

    Returns
    -------
    total : float
        Σ_{i<=j} (S_ij + S_ji) (the sum of S plus its trace): not finite when an entry is
        not (NaN and ±inf propagate), or when the sum overflows (confirm with an exact test).
    max_asym : float
        max |S_ij − S_ji| (exactly 0 for an exactly symmetric matrix).
    worst : float
        max over pairs of |M_ij| − root_diag_i·root_diag_j: positive when a 2×2
        principal minor of M is negative (up to rounding: compare with a tolerance).
    worst_row : int
        A row i holding the pair that attains ``worst``.

    Notes
    -----
    The loops are written so that LLVM vectorizes the reductions (reassociation allowed,
    NaN and infinity semantics kept); one tiled pass replaces the NumPy passes
    (isfinite, |S − Sᵀ|, |M| − rrᵀ) (their costs: the docs' performance notes).
    """
    p = S.shape[0]
    total = 0.0
    max_asym = 0.0
    worst = -np.inf
    worst_row = 0
    write = low.shape[0] > 0
    for bi in range(0, p, _TILE):
        for bj in range(bi, p, _TILE):
            for i in range(bi, min(bi + _TILE, p)):
                wi = inv_scale[i]
                ri = root_diag[i]
                row_worst = -np.inf
                pi = pos[i] if write else -1
                for j in range(max(bj, i), min(bj + _TILE, p)):
                    a = S[i, j]
                    b = S[j, i]
                    total += a + b
                    max_asym = max(max_asym, abs(a - b))
                    mij = 0.5 * (a + b) * (wi * inv_scale[j])
                    row_worst = max(row_worst, abs(mij) - ri * root_diag[j])
                    if pi >= 0:
                        pj = pos[j]
                        if pj >= 0:
                            low[pi, pj] = mij
                if row_worst > worst:
                    worst = row_worst
                    worst_row = i
    return total, max_asym, worst, worst_row


@numba.njit(cache=True, nogil=True)
def lanczos_step(Q, W, m, floor):
    """Step m of a Lanczos run with full reorthogonalization: w = W[m − 1] (the product
    M·q_{m−1}) made orthogonal to the basis Q[:m] (classical Gram–Schmidt, twice), and,
    when its norm is above ``floor`` times ‖W[m − 1]‖ and m < len(Q), the next basis
    vector w/‖w‖ written to Q[m]. Returns False when the norm is not above (the Krylov
    space is invariant, to the products' rounding), else True."""
    n = Q.shape[1]
    w = W[m - 1].copy()
    w_norm = np.sqrt(np.dot(w, w))
    c = np.empty(m)
    for _ in range(2):  # twice is enough
        for k in range(m):
            c[k] = np.dot(Q[k], w)
        for k in range(m):
            ck = c[k]
            for i in range(n):
                w[i] -= ck * Q[k, i]
    norm = np.sqrt(np.dot(w, w))
    if not norm > floor * w_norm:
        return False
    if m < Q.shape[0]:
        for i in range(n):
            Q[m, i] = w[i] / norm
    return True
