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
    """One row block as the kernels take it: float64 CSR (duplicate entries summed) for
    sparse blocks, C-contiguous float64 for dense ones; same shape (rows, p).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from eigensparse.operators.dask.kernels import prepare_block
    >>> prepare_block([[1, 2], [3, 4]]).dtype
    dtype('float64')
    >>> B = prepare_block(sp.coo_matrix(([1, 2], ([0, 0], [1, 1])), shape=(2, 2)))
    >>> B.format, B.nnz, B.toarray().tolist()  # the two entries at (0, 1) summed
    ('csr', 1, [[0.0, 3.0], [0.0, 0.0]])
    """
    if sp.issparse(b):
        b = sp.csr_matrix(b, dtype=np.float64)
        b.sum_duplicates()
        return b
    return np.ascontiguousarray(np.asarray(b, dtype=np.float64))


class BlockContext:
    """What every block kernel needs besides its block: the column selection of a
    restricted view (int array of shape (q,), or None) and the mean to subtract (shape
    (q,), or None). Unpacks as ``cols, mu, _`` and pickles to the workers.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.operators.dask.kernels import BlockContext
    >>> cols, mu, _ = BlockContext(np.array([0, 2]), None)
    >>> cols.tolist(), mu
    ([0, 2], None)
    >>> BlockContext(None, np.zeros(3)).nbytes  # bytes embedded in the task graph
    24
    """

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
    """Column statistics of one block b (rows, p), dense or sparse: (rows, column sums
    (p,), centered column sums of squares (p,), count of non-finite entries).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.operators.dask.kernels import stats_block
    >>> n, s, m2, bad = stats_block(np.array([[1., 2.], [3., 4.], [5., 0.]]))
    >>> n, s.tolist(), m2.tolist(), bad
    (3, [9.0, 6.0], [8.0, 8.0], 0)
    """
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
    """The statistics of stacked blocks from those of each (a list of
    :func:`stats_block` tuples): Chan et al.'s pairwise update, in the given (fixed) order.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.operators.dask.kernels import stats_block, stats_combine
    >>> X = np.array([[1., 2.], [3., 4.], [5., 0.]])
    >>> n, s, m2, bad = stats_combine([stats_block(X[:2]), stats_block(X[2:])])
    >>> n, s.tolist(), np.round(m2, 12).tolist(), bad  # as stats_block(X)
    (3, [9.0, 6.0], [8.0, 8.0], 0)
    """
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
    """One block's share of XᵀX·W: (X_b − 1μᵀ)ᵀ(X_b − 1μᵀ)·W on the context's columns,
    W of shape (q, k) → (q, k); the shares of the row blocks add up to the product.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.operators.dask.kernels import BlockContext, matmat_block, sum_parts
    >>> X = np.array([[1., 2.], [3., 4.], [5., 0.]])
    >>> ctx = BlockContext(None, X.mean(axis=0))
    >>> shares = [matmat_block(X[:2], np.eye(2), ctx), matmat_block(X[2:], np.eye(2), ctx)]
    >>> sum_parts(*shares).tolist()  # centered XᵀX
    [[8.0, -4.0], [-4.0, 8.0]]
    """
    cols, mu, _ = ctx
    b = _select(b, cols)
    return _transposed_product(b, _centered_product(b, W, mu), mu)


def quad_block(b, W, ctx):
    """One block's share of the quadratic forms w_jᵀXᵀXw_j: ‖(X_b − 1μᵀ)w_j‖² for each
    column of W (q, k) → (k,).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.operators.dask.kernels import BlockContext, quad_block
    >>> X = np.array([[1., 2.], [3., 4.], [5., 0.]])
    >>> quad_block(X, np.array([[1., 1.], [1., 0.]]), BlockContext(None, X.mean(axis=0))).tolist()
    [8.0, 8.0]
    """
    cols, mu, _ = ctx
    Y = _centered_product(_select(b, cols), W, mu)
    return np.einsum("ij,ij->j", Y, Y)


