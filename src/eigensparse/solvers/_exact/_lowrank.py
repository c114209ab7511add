"""The low-rank (top eigenpairs) bound on a node of the branch and bound.

For a symmetric B (n × n) with eigenvalues μ_1 >= μ_2 >= ... and orthonormal eigenvectors
q_t, and m >= 1, let V = [q_1 √(μ_1 − μ_{m+1}), ..., q_m √(μ_m − μ_{m+1})] (n × m, rows
v_i). For a unit x supported on S,

    xᵀBx = Σ_t μ_t (q_tᵀx)² <= μ_{m+1} + Σ_{t<=m} (μ_t − μ_{m+1})(q_tᵀx)² = μ_{m+1} + ‖Vᵀx‖²

(the terms t > m are at most μ_{m+1}(q_tᵀx)², and Σ_t (q_tᵀx)² = 1), and
‖Vᵀx‖² <= λmax(V_Sᵀ V_S) = max_{‖y‖ = 1} Σ_{i∈S} (v_iᵀy)². With m = 2, y = (cos θ, sin θ),
θ ∈ [0, π) (y and −y give the same sum); cut [0, π) into K cells of width π/K: every y of
a cell is within angle π/(2K) of the cell's centre y_c, so ‖y − y_c‖ <= 2 sin(π/(4K)) =: δ
and |v_iᵀy| <= |v_iᵀy_c| + δ‖v_i‖. Hence for the supports S = F ∪ T (T ⊆ R, |T| = k),

    max_S λmax(B[S, S]) <= μ_3 + max_cells ( Σ_{i∈F} z_i + the k largest z_j, j ∈ R ),
    z_i = (|v_iᵀy_c| + δ‖v_i‖)².

When B dominates Σ on those supports (xᵀΣx <= xᵀBx, e.g. B = Σ[A, A] itself, or the
shifted soft-threshold block M + D of :func:`._bounds.soft_eig_bound`), this bounds the
node's value v(F, A). It is strong when the top eigenvector of B is nearly sparse and the
next eigenvalues are well below the first (covariances of counts and of raw intensities):
a rank-one spike is bounded by the mass of its s heaviest coordinates, not by its λmax.

Rounding: the eigenpairs come from LAPACK (backward stable: B = QΛQᵀ + E with
‖E‖ = O(nε‖B‖) and Q orthonormal to O(nε)); the bound adds 32·n·ε·max_i Σ_j |B_ij|
(>= 32·n·ε·‖B‖₂), which covers both.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import linalg as sla

from ._krylov import _lanczos_tridiagonal, proves_below, top_eig_upper

__all__ = ["lowrank_below", "lowrank_bound", "lowrank_node", "lowrank_screen", "ritz_split",
           "top_pairs",
           "LOWRANK_CELLS"]

#: cells of the angle θ (the bound's slack grows as π/(4·cells))
LOWRANK_CELLS = 1024
#: Lanczos steps of :func:`ritz_split`
RITZ_STEPS = 48


def top_pairs(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The top three eigenpairs of the symmetric B (n >= 3): (μ_1 >= μ_2 >= μ_3, their
    unit eigenvectors as columns), by LAPACK's evr."""
    n = B.shape[0]
    mu, Q = sla.eigh(B, subset_by_index=[n - 3, n - 1], driver="evr", check_finite=False)
    return mu[::-1], Q[:, ::-1]


def ritz_split(B: np.ndarray, v0: np.ndarray, steps: int = RITZ_STEPS,
               floor: float | None = None):
    """(u, V (n × 2), ‖v_i‖, margin, q, θ) without a dense eigensolve: B <= L + u·I on
    every vector with L = VVᵀ, so that xᵀBx <= u + ‖Vᵀx‖² for every unit x, as with
    (μ_3, V) of :func:`_top_pairs`; q and θ are the top Ritz vector and value.

    The top three Ritz pairs (θ_t, q_t) of ``steps`` Lanczos steps from ``v0``
    (:func:`._krylov._lanczos_tridiagonal`) give V = [q_t √(θ_t − θ_3)] (t = 1, 2) and
    B' = B − VVᵀ; u is a proven upper bound on λmax(B'): θ_3 plus the residual norm of
    q_3 when a Cholesky factor proves it (:func:`._krylov.proves_below`), else
    :func:`._krylov.top_eig_upper` from q_3 (a Lanczos run and a Cholesky factor, else a
    dense eigensolve). Proof: for every x,
    xᵀBx = xᵀB'x + xᵀVVᵀx <= u‖x‖² + ‖Vᵀx‖², whatever the quality of the Ritz
    vectors (they only decide how small u is). Rounding: B' is formed with entrywise
    errors below 4ε(|B_ij| + ‖v_i‖‖v_j‖), so ‖B' − fl(B')‖₂ <= 4nε(max|B_ij| +
    max_i ‖v_i‖²); the margin (32nε times the row-sum norm of B plus ‖V‖_F²) covers it
    and the cells' rounding as in :func:`_top_pairs`. Returns None when the Lanczos
    run found fewer than three Ritz pairs (an invariant subspace: the caller solves
    densely). With ``floor``: False when θ_3 >= floor, before the Cholesky proof (Ritz
    values are below the eigenvalues, θ_3 <= μ_3 <= λmax(B − VVᵀ) for any rank-two VVᵀ
    (Weyl), so u, and the bound of :func:`lowrank_node` with it, would be >= floor)."""
    core = _ritz_core(B, v0, steps)
    if core is None:
        return None
    theta, Q, V, Bp, nv, margin = core
    if floor is not None and theta[2] >= floor:
        return False
    # θ_3 plus its residual first (one Cholesky factor); else a Lanczos run on B'
    q = Q[:, 2]
    u = float(theta[2] + np.linalg.norm(Bp @ q - theta[2] * q)
              + 1e-10 * max(abs(float(theta[0])), 1e-300))
    if not proves_below(Bp, u):
        u = float(top_eig_upper(Bp, q + 1e-3 * np.cos(np.arange(q.size)), None)[0])
    return u, V, nv, margin, Q[:, 0], float(theta[0])


