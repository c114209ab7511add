"""Bounds from the dual of a semidefinite relaxation: DSPCA's dual, the ℓ0 dual's
diagonal scaling, and handbook Proposition 2's certificate of a support."""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np

from .._linalg import lambda_max_gram, lambda_max_symmetric
from .._validation import (IntInterval, Interval, InvalidParameterError, check_indices,
                           check_square_matrix, validate_params)
from ..operators import Operator
from ..screening import Breakpoints
from ._common import (CERT_RTOL, _PENALTY, _POSITIVE_INT, _as_op, _check_penalties,
                      _default_grid, _matrix)

__all__ = ["Certificate", "certify_support", "dspca_dual_bound", "dspca_cardinality_bound",
           "penalized_scaling_bound"]


# --------------------------------------------------------------------------------------
# DSPCA dual bound
# --------------------------------------------------------------------------------------

@validate_params({"penalty": [None, _PENALTY], "atol": [Interval(Real, 0, None, closed="left")]})
def dspca_dual_bound(S, U, penalty=None, *, atol=1e-12) -> float:
    """λmax(Σ + U): an upper bound on the DSPCA value φ(ρ) for any |U_ij| <= ρ.

    Parameters
    ----------
    S : ndarray (q, q) or Operator
        Σ (or Σ_KK on the features kept by safe elimination at ρ).
    U : ndarray (q, q), symmetric
    penalty : float, optional
        ρ; when given, dual feasibility |U_ij| <= ρ is checked (InvalidParameterError).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.bounds import dspca_dual_bound
    >>> from eigensparse.datasets import load_pitprops
    >>> S = load_pitprops().data
    >>> U = -0.1 * np.sign(S - np.diag(np.diag(S)))  # any |U_ij| <= ρ = 0.1 is dual feasible
    >>> round(dspca_dual_bound(S, np.zeros_like(S)), 4)  # U = 0 gives λmax(Σ)
    4.2186
    >>> bool(dspca_dual_bound(S, U, penalty=0.1) < 4.2186)
    True
    """
    S = _matrix(S, "S")
    U = check_square_matrix(U, "U", size=S.shape[0], symmetric=False)
    if penalty is not None:
        rho = float(penalty)
        viol = float(np.abs(U).max() - rho) if U.size else 0.0
        if viol > atol * max(1.0, rho):
            raise InvalidParameterError(
                f"parameter 'U' is not dual feasible: max |U_ij| exceeds the penalty "
                f"ρ={rho:.6g} by {viol:.3g} (it must be at most ρ).")
    return lambda_max_symmetric(S + U)


@validate_params({"dual_value": [Interval(Real, None, None, closed="neither")],
                  "penalty": [_PENALTY], "cardinality": [_POSITIVE_INT]})
def dspca_cardinality_bound(dual_value: float, penalty: float, cardinality: int) -> float:
    """v(s) <= λmax(Σ_KK + U) + ρ·s, from a DSPCA dual value at penalty ρ.

    Examples
    --------
    >>> from eigensparse.bounds import dspca_cardinality_bound
    >>> dspca_cardinality_bound(dual_value=4.2, penalty=0.1, cardinality=3)  # 4.2 + 0.1·3
    4.5
    """
    return float(dual_value) + float(penalty) * int(cardinality)


# --------------------------------------------------------------------------------------
# ℓ0 dual bounds
# --------------------------------------------------------------------------------------

