"""``method="exact"``: certified sparse PCA by branch and bound.

Solves max { xᵀΣx : ‖x‖₂ = 1, ‖x‖₀ <= s } = max_{|S| = s} λmax(Σ[S, S]) for one component.
Pieces: :mod:`._incumbent` (a strong feasible support first), :mod:`._bounds` (provably
valid upper bounds on a node's best completion), :mod:`._search` (best-first tree).
"""
from __future__ import annotations

import math
import sys
import time
import warnings
from numbers import Integral, Real

import numpy as np
from threadpoolctl import threadpool_limits

from ..._util import draw_seed
from ..._validation import (HasMethods, Interval, InvalidParameterError, Options, StrOptions,
                             validate_params)
from ...operators import Operator
from .. import register
from .._common import make_result, polish_loadings
from .._simple import _check_problem
from ..._linalg import top_eigh
from ._dual import root_dual
from ._bounds import (LANCZOS_MIN, LANCZOS_STEPS, _lanczos, gershgorin_bound, shifted_block,
                      soft_eig_bound, trace_bound)
from ._incumbent import initial_incumbent
from ._lowrank import lowrank_bound
from ._screen import screen_root
from ._search import ProcessEvalPool, ProcessNodePool, Search

__all__ = ["exact", "ExactSearchWarning", "root_upper_bound"]

#: penalties tried at the root (fractions of the largest |Σ_ij|, i ≠ j)
_ROOT_GRID = 24
#: subgradient steps on the root's U (:mod:`._dual`; 0: the clipped Σ at every node)
DUAL_STEPS = 600
#: the share of the time left that the steps on U may take
DUAL_TIME_SHARE = 0.15


class ExactSearchWarning(UserWarning):
    """The exact search stopped (time or node budget) before certifying optimality."""


def _root_penalty(search: Search, allowed: np.ndarray, scale, v0=None,
                  deadline: float = math.inf) -> tuple[float, float]:
    """The penalty ρ minimising the root split bound over a grid, then a finer grid.

    The grid compares estimates: on a large block the top Ritz value of a short Lanczos
    run (:func:`._bounds._lanczos`, from ``v0`` and then from the previous penalty's Ritz
    vector), a fraction of a dense eigensolve; on a small one λmax itself. Only the
    penalty chosen is evaluated as a bound (:func:`._bounds.soft_eig_bound`, a dense
    eigensolve), so the value returned is a valid bound whatever the estimates. Stops
    trying penalties once ``deadline`` (a ``time.perf_counter`` value) has passed."""
    A = np.asarray(allowed, dtype=np.intp)
    B = search.S[np.ix_(A, A)]
    if scale is not None:
        w = scale[A]
        with np.errstate(divide="ignore", invalid="ignore"):
            B = np.where(np.outer(w, w) > 0, B / np.outer(w, w), 0.0)
    off = float(np.abs(B - np.diag(np.diag(B))).max()) if A.size > 1 else 0.0
    F = np.zeros(0, dtype=np.intp)
    start = {"v": v0 if A.size >= LANCZOS_MIN else None}

    def estimate(r):
        M = shifted_block(search.S, F, A, search.s, r, scale, search.order)
        if start["v"] is None:
            return top_eigh(M, small=0, check_finite=False)[0]
        theta, x = _lanczos(M, start["v"], LANCZOS_STEPS)
        start["v"] = x
        return theta

    def bound(r):  # the eigenvalue bound and the low-rank bound (:mod:`._lowrank`)
        b = soft_eig_bound(search.S, F, A, search.s, r, scale, search.order)[0]
        M = shifted_block(search.S, F, A, search.s, r, scale, search.order)
        return min(b, lowrank_bound(M, 0, search.s))

    if off <= 0:
        return bound(0.0), 0.0
    # coarse grid in an order that brackets the minimum early
    grid = np.linspace(0.0, off, _ROOT_GRID)
    vals = np.full(grid.size, np.inf)
    for i in (0, *range(grid.size // 4, grid.size, 4), *range(1, grid.size)):
        if np.isinf(vals[i]):
            if i and time.perf_counter() >= deadline:
                break
            vals[i] = estimate(grid[i])
    i = int(np.argmin(vals))
    fine = np.linspace(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)], 9)
    fvals = np.full(fine.size, np.inf)
    for j in range(fine.size):
        if time.perf_counter() >= deadline:
            break
        fvals[j] = estimate(fine[j])
    j = int(np.argmin(fvals))
    rho = float(fine[j]) if fvals[j] < vals[i] else float(grid[i])
    return bound(rho), rho


