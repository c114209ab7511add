"""The default method ``"auto"``: a small portfolio that reaches the optimum on small
problems and stays fast on large ones.

What it does (one component, exact cardinality s), and why (s = 1 is solved exactly: the
feature of largest variance):

1. **Working set.** W = every feature when p <= ``DENSE_FEATURES`` (256), else the
   ``max(256, 8s)`` features of largest variance together with the warm-start support. The
   dense block B = Σ[W, W] comes from one ``op.block`` call (a slice when the operator
   layer has formed the Gram matrix, see ``eigensparse.operators._gram``).
2. **Warm start.** The approximate greedy path (handbook Alg. 3; ``WARM_START``): good on
   spiked data, it is one of the starts, so the result is at least as good. On a matrix
   held in memory (B, a :class:`Covariance` or a formed Gram matrix) it runs compiled
   (:func:`~eigensparse.solvers._auto_kernels.approx_greedy_order`): each step's leading
   eigenvector comes from a few Lanczos steps warm-started at the previous one, so the
   path costs O(s²·m) instead of s eigendecompositions (the same order as the
   operator version, 2–20× faster); otherwise O(s) columns of the operator. The full
   greedy path costs about 10× more and did not change any result of the table below.
   Starting vectors passed as ``init`` take the warm start's place (the refinement of a
   deflation chain passes the component being re-solved).
3. **Multistart truncated power** on B: the greedy solution, the classic
   top-variance start, ``e_i`` for the features of largest column energy ‖B[:, i]‖
   (which breaks the ties of a correlation matrix's unit diagonal), and Gaussian
   starts truncated to s entries. Every iterate is s-sparse, so one step costs O(m·s)
   (s rows of B scaled and added, then an O(m) selection), not the O(m²) of a dense
   product: the compiled loop
   (:func:`~eigensparse.solvers._auto_kernels.tpower_from_supports`) is 4–13× faster
   than one BLAS-3 product per step for all starts (MNIST m = 400, s = 50: 4×; 20
   newsgroups m = 100, s = 5–21: 10–13×). The number of starts N scales
   with the problem under a fixed flop budget:
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
The 2-start ``tpower`` (the previous default) reached the optimum on 194 of them.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._linalg import top_eigh
from .._validation import Interval, InvalidParameterError, check_start_vectors
from ..operators import Covariance, Operator
from . import register
from .am import tpower
from ._common import check_random_state, make_result, polish_loadings
from ._auto_kernels import approx_greedy_order, tpower_from_supports
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
#: starts at most when ``init`` is given (and ``n_starts`` is not): the refinement's warm
#: re-solves; 16 or 32 gave the same totals as the full count on 60 multi-component
#: problems (breast cancer, wine, digits, 20 newsgroups, MNIST; s 3–10, k 3 and 5)
WARM_STARTS = 16
#: exchanges evaluated exactly per round of the swap search (those of best lower bound):
#: SWAP_EXACT, fewer for large s (at most SWAP_FLOPS / s³, at least 4; 50 000 instead of
#: 200 000 changed no result on 48 problems with s in {12, 20, 30}, 4% faster on 20news)
SWAP_EXACT = 32
SWAP_FLOPS = 50_000
#: at most this many swap rounds
SWAP_ROUNDS = 64
#: distinct multistart supports compared (with the warm start's) before the swap search
N_REFINE = 4


def _n_starts(m: int) -> int:
    return int(min(MAX_STARTS, max(MIN_STARTS, START_FLOPS // max(m * m, 1))))


def _dense_matrix(op: Operator):
    """The p×p matrix of ``op`` (C-contiguous) when it is already held in memory (a
    :class:`Covariance`, or an operator whose Gram matrix the operator layer formed),
    else None."""
    if isinstance(op, Covariance):
        S = op.S
    else:
        gram = getattr(op, "gram", None)
        S = gram() if callable(gram) else None
    return None if S is None else np.ascontiguousarray(S, dtype=float)


def _working_set(op: Operator, d: np.ndarray, s: int, given=None) -> tuple[np.ndarray, np.ndarray | None]:
    """The working set W (sorted feature indices) and, when it was needed to build W, the
    warm-start support in feature indices (else None: it is computed on Σ[W, W]).
    ``given`` (a list of supports from ``init``) replaces the warm start: the first is
    the warm support, and all of them join W."""
    p = op.n_features
    if p <= DENSE_FEATURES:
        return np.arange(p), (None if given is None else given[0])
    m = min(p, max(WORKING_SET_MIN, WORKING_SET_PER_CARD * s))
    top = np.argsort(-d, kind="stable")[:m]
    if given is not None:
        return np.union1d(top, np.concatenate(given)), given[0]
    S = _dense_matrix(op)
    warm = np.sort(approx_greedy_order(S, s) if S is not None else _path(op, s, WARM_START)[0])
    return np.union1d(top, warm), warm


def _init_supports(init, p: int, s: int) -> tuple[list, np.ndarray]:
    """The supports (s largest |entries|, ties to the lower index; sorted) of the columns
    of ``init`` (shape (p,) or (p, n)), and the columns as a (p, n) array."""
    if isinstance(init, str):
        raise InvalidParameterError(
            f"auto: parameter 'init' must be None or a numeric array of shape (p,) or (p, n) "
            f"with p={p}; got {init!r}.")
    A = check_start_vectors(init, p, valid="None or a numeric array")
    rank = np.arange(p)
    return [np.sort(np.lexsort((rank, -np.abs(A[:, c])))[:s]) for c in range(A.shape[1])], A


def _start_supports(B: np.ndarray, s: int, greedy_support: np.ndarray, N: int, rng):
    """N s-sparse starting points on the working set, as ``(supports, values)`` of
    shape (N, s) each (supports sorted; a start with fewer nonzeros carries zero values
    on filler features): the greedy support, the top-variance support, ``e_i`` for the
    features of largest column energy ‖B[:, i]‖, and Gaussian vectors truncated to their
    s largest entries."""
    m = B.shape[0]
    sup = np.empty((N, s), dtype=np.int64)
    val = np.ones((N, s))
    sup[0] = greedy_support
    if N > 1:
        sup[1] = np.sort(np.argsort(-np.diag(B), kind="stable")[:s])
    n_coord = max(0, min(m, (N - 2) // 2))
    if n_coord:  # e_i padded with zero-valued filler features: [0, s) if i < s, else [0, s-1) ∪ {i}
        energy = np.einsum("ij,ij->j", B, B)
        coords = np.argsort(-energy, kind="stable")[:n_coord]
        rows = np.tile(np.arange(s), (n_coord, 1))
        late = coords >= s
        rows[late, s - 1] = coords[late]
        sup[2:2 + n_coord] = rows
        val[2:2 + n_coord] = rows == coords[:, None]
    n_rand = N - 2 - n_coord
    if n_rand > 0:
        G = rng.standard_normal((m, n_rand)).T
        top = (np.sort(np.argpartition(-np.abs(G), s - 1, axis=1)[:, :s], axis=1) if s < m
               else np.tile(np.arange(m), (n_rand, 1)))
        sup[N - n_rand:] = top
        val[N - n_rand:] = np.take_along_axis(G, top, axis=1)
    return sup, val


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


def _best_flat(a: np.ndarray, n: int) -> np.ndarray:
    """Flat indices of the ``n`` largest entries of ``a``, largest first (ties: lower
    index first); a partial selection, then a sort of those n only."""
    flat = a.ravel()
    if n < flat.size:
        part = np.argpartition(-flat, n - 1)[:n]
        thr = flat[part].min()
        above = np.flatnonzero(flat > thr)
        tied = np.flatnonzero(flat == thr)[: n - above.size]
        part = np.concatenate([above, tied])
    else:
        part = np.arange(flat.size)
    return part[np.lexsort((part, -flat[part]))]


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
        flat = _best_flat(bound, n_exact)
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


def _distinct_supports(supports: np.ndarray, f: np.ndarray, limit: int) -> list[np.ndarray]:
    """The ``limit`` best distinct rows of ``supports`` (sorted), best objective first."""
    out, seen = [], set()
    for j in np.argsort(-f, kind="stable"):
        key = supports[j].tobytes()
        if key not in seen:
            seen.add(key)
            out.append(supports[j])
            if len(out) == limit:
                break
    return out


@register("auto", cost="O(m·s) per truncated power step and start (compiled), m <= max(256, 8s)",
          summary="Default: greedy warm start, multistart truncated power, 1-swap polish "
                  "(reaches the optimum on small problems).",
          constraints={"n_starts": [None, Interval(Integral, 1, None, closed="left")],
                       "max_iter": [Interval(Integral, 1, None, closed="left")],
                       "tol": [Interval(Real, 0, None, closed="left")], "swap": ["boolean"]},
          warm_start=True, bounded=True, partners=("two_start_tpower",))
def auto(op: Operator, cardinality, *, n_starts=None, max_iter: int = 200, tol: float = 1e-4,
         swap: bool = True, init=None, random_state=None):
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
    init : None or array of shape (p,) or (p, n), default=None
        Starting vectors to use instead of the approximate-greedy warm start (which is
        then not computed): the support of each column's s largest entries is a start,
        the first one in the warm start's place (a candidate of its own); with
        ``n_starts=None`` the other starts are then at most ``WARM_STARTS`` (16). The
        refinement of a deflation chain passes the current component here, so a re-solve
        starts from the solution it may replace.
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
    reaches the optimum, and mean time per problem (one thread, same run, one core
    of a 2-core machine; the compiled kernels of this method are already loaded):

    ==================================  ==========  ================
    method                              optimal     ms per problem
    ==================================  ==========  ================
    ``approx_greedy``                   178/297     0.31
    ``tpower`` (2 starts)               194/297     3.6
    ``greedy``                          192/297     1.6
    ``am`` (16 starts)                  278/297     5.9
    ``am`` (64 starts)                  293/297     7.6
    ``auto`` (this method)              297/297     1.5
    ==================================  ==========  ================

    Without the swap search and with 8 starts ``auto`` misses 20 of these; with the swap
    search and 8 starts, 3: the many starts do most of the work on small problems, the
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
    rng = check_random_state(random_state)
    given, A = (None, None) if init is None else _init_supports(init, p, s)
    if s == 1:  # exact: the feature of largest variance (ties: the lowest index)
        i = int(np.argmax(np.asarray(op.diag(), dtype=float)))
        z, lam = polish_loadings(op, [i])
        return make_result(op, z, "auto", variance=lam, n_iter=0, converged=True,
                           message="auto: s = 1, the feature of largest variance (exact)",
                           info={"n_starts": 0, "working_set": 1, "exact": True})
    W, B, warm = _working_block(op, s, given)
    m = W.size
    N = _n_starts(m) if n_starts is None else int(n_starts)
    if given is not None and n_starts is None:  # a warm re-solve explores less
        N = min(N, WARM_STARTS)
    sup0, val0 = _start_supports(B, s, warm, N, rng)
    if given is not None:  # the given vectors' own entries on their supports
        val0[0] = A[given[0], 0]
        extra = [np.searchsorted(W, g) for g in given[1:]]
        if extra:
            sup0 = np.vstack([sup0, extra])
            val0 = np.vstack([val0, [A[g, c] for c, g in enumerate(given[1:], start=1)]])
    sups, _, f, _ = tpower_from_supports(B, sup0, val0, max_iter, tol)
    multi_value = float(f.max())
    cands = _distinct_supports(sups, f, N_REFINE) + [warm]
    vals = _support_values(B, np.array(cands))
    support, value = cands[int(np.argmax(vals))], float(vals.max())
    rounds, before = 0, value
    if swap and s < m:
        support, value, rounds = _swap_search(B, support)
    support, refined = _on_full_problem(op, W, support, warm)
    z, lam = polish_loadings(op, support)
    info = {"n_starts": N, "working_set": m, "warm_start_variance": float(vals[-1]),
            "multistart_variance": multi_value, "swap_rounds": rounds,
            "swap_gain": value - before, "refined": refined}
    return make_result(op, z, "auto", variance=lam, n_iter=int(rounds), converged=True,
                       message=f"auto: greedy + {N} starts on {m} features + {rounds} swap rounds",
                       info=info)


def _working_block(op: Operator, s: int, given=None):
    """``(W, B, warm)``: the working set W (sorted feature ids), its symmetric
    C-contiguous block B = Σ[W, W], and the approximate-greedy support at cardinality s
    (positions in W), or ``given[0]`` when supports are given."""
    d = np.asarray(op.diag(), dtype=float)
    W, warm = _working_set(op, d, s, given)
    B = np.asarray(op.block(W), dtype=float)
    B = np.ascontiguousarray(0.5 * (B + B.T))
    if warm is None:
        warm = np.sort(approx_greedy_order(B, s))
    else:
        warm = np.searchsorted(W, warm)
    return W, B, warm


def _on_full_problem(op: Operator, W: np.ndarray, support: np.ndarray, warm: np.ndarray):
    """The best support found on the working set W (positions in W) as feature ids, and
    whether the full problem had to be revisited: when W is not every feature and the
    answer is not a fixed point of the full truncated power iteration,
    :func:`~eigensparse.solvers.tpower` moves on from it and from ``warm``."""
    p = int(op.n_features)
    support = W[support]
    refined = p > W.size and not _is_fixed_point(op, support, support.size)
    if refined:
        starts = np.zeros((p, 2))
        starts[support, 0] = 1.0
        starts[W[warm], 1] = 1.0
        support = tpower(op, support.size, init=starts, random_state=0).support
    return support, refined


def two_start_tpower(op: Operator, cardinality, *, max_iter: int = 200, tol: float = 1e-4,
                     init=None, random_state=None):
    """:func:`~eigensparse.solvers.tpower`'s default, run by :func:`auto`'s machinery:
    truncated power from its two starts (``e_i`` at the largest variance, and the
    approximate-greedy loadings) on auto's working set, then auto's full-problem check
    and polish. The partner chain of the default method's refinement
    (:mod:`eigensparse.multi._refine`) uses it: tpower's components are less greedy than
    auto's and can leave more variance to later ones.

    Parameters
    ----------
    op : Operator
    cardinality : int
    max_iter, tol, init : as in :func:`auto` (``init``'s first column replaces the
        approximate-greedy start)
    random_state : ignored (deterministic)

    Returns
    -------
    ComponentResult
        method ``"tpower"``; the better of the two fixed points, polished.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> from eigensparse.solvers._auto import two_start_tpower
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> two_start_tpower(S, 3).support.tolist(), get_solver("tpower").func(S, 3).support.tolist()
    ([0, 1, 8], [0, 1, 8])
    """
    s = _check_problem(op, cardinality, "tpower")
    given, A = (None, None) if init is None else _init_supports(init, int(op.n_features), s)
    W, B, warm = _working_block(op, s, None if given is None else given[:1])
    lam, z = top_eigh(B[np.ix_(warm, warm)]) if given is None else (None, A[given[0], 0])
    i = int(np.argmax(np.diag(B)))
    sup0 = np.vstack([np.arange(s) if i < s else np.append(np.arange(s - 1), i), warm])
    val0 = np.vstack([(sup0[0] == i).astype(float), z])
    sups, _, f, _ = tpower_from_supports(B, sup0, val0, max_iter, tol)
    support, refined = _on_full_problem(op, W, sups[int(np.argmax(f))], warm)
    z, lam = polish_loadings(op, support)
    return make_result(op, z, "tpower", variance=lam, converged=True,
                       message="tpower's two starts on auto's working set",
                       info={"working_set": W.size, "refined": refined})
