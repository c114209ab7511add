"""Deflated operators (Mackey 2009): each wraps a parent operator and one vector x.

All are exact compositions through the parent's products: nothing p×p is formed.
With w = Σx and c = xᵀΣx (precomputed once):

- ``hotelling``:  Σ' = Σ − c·xxᵀ            (no data square root survives)
- ``projection``: Σ' = (I − xxᵀ) Σ (I − xxᵀ)  (A' = A(I − xxᵀ))
- ``schur``:      Σ' = Σ − wwᵀ/c             (A' = (I − uuᵀ)A, u = Ax/‖Ax‖)
- ``orthogonal``: projection deflation with q = (I − QQᵀ)x/‖·‖, Q the earlier q's
  (Mackey's orthogonalized projection); built by :func:`deflate` with the q computed.
"""
from __future__ import annotations

import numpy as np

from ._base import Operator, _as_2d
from ._dense import dense_square_root

__all__ = ["HotellingDeflated", "ProjectionDeflated", "SchurDeflated"]


class _Deflated(Operator):
    def __init__(self, parent: Operator, x: np.ndarray):
        x = np.asarray(x, dtype=float)
        self.parent, self.x = parent, x
        self.n_features, self.n_samples = parent.n_features, parent.n_samples
        self.w = parent.matvec(x)
        self.c = float(x @ self.w)

    def factor(self):
        """Itself when a data square root survives the deflation, else a dense one."""
        return self if self.has_data else dense_square_root(self)


class HotellingDeflated(_Deflated):
    """Hotelling deflation Σ' = Σ − c·xxᵀ, c = xᵀΣx (no data square root survives).

    Parameters
    ----------
    parent : Operator
        The p×p matrix Σ.
    x : ndarray of shape (p,)
        Unit vector (a component's loadings) to deflate by.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.operators import HotellingDeflated
    >>> S = np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]])
    >>> x = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)
    >>> D = HotellingDeflated(Covariance(S), x)  # Σ − (xᵀΣx) x xᵀ
    >>> np.round(D.to_dense(), 4).tolist()
    [[0.5, -0.5, 0.0], [-0.5, 0.5, 1.0], [0.0, 1.0, 2.0]]
    """

    kind = "Hotelling-deflated operator"
    has_data = False

    def diag(self):
        return self.parent.diag() - self.c * self.x**2

    def matmat(self, V):
        V, _ = _as_2d(V)
        return self.parent.matmat(V) - self.c * np.outer(self.x, self.x @ V)

    def block(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        xi = self.x[idx]
        return self.parent.block(idx) - self.c * np.outer(xi, xi)

    def rows(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        return self.parent.rows(idx) - self.c * np.outer(self.x[idx], self.x)


class ProjectionDeflated(_Deflated):
    """Projection deflation Σ' = (I − xxᵀ) Σ (I − xxᵀ), with A' = A(I − xxᵀ).

    Parameters as in :class:`HotellingDeflated`.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.operators import ProjectionDeflated
    >>> S = np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]])
    >>> x = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)
    >>> D = ProjectionDeflated(Covariance(S), x)  # (I − x xᵀ) Σ (I − x xᵀ)
    >>> np.round(D.matvec(x), 12).tolist()  # x is in the null space now
    [0.0, 0.0, 0.0]
    """

    kind = "projection-deflated operator"

    def __init__(self, parent, x):
        super().__init__(parent, x)
        self.has_data = parent.has_data

    def _P(self, V):
        return V - np.outer(self.x, self.x @ V)

    def diag(self):
        x, w = self.x, self.w
        return self.parent.diag() - 2 * x * w + self.c * x**2

    def matmat(self, V):
        V, _ = _as_2d(V)
        return self._P(self.parent.matmat(self._P(V)))

    def block(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        xi, wi = self.x[idx], self.w[idx]
        return (self.parent.block(idx) - np.outer(xi, wi) - np.outer(wi, xi)
                + self.c * np.outer(xi, xi))

    def rows(self, idx):
        # (PΣP)[I, :] = M − (Mx)xᵀ with M = (PΣ)[I, :] = Σ[I, :] − x_I wᵀ
        idx = np.asarray(idx, dtype=np.intp)
        M = self.parent.rows(idx) - np.outer(self.x[idx], self.w)
        return M - np.outer(M @ self.x, self.x)

    def dot(self, X):
        X = np.asarray(X, dtype=float)
        PX = X - np.multiply.outer(self.x, self.x @ X) if X.ndim == 2 else X - self.x * (self.x @ X)
        return self.parent.dot(PX)

    def rdot(self, Y):
        Z = self.parent.rdot(Y)
        return Z - (np.outer(self.x, self.x @ Z) if Z.ndim == 2 else self.x * (self.x @ Z))


class SchurDeflated(_Deflated):
    """Schur complement deflation Σ' = Σ − wwᵀ/c, w = Σx, c = xᵀΣx (stays semidefinite).

    With data, A' = (I − uuᵀ)A, u = Ax/‖Ax‖. Parameters as in :class:`HotellingDeflated`.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.operators import SchurDeflated
    >>> S = np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]])
    >>> x = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)
    >>> D = SchurDeflated(Covariance(S), x)  # Σ − Σx xᵀΣ / (xᵀΣx)
    >>> np.round(D.matvec(x), 12).tolist(), bool(np.all(np.linalg.eigvalsh(D.to_dense()) > -1e-12))
    ([0.0, 0.0, 0.0], True)
    """

    kind = "Schur-deflated operator"

    def __init__(self, parent, x):
        super().__init__(parent, x)
        self.has_data = parent.has_data
        # v = w/√c, so that Σ' = Σ − vvᵀ: wwᵀ/c would underflow (or overflow) where Σ's
        # entries are near the square root of the smallest (largest) float
        self.v = self.w / np.sqrt(self.c) if self.c > 0 else np.zeros_like(self.w)

    @property
    def u(self):
        """u = Ax/‖Ax‖ (n_samples,), computed at the first ``dot``/``rdot``: an O(nnz)
        product that solvers working through Σ never need."""
        u = self.__dict__.get("_u")
        if u is None:
            u = self.parent.dot(self.x)
            u = self._u = u / np.linalg.norm(u)
        return u

    def diag(self):
        if self.c <= 0:
            return self.parent.diag()
        return self.parent.diag() - self.v**2

    def matmat(self, V):
        V, _ = _as_2d(V)
        out = self.parent.matmat(V)
        if self.c > 0:
            out = out - np.outer(self.v, self.v @ V)
        return out

    def block(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        B = self.parent.block(idx)
        if self.c > 0:
            vi = self.v[idx]
            B = B - np.outer(vi, vi)
        return B

    def rows(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        R = self.parent.rows(idx)
        if self.c > 0:
            R = R - np.outer(self.v[idx], self.v)
        return R

    def dot(self, X):
        Y = self.parent.dot(X)
        if self.c <= 0:
            return Y
        return Y - (np.outer(self.u, self.u @ Y) if Y.ndim == 2 else self.u * (self.u @ Y))

    def rdot(self, Y):
        Y = np.asarray(Y, dtype=float)
        if self.c > 0:
            Y = Y - (np.outer(self.u, self.u @ Y) if Y.ndim == 2 else self.u * (self.u @ Y))
        return self.parent.rdot(Y)