def _root_setup(search: Search, allowed: np.ndarray, deadline: float = math.inf,
                dual_steps: int = 0) -> tuple[float, float]:
    """Choose the clipping weights (uniform, or √Σ_ii: thresholding correlations) and ρ
    by the smaller root bound; sets ``search.scale``. Returns (root bound, ρ); the bound
    also takes the low-rank bound (:mod:`._lowrank`) of Σ[A, A] and of the block at ρ,
    and is never above λmax(Σ[A, A]) (interlacing, ρ = 0). With ``dual_steps``, U is
    then optimized from that clipped Σ (:func:`._dual.root_dual`, at most that many
    steps, a share ``DUAL_TIME_SHARE`` of the time left); when the steps lower the
    bound's estimate, ``search.U`` is set (every node uses it) and the bound takes it."""
    A = np.asarray(allowed, dtype=np.intp)
    lam0, v0 = top_eigh(search.S[np.ix_(A, A)], small=0, check_finite=False)
    v0 = np.abs(v0) + 1e-2 * float(np.abs(v0).max())
    best = (*_root_penalty(search, A, None, v0, deadline), None)
    d = search.d
    if np.ptp(d[A]) > 1e-12 * max(float(d.max()), 1e-300) and \
            time.perf_counter() < deadline:
        w = np.sqrt(np.maximum(d, 0.0))
        b, r = _root_penalty(search, A, w, v0, deadline)
        if b < best[0]:
            best = (b, r, w)
    search.scale = best[2]
    now = time.perf_counter()
    if dual_steps > 0 and now < deadline:
        value = search.incumbent
        if not math.isfinite(value):  # a support to aim at: the top eigenvector's heaviest
            sup = A[np.argsort(-np.abs(v0), kind="stable")[:search.s]]
            value = float(np.linalg.eigvalsh(search.S[np.ix_(sup, sup)])[-1])
        b, U = root_dual(search.S, A, search.s, best[1], search.scale, value,
                         deadline=now + DUAL_TIME_SHARE * (deadline - now),
                         max_steps=dual_steps)
        if U is not None:
            search.U = U
            best = (min(best[0], b), best[1], best[2])
    if lam0 <= best[0]:
        best = (lam0, 0.0, best[2])
    # Σ[A, A] itself: its top eigenvector's s heaviest coordinates (the penalty stays the
    # one of the eigenvalue bounds: the tree's nodes use it)
    return float(min(best[0], lowrank_bound(search.S[np.ix_(A, A)], 0, search.s))), best[1]


@validate_params({"s": [Interval(Integral, 1, None, closed="left")],
                  "max_time": [None, Interval(Real, 0, None, closed="neither")]})
