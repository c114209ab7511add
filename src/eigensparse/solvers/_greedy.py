"""Greedy forward paths (handbook §3.2, Algorithms 2 and 3; Moghaddam et al. 2006).

Both methods grow a support one variable at a time from I₁ = {argmax Σ_ii} and
compute the whole path of cardinalities 1..s in a single run:

- ``greedy`` (full greedy, Alg. 2) adds the variable i maximizing λmax(Σ[I∪{i}, I∪{i}]);
- ``approx_greedy`` (Alg. 3) adds the variable maximizing (x_kᵀa_i)², a lower bound on
  that gain, with x_k = A_I z/‖A_I z‖ the leading left direction of the current support.

Everything is written with the rows Σ[I, :] (one new operator column per step), which
is the square-root form of the paper in disguise: Σ[I, i] = A_Iᵀa_i and, with z the
leading eigenvector of Σ[I, I] and λ its eigenvalue, (a_iᵀx)² = (Σ[i, I]z)²/λ. Data
operators compute a column as Aᵀ(A e_i) (O(np)); a precomputed covariance just slices
it, so no O(p³) square root is ever formed.

Full greedy needs, at every step, λmax of the bordered matrix [[Σ_II, b_i], [b_iᵀ, d_i]]
for every candidate i (b_i = Σ[I, i], d_i = Σ_ii). With Σ_II = ZΛZᵀ and c_i = Zᵀb_i its
largest eigenvalue is the largest root μ of the secular equation

    f(μ) = μ − d_i − Σ_j c_ij² / (μ − λ_j) = 0,      μ >= λ₁ = max_j λ_j,

on which f is increasing and concave. The 2×2 problems [[λ₁, |c_i1|], [|c_i1|, d_i]]
and [[λ₁, ‖c_i‖], [‖c_i‖, d_i]] give closed-form lower and upper bounds (a Rayleigh
quotient, and Σ_II ⪯ λ₁I); candidates whose upper bound is below the best lower bound
are discarded without further work, and the rest are solved by Newton's method started
at the lower bound (monotone, quadratically convergent for a concave increasing f),
vectorised over candidates, with a bisection safeguard. A step costs
O(kp + k²m + k³) for m surviving candidates, instead of (p−k) eigenvalue problems.
"""
from __future__ import annotations

from numbers import Integral

import numpy as np

from .._validation import Interval
from ..operators import Operator
from . import register
from ._common import polish
from ._simple import _check_problem

__all__ = ["greedy", "approx_greedy"]

_EPS = np.finfo(float).eps


def _top2(a, d, c):
    """Largest eigenvalue of [[a, c], [c, d]], elementwise."""
    return 0.5 * (a + d) + np.hypot(0.5 * (a - d), c)


