"""Upper bounds on the best completion of a branch-and-bound node.

A node is a pair (F, A) of index sets, F ⊆ A ⊆ {0..p−1}: the variables *fixed in* (F) and
the variables still *allowed* (A; A \\ F = R are the free ones, everything outside A is
excluded). With f = |F| and k = s − f, its value is

    v(F, A) = max { λmax(Σ[S, S]) : F ⊆ S ⊆ A, |S| = s }
            = max { xᵀΣx : ‖x‖₂ = 1, supp x ⊆ S for such an S }.

Every function here returns a number that is >= v(F, A) for *every* symmetric positive
semi-definite Σ, with the proof in its docstring; the tree never prunes on anything else.
Two facts are used throughout:

(I)  Interlacing (Cauchy): for a symmetric M and index sets S ⊆ A,
     λmax(M[S, S]) <= λmax(M[A, A]) (a vector supported on S is supported on A).
(G)  Gershgorin / induced ∞-norm: λmax(M) <= max_i Σ_j |M_ij| for any square M.

Rounding: λmax is computed by LAPACK with an absolute error of a few ulps of ‖Σ‖; the
search prunes only nodes whose bound is below the incumbent by more than the relative
tolerance (1e-9 by default), which is many orders above that error.
"""
from __future__ import annotations

import math

import numpy as np
import numba

from ._dual import dual_block, push_top
from ._krylov import (LANCZOS_MIN, LANCZOS_STEPS, _lanczos, _lanczos_tridiagonal,  # noqa: F401
                       proves_below, top_eig_upper)

__all__ = ["gershgorin_bound", "trace_bound", "soft_eig_bound", "block_split_bound",
           "schur_prunes",
           "block_lmax", "enumerate_completions", "free_block_bound", "shifted_block",
           "proves_below", "partner_order", "top_eig_upper"]


def block_lmax(S: np.ndarray, supports: np.ndarray) -> np.ndarray:
    """λmax(Σ[I, I]) for each row I of ``supports`` (shape (b, s)) by one batched
    ``eigvalsh`` on the stacked s×s blocks; returns shape (b,)."""
    supports = np.asarray(supports, dtype=np.intp)
    if supports.shape[1] == 1:
        return S[supports[:, 0], supports[:, 0]].astype(float)
    blocks = S[supports[:, :, None], supports[:, None, :]]
    return np.linalg.eigvalsh(blocks)[:, -1]


def gershgorin_bound(absS: np.ndarray, d: np.ndarray, F: np.ndarray, R: np.ndarray, k: int,
                     order: np.ndarray | None = None) -> float:
    """Gershgorin bound on v(F, A), A = F ∪ R, k = s − |F| free slots.

    Proof. Let S = F ∪ T with T ⊆ R, |T| = k. By (G),
    λmax(Σ[S, S]) <= max_{i∈S} ( Σ_ii + Σ_{j∈S, j≠i} |Σ_ij| ). For a row i ∈ F the sum over
    j ∈ S splits into j ∈ F \\ {i} (all present) and j ∈ T (k entries of R, at most the
    k largest |Σ_ij|, j ∈ R). For i ∈ R it is j ∈ F plus the k − 1 other members of T,
    at most the k − 1 largest |Σ_ij| over j ∈ R \\ {i}. Taking the maximum over every
    row that can belong to S (all of A) bounds the maximum over i ∈ S. ∎

    Parameters
    ----------
    absS : ndarray (p, p)
        Σ or |Σ| (only the absolute values off the diagonal are read).
    d : ndarray (p,)
        diag Σ.
    F, R : ndarray of int
        Fixed and free indices (disjoint).
    k : int
        Number of free slots, 1 <= k <= |R|.
    order : ndarray (p, p) of int, optional
        :func:`partner_order` of Σ (computed when omitted).
    """
    A = np.concatenate([F, R])
    return float((d[A] + _row_sums(absS, F, R, k, order=order)).max())