@validate_params({"max_working_set": [_POSITIVE_INT]})
def penalized_scaling_bound(op, penalties=None, *, max_working_set=2000):
    """h(ρ) = λmax(C^½ Σ C^½), C = diag((1 − ρ/Σ_ii)₊): an upper bound on ψ(ρ).

    Y_i = (1 − ρ/Σ_ii)₊ a_ia_iᵀ is dual feasible for the ℓ0 semidefinite relaxation, so
    v(s) <= min_ρ h(ρ) + ρs. Only the features with Σ_ii > ρ enter (safe elimination);
    penalties whose working set exceeds ``max_working_set`` are skipped.

    Returns
    -------
    (penalties, h) : two 1-D arrays (skipped penalties removed).

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.bounds import penalized_scaling_bound
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> rho, h = penalized_scaling_bound(S, [0.5, 0.9])
    >>> h.round(4).tolist(), round(float(min(h + 3 * rho)), 4)  # the bound on v(3)
    ([2.1093, 0.4219], 3.1219)
    """
    op = _as_op(op)
    d = np.asarray(op.diag(), dtype=float)
    rhos = _default_grid(d) if penalties is None else _check_penalties(penalties)
    bp = Breakpoints.of(d)
    order, ds = bp.order, bp.sorted_variances
    counts = np.array([bp.n_kept(r) for r in rhos])
    ok = (counts <= max_working_set) & (counts > 0)
    if not np.any(ok):
        return np.zeros(0), np.zeros(0)
    kmax = int(counts[ok].max())
    B = op.block(order[:kmax])
    B = 0.5 * (B + B.T)
    out_r, out_h = [], []
    for r, k in zip(rhos[ok], counts[ok]):
        c = np.sqrt(np.clip(1.0 - r / ds[:k], 0, None))
        out_r.append(float(r))
        out_h.append(lambda_max_symmetric(B[:k, :k] * np.outer(c, c)) if k <= 2000 else np.nan)
    return np.asarray(out_r), np.asarray(out_h)


@dataclass(frozen=True)
class Certificate:
    """Outcome of :func:`certify_support` (handbook Proposition 2).

    Attributes
    ----------
    support : ndarray of int
    certified : bool
        True when some ρ in ``rho_interval`` satisfies λmax(Σ_i Y_i) <= Σ_{i∈I}((a_iᵀx)² − ρ):
        the support is then globally optimal for the ℓ0-penalized problem at ``penalty``
        and for the cardinality-constrained problem at s = |I|.
    variance : float
        λmax(Σ_II), the variance of the support's optimal loadings.
    penalty : float or None
        The ρ achieving the smallest gap (the certifying one when certified).
    rho_interval : (float, float) or None
        (max_{i∉I}(a_iᵀx)², min_{i∈I}(a_iᵀx)²); None when empty (no certificate possible).
    bound : float or None
        min over the ρ tried of λmax(Σ_i Y_i) + ρ|I|: an upper bound on v(|I|) (equal to
        ``variance`` when certified).
    lhs, rhs : float or None
        λmax(Σ_i Y_i) and Σ_{i∈I}((a_iᵀx)² − ρ) at ``penalty``.
    n_penalties : int
        Number of ρ tried.
    reason : str

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.bounds import certify_support
    >>> S = np.array([[3.0, 1.5, 0.1], [1.5, 3.0, 0.1], [0.1, 0.1, 1.0]])
    >>> cert = certify_support(Covariance(S), [0, 1])
    >>> cert.certified, round(cert.variance, 4), round(cert.gap, 6)
    (True, 4.5, 0.0)
    """

    support: np.ndarray
    certified: bool
    variance: float
    penalty: float | None
    rho_interval: tuple | None
    bound: float | None
    lhs: float | None
    rhs: float | None
    n_penalties: int
    reason: str = ""

    @property
    def gap(self):
        return None if self.bound is None else self.bound - self.variance


class _Factor:
    """Columns a_i (i in a prefix of the variance order) of a square root of Σ."""

    def __init__(self, op: Operator, idx):
        idx = np.asarray(idx, dtype=np.intp)
        self.idx = idx
        if hasattr(op, "data_columns") and op.n_samples is not None and op.n_samples <= 4 * idx.size + 50:
            self.F = np.asarray(op.data_columns(idx), dtype=float)
        else:
            B = op.block(idx)
            w, Q = np.linalg.eigh(0.5 * (B + B.T))
            keep = w > max(w.max(), 0) * 1e-14
            self.F = (Q[:, keep] * np.sqrt(w[keep])).T