def bordered_lmax(lam, Z, Bc, d, *, prune=False, maxiter=100):
    """Largest eigenvalues of the bordered matrices [[Σ_II, b_i], [b_iᵀ, d_i]].

    Parameters
    ----------
    lam : ndarray of shape (k,)
        Eigenvalues of the symmetric k×k matrix Σ_II.
    Z : ndarray of shape (k, k)
        Its orthonormal eigenvectors (columns, matching ``lam``).
    Bc : ndarray of shape (k, m)
        The borders b_i = Σ[I, i] of m candidates (columns).
    d : ndarray of shape (m,)
        The corners d_i = Σ_ii.
    prune : bool, default=False
        Skip candidates that provably cannot attain the maximum over the m candidates;
        their entries come back as ``-inf``. The argmax is unaffected.
    maxiter : int
        Newton/bisection iterations at most (convergence usually takes 3-6).

    Returns
    -------
    mu : ndarray of shape (m,)
        λmax of each bordered matrix (``-inf`` for pruned candidates).
    """
    lam = np.asarray(lam, dtype=float)
    Bc = np.asarray(Bc, dtype=float)
    d = np.asarray(d, dtype=float)
    m = d.size
    j1 = int(np.argmax(lam))
    lam1 = float(lam[j1])
    c1 = np.abs(Z[:, j1] @ Bc)
    cn = np.sqrt(np.einsum("km,km->m", Bc, Bc))
    lo = _top2(lam1, d, c1)  # Rayleigh quotient on span{(z₁, 0), (0, 1)}
    hi = np.maximum(_top2(lam1, d, cn), lo)  # Σ_II ⪯ λ₁ I
    mu = np.full(m, -np.inf)
    scale = max(abs(lam1), float(np.abs(d).max(initial=0.0)), np.finfo(float).tiny)
    if prune:
        best = lo.max()
        keep = np.flatnonzero(hi >= best - 64 * _EPS * scale)
    else:
        keep = np.arange(m)
    # candidates whose bracket is already tight need no iteration
    tight = hi[keep] - lo[keep] <= 4 * _EPS * scale
    mu[keep[tight]] = lo[keep[tight]]
    act = keep[~tight]
    if act.size == 0:
        return mu
    delta = lam1 - lam  # >= 0: all poles at t = -delta <= 0
    C2 = (Z.T @ Bc[:, act]) ** 2  # (k, a)
    g = d[act] - lam1
    t_lo = lo[act] - lam1
    t_hi = hi[act] - lam1
    x = t_lo.copy()
    idx = np.arange(act.size)  # positions (into act) still iterating
    tol = 4 * _EPS * scale
    slack = 64 * _EPS * scale
    best_t = (best - lam1) if prune else -np.inf
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(maxiter):
            xa = x[idx]
            r = xa[None, :] + delta[:, None]
            C2a = C2[:, idx]
            q = np.where(C2a > 0, C2a / r, 0.0)  # r = 0 with c ≠ 0 gives +inf
            fx = xa - g[idx] - q.sum(axis=0)
            fp = 1.0 + np.where(C2a > 0, q / r, 0.0).sum(axis=0)
            left = fx <= 0
            lo_b = np.where(left, np.maximum(t_lo[idx], xa), t_lo[idx])
            hi_b = np.where(left, t_hi[idx], np.minimum(t_hi[idx], xa))
            t_lo[idx], t_hi[idx] = lo_b, hi_b
            xn = xa - fx / fp
            bad = ~np.isfinite(xn) | (xn < lo_b) | (xn > hi_b)
            xn = np.where(bad, 0.5 * (lo_b + hi_b), xn)
            done = (np.abs(xn - xa) <= tol) | (hi_b - lo_b <= tol)
            x[idx] = xn
            if prune:  # drop candidates that fell below the best certified value
                best_t = max(best_t, float(t_lo.max()))
                done |= t_hi[idx] < best_t - slack
            idx = idx[~done]
            if idx.size == 0:
                break
    mu[act] = lam1 + x
    if prune:
        mu[act[t_hi < best_t - slack]] = -np.inf
    return mu


def _sym_eigh(B_rows, order):
    """Eigendecomposition of Σ[I, I] from the stored rows Σ[I, :]."""
    S = B_rows[:, order]
    S = 0.5 * (S + S.T)
    return np.linalg.eigh(S)


def _path(op: Operator, s: int, method: str, n_candidates: int = 1):
    """Shared greedy forward loop. Returns (order, path_variances)."""
    p = op.n_features
    d = op.diag()
    B = np.empty((s, p))  # rows Σ[i_j, :] in selection order
    order = np.empty(s, dtype=np.intp)
    chosen = np.zeros(p, dtype=bool)
    path_var = np.empty(s)
    i = int(np.argmax(d))
    for k in range(s):
        order[k] = i
        chosen[i] = True
        B[k] = op.columns([i])[:, 0]
        lam, Z = _sym_eigh(B[: k + 1], order[: k + 1])
        path_var[k] = lam[-1]
        if k + 1 == s:
            break
        cand = np.flatnonzero(~chosen)
        if method == "greedy":
            mu = bordered_lmax(lam, Z, B[: k + 1, cand], d[cand], prune=True)
            i = int(cand[np.argmax(mu)])
            continue
        # approximate greedy: (x_kᵀa_i)² = (Σ[i, I] z)² / λ
        if lam[-1] > 0:
            # (Σ[i, I] z/√λ)², not (Σ[i, I] z)²/λ: the square of a covariance entry
            # underflows where Σ's scale is below ~1e-154
            score = (Z[:, -1] @ B[: k + 1, cand] / np.sqrt(lam[-1])) ** 2
        else:  # the support carries no variance yet: fall back to Σ_ii
            score = d[cand].copy()
        if n_candidates == 1 or cand.size == 1:
            i = int(cand[np.argmax(score)])
        else:
            q = min(n_candidates, cand.size)
            top = np.sort(np.argsort(-score, kind="stable")[:q])
            mu = bordered_lmax(lam, Z, B[: k + 1, cand[top]], d[cand[top]], prune=True)
            i = int(cand[top[np.argmax(mu)]])
    return order, path_var