def root_upper_bound(S, s: int, *, max_time: float | None = None) -> float:
    """A proven upper bound on max { λmax(Σ[S, S]) : |S| = s }: the root bound of the search.

    The smallest of the bounds of :mod:`._bounds` at the root (F = ∅, every variable
    allowed): the trace bound (sum of the s largest Σ_ii), the Gershgorin bound (largest
    Σ_ii plus the s − 1 largest |Σ_ij| of a row), the shifted soft-threshold eigenvalue
    bound λmax(Σ − U + diag(r)) of :func:`._bounds.soft_eig_bound` at the clipping level ρ
    chosen over a grid (by Lanczos estimates), thresholding Σ itself and, when the
    diagonal is not constant, the correlations (U = clip(Σ, ±ρ√(Σ_iiΣ_jj))), λmax(Σ)
    (interlacing), and the low-rank bound of :mod:`._lowrank` on Σ and on that
    block, and the same bounds with U optimized by subgradient steps from that clipped Σ
    (:func:`._dual.root_dual`, towards the value of the top eigenvector's s heaviest
    coordinates). The result is never above λmax(Σ). No tree: a few dense
    eigensolves, a few dozen short Lanczos runs and the steps on U, fewer when
    ``max_time`` runs out (the bound is then looser, never invalid). For a node budget
    see :func:`prove_support`.

    Parameters
    ----------
    S : array-like (p, p) or Operator
        Σ, symmetric positive semi-definite (an operator is densified with ``to_dense()``).
    s : int
        Cardinality, 1 <= s <= p.
    max_time : float > 0 or None
        Seconds to spend at most on the ρ grid (after the first eigenproblem) and the
        steps on U (a share of what is left); None: the whole grid and every step.

    Returns
    -------
    float
        u with u >= λmax(Σ[S, S]) for every support |S| = s.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.datasets import load_pitprops
    >>> from eigensparse.solvers._exact import root_upper_bound
    >>> S = np.asarray(load_pitprops().data)
    >>> u = root_upper_bound(S, 5)
    >>> bool(3.406 <= u <= np.linalg.eigvalsh(S)[-1])
    True
    """
    t0 = time.perf_counter()
    if isinstance(S, Operator):
        S = S.to_dense()
    S = np.asarray(S, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"root_upper_bound: S must be a non-empty square matrix, got shape "
                         f"{S.shape}")
    if not np.all(np.isfinite(S)):
        raise ValueError("root_upper_bound: S must be finite (it contains NaN or inf)")
    p = S.shape[0]
    if s > p:
        raise InvalidParameterError(f"root_upper_bound: parameter 's' must be at most p={p}; "
                                    f"got {s}.")
    deadline = math.inf if max_time is None else t0 + float(max_time)
    S = 0.5 * (S + S.T)
    if s == p:
        return float(np.linalg.eigvalsh(S)[-1])
    search = Search(S, int(s), -np.inf, np.zeros(0, dtype=np.intp), 0.0)
    allowed = np.arange(p)
    none = np.zeros(0, dtype=np.intp)
    with threadpool_limits(limits=1):
        b = min(trace_bound(search.d, none, allowed, s),
                gershgorin_bound(search.absS, search.d, none, allowed, s, search.order))
        if s > 1:
            b = min(b, _root_setup(search, allowed, deadline, DUAL_STEPS)[0])
    return float(b)


def _progress_callback(enabled, s):
    """A tqdm bar over the relative gap (closing towards 0), refreshed at most 5×/s."""
    if enabled == "auto":
        enabled = bool(getattr(sys.stderr, "isatty", lambda: False)())
    if not enabled:
        return None, None
    from tqdm.auto import tqdm

    bar = tqdm(total=1000, desc=f"exact[s={s}] gap", unit="‰", leave=False)
    state = {"t": 0.0, "start": None}

    def update(search: Search):
        now = time.perf_counter()
        if now - state["t"] < 0.2:
            return
        state["t"] = now
        g = search.gap()
        if state["start"] is None:
            state["start"] = max(g, 1e-300)
        done = int(1000 * (1 - min(g / state["start"], 1.0)))
        bar.n = max(bar.n, done)
        bar.set_postfix(gap=f"{g:.2e}", nodes=search.nodes, best=f"{search.incumbent:.6g}")

    return update, bar


#: ``n_jobs=None``: seconds of tree search by one worker before the others join
ESCALATE_SECONDS = 2.0
#: with ``backend="processes"``, nodes that took at least this long each (in the first
#: seconds of the tree; without them, problems of at least ``EVAL_NODE_P`` variables) are
#: evaluated one task per node (:class:`._search.ProcessEvalPool`: the tree stays
#: best-first as a whole) instead of subtrees (:class:`._search.ProcessNodePool`)
EVAL_NODE_SECONDS = 5e-3
EVAL_NODE_P = 400


