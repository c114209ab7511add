"""The default method ``"auto"``: a small portfolio that reaches the optimum on small
problems and stays fast on large ones.

What it does (one component, exact cardinality s), and why:

1. **Working set.** W = every feature when p <= ``DENSE_FEATURES`` (256), else the
   ``max(256, 8s)`` features of largest variance together with the warm-start support. The
   dense block B = Σ[W, W] comes from one ``op.block`` call (a slice when the operator
   layer has formed the Gram matrix, see ``eigensparse.operators._gram``).
2. **Warm start.** The approximate greedy path (handbook Alg. 3; ``WARM_START``): good on
   spiked data, it is one of the starts, so the result is at least as good; it costs
   O(s) columns and s small eigendecompositions (the full greedy path costs about 10×
   more and did not change any result of the table below).
3. **Batched multistart truncated power** on B: the greedy solution, the classic
   top-variance start, ``e_i`` for the features of largest column energy ‖B[:, i]‖
   (which breaks the ties of a correlation matrix's unit diagonal), and Gaussian
   starts, all advanced as one BLAS-3 block ``B·X`` (converged columns leave the
   block). The number of starts N scales with the problem under a fixed flop budget:
   N = clip(``START_FLOPS`` / m², 16, 256) for a working set of m features (256 starts
   up to m ≈ 25, 64 at m = 50, 16 from m = 100); random starts come from
   ``random_state`` only, so the result is deterministic.
4. **Swap polish.** On the best support, 1-swap local search: a lower bound on the
   variance after each exchange (support feature i out, feature j in) is the top
   eigenvalue of a 2×2 matrix (the old eigenvector without i, plus e_j), for all s·m
   exchanges in O(s·m); the ``SWAP_EXACT`` best are evaluated exactly (λmax of the s×s
   blocks in one stacked ``eigvalsh``) and the best improving one taken, until none
   improves.
   Truncated power fixed points are often one swap away from the optimum on
   correlation matrices; this step catches those.
5. **Full problem.** For p > ``DENSE_FEATURES`` one product Σx checks that the answer
   on W is a fixed point of the full iteration (no feature outside W would enter);
   otherwise the best support found on W and the warm start's start
   :func:`~eigensparse.solvers.tpower` on the full operator (its working sets certify
   that no feature outside could enter, or move on). Finally the loadings are the
   leading eigenvector of Σ[I, I] (``polish``).

Measured on 297 small problems (p 12–22; Wishart, spiked, correlation matrices of
breast cancer, wine, diabetes, pitprops, leukemia, MNIST and 20 newsgroups subsets;
s ∈ {3, 5, 8}) against ``exhaustive``: see :func:`auto`'s docstring for the table.
The 2-start ``tpower`` (the previous default) reached the optimum on 181 of them.
"""
from __future__ import annotations

import numpy as np

from .._linalg import top_eigh
from .._validation import Interval, validate_params
from ..operators import Covariance, Operator
from . import register
from .am import hard_threshold, tpower
from ._common import check_random_state, make_result, polish_loadings
from ._greedy import _path
from ._simple import _check_problem

__all__ = ["auto"]

#: the warm start: the approximate greedy path (handbook Alg. 3; "greedy" for Alg. 2)
WARM_START = "approx"
#: the whole problem is the working set up to this many features
DENSE_FEATURES = 256
#: working-set size beyond DENSE_FEATURES: max(WORKING_SET_MIN, WORKING_SET_PER_CARD·s)
WORKING_SET_MIN = 256
WORKING_SET_PER_CARD = 8
#: starts N = clip(START_FLOPS / m², MIN_STARTS, MAX_STARTS) for a working set of m features
START_FLOPS = 160_000
MIN_STARTS = 16
MAX_STARTS = 256
#: exchanges evaluated exactly per round of the swap search (those of best lower bound):
#: SWAP_EXACT, fewer for large s (at most SWAP_FLOPS / s³, at least 4)
SWAP_EXACT = 32
SWAP_FLOPS = 200_000
#: at most this many swap rounds
SWAP_ROUNDS = 64
#: distinct multistart supports compared (with the warm start's) before the swap search
N_REFINE = 4


