"""DSPCA's dual at the soft-thresholded matrix, with safe elimination: bounds on one
component and on the total of several disjoint components.

For a PSD Σ = AᵀA (columns a_i), a penalty ρ >= 0, K = {i : Σ_ii > ρ} and the
soft-thresholded block M_ρ = sign(Σ_KK)·(|Σ_KK| − ρ)₊ (diagonal Σ_ii − ρ included):

**One component.** For a support T with |T| <= s, λmax(Σ_TT) − ρs <= λmax(Σ_{T∩K}) − ρ|T∩K|:
dropping a feature i with Σ_ii <= ρ lowers λmax(Σ_TT) = max_{‖ξ‖=1} Σ_{l∈T}(a_lᵀξ)² by at
most ‖a_i‖² = Σ_ii <= ρ. For the unit top eigenvector x of Σ_{T∩K} (padded by zeros on K),
‖x‖₁² <= ‖x‖₀ <= |T∩K| and U = M_ρ − Σ_KK has |U_ij| <= ρ, so
λmax(Σ_{T∩K}) − ρ|T∩K| <= xᵀΣ_KKx − ρ‖x‖₁² <= xᵀΣ_KKx + xᵀUx = xᵀM_ρx <= λmax(M_ρ).
Hence v(s) <= λmax(M_ρ) + ρs (:func:`threshold_bound`; empty K: v(s) <= ρs).

**Disjoint components.** For pairwise disjoint supports T_1..T_k with |T_j| <= s_j, the
top eigenvectors x_j of Σ_{T_j∩K} are orthonormal (disjoint supports), so by the same
steps and Ky Fan's maximum principle Σ_j xⱼᵀM_ρxⱼ <= Σ_{i<=k} λ_i(M_ρ)₊:

    Σ_j λmax(Σ_{T_jT_j}) <= Σ_{i<=k} max(λ_i(M_ρ), 0) + ρ·Σ_j s_j     (:func:`total_upper_bound`).

Features known only by their variances (``outside``: e.g. the words a topic pipeline left
out of its working set) are eliminated at every ρ at least their largest variance, so
only those penalties are tried when they are given. Every λ is a dense LAPACK eigenvalue
(accurate to a few ulps of ‖M_ρ‖, far below the relative margin added to each bound).
"""
from __future__ import annotations

import numpy as np
from scipy import linalg as sla

from .._validation import IntInterval, InvalidParameterError, validate_params
from ..screening import Breakpoints
from ._common import _POSITIVE_INT, _as_op, _check_card

__all__ = ["threshold_bound", "total_upper_bound", "BOUND_THRESHOLD", "BOUND_TOTAL"]

#: the names the bounds report
BOUND_THRESHOLD = "DSPCA dual at the soft-thresholded matrix (λmax(Σ_ρ) + ρs, safe elimination)"
BOUND_TOTAL = ("min(Ky Fan sum of the soft-thresholded matrix + ρ·Σs, sum of one-component "
               "bounds, sum of the Σs largest variances)")
#: relative margin on a bound (rounding of the eigenvalues)
_MARGIN = 1e-10
#: penalties tried (geometric grid between the smallest useful one and the largest variance)
N_PENALTIES = 12
#: :func:`total_upper_bound`'s default cap on the features a penalty keeps
TOTAL_WORKING_SET = 500


def _soft(B: np.ndarray, rho: float) -> np.ndarray:
    return np.sign(B) * np.maximum(np.abs(B) - rho, 0.0)


def _top_eigenvalues(M: np.ndarray, k: int) -> np.ndarray:
    """The min(k, m) largest eigenvalues of the symmetric M (m × m), largest first."""
    m = M.shape[0]
    k = min(k, m)
    if k == 0:
        return np.zeros(0)
    w = sla.eigh(M, eigvals_only=True, subset_by_index=[m - k, m - 1], driver="evr",
                 check_finite=False)
    return w[::-1]