@register("exact", summary="Certified optimum by branch and bound (eigenvalue, Gershgorin and "
                           "soft-threshold bounds); anytime with an honest gap.",
          constraints={"max_time": [Interval(Real, 0, None, closed="neither")],
                       "max_nodes": [None, Interval(Integral, 1, None, closed="left")],
                       "tol": [Interval(Real, 0, None, closed="left")],
                       "n_jobs": [Options(Integral, {-1}), Interval(Integral, 1, None, closed="left"),
                                  None],
                       "progress": [bool, StrOptions({"auto"})],
                       "n_starts": [Interval(Integral, 1, None, closed="left")],
                       "screen": [bool],
                       "backend": [StrOptions({"threads", "processes", "dask"})],
                       "client": [None, str, HasMethods(["scatter", "submit", "gather"])]})
def exact(op: Operator, cardinality: int, *, random_state=None, max_time: float = 600.0,
          max_nodes=None, tol: float = 1e-9, n_jobs=None, progress="auto",
          n_starts: int = 64, screen: bool = True, backend: str = "processes", client=None):
    """Certified optimal sparse component: max λmax(Σ[S, S]) over supports with |S| = s.

    A best-first branch and bound over supports (Berk & Bertsimas 2019 design: a strong
    incumbent, then nodes that fix variables in or out, pruned by upper bounds on their best
    completion). Every bound used is proven valid in :mod:`._bounds`:

    - trace: Σ_{F} Σ_ii + the k largest free Σ_jj (λmax <= Tr for Σ ⪰ 0);
    - Gershgorin: the largest row of |Σ| restricted to F plus the k best free entries;
    - 2×2 block: the fixed-in rows jointly (λmax(Σ_FF), their k strongest free columns and
      a bound on the free part);
    - shifted soft-threshold eigenvalue: λmax(Σ_AA − U + diag(r)) with U = clip(Σ, ±ρ) off
      the diagonal (Σ_FF kept whole) and r_i row i's largest clipped sum over the node's
      supports (ρ = 0 is
      the interlacing bound λmax(Σ[A, A])); ρ chosen at the root, then re-tuned by a local
      descent on one node in eight (children inherit it); a Cholesky factor proves it below
      the incumbent before any eigensolve.
    - row-shift dual: the same bound with U optimized at the root by subgradient steps
      from the clipped Σ (:mod:`._dual`); when they lower the root bound, every node uses
      that U (with its own row shifts and Σ_FF whole) instead of the clipped Σ.
    - low-rank: μ_3 plus the s heaviest coordinates of the top two eigenvectors (scaled) of
      that block or of Σ_AA (:mod:`._lowrank`), at the root and one node in four; its
      per-variable bounds remove free variables from a node.

    The cheap bounds run first; the eigenvalue bound only when they do not prune. Nodes
    with few completions are closed by an exact batched scan. The root is screened
    (:mod:`._screen`): variables j whose bound with j fixed in is below the incumbent are
    removed first.

    Parameters
    ----------
    op : Operator
        Represents Σ (p×p, positive semi-definite); densified once with ``op.to_dense()``.
    cardinality : int
        s, 1 <= s <= p.
    random_state : None, int or Generator
        Seeds the random starts of the incumbent heuristic (``am``). The search itself
        is deterministic; the certified value does not depend on the seed.
    max_time : float > 0, default=600
        Seconds for the whole call (heuristics included); the search stops when it runs
        out. Through :func:`eigensparse.sparse_pca` it is each component's time, shared
        with the refinement's re-solves of the component.
    max_nodes : int >= 1 or None
        Nodes (bounded or closed subproblems) to evaluate at most; None: no limit.
    tol : float >= 0, default=1e-9
        Relative optimality tolerance: certified means
        (upper_bound − variance) <= tol·upper_bound. Nodes are pruned when their bound is
        <= incumbent·(1 + tol), so a certified value is within that factor of the optimum.
    n_jobs : int or None, default=None
        Workers (see ``backend``); -1: all cores (with ``backend="dask"``: every worker
        thread of the cluster). None: one worker for the first ``ESCALATE_SECONDS`` of the
        tree, then ``backend`` workers on every available core (every thread of the
        cluster) when the search is still open (a short search never pays their
        start-up). 1: the search runs alone in this process, whatever ``backend``.
    backend : {"processes", "threads", "dask"}, default="processes"
        What the ``n_jobs`` workers are. Processes each hold a copy of Σ and expand
        subtrees: a batch sends the best open nodes (F, R, bound, ρ, branching variable:
        small picklable tuples), each worker searches one best-first for a fixed number of
        nodes at the incumbent of the batch's start and sends back the nodes it left open
        and the supports it found (see :class:`._search.SubtreePool`); starting them
        costs a fixed overhead. When nodes are expensive (``EVAL_NODE_SECONDS``) the
        processes evaluate one node per task instead, the tree staying best-first in
        this process (:class:`._search.ProcessEvalPool`). "dask": the same subtrees as tasks on the Dask cluster of
        ``client`` (Σ scattered once to every worker, each worker thread keeping its own
        search of the problem; :class:`._dask.DaskNodePool`); needs the ``dask`` extra,
        and eigensparse installed on the workers. The certified value and support do not
        depend on which worker ran what. Threads share the search (LAPACK releases the
        GIL, the Python around it does not); on 2 cores they were slower than processes on
        every benchmark instance that takes more than a second
        (``benchmarks/bench_exact.py``).
    client : dask.distributed.Client, str or None, default=None
        The cluster of ``backend="dask"`` (only used with it): a client, a scheduler
        address such as ``"tcp://10.0.0.1:8786"`` (connected for the call and closed after
        it; an unreachable address fails within seconds), or None: the default client
        (the last ``distributed.Client`` created with ``set_as_default=True``, the
        default); without one, ``backend="dask"`` is an error.
    progress : bool or "auto", default="auto"
        A tqdm bar showing the relative gap close; "auto": only when stderr is a terminal.
    n_starts : int >= 1, default=64
        Starts of ``am`` for the incumbent (besides greedy and tpower).
    screen : bool, default=True
        Root screening (see above).

    Returns
    -------
    ComponentResult
        ``loadings`` (p,), the leading eigenvector of Σ[S*, S*] on the best support found;
        ``variance`` its value; ``upper_bound`` a proven upper bound on the optimum
        (``= variance`` up to tol when certified); ``gap = upper_bound − variance``;
        ``converged`` = certified; ``info``: ``certified``, ``incumbent``, ``upper_bound``,
        ``relative_gap``, ``nodes``, ``time``, ``heuristics`` (value of each heuristic),
        ``root_penalty``, ``dual`` (whether the nodes use the root's optimized U of
        :mod:`._dual`), ``n_screened`` (variables removed at the root), ``bound_calls``.

    Warns
    -----
    ExactSearchWarning
        When stopped by ``max_time``/``max_nodes`` before certification (the best support
        and the gap are still returned).

    Notes
    -----
    *Several components.* Through :func:`eigensparse.sparse_pca` each component is solved
    exactly on the operator it is given: with a deflation scheme the certificate is for the
    deflated Σ (per component, given the earlier components); with ``deflation="disjoint"``
    for Σ restricted to the unused variables, i.e. each component is optimal *given the
    earlier ones*, not the best set of disjoint components jointly.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("exact").func(S, 5)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 6, 8, 9], 3.406)
    >>> bool(res.gap < 1e-6)  # certified optimal
    True
    """
    t0 = time.perf_counter()
    s = _check_problem(op, cardinality, "exact")
    if client is not None and backend != "dask":
        raise InvalidParameterError(
            f"exact: parameter 'client' is only used with backend='dask'; got "
            f"backend={backend!r}. Pass backend='dask' to search on the cluster.")
    owned = False
    if backend == "dask":  # the cluster first: a bad client fails before any work
        from ._dask import dask_client

        client, owned = dask_client(client)
    if not math.isfinite(max_time):
        max_time = 1e18
    deadline = t0 + float(max_time)
    max_nodes = math.inf if max_nodes is None else int(max_nodes)
    seed = draw_seed(random_state)
    S = np.asarray(op.to_dense(), dtype=float)
    S = 0.5 * (S + S.T)
    # one BLAS thread per worker: the node problems are small, and a multi-threaded LAPACK
    # on small blocks is many times slower than a single thread (measured on 2
    # loaded cores for 100x100 eigenproblems)
    try:
        with threadpool_limits(limits=1):
            return _solve(op, S, s, seed, deadline, max_nodes, tol, n_jobs, progress,
                          n_starts, screen, t0, backend, client)
    finally:
        if owned:  # connected here from an address
            client.close()


