"""A precomputed covariance (or correlation, or co-occurrence) matrix."""
from __future__ import annotations

import numpy as np

from .._validation import InvalidParameterError, check_finite_array
from ._base import Operator, _as_2d
from ._dense import dense_square_root

__all__ = ["Covariance"]


#: power iterations of the smallest-eigenvalue estimate (each one product S @ v, O(p²))
_PSD_ITERATIONS = 40


def _not_psd(what):
    return InvalidParameterError(
        f"parameter 'S' (covariance) is not positive semidefinite: {what}; pass a "
        "covariance, correlation or Gram matrix (or check_psd=False if rounding is expected).")


def _check_psd(S, rtol):
    """Necessary PSD conditions at O(p²) cost (see :class:`Covariance`)."""
    p = S.shape[0]
    d = np.clip(np.diag(S), 0, None)
    dmax = float(d.max()) if p else 0.0
    tol = max(rtol, 1e-12) * max(dmax, 1e-300) * p
    # 2x2 minors: |S_ij| <= sqrt(S_ii S_jj), row by row in blocks (memory O(p·block))
    sd = np.sqrt(d)
    for a in range(0, p, 1024):
        viol = np.abs(S[a:a + 1024]) - np.outer(sd[a:a + 1024], sd) - tol
        if viol.max() > 0:
            i, j = np.unravel_index(int(np.argmax(viol)), viol.shape)
            i += a
            raise _not_psd(f"|S[{i},{j}]| = {abs(S[i, j]):.3g} exceeds sqrt(S[{i},{i}]·S[{j},{j}]) = "
                           f"{sd[i] * sd[j]:.3g}")
    if p <= 64:
        lam_min = float(np.linalg.eigvalsh(S)[0])
    else:
        c = float(np.sqrt(np.einsum("ij,ij->", S, S)))  # ≥ λmax: c·I − S is PSD
        v = np.random.default_rng(0).standard_normal(p)
        for _ in range(_PSD_ITERATIONS):
            v = c * v - S @ v
            v /= np.linalg.norm(v)
        lam_min = float(v @ (S @ v))  # Rayleigh quotient ≥ λmin: negative means not PSD
    if lam_min < -tol:
        raise _not_psd(f"a direction of variance {lam_min:.3g} < 0 (largest diagonal entry {dmax:.3g})")


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
    check_psd : bool, default=True
        Check positive semidefiniteness at a cost proportional to the input (O(p²)):
        every 2×2 principal minor (S_ij² <= S_ii S_jj), then a smallest-eigenvalue
        estimate by a fixed number of power iterations on c·I − S (a Rayleigh
        quotient, so a failure is certain); exact ``eigvalsh`` for p <= 64. The
        tolerance is ``rtol`` relative to the largest diagonal entry times p.
        ``False`` skips it, for matrices known to be PSD.
    rtol : float, default=1e-8

    Notes
    -----
    A covariance has no data square root, so ``dot``/``rdot`` raise; formulations
    needing them (the L1-variance alternating maximization) refuse this input.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> S = np.array([[4.0, 2, 0], [2, 9, 3], [0, 3, 2]])
    >>> op = Covariance(S, n_samples=100)
    >>> op.n_features, op.diag().tolist(), op.has_data
    (3, [4.0, 9.0, 2.0], False)
    >>> np.round(Covariance(S, scale=True).to_dense()[0], 4).tolist()  # correlations
    [1.0, 0.3333, 0.0]
    """

    has_data = False
    kind = "precomputed covariance"

    def __init__(self, S, *, n_samples=None, scale=False, check_psd=True, rtol=1e-8):
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
            _check_psd(S, rtol)
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