@validate_params({"penalty": [None, _PENALTY], "n_grid": [_POSITIVE_INT],
                  "n_refine": [IntInterval(0, None, closed="left")],
                  "max_working_set": [_POSITIVE_INT], "center": ["boolean"],
                  "scale": ["boolean"]})
def certify_support(op, support, *, penalty=None, n_grid=48, n_refine=30,
                    max_working_set=2000, center=True, scale=False) -> Certificate:
    """Test handbook Proposition 2 (d'Aspremont, Bach & El Ghaoui 2008) for a support I.

    With x the leading eigenvector of Σ_{i∈I} a_ia_iᵀ, B_i = a_ia_iᵀ − ρI,
    Y_i = B_ixxᵀB_i / (xᵀB_ix) for i ∈ I and
    Y_i = max{0, ρ(Σ_ii − ρ)/(ρ − (a_iᵀx)²)} (I − xxᵀ)a_ia_iᵀ(I − xxᵀ)/‖(I − xxᵀ)a_i‖² else,
    the support is certified optimal if for some ρ in
    (max_{i∉I}(a_iᵀx)², min_{i∈I}(a_iᵀx)²): λmax(Σ_i Y_i) <= Σ_{i∈I}((a_iᵀx)² − ρ).
    The Y_i are always dual feasible there, so λmax(Σ_i Y_i) + ρ|I| bounds v(|I|) even when
    the test fails. Any square root of Σ gives the same test: the data columns are used
    when available, else an eigendecomposition of Σ on the features with Σ_ii > ρ
    (features with Σ_ii <= ρ have Y_i = 0).

    Parameters
    ----------
    op : Operator or data
    support : sequence of int
    penalty : float, optional
        Test this ρ only (else a grid of ``n_grid`` values in the interval, refined by
        ``n_refine`` golden-section steps around the best one).
    max_working_set : int
        Penalties whose working set {Σ_ii > ρ} is larger are not tried.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.bounds import certify_support
    >>> S = np.array([[3.0, 1.5, 0.1], [1.5, 3.0, 0.1], [0.1, 0.1, 1.0]])
    >>> cert = certify_support(Covariance(S), [0, 1])
    >>> cert.certified, round(cert.variance, 4)  # {0, 1} is optimal for s = 2
    (True, 4.5)
    >>> certify_support(Covariance(S), [0, 2]).certified
    False
    """
    op = _as_op(op, center=center, scale=scale)
    p = op.n_features
    I = check_indices(support, p, "support")
    s = I.size
    d = np.asarray(op.diag(), dtype=float)
    B = op.block(I)
    w, V = np.linalg.eigh(0.5 * (B + B.T))
    lam, z = float(w[-1]), V[:, -1]
    if lam <= 0:
        return Certificate(I, False, lam, None, None, None, None, None, 0,
                           "the support has zero variance")
    C = op.columns(I)  # p × s
    q = (C @ z) ** 2 / lam  # (a_iᵀx)² for every feature
    out = np.ones(p, dtype=bool)
    out[I] = False
    lo = float(q[out].max()) if out.any() else 0.0
    hi = float(q[I].min())
    if not lo < hi:
        return Certificate(I, False, lam, None, None, None, None, None, 0,
                           f"empty ρ interval: max over i∉I of (a_iᵀx)² = {lo:.6g} >= "
                           f"min over i∈I = {hi:.6g}")
    bp = Breakpoints.of(d)
    order = bp.order
    if penalty is not None:
        rhos = np.array([float(penalty)])
        if not lo < rhos[0] < hi:
            return Certificate(I, False, lam, float(rhos[0]), (lo, hi), None, None, None, 0,
                               f"ρ={rhos[0]:.6g} outside the interval ({lo:.6g}, {hi:.6g})")
    else:
        if lo > 0:
            rhos = np.geomspace(lo, hi, n_grid + 2)[1:-1]
        else:
            rhos = np.linspace(lo, hi, n_grid + 2)[1:-1]
    # working sets: features with Σ_ii > ρ (I always included: Σ_ii >= (a_iᵀx)² > ρ)
    counts = np.array([bp.n_kept(r) for r in rhos])
    ok = counts <= max_working_set
    if not np.any(ok):
        return Certificate(I, False, lam, None, (lo, hi), None, None, None, 0,
                           f"every ρ in the interval keeps more than max_working_set="
                           f"{max_working_set} features")
    rhos = rhos[ok]
    kmax = int(counts[ok].max())
    K = np.union1d(order[:kmax], I)
    fac = _Factor(op, K)
    F = fac.F
    pos = {int(k): j for j, k in enumerate(K)}
    Ii = np.array([pos[int(i)] for i in I])
    x = F[:, Ii] @ z / np.sqrt(lam)
    x /= np.linalg.norm(x)
    ax = F.T @ x  # a_iᵀx on K
    dK = d[K]
    inI = np.zeros(K.size, dtype=bool)
    inI[Ii] = True

    def evaluate(rho):
        cols = []
        # i ∈ I: b_i = a_i (a_iᵀx) − ρx, weight 1/((a_iᵀx)² − ρ)
        aI = ax[inI]
        den = aI**2 - rho
        BI = F[:, inI] * aI - rho * x[:, None]
        cols.append(BI / np.sqrt(den))
        # i ∉ I with Σ_ii > ρ: projected columns, weight ρ(Σ_ii − ρ)/(ρ − (a_iᵀx)²)
        sel = (~inI) & (dK > rho)
        if np.any(sel):
            aO = ax[sel]
            coef = rho * (dK[sel] - rho) / (rho - aO**2)
            P = F[:, sel] - np.outer(x, aO)
            nrm2 = np.einsum("ij,ij->j", P, P)
            good = (coef > 0) & (nrm2 > 0)
            cols.append(P[:, good] * np.sqrt(coef[good] / nrm2[good]))
        W = np.hstack(cols)
        lhs = lambda_max_gram(W)
        rhs = float(np.sum(aI**2) - rho * s)
        return lhs, rhs

    best = None
    vals = []
    for r in rhos:
        lhs, rhs = evaluate(r)
        vals.append((lhs - rhs, r, lhs, rhs))
        if best is None or lhs - rhs < best[0]:
            best = (lhs - rhs, r, lhs, rhs)
        if lhs - rhs <= CERT_RTOL * lam:
            break
    n_tried = len(vals)
    if penalty is None and best[0] > CERT_RTOL * lam and len(rhos) > 2:
        # golden-section refinement around the best grid point
        j = int(np.argmin([v[0] for v in vals]))
        a = rhos[max(j - 1, 0)]
        b = rhos[min(j + 1, len(rhos) - 1)]
        gr = (np.sqrt(5) - 1) / 2
        for _ in range(n_refine):
            c1 = b - gr * (b - a)
            c2 = a + gr * (b - a)
            v1, v2 = evaluate(c1), evaluate(c2)
            n_tried += 2
            for r, (lhs, rhs) in ((c1, v1), (c2, v2)):
                if lhs - rhs < best[0]:
                    best = (lhs - rhs, r, lhs, rhs)
            if best[0] <= CERT_RTOL * lam:
                break
            if v1[0] - v1[1] < v2[0] - v2[1]:
                b = c2
            else:
                a = c1
    gap, rho, lhs, rhs = best
    certified = bool(gap <= CERT_RTOL * lam)
    bound = float(lhs + rho * s)
    if certified:
        bound = max(bound, lam)
    reason = ("certified: λmax(Σ Y_i) <= Σ_{i∈I}((a_iᵀx)² − ρ)" if certified else
              f"not certified: smallest excess λmax(Σ Y_i) − Σ((a_iᵀx)² − ρ) = {gap:.4g}")
    return Certificate(I, certified, lam, float(rho), (lo, hi), bound, float(lhs), float(rhs),
                       n_tried, reason)