def _finish(op, order, path_var, method, s):
    supports = [np.sort(order[: k + 1]) for k in range(s)]
    return polish(
        op, order, method, n_iter=s - 1, converged=True,
        message=f"greedy path computed for cardinalities 1..{s}",
        info={"path_supports": supports, "path_variances": path_var,
              "selection_order": order.copy()},
    )


@register("greedy", cost="O(p·s⁴) over the path (an eigenproblem per candidate)", summary="Full greedy forward selection (handbook Alg. 2), whole path.")
def greedy(op: Operator, cardinality: int, *, random_state=None):
    """Full greedy forward selection (handbook Algorithm 2), whole path 1..s.

    Starting from I₁ = {argmax Σ_ii}, each step adds the variable i that maximizes
    λmax(Σ[I ∪ {i}, I ∪ {i}]), evaluated for all candidates at once through the
    secular equation of the bordered matrix (see the module docstring).

    Parameters
    ----------
    op : Operator
        Represents the p×p covariance Σ (any operator: only ``diag`` and ``columns``
        are used, one column per step).
    cardinality : int
        Target support size s, 1 <= s <= p; every cardinality up to s is computed.
    random_state : ignored
        The method is deterministic (ties go to the lower feature index).

    Returns
    -------
    ComponentResult
        ``loadings`` shape (p,), the leading eigenvector of Σ[I_s, I_s]; ``n_iter`` = s−1
        greedy steps. ``info["path_supports"]``: list of s sorted index arrays, the k-th
        of length k+1; ``info["path_variances"]``: ndarray (s,), λmax on each support
        (nondecreasing); ``info["selection_order"]``: ndarray (s,), variables in the
        order they were added.

    Notes
    -----
    Cost O(s·cost(column) + s²p + Σ_k k²m_k + s⁴) where m_k ≤ p is the number of
    candidates surviving the closed-form bounds at step k.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("greedy").func(S, 3)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 8], 2.475)
    >>> [len(I) for I in res.info["path_supports"]]  # the whole greedy path up to s
    [1, 2, 3]
    """
    s = _check_problem(op, cardinality, "greedy")
    order, path_var = _path(op, s, "greedy")
    return _finish(op, order, path_var, "greedy", s)


@register("approx_greedy", cost="one Σ·x product per step over the path",
          summary="Approximate greedy forward selection (handbook Alg. 3), whole path.",
          constraints={"n_candidates": [Interval(Integral, 1, None, closed="left")]})
def approx_greedy(op: Operator, cardinality: int, *, random_state=None, n_candidates: int = 1):
    """Approximate greedy forward selection (handbook Algorithm 3), whole path 1..s.

    Each step adds i_k = argmax_{i∉I} (x_kᵀa_i)², where x_k = A_I z/‖A_I z‖ and z is the
    leading eigenvector of Σ[I, I]; (x_kᵀa_i)² = (Σ[i, I] z)²/λmax(Σ[I, I]) needs only
    the stored rows Σ[I, :]. It is a lower bound on the gain of adding i.

    Parameters
    ----------
    op : Operator
        Represents the p×p covariance Σ.
    cardinality : int
        Target support size s, 1 <= s <= p.
    random_state : ignored
        Deterministic (ties go to the lower feature index).
    n_candidates : int, default=1
        The handbook's refinement: test the ``n_candidates`` variables of largest
        (x_kᵀa_i)² exactly (their true λmax(Σ[I∪{i}])) and add the best. 1 is plain
        Algorithm 3; p recovers the full greedy choice.

    Returns
    -------
    ComponentResult
        As :func:`greedy`: ``info["path_supports"]`` (list of s arrays),
        ``info["path_variances"]`` (ndarray (s,)), ``info["selection_order"]`` ((s,)).

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("approx_greedy").func(S, 3)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 8], 2.475)
    """
    s = _check_problem(op, cardinality, "approx_greedy")
    order, path_var = _path(op, s, "approx", int(n_candidates))
    return _finish(op, order, path_var, "approx_greedy", s)