def _penalties(ds: np.ndarray, floor: float, max_working_set: int, n: int) -> np.ndarray:
    """Penalties >= ``floor`` whose working set {Σ_ii > ρ} has at most ``max_working_set``
    features: a geometric grid up to the largest variance, and the largest variance."""
    top = float(ds[0]) if ds.size else 0.0
    if top <= 0:
        return np.array([max(floor, 0.0)])
    lo = max(floor, top * 1e-4)
    if ds.size > max_working_set:
        lo = max(lo, float(ds[max_working_set]))
    if lo >= top:  # every feature eliminated: v(s) <= ρs at ρ = lo
        return np.array([lo])
    return np.unique(np.concatenate([np.geomspace(lo, top, n), [top]]))


def _scan(op, cards, outside, max_working_set, n_penalties):
    """Per penalty ρ tried: (ρ, the top len(cards) eigenvalues of M_ρ)."""
    d = np.asarray(op.diag(), dtype=float)
    floor = float(np.max(outside)) if outside is not None and outside.size else 0.0
    bp = Breakpoints.of(d)
    order, ds = bp.order, bp.sorted_variances
    rhos = _penalties(ds, floor, max_working_set, n_penalties)
    counts = np.array([bp.n_kept(r) for r in rhos])
    ok = counts <= max_working_set
    rhos, counts = rhos[ok], counts[ok]
    kmax = int(counts.max()) if counts.size else 0
    B = op.block(order[:kmax]) if kmax else np.zeros((0, 0))
    B = 0.5 * (B + B.T)
    out = []
    for r, m in zip(rhos, counts):
        out.append((float(r), _top_eigenvalues(_soft(B[:m, :m], r), len(cards))))
    return out


def _outside(outside):
    if outside is None:
        return None
    o = np.asarray(outside, dtype=float).ravel()
    if not np.all(np.isfinite(o)):
        raise InvalidParameterError(
            "parameter 'outside' must hold finite variances of the features left out; got "
            "a non-finite value.")
    return np.clip(o, 0.0, None)


@validate_params({"cardinality": [_POSITIVE_INT], "max_working_set": [_POSITIVE_INT],
                  "center": ["boolean"], "scale": ["boolean"]})
def threshold_bound(op, cardinality, *, outside=None, max_working_set=2000, center=True,
                    scale=False) -> tuple[float, float]:
    """min over ρ of λmax(M_ρ) + ρs: a valid upper bound on v(s) for a PSD Σ, and the ρ
    that gives it (module docstring: DSPCA's dual at U = M_ρ − Σ with safe elimination).

    Parameters
    ----------
    op : Operator or data
    cardinality : int
    outside : array of float, optional
        Variances of features not in ``op`` that the bound must also cover (only
        penalties at least their largest are tried).
    max_working_set : int, default=2000
        Penalties keeping more features are not tried.

    Returns
    -------
    (float, float)
        The bound (inf when no penalty could be tried) and its ρ.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.bounds import threshold_bound
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> ub, rho = threshold_bound(S, 5)   # v(5) = 3.406
    >>> bool(3.406 <= ub < 3.674)         # below the trace and Gershgorin bounds' 3.674
    True
    """
    op = _as_op(op, center=center, scale=scale)
    s = _check_card(cardinality, op.n_features if outside is None
                    else op.n_features + np.size(outside))
    best = (np.inf, 0.0)
    for r, w in _scan(op, [s], _outside(outside), max_working_set, N_PENALTIES):
        val = (max(float(w[0]), 0.0) if w.size else 0.0) + r * s
        if val < best[0]:
            best = (val, r)
    return float(best[0] * (1 + _MARGIN)), float(best[1])


@validate_params({"max_working_set": [_POSITIVE_INT],
                  "n_penalties": [IntInterval(1, None, closed="left")],
                  "center": ["boolean"], "scale": ["boolean"]})