def partner_order(S: np.ndarray) -> np.ndarray:
    """Each row's columns by decreasing |Σ_ij| (p×p indices, computed once per search): the
    node row sums below walk a row from its largest entries and stop after k free ones."""
    return np.argsort(-np.abs(S), axis=1, kind="stable").astype(np.intp)


@numba.njit(cache=True, nogil=True)
def _node_rows(S, order, A, f, k, rho, w, status, fixed_pairs=True):
    """Per position a of the node's index list A (fixed first, f of them): the largest
    Σ_{j∈S, j≠i} |U_ij| over the supports S = F ∪ T (T ⊆ R, |T| = k) containing i = A[a],
    with |U_ij| = min(|S_ij|, ρ·w_iw_j) (ρ = inf: |S_ij|). That is the sum over the fixed
    columns plus the k (fixed row) or k − 1 (free row, itself excluded) largest free
    entries of the row. ``fixed_pairs=False``: U_ij = 0 for i, j both fixed (a fixed
    row's sum leaves out the fixed columns; :func:`soft_eig_bound` keeps Σ_FF unsplit). ``status[j]`` is 2 for the free indices; ``order`` is
    :func:`partner_order`: a row is walked by decreasing |S_ij| and the walk stops once
    the next |S_ij| (an upper bound on every later clipped entry) cannot enter the top."""
    n = A.size
    r = np.zeros(n)
    top = np.empty(max(k, 1))
    for a in range(n):
        i = A[a]
        kk = k if a < f else k - 1
        acc = 0.0
        for b in range(f if (fixed_pairs or a >= f) else 0):
            if b != a:
                j = A[b]
                v = abs(S[i, j])
                cap = rho * w[i] * w[j]
                if v > cap:
                    v = cap
                acc += v
        found = 0
        if kk > 0:
            row = order[i]
            for q in range(row.size):
                j = row[q]
                if j == i or status[j] != 2:
                    continue
                u = abs(S[i, j])
                if found == kk and u <= top[0]:
                    break
                v = u
                cap = rho * w[i] * w[j]
                if v > cap:
                    v = cap
                found = push_top(top, found, kk, v)
            for q in range(found):
                acc += top[q]
        r[a] = acc
    return r


@numba.njit(cache=True, nogil=True)
def _fill_block(S, A, f, rho, w, r, out):
    """out = Σ[A, A] soft-thresholded off the diagonal (Σ_ij − clip(Σ_ij, ±ρw_iw_j)) except
    between the first ``f`` (fixed) positions, where Σ_ij is kept, with Σ_ii + r_i on the
    diagonal."""
    n = A.size
    for a in range(n):
        i = A[a]
        for b in range(n):
            j = A[b]
            if a == b:
                out[a, a] = S[i, i] + r[a]
            elif a < f and b < f:
                out[a, b] = S[i, j]
            else:
                x = S[i, j]
                cap = rho * w[i] * w[j]
                if x > cap:
                    out[a, b] = x - cap
                elif x < -cap:
                    out[a, b] = x + cap
                else:
                    out[a, b] = 0.0


def _row_sums(S: np.ndarray, F: np.ndarray, R: np.ndarray, k: int, rho: float = math.inf,
              w: np.ndarray | None = None, order: np.ndarray | None = None,
              fixed_pairs: bool = True) -> np.ndarray:
    """:func:`_node_rows` for the node (F, F ∪ R), rows ordered F then R."""
    p = S.shape[0]
    if w is None:
        w = np.ones(p)
    if order is None:
        order = partner_order(S)
    status = np.zeros(p, dtype=np.int8)
    status[R] = 2
    A = np.ascontiguousarray(np.concatenate([F, R]), dtype=np.intp)
    return _node_rows(S, order, A, F.size, k, float(rho), w, status, fixed_pairs)


def trace_bound(d: np.ndarray, F: np.ndarray, R: np.ndarray, k: int) -> float:
    """λmax(Σ[S, S]) <= Tr Σ[S, S] (Σ ⪰ 0) <= Σ_{i∈F} Σ_ii + the k largest Σ_jj, j ∈ R."""
    dr = d[R]
    top = np.sum(np.partition(dr, dr.size - k)[dr.size - k:]) if k < dr.size else dr.sum()
    return float(d[F].sum() + top)


