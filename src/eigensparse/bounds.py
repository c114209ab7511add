"""Upper bounds and optimality certificates for sparse PCA.

Problems (Σ = AᵀA ⪰ 0, columns a_i; ρ >= 0; s a cardinality):

- cardinality-constrained:  v(s) = max { xᵀΣx : ‖x‖₂ = 1, ‖x‖₀ <= s };
- ℓ0-penalized:             ψ(ρ) = max_{‖x‖₂=1} xᵀΣx − ρ‖x‖₀ = max_{‖ξ‖=1} Σ_i ((a_iᵀξ)² − ρ)₊;
- DSPCA relaxation:         φ(ρ) = max { Tr ΣZ − ρ‖Z‖₁ : Tr Z = 1, Z ⪰ 0 } = min_{|U|<=ρ} λmax(Σ+U).

Every bound here rests on weak duality, v(s) <= ψ(ρ) + ρs for every ρ >= 0, together with
one of these upper bounds on ψ(ρ):

- **DSPCA dual**: ψ(ρ) <= φ(ρ) <= λmax(Σ + U) for any |U_ij| <= ρ (a rank-one Z = xxᵀ has
  ‖Z‖₁ = ‖x‖₁² <= ‖x‖₀); by safe elimination Σ may be restricted to {i : Σ_ii > ρ}.
- **ℓ0 semidefinite dual** (d'Aspremont, Bach & El Ghaoui 2008; handbook Prop. 1):
  ψ(ρ) <= λmax(Σ_i Y_i) for any Y_i ⪰ 0, Y_i ⪰ B_i = a_ia_iᵀ − ρI. Two choices are used:
  Y_i = (1 − ρ/Σ_ii)₊ a_ia_iᵀ, giving λmax(C^½ΣC^½) with C = diag((1 − ρ/Σ_ii)₊) (cheap,
  needs only Σ; see :func:`penalized_scaling_bound`), and the dual variables of handbook
  Prop. 2 built from a candidate support (:func:`certify_support`), which *certify* the
  support optimal when they close the gap.

Trivial bounds on v(s) are also provided: λmax(Σ), the sum of the s largest variances
(λmax(Σ_II) <= Tr Σ_II), s·max Σ_ii, and a Gershgorin bound.
"""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from scipy.sparse import linalg as spla

from ._linalg import lambda_max_symmetric
from ._validation import (IntInterval, Interval, InvalidParameterError, check_indices,
                          check_square_matrix, validate_params)
from .operators import Operator, as_operator
from .screening import Breakpoints

__all__ = [
    "Certificate",
    "certify_support",
    "dspca_dual_bound",
    "dspca_cardinality_bound",
    "penalized_scaling_bound",
    "cardinality_upper_bounds",
    "full_problem_bound",
    "lambda_max_upper_bound",
    "partner_sums",
    "gershgorin_bounds",
    "monotone_upper_bounds",
]

#: certification tolerance (relative to the support's variance)
CERT_RTOL = 1e-9
#: above this size a λmax is computed by Lanczos instead of a dense eigensolver
_DENSE_MAX = 400


def _lam_max_gram(W) -> float:
    """λmax(W Wᵀ) = σmax(W)² for a dense W (r × q)."""
    r, q = W.shape
    if r == 0 or q == 0:
        return 0.0
    if min(r, q) <= _DENSE_MAX:
        G = W.T @ W if q <= r else W @ W.T
        return max(lambda_max_symmetric(G), 0.0)
    lin = spla.LinearOperator((q, q), matvec=lambda v: W.T @ (W @ v), dtype=float)
    w = spla.eigsh(lin, k=1, which="LA", tol=1e-12, return_eigenvectors=False)
    return max(float(w[0]), 0.0)


def _as_op(data_or_op, center=True, scale=False) -> Operator:
    if isinstance(data_or_op, Operator):
        return data_or_op
    return as_operator(data_or_op, center=center, scale=scale)