def total_upper_bound(op, cardinalities, *, outside=None, max_working_set=TOTAL_WORKING_SET,
                      n_penalties=N_PENALTIES, center=True, scale=False) -> float:
    """A valid upper bound on Σ_j λmax(Σ[T_j, T_j]) over every choice of pairwise disjoint
    supports with |T_j| <= s_j (PSD Σ): the total variance of k disjoint sparse components.

    The least of: min over ρ of the Ky Fan bound of the module docstring; the sum over j
    of :func:`threshold_bound` at s_j (each component's variance is at most v(s_j)); and
    the sum of the Σ_j s_j largest variances (λmax(Σ_TT) <= Tr Σ_TT, disjoint T_j).

    Parameters
    ----------
    op : Operator or data
    cardinalities : sequence of int
        s_1, ..., s_k.
    outside : array of float, optional
        Variances of features not in ``op`` that the bound must also cover.
    max_working_set : int, default=500
        Penalties keeping more features are not tried (each penalty costs a dense
        eigenvalue solve of that size; the best penalty keeps far fewer on real data).
    n_penalties : int, default=12
        Size of the grid of penalties.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> import eigensparse as es
    >>> from eigensparse.bounds import total_upper_bound
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = es.sparse_pca(S, n_components=2, cardinality=3, deflation="disjoint",
    ...                     random_state=0)
    >>> ub = total_upper_bound(S, [3, 3])
    >>> bool(res.variances.sum() <= ub), bool(ub < np.linalg.eigvalsh(S.to_dense())[-2:].sum())
    (True, True)
    """
    op = _as_op(op, center=center, scale=scale)
    o = _outside(outside)
    p = op.n_features + (0 if o is None else o.size)
    try:
        cards = [int(c) for c in cardinalities]
    except (TypeError, ValueError):
        cards = None
    if not cards or any(c < 1 for c in cards) or sum(cards) > p:
        raise InvalidParameterError(
            f"parameter 'cardinalities' must be a nonempty sequence of ints >= 1 summing to at "
            f"most n_features={p}; got {cardinalities!r}.")
    c = sum(cards)
    d = np.asarray(op.diag(), dtype=float)
    allv = np.clip(d if o is None else np.concatenate([d, o]), 0.0, None)
    best = float(np.sort(allv)[::-1][:c].sum())  # trace
    scan = _scan(op, cards, o, max_working_set, n_penalties)
    if scan:
        joint = min(float(np.maximum(w[:len(cards)], 0.0).sum()) + r * c for r, w in scan)
        single = sum(min((max(float(w[0]), 0.0) if w.size else 0.0) + r * sj for r, w in scan)
                     for sj in cards)
        best = min(best, joint, single)
    return float(best * (1 + _MARGIN))


#: the penalties :func:`threshold_bound_near` tries, as fractions of λ/s (λ a found value)
NEAR_FRACTIONS = (0.95, 0.75, 0.6, 0.45, 0.3, 0.2, 0.1, 0.05, 0.025)


def threshold_bound_near(B: np.ndarray, cardinality: int, value: float,
                         fractions=NEAR_FRACTIONS, max_features: int | None = None,
                         floor: float = 0.0) -> tuple[float, float]:
    """:func:`threshold_bound` of the PSD matrix B (every feature held, checked input) at a
    few penalties ρ = f·value/s near the best (``value`` a variance found at s: the best
    ρ sits at 0.05–0.95 of it on real data; tried from the largest, stopped at the first
    that gives a larger bound than the one before), each λmax a dense eigenvalue solve
    (:func:`~eigensparse.bounds.lambda_max_upper_bound`); penalties keeping more than
    ``max_features`` features are skipped, and every ρ is raised to at least ``floor``
    (the largest variance of features known only by it, which the bound then covers:
    module docstring). Returns (bound, ρ); (inf, 0) when every penalty was skipped."""
    from ._cheap import _lambda_max_upper_bound

    s = int(cardinality)
    d = np.diag(B)
    best, last = (np.inf, 0.0), np.inf
    rhos = np.unique(np.maximum(np.asarray(fractions, dtype=float) * float(value) / s,
                                float(floor)))[::-1]
    for rho in rhos:
        K = np.flatnonzero(d > rho)
        if max_features is not None and K.size > max_features:
            continue
        top = (_lambda_max_upper_bound(_soft(B[np.ix_(K, K)], rho), exact_below=K.size)
               if K.size else 0.0)
        val = max(top, 0.0) + rho * s
        if val < best[0]:
            best = (val, rho)
        if val > last:
            break
        last = val
    return float(best[0] * (1 + _MARGIN)), best[1]