def free_block_bound(S: np.ndarray, absS: np.ndarray, d: np.ndarray, R: np.ndarray, k: int,
                     lam_R: float | None = None, order: np.ndarray | None = None) -> float:
    """Upper bound on max { λmax(Σ[T, T]) : T ⊆ R, |T| = k } (the free part alone).

    The smallest of: the trace bound (the k largest Σ_jj, j ∈ R; Σ ⪰ 0 so λmax <= Tr);
    the Gershgorin bound of :func:`gershgorin_bound` with F = ∅ (each row's Σ_ii plus its
    k − 1 largest |Σ_ij|, j ∈ R \\ {i}); and, when given, ``lam_R`` = λmax(Σ[R, R]),
    valid by interlacing (I) since T ⊆ R. Each is valid for every such T, so their
    minimum is. ∎
    """
    if k <= 0:
        return 0.0
    if k == 1:
        return float(d[R].max())
    none = np.zeros(0, dtype=np.intp)
    b = min(trace_bound(d, none, R, k), gershgorin_bound(absS, d, none, R, k, order))
    if lam_R is not None:
        b = min(b, float(lam_R))
    return b


def block_split_bound(S: np.ndarray, F: np.ndarray, R: np.ndarray, k: int, lam_F: float,
                      lam_T: float) -> float:
    """Bound on v(F, F ∪ R) that uses the fixed-in rows jointly (a 2×2 block bound).

    With S = F ∪ T (T ⊆ R, |T| = k), write Σ[S, S] = [[Σ_FF, Σ_FT], [Σ_TF, Σ_TT]]. Returns
    λmax of the 2×2 matrix [[a, c], [c, b]] = ((a + b) + √((a − b)² + 4c²)) / 2 with
    a = ``lam_F`` >= λmax(Σ_FF), b = ``lam_T`` >= λmax(Σ_TT) for every admissible T (e.g.
    :func:`free_block_bound`), and c² = the sum of the k largest ‖Σ[F, j]‖₂², j ∈ R.

    Proof. A unit x supported on S splits as x = (αu, βw), u ∈ R^F and w ∈ R^T unit,
    α² + β² = 1. Then xᵀΣx = α²uᵀΣ_FFu + 2αβ uᵀΣ_FTw + β²wᵀΣ_TTw
    <= α²a + 2|α||β| ‖Σ_FT‖₂ + β²b. And ‖Σ_FT‖₂ <= ‖Σ_FT‖_F = (Σ_{j∈T} ‖Σ[F, j]‖₂²)^{1/2}
    <= c, since T has k members of R. So xᵀΣx <= yᵀ[[a, c], [c, b]]y with the unit
    y = (|α|, |β|), at most the λmax of that matrix. This holds for every T, hence for
    v(F, F ∪ R). ∎  With F = ∅ it is b; it is strong deep in the tree, where Σ_FF is
    known exactly and only k rows are free.
    """
    if F.size == 0:
        return float(lam_T)
    if k <= 0:
        return float(lam_F)
    col = np.einsum("ij,ij->j", S[np.ix_(F, R)], S[np.ix_(F, R)])
    c2 = float(np.sum(np.partition(col, col.size - k)[col.size - k:])) if k < col.size \
        else float(col.sum())
    a, b = float(lam_F), float(lam_T)
    return 0.5 * (a + b + math.sqrt((a - b) ** 2 + 4.0 * c2))