def prove_support(S: np.ndarray, s: int, support, *, max_nodes: int,
                    tol: float = 1e-9) -> tuple[np.ndarray, float, float, bool, int]:
    """A node-limited search from a given support: prove it optimal, or improve it.

    The branch and bound of :func:`exact` (root bound, screening, best-first tree) with
    ``support`` as the incumbent and no heuristic, stopped after ``max_nodes`` nodes: a
    deterministic amount of work whatever the machine. The default method calls it on
    small problems, so that its answer says "certified" where a few nodes prove it.

    Parameters
    ----------
    S : ndarray (p, p)
        Σ, symmetric positive semi-definite.
    s : int
        Cardinality, 1 <= s < p.
    support : array of int (s,)
        The incumbent support.
    max_nodes : int
        Nodes to evaluate at most.
    tol : float
        Relative tolerance of the certificate (as :func:`exact`).

    Returns
    -------
    best : ndarray of int (s,)
        The best support seen (``support`` unless the search found a better one).
    value : float
        λmax(Σ[best, best]).
    upper_bound : float
        A proven bound on the optimum (the value when certified).
    certified : bool
    nodes : int

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers._exact import prove_support
    >>> S = es.datasets.load_pitprops().data
    >>> best, value, ub, certified, nodes = prove_support(S, 5, [0, 1, 2, 3, 4], max_nodes=500)
    >>> best.tolist(), round(value, 3), certified
    ([0, 1, 6, 8, 9], 3.406, True)
    """
    S = np.asarray(S, dtype=float)
    support = np.sort(np.asarray(support, dtype=np.intp))
    # small blocks: no BLAS threads to limit, and no root screening (the tree is cheaper)
    value = float(np.linalg.eigvalsh(S[np.ix_(support, support)])[-1])
    search = Search(S, int(s), value, support, float(tol))
    allowed = np.arange(S.shape[0])
    root_bound, rho = _root_setup(search, allowed)
    done = True
    if root_bound > search.cut:
        search.root(allowed, rho, bound=root_bound)
        done = search.run(deadline=math.inf, max_nodes=int(max_nodes))
    ub = search.incumbent if done else min(search.upper_bound, root_bound)
    ub = max(ub, search.incumbent)
    certified = bool(done or (ub - search.incumbent) <= tol * abs(ub))
    return search.best, float(search.incumbent), float(ub), certified, int(search.nodes)