def _n_starts(m: int) -> int:
    return int(min(MAX_STARTS, max(MIN_STARTS, START_FLOPS // max(m * m, 1))))


def _working_set(op: Operator, d: np.ndarray, s: int) -> tuple[np.ndarray, np.ndarray | None]:
    """The working set W (sorted feature indices) and, when it was needed to build W, the
    warm-start support in feature indices (else None: it is computed on Σ[W, W])."""
    p = op.n_features
    if p <= DENSE_FEATURES:
        return np.arange(p), None
    m = min(p, max(WORKING_SET_MIN, WORKING_SET_PER_CARD * s))
    top = np.argsort(-d, kind="stable")[:m]
    warm = np.sort(_path(op, s, WARM_START)[0])
    return np.union1d(top, warm), warm


def _starts(B: np.ndarray, s: int, greedy_support: np.ndarray, N: int, rng) -> np.ndarray:
    """N starting points on the working set (columns of an m×N matrix)."""
    m = B.shape[0]
    X0 = np.zeros((m, N))
    X0[greedy_support, 0] = 1.0
    if N > 1:
        X0[np.argsort(-np.diag(B), kind="stable")[:s], 1] = 1.0
    n_coord = min(m, (N - 2) // 2)
    energy = np.einsum("ij,ij->j", B, B)
    coords = np.argsort(-energy, kind="stable")[:n_coord]
    X0[coords, 2 + np.arange(n_coord)] = 1.0
    n_rand = N - 2 - n_coord
    if n_rand > 0:
        X0[:, N - n_rand:] = rng.standard_normal((m, n_rand))
    return X0[:, :N]


def _batched_tpower(B: np.ndarray, X: np.ndarray, s: int, max_iter: int, tol: float):
    """Truncated power iterations ``x ← T_s(Bx)/‖T_s(Bx)‖`` for every column of X at
    once (one BLAS-3 product per iteration). A column leaves the block when its support
    did not change and its variance rose by at most ``tol`` × itself. Returns the final
    iterates (m×N) and their variances xᵀBx (N,)."""
    T, _ = hard_threshold(X, s)
    Xa = T / np.linalg.norm(T, axis=0)
    out = np.empty_like(Xa)
    f = np.full(Xa.shape[1], -np.inf)
    active = np.arange(Xa.shape[1])
    for _ in range(max_iter):
        W = B @ Xa
        fa = np.einsum("ij,ij->j", Xa, W)
        T, _ = hard_threshold(W, s)
        nrm = np.linalg.norm(T, axis=0)
        T /= np.where(nrm > 0, nrm, 1.0)
        done = (fa - f[active] <= tol * np.abs(fa)) & np.all((T != 0) == (Xa != 0), axis=0)
        f[active] = fa
        out[:, active[done]] = T[:, done]
        Xa, active = T[:, ~done], active[~done]
        if active.size == 0:
            break
    out[:, active] = Xa
    return out, np.einsum("ij,ij->j", out, B @ out)


def _support_values(B: np.ndarray, supports: np.ndarray) -> np.ndarray:
    """λmax(B[I, I]) for each row I of ``supports`` (one stacked eigvalsh)."""
    blocks = B[supports[:, :, None], supports[:, None, :]]
    return np.linalg.eigvalsh(blocks)[:, -1]


def _swap_bounds(B: np.ndarray, support: np.ndarray, lam: float, z: np.ndarray) -> np.ndarray:
    """Lower bounds on λmax after swapping ``support[i]`` for feature ``j`` (s×m array).

    The bound is the best vector in span{u, e_j}, u = z without entry i (z the leading
    eigenvector of B[I, I], λ its eigenvalue): the top eigenvalue of the 2×2 matrix
    [[a_i, b_ij], [b_ij, B_jj]] with a_i = uᵀB u/‖u‖², b_ij = B[j, I∖i]·u/‖u‖.
    Costs O(s·m) for all swaps at once.
    """
    zi2 = np.minimum(z * z, 1.0 - 1e-12)
    a = (lam * (1.0 - 2.0 * zi2) + zi2 * np.diag(B)[support]) / (1.0 - zi2)  # (s,)
    g = B[:, support] @ z  # (m,)
    b = (g[None, :] - B[support, :] * z[:, None]) / np.sqrt(1.0 - zi2)[:, None]  # (s, m)
    c = np.diag(B)[None, :]
    half = 0.5 * (a[:, None] - c)
    bound = 0.5 * (a[:, None] + c) + np.sqrt(half * half + b * b)
    bound[:, support] = -np.inf
    return bound


def _swap_search(B: np.ndarray, support: np.ndarray) -> tuple[np.ndarray, float, int]:
    """1-swap local search from ``support`` on B: the ``SWAP_EXACT`` exchanges of best
    lower bound (:func:`_swap_bounds`) are evaluated exactly; the best improving one is
    taken, until none improves."""
    m, s = B.shape[0], support.size
    support = np.sort(support)
    lam, z = top_eigh(B[np.ix_(support, support)])
    if s == m or s == 1:
        return support, lam, 0
    rounds = 0
    for rounds in range(1, SWAP_ROUNDS + 1):
        bound = _swap_bounds(B, support, lam, z)
        n_exact = min(SWAP_EXACT, max(4, SWAP_FLOPS // s**3), s * (m - s))
        flat = np.argsort(-bound, axis=None, kind="stable")[:n_exact]
        pos, cand = np.unravel_index(flat, bound.shape)
        trial = np.repeat(support[None], flat.size, axis=0)
        trial[np.arange(flat.size), pos] = cand
        vals = _support_values(B, trial)
        best = int(np.argmax(vals))
        if vals[best] <= lam * (1 + 1e-12) + 1e-300:
            break
        support = np.sort(trial[best])
        lam, z = top_eigh(B[np.ix_(support, support)])
    return support, lam, rounds


def _is_fixed_point(op: Operator, support: np.ndarray, s: int) -> bool:
    """True when the polished vector x on ``support`` is a fixed point of the full
    truncated power iteration (the s largest |(Σx)_i| are the support): no feature
    outside the working set would enter. One product with Σ."""
    x, _ = polish_loadings(op, support)
    g = np.abs(op.matvec(x))
    thr = np.min(g[support])
    g[support] = -np.inf
    return bool(np.max(g) < thr)


def _distinct_supports(X: np.ndarray, f: np.ndarray, s: int, limit: int) -> list[np.ndarray]:
    """The supports of the ``limit`` best distinct columns of X (by objective)."""
    out, seen = [], set()
    for j in np.argsort(-f, kind="stable"):
        sup = np.sort(np.argsort(-np.abs(X[:, j]), kind="stable")[:s])
        key = sup.tobytes()
        if key not in seen:
            seen.add(key)
            out.append(sup)
            if len(out) == limit:
                break
    return out


@register("auto", summary="Default: greedy warm start, batched multistart truncated power, "
                          "1-swap polish (reaches the optimum on small problems).")
def auto(op: Operator, cardinality, *, n_starts=None, max_iter: int = 200, tol: float = 1e-4,
         swap: bool = True, random_state=None):
    """The default sparse PCA method: a greedy + multistart + swap portfolio.

    Parameters
    ----------
    op : Operator
        Represents the p×p covariance Σ (any operator: only ``diag``, ``block`` and,
        for p > 256, the products of :func:`~eigensparse.solvers.tpower` are used).
    cardinality : int
        Exact support size s, 1 <= s <= p.
    n_starts : int >= 1 or None
        Starting points of the batched truncated power stage; None scales them with
        the working-set size m: clip(1.6·10⁵/m², 16, 256).
    max_iter : int >= 1, default=200
        Iterations per start.
    tol : float >= 0, default=1e-4
        A start stops when its support is stable and its variance rose by at most
        ``tol`` × itself in one iteration.
    swap : bool, default=True
        Run the 1-swap local search on the best support.
    random_state : None, int or Generator
        Seeds the Gaussian starts; the same value gives the same result.

    Returns
    -------
    ComponentResult
        ``loadings`` (p,) with exactly s nonzeros (unless Σ[I, I] is reducible), the
        leading eigenvector of Σ[I, I]; ``variance`` λmax(Σ[I, I]). ``info``:
        ``n_starts``, ``working_set`` (m), ``warm_start_variance``, ``multistart_variance``
        (best start, on the working set), ``swap_rounds``, ``swap_gain`` (variance
        added by the swap search), ``refined`` (full-problem tpower ran: the working
        set's answer was not a fixed point of the full iteration).

    Notes
    -----
    See the module docstring for the stages and their reasons. Measured against
    ``exhaustive`` on 297 small problems (three random draws of 33 matrices: 6 Wishart,
    6 spiked, 21 correlation or covariance matrices of subsets of real data — breast
    cancer, wine, diabetes with products, pitprops, leukemia, MNIST, 20 newsgroups —
    each with s ∈ {3, 5, 8}; p from 12 to 22), share of problems where the method
    reaches the optimum, and mean time per problem (2 shared cores under load: compare
    within the column only):

    ==================================  ==========  ================
    method                              optimal     ms per problem
    ==================================  ==========  ================
    ``approx_greedy``                   161/297     2.4
    ``tpower`` (2 starts)               181/297     21.5
    ``greedy``                          185/297     7.2
    ``am`` (16 starts)                  281/297     19.4
    ``am`` (64 starts)                  297/297     32.4
    ``auto`` (this method)              297/297     27.8
    ==================================  ==========  ================

    Without the swap search and with 8 starts ``auto`` misses 12 of these; with the swap
    search and 8 starts, 2: the many starts do most of the work on small problems, the
    swap search is the cheap safety net for the larger ones, where starts are fewer.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("auto").func(S, 6, random_state=0)
    >>> best = get_solver("exhaustive").func(S, 6)
    >>> res.support.tolist(), bool(abs(res.variance - best.variance) < 1e-9)
    ([0, 1, 6, 7, 8, 9], True)
    """
    s = _check_problem(op, cardinality, "auto")
    p = int(op.n_features)
    validate_params({"n_starts": n_starts, "max_iter": max_iter, "tol": tol, "swap": swap},
                    {"n_starts": [None, Interval("int", 1, None)],
                     "max_iter": [Interval("int", 1, None)], "tol": [Interval("real", 0, None)],
                     "swap": [bool]}, where="auto")
    rng = check_random_state(random_state)
    d = np.asarray(op.diag(), dtype=float)
    W, warm = _working_set(op, d, s)
    m = W.size
    B = np.asarray(op.block(W), dtype=float)
    B = 0.5 * (B + B.T)
    if warm is None:
        sub = Covariance.__new__(Covariance)  # B is symmetric by construction: no checks
        sub.S, sub.n_features, sub.n_samples, sub.mean_, sub.scale_ = B, m, None, None, None
        warm = np.sort(_path(sub, s, WARM_START)[0])
    else:
        warm = np.searchsorted(W, warm)
    N = _n_starts(m) if n_starts is None else int(n_starts)
    X0 = _starts(B, s, warm, N, rng)
    X, f = _batched_tpower(B, X0, s, max_iter, tol)
    multi_value = float(f.max())
    cands = _distinct_supports(X, f, s, N_REFINE) + [warm]
    vals = _support_values(B, np.array(cands))
    support, value = cands[int(np.argmax(vals))], float(vals.max())
    rounds, before = 0, value
    if swap and s < m:
        support, value, rounds = _swap_search(B, support)
    support = W[support]
    refined = p > m and not _is_fixed_point(op, support, s)
    if refined:  # move on in the full problem from the best and warm supports
        starts = np.zeros((p, 2))
        starts[support, 0] = 1.0
        starts[W[warm], 1] = 1.0
        support = tpower(op, s, init=starts, random_state=0).support
    z, lam = polish_loadings(op, support)
    info = {"n_starts": N, "working_set": m, "warm_start_variance": float(vals[-1]),
            "multistart_variance": multi_value, "swap_rounds": rounds,
            "swap_gain": value - before, "refined": refined}
    return make_result(op, z, "auto", variance=lam, n_iter=int(rounds), converged=True,
                       message=f"auto: greedy + {N} starts on {m} features + {rounds} swap rounds",
                       info=info)