def _ritz_core(B, v0, steps):
    """(θ (3,), Q (n × 3), V, B' = B − VVᵀ, ‖v_i‖, margin) of :func:`ritz_split`; None
    when the Lanczos run found fewer than three Ritz pairs."""
    n = B.shape[0]
    B = np.ascontiguousarray(B, dtype=float)
    a, b, Qk, k = _lanczos_tridiagonal(B, np.asarray(v0, dtype=float), min(int(steps), n))
    if k < 3:
        return None
    theta, Y = sla.eigh_tridiagonal(a[:k], b[:k - 1], select="i",
                                    select_range=(k - 3, k - 1))
    theta, Y = theta[::-1], Y[:, ::-1]
    Q = Qk[:k].T @ Y
    Q /= np.linalg.norm(Q, axis=0)
    V = Q[:, :2] * np.sqrt(np.maximum(theta[:2] - theta[2], 0.0))
    nv = np.sqrt(np.einsum("ij,ij->i", V, V))
    norm = float(np.abs(B).sum(axis=1).max()) + float(nv @ nv)
    return theta, Q, V, B - V @ V.T, nv, 32.0 * n * np.finfo(float).eps * norm


def lowrank_below(B: np.ndarray, f: int, k: int, v0: np.ndarray, limit: float,
                  steps: int = RITZ_STEPS):
    """Whether the low-rank bound of B (the supports of the first ``f`` positions and
    ``k`` of the others) is proven below ``limit``, with one Cholesky factor: the cells
    of :func:`lowrank_node` are evaluated on the V of :func:`ritz_split` first (c, their
    value with u = 0, margin included), then λmax(B − VVᵀ) <= t := limit − c (less a
    relative 1e-12) is tried by :func:`._krylov.proves_below`; the bound is then
    t + c < limit (the proof of :func:`ritz_split`, with u = t). True: proven below;
    False: not (θ_3 >= t, or the factor failed); None: the Lanczos run found fewer than
    three Ritz pairs (the caller solves densely)."""
    core = _ritz_core(B, v0, steps)
    if core is None:
        return None
    theta, _, V, Bp, nv, margin = core
    if theta[2] >= limit:
        return False
    c = lowrank_node(B, f, k, pairs=(0.0, V, nv, margin))[0]
    t = limit - c - 1e-12 * abs(limit)
    return bool(t > theta[2] and proves_below(Bp, t))


def _top_pairs(B: np.ndarray, pairs=None):
    """(μ_3, V (n × 2), ‖v_i‖, margin) of the module docstring; ``pairs``: those of
    :func:`top_pairs` when the caller has them, or the first four entries of
    :func:`ritz_split` (a length-4 or longer tuple)."""
    n = B.shape[0]
    if pairs is not None and len(pairs) > 2:
        return pairs[0], pairs[1], pairs[2], pairs[3]
    mu, Q = top_pairs(B) if pairs is None else pairs
    V = Q[:, :2] * np.sqrt(np.maximum(mu[:2] - mu[2], 0.0))
    nv = np.sqrt(np.einsum("ij,ij->i", V, V))
    norm = float(np.abs(B).sum(axis=1).max())  # >= ‖B‖₂ (Gershgorin)
    return float(mu[2]), V, nv, 32.0 * n * np.finfo(float).eps * norm


def _weights(V, nv, theta, half):
    """z_i per cell (n × cells) for the cells of centres ``theta`` and half-width ``half``
    (every y of a cell is within angle ``half`` of its centre: ‖y − y_c‖ <= 2 sin(half/2))."""
    Y = np.vstack([np.cos(theta), np.sin(theta)])
    return (np.abs(V @ Y) + 2.0 * math.sin(half / 2.0) * nv[:, None]) ** 2


def _cell_weights(B: np.ndarray, cells: int):
    """(μ_3, Z, margin) of the module docstring: Z (n × cells) holds z_i per cell."""
    mu3, V, nv, margin = _top_pairs(B)
    theta = np.pi * (np.arange(cells) + 0.5) / cells
    return mu3, _weights(V, nv, theta, np.pi / (2.0 * cells)), margin


