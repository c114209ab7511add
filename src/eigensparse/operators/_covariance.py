"""A precomputed covariance (or correlation, or co-occurrence) matrix."""
from __future__ import annotations

import functools
import math
from numbers import Real

import numpy as np
import scipy.sparse as sp

from .._validation import (IntInterval, Interval, InvalidParameterError, check_finite_array,
                           check_magnitude, validate_params)
from ._base import Operator, _as_2d, principal_block
from ._dense import dense_square_root, scale_from_variance
from ._kernels import covariance_checks, lanczos_step

__all__ = ["Covariance"]


#: Lanczos steps of the smallest-eigenvalue estimate (each one product S @ v, O(p²))
_PSD_LANCZOS_STEPS = 10
#: up to this p the smallest eigenvalue is computed exactly (eigvalsh)
_PSD_EXACT_MAX = 64
#: from this many features, a product with vectors nonzero on at most a quarter of them
#: reads only those rows of S
_SPARSE_PRODUCT_MIN = 256
#: ``low`` and ``pos`` of :func:`~eigensparse.operators._kernels.covariance_checks` when
#: nothing is written
_NO_LOW = np.zeros((0, 0), dtype=np.float32)
_NO_POS = np.zeros(0, dtype=np.int64)


def _not_psd(what):
    return InvalidParameterError(
        f"parameter 'S' (covariance) is not positive semidefinite: {what}; pass a "
        "covariance, correlation or Gram matrix (or check_psd=False if rounding is expected).")


def _psd_tolerance(diag, rtol):
    """(tol, largest diagonal entry): the slack of every PSD test, ``rtol`` relative to
    the largest diagonal entry times p."""
    dmax = float(max(diag.max(), 0.0))
    return max(rtol, 1e-12) * max(dmax, 1e-300) * diag.size, dmax


def _smallest_rayleigh_quotient(S, steps=_PSD_LANCZOS_STEPS, seed=0, low=None, keep=None):
    """yᵀSy / yᵀy for the y that a ``steps``-step Lanczos run (full reorthogonalization,
    random start) finds for the smallest eigenvalue of the symmetric S (p × p), or of
    its principal block on the features ``keep`` (sorted; y is zero elsewhere).

    A Rayleigh quotient is >= λmin(S), so a negative value proves S is not PSD whatever
    the accuracy of the Krylov basis, and whatever block it was sought in; it is
    recomputed from one explicit product S·y in double precision. The Krylov space of
    dimension m contains the m−1 power-iteration iterates on c·I − S from the same
    start, so the estimate is at least as good as theirs, and converges much faster
    (Chebyshev rate) on clustered spectra.

    ``low``: the block's upper triangle in single precision (from :func:`~eigensparse.
    operators._kernels.covariance_checks`, n × n for the n features of ``keep``, all p
    when ``keep`` is None): the Lanczos products use it through BLAS ``ssymv`` (a quarter
    of the memory traffic; their rounding, about 1e-7·‖S‖, only perturbs the direction
    y), the final quotient does not.
    """
    from scipy.linalg.blas import dsymv, ssymv

    p = S.shape[0]
    n = p if low is None else low.shape[0]
    steps = min(steps, n)
    Q = np.empty((steps, n))
    W = np.empty((steps, n))  # rows M q_j
    Q[0] = _unit_start(n, seed)
    low_t = None if low is None else low.T  # Fortran order: its lower triangle is low's upper one
    # below this relative residual the Krylov space is invariant (to the products' rounding)
    floor = 1e-12 if low is None else 1e-6
    m = 0
    for m in range(1, steps + 1):
        q = Q[m - 1]
        W[m - 1] = S @ q if low_t is None else ssymv(1.0, low_t, q, lower=1)
        if not lanczos_step(Q, W, m, floor):
            break  # an invariant subspace: its Ritz values are eigenvalues
    B = Q[:m]
    H = B @ W[:m].T
    _, U = np.linalg.eigh(0.5 * (H + H.T))  # Rayleigh–Ritz on span(Q)
    y = U[:, 0] @ B
    if keep is not None:
        y_full = np.zeros(p)
        y_full[keep] = y
        y = y_full
    Sy = dsymv(1.0, S.T, y, lower=1) if S.flags.c_contiguous else S @ y  # S is symmetric
    return float(y @ Sy) / float(y @ y)


@functools.lru_cache(maxsize=8)
def _unit_start(p, seed):
    """The Lanczos start: a unit Gaussian vector of length p from ``seed`` (kept: the
    same p is checked again and again; read only)."""
    q = np.random.default_rng(seed).standard_normal(p)
    q /= math.sqrt(q @ q)
    q.flags.writeable = False
    return q


