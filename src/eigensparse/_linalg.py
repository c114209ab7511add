"""Small dense linear-algebra helpers shared by solvers."""
from __future__ import annotations

import numpy as np
from scipy import linalg as sla

#: up to this size, ``top_eigh`` uses NumPy's full ``eigh`` (faster than SciPy's subset
#: call there, whose Python wrapper costs tens of microseconds)
SMALL_EIGH = 16

#: up to this many rows :func:`lambda_max_op` is one dense eigenvalue solve; above, Lanczos
LAMBDA_MAX_DENSE = 2000

__all__ = ["fix_sign", "top_eigh", "lambda_max_symmetric", "lambda_max_op", "lambda_max_gram",
           "support_of", "normalize_on_support"]


def fix_sign(x: np.ndarray) -> np.ndarray:
    """Sign rule used everywhere: the entry of largest magnitude is positive
    (ties broken by the lowest index). Works on a vector or on the rows of a matrix.

    Examples
    --------
    >>> from eigensparse._linalg import fix_sign
    >>> fix_sign([0.6, -0.8]).tolist()
    [-0.6, 0.8]
    >>> fix_sign([[1.0, -2.0], [3.0, 1.0]]).tolist()  # row by row
    [[-1.0, 2.0], [3.0, 1.0]]
    """
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        if x.size == 0:
            return x
        i = int(np.argmax(np.abs(x)))
        return -x if x[i] < 0 else x
    idx = np.argmax(np.abs(x), axis=1)
    s = np.sign(x[np.arange(x.shape[0]), idx])
    s[s == 0] = 1.0
    return x * s[:, None]


def top_eigh(S: np.ndarray, *, small: int = SMALL_EIGH,
             check_finite: bool = True) -> tuple[float, np.ndarray]:
    """Largest eigenvalue and a unit eigenvector of a small symmetric matrix.

    Up to ``small`` rows NumPy's full ``eigh`` (less call overhead than a subset solve);
    above, LAPACK's evr for the top pair alone. ``check_finite=False`` skips SciPy's scan
    for non-finite entries (callers whose matrix is finite by construction: the exact
    search passes ``small=0`` and ``check_finite=False``).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._linalg import top_eigh
    >>> lam, v = top_eigh([[2.0, 1.0], [1.0, 2.0]])
    >>> round(lam, 6), np.round(np.abs(v), 4).tolist()
    (3.0, [0.7071, 0.7071])
    >>> lam2, _ = top_eigh(np.array([[2.0, 1.0], [1.0, 2.0]]), small=0, check_finite=False)
    >>> bool(abs(lam2 - lam) < 1e-12)
    True
    """
    S = np.asarray(S, dtype=float)
    m = S.shape[0]
    if m == 1:
        return float(S[0, 0]), np.ones(1)
    if m <= small:  # NumPy's full decomposition: less call overhead than a subset
        w, v = np.linalg.eigh(S)
        return float(w[-1]), v[:, -1]
    w, v = sla.eigh(S, subset_by_index=[m - 1, m - 1], driver="evr", check_finite=check_finite)
    return float(w[0]), v[:, 0]


def lambda_max_symmetric(M: np.ndarray) -> float:
    """λmax of the symmetric part ½(M + Mᵀ) of a dense square matrix (0 when empty).

    Examples
    --------
    >>> from eigensparse._linalg import lambda_max_symmetric
    >>> round(lambda_max_symmetric([[2.0, 2.0], [0.0, 2.0]]), 6)  # of [[2, 1], [1, 2]]
    3.0
    """
    M = np.asarray(M, dtype=float)
    M = 0.5 * (M + M.T)
    n = M.shape[0]
    if n == 0:
        return 0.0
    if n == 1:
        return float(M[0, 0])
    return float(sla.eigh(M, eigvals_only=True, subset_by_index=[n - 1, n - 1], driver="evr")[0])


def lambda_max_op(op, *, dense_max: int = LAMBDA_MAX_DENSE, tol: float = 1e-10,
                  v0=None) -> float:
    """λmax of a symmetric operator (``n_features``, ``to_dense()`` and ``matvec``): one
    dense eigenvalue solve up to ``dense_max`` rows (:func:`lambda_max_symmetric`), else
    Lanczos (ARPACK) on its products to relative ``tol`` from ``v0`` (None: ARPACK's
    random start). The one λmax routine of the package; its callers choose the cut-off
    (a Gram matrix's 400, the topics rule's 64 with a loose ``tol``).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse._linalg import lambda_max_op
    >>> S = Covariance(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> round(lambda_max_op(S), 6), round(lambda_max_op(S, dense_max=0, tol=1e-12), 6)
    (3.0, 3.0)
    """
    from scipy.sparse import linalg as spla

    p = int(op.n_features)
    if p <= dense_max:
        return lambda_max_symmetric(op.to_dense())
    lin = spla.LinearOperator((p, p), matvec=op.matvec, dtype=float)
    return float(spla.eigsh(lin, k=1, which="LA", tol=tol, v0=v0, return_eigenvectors=False)[0])


class _SmallerGram:
    """WᵀW or WWᵀ, whichever is smaller, as the operator :func:`lambda_max_op` reads (both
    have the top eigenvalue σmax(W)²)."""

    def __init__(self, W):
        self.W, self.wide = W, W.shape[1] > W.shape[0]
        self.n_features = min(W.shape)

    def to_dense(self):
        return self.W @ self.W.T if self.wide else self.W.T @ self.W

    def matvec(self, v):
        v = np.ravel(v)
        return self.W @ (self.W.T @ v) if self.wide else self.W.T @ (self.W @ v)


def lambda_max_gram(W, *, dense_max: int = 400, tol: float = 1e-12) -> float:
    """λmax(W Wᵀ) = σmax(W)² >= 0 for a dense W (r × q), by :func:`lambda_max_op` on the
    smaller Gram matrix (0 when W is empty).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._linalg import lambda_max_gram
    >>> round(lambda_max_gram(np.array([[3.0, 0.0, 0.0], [0.0, 1.0, 0.0]])), 6)
    9.0
    """
    W = np.asarray(W, dtype=float)
    if W.shape[0] == 0 or W.shape[1] == 0:
        return 0.0
    return max(lambda_max_op(_SmallerGram(W), dense_max=dense_max, tol=tol), 0.0)


def support_of(x: np.ndarray) -> np.ndarray:
    """Sorted indices of the nonzero entries of ``x``, shape (nnz,).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._linalg import support_of
    >>> support_of(np.array([0.0, 0.5, 0.0, -0.2])).tolist()
    [1, 3]
    """
    return np.flatnonzero(x)


def normalize_on_support(x: np.ndarray) -> np.ndarray:
    """``x / ‖x‖`` (``x`` itself when it is zero); zeros stay zeros.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._linalg import normalize_on_support
    >>> normalize_on_support(np.array([0.0, 3.0, 4.0])).tolist()
    [0.0, 0.6, 0.8]
    """
    n = np.linalg.norm(x)
    if n == 0:
        return x
    return x / n
