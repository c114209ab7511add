"""Compiled kernels of the out-of-core text pipeline (the Gram kernel lives in the
operator layer, :mod:`eigensparse.operators._kernels`, and is shared from there)."""
from __future__ import annotations

import numba

from ..operators._kernels import accumulate_gram

__all__ = ["accumulate_gram", "row_sums"]


@numba.njit(cache=True, nogil=True)
def row_sums(indptr, values, out):
    """out[d] = Σ values of document d (squared values go in for an ℓ2 norm)."""
    for d in range(indptr.size - 1):
        s = 0.0
        for t in range(indptr[d], indptr[d + 1]):
            s += values[t]
        out[d] = s