def _check_psd(S, rtol, worst=None, worst_row=0, low=None, keep=None):
    """Necessary PSD conditions at O(p²) cost (see :class:`Covariance`) for the symmetric S.

    ``worst``/``worst_row``: the 2×2 minor statistic of :func:`~eigensparse.operators._kernels.covariance_checks` when
    already computed (else it is computed here); ``low``, ``keep``: S's block on the
    features of positive variance in single precision, when that pass wrote it (see
    :func:`_smallest_rayleigh_quotient`).
    """
    d = np.diag(S)
    tol, dmax = _psd_tolerance(d, rtol)
    sd = np.sqrt(np.clip(d, 0, None))
    if worst is None:
        worst, worst_row = covariance_checks(S, np.ones(S.shape[0]), sd, _NO_LOW, _NO_POS)[2:]
    if worst > tol:  # a 2×2 principal minor S_ii S_jj − S_ij² < 0
        i = int(worst_row)
        j = int(np.argmax(np.abs(S[i]) - sd[i] * sd))
        raise _not_psd(f"|S[{i},{j}]| = {abs(S[i, j]):.3g} exceeds sqrt(S[{i},{i}]·S[{j},{j}]) = "
                       f"{sd[i] * sd[j]:.3g}")
    if S.shape[0] <= _PSD_EXACT_MAX:
        lam_min = float(np.linalg.eigvalsh(S)[0])
    elif keep is not None and keep.size == 0:
        lam_min = 0.0  # a zero diagonal, every entry within the minors' tolerance
    else:
        lam_min = _smallest_rayleigh_quotient(S, low=low, keep=keep)
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
        every 2×2 principal minor (S_ij² <= S_ii S_jj, in the same pass over S as the
        symmetry test), then a smallest-eigenvalue estimate by 10 Lanczos steps from a
        random start on the block of the features of positive variance (a feature of
        zero variance has a zero row in a PSD matrix, which the minors check; the
        Rayleigh quotient of an explicit vector, so a failure is certain; 10 products
        S·v); exact ``eigvalsh`` for p <= 64. The tolerance is
        ``rtol`` relative to the largest diagonal entry times p. Passing the check does
        not prove Σ PSD: a negative eigenvalue hidden among many near-zero ones can
        escape it. ``False`` skips it, for matrices known to be PSD.
    rtol : float, default=1e-8
    feature_names : sequence of str, optional
        Names of the p variables, carried into the result of
        :func:`eigensparse.sparse_pca` (default: the columns of a DataFrame ``S``).

    Notes
    -----
    A float64 C-contiguous NumPy array ``S`` (``np.cov``'s output) is kept without a
    copy (``op.S is S`` when it is exactly symmetric and ``scale=False``): the library
    never writes to it, and the caller must not change it while the operator (or a
    result whose bound was not read yet) is in use. Any other input (another dtype or
    memory order, a list, a DataFrame, a sparse matrix) is copied. The checks
    are one tiled pass over the pairs (S_ij, S_ji) and a few products S·v (their cost:
    ``docs/developer/performance.rst``).

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

    @validate_params({"n_samples": [IntInterval(1, None, closed="left"), None],
                      "scale": ["boolean"], "check_psd": ["boolean"],
                      "rtol": [Interval(Real, 0, None, closed="left")],
                      "feature_names": ["array-like", None]})
    def __init__(self, S, *, n_samples=None, scale=False, check_psd=True, rtol=1e-8,
                 feature_names=None):
        if feature_names is None and hasattr(S, "columns") and hasattr(S, "to_numpy"):
            feature_names = list(S.columns)  # a pandas DataFrame: its column names
        # an array (or a sparse matrix's new dense copy) needs no copy of its own below
        own_or_array = isinstance(S, np.ndarray) or sp.issparse(S)
        if sp.issparse(S):  # a banded or thresholded covariance: Σ is held dense anyway
            S = S.toarray()
        S = np.asarray(S)
        if S.ndim != 2 or S.shape[0] != S.shape[1]:
            raise InvalidParameterError(
                f"parameter 'S' (covariance) must be a square 2-D matrix; got shape {S.shape}."
            )
        if S.shape[0] == 0:
            raise InvalidParameterError("parameter 'S' (covariance) is empty (shape (0, 0)).")
        if S.dtype.kind not in "biuf":
            check_finite_array(S, "S")  # raises: names the dtype
        # a float64 C-contiguous array is kept without a copy (never written to: the
        # symmetrization and the scaling make new arrays); any other input is copied
        S = (np.ascontiguousarray(S, dtype=np.float64) if own_or_array
             else np.array(S, dtype=np.float64, order="C"))
        if feature_names is not None:
            from ..io._vocab import check_vocabulary

            feature_names = check_vocabulary(feature_names, "feature_names")
            if len(feature_names) != S.shape[0]:
                raise InvalidParameterError(
                    f"parameter 'feature_names' must name the {S.shape[0]} variables of S; "
                    f"got {len(feature_names)} name(s).")
        self.feature_names = feature_names
        d = np.diag(S).copy()
        if not np.isfinite(d).all():  # (before the scale, which needs a finite diagonal)
            check_finite_array(S, "S")  # raises, counting the NaN and infinite entries
        check_magnitude(max(float(d.max()), 0.0), "S", covariance=True)
        sd = scale_from_variance(np.clip(d, 0, None), scale)
        d_out = d / (sd * sd) if scale else d
        p = S.shape[0]
        low, pos, keep = _NO_LOW, _NO_POS, None
        if check_psd and p > _PSD_EXACT_MAX:  # M in single precision on the features of
            # positive variance: the Lanczos steps of the PSD check (a feature of zero
            # variance has a zero row in a PSD matrix, else a 2×2 minor fails)
            live = d_out > 0
            keep = np.flatnonzero(live)
            pos = np.cumsum(live) - 1
            pos[~live] = -1
            low = np.empty((keep.size, keep.size), dtype=np.float32) if keep.size else _NO_LOW
        total, asym, worst, worst_row = covariance_checks(
            S, 1.0 / sd, np.sqrt(np.clip(d_out, 0, None)), low, pos)
        if not np.isfinite(total):  # a NaN or ±inf entry, or only an overflowing sum
            check_finite_array(S, "S")  # raises, counting the NaN and infinite entries
        # max|S| is needed only as the yardstick of a tolerance test
        scale_tol = max(float(np.abs(S).max()), 1e-300) if asym > 0 or d.min() < 0 else 0.0
        if asym > rtol * scale_tol:
            raise InvalidParameterError(
                f"parameter 'S' (covariance) must be symmetric; max |S - Sᵀ| = {asym:.3g} "
                f"exceeds rtol={rtol:g} × max|S| = {rtol * scale_tol:.3g}."
            )
        if np.any(d < -rtol * scale_tol):
            i = int(np.argmin(d))
            raise InvalidParameterError(
                f"parameter 'S' (covariance) has a negative diagonal entry S[{i},{i}] = {d[i]:.3g}; "
                "a covariance must be positive semidefinite."
            )
        if asym > 0:
            S = 0.5 * (S + S.T)
        if scale:
            S = S / np.outer(sd, sd)
        if check_psd:
            _check_psd(S, rtol, worst, worst_row, low if low.size else None, keep)
        self.S = S
        self.n_features = S.shape[0]
        self.n_samples = n_samples
        self.mean_ = None
        self.scale_ = None

    @classmethod
    def trusted(cls, S, *, n_samples=None):
        """A :class:`Covariance` of a matrix the library itself built (a formed Gram
        matrix, a deflated or restricted covariance): ``S`` is kept as given, without
        the copy and without the symmetry, finiteness and PSD checks. For internal use
        only, never on a caller's input: ``S`` must be a symmetric float64 C-contiguous
        p×p array that nothing changes afterwards.

        Examples
        --------
        >>> import numpy as np
        >>> from eigensparse import Covariance
        >>> S = np.array([[2.0, 1.0], [1.0, 3.0]])
        >>> op = Covariance.trusted(S)
        >>> op.S is S, op.n_features, op.diag().tolist()
        (True, 2, [2.0, 3.0])
        """
        op = cls.__new__(cls)
        op.feature_names = None
        op.S = S
        op.n_features = S.shape[0]
        op.n_samples = n_samples
        op.mean_ = None
        op.scale_ = None
        return op

    def diag(self):
        return np.diag(self.S).copy()

    def matmat(self, V):
        V, _ = _as_2d(V)
        if self.n_features >= _SPARSE_PRODUCT_MIN:  # sparse vectors: S[:, I] = S[I, :]ᵀ
            rows = np.flatnonzero(V.any(axis=1))  # (S symmetric), I's contiguous rows
            if 4 * rows.size <= self.n_features:
                return self.S[rows].T @ V[rows]
        return self.S @ V

    def block(self, idx):
        return principal_block(self.S, idx)

    def columns(self, idx):
        return self.S[:, np.asarray(idx, dtype=np.intp)]

    def rows(self, idx):
        return self.S[np.asarray(idx, dtype=np.intp)]

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