#: the constraints the public functions share (scikit-learn's, checked by the decorator)
_PENALTY = Interval(Real, 0, None, closed="left")  # finite: nan and inf are outside
_POSITIVE_INT = IntInterval(1, None, closed="left")


def _check_card(s, p, name="cardinality"):
    """A cardinality (an int >= 1 by its declared constraint) at most ``n_features``."""
    if s > p:
        raise InvalidParameterError(
            f"parameter {name!r} must be an int in [1, n_features={p}]; got {s!r}.")
    return int(s)


def _matrix(S, name):
    """A square symmetric matrix parameter: an operator's dense matrix (trusted: it was
    checked when built), or an array checked here (finite, square, symmetric)."""
    if isinstance(S, Operator):
        return S.to_dense()
    return check_square_matrix(S, name)


def _check_vector(v, name, n):
    """A finite real vector of length ``n``."""
    try:
        a = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        a = None
    if a is None or a.shape != (n,) or not np.all(np.isfinite(a)):
        raise InvalidParameterError(
            f"parameter {name!r} must be a 1-D array of {n} finite numbers; got "
            f"{'shape ' + str(a.shape) if a is not None else repr(v)}.")
    return a


def _check_penalties(penalties):
    try:
        r = np.asarray(penalties, dtype=float)
    except (TypeError, ValueError):
        r = None
    if r is None or r.ndim > 1 or not np.all(np.isfinite(r)) or np.any(r < 0):
        raise InvalidParameterError(
            "parameter 'penalties' must be None or a 1-D sequence of finite penalties >= 0; "
            f"got {penalties!r}.")
    return np.atleast_1d(r)


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

def _default_grid(d, n=40):
    d = np.sort(d[d > 0])[::-1]
    if d.size == 0:
        return np.zeros(1)
    lo = d[-1] * 0.5
    g = np.geomspace(max(lo, d[0] * 1e-8), d[0], n)
    return np.unique(np.concatenate([[0.0], g, d[: min(d.size, 60)]]))


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
        lhs = _lam_max_gram(W)
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


# --------------------------------------------------------------------------------------
# bounds on v(s)
# --------------------------------------------------------------------------------------

def _lambda_max_op(op: Operator) -> float:
    p = op.n_features
    if p <= 2000:
        return lambda_max_symmetric(op.to_dense())
    lin = spla.LinearOperator((p, p), matvec=op.matvec, dtype=float)
    return float(spla.eigsh(lin, k=1, which="LA", tol=1e-10, return_eigenvectors=False)[0])


@validate_params({"max_cardinality": [_POSITIVE_INT], "return_partners": ["boolean"]})
def partner_sums(S: np.ndarray, max_cardinality: int, *, return_partners: bool = False):
    """Each feature's variance and the prefix sums of its strongest partners.

    Returns ``(d, P)``: ``d[i] = Σ_ii`` and ``P[i, t-1]`` = the sum of the t largest
    |Σ_ij|, j ≠ i, for t = 1..K−1 (shape (p, K−1)). The partner score of feature i at
    cardinality k is ``d[i] + P[i, k-2]``: by Gershgorin's theorem every support T of
    size k has λmax(Σ[T, T]) <= max_{i ∈ T} (Σ_ii + Σ_{j ∈ T∖i} |Σ_ij|) <= max_{i ∈ T}
    of the partner score, so a feature of small score can only sit in weak supports, and
    the largest score bounds the whole problem (:func:`gershgorin_bounds`). With
    ``return_partners``, also the partners themselves: ``(d, P, J)``, ``J[i]`` the
    indices of those t largest |Σ_ij|, strongest first (shape (p, min(K, p) − 1)).
    Costs O(p²) (a partial selection per row), memory O(p²).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.bounds import partner_sums
    >>> d, P = partner_sums(np.array([[2.0, -1, 0.5], [-1, 1, 0], [0.5, 0, 3]]), 3)
    >>> d.tolist(), P.tolist()
    ([2.0, 1.0, 3.0], [[1.0, 1.5], [1.0, 1.0], [0.5, 0.5]])
    """
    S = _matrix(S, "S")
    return _partner_sums(S, max_cardinality, return_partners=return_partners)


