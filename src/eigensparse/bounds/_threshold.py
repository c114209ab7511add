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
only those penalties are tried when they are given. The λ of :func:`threshold_bound` and
:func:`total_upper_bound` are dense LAPACK eigenvalues (accurate to a few ulps of ‖M_ρ‖, far
below the relative margin added to each bound); :func:`threshold_bound_near` searches its
penalty on Lanczos estimates and proves the one λmax it reports by a Cholesky factor of
t·I − M_ρ (a dense eigenvalue up to 64 features).
"""
from __future__ import annotations

import numpy as np
from scipy import linalg as sla

from .._validation import IntInterval, InvalidParameterError, validate_params
from ..screening import Breakpoints
from ._common import _POSITIVE_INT, _as_op, _check_card, one_blas_thread

__all__ = ["threshold_bound", "total_upper_bound", "BOUND_THRESHOLD", "BOUND_TOTAL"]

#: the names the bounds report
BOUND_THRESHOLD = "DSPCA dual at the soft-thresholded matrix (λmax(Σ_ρ) + ρs, safe elimination)"
BOUND_TOTAL = ("min(joint row-shift dual (Ky Fan sum of Σ − δI − Y + diag r(Y)), Ky Fan sum of "
               "the soft-thresholded matrix + ρ·Σs, sum of one-component bounds, sum of the Σs "
               "largest variances)")
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
    with one_blas_thread():
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
                      n_penalties=N_PENALTIES, value=None, support=None, center=True,
                      scale=False) -> float:
    """A valid upper bound on Σ_j λmax(Σ[T_j, T_j]) over every choice of pairwise disjoint
    supports with |T_j| <= s_j (PSD Σ): the total variance of k disjoint sparse components.

    The least of: the joint row-shift dual (:mod:`eigensparse.bounds._kyfan`: the Ky Fan
    sum of Σ − δI − Y + diag r(Y), Y optimized); min over ρ of the Ky Fan bound of the
    module docstring; the sum over j
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
    value : float, optional
        A total found (the target of the joint row-shift dual's subgradient steps).
    support : array of int, optional
        Features of the components found (held in that bound's core).

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
    if max(cards) > 1:
        from ._kyfan import kyfan_total_bound

        best = min(best, kyfan_total_bound(op, cards, o, value=value, support=support,
                                           cutoff=best))
    return float(best * (1 + _MARGIN))


#: the penalties :func:`threshold_bound_near` tries, as fractions of λ/s (λ a found value)
NEAR_FRACTIONS = (0.95, 0.75, 0.6, 0.45, 0.3, 0.2, 0.1, 0.05, 0.025)
#: Lanczos steps of an estimate of λmax(M_ρ) in :func:`threshold_bound_near`'s search
#: (warm-started from the previous penalty's Ritz vector); the proof takes twice as many
_NEAR_STEPS = 30
#: golden-section steps refining the best penalty of the grid (estimates only)
_NEAR_GOLDEN = 5
#: up to this many features an estimate is the exact top eigenvalue (a dense solve)
_NEAR_DENSE = 64


class _Soft:
    """M_ρ of a PSD matrix B at the penalties of a search: Lanczos estimates of λmax(M_ρ)
    (each started from the Ritz vector of the one before) and one proven bound. B is
    held with its features by decreasing variance, so the features a penalty keeps are
    a leading block."""

    def __init__(self, B: np.ndarray, max_features):
        d = np.diag(B)
        order = np.argsort(-d, kind="stable")
        self.B, self.d, self.max_features = B[np.ix_(order, order)], d[order], max_features
        self.v = np.sqrt(np.maximum(self.d, 0.0)) + 1e-3  # the start, every feature
        self.seen: dict = {}

    def matrix(self, rho: float):
        """(m, M_ρ on the m features of variance > ρ); M None when m > ``max_features``."""
        m = int(np.searchsorted(-self.d, -rho, side="left"))
        if self.max_features is not None and m > self.max_features:
            return m, None
        X = self.B[:m, :m]
        return m, X - np.clip(X, -rho, rho)  # the soft threshold, in two passes

    def estimate(self, rho: float, s: int) -> float:
        """λmax(M_ρ) + ρs by Lanczos (a value at most the true one; inf when ρ keeps
        more than ``max_features`` features)."""
        from ._rowshift import _top_upper
        from ._rowshift_kernels import ritz

        rho = float(rho)
        if rho not in self.seen:
            m, M = self.matrix(rho)
            if M is None:
                top = np.inf
            elif m <= _NEAR_DENSE:
                top = _top_upper(M, self.v[:m], _NEAR_STEPS) if m else 0.0
            else:
                top, x = ritz(M, self.v[:m].copy(), _NEAR_STEPS)
                self.v = 1e-3 * self.v / max(float(np.linalg.norm(self.v)), 1e-300)
                self.v[:m] += x
            self.seen[rho] = max(float(top), 0.0) + rho * s
        return self.seen[rho]

    def proven(self, rho: float, s: int) -> float:
        """A proven bound λmax(M_ρ) + ρs: the Ritz value raised by twice the rounding of a
        Cholesky factor of t·I − M_ρ, proven by that factor, else
        :func:`~eigensparse.bounds._rowshift._top_upper` (a looser factor, else the dense
        eigenvalue); up to ``_NEAR_DENSE`` features the estimate, a dense eigenvalue."""
        from ._rowshift import _proves_below, _top_upper
        from ._rowshift_kernels import ritz

        m, M = self.matrix(rho)
        if m <= _NEAR_DENSE and rho in self.seen:
            return self.seen[rho]
        if not m:
            return rho * s
        if m > _NEAR_DENSE:
            theta, _ = ritz(M, self.v[:m].copy(), 2 * _NEAR_STEPS)
            scale = max(abs(float(theta)), float(np.abs(np.diag(M)).max()), 1e-300)
            t = float(theta) + 4.0 * m * (m + 1) * np.finfo(float).eps * scale
            if _proves_below(M.copy(), t):
                return max(t, 0.0) + rho * s
        return max(float(_top_upper(M, self.v[:m].copy(), _NEAR_STEPS)), 0.0) + rho * s


def _golden(f, lo: float, hi: float, steps: int) -> None:
    """Golden-section steps on [lo, hi] (f evaluated, its values kept by the caller)."""
    g = (np.sqrt(5.0) - 1) / 2
    for _ in range(steps):
        c1, c2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if f(c1) < f(c2):
            hi = c2
        else:
            lo = c1


def threshold_bound_near(B: np.ndarray, cardinality: int, value: float,
                         fractions=NEAR_FRACTIONS, max_features: int | None = None,
                         floor: float = 0.0) -> tuple[float, float]:
    """:func:`threshold_bound` of the PSD matrix B (every feature held, checked input) at
    penalties ρ near the best (``value`` a variance found at s): the grid ρ = f·value/s
    (the best ρ sits at 0.05–0.95 of it on real data; tried from the largest, stopped at
    the first that gives a larger bound than the one before), then golden-section steps
    between the best one's neighbours. The search reads Lanczos estimates of λmax(M_ρ);
    only the best ρ's is proven (a Cholesky factor of t·I − M_ρ, else a dense eigenvalue
    solve), so the bound is valid whatever the estimates. Penalties keeping more than
    ``max_features`` features are skipped, and every ρ is raised to at least ``floor``
    (the largest variance of features known only by it, which the bound then covers:
    module docstring). Returns (bound, ρ); (inf, 0) when every penalty was skipped."""
    # one BLAS thread: the search is a sequence of small products and one factorization,
    # which other threads only slow down (each product waits for them) on a busy machine
    B = np.asarray(B, dtype=float)
    if B.shape[0] <= _NEAR_DENSE:
        return _near(B, int(cardinality), float(value), fractions, max_features, float(floor))
    with one_blas_thread():
        return _near(B, int(cardinality), float(value), fractions, max_features, float(floor))


def _near(B, s, value, fractions, max_features, floor):
    """:func:`threshold_bound_near`'s search."""
    soft = _Soft(B, max_features)
    rhos = np.unique(np.maximum(np.asarray(fractions, dtype=float) * value / s, floor))[::-1]
    last = np.inf
    for rho in rhos:
        val = soft.estimate(rho, s)
        if np.isfinite(val) and val > last:
            break
        last = val if np.isfinite(val) else last
    tried = sorted((r, v) for r, v in soft.seen.items() if np.isfinite(v))
    if not tried:
        return np.inf, 0.0
    j = min(range(len(tried)), key=lambda i: tried[i][1])
    lo, hi = tried[max(j - 1, 0)][0], tried[min(j + 1, len(tried) - 1)][0]
    if hi > lo:
        _golden(lambda r: soft.estimate(r, s), lo, hi, _NEAR_GOLDEN)
    rho = min(soft.seen.items(), key=lambda rv: (rv[1], -rv[0]))[0]
    return float(soft.proven(rho, s) * (1 + _MARGIN)), float(rho)
