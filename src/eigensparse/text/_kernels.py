"""Compiled kernels of the out-of-core text pipeline (the Gram kernel lives in the
operator layer, :mod:`eigensparse.operators._kernels`, and is shared from there)."""
from __future__ import annotations

import numba
import numpy as np

from ..operators._kernels import accumulate_gram, add_upper_outer

__all__ = ["accumulate_gram", "row_sums", "scaled_moments", "scaled_gram", "topic_scores"]


@numba.njit(cache=True, nogil=True)
def row_sums(indptr, values, out):
    """out[d] = Σ values of document d (squared values go in for an ℓ2 norm)."""
    for d in range(indptr.size - 1):
        s = 0.0
        for t in range(indptr[d], indptr[d + 1]):
            s += values[t]
        out[d] = s


@numba.njit(cache=True, nogil=True, inline="always")
def _value(c, w, mode, idf, nrm):
    """The value of count ``c`` of word ``w`` under the scaling ``mode``."""
    if mode == 0:
        return float(c)
    if mode == 1:
        return 1.0
    if mode == 2:
        return np.log1p(float(c))
    return c * idf[w] / nrm


@numba.njit(cache=True, nogil=True, inline="always")
def _norm(indices, data, a, b, mode, idf):
    """The ℓ2 norm of a tf-idf document (entries a … b-1; 1 for an empty one), else 1."""
    if mode != 3:
        return 1.0
    s = 0.0
    for t in range(a, b):
        x = data[t] * idf[indices[t]]
        s += x * x
    nrm = np.sqrt(s)
    return nrm if nrm != 0.0 else 1.0


@numba.njit(cache=True, nogil=True)
def scaled_moments(indptr, indices, data, mode, idf, s12, df, norms, base, d_lo, d_hi):
    """Per word Σv (``s12[w, 0]``), Σv² (``s12[w, 1]``: both sums of a word on one cache
    line) and document frequency of documents ``d_lo … d_hi - 1`` of one
    chunk (``d_hi < 0``: to the end), for the values v of the scaling ``mode`` (0 count,
    1 binary, 2 log(1 + count), 3 tf-idf: count·idf, documents divided by their ℓ2 norm),
    computed entry by entry (no array of values). An empty ``df``: the document
    frequencies are not counted (known from an earlier pass). A non-empty ``norms``
    (tf-idf): the ℓ2 norm of document d is kept in ``norms[base + d]``, for
    :func:`scaled_gram` to reuse."""
    if d_hi < 0:
        d_hi = indptr.size - 1
    count_df = df.size > 0
    keep = mode == 3 and norms.size > 0
    for d in range(d_lo, d_hi):
        a = indptr[d]
        b = indptr[d + 1]
        nrm = _norm(indices, data, a, b, mode, idf)
        if keep:
            norms[base + d] = nrm
        for t in range(a, b):
            w = indices[t]
            x = _value(data[t], w, mode, idf, nrm)
            s12[w, 0] += x
            s12[w, 1] += x * x
            if count_df:
                df[w] += 1


@numba.njit(cache=True, nogil=True)
def scaled_gram(indptr, indices, data, mode, idf, col_map, G, d_lo, d_hi, norms, base):
    """G[a, b] += v_a v_b (a <= b) over documents ``d_lo … d_hi - 1`` of a CSR chunk for
    the working-set words (``col_map[word]`` its position, or -1; an int32 map stays in
    the core's cache), with the values v of the scaling ``mode`` (as
    :func:`scaled_moments`) computed entry by entry: the counts are read once, no array
    of values is formed. A non-empty ``norms`` (tf-idf): the norm of document d is
    ``norms[base + d]`` (kept by :func:`scaled_moments`), not computed again. The
    indices of each document must be sorted and ``col_map`` increase with the word id
    (the upper triangle)."""
    m = G.shape[0]
    pos = np.empty(m, dtype=np.int64)
    ent = np.empty(m, dtype=np.int64)
    val = np.empty(m, dtype=np.float64)
    known = norms.size > 0
    for d in range(d_lo, d_hi):
        a0 = indptr[d]
        b0 = indptr[d + 1]
        k = 0
        for t in range(a0, b0):
            a = col_map[indices[t]]
            if a >= 0:
                pos[k] = a
                ent[k] = t  # scaled below, once the document's norm is known
                k += 1
        if k == 0:
            continue
        if known and mode == 3:
            nrm = norms[base + d]
        else:
            nrm = _norm(indices, data, a0, b0, mode, idf)
        for i in range(k):
            t = ent[i]
            val[i] = _value(data[t], indices[t], mode, idf, nrm)
        add_upper_outer(G, pos, val, k)


@numba.njit(cache=True, nogil=True)
def topic_scores(indptr, indices, data, mode, idf, col_map, V, rows, S):
    """Scores of the documents of a CSR chunk that hold a topic word: for the n-th such
    document d, ``rows[n] = d`` and ``S[n, j] = Σ v_w V[col_map[w], j]`` over its words w
    with ``col_map[w] >= 0``, v the values of the scaling ``mode`` (as
    :func:`scaled_moments`). Returns n, the number of such documents."""
    k = V.shape[1]
    n = 0
    for d in range(indptr.size - 1):
        a0 = indptr[d]
        b0 = indptr[d + 1]
        hit = False
        for t in range(a0, b0):
            if col_map[indices[t]] >= 0:
                hit = True
                break
        if not hit:
            continue
        nrm = _norm(indices, data, a0, b0, mode, idf)
        for j in range(k):
            S[n, j] = 0.0
        for t in range(a0, b0):
            c = col_map[indices[t]]
            if c >= 0:
                x = _value(data[t], indices[t], mode, idf, nrm)
                for j in range(k):
                    S[n, j] += x * V[c, j]
        rows[n] = d
        n += 1
    return n