def _partner_sums(S: np.ndarray, max_cardinality: int, *, return_partners: bool = False):
    """:func:`partner_sums` without its checks (for callers that pass checked input)."""
    S = np.asarray(S, dtype=float)
    p = S.shape[0]
    d = np.diag(S).copy()
    K1 = max(int(max_cardinality) - 1, 0)
    t = min(K1, p - 1)
    if t <= 0:
        P, J = np.zeros((p, K1)), np.zeros((p, 0), dtype=np.intp)
        return (d, P, J) if return_partners else (d, P)
    A = np.abs(S)
    np.fill_diagonal(A, -1.0)  # below every |Σ_ij|: the diagonal is never a partner
    J = np.argpartition(-A, t - 1, axis=1)[:, :t] if t < p - 1 else np.argsort(-A, axis=1)[:, :t]
    V = np.take_along_axis(A, J, axis=1)
    order = np.argsort(-V, axis=1, kind="stable")
    J, V = np.take_along_axis(J, order, axis=1), np.maximum(np.take_along_axis(V, order, axis=1), 0.0)
    P = np.cumsum(V, axis=1)
    if P.shape[1] < K1:  # cardinalities beyond p add nothing
        P = np.hstack([P, np.repeat(P[:, -1:], K1 - P.shape[1], axis=1)])
    return (d, P, J) if return_partners else (d, P)


@validate_params({"max_cardinality": [_POSITIVE_INT]})
def gershgorin_bounds(op: Operator, max_cardinality: int) -> np.ndarray:
    """Gershgorin bounds on v(k), k = 1..K: max_i Σ_ii + the k−1 largest |Σ_ij|, j ≠ i.

    Forms the dense p × p matrix |Σ| (O(p²) memory); shape (K,). See
    :func:`partner_sums`.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.bounds import gershgorin_bounds
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> gershgorin_bounds(S, 3).round(3).tolist()  # bounds on v(1), v(2), v(3)
    [1.0, 1.954, 2.602]
    """
    S = _matrix(op, "op")
    _check_card(max_cardinality, S.shape[0], "max_cardinality")
    return _gershgorin_bounds(S, max_cardinality)


def _gershgorin_bounds(op: Operator, max_cardinality: int) -> np.ndarray:
    """:func:`gershgorin_bounds` without its checks (for callers that pass checked input)."""
    S = op.to_dense() if isinstance(op, Operator) else np.asarray(op, dtype=float)
    d, P = _partner_sums(S, max_cardinality)
    return np.asarray([float(d.max())] + [float((d + P[:, k - 2]).max())
                                          for k in range(2, int(max_cardinality) + 1)])


#: the names :func:`full_problem_bound` reports
BOUND_DENSE = "min(sum of the s largest variances, Gershgorin partner bound)"
BOUND_GERSHGORIN = "Gershgorin partner bound (largest variance plus the s−1 largest |Σij| of a row)"
BOUND_SPLIT = ("working-set split: max over r of [Gershgorin/trace bound at s−r on the working "
               "set + the r largest variances outside it]")


def _small_bounds(d: np.ndarray, P: np.ndarray, K: int, psd: bool = True) -> np.ndarray:
    """min(trace, Gershgorin) bounds on v(0..K) of the matrix with diagonal d and
    partner prefix sums P (v(0) = 0); nondecreasing. The trace bound only when the
    matrix is positive semidefinite (``psd``)."""
    ds = np.sort(d)[::-1]
    out = np.zeros(K + 1)
    m = d.size
    for k in range(1, K + 1):
        if k > m:
            out[k] = out[k - 1]
            continue
        g = float(d.max()) if k == 1 else float((d + P[:, k - 2]).max())
        out[k] = min(float(ds[:k].sum()), g) if psd else g
    return np.maximum.accumulate(out)


