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

