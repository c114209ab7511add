"""The default method ``"auto"``: a portfolio that searches the whole problem's
correlation structure, and a bound on the whole problem with every answer.

What it does (one component, exact cardinality s), and why (s = 1 is solved exactly: the
feature of largest variance):

1. **Working set.** W = every feature when p <= ``dense_features`` (256), and also
   beyond, up to ``global_features`` (4096), whenever Σ is held in memory (a
   :class:`Covariance`, a formed Gram matrix, see ``eigensparse.operators._gram``) or
   costs at most ``global_form_flops`` to form: ranking features by variance means
   nothing on a correlation matrix, and the strongest sparse direction is often a group
   of correlated features of moderate variance. Only when Σ is neither held nor cheap
   (wide data, p in the thousands) is W a subset: the features of largest variance,
   those of largest weight in Σ's leading eigenvectors (a key that sees correlated
   groups when samples are many), the warm start, and, when Σ can be streamed in
   row blocks for at most ``partner_key_flops``, the features of largest partner
   score (variance plus the s − 1 largest |Σ_ij| of the row) with the neighbourhoods
   of the best: with few samples the leading eigenvectors are noise, and only the
   partners see a correlated group. The streamed partners also give the whole
   problem's Gershgorin partner bound.
2. **Warm start.** The approximate greedy path (handbook Alg. 3; ``warm_start``), run
   compiled on B (:func:`~eigensparse.solvers._auto_kernels.approx_greedy_order`: each
   step's leading eigenvector from a few Lanczos steps warm-started at the previous one).
   Starting vectors passed as ``init`` take its place (the refinement of a deflation
   chain passes the component being re-solved).
3. **Starts.** The greedy support, the top-variance support, ``e_i`` for the features of
   largest column energy ‖B[:, i]‖, Gaussian starts truncated to s entries, and the
   best **neighbourhoods**: feature i with its s − 1 strongest partners |B_ij|, ranked
   by a few batched power steps on their s×s blocks. A planted group is the neighbourhood of each of its members,
   whatever the variances around it. The partners come from one compiled selection per
   row, shared with the Gershgorin bound when the bound is computed in the solve; when it
   is left to the first read (step 8), the neighbourhoods select the ``hood_probe``
   strongest partners of every row and all s − 1 of the rows ranked best only.
4. **Multistart truncated power** on B from all starts at once: every iterate is
   s-sparse, so one step costs O(m·s) (s rows of B scaled and added, then an O(m)
   selection) in the compiled loop
   (:func:`~eigensparse.solvers._auto_kernels.tpower_from_supports`). The number of
   random starts scales with the problem under a fixed flop budget:
   N = clip(``start_flops`` / m², 16, 256), at least ``global_min_starts`` beyond 256
   features; they come from ``random_state`` only, so the result is deterministic.
5. **Swap polish.** 1-swap local search from the best distinct candidates (one up to
   ``swap_small`` features, ``swap_starts`` above: two overlapping clusters of correlated
   features can sit three swaps apart): a lower bound on the variance after each
   exchange is the top eigenvalue of a 2×2 matrix, for all s·m exchanges in O(s·m); the
   ``swap_exact`` best are evaluated exactly and the best improving one taken, until none
   improves.
6. **Full problem.** When W is a subset, one product Σx checks that the answer is a
   fixed point of the full iteration; otherwise :func:`~eigensparse.solvers.tpower` on
   the full operator moves on from it. The loadings are the leading eigenvector of
   Σ[I, I] (``polish``).
7. **Certificate (small problems).** Up to ``certify_features`` features the answer
   is the incumbent of a node-limited run of ``method="exact"``'s branch and bound
   (:func:`~eigensparse.solvers._exact.prove_support`): ``info["certified"]`` when it
   closes, else a tighter bound.
8. **Bound.** Every result carries ``upper_bound`` ≥ v(s) of the whole problem, ``gap``
   = upper_bound − variance and ``info["bound"]`` naming the bound
   (:func:`~eigensparse.bounds.full_problem_bound`): the smaller of the trace bound and
   the Gershgorin partner bound, and λmax(Σ) (proven by a Cholesky factor of t·I − Σ)
   up to ``cholesky_bound_features``; while the gap is above ``row_shift_gap``, the
   row-shift dual λmax(Σ − U + diag r(U)) with U optimized on a core block
   (:func:`~eigensparse.bounds._rowshift.row_shift_bound`) from ``row_shift_min_features``
   to ``row_shift_features`` features, else DSPCA's dual at the soft-thresholded Σ
   (:func:`~eigensparse.bounds.threshold_bound`, a few penalties keeping at most
   ``cholesky_bound_features`` features); when W is a subset, the working-set split bound.
   ``method="exact"`` certifies (or tightens) it. Beyond ``certify_features`` features
   the bound (Gershgorin partner sums, λmax, row-shift, soft-threshold) is computed on
   first read (:func:`~eigensparse._result.defer_bound`): the result holds B and what the
   bound needs until then, and a refit whose bound nobody reads does not pay for it.

The constants (lower case above) are the fields of
:class:`~eigensparse.solvers._auto_settings.AutoSettings`; the stages live in
:mod:`~eigensparse.solvers._auto_working_set` (1–2), :mod:`~eigensparse.solvers._auto_starts`
(3), this module (4–6) and :mod:`~eigensparse.solvers._auto_bound` (7–8). The measurements
behind the constants are in ``docs/developer/auto.rst``, ``benchmarks/bench_global.py`` and
``benchmarks/bench_defaults.py``.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._linalg import fix_sign, top_eigh
from .._result import defer_bound
from .._validation import Interval
from ..operators import Operator
from ..registry import BoundedSolve
from . import _auto_settings, register
from .am import tpower
from ._auto_bound import certify, defers, should_certify, upper_bound
from ._auto_kernels import (gather_block_single, support_values, swap_search,
                            tpower_from_supports)
from ._auto_select import first_distinct_rows
from ._auto_settings import AutoSettings
from ._auto_starts import (drop_null, init_supports, n_starts_for, neighbourhoods, partners,
                           start_supports)
from ._auto_working_set import working_block
from ._common import check_random_state, make_result, polish_loadings
from ._simple import _check_problem

__all__ = ["auto", "two_start_tpower"]


@register("auto", cost="O(m·s) per truncated power step and start (compiled); O(p²) partners",
          summary="Default: greedy and neighbourhood starts, multistart truncated power, "
                  "1-swap polish, a bound on the whole problem.",
          constraints={"n_starts": [None, Interval(Integral, 1, None, closed="left")],
                       "max_iter": [Interval(Integral, 1, None, closed="left")],
                       "tol": [Interval(Real, 0, None, closed="left")], "swap": ["boolean"]},
          warm_start=True, bounded=BoundedSolve(whole_ranked_set=True),
          alternatives=("two_start_tpower",))
def auto(op: Operator, cardinality, *, n_starts=None, max_iter: int = 200, tol: float = 1e-4,
         swap: bool = True, init=None, random_state=None):
    """The default sparse PCA method: a greedy + multistart + swap portfolio.

    Parameters
    ----------
    op : Operator
        Represents the p×p covariance Σ (any operator: ``diag``, ``block`` and, when Σ
        is not formed, its products).
    cardinality : int
        Exact support size s, 1 <= s <= p.
    n_starts : int >= 1 or None
        Random and coordinate starting points of the batched truncated power stage
        (the neighbourhood starts come on top); None scales them with the working-set
        size m: clip(1.6·10⁵/m², 16, 256), at least 16 beyond 256 features.
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
        ``n_starts=None`` the other starts are then at most ``warm_starts`` (16). The
        refinement of a deflation chain passes the current component here, so a re-solve
        starts from the solution it may replace.
    random_state : None, int or Generator
        Seeds the Gaussian starts; the same value gives the same result.

    Returns
    -------
    ComponentResult
        ``loadings`` (p,) with exactly s nonzeros (unless Σ[I, I] is reducible), the
        leading eigenvector of Σ[I, I] (the swap search's Lanczos eigenpair, to a
        relative Ritz residual of 1e-10; a dense eigensolve when there was none);
        ``variance`` λmax(Σ[I, I]). ``info``:
        ``n_starts``, ``neighbourhood_starts``, ``working_set`` (m),
        ``warm_start_variance``, ``multistart_variance`` (best start, on the working
        set), ``swap_rounds``, ``swap_gain`` (variance added by the swap search),
        ``refined`` (full-problem tpower ran: the working set's answer was not a fixed
        point of the full iteration), ``bound`` (the name of ``upper_bound``'s bound).
        ``upper_bound`` bounds the whole problem; ``gap`` = upper_bound − variance.

    Notes
    -----
    See the module docstring for the stages and their reasons. It reaches the optimum
    of ``exhaustive`` on every small problem of ``tests/solvers/test_against_exhaustive.py``
    and the best of many ``am`` starts on real and planted problems of hundreds of
    features (``benchmarks/bench_global.py``).

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
    cfg = _auto_settings.SETTINGS
    s = _check_problem(op, cardinality, "auto")
    p = int(op.n_features)
    rng = check_random_state(random_state)
    given, A = (None, None) if init is None else init_supports(init, p, s)
    if s == 1:
        return _largest_variance(op)
    warm_resolve = given is not None  # a warm re-solve (the refinement) explores less
    W, B_full, warm, gershgorin = working_block(op, s, cfg, given)
    m = W.size
    N = _start_count(m, n_starts, warm_resolve, cfg)
    keep, pos, B, Bp, energy = _search_block(B_full, s, warm, N, m == p, cfg)
    sup0, val0 = start_supports(B_full, s, warm, N, rng, pos, energy)
    if warm_resolve:
        sup0, val0 = _given_starts(sup0, val0, given, A, W, pos)
    if keep is not None:
        warm = pos[warm]
    # the bound's partner sums and the starts' partners; a bound left to the first read
    # computes its own, and the neighbourhoods select only the partners they need
    lazy = defers(op, m, warm_resolve, cfg)
    d_B, P, J = (None, None, None) if lazy else partners(B, s)
    n_hood = 0
    if not warm_resolve and s < m and min(s - 1, B.shape[0] - 1) == s - 1:  # correlations
        hood_sup, hood_val = neighbourhoods(B, J, cfg.neighbourhood_starts, cfg, t=s - 1)
        n_hood = hood_sup.shape[0]
        sup0, val0 = np.vstack([sup0, hood_sup]), np.vstack([val0, hood_val])
    cands, starts, vals, multi_value = _candidates(B, Bp, warm, sup0, val0, max_iter, tol, m,
                                                   cfg)
    best = int(np.argmax(vals))
    support, value = cands[best], float(vals[best])
    rounds, before, z_best = 0, value, None
    if swap and s < m:
        support, value, rounds, z_best = _swap_stage(B, cands, starts, vals,
                                                     _n_swap_starts(s, m, warm_resolve, cfg), cfg)
    if keep is not None:  # back to the working set's positions (order kept)
        support, warm = keep[support], keep[warm]
    support, z, lam, refined = _loadings(op, W, support, warm, value, z_best)
    # the tightening of the bound is computed on first read (``later``), except where
    # the branch and bound may run: its decision needs the tight bound
    ub, bound, later = upper_bound(op, W, B_full, s, lam, d_B, P, cfg, eig=not warm_resolve,
                                   gershgorin=gershgorin, support=support,
                                   defer=lazy)
    certified, nodes = False, 0
    if should_certify(op, m, s, lam, ub, warm_resolve, cfg):
        z, lam, ub, bound, certified, nodes = certify(op, B_full, s, support, z, lam, ub, bound,
                                                      cfg)
    info = {"n_starts": N, "neighbourhood_starts": n_hood, "working_set": m,
            "warm_start_variance": float(vals[-1]), "multistart_variance": multi_value,
            "swap_rounds": rounds, "swap_gain": value - before, "refined": refined,
            "bound": bound, "certify_nodes": nodes}
    if certified:  # the property reads the bound otherwise
        info["certified"] = True
    res = make_result(op, z, "auto", variance=lam, n_iter=int(rounds), converged=True,
                      upper_bound=ub, gap=None if ub is None else ub - lam,
                      message=f"auto: greedy + {N} starts on {m} features + {rounds} swap rounds",
                      info=info)
    return res if later is None else defer_bound(res, later)


def _largest_variance(op: Operator):
    """s = 1, solved exactly: the feature of largest variance (ties: the lowest index)."""
    i = int(np.argmax(np.asarray(op.diag(), dtype=float)))
    z, lam = polish_loadings(op, [i])
    return make_result(op, z, "auto", variance=lam, n_iter=0, converged=True,
                       upper_bound=float(lam), gap=0.0,
                       message="auto: s = 1, the feature of largest variance (exact)",
                       info={"n_starts": 0, "working_set": 1, "exact": True})


def _start_count(m: int, n_starts, warm_resolve: bool, cfg: AutoSettings) -> int:
    """The random and coordinate starts N on m features: ``n_starts`` when given, else
    :func:`~eigensparse.solvers._auto_starts.n_starts_for`, at least ``global_min_starts``
    beyond ``dense_features``, at most ``warm_starts`` for a warm re-solve."""
    if n_starts is not None:
        return int(n_starts)
    N = n_starts_for(m, cfg)
    if m > cfg.dense_features:
        N = max(N, cfg.global_min_starts)
    if warm_resolve:
        N = min(N, cfg.warm_starts)
    return N


def _search_block(B: np.ndarray, s: int, warm: np.ndarray, N: int, whole: bool,
                  cfg: AutoSettings):
    """``(keep, pos, Bs, Bp, energy)``: the block the search runs on, Bs (B, or its
    null-free part B[keep, keep] with ``pos`` mapping B's positions to it, from
    :func:`~eigensparse.solvers._auto_starts.drop_null` when W is every feature), the
    products' matrix Bp (Bs, or its single-precision copy above
    ``single_product_features``) and B's column energies when they were computed."""
    dropped = drop_null(B, s, warm, N) if whole else None
    if dropped is None:
        single = B.shape[0] > cfg.single_product_features
        return None, None, B, (B.astype(np.float32) if single else B), None
    keep, pos = dropped
    single = keep.size > cfg.single_product_features
    Bk, Bp, energy_k = gather_block_single(B, keep, single)
    energy = np.zeros(B.shape[0])  # a null feature's column is zero
    energy[keep] = energy_k
    return keep, pos, Bk, (Bp if single else Bk), energy


def _given_starts(sup0, val0, given, A, W, pos):
    """The starts with ``init``'s vectors: the first in the warm start's place (its own
    entries on its support), the others appended (positions in the searched block)."""
    val0[0] = A[given[0], 0]
    extra = [np.searchsorted(W, g) for g in given[1:]]
    if extra:
        sup0 = np.vstack([sup0, extra if pos is None else pos[np.array(extra)]])
        val0 = np.vstack([val0, [A[g, c] for c, g in enumerate(given[1:], start=1)]])
    return sup0, val0


def _candidates(B, Bp, warm, sup0, val0, max_iter: int, tol: float, m: int, cfg: AutoSettings):
    """Multistart truncated power on B from every start at once (products with Bp), then
    the best distinct supports and the warm start's as candidates: ``(cands, starts,
    vals, multistart_value)`` with each candidate's tpower iterate and its λmax."""
    s = sup0.shape[1]
    sups, xs, f, _ = tpower_from_supports(B, sup0, val0, max_iter, tol, Bp)
    multi_value = float(f.max())
    n_cand = max(cfg.n_refine, cfg.swap_starts if m <= cfg.dense_features
                 else cfg.global_swap_starts)
    keep_c = first_distinct_rows(sups, np.argsort(-f, kind="stable"), n_cand)
    cands = list(sups[keep_c]) + [warm]
    starts = np.vstack([xs[keep_c], np.ones((1, s))])  # each candidate's tpower iterate
    vals = support_values(B, np.array(cands), starts)
    return cands, starts, vals, multi_value


def _n_swap_starts(s: int, m: int, warm_resolve: bool, cfg: AutoSettings) -> int:
    """How many of the best distinct candidates the swap search runs from: one up to
    ``swap_small`` features and for a warm re-solve, else fewer as s·m grows."""
    if m <= cfg.swap_small or warm_resolve:
        return 1
    if m <= cfg.dense_features:
        return int(min(cfg.swap_starts, max(1, cfg.swap_start_flops // (s * m))))
    return int(min(cfg.global_swap_starts, max(1, cfg.global_swap_start_flops // (s * m))))


def _swap_stage(B, cands, starts, vals, n_swap: int, cfg: AutoSettings):
    """The swap search from the ``n_swap`` best candidates (the first to the end, the
    others until the power steps prove no improvement): ``(support, value, rounds, z)``
    of the best."""
    support, value, rounds, z_best = cands[int(np.argmax(vals))], -np.inf, 0, None
    for t, j in enumerate(np.argsort(-vals, kind="stable")[:n_swap]):
        sup_j, val_j, r_j, z_j = _swap_search(B, cands[j], cfg, exact=t == 0, start=starts[j])
        rounds += r_j
        if val_j > value * (1 + 1e-12) if value > 0 else val_j > value:
            support, value, z_best = sup_j, val_j, z_j
    return support, value, rounds, z_best


def _loadings(op: Operator, W, support, warm, value: float, z_best):
    """``(support, z, lam, refined)`` on the whole problem: :func:`_on_full_problem`, then
    the loadings, the swap search's eigenpair of Σ[I, I] when it stands (no repeated top
    eigenvalue in sight), else the polished leading eigenvector."""
    p = int(op.n_features)
    support, refined = _on_full_problem(op, W, support, warm)
    if refined or z_best is None or np.min(np.abs(z_best)) < 1e-10:
        z, lam = polish_loadings(op, support)
    else:
        z, lam = np.zeros(p), float(value)
        z[support] = z_best / np.linalg.norm(z_best)
        z = fix_sign(z)
    return support, z, lam, refined


def _swap_search(B: np.ndarray, support: np.ndarray, cfg: AutoSettings, exact: bool = True,
                 start: np.ndarray | None = None) -> tuple[np.ndarray, float, int, np.ndarray]:
    """1-swap local search from ``support`` on B (compiled:
    :func:`~eigensparse.solvers._auto_kernels.swap_search`). Every exchange (support
    feature i out, feature j in) is bounded from below by the top eigenvalue of a 2×2
    matrix (u = the eigenvector z without entry i, plus e_j: [[a_i, b_ij], [b_ij, B_jj]]
    with a_i = uᵀBu/‖u‖², b_ij = B[j, I∖i]·u/‖u‖), for all s·m exchanges in O(s·m); the
    ``swap_exact`` best are evaluated (a few power steps, then exactly when no
    improvement is proven) and the best improving one is taken, until none improves
    (``exact=False``: until the power steps prove none, a cheaper search for the
    further candidates). ``start``: an approximate leading eigenvector of the block of
    ``support`` (in its order), the first eigenvalue solve's start. Returns the final
    support (sorted), its λmax, the rounds and its unit leading eigenvector (Lanczos, to
    a relative Ritz residual of 1e-10)."""
    m, s = B.shape[0], support.size
    support = np.asarray(support, dtype=np.int64)
    order = np.argsort(support, kind="stable")
    support = support[order]
    z0 = np.zeros(s) if start is None else np.asarray(start, dtype=float)[order]
    n_exact = int(min(cfg.swap_exact, max(4, cfg.swap_flops // s**3), max(s * (m - s), 1)))
    lam, rounds, z = swap_search(B, support, n_exact, cfg.swap_rounds, bool(exact), z0)
    return support, float(lam), int(rounds), z


def _is_fixed_point(op: Operator, support: np.ndarray, s: int) -> bool:
    """True when the polished vector x on ``support`` is a fixed point of the full
    truncated power iteration (the s largest |(Σx)_i| are the support): no feature
    outside the working set would enter. One product with Σ."""
    x, _ = polish_loadings(op, support)
    g = np.abs(op.matvec(x))
    thr = np.min(g[support])
    g[support] = -np.inf
    return bool(np.max(g) < thr)


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
        method ``"tpower"``; the better of the two fixed points, polished, with the
        same bound on the whole problem as :func:`auto` (``upper_bound``, ``gap``,
        ``info["bound"]``).

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
    given, A = (None, None) if init is None else init_supports(init, int(op.n_features), s)
    W, B, warm, gershgorin = working_block(op, s, _auto_settings.SETTINGS,
                                          None if given is None else given[:1])
    lam, z = top_eigh(B[np.ix_(warm, warm)]) if given is None else (None, A[given[0], 0])
    i = int(np.argmax(np.diag(B)))
    sup0 = np.vstack([np.arange(s) if i < s else np.append(np.arange(s - 1), i), warm])
    val0 = np.vstack([(sup0[0] == i).astype(float), z])
    sups, _, f, _ = tpower_from_supports(B, sup0, val0, max_iter, tol, B)
    support, refined = _on_full_problem(op, W, sups[int(np.argmax(f))], warm)
    z, lam = polish_loadings(op, support)
    d_B, P, _ = partners(B, s)
    ub, bound, _ = upper_bound(op, W, B, s, lam, d_B, P, _auto_settings.SETTINGS, eig=False,
                               gershgorin=gershgorin)
    return make_result(op, z, "tpower", variance=lam, converged=True,
                       upper_bound=ub, gap=None if ub is None else ub - lam,
                       message="tpower's two starts on auto's working set",
                       info={"working_set": W.size, "refined": refined, "bound": bound})
