"""Operators built from a data matrix: dense (explicitly centered) and
scipy.sparse (centered implicitly, never densified)."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import (InvalidParameterError, check_data_shape, check_finite_array,
                           check_magnitude, validate_params)
from ._base import Operator, _as_2d, principal_block
from ._gram import GramCache
from ._kernels import accumulate_gram, accumulate_rows

__all__ = ["DenseData", "SparseData"]


def _check_data(X, name="X"):
    check_data_shape(X.shape, name)
    check_finite_array(X, name)
    values = X.data if sp.issparse(X) else X
    if values.size:  # the largest |entry|, from two passes without a temporary array
        check_magnitude(max(-float(values.min()), float(values.max()), 0.0), name)


def scale_from_variance(var: np.ndarray, scale: bool) -> np.ndarray:
    """Per-feature scale: the standard deviation (1 where it is 0) or ones."""
    if not scale:
        return np.ones(var.shape[0])
    sd = np.sqrt(var)
    sd[sd == 0] = 1.0
    return sd


def dense_square_root(op: Operator) -> "DenseData":
    """A data operator A with AᵀA = Σ for an operator that only holds Σ.

    From the eigendecomposition Σ = Q Λ Qᵀ: A = Λ₊^½ Q₊ᵀ over the eigenvalues above
    1e-13·λmax (the positive part), O(p³) time, shape (rank, p).
    """
    S = op.to_dense()
    w, Q = np.linalg.eigh(S)
    keep = w > max(w.max(), 0) * 1e-13
    A = (Q[:, keep] * np.sqrt(w[keep])).T
    return DenseData._from_factor(A)


class DenseData(GramCache, Operator):
    """Σ = AᵀA with A = (X − 1μᵀ) D⁻¹ / √n for a dense X (n_samples, n_features).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    center : bool, default=True
        Subtract the column means μ (otherwise μ = 0: the uncentered second-moment
        matrix XᵀX/n, as in the bipartite paper's bag-of-words tables).
    scale : bool, default=False
        Divide each column by its standard deviation (correlation matrix); columns of
        zero variance are left unscaled.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import DenseData
    >>> X = np.random.default_rng(0).standard_normal((50, 4))
    >>> op = DenseData(X)
    >>> bool(np.allclose(op.to_dense(), np.cov(X, rowvar=False, bias=True)))
    True
    >>> bool(np.allclose(DenseData(X, scale=True).diag(), 1.0))  # correlation matrix
    True
    """

    has_data = True
    kind = "dense data operator"

    @validate_params({"center": ["boolean"], "scale": ["boolean"]})
    def __init__(self, X, center: bool = True, scale: bool = False):
        X = np.asarray(X)
        _check_data(X)
        X = X.astype(np.float64, copy=False)
        n, p = X.shape
        self.n_samples, self.n_features = n, p
        self.center, self.scale = bool(center), bool(scale)
        self.mean_ = X.mean(axis=0) if center else np.zeros(p)
        Xc = X - self.mean_ if center else X.copy()
        if scale:
            sd = np.sqrt(np.einsum("ij,ij->j", Xc, Xc) / n)
            sd[sd == 0] = 1.0
            Xc /= sd
        else:
            sd = np.ones(p)
        self.scale_ = sd
        self._c = 1.0 / np.sqrt(n)
        Xc *= self._c
        self._A = Xc  # the square root itself, n × p

    @classmethod
    def _from_factor(cls, A: np.ndarray) -> "DenseData":
        """Wrap an explicit square root A (Σ = AᵀA) without centering or scaling."""
        self = cls.__new__(cls)
        A = np.ascontiguousarray(A, dtype=np.float64)
        self.n_samples, self.n_features = A.shape
        self.center = self.scale = False
        self.mean_ = np.zeros(self.n_features)
        self.scale_ = np.ones(self.n_features)
        self._c = 1.0
        self._A = A
        return self

    def _sub(self, idx):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._A = np.ascontiguousarray(self._A[:, idx])
        self._slice_gram(new, idx)
        new.mean_, new.scale_ = self.mean_[idx], self.scale_[idx]
        new.n_features = int(len(idx))
        return new

    def _product_cost(self):
        n, p = self._A.shape
        return 2.0 * n * p

    def _form_gram(self):
        return self._A.T @ self._A  # NumPy recognises AᵀA and calls syrk

    def diag(self):
        return np.einsum("ij,ij->j", self._A, self._A)

    def matmat(self, V):
        V, _ = _as_2d(V)
        S = self.gram()
        return S @ V if S is not None else self._A.T @ (self._A @ V)

    def quad(self, V):
        V = np.asarray(V, dtype=float)
        AV = self._A @ V
        return float(AV @ AV) if V.ndim == 1 else np.einsum("ij,ij->j", AV, AV)

    def block(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        S = self.gram()
        if S is not None:
            return principal_block(S, idx)
        Ai = self._A[:, idx]
        return Ai.T @ Ai

    def columns(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        S = self.gram()
        if S is not None:
            return S[:, idx]
        return self._A.T @ self._A[:, idx]

    def rows(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        S = self.gram()
        if S is not None:
            return S[idx]
        return self._A[:, idx].T @ self._A

    def restrict(self, idx):
        return self._sub(np.asarray(idx, dtype=np.intp))

    def dot(self, X):
        return self._A @ np.asarray(X, dtype=float)

    def rdot(self, Y):
        return self._A.T @ np.asarray(Y, dtype=float)

    def data_columns(self, idx) -> np.ndarray:
        """Dense columns of A for the features ``idx``, shape (n_samples, len(idx))."""
        return self._A[:, np.asarray(idx, dtype=np.intp)]


#: SparseData.columns of at most this many features (greedy steps, single columns) use
#: implicit products Xᵀ(X·E) (dense E) instead of the sparse-sparse product Xᵀ·X[:, I]
#: (cheaper for few columns; measured in the docs' performance notes)
IMPLICIT_COLUMNS_MAX = 64


class SparseData(GramCache, Operator):
    """Σ = AᵀA with A = (X − 1μᵀ) D⁻¹ / √n for a scipy.sparse X, never densified.

    Products use Σv = D⁻¹(Xᵀ(X D⁻¹v) − n μ μᵀ D⁻¹v)/n; memory is O(nnz + p·b) for a
    block of b vectors. Parameters as in :class:`DenseData`.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from eigensparse import DenseData, SparseData
    >>> X = sp.random(40, 6, density=0.3, random_state=0, format="csr")
    >>> op = SparseData(X)  # centered implicitly: X stays sparse
    >>> bool(np.allclose(op.to_dense(), DenseData(X.toarray()).to_dense()))
    True
    """

    has_data = True
    kind = "sparse data operator"

    @validate_params({"center": ["boolean"], "scale": ["boolean"]})
    def __init__(self, X, center: bool = True, scale: bool = False):
        if not sp.issparse(X):
            raise InvalidParameterError(f"SparseData needs a scipy.sparse matrix; got {type(X).__name__}.")
        if X.format in ("lil", "dok"):  # rows of lists or a dict: no flat array of values
            X = X.tocsr()
        _check_data(X)
        # our own canonical CSR copy (sorted indices, no duplicates; O(nnz)): the caller's
        # matrix is never modified, and its later changes never reach the operator
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        X.sum_duplicates()
        n, p = X.shape
        self.n_samples, self.n_features = n, p
        self.center, self.scale = bool(center), bool(scale)
        self._X = X
        # column sums and sums of squares in one pass each over the nonzeros (in the
        # order of X.sum(axis=0), so the same rounding)
        colsum = np.bincount(X.indices, weights=X.data, minlength=p)
        sq = np.bincount(X.indices, weights=X.data * X.data, minlength=p)
        self.mean_ = colsum / n if center else np.zeros(p)
        var = sq / n - self.mean_**2
        var[var < 0] = 0.0
        sd = scale_from_variance(var, scale)
        self.scale_ = sd
        self._diag = var / sd**2
        self._c = 1.0 / np.sqrt(n)

    @property
    def _XT(self):
        """CSR of Xᵀ (fast Xᵀ·Y and column slicing), built at the first use: solvers that
        work through the formed Gram matrix never need it."""
        XT = self.__dict__.get("_XT_csr")
        if XT is None:
            XT = self._XT_csr = self._X.T.tocsr()
        return XT

    def _sub(self, idx):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._XT_csr = self._XT[idx]
        new._X = new._XT_csr.T.tocsr()
        new.mean_, new.scale_, new._diag = self.mean_[idx], self.scale_[idx], self._diag[idx]
        new.n_features = int(len(idx))
        self._slice_gram(new, idx)
        return new

    def _product_cost(self):
        return 2.0 * self._X.nnz + 2.0 * (self.n_samples + self.n_features)

    def _form_cost(self) -> float:
        """Multiply-adds to form the whole Σ (or to stream it through ``columns``):
        Σ_rows nnz_row²."""
        return float(np.sum(np.diff(self._X.indptr).astype(np.float64) ** 2))

    def _form_gram(self):
        """Σ from XᵀX accumulated by a compiled kernel over the rows of the canonical CSR
        X (cost Σ_rows nnz_row², no sparse product), then centered and scaled."""
        p = self.n_features
        X = self._X
        G = np.zeros((p, p))
        accumulate_gram(X.indptr, X.indices, X.data, np.arange(p, dtype=X.indices.dtype), G,
                        0, X.shape[0])
        lower = np.tril_indices(p, -1)
        G[lower] = G.T[lower]  # the kernel writes the upper triangle
        return self._center_and_scale(G / self.n_samples, slice(None), slice(None))

    def diag(self):
        return self._diag.copy()

    def dot(self, V):
        V = np.asarray(V, dtype=float)
        W = V / (self.scale_[:, None] if V.ndim == 2 else self.scale_)
        out = self._X @ W
        if self.center:
            out = out - (self.mean_ @ W)
        return out * self._c

    def rdot(self, Y):
        Y = np.asarray(Y, dtype=float)
        out = self._XT @ Y
        if self.center:
            out = out - (np.outer(self.mean_, Y.sum(axis=0)) if Y.ndim == 2 else self.mean_ * Y.sum())
        out = out / (self.scale_[:, None] if Y.ndim == 2 else self.scale_)
        return out * self._c

    def matmat(self, V):
        V, _ = _as_2d(V)
        S = self.gram()
        return S @ V if S is not None else self.rdot(self.dot(V))

    def quad(self, V):
        AV = self.dot(V)
        return float(AV @ AV) if np.ndim(V) == 1 else np.einsum("ij,ij->j", AV, AV)

    def _centered_gram(self, rows=None, cols=None) -> np.ndarray:
        """Σ[rows, cols] (feature indices; None: all) from sparse rows of Xᵀ, centered and
        scaled; costs O(nnz of the touched features' documents)."""
        pick = lambda idx: (self._XT, slice(None)) if idx is None else (self._XT[idx], idx)  # noqa: E731
        (R, ri), (C, ci) = pick(rows), pick(cols)
        return self._center_and_scale((R @ C.T).toarray() / self.n_samples, ri, ci)

    def _center_and_scale(self, G, ri, ci) -> np.ndarray:
        """Σ[ri, ci] from the block G = (XᵀX)[ri, ci]/n of the uncentered second moments."""
        if self.center:
            G -= np.outer(self.mean_[ri], self.mean_[ci])
        return G / np.outer(self.scale_[ri], self.scale_[ci])

    def block(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        S = self.gram()
        if S is not None:
            return principal_block(S, idx)
        return self._centered_gram(idx, idx)

    def columns(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        S = self.gram()
        if S is not None:
            return S[:, idx]
        if idx.size <= IMPLICIT_COLUMNS_MAX:  # Σ·E by two sparse mat-mats: O(nnz·|I|)
            E = np.zeros((self.n_features, idx.size))
            E[idx, np.arange(idx.size)] = 1.0
            return self.rdot(self.dot(E))
        return self.rows(idx).T  # Σ[:, I] (Fortran order)

    def rows(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        S = self.gram()
        if S is not None:
            return S[idx]
        # by a compiled pass over the documents of the features I (cost
        # Σ_{a ∈ I} Σ_{d ∋ a} nnz_d, at most |I|·nnz: never more than |I| implicit
        # products, whatever |I|)
        X, XT = self._X, self._XT
        G = np.empty((idx.size, self.n_features))
        mean = self.mean_ if self.center else np.zeros(self.n_features)
        accumulate_rows(XT.indptr, XT.indices, XT.data, X.indptr, X.indices, X.data,
                        idx.astype(np.int64), mean, self.scale_, 1.0 / self.n_samples, G)
        return G

    def restrict(self, idx):
        return self._sub(np.asarray(idx, dtype=np.intp))

    def data_columns(self, idx) -> np.ndarray:
        """Dense columns of A for the features ``idx``, shape (n_samples, len(idx))."""
        idx = np.asarray(idx, dtype=np.intp)
        cols = self._XT[idx].toarray().T
        if self.center:
            cols = cols - self.mean_[idx]
        return cols / self.scale_[idx] * self._c
