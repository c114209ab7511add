"""Per-block kernels of :class:`~eigensparse.operators.dask.DaskData`.

Module-level functions (picklable: they run on the workers). Each takes one row block
b of X (NumPy or CSR), the argument of the product and a :class:`BlockContext` (the
column selection of a restricted view and the mean to subtract), and returns that
block's share of Σ·V, A·X, Aᵀ·Y, Σ[I, I] or the column statistics; the operator adds
the shares in a fixed tree.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

# ---------------------------------------------------------------------------
# block kernels (module level: picklable, run on the workers)
# ---------------------------------------------------------------------------
def prepare_block(b):
    """float64 CSR for sparse blocks, C-contiguous float64 for dense ones."""
    if sp.issparse(b):
        b = sp.csr_matrix(b, dtype=np.float64)
        b.sum_duplicates()
        return b
    return np.ascontiguousarray(np.asarray(b, dtype=np.float64))


class BlockContext:
    """What every block kernel needs besides its block: the column selection of a
    restricted view (or None) and the mean to subtract (or None)."""

    __slots__ = ("cols", "mu")

    def __init__(self, cols, mu):
        self.cols, self.mu = cols, mu

    @property
    def nbytes(self):
        return sum(getattr(a, "nbytes", 0) for a in (self.cols, self.mu))

    def __iter__(self):  # unpacking: cols, mu, _ = ctx
        return iter((self.cols, self.mu, None))

    def __reduce__(self):
        return (BlockContext, (self.cols, self.mu))


def _select(b, cols):
    return b if cols is None else b[:, cols]


def stats_block(b):
    """(rows, column sums, centered column sums of squares, non-finite count)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return _stats_block_raw(b)


def _stats_block_raw(b):
    n = b.shape[0]
    if sp.issparse(b):
        s = np.asarray(b.sum(axis=0)).ravel()
        sq = np.asarray(b.multiply(b).sum(axis=0)).ravel()
        m2 = sq - s * s / n if n else sq
        bad = int(np.count_nonzero(~np.isfinite(b.data)))
    else:
        s = b.sum(axis=0)
        if n:
            d = b - s / n
            m2 = np.einsum("ij,ij->j", d, d)
        else:
            m2 = np.zeros(b.shape[1])
        bad = int(np.count_nonzero(~np.isfinite(b)))
    return n, s, np.maximum(m2, 0.0), bad


def stats_combine(parts):
    """Chan et al.'s pairwise update, in the given (fixed) order."""
    n, s, m2, bad = parts[0]
    m2 = m2.copy()
    s = s.copy()
    for nb, sb, m2b, badb in parts[1:]:
        if nb == 0:
            bad += badb
            continue
        if n > 0:
            delta = sb / nb - s / n
            m2 += m2b + delta * delta * (n * nb / (n + nb))
        else:
            m2 = m2b.copy()
        s += sb
        n += nb
        bad += badb
    return n, s, m2, bad


def _centered_product(b, W, mu):
    """(X_b − 1μᵀ)·W, shape (rows, k); sparse blocks are never densified."""
    if sp.issparse(b):
        Y = b @ W
        return Y - (mu @ W) if mu is not None else Y
    if mu is not None:
        return (b - mu) @ W
    return b @ W


def _transposed_product(b, Y, mu):
    """(b − 1μᵀ)ᵀ·Y for a selected block b (sparse: never densified)."""
    if sp.issparse(b):
        out = np.asarray(b.T @ Y)
        if mu is not None:
            out -= np.outer(mu, Y.sum(axis=0))
        return out
    return ((b - mu) if mu is not None else b).T @ Y


def matmat_block(b, W, ctx):
    cols, mu, _ = ctx
    b = _select(b, cols)
    return _transposed_product(b, _centered_product(b, W, mu), mu)


def quad_block(b, W, ctx):
    cols, mu, _ = ctx
    Y = _centered_product(_select(b, cols), W, mu)
    return np.einsum("ij,ij->j", Y, Y)


def dot_block(b, W, ctx):
    cols, mu, _ = ctx
    return _centered_product(_select(b, cols), W, mu)


def rdot_block(b, Y, ctx):
    cols, mu, _ = ctx
    return _transposed_product(_select(b, cols), Y, mu)


def gram_block(b, idx, ctx):
    """Raw Gram block X_Iᵀ X_I (sparse: densified |I| × |I|) and the column sums of X_I."""
    cols, mu, _ = ctx
    sel = idx if cols is None else cols[idx]
    Xi = b[:, sel]
    if sp.issparse(Xi):
        return np.asarray((Xi.T @ Xi).toarray())
    if mu is not None:
        Xi = Xi - mu[idx]
    return Xi.T @ Xi


def data_columns_block(b, idx, ctx):
    cols, mu, _ = ctx
    sel = idx if cols is None else cols[idx]
    Xi = b[:, sel]
    Xi = Xi.toarray() if sp.issparse(Xi) else np.array(Xi)
    if mu is not None:
        Xi = Xi - mu[idx]
    return Xi


def sum_parts(*parts):
    out = np.array(parts[0], dtype=np.float64, copy=True)
    for q in parts[1:]:
        out += q
    return out


def stats_combine_star(*parts):
    return stats_combine(list(parts))