def soft_eig_bound(S: np.ndarray, F: np.ndarray, R: np.ndarray, k: int,
                   rho: float, scale: np.ndarray | None = None,
                   order: np.ndarray | None = None,
                   cut: float | None = None,
                   v0: np.ndarray | None = None,
                   U: np.ndarray | None = None) -> tuple[float, np.ndarray | None]:
    """Split (soft-threshold) eigenvalue bound on v(F, A), A = F ∪ R, with a per-row shift.

    Split Σ[A, A] = M + U with U_ij = clip(Σ_ij, −ρc_ij, ρc_ij) off the diagonal (U_ii = 0)
    except between two fixed variables (U_ij = 0 for i, j ∈ F: Σ_FF is kept whole),
    c_ij = w_iw_j for the weights w = ``scale`` (default 1; w_i = √Σ_ii thresholds the
    correlations instead of the covariances), and M = Σ[A, A] − U, the soft-thresholded
    block. Let r_i be the largest Σ_{j∈S, j≠i} |U_ij| over the supports S = F ∪ T
    (T ⊆ R, |T| = k) containing i: for i ∈ F its k largest free entries, for i ∈ R its
    fixed columns plus its k − 1 largest free entries. Returns λmax(M + D) with
    D = diag(r), and the top eigenvector of M + D (ordered F then R).

    Proof. Let x be a unit vector supported on such an S. Then xᵀΣx = xᵀMx + xᵀUx, and
    since 2|x_ix_j| <= x_i² + x_j²,
    xᵀUx <= Σ_{i≠j∈S} |U_ij||x_i||x_j| <= Σ_{i∈S} x_i² Σ_{j∈S, j≠i} |U_ij| <= Σ_{i∈S} r_i x_i²
    = xᵀDx. So xᵀΣx <= xᵀ(M + D)x <= λmax((M + D)[S, S]) <= λmax(M + D) by interlacing
    (I). Every such x and S is covered, so the bound holds for v(F, A). ∎  The proof holds
    for any symmetric U; the clipping only chooses a good one. Keeping Σ_FF whole is never
    worse than clipping it too: clipping a fixed pair (i, j) by c moves ±c from M_ij to
    U_ij and adds |c| to r_i and r_j, i.e. adds [[|c|, −c], [−c, |c|]] ⪰ 0 on (i, j) to
    M + D, which can only raise λmax. Since D ⪯ (max_i r_i)·I,
    the result is at most λmax(M) + max_i r_i (the DSPCA-type dual bound λmax(Σ − U) + ρs
    of d'Aspremont et al. with the Gershgorin bound of U at the node); ρ = 0 gives
    interlacing, λmax(Σ[A, A]), and ρ >= max |Σ_ij| / c_ij at most the Gershgorin bound
    (equal to it when |F| <= 1; with more fixed rows, Gershgorin of M + D is that bound).

    With ``cut`` given, a Cholesky factor is tried first (:func:`proves_below`): when it
    proves λmax(M + D) <= cut, ``(cut, None)`` is returned without an eigensolve (on a
    large block with a start, only after the Lanczos run of :func:`top_eig_upper` left
    its Rayleigh quotient at or below the cut: above it, no such proof exists). With a
    start vector ``v0`` (ordered F then R) a large block's λmax is replaced by the proven
    upper bound of :func:`top_eig_upper` (valid: it is >= λmax(M + D)).
    ``order`` is :func:`partner_order` of Σ (computed when omitted). With ``U`` (p × p,
    symmetric, zero diagonal) that U replaces the clipped Σ and ``rho``, ``scale`` are
    not used (:func:`._dual.dual_block`; the same proof).
    """
    B = shifted_block(S, F, R, k, rho, scale, order, U)
    ritz = None
    if cut is not None and B.shape[0] >= LANCZOS_MIN and v0 is not None and np.any(v0):
        # the Lanczos run first: a Rayleigh quotient above the cut (θ <= λmax) means no
        # factor can prove λmax <= cut, and the Cholesky try is skipped
        ritz = _lanczos(B, v0, LANCZOS_STEPS)
        if ritz[0] > cut + 1e-12 * abs(cut):
            return top_eig_upper(B, v0, cut, ritz)
    if cut is not None and proves_below(B, cut):
        return float(cut), None
    # not pruned: any proven value will do (the exact one only decides what the factor
    # just could not prove)
    return top_eig_upper(B, v0, None, ritz)


