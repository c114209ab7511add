"""The operator protocol: how every solver sees the data.

An operator represents a p×p positive semidefinite matrix Σ (a covariance, a
correlation, a co-occurrence matrix, or a deflated version of one) through a few
products. When it is built from data it also represents a square root ``A``
(``Σ = AᵀA``) and exposes the products ``A·x`` (:meth:`Operator.dot`) and
``Aᵀ·y`` (:meth:`Operator.rdot`), which the L1-variance formulations and the
greedy methods use. Solvers never look at the storage format.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from .._validation import InvalidParameterError

__all__ = ["Operator", "RestrictedOperator", "principal_block"]


class Operator(ABC):
    """Abstract base class of all operators.

    Subclasses set ``n_features`` (p) and ``n_samples`` (rows of ``A``, or None when
    no square root is available) and implement :meth:`diag` and :meth:`matmat`.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Operator, as_operator
    >>> op = as_operator(np.random.default_rng(0).standard_normal((50, 4)))
    >>> isinstance(op, Operator), op.n_features, op.n_samples, op.has_data
    (True, 4, 50, True)
    >>> v = np.ones(4)
    >>> bool(np.allclose(op.matvec(v), op.to_dense() @ v)), op.block([0, 2]).shape
    (True, (2, 2))
    """

    n_features: int
    n_samples: int | None = None
    #: True when :meth:`dot` and :meth:`rdot` are available (the operator has a data
    #: square root ``A`` with ``Σ = AᵀA``).
    has_data: bool = False
    #: short description used in error messages
    kind: str = "operator"

    # -- required ---------------------------------------------------------
    @abstractmethod
    def diag(self) -> np.ndarray:
        """Diagonal of Σ, shape (p,): the feature variances."""

    @abstractmethod
    def matmat(self, V: np.ndarray) -> np.ndarray:
        """Σ·V for V of shape (p, b); returns shape (p, b)."""

    # -- derived (override when a cheaper route exists) ---------------------
    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_features, self.n_features)

    def matvec(self, v: np.ndarray) -> np.ndarray:
        """Σ·v for v of shape (p,)."""
        return self.matmat(np.asarray(v, dtype=float).reshape(-1, 1))[:, 0]

    def quad(self, V: np.ndarray) -> np.ndarray:
        """Column-wise quadratic forms vᵢᵀΣvᵢ for V of shape (p, b) or (p,)."""
        V = np.asarray(V, dtype=float)
        if V.ndim == 1:
            return float(V @ self.matvec(V))
        return np.einsum("ij,ij->j", V, self.matmat(V))

    def columns(self, idx) -> np.ndarray:
        """Σ[:, idx], shape (p, len(idx))."""
        idx = np.asarray(idx, dtype=np.intp)
        E = np.zeros((self.n_features, idx.size))
        E[idx, np.arange(idx.size)] = 1.0
        return self.matmat(E)

    def rows(self, idx) -> np.ndarray:
        """Σ[idx, :], shape (len(idx), p), C-contiguous (Σ is symmetric: its columns
        ``idx``, transposed; operators that can build the rows directly do)."""
        return np.ascontiguousarray(self.columns(idx).T)

    def block(self, idx) -> np.ndarray:
        """Dense principal submatrix Σ[idx, idx], shape (len(idx), len(idx))."""
        idx = np.asarray(idx, dtype=np.intp)
        B = self.columns(idx)[idx]
        return 0.5 * (B + B.T)

    def restrict(self, idx) -> "Operator":
        """Operator for Σ[idx, idx] (features ``idx`` only, in that order)."""
        return RestrictedOperator(self, idx)

    def trace(self) -> float:
        return float(self.diag().sum())

    def to_dense(self) -> np.ndarray:
        """The full Σ as a dense array (for small p: tests, exhaustive search)."""
        return self.block(np.arange(self.n_features))

    def dot(self, X: np.ndarray) -> np.ndarray:
        """A·X for X of shape (p, b) or (p,); shape (n_samples, b)."""
        raise InvalidParameterError(
            f"this {self.kind} has no data square root: A·x is only available for operators "
            "built from a data matrix (not from a precomputed covariance or a Hotelling-deflated one)."
        )

    def rdot(self, Y: np.ndarray) -> np.ndarray:
        """Aᵀ·Y for Y of shape (n_samples, b) or (n_samples,); shape (p, b)."""
        raise InvalidParameterError(
            f"this {self.kind} has no data square root: Aᵀ·y is only available for operators "
            "built from a data matrix."
        )

    def factor(self) -> "Operator":
        """An operator with ``has_data=True`` representing the same Σ.

        Data operators return themselves. Operators that only hold Σ override this with
        a dense square root from an eigendecomposition (``A = Λ^½ Qᵀ``, only the positive
        part, O(p³); see :func:`eigensparse.operators._dense.dense_square_root`), which
        lives above this module so that the base class imports no back-end.
        """
        if self.has_data:
            return self
        raise InvalidParameterError(
            f"this {self.kind} has no data square root and does not define factor(); "
            "override factor() (e.g. with operators._dense.dense_square_root).")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} p={self.n_features} n={self.n_samples}>"


def principal_block(S: np.ndarray, idx) -> np.ndarray:
    """S[idx][:, idx] of a dense p×p array, shape (len(idx), len(idx)): two ``take``
    gathers instead of the fancy index ``S[np.ix_(idx, idx)]`` (the docs' performance
    notes give the cost of both)."""
    idx = np.asarray(idx, dtype=np.intp)
    return S.take(idx, axis=0).take(idx, axis=1)


def _as_2d(V):
    V = np.asarray(V, dtype=float)
    return (V.reshape(-1, 1), True) if V.ndim == 1 else (V, False)


class RestrictedOperator(Operator):
    """Σ[idx, idx] of any operator, computed through the parent's products.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.operators import RestrictedOperator
    >>> S = np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]])
    >>> sub = RestrictedOperator(Covariance(S), [0, 2])
    >>> sub.n_features, sub.to_dense().tolist()
    (2, [[2.0, 0.0], [0.0, 2.0]])
    """

    kind = "restricted operator"

    def __init__(self, parent: Operator, idx):
        idx = np.asarray(idx, dtype=np.intp)
        if idx.ndim != 1 or (idx.size and (idx.min() < 0 or idx.max() >= parent.n_features)):
            raise InvalidParameterError(
                f"parameter 'idx' must be indices in [0, {parent.n_features}); got {idx!r}."
            )
        self.parent = parent
        self.idx = idx
        self.n_features = int(idx.size)
        self.n_samples = parent.n_samples
        self.has_data = parent.has_data

    def _embed(self, V):
        E = np.zeros((self.parent.n_features, V.shape[1]))
        E[self.idx] = V
        return E

    def diag(self):
        return self.parent.diag()[self.idx]

    def matmat(self, V):
        V, _ = _as_2d(V)
        return self.parent.matmat(self._embed(V))[self.idx]

    def block(self, idx):
        return self.parent.block(self.idx[np.asarray(idx, dtype=np.intp)])

    def columns(self, idx):
        return self.parent.columns(self.idx[np.asarray(idx, dtype=np.intp)])[self.idx]

    def restrict(self, idx):
        return self.parent.restrict(self.idx[np.asarray(idx, dtype=np.intp)])

    def factor(self):
        """A[:, idx] for a square root A of the parent (Σ[idx, idx] = A[:, idx]ᵀ A[:, idx])."""
        if self.has_data:
            return self
        return RestrictedOperator(self.parent.factor(), self.idx)

    def dot(self, X):
        X, vec = _as_2d(X)
        out = self.parent.dot(self._embed(X))
        return out[:, 0] if vec else out

    def rdot(self, Y):
        Y = np.asarray(Y, dtype=float)
        out = self.parent.rdot(Y)
        return out[self.idx]