@validate_params({"exact_below": [IntInterval(0, None, closed="left")]})
def lambda_max_upper_bound(S: np.ndarray, *, exact_below: int = 128) -> float | None:
    """A proven upper bound on λmax(S) of a symmetric matrix: the exact value (one dense
    ``eigvalsh``) up to ``exact_below`` features; above, a Lanczos estimate t raised
    until t·I − S has a Cholesky factor (then t >= λmax exactly, at a third of the cost
    of a dense eigenvalue solve); None if no factor was found.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.bounds import lambda_max_upper_bound
    >>> A = np.random.default_rng(0).standard_normal((300, 200))
    >>> S = A.T @ A
    >>> ub = lambda_max_upper_bound(S)
    >>> top = np.linalg.eigvalsh(S)[-1]
    >>> bool(top <= ub <= top * (1 + 1e-6))
    True
    """
    S = _matrix(S, "S")
    return _lambda_max_upper_bound(S, exact_below=exact_below)


def _lambda_max_upper_bound(S: np.ndarray, *, exact_below: int = 128) -> float | None:
    """:func:`lambda_max_upper_bound` without its checks (for callers that pass checked input)."""
    import scipy.linalg as sla

    S = np.asarray(S, dtype=float)
    m = S.shape[0]
    if m <= exact_below:  # the top eigenvalue alone (LAPACK evr) beyond a few rows
        if m <= 16:
            return float(np.linalg.eigvalsh(S)[-1])
        return float(sla.eigh(S, eigvals_only=True, subset_by_index=[m - 1, m - 1],
                              driver="evr", check_finite=False)[0])
    v0 = np.ones(m) / np.sqrt(m)  # deterministic
    theta, v = spla.eigsh(S, k=1, which="LA", v0=v0, tol=1e-10)
    theta = float(theta[0])
    res = float(np.linalg.norm(S @ v[:, 0] - theta * v[:, 0]))
    scale = max(abs(theta), float(np.abs(np.diag(S)).max()), 1e-300)
    t = theta + res + 1e-9 * scale
    for _ in range(4):
        try:
            sla.cholesky(t * np.eye(m) - S, lower=True, check_finite=False)
            return float(t)
        except np.linalg.LinAlgError:
            t += 1e-3 * scale
    return None