def shifted_block(S: np.ndarray, F: np.ndarray, R: np.ndarray, k: int, rho: float,
                  scale: np.ndarray | None = None,
                  order: np.ndarray | None = None,
                  U: np.ndarray | None = None,
                  uorder: np.ndarray | None = None) -> np.ndarray:
    """The matrix M + D of :func:`soft_eig_bound` (rows and columns F then R); ``order``
    is :func:`partner_order` of Σ (computed when omitted); ``U``: a given U instead of the
    clipped Σ (:func:`._dual.dual_block`, with ``uorder`` its rows' order when given)."""
    if U is not None:
        return dual_block(S, U, F, R, k, uorder)
    A = np.ascontiguousarray(np.concatenate([F, R]), dtype=np.intp)
    if rho <= 0:
        return S[np.ix_(A, A)]
    w = np.ones(S.shape[0]) if scale is None else scale
    r = _row_sums(S, F, R, k, rho, w, order, fixed_pairs=False)
    out = np.empty((A.size, A.size))
    _fill_block(S, A, F.size, float(rho), w, r, out)
    return out


#: relative margin of :func:`schur_prunes`' test (besides its proven rounding term)
SCHUR_MARGIN = 1e-9
#: :func:`schur_prunes` tries the low-rank bound on M (k >= 3) from this many free rows
SCHUR_LOWRANK_MIN = 3