def dot_block(b, W, ctx):
    """One block's rows of X·W: (X_b − 1μᵀ)·W on the context's columns, W of shape (q, k)
    → (rows, k); the operator stacks the blocks.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.operators.dask.kernels import BlockContext, dot_block
    >>> X = np.array([[1., 2.], [3., 4.], [5., 0.]])
    >>> dot_block(X, np.ones((2, 1)), BlockContext(None, X.mean(axis=0))).ravel().tolist()
    [-2.0, 2.0, 0.0]
    >>> dot_block(X, np.ones((1, 1)), BlockContext(np.array([1]), None)).ravel().tolist()
    [2.0, 4.0, 0.0]
    """
    cols, mu, _ = ctx
    return _centered_product(_select(b, cols), W, mu)


def rdot_block(b, Y, ctx):
    """One block's share of Xᵀ·Y: (X_b − 1μᵀ)ᵀ·Y_b with Y_b the block's rows of Y, shape
    (rows, k) → (q, k); sparse blocks are never densified.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from eigensparse.operators.dask.kernels import BlockContext, rdot_block
    >>> X = np.array([[1., 2.], [3., 4.], [5., 0.]])
    >>> ctx, Y = BlockContext(None, X.mean(axis=0)), np.array([[1.], [0.], [0.]])
    >>> rdot_block(X, Y, ctx).ravel().tolist()
    [-2.0, 0.0]
    >>> rdot_block(sp.csr_matrix(X), Y, ctx).ravel().tolist()  # the same, kept sparse
    [-2.0, 0.0]
    """
    cols, mu, _ = ctx
    return _transposed_product(_select(b, cols), Y, mu)


def gram_block(b, idx, ctx):
    """One block's share of the Gram block X_Iᵀ X_I (|I| × |I|, dense) for the view's
    features ``idx``: centered by μ for a dense block, raw for a sparse one (the operator
    subtracts μ_I μ_Iᵀ after the sum).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from eigensparse.operators.dask.kernels import BlockContext, gram_block
    >>> X = np.array([[1., 2.], [3., 4.], [5., 0.]])
    >>> ctx, idx = BlockContext(None, X.mean(axis=0)), np.array([1])
    >>> gram_block(X, idx, ctx).tolist(), gram_block(sp.csr_matrix(X), idx, ctx).tolist()
    ([[8.0]], [[20.0]])
    """
    cols, mu, _ = ctx
    sel = idx if cols is None else cols[idx]
    Xi = b[:, sel]
    if sp.issparse(Xi):
        return np.asarray((Xi.T @ Xi).toarray())
    if mu is not None:
        Xi = Xi - mu[idx]
    return Xi.T @ Xi


def data_columns_block(b, idx, ctx):
    """One block's rows of the dense columns X_I − 1μ_Iᵀ for the view's features ``idx``,
    shape (rows, |I|); the operator stacks the blocks.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from eigensparse.operators.dask.kernels import BlockContext, data_columns_block
    >>> X = sp.csr_matrix([[1., 2.], [3., 4.], [5., 0.]])
    >>> ctx = BlockContext(np.array([1, 0]), np.array([2., 3.]))  # view: columns 1, 0; their means
    >>> data_columns_block(X, np.array([1]), ctx).ravel().tolist()  # column 0, centered
    [-2.0, 0.0, 2.0]
    """
    cols, mu, _ = ctx
    sel = idx if cols is None else cols[idx]
    Xi = b[:, sel]
    Xi = Xi.toarray() if sp.issparse(Xi) else np.array(Xi)
    if mu is not None:
        Xi = Xi - mu[idx]
    return Xi


def sum_parts(*parts):
    """The sum of the blocks' shares (arrays of one shape), as a new float64 array: the
    node of the operator's fixed summation tree.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.operators.dask.kernels import sum_parts
    >>> first = np.array([1., 2.])
    >>> sum_parts(first, np.array([10., 20.]), np.array([100., 200.])).tolist(), first.tolist()
    ([111.0, 222.0], [1.0, 2.0])
    """
    out = np.array(parts[0], dtype=np.float64, copy=True)
    for q in parts[1:]:
        out += q
    return out


def stats_combine_star(*parts):
    """:func:`stats_combine` of the parts given as arguments (a node of the tree).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.operators.dask.kernels import stats_block, stats_combine_star
    >>> X = np.array([[1., 2.], [3., 4.], [5., 0.]])
    >>> n, s, m2, bad = stats_combine_star(stats_block(X[:1]), stats_block(X[1:]))
    >>> n, s.tolist(), np.round(m2, 12).tolist(), bad
    (3, [9.0, 6.0], [8.0, 8.0], 0)
    """
    return stats_combine(list(parts))