@validate_params({"cardinality": [_POSITIVE_INT], "psd": ["boolean"]})
def full_problem_bound(S_or_op, cardinality: int, *, working_set=None, block=None,
                       diag=None, psd: bool = True, partners=None) -> tuple[float, str]:
    """A cheap valid upper bound on v(s) = max{xᵀΣx : ‖x‖ = 1, ‖x‖₀ <= s} of the whole
    problem, and the name of the bound.

    - When the whole matrix is at hand (``S_or_op`` an array, a :class:`Covariance`, or
      ``working_set`` None or every feature): the smaller of the sum of the s largest
      variances (trace bound: λmax(Σ_T) <= tr Σ_T for PSD Σ) and the Gershgorin partner
      bound of :func:`gershgorin_bounds`.
    - When only the block ``block = Σ[W, W]`` of a working set W is formed (the other
      features known by their variances ``diag``): for PSD Σ and any support T,
      λmax(Σ_T) <= λmax(Σ_{T∩W}) + λmax(Σ_{T∖W}) (for a unit x = (x₁, x₂),
      xᵀΣx <= (√(x₁ᵀΣx₁) + √(x₂ᵀΣx₂))² <= (a‖x₁‖ + c‖x₂‖)² <= a² + c² by Cauchy–Schwarz,
      with a², c² the two blocks' λmax),
      hence v(s) <= max_r [u_W(s − r) + (sum of the r largest variances outside W)],
      with u_W the bound above computed on the block.

    Valid for positive semidefinite Σ (every covariance, and every deflation of this
    library except ``hotelling`` of a non-eigenvector). With ``psd=False`` only the
    Gershgorin bound is used (valid for every symmetric Σ), and the working-set split,
    which needs PSD, is not available (``(inf, ...)``).

    Parameters
    ----------
    S_or_op : ndarray (p, p) or Operator
    cardinality : int
    working_set : array of int, optional
        W (sorted feature indices) when only Σ[W, W] is formed.
    block : ndarray (|W|, |W|), optional
        Σ[W, W]; read from the operator when omitted.
    diag : ndarray (p,), optional
        The variances Σ_ii (read from the operator when omitted).
    psd : bool, default=True
        Whether Σ is known to be positive semidefinite.
    partners : ndarray, optional
        The block's partner prefix sums ``P`` of :func:`partner_sums` (at least s − 1
        columns), when already computed.

    Returns
    -------
    (float, str)

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.bounds import full_problem_bound
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> ub, name = full_problem_bound(S, 5)   # v(5) = 3.406
    >>> round(ub, 3), name.startswith("min(")
    (3.674, True)
    >>> ub2, _ = full_problem_bound(S, 5, working_set=[0, 1, 2, 3, 6, 7, 8, 9])
    >>> bool(ub2 >= 3.406)
    True
    """
    S_or_op = S_or_op if isinstance(S_or_op, Operator) else _matrix(S_or_op, "S_or_op")
    p = S_or_op.n_features if isinstance(S_or_op, Operator) else S_or_op.shape[0]
    _check_card(cardinality, p)
    if diag is not None:
        diag = _check_vector(diag, "diag", p)
    if working_set is not None:
        working_set = check_indices(working_set, p, "working_set", allow_empty=True)
    m = p if working_set is None else working_set.size
    if block is not None:
        block = check_square_matrix(block, "block", size=m, allow_empty=True)
    if partners is not None:
        partners = np.asarray(partners, dtype=float)
        if partners.ndim != 2 or partners.shape[0] != m or partners.shape[1] < cardinality - 1:
            raise InvalidParameterError(
                f"parameter 'partners' must be the prefix sums of partner_sums(block, "
                f"{cardinality}): shape ({m}, >= {cardinality - 1}); got shape {partners.shape}.")
    return _full_problem_bound(S_or_op, cardinality, working_set=working_set, block=block,
                               diag=diag, psd=psd, partners=partners)


def _full_problem_bound(S_or_op, cardinality: int, *, working_set=None, block=None,
                        diag=None, psd: bool = True, partners=None) -> tuple[float, str]:
    """:func:`full_problem_bound` without its checks (for callers that pass checked input)."""
    s = int(cardinality)
    if isinstance(S_or_op, Operator):
        op = S_or_op
        p = op.n_features
        d = np.asarray(op.diag() if diag is None else diag, dtype=float)
    else:
        M = np.asarray(S_or_op, dtype=float)
        p = M.shape[0]
        d = np.diag(M).copy() if diag is None else np.asarray(diag, dtype=float)
        op = None
    if working_set is None or len(working_set) >= p:
        if block is None:
            block = op.to_dense() if op is not None else M
        _, P = _partner_sums(block, s)
        return float(_small_bounds(d, P, s, psd)[s]), (BOUND_DENSE if psd else BOUND_GERSHGORIN)
    if not psd:
        return float("inf"), BOUND_GERSHGORIN
    W = np.asarray(working_set, dtype=np.intp)
    if block is None:
        block = op.block(W) if op is not None else M[np.ix_(W, W)]
    block = np.asarray(block, dtype=float)
    dW = np.diag(block).copy()
    P = _partner_sums(block, s)[1] if partners is None else np.asarray(partners)
    uW = _small_bounds(dW, P, s)
    out = np.ones(p, dtype=bool)
    out[W] = False
    o = np.sort(np.maximum(d[out], 0.0))[::-1][:s]
    csum = np.concatenate([[0.0], np.cumsum(o)])
    best = max(float(uW[s - r] + csum[r]) for r in range(0, min(s, o.size) + 1))
    return best, BOUND_SPLIT