def schur_prunes(S: np.ndarray, F: np.ndarray, R: np.ndarray, k: int, lam: float) -> bool:
    """True only if v(F, F ∪ R) < ``lam``: every support F ∪ T (T ⊆ R, |T| = k >= 1) has
    λmax(Σ[F ∪ T, F ∪ T]) < lam. The fixed rows enter exactly, through the Schur
    complement.

    Let λ_F = λmax(Σ_FF) < lam and M = Σ_RR + Σ_RF (lam·I − Σ_FF)⁻¹ Σ_FR (PSD: both
    terms are). Returns U + e < lam·(1 − ``SCHUR_MARGIN``) for U = min(the k largest
    M_ii, max_i M_ii + the k − 1 largest |M_ij|, j ≠ i), the trace and Gershgorin bounds
    on λmax(M[T, T]) over every T of k members of R, computed, and e the rounding term
    below. Before Gershgorin: with k = 2, U is instead the largest λmax of the 2×2
    blocks M[{i, j}, {i, j}] (every T, exactly); with k >= 3, the low-rank bound of
    :mod:`._lowrank` on M (a bound on λmax(M[T, T]) over every T of k members of R)
    also enters U.

    Proof. Suppose some S = F ∪ T has λ* = λmax(Σ_SS) >= lam > λ_F, with top eigenvector
    (u, w). Then Σ_FF u + Σ_FT w = λ* u gives u = (λ*I − Σ_FF)⁻¹ Σ_FT w, so w ≠ 0 and
    (Σ_TT + Σ_TF (λ*I − Σ_FF)⁻¹ Σ_FT) w = λ* w: λmax(M(λ*)[T, T]) >= λ*, writing M(μ)
    for M at lam = μ. For μ > λ_F, (μI − Σ_FF)⁻¹ decreases (Loewner order) as μ grows, so
    M(λ*)[T, T] ⪯ M(lam)[T, T] and λmax(M[T, T]) >= λ* >= lam. But λmax(M[T, T]) <= its
    trace (M ⪰ 0) <= the k largest M_ii over R, and <= max_i∈T M_ii + Σ_{j∈T, j≠i}
    |M_ij| (Gershgorin) <= the Gershgorin term of U; so U >= lam, and the test is
    False. ∎

    Rounding. LAPACK's eigendecomposition (w, Q) of Σ_FF is exact for Σ_FF + E with
    ‖E‖₂ <= η = 16·f·ε·‖Σ_FF‖_∞ and Q within 16·f·ε of an orthogonal matrix; the test
    requires g = lam − w_max − η > η (so lam > λ_F, g <= lam − λ_F). Then
    ‖(lam − Σ_FF − E)⁻¹ − (lam − Σ_FF)⁻¹‖₂ <= 2η/g², and Q's departure and the f-term
    products add at most 32·f·ε/g relative to ‖c_i‖‖c_j‖/g, c_i = Σ[i, F]: every computed
    M_ij is within ‖c_i‖‖c_j‖(2η/g² + 32fε/g) of M_ij, so U moves by at most
    e = k·max_i ‖c_i‖²·(2η/g² + 32fε/g) (k entries of M per bound; for the 2×2 and the
    low-rank bounds, λmax(M[T, T]) moves by at most ‖ΔM_TT‖₂ <= Σ_{i∈T} ‖c_i‖²·(2η/g²
    + 32fε/g) <= e, the entrywise error being a rank-one pattern). Returns False when
    F is empty, k = 0 or g <= η.
    """
    if F.size == 0 or k <= 0 or R.size < k:
        return False
    SFF = S[np.ix_(F, F)]
    w, Q = np.linalg.eigh(SFF)
    eps = np.finfo(float).eps
    eta = 16.0 * F.size * eps * float(np.abs(SFF).sum(axis=1).max())
    g = lam - w[-1] - eta
    if not g > eta:
        return False
    SRF = S[np.ix_(R, F)]
    C = SRF @ Q
    M = S[np.ix_(R, R)] + (C / (lam - w)) @ C.T
    c2 = float(np.einsum("ij,ij->i", SRF, SRF).max())
    e = k * c2 * (2.0 * eta / g ** 2 + 32.0 * F.size * eps / g)
    limit = lam * (1 - SCHUR_MARGIN) - e
    d = np.diag(M).copy()
    bound = float(np.sum(np.partition(d, d.size - k)[d.size - k:])) if k < d.size else float(d.sum())
    if bound < limit:
        return True
    if k == 2:  # every pair exactly: λmax of [[a, m], [m, b]]
        half = 0.5 * (d[:, None] - d[None, :])
        P = 0.5 * (d[:, None] + d[None, :]) + np.sqrt(half * half + M * M)
        np.fill_diagonal(P, -np.inf)
        return float(P.max()) < limit
    if k > 2 and R.size >= SCHUR_LOWRANK_MIN:
        from ._lowrank import lowrank_below, lowrank_node, top_pairs

        v0 = np.sqrt(np.maximum(d, 0.0)) + 1e-2 * math.sqrt(max(float(d.max()), 0.0))
        below = None
        if R.size >= LANCZOS_MIN:  # one Lanczos run and at most one Cholesky factor
            below = lowrank_below(M, 0, k, v0 * (1.0 + 0.1 * np.cos(np.arange(R.size))),
                                  limit)
        if below is None:
            below = lowrank_node(M, 0, k, pairs=top_pairs(M))[0] < limit
        if below:
            return True
    if k > 1:
        A = np.abs(M)
        np.fill_diagonal(A, 0.0)
        t = k - 1
        top = -np.partition(-A, t - 1, axis=1)[:, :t].sum(axis=1) if t < A.shape[1] else A.sum(axis=1)
        bound = min(bound, float((d + top).max()))
    else:
        bound = min(bound, float(d.max()))
    return bound < limit


def enumerate_completions(S: np.ndarray, F: np.ndarray, R: np.ndarray, k: int,
                          batch_entries: int = 2_000_000) -> tuple[float, np.ndarray]:
    """Exact v(F, F ∪ R) by scanning all C(|R|, k) completions in stacked batches.

    Returns the best value and support (sorted). Used at the bottom of the tree, where
    the number of completions is small: it closes the node with its exact value.
    """
    from .._exhaustive import _combination_batches

    s = F.size + k
    batch = max(1, batch_entries // (s * s))
    best_val, best = -np.inf, None
    for idx in _combination_batches(R.size, k, batch):
        T = R[idx]
        sup = np.concatenate([np.broadcast_to(F, (T.shape[0], F.size)), T], axis=1)
        vals = block_lmax(S, sup)
        j = int(np.argmax(vals))
        if vals[j] > best_val:
            best_val, best = float(vals[j]), np.sort(sup[j])
    return best_val, best
