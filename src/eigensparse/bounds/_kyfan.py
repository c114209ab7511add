"""The row-shift dual for the total of several components with disjoint supports: a Ky Fan
sum, optimized on a core block, with the rest of the matrix bounded by a block argument.

For a PSD Σ (p × p), pairwise disjoint supports T_1..T_k with |T_j| <= s_j, s = max s_j,
a level δ >= 0 and any symmetric Y with a zero diagonal, let
r_i(Y) = the sum of the s − 1 largest (|Y_ij| − δ)₊ over j ≠ i, and
M(Y) = Σ − δI − Y + diag(r(Y)).

**Bound.** Σ_j λmax(Σ_{T_jT_j}) <= Σ_{i<=k} max(λ_i(M(Y)), 0) + δ·Σ_j s_j for every such Y.

*Proof.* Features known only by a variance at most δ (``floor``: words left out of a
working set) first: dropping a feature l from T lowers λmax(Σ_TT) = max_{‖ξ‖=1}
Σ_{i∈T}(a_iᵀξ)² (Σ = AᵀA) by at most ‖a_l‖² = Σ_ll <= δ, so with T'_j = T_j minus them,
λmax(Σ_{T_j}) <= λmax(Σ_{T'_j}) + δ(s_j − |T'_j|). Let x_j be a unit top eigenvector of
Σ_{T'_j} (zero elsewhere; none when T'_j is empty); the x_j have disjoint supports, so
they are orthonormal. Write V = clip(Y, −δ, δ) off the diagonal and V_ii = δ, and
W = Y − V (so |V_ij| <= δ everywhere, W_ij = sign(Y_ij)(|Y_ij| − δ)₊, W_ii = 0). Then:

1. −δ|T'_j| <= −δ‖x_j‖₁² <= −x_jᵀVx_j (‖x‖₁² <= ‖x‖₀ for a unit x; |V_ij| <= δ);
2. x_jᵀWx_j <= Σ_{i≠l∈T'_j} |W_il||x_i||x_l| <= Σ_{i∈T'_j} x_i² Σ_{l∈T'_j, l≠i} |W_il|
   <= Σ_i r_i x_i² (2|x_ix_l| <= x_i² + x_l², W symmetric; T'_j ∖ {i} has at most s − 1
   members, and |W_il| = (|Y_il| − δ)₊);

so λmax(Σ_{T'_j}) − δ|T'_j| <= x_jᵀ(Σ − V − W + diag r)x_j = x_jᵀM(Y)x_j, and by Ky Fan's
maximum principle the sum over at most k orthonormal x_j is at most
Σ_{i<=k} max(λ_i(M), 0). Adding δ·Σ_j s_j gives the bound. δ = 0 is the plain row-shift
dual (``bounds._rowshift``) summed by Ky Fan; Y = clip(Σ, −ρ, ρ) with δ = ρ is the
soft-threshold bound of ``bounds._threshold``; δ is taken as the largest variance of the
features left out (0 when there are none).

**Core and outside.** Y is optimized on a core K (the features of largest partner score,
and the supports found); on every pair touching the rest O, Y_ij = clip(Σ_ij, −ρ, ρ).
Write M = [[P, B], [Bᵀ, Q]] (P on K). For any τ > 0,
[[BBᵀ/τ, −B], [−Bᵀ, τI]] ⪰ 0 (its Schur complement is zero), so
M ⪯ (P + BBᵀ/τ) ⊕ (Q + τI); the Ky Fan sum is monotone in the Loewner order, and every
eigenvalue of the second block is at most λ̄(Q) + τ (λ̄(Q) a proven upper bound on
λmax(Q): Gershgorin's or a Cholesky-proven one). Hence Σ_{i<=k} λ_i(M)₊ is at most the
sum of the k largest of eig(P + BBᵀ/τ) ∪ {λ̄(Q) + τ (min(k, |O|) times)}, clipped at
zero, for the τ of a small grid (fractions of λ_k(P) − λ̄(Q)) that makes it least.

The subgradient steps (Polyak's step towards a found total, the gradient from the top-k
eigenvectors) only choose Y; the bound is evaluated from scratch on the final Y with LAPACK
eigenvalues, so its validity does not depend on their convergence; the caller adds a
relative margin for their rounding.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg as sla
from scipy.sparse.linalg import ArpackError

from ._cheap import _lambda_max_upper_bound
from ._common import one_blas_thread

__all__ = ["kyfan_row_shift_bound"]

#: the penalties ρ tried for the start Y = clip(Σ, −ρ, ρ), as fractions of the largest
#: off-diagonal |Σ_ij| on the core (above δ)
_START_FRACTIONS = (0.01, 0.02, 0.04, 0.08, 0.15, 0.3)
#: the steps are not taken when the best start is above this many times the cutoff
_HOPELESS = 1.25
#: the features of largest variance whose clipped start is looked at first (with a cutoff)
_FIRST_LOOK = 200
#: the τ tried in the block bound, as fractions of λ_k(P) − λ̄(Q)
_TAU_FRACTIONS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
#: up to this many times ``n_eval`` features, the bound is evaluated by one dense solve of
#: the whole M: cheaper than the block route's 1 + len(_TAU_FRACTIONS) solves of ``n_eval``
#: (dense solves cost the cube of their size), and exact where that route bounds the rest
_EXACT_FACTOR = 2


def _top_entries(X: np.ndarray, h: int) -> np.ndarray:
    """Each row's h largest entries (X >= 0), zero-padded to h columns."""
    if X.shape[1] <= h:
        return np.hstack([X, np.zeros((X.shape[0], h - X.shape[1]))])
    return -np.partition(-X, h - 1, axis=1)[:, :h]


