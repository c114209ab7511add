"""A precomputed covariance (or correlation, or co-occurrence) matrix."""
from __future__ import annotations

import numpy as np

from .._validation import InvalidParameterError, check_finite_array
from ._base import Operator, _as_2d
from ._dense import dense_square_root

__all__ = ["Covariance"]


class Covariance(Operator):
    """Operator for a precomputed symmetric p×p matrix Σ.

    Parameters
    ----------
    S : array-like of shape (p, p)
        Symmetric matrix (checked to ``rtol`` relative to its largest entry).
    n_samples : int, optional
        Number of samples Σ was estimated from (informational only).
    scale : bool, default=False
        Turn Σ into the correlation matrix D⁻¹ΣD⁻¹.
    check_psd : bool, default=False
        Also check positive semidefiniteness (an O(p³) eigendecomposition).
    rtol : float, default=1e-8

    Notes
    -----
    A covariance has no data square root, so ``dot``/``rdot`` raise; formulations
    needing them (the L1-variance alternating maximization) refuse this input.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> S = np.array([[4.0, 2, 0], [2, 9, 3], [0, 3, 1]])
    >>> op = Covariance(S, n_samples=100)
    >>> op.n_features, op.diag().tolist(), op.has_data
    (3, [4.0, 9.0, 1.0], False)
    >>> np.round(Covariance(S, scale=True).to_dense()[0], 4).tolist()  # correlations
    [1.0, 0.3333, 0.0]
    """

    has_data = False
    kind = "precomputed covariance"

    def __init__(self, S, *, n_samples=None, scale=False, check_psd=False, rtol=1e-8):
        S = np.asarray(S)
        if S.ndim != 2 or S.shape[0] != S.shape[1]:
            raise InvalidParameterError(
                f"parameter 'S' (covariance) must be a square 2-D matrix; got shape {S.shape}."
            )
        if S.shape[0] == 0:
            raise InvalidParameterError("parameter 'S' (covariance) is empty (shape (0, 0)).")
        check_finite_array(S, "S")
        S = S.astype(np.float64, copy=True)
        scale_tol = max(float(np.abs(S).max()), 1e-300)
        asym = float(np.abs(S - S.T).max())
        if asym > rtol * scale_tol:
            raise InvalidParameterError(
                f"parameter 'S' (covariance) must be symmetric; max |S - Sᵀ| = {asym:.3g} "
                f"exceeds rtol={rtol:g} × max|S| = {rtol * scale_tol:.3g}."
            )
        S = 0.5 * (S + S.T)
        d = np.diag(S).copy()
        if np.any(d < -rtol * scale_tol):
            i = int(np.argmin(d))
            raise InvalidParameterError(
                f"parameter 'S' (covariance) has a negative diagonal entry S[{i},{i}] = {d[i]:.3g}; "
                "a covariance must be positive semidefinite."
            )
        if scale:
            sd = np.sqrt(np.clip(d, 0, None))
            sd[sd == 0] = 1.0
            S = S / np.outer(sd, sd)
        if check_psd:
            w = np.linalg.eigvalsh(S)
            if w[0] < -1e-10 * max(w[-1], 1e-300) * S.shape[0]:
                raise InvalidParameterError(
                    f"parameter 'S' (covariance) is not positive semidefinite: smallest eigenvalue "
                    f"{w[0]:.3g} (largest {w[-1]:.3g})."
                )
        self.S = S
        self.n_features = S.shape[0]
        self.n_samples = n_samples
        self.mean_ = None
        self.scale_ = None

    def diag(self):
        return np.diag(self.S).copy()

    def matmat(self, V):
        V, _ = _as_2d(V)
        return self.S @ V

    def block(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        return self.S[np.ix_(idx, idx)]

    def columns(self, idx):
        return self.S[:, np.asarray(idx, dtype=np.intp)]

    def factor(self):
        """A dense square root of Σ (see :func:`~eigensparse.operators._dense.dense_square_root`)."""
        return dense_square_root(self)

    def restrict(self, idx):
        new = Covariance.__new__(Covariance)
        new.__dict__.update(self.__dict__)
        new.S = self.block(idx)
        new.n_features = new.S.shape[0]
        return new

    def to_dense(self):
        return self.S.copy()