def _node_weights(B: np.ndarray, f: int, k: int, coarse: int = 64, split: int = 16,
                  pairs=None):
    """(μ_3, Z, margin) on adaptive cells: ``coarse`` cells, then each cell whose bound
    exceeds the largest value at a centre (a lower bound on the maximum over y) cut into
    ``split`` (the slack of ``coarse·split`` cells where it matters, at a fraction of the
    cost). Every y lies in some cell kept, so the maximum over them is a bound."""
    mu3, V, nv, margin = _top_pairs(B, pairs)
    half = np.pi / (2.0 * coarse)
    theta = np.pi * (np.arange(coarse) + 0.5) / coarse
    Z = _weights(V, nv, theta, half)
    Y = np.vstack([np.cos(theta), np.sin(theta)])
    Z0 = (V @ Y) ** 2
    up = Z[:f].sum(axis=0) + _top_rows(Z[f:], k)
    lo = Z0[:f].sum(axis=0) + _top_rows(Z0[f:], k)
    refine = up > lo.max()
    if refine.any():
        sub = (np.arange(split) + 0.5) / split - 0.5            # offsets in cell widths
        fine = (theta[refine][:, None] + sub[None, :] * 2.0 * half).ravel()
        Z = np.hstack([Z[:, ~refine], _weights(V, nv, fine, half / split)])
    return mu3, Z, margin


def _top_rows(Z: np.ndarray, k: int) -> np.ndarray:
    """Per column of Z, the sum of its k largest entries."""
    if k <= 0:
        return np.zeros(Z.shape[1])
    if k >= Z.shape[0]:
        return Z.sum(axis=0)
    return np.partition(Z, Z.shape[0] - k, axis=0)[Z.shape[0] - k:].sum(axis=0)


def lowrank_bound(B: np.ndarray, f: int, k: int, cells: int = LOWRANK_CELLS) -> float:
    """Upper bound on max λmax(B[S, S]) over the supports S made of the first ``f``
    positions (fixed) and ``k`` of the others (see the module docstring; m = 2).

    Parameters
    ----------
    B : ndarray (n, n)
        Symmetric; positions ordered fixed first.
    f : int
        Fixed positions (0 <= f <= n).
    k : int
        Free slots (f + k <= n).
    cells : int
        Cells of the angle (more: tighter and slower).

    Returns
    -------
    float
        The bound; ``inf`` when n < 3 (the rank-2 split needs a third eigenvalue).
    """
    n = B.shape[0]
    if n < 3:
        return math.inf
    return lowrank_node(B, f, k, cells)[0]


def lowrank_node(B: np.ndarray, f: int, k: int, cells: int | None = None,
                 pairs=None) -> tuple[float, np.ndarray]:
    """:func:`lowrank_bound` and, for each free position j (the positions after the first
    ``f``), a bound on the supports that contain j: the first ``f``, j and k − 1 others
    (per cell min(T_k, z_j + T_{k−1}) over the free z, as :func:`lowrank_screen`). A free
    j whose bound is below the incumbent can leave the node: no support of the node that
    contains it beats the incumbent. ``cells``: that many equal cells; None: 64 cells,
    those that may hold the maximum cut into 16 (:func:`_node_weights`). ``pairs``: the
    top eigenpairs of B from :func:`top_pairs` when the caller has them. Returns (bound,
    per-free-position bounds); (inf, inf everywhere) when n < 3."""
    n = B.shape[0]
    if n < 3 or k <= 0:
        return math.inf, np.full(max(n - f, 0), math.inf)
    mu3, Z, margin = _node_weights(B, f, k, pairs=pairs) if cells is None \
        else _cell_weights(B, cells)
    fixed = Z[:f].sum(axis=0)
    free = Z[f:]
    tk, tk1 = _top_rows(free, k), _top_rows(free, k - 1)
    per = np.minimum(tk[None, :], free + tk1[None, :]) + fixed[None, :]
    return float(mu3 + (fixed + tk).max() + margin), mu3 + per.max(axis=1) + margin


def lowrank_screen(B: np.ndarray, s: int, cells: int = LOWRANK_CELLS) -> np.ndarray:
    """Per position j of B (n × n, nothing fixed), an upper bound on max λmax(B[S, S]) over
    the supports S of s positions that contain j; all of them from one eigensolve.

    Per cell, with T_t the sum of the t largest z_i, the best S containing j sums to
    z_j + T_{s−1} when j is not among the s − 1 largest, else T_s; both cases are
    min(T_s, z_j + T_{s−1}) (z_j >= the s-th largest when j is among the s − 1 largest).
    The bound is μ_3 + the largest over the cells, as :func:`lowrank_bound`. Returns
    ``inf`` everywhere when n < 3."""
    n = B.shape[0]
    if n < 3:
        return np.full(n, math.inf)
    mu3, Z, margin = _cell_weights(B, cells)
    ts, ts1 = _top_rows(Z, s), _top_rows(Z, s - 1)
    per = np.minimum(ts[None, :], Z + ts1[None, :])
    return mu3 + per.max(axis=1) + margin