def _top_sums(X: np.ndarray, h: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's sum of its h largest entries (X >= 0) and the h-th largest."""
    if h <= 0 or X.shape[1] == 0:
        return np.zeros(X.shape[0]), np.full(X.shape[0], np.inf)
    if X.shape[1] <= h:
        return X.sum(axis=1), np.zeros(X.shape[0])
    part = -np.partition(-X, h - 1, axis=1)[:, :h]
    return part.sum(axis=1), part.min(axis=1)


def _top_eigen(M: np.ndarray, k: int, vectors: bool = False):
    m = M.shape[0]
    k = min(k, m)
    out = sla.eigh(M, eigvals_only=not vectors, subset_by_index=[m - k, m - 1], driver="evx",
                   check_finite=False)
    if vectors:
        return out[0][::-1], out[1][:, ::-1]
    return out[::-1]


class _Core:
    """M(Y) on the core: Σ_KK − δI − Y + diag r, r over the core's Y and the fixed
    (clipped) pairs with the outside (``fixed``: each core row's h largest of those)."""

    def __init__(self, S_KK, fixed, delta, h, k):
        self.S, self.fixed, self.delta, self.h, self.k = S_KK, fixed, delta, h, k
        self.d = np.diag(S_KK) - delta

    def matrix(self, Y):
        X = np.maximum(np.abs(Y) - self.delta, 0.0)
        np.fill_diagonal(X, 0.0)
        r, thr = _top_sums(np.hstack([X, self.fixed]), self.h)
        M = self.S - Y
        M[np.diag_indices_from(M)] = self.d + r
        return M, X, thr

    def value(self, Y) -> float:
        return float(np.maximum(_top_eigen(self.matrix(Y)[0], self.k), 0.0).sum())

    def descend(self, Y, target, steps, eta=0.5, patience=20, min_eta=0.1, window=50,
                stall=2e-3, cutoff=np.inf):
        """Polyak subgradient steps from Y towards ``target`` (at most ``steps``), the step
        length factor ``eta`` halved after ``patience`` steps without a new least value
        (a target below the least value reachable makes full steps overshoot), stopped
        when it falls below ``min_eta``, when ``window`` steps lowered the value by less
        than ``stall`` of it, or when the value, lowered at the last window's pace for the
        steps left, would stay at or above ``cutoff``; the Y of least value."""
        best_f, best_Y, mark, since = np.inf, Y, np.inf, 0
        Y = Y.copy()
        for it in range(steps):
            if it % window == 0:
                if best_f > mark * (1 - stall):
                    break
                if best_f - (mark - best_f) * (steps - it) / window >= cutoff:
                    break
                mark = best_f
            M, X, thr = self.matrix(Y)
            w, V = _top_eigen(M, self.k, vectors=True)
            pos = w > 0
            f = float(w[pos].sum())
            if f < best_f:
                best_f, best_Y, since = f, Y.copy(), 0
            else:
                since += 1
                if since >= patience:
                    eta, since = 0.5 * eta, 0
                    if eta < min_eta:
                        break
            if f <= target or not pos.any():
                break
            V = V[:, pos]
            G = V @ V.T
            g = np.diag(G)
            act = (X > 0) & (X >= thr[:, None])  # row i's s − 1 largest: r_i's subgradient
            D = np.sign(Y) * (act * g[:, None] + act.T * g[None, :]) - 2.0 * G
            np.fill_diagonal(D, 0.0)
            g2 = float(np.sum(D * D))
            if g2 <= 0:
                break
            Y -= (eta * (f - target) / g2) * D
        return best_f, best_Y


def _evaluate(S, A, K, Y, rho, delta, h, k, n_eval):
    """The bound's Ky Fan sum Σ_{i<=k} λ_i(M)₊ at Y on the core K and clip(Σ, −ρ, ρ) on
    every other pair: exact (dense LAPACK) for up to ``_EXACT_FACTOR``·``n_eval`` features,
    else exact on the ``n_eval`` features of largest partner score (K included) and the
    rest by the block argument of the module docstring."""
    p = S.shape[0]
    Yf = np.clip(S, -rho, rho)
    Yf[np.ix_(K, K)] = Y
    np.fill_diagonal(Yf, 0.0)
    X = np.maximum(np.minimum(A, rho) - delta, 0.0)
    X[np.ix_(K, K)] = np.maximum(np.abs(Y) - delta, 0.0)
    np.fill_diagonal(X, 0.0)
    M = S - Yf
    M[np.diag_indices_from(M)] = np.diag(S) - delta + _top_sums(X, h)[0]
    del X, Yf
    if p <= _EXACT_FACTOR * n_eval:  # one dense solve costs less than the block route's
        return float(np.maximum(_top_eigen(M, k), 0.0).sum())
    score = np.diag(M) + np.abs(M).sum(axis=1)
    score[K] = np.inf
    E = np.sort(np.argsort(-score, kind="stable")[:n_eval])
    O = np.setdiff1d(np.arange(p), E)
    P, B, Q = M[np.ix_(E, E)], M[np.ix_(E, O)], M[np.ix_(O, O)]
    dQ = np.diag(Q)
    lam_Q = float(np.max(np.abs(Q).sum(axis=1) - np.abs(dQ) + dQ))  # Gershgorin
    lam_P = _top_eigen(P, k)
    if lam_Q >= lam_P[-1]:  # a proven λ̄(Q) below Gershgorin's (dense, or Cholesky-proven)
        try:
            t = _lambda_max_upper_bound(Q)
        except ArpackError:  # no Lanczos estimate (e.g. Q = 0): Gershgorin's stays
            t = None
        lam_Q = min(lam_Q, t) if t is not None else lam_Q
    BB = B @ B.T
    gap = max(float(lam_P[-1]) - lam_Q, 1e-3 * max(abs(float(lam_P[0])), 1e-300))
    best = np.inf
    for frac in _TAU_FRACTIONS:
        tau = frac * gap
        w = _top_eigen(P + BB / tau, k)
        vals = np.sort(np.concatenate([w, np.full(min(k, O.size), lam_Q + tau)]))[::-1][:k]
        best = min(best, float(np.maximum(vals, 0.0).sum()))
    return best


def _start(S, A, K, O, delta, h, k):
    """The best clipped start Y0 = clip(Σ_KK, −ρ, ρ) over a few ρ: (its core value, the
    core, Y0, ρ)."""
    S_KK = np.ascontiguousarray(S[np.ix_(K, K)])
    top = float(A[np.ix_(K, K)].max()) if K.size > 1 else 0.0
    best = (np.inf, None, None, 0.0)
    for frac in _START_FRACTIONS:
        rho = delta + frac * max(top - delta, 0.0)
        fixed = _top_entries(np.maximum(np.minimum(A[np.ix_(K, O)], rho) - delta, 0.0), h)
        Y0 = np.clip(S_KK, -rho, rho)
        np.fill_diagonal(Y0, 0.0)
        c = _Core(S_KK, fixed, delta, h, k)
        f = c.value(Y0)
        if f < best[0]:
            best = (f, c, Y0, rho)
    return best


def kyfan_row_shift_bound(S, cardinalities, *, value=None, floor=0.0, support=None,
                          core=200, steps=400, n_eval=800, cutoff=np.inf) -> float:
    """A valid upper bound on Σ_j λmax(Σ[T_j, T_j]) over pairwise disjoint supports with
    |T_j| <= s_j (the module docstring's bound), for the PSD matrix ``S`` (checked,
    dense) and features outside it of variance at most ``floor``; ``value`` (a total
    found) is the target of the subgradient steps; ``support`` (feature ids) joins the
    core. inf when some s_j < 2 (no row shift: the caller's other bounds apply), and when
    it cannot go below ``cutoff`` (a bound known already): the best start is above
    ``_HOPELESS`` times it (the steps lower the start by a few percent on real data), the
    steps end at or above it (the Ky Fan sum of M is at least that of its core block, by
    Cauchy's interlacing), or their pace shows they would (``_Core.descend``)."""
    S = np.asarray(S, dtype=float)
    p = S.shape[0]
    cards = [int(c) for c in cardinalities]
    k, s = len(cards), max(cards)
    h, delta = s - 1, max(float(floor), 0.0)
    if p == 0 or h < 1:
        return np.inf
    const = delta * sum(cards)
    A = np.abs(S)
    np.fill_diagonal(A, 0.0)
    if p <= core:
        K, O = np.arange(p), np.zeros(0, dtype=np.intp)
    else:
        score = np.diag(S) + _top_sums(A, h)[0]
        K = np.argsort(-score, kind="stable")[:core]
        if support is not None:
            K = np.union1d(K, np.asarray(support, dtype=np.intp))
        K = np.sort(K)
        O = np.setdiff1d(np.arange(p), K)
    f0, c, Y0, rho = _start(S, A, K, O, delta, h, k)
    if f0 + const > _HOPELESS * cutoff:
        return np.inf
    target = (float(value) - const) if value is not None else 0.9 * f0
    f, Y = c.descend(Y0, target, int(steps), cutoff=cutoff - const)
    if f + const >= cutoff:
        return np.inf
    return _evaluate(S, A, K, Y, rho, delta, h, k, max(int(n_eval), K.size)) + const


#: the features (largest variances first) the joint row-shift bound holds densely; the
#: rest count by their variances only (the level δ)
KYFAN_WORKING_SET = 3000
#: for an operator holding data (n samples), fewer: n·m² of at most this many products
#: for the block, and never fewer than 500 features
_BLOCK_PRODUCTS = 2e9


def _dense_size(op, max_features: int) -> int:
    n = op.n_samples
    if not op.has_data or not n:  # a held matrix: the block is a copy
        return int(max_features)
    return int(min(max_features, max(500, np.sqrt(_BLOCK_PRODUCTS / n))))


def kyfan_total_bound(op, cardinalities, outside=None, *, value=None, support=None,
                      max_features=KYFAN_WORKING_SET, cutoff=np.inf) -> float:
    """:func:`kyfan_row_shift_bound` of an operator (checked input): its ``max_features``
    features of largest variance (fewer for an operator holding many samples: its block
    costs n·m² products) and ``support`` (feature ids) held densely, every other
    feature (and ``outside``, variances of features not in ``op``) bounded through δ, the
    largest of their variances; ``cutoff``: see :func:`kyfan_row_shift_bound` (the start
    is first looked at on the ``_FIRST_LOOK`` features of largest variance alone: its
    value there is compared with the cutoff in the same way)."""
    d = np.asarray(op.diag(), dtype=float)
    floor = float(np.max(outside)) if outside is not None and np.size(outside) else 0.0
    keep = np.argsort(-d, kind="stable")[:_dense_size(op, max_features)]
    if support is not None:
        keep = np.union1d(keep, np.asarray(support, dtype=np.intp))
    keep = np.sort(keep)
    if keep.size < d.size:
        rest = np.ones(d.size, dtype=bool)
        rest[keep] = False
        floor = max(floor, float(d[rest].max()))
    cards = [int(c) for c in cardinalities]
    if np.isfinite(cutoff) and max(cards) > 1:  # a look at the largest variances first
        few = np.sort(np.argsort(-d, kind="stable")[:_FIRST_LOOK])
        B = op.block(few)
        B = 0.5 * (B + B.T)
        A = np.abs(B)
        np.fill_diagonal(A, 0.0)
        with one_blas_thread():
            f0 = _start(B, A, np.arange(few.size), np.zeros(0, dtype=np.intp), floor,
                        max(cards) - 1, len(cards))[0]
        if f0 + floor * sum(cards) > _HOPELESS * cutoff:
            return np.inf
    local = None if support is None else np.searchsorted(keep, np.asarray(support, dtype=np.intp))
    S = op.block(keep)
    S = 0.5 * (S + S.T)
    with one_blas_thread():  # dense solves of a few hundred features: one thread is enough
        return kyfan_row_shift_bound(S, cardinalities, value=value, floor=floor, support=local,
                                     cutoff=cutoff)