def _solve(op, S, s, seed, deadline, max_nodes, tol, n_jobs, progress, n_starts, screen, t0,
           backend="processes", client=None):
    """Incumbent, root penalty, screening and the tree search (see :func:`exact`)."""
    p = S.shape[0]

    inc, best, heur = initial_incumbent(S, s, n_starts=n_starts, seed=seed, deadline=deadline)
    search = Search(S, s, inc, best, float(tol))
    allowed = np.arange(p)
    rho, root_bound, n_screened = 0.0, None, 0
    if s < p:
        root_bound, rho = _root_setup(search, allowed, deadline, DUAL_STEPS)
        if screen and root_bound > search.cut:
            # screening may use at most half of what is left: the tree needs the rest
            now = time.perf_counter()
            allowed = screen_root(search, allowed, rho,
                                  deadline=now + 0.5 * max(deadline - now, 0))
            n_screened = p - allowed.size
        if allowed.size >= s:  # else no support beats the incumbent: the tree is empty
            search.root(allowed, rho, deadline=deadline, bound=root_bound)
    update, bar = _progress_callback(progress, s)
    pool = None
    if backend == "dask":
        from ._dask import cluster_threads

        cores = cluster_threads(client)
    else:
        cores = len(__import__("os").sched_getaffinity(0))
    workers = cores if n_jobs in (-1, None) else n_jobs
    try:
        done, t_run, n_run = None, time.perf_counter(), search.nodes
        if n_jobs is None:  # alone first; the workers only for a search still open
            first = min(deadline, time.perf_counter() + ESCALATE_SECONDS) if cores > 1 else deadline
            done = search.run(deadline=first, max_nodes=max_nodes, progress=update)
            if done or time.perf_counter() >= deadline or search.nodes >= max_nodes:
                workers = 1
        per_node = (time.perf_counter() - t_run) / max(search.nodes - n_run, 1)
        if workers > 1 and backend == "processes" and \
                (per_node >= EVAL_NODE_SECONDS if n_run < search.nodes else p >= EVAL_NODE_P):
            pool = ProcessEvalPool(search, workers)  # expensive nodes: one task each
        elif workers > 1 and backend == "processes":
            pool = ProcessNodePool(search, workers)
        elif workers > 1 and backend == "dask":
            from ._dask import DaskNodePool

            pool = DaskNodePool(search, workers, client)
        elif workers > 1:
            from concurrent.futures import ThreadPoolExecutor
            pool = ThreadPoolExecutor(workers)
        if not done:
            done = search.run(deadline=deadline, max_nodes=max_nodes, pool=pool,
                              progress=update, batch=max(8, 4 * workers))
    finally:
        if pool is not None:
            pool.shutdown()
        if bar is not None:
            bar.close()
    return _finish(op, search, done, t0, heur, rho, root_bound, n_screened, tol)