@validate_params({"cardinality": [_POSITIVE_INT], "penalized": ["boolean"],
                  "gershgorin": [None, "boolean"], "center": ["boolean"], "scale": ["boolean"]})
def cardinality_upper_bounds(op, cardinality, *, penalized=True, gershgorin=None,
                             center=True, scale=False) -> dict:
    """Valid upper bounds on v(s) = max{xᵀΣx : ‖x‖=1, ‖x‖₀ <= s}.

    Returns a dict with
    ``"lambda_max"`` (λmax(Σ)), ``"sum_top_variances"`` (sum of the s largest Σ_ii),
    ``"s_max_variance"`` (s·max Σ_ii), ``"gershgorin"`` (max_i Σ_ii + the s−1 largest
    |Σ_ij|, j ≠ i; computed when p <= 3000 or ``gershgorin=True``), ``"penalized"``
    (min_ρ λmax(C_ρ^½ΣC_ρ^½) + ρs, see :func:`penalized_scaling_bound`) and ``"best"``
    (the smallest).

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.bounds import cardinality_upper_bounds
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> b = cardinality_upper_bounds(S, 3)
    >>> round(b["lambda_max"], 3), round(b["gershgorin"], 3), round(b["best"], 3)
    (4.219, 2.602, 2.602)
    >>> from eigensparse.solvers import get_solver
    >>> bool(get_solver("exhaustive").func(S, 3).variance <= b["best"])  # v(3) = 2.475
    True
    """
    op = _as_op(op, center=center, scale=scale)
    p = op.n_features
    s = _check_card(cardinality, p)
    d = np.asarray(op.diag(), dtype=float)
    ds = np.sort(d)[::-1]
    out = {"lambda_max": _lambda_max_op(op), "sum_top_variances": float(ds[:s].sum()),
           "s_max_variance": float(s * ds[0])}
    if gershgorin is None:
        gershgorin = p <= 3000
    if gershgorin:
        out["gershgorin"] = float(_gershgorin_bounds(op, s)[s - 1])
    if penalized:
        r, h = penalized_scaling_bound(op)
        if r.size:
            out["penalized"] = float(np.nanmin(h + r * s))
    out["best"] = float(min(v for k, v in out.items()))
    return out


# --------------------------------------------------------------------------------------
# variance vs cardinality (handbook Fig. 7)
# --------------------------------------------------------------------------------------
def monotone_upper_bounds(bounds) -> np.ndarray:
    """Upper bounds on v(1), ..., v(K) tightened by monotonicity of the optimum.

    v(k) = max{xᵀΣx : ‖x‖=1, ‖x‖₀ <= k} is nondecreasing in k, so any bound on v(k')
    with k' >= k also bounds v(k): the result is the suffix minimum
    ``min_{k' >= k} bounds[k']`` (shape (K,), nondecreasing). A NaN entry is "no bound"
    (the bounds of larger k apply); an entry stays NaN only when no k' >= k has a bound.

    Examples
    --------
    >>> from eigensparse.bounds import monotone_upper_bounds
    >>> monotone_upper_bounds([3.0, 2.0, 4.0, 3.5]).tolist()  # a bound on v(2) bounds v(1)
    [2.0, 2.0, 3.5, 3.5]
    >>> monotone_upper_bounds([3.0, float("nan"), 4.0]).tolist()  # no bound on v(2): v(3)'s
    [3.0, 4.0, 4.0]
    """
    try:
        b = np.asarray(bounds, dtype=float)
    except (TypeError, ValueError):
        b = None
    if b is None or b.ndim != 1:
        raise InvalidParameterError(
            "parameter 'bounds' must be a 1-D sequence of upper bounds on v(1), ..., v(K); "
            f"got {'shape ' + str(b.shape) if b is not None else repr(bounds)}.")
    return np.fmin.accumulate(b[::-1])[::-1]


