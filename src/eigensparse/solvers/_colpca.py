"""Scol-PCA and Mcol-PCA (He, Monteiro & Park, "An efficient algorithm for rank-1
sparse PCA").

Two stages:

1. *Active set.* Greedily build a ±1 vector x for problem (3) of the paper,
   max ‖Vx‖² s.t. ‖x‖₀ <= s, ‖x‖∞ <= 1, from x⁽⁰⁾ = 0: by identity (5),
   ‖V(x + αe_j)‖² = ‖Vx‖² + ‖v_j‖² + 2α v_jᵀVx, so the best step is

       j_k = argmax_{j∉J} ‖v_j‖² + 2|v_jᵀVx⁽ᵏ⁻¹⁾|,   α_k = sign(v_{j_k}ᵀVx⁽ᵏ⁻¹⁾)

   (α = +1 when that product is 0, e.g. at the first step). The vector g = VᵀVx is
   kept up to date incrementally (identity (7)): adding α e_j adds α·(column j of VᵀV).
   Mcol adds the c best indices of the criterion at once, each with its own sign, and
   updates g with a single product Σ·(Σ_i α_i e_{j_i}).
2. *Power stage.* Solve problem (2), max ‖Vx‖ on the support J, by the power method on
   Σ[J, J] started from the ±1 vector of stage 1.

Here Σ = VᵀV up to the positive factor 1/n (and the column scaling of a correlation
operator), which changes none of the argmax/sign decisions; ‖v_j‖² is ``op.diag()``
and the columns come from the operator's own products, so sparse data are centered
implicitly (VᵀV = WᵀW − nμμᵀ) and never densified. The reported variance is the exact
xᵀΣx of the returned unit vector.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._validation import Interval
from ..operators import Operator
from . import register
from ._common import make_result
from ._simple import _check_problem

__all__ = ["scol", "mcol"]

#: up to this support size the power stage forms Σ[J, J] explicitly
_BLOCK_MAX = 2000


def _sigma_times_sparse(op: Operator, idx: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """Σ·y for y = Σ_i vals_i e_{idx_i} (few nonzeros), by the cheapest route available.

    Data operators with ``data_columns``: Aᵀ(A_idx·vals), O(n·|idx| + cost(Aᵀ·)) — one
    pass over the data whatever |idx|. Operators with their own ``columns`` (e.g. a
    precomputed covariance, where it is slicing): Σ[:, idx]·vals. Otherwise one matvec.
    """
    if hasattr(op, "data_columns"):
        return np.asarray(op.rdot(op.data_columns(idx) @ vals), dtype=float).ravel()
    if idx.size == 1 or type(op).columns is not Operator.columns:
        return op.columns(idx) @ vals
    y = np.zeros(op.n_features)
    y[idx] = vals
    return op.matvec(y)


def _select(op: Operator, s: int, c: int):
    """Stage 1. Returns (order, signs, g, n_loops) with g = Σ x⁽ˢ⁾ (x⁽ˢ⁾ the ±1 vector)."""
    p = op.n_features
    nrm2 = op.diag()
    g = np.zeros(p)
    chosen = np.zeros(p, dtype=bool)
    order = np.empty(s, dtype=np.intp)
    signs = np.empty(s)
    k = loops = 0
    while k < s:
        cc = min(c, s - k)
        crit = nrm2 + 2.0 * np.abs(g)
        crit[chosen] = -np.inf
        if cc == 1:
            new = np.array([int(np.argmax(crit))])
        else:  # the cc best, best first; ties go to the lower index
            part = np.argpartition(-crit, cc - 1)[:cc] if cc < p else np.arange(p)
            thr = crit[part].min()
            pool = np.flatnonzero(crit >= thr)  # include every tie at the threshold
            new = pool[np.argsort(-crit[pool], kind="stable")[:cc]]
        alpha = np.sign(g[new])
        alpha[alpha == 0] = 1.0
        order[k:k + cc], signs[k:k + cc] = new, alpha
        chosen[new] = True
        g += _sigma_times_sparse(op, new, alpha)  # identity (7)
        k += cc
        loops += 1
    return order, signs, g, loops


def _power(op: Operator, J: np.ndarray, x0: np.ndarray, y0: np.ndarray, maxit: int, tol: float):
    """Stage 2: power iteration on Σ[J, J] from x0 (unit), with y0 = Σ[J, J]·x0 given.

    Returns (x, n_iter, converged) with x unit-norm of shape (|J|,).
    """
    if maxit == 0:
        return x0, 0, True
    if J.size <= _BLOCK_MAX:
        M = op.block(J)
        mv = M.__matmul__
    else:
        sub = op.restrict(J)
        mv = sub.matvec
    x, y = x0, y0
    for it in range(1, maxit + 1):
        ny = np.linalg.norm(y)
        if ny == 0:  # Σ[J, J]·x = 0: nothing to iterate on
            return x, it, True
        xn = y / ny
        if np.linalg.norm(xn - x) <= tol:
            return xn, it, True
        x = xn
        if it < maxit:
            y = mv(x)
    return x, maxit, False


def _colpca(op, s, c, power_iter, tol, method):
    order, signs, g, loops = _select(op, s, c)
    J = np.sort(order)
    sgn = np.zeros(op.n_features)
    sgn[order] = signs
    x0 = sgn[J] / np.sqrt(s)
    y0 = g[J] / np.sqrt(s)  # Σ[J, J] x0: g = Σ x⁽ˢ⁾ and x⁽ˢ⁾ lives on J
    z, n_iter, ok = _power(op, J, x0, y0, power_iter, tol)
    x = np.zeros(op.n_features)
    x[J] = z
    if power_iter == 0:
        msg = f"{loops} selection loop(s); power stage skipped (power_iter=0)"
    elif ok:
        msg = f"{loops} selection loop(s); power method converged in {n_iter} iteration(s)"
    else:
        msg = (f"{loops} selection loop(s); power method stopped at power_iter={power_iter} "
               f"before reaching tol={tol:g}")
    return make_result(op, x, method, n_iter=n_iter, converged=ok, message=msg,
                       info={"selection_order": order, "signs": signs,
                             "n_selection_loops": loops, "n_per_step": c})


_POWER_CONSTRAINTS = {"power_iter": [Interval(Integral, 0, None, closed="left")],
                      "tol": [Interval(Real, 0, None, closed="left")]}


@register("scol", cost="O(s·p) column products, then power iterations", summary="Scol-PCA (He-Monteiro-Park): one column per step, then power method.",
          constraints=_POWER_CONSTRAINTS)
def scol(op: Operator, cardinality: int, *, random_state=None, power_iter: int = 100,
         tol: float = 1e-10):
    """Scol-PCA (He, Monteiro & Park, Algorithm 1): greedy ±1 column selection, then
    the power method on the chosen support.

    Parameters
    ----------
    op : Operator
        Represents the p×p covariance Σ (only ``diag``, one column per step and
        ``block``/``restrict`` on the support are used).
    cardinality : int
        Target support size s, 1 <= s <= p.
    random_state : ignored
        Deterministic (ties go to the lower feature index).
    power_iter : int, default=100
        Maximum power iterations on Σ[J, J] (0 skips the stage and returns the
        normalized ±1 vector of the selection stage).
    tol : float, default=1e-10
        Stop when ‖x_{t+1} − x_t‖₂ <= tol.

    Returns
    -------
    ComponentResult
        ``loadings`` shape (p,), unit norm, supported on J (shape (s,)); ``variance`` the
        exact xᵀΣx; ``n_iter`` the power iterations. ``info["selection_order"]`` (s,),
        ``info["signs"]`` (s,) the α_k, ``info["n_selection_loops"]``.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("scol").func(S, 3, random_state=0)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 8], 2.475)
    """
    s = _check_problem(op, cardinality, "scol")
    return _colpca(op, s, 1, int(power_iter), float(tol), "scol")


@register("mcol", cost="O(s·p) column products, then power iterations", summary="Mcol-PCA (He-Monteiro-Park): c columns per step, then power method.",
          constraints={**_POWER_CONSTRAINTS,
                       "n_per_step": [None, Interval(Integral, 1, None, closed="left")]})
def mcol(op: Operator, cardinality: int, *, random_state=None, n_per_step: int | None = None,
         power_iter: int = 100, tol: float = 1e-10):
    """Mcol-PCA (He, Monteiro & Park, §2.3): like :func:`scol` but adds the ``c`` best
    indices of the selection criterion per loop (⌈s/c⌉ loops, one operator product each).

    Parameters
    ----------
    op : Operator
        Represents the p×p covariance Σ.
    cardinality : int
        Target support size s, 1 <= s <= p.
    random_state : ignored
        Deterministic.
    n_per_step : int, optional
        c, the indices added per loop; default max(1, s // 10) (the paper's c = s/10,
        at most about 10 loops). 1 gives Scol-PCA.
    power_iter : int, default=100
        Maximum power iterations on Σ[J, J] (0 skips the stage).
    tol : float, default=1e-10
        Stop when ‖x_{t+1} − x_t‖₂ <= tol.

    Returns
    -------
    ComponentResult
        As :func:`scol`, with ``info["n_per_step"]`` = c.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("mcol").func(S, 3, random_state=0)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 8], 2.475)
    """
    s = _check_problem(op, cardinality, "mcol")
    c = max(1, s // 10) if n_per_step is None else int(n_per_step)
    return _colpca(op, s, c, int(power_iter), float(tol), "mcol")