def _finish(op, search: Search, done, t0, heur, rho, root_bound, n_screened, tol):
    """Result with the honest bound, gap and certificate; warns when stopped early."""
    x, var = polish_loadings(op, search.best)
    ub = search.upper_bound if not done else search.incumbent
    if not done and root_bound is not None:
        ub = min(ub, root_bound)
    ub = max(ub, var)
    rel = max(ub - var, 0.0) / max(abs(ub), 1e-300)
    certified = bool(done or rel <= tol)
    elapsed = time.perf_counter() - t0
    msg = (f"certified optimal (relative gap <= {tol:g}) after {search.nodes} nodes"
           if certified else
           f"stopped after {search.nodes} nodes and {elapsed:.3g} s: best {var:.10g}, "
           f"upper bound {ub:.10g}, relative gap {rel:.3g}")
    if not certified:
        warnings.warn(f"exact: {msg}", ExactSearchWarning, stacklevel=3)
    info = {"certified": certified, "incumbent": var, "upper_bound": ub, "relative_gap": rel,
            "nodes": search.nodes, "time": elapsed, "heuristics": heur, "root_penalty": rho,
            "threshold": "uniform" if search.scale is None else "correlation",
            "dual": search.U is not None,
            "root_bound": root_bound, "n_screened": n_screened,
            "bound_calls": dict(search.bound_calls), "tol": tol}
    return make_result(op, x, "exact", variance=var, n_iter=search.nodes, converged=certified,
                       upper_bound=ub, gap=ub - var, message=msg, info=info)
