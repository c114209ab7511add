"""Compiled kernels of the out-of-core text pipeline."""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["accumulate_gram", "row_sums"]


@numba.njit(cache=True, nogil=True)
def accumulate_gram(indptr, indices, values, col_map, G, d_lo, d_hi):
    """G[a, b] += v_a v_b over documents ``d_lo … d_hi - 1`` of a CSR chunk, for the
    working-set words (``col_map[word]`` = position in the working set, or -1).

    Only the upper triangle (a <= b) is written: ``col_map`` must increase with the
    word id and the indices of each document must be sorted, as in every chunk that
    :mod:`eigensparse.io` produces. Cost: Σ_d (nnz of d in the working set)².
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
        for i in range(k):
            a = pos[i]
            va = val[i]
            for j in range(i, k):
                G[a, pos[j]] += va * val[j]


@numba.njit(cache=True, nogil=True)
def row_sums(indptr, values, out):
    """out[d] = Σ values of document d (squared values go in for an ℓ2 norm)."""
    for d in range(indptr.size - 1):
        s = 0.0
        for t in range(indptr[d], indptr[d + 1]):
            s += values[t]
        out[d] = s


@numba.njit(cache=True, nogil=True)
def accumulate_hybrid(indptr, indices, values, col_map, dense_col, G, Xd, d_lo, d_hi):
    """Like :func:`accumulate_gram`, but the working-set words with ``dense_col[a] >= 0``
    (the most frequent ones) are written into the dense block ``Xd`` (rows
    ``d - d_lo``, pre-zeroed) instead, for a BLAS product ``XdᵀXd``; G receives only the
    pairs with at least one other word (upper triangle)."""
    m = G.shape[0]
    spos = np.empty(m, dtype=np.int64)
    sval = np.empty(m, dtype=np.float64)
    dpos = np.empty(m, dtype=np.int64)
    dval = np.empty(m, dtype=np.float64)
    for d in range(d_lo, d_hi):
        ks = 0
        kd = 0
        for t in range(indptr[d], indptr[d + 1]):
            a = col_map[indices[t]]
            if a >= 0:
                c = dense_col[a]
                if c >= 0:
                    Xd[d - d_lo, c] = values[t]
                    dpos[kd] = a
                    dval[kd] = values[t]
                    kd += 1
                else:
                    spos[ks] = a
                    sval[ks] = values[t]
                    ks += 1
        for i in range(ks):
            a = spos[i]
            va = sval[i]
            row = G[a]
            for j in range(i, ks):
                row[spos[j]] += va * sval[j]
            for j in range(kd):
                b = dpos[j]
                if a < b:
                    row[b] += va * dval[j]
                else:
                    G[b, a] += va * dval[j]
