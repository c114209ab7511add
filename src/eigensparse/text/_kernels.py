"""Compiled kernels of the out-of-core text pipeline (the Gram kernel lives in the
operator layer, :mod:`eigensparse.operators._kernels`, and is shared from there)."""
from __future__ import annotations

import numba
import numpy as np

from ..operators._kernels import accumulate_gram

__all__ = ["accumulate_gram", "row_sums", "scaled_moments"]


@numba.njit(cache=True, nogil=True)
def row_sums(indptr, values, out):
    """out[d] = Σ values of document d (squared values go in for an ℓ2 norm)."""
    for d in range(indptr.size - 1):
        s = 0.0
        for t in range(indptr[d], indptr[d + 1]):
            s += values[t]
        out[d] = s


@numba.njit(cache=True, nogil=True)
def scaled_moments(indptr, indices, data, mode, idf, s1, s2, df):
    """Per word Σv, Σv² and document frequency of one chunk, for the values v of the
    scaling ``mode`` (0 count, 1 binary, 2 log(1 + count), 3 tf-idf: count·idf,
    documents divided by their ℓ2 norm), computed entry by entry (no array of values)."""
    for d in range(indptr.size - 1):
        a = indptr[d]
        b = indptr[d + 1]
        nrm = 1.0
        if mode == 3:
            s = 0.0
            for t in range(a, b):
                x = data[t] * idf[indices[t]]
                s += x * x
            nrm = np.sqrt(s)
            if nrm == 0.0:
                nrm = 1.0
        for t in range(a, b):
            w = indices[t]
            if mode == 0:
                x = float(data[t])
            elif mode == 1:
                x = 1.0
            elif mode == 2:
                x = np.log1p(float(data[t]))
            else:
                x = data[t] * idf[w] / nrm
            s1[w] += x
            s2[w] += x * x
            df[w] += 1
