"""Best-first branch and bound over supports (see :mod:`._bounds` for the node bounds).

Tree. The root is (F = ∅, A = the variables that survive screening). A node (F, A) is
branched on one free variable j ∈ R = A \\ F into "j in" (F ∪ {j}, A) and "j out"
(F, A \\ {j}); every support S ⊆ A with F ⊆ S, |S| = s lies in exactly one child, so the
children's values have the parent's value as their maximum and no support is lost.
Bounds, cheapest first (:mod:`._bounds`): trace and Gershgorin, the 2×2 block bound, an
exact scan of few completions, the Schur-complement test of a node with enough variables
fixed in (its fixed rows enter exactly), then the shifted soft-threshold eigenvalue bound
(with the root's optimized U of :mod:`._dual` when the root set one) and, on the same
block, the low-rank bound of :mod:`._lowrank`.
j is the free variable carrying the largest weight in the top eigenvector of the node's
eigenvalue bound: removing it lowers that bound the most, and including it follows the
incumbent direction. Nodes with few completions (C(|R|, k) small) are closed exactly by a
batched scan; nodes with k = 0 or |R| = k are single supports.

Order. Best-first: the open node with the largest bound is expanded next (a batch of
the best ones at a time), so ``max(incumbent, largest open bound)`` is a valid global
upper bound at every moment and shrinks as the search proceeds.
"""
from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from ..._linalg import top_eigh
from ._bounds import (LANCZOS_MIN, LANCZOS_STEPS, _lanczos, block_lmax, block_split_bound,
                      enumerate_completions, free_block_bound, gershgorin_bound,
                      partner_order, proves_below, schur_prunes, shifted_block,
                      soft_eig_bound, trace_bound)
from ._dual import u_order
from ._lowrank import lowrank_node, ritz_split, top_pairs

__all__ = ["Search", "SubtreePool", "ProcessNodePool", "ProcessEvalPool", "expand_subtree",
           "merge_subtrees"]

#: nodes with at most this many completions are closed by an exact batched scan
ENUM_MAX = 300
#: every this many bounded nodes propose F + the heaviest free variables as a support
PROPOSE_EVERY = 8
#: whether the 2×2 block bound runs before the eigenvalue bound
USE_BLOCK = True
#: factor between the penalties tried when the inherited one does not prune
RHO_STEP = 1.6
#: whether a node that the inherited penalty does not prune tries other penalties:
#: True, False or "auto" (one node in DESCENT_SAMPLE, see :meth:`Search._descend`)
DESCENT = "auto"
#: "auto" descent: one node in this many tries it
DESCENT_SAMPLE = 8
#: whether a Cholesky factor is tried first to prove the eigenvalue bound below the cut
PROVE_FIRST = True
#: whether the Schur-complement test (:func:`._bounds.schur_prunes`) runs, before the
#: eigenvalue bound, on the nodes with at least half as many variables fixed in as free
#: slots (where it prunes many: benchmarks/bench_exact.py, leukemia466 rand0 at s = 20)
USE_SCHUR = True
#: the Schur test runs on the nodes with at least this many variables fixed in per free slot
SCHUR_FIXED = 0.5
#: whether a node that the eigenvalue bound keeps tries the low-rank bound of
#: :mod:`._lowrank` on the same block (top three eigenpairs: about the cost of the
#: eigenvalue bound; it bounds a nearly sparse top eigenvector by its s heaviest
#: coordinates)
USE_LOWRANK = True
#: the low-rank bound runs on the root and on one node in this many (its children inherit
#: the bound it gives as their parent's). With the root's optimized U every node: at a
#: node budget of 150-500 nodes (benchmarks/bench_certificates.py's p = 1000, s = 20
#: problems, one process) it halved the gap left on leukemia covariance, took 15% off it
#: on MNIST correlations and 10% on KOS covariance, for 5-25% more time
LOWRANK_EVERY = 1
#: whether the free variables that the low-rank bound excludes leave the node
FIX_OUT = True
#: whether a large node block's top pairs come from a Lanczos run proven by a Cholesky
#: factor (:func:`._lowrank.ritz_split`) instead of a dense eigensolve
RITZ_SPLIT = True


@dataclass
class Search:
    """State of one branch and bound for max λmax(Σ[S, S]), |S| = s.

    Parameters
    ----------
    S : ndarray (p, p)
        Σ (symmetric positive semi-definite).
    s : int
        Cardinality.
    incumbent : float
        Value of ``best`` (λmax(Σ[best, best])).
    best : ndarray of int (s,)
        Incumbent support.
    tol : float
        Relative optimality tolerance: a node is pruned when its bound is
        <= incumbent·(1 + tol).
    scale : ndarray (p,) or None
        Weights of the clipping level of :func:`._bounds.soft_eig_bound` (None: uniform).
    U : ndarray (p, p) or None
        The root's optimized U of :mod:`._dual`, used instead of the clipped Σ at every
        node (the penalty is then not tuned); None: the clipped Σ.
    """

    S: np.ndarray
    s: int
    incumbent: float
    best: np.ndarray
    tol: float
    scale: np.ndarray | None = None
    U: np.ndarray | None = None
    nodes: int = 0
    leaves: int = 0
    closed_supports: int = 0
    heap: list = field(default_factory=list)
    bound_calls: dict = field(default_factory=lambda: {"cheap": 0, "block": 0,
                                                        "block_pruned": 0, "eig": 0,
                                                        "chol_pruned": 0,
                                                        "enum": 0, "schur": 0,
                                                        "schur_pruned": 0,
                                                        "lowrank": 0,
                                                        "lowrank_pruned": 0,
                                                        "fixed_out": 0})

    def __post_init__(self):
        self.absS = np.abs(self.S)
        np.fill_diagonal(self.absS, 0.0)
        self.d = np.diag(self.S).copy()
        self.order = partner_order(self.S)
        self._tie = itertools.count()
        self._lock = threading.Lock()
        self._lam_cache = {}
        self._v_top = None
        self._mix = None
        self._uorder = None

    # ---------------------------------------------------------------- bounds
    @property
    def cut(self) -> float:
        return self.incumbent + self.tol * abs(self.incumbent)

    def _offer(self, val: float, support: np.ndarray):
        with self._lock:
            if val > self.incumbent:
                self.incumbent = float(val)
                self.best = np.sort(np.asarray(support, dtype=np.intp))

    def evaluate(self, F: np.ndarray, R: np.ndarray, rho: float, parent_bound: float = np.inf):
        """Bound (or close) the node (F, F ∪ R). Returns None when closed/pruned, else
        (bound, rho, branching variable, R'): R' ⊆ R the free variables left after the
        low-rank bound removed those that no support beating the cut contains
        (:func:`._lowrank.lowrank_node`). Offers any support it meets to the incumbent.
        The parent's bound also bounds the child (its supports are among the parent's)."""
        k = self.s - F.size
        self.nodes += 1
        if k == 0 or R.size == k:
            sup = F if k == 0 else np.concatenate([F, R])
            self.leaves += 1
            self._offer(float(block_lmax(self.S, sup[None, :])[0]), sup)
            return None
        self.bound_calls["cheap"] += 1
        cut = self.cut
        if min(trace_bound(self.d, F, R, k),
               gershgorin_bound(self.absS, self.d, F, R, k, self.order)) <= cut:
            return None
        if USE_BLOCK and F.size:
            self.bound_calls["block"] += 1
            lam_T = free_block_bound(self.S, self.absS, self.d, R, k, order=self.order)
            if block_split_bound(self.S, F, R, k, self._lam_fixed(F), lam_T) <= cut:
                self.bound_calls["block_pruned"] += 1
                return None
        # a node that the cheap bounds keep and has few completions is closed exactly
        if math.comb(R.size, k) <= ENUM_MAX:
            self.bound_calls["enum"] += 1
            self.closed_supports += math.comb(R.size, k)
            val, sup = enumerate_completions(self.S, F, R, k)
            self._offer(val, sup)
            return None
        if USE_SCHUR and F.size >= SCHUR_FIXED * k:  # the fixed rows exactly (Schur complement)
            self.bound_calls["schur"] += 1
            if schur_prunes(self.S, F, R, k, cut):
                self.bound_calls["schur_pruned"] += 1
                return None
        lowrank = USE_LOWRANK and F.size + R.size >= 3 and \
            (F.size == 0 or self.nodes % LOWRANK_EVERY == 0)
        if lowrank and (self.U is not None or not self._descend()):
            bound, v, lr = self._dual_node(F, R, k, rho, cut)  # both bounds, one solve
        else:
            (bound, rho, v), lr = self._eig_bound(F, R, k, rho, cut), None
        if v is None:  # proven below the cut
            return None
        if lowrank and bound > cut:
            # the top eigenvector's s heaviest coordinates (:mod:`._lowrank`), same block
            self.bound_calls["lowrank"] += 1
            if lr is None:
                B = shifted_block(self.S, F, R, k, rho, self.scale, self.order, self.U,
                                  self._u_order())
                pairs, _, _ = self._pairs(B, F, R)
                lr = lowrank_node(B, F.size, k, pairs=pairs)
            lr, per = lr
            bound = min(bound, lr)
            if bound <= cut:
                self.bound_calls["lowrank_pruned"] += 1
                return None
            out = per <= cut  # free variables that no support beating the cut contains
            if FIX_OUT and out.any():
                self.bound_calls["fixed_out"] += int(out.sum())
                R, v = R[~out], np.concatenate([v[:F.size], v[F.size:][~out]])
                if R.size <= k:  # one support left, or none
                    if R.size == k:
                        sup = np.concatenate([F, R])
                        self._offer(float(block_lmax(self.S, sup[None, :])[0]), sup)
                    return None
        bound = min(bound, parent_bound)
        vr = np.abs(v[F.size:])
        if self.nodes % PROPOSE_EVERY == 0:
            # incumbent from the bound's eigenvector: F plus the k heaviest free variables
            sup = np.concatenate([F, R[np.argsort(-vr, kind="stable")[:k]]])
            self._offer(float(block_lmax(self.S, sup[None, :])[0]), sup)
        if bound <= self.cut:
            return None
        return bound, rho, int(R[int(np.argmax(vr))]), R

    def _descend(self) -> bool:
        """Whether this node tries the penalty descent: always with ``DESCENT = True``,
        never with False; with "auto" every ``DESCENT_SAMPLE``-th node. The descent rarely
        prunes the node itself, but its children inherit the penalty (and the lower bound)
        it finds: one node in eight keeps the penalty following the tree at a fraction of
        the cost of a descent at every node. Since the bound keeps Σ_FF whole, the descent
        pays less than it did (benchmarks/bench_exact.py: one node in two cost 30-50% on
        communities and arrhythmia for a few percent fewer nodes; none at all added 60%
        nodes on one KOS subset)."""
        if DESCENT != "auto":
            return bool(DESCENT)
        return self.nodes % DESCENT_SAMPLE == 0

    def _start(self, F, R):
        """A Lanczos start for the node's block (ordered F then R): the top eigenvector of
        Σ (computed once) restricted to the node, plus a small constant so that it is
        never zero."""
        if F.size + R.size < LANCZOS_MIN:
            return None
        if self._v_top is None:
            w = np.abs(top_eigh(self.S, small=0, check_finite=False)[1])
            self._v_top = w + 1e-2 * w.max()
        return self._v_top[np.concatenate([F, R])]

    def _u_order(self):
        """:func:`._dual.u_order` of the root's U, computed once (None without U)."""
        if self.U is None:
            return None
        if self._uorder is None:
            self._uorder = u_order(self.U)
        return self._uorder

    def _lam_fixed(self, F):
        """λmax(Σ[F, F]), remembered per F (an "out" child has its parent's F)."""
        key = F.tobytes()
        lam = self._lam_cache.get(key)
        if lam is None:
            if len(self._lam_cache) > 4096:
                self._lam_cache.clear()
            lam = self._lam_cache[key] = top_eigh(self.S[np.ix_(F, F)], small=0, check_finite=False)[0]
        return lam

    def _pairs(self, B, F, R, cut=None):
        """The top pairs of the node's block B for :func:`._lowrank.lowrank_node`:
        ``(pairs, v, λ)``. A small block: its top three eigenpairs (:func:`top_pairs`),
        v the top eigenvector, λ = λmax(B). A large one (``LANCZOS_MIN`` rows, with a
        start): the Ritz split of :func:`._lowrank.ritz_split` (a Lanczos run and a
        Cholesky proof, no dense eigensolve), v the top Ritz vector and λ = inf (the
        Ritz value is below λmax, not a bound); when its top Ritz value is at or below
        ``cut`` and a Cholesky factor proves λmax(B) <= cut, ``(None, None, cut)``."""
        v0 = self._start(F, R)
        if v0 is not None and RITZ_SPLIT:
            if self._mix is None:  # a fixed perturbation: every eigenvector is reached
                self._mix = np.random.default_rng(0).random(self.S.shape[0])
            v0 = v0 + 0.1 * float(v0.max()) * self._mix[np.concatenate([F, R])]
            sp = ritz_split(B, v0)
            if sp is not None:
                if cut is not None and PROVE_FIRST and sp[5] <= cut and proves_below(B, cut):
                    return None, None, cut
                return sp, sp[4], math.inf
        elif cut is not None and PROVE_FIRST and \
                (v0 is None or _lanczos(B, v0, LANCZOS_STEPS)[0] <= cut) and \
                proves_below(B, cut):
            return None, None, cut
        mu, Q = top_pairs(B)
        return (mu, Q), Q[:, 0], float(mu[0])

    def _dual_node(self, F, R, k, rho, cut):
        """The node's block (with the root's U of :mod:`._dual` when set, else the clipped
        Σ at ``rho``): (a bound on its λmax, its top eigenvector, the low-rank bound and
        per-variable bounds of :func:`._lowrank.lowrank_node`) from one solve of the top
        pairs (:meth:`_pairs`), after a Cholesky factor tried to prove the block below
        the cut (then ``(cut, None, None)``)."""
        self.bound_calls["eig"] += 1
        B = shifted_block(self.S, F, R, k, rho, self.scale, self.order, self.U,
                                  self._u_order())
        pairs, v, lam = self._pairs(B, F, R, cut)
        if pairs is None:
            self.bound_calls["chol_pruned"] += 1
            return cut, None, None
        if lam <= cut:
            return lam, v, None
        return lam, v, lowrank_node(B, F.size, k, pairs=pairs)

    def _eig_bound(self, F, R, k, rho, cut):
        """The shifted soft-threshold eigenvalue bound at the inherited penalty (a Cholesky
        proof below the cut first: ``(cut, rho, None)`` when it prunes). A node it does not
        prune may (:meth:`_descend`) try a local descent on ρ (steps by a factor RHO_STEP
        up, then down), keeping the smallest value found and stopping as soon as one
        prunes. Every value tried is a valid bound, so the minimum is too."""
        self.bound_calls["eig"] += 1
        v0 = self._start(F, R)
        best, v = soft_eig_bound(self.S, F, R, k, rho, self.scale, self.order,
                                 cut=cut if PROVE_FIRST else None, v0=v0, U=self.U)
        if v is None:
            self.bound_calls["chol_pruned"] += 1
            return best, rho, None
        best_rho = rho
        if best <= cut or self.U is not None or not self._descend():
            return best, best_rho, v
        start = rho if rho > 0 else 1e-2 * (1.0 if self.scale is not None else float(self.d.max()))
        for factor in (RHO_STEP, 1.0 / RHO_STEP):
            r, improved = start * factor, False
            for _ in range(8):
                self.bound_calls["eig"] += 1
                b, w = soft_eig_bound(self.S, F, R, k, r, self.scale, self.order,
                                      cut=cut if PROVE_FIRST else None, v0=v)
                if w is None or b <= cut:  # pruned at this penalty
                    return b, r, w
                if b >= best:
                    break
                best, best_rho, v, improved = b, r, w, True
                r *= factor
            if improved or rho == 0:
                break
        return best, best_rho, v

    def _evaluate_before(self, deadline, w):
        """:meth:`evaluate` while time is left; past ``deadline`` the child is kept open
        with its parent's bound (valid: its supports are among the parent's) and any free
        variable to branch on, so a batch never runs far past the budget."""
        F, R, rho, parent_bound = w
        if time.perf_counter() >= deadline and R.size > self.s - F.size > 0:
            return parent_bound, rho, int(R[0])
        return self.evaluate(F, R, rho, parent_bound)

    # ------------------------------------------------------------------ tree
    def push(self, F, R, item):
        """Open the node (F, F ∪ R) with ``item`` = (bound, ρ, branching variable) from
        :meth:`evaluate`, whose optional fourth entry replaces R (the free variables that
        evaluation left in the node)."""
        bound, rho, j = item[:3]
        if len(item) > 3:
            R = item[3]
        heapq.heappush(self.heap, (-bound, next(self._tie), F, R, rho, j))

    @property
    def upper_bound(self) -> float:
        """max(incumbent, largest open bound): no support is better than this."""
        top = -self.heap[0][0] if self.heap else -np.inf
        return max(self.incumbent, top)

    def gap(self) -> float:
        ub = self.upper_bound
        return max(ub - self.incumbent, 0.0) / max(abs(ub), 1e-300)

    def root(self, allowed: np.ndarray, rho: float, *, deadline: float = math.inf,
             bound: float = np.inf):
        """Open the root (F = ∅, A = ``allowed``). Past ``deadline`` it is opened with the
        given ``bound`` (a valid root bound) instead of being evaluated."""
        F, A = np.zeros(0, dtype=np.intp), np.asarray(allowed, dtype=np.intp)
        if time.perf_counter() >= deadline and A.size > self.s > 0 and bound > self.cut:
            item = (float(bound), rho, int(A[0]))
        else:
            item = self.evaluate(F, A, rho, bound)
        if item is not None:
            self.push(F, A, item)

    def run(self, *, deadline: float, max_nodes: int, batch: int = 8, pool=None, progress=None):
        """Expand nodes best-first until the gap closes, the time or the node budget runs out.

        Returns True when the tree was exhausted (nothing open above the cut)."""
        while self.heap:
            if time.perf_counter() >= deadline or self.nodes >= max_nodes:
                return False
            if -self.heap[0][0] <= self.cut:
                self.heap.clear()  # every open bound is at most the incumbent (within tol)
                break
            if isinstance(pool, SubtreePool):
                # subtrees: the best open nodes, each expanded in a worker for a while;
                # what is left open there comes back to this heap
                roots = []
                while self.heap and len(roots) < pool.subtrees_per_batch and \
                        -self.heap[0][0] > self.cut:
                    neg, _, F, R, rho, j = heapq.heappop(self.heap)
                    roots.append((F, R, -neg, rho, j))
                for F, R, bound, rho, j in pool.expand(self, deadline, roots):
                    if bound > self.cut:
                        self.push(F, R, (bound, rho, j))
                if progress is not None:
                    progress(self)
                continue
            work = []
            while self.heap and len(work) < batch and -self.heap[0][0] > self.cut:
                neg, _, F, R, rho, j = heapq.heappop(self.heap)
                Rj = R[R != j]
                work.append((np.append(F, j), Rj, rho, -neg))  # j in
                work.append((F, Rj, rho, -neg))                # j out
            if isinstance(pool, ProcessEvalPool):
                items = pool.evaluate(self, deadline, work)
            elif pool is not None and len(work) > 1:
                items = list(pool.map(lambda w: self._evaluate_before(deadline, w), work))
            else:
                items = [self._evaluate_before(deadline, w) for w in work]
            for (F, R, _, _), item in zip(work, items):
                if item is not None and item[0] > self.cut:
                    self.push(F, R, item)
            if progress is not None:
                progress(self)
        return True


# ------------------------------------------------------------------ subtrees elsewhere
def expand_subtree(ws: Search, args):
    """Expand one subtree on the worker's own :class:`Search` ``ws`` (on Σ, with the
    problem's s, tol and clipping weights): the open node ``root`` = (F, R, bound, ρ,
    branching variable) is searched best-first at the incumbent it is sent, for at most
    ``max_nodes`` node evaluations or until the deadline (``left`` seconds after ``sent``,
    a ``time.time()`` value, when given: a subtree that waited in the queue does not get a
    fresh budget).
    Returns the nodes left open (same tuples; each carries a valid bound of its subtree),
    the worker's incumbent and support (when it improved) and the counters it spent. The
    state of ``ws`` (node counter included) is reset for every subtree, so what a subtree
    does does not depend on the worker that runs it nor on what it ran before."""
    left, incumbent, max_nodes, root = args[:4]
    if len(args) > 4:  # a subtree queued behind others spends the same budget, not a new one
        left -= max(time.time() - args[4], 0.0)
    ws.incumbent, ws.best = incumbent, np.zeros(0, dtype=np.intp)
    ws.nodes = ws.leaves = ws.closed_supports = 0
    ws.bound_calls = {key: 0 for key in ws.bound_calls}
    ws.heap = []
    F, R, bound, rho, j = root
    ws.push(F, R, (bound, rho, j))
    ws.run(deadline=time.perf_counter() + left, max_nodes=max_nodes)
    rest = [(F, R, -neg, rho, j) for neg, _, F, R, rho, j in ws.heap]
    found = (ws.incumbent, ws.best) if ws.incumbent > incumbent else None
    return rest, found, (ws.nodes, ws.leaves, ws.closed_supports, dict(ws.bound_calls))


def merge_subtrees(search: Search, results) -> list:
    """Fold the results of :func:`expand_subtree` into ``search``, in the order given
    (the order of the roots, whoever ran them): counters added, the supports found
    offered to the incumbent one after the other (the first of equal values is kept).
    Returns the nodes the subtrees left open."""
    rest = []
    for nodes_left, found, counts in results:
        _merge_counts(search, found, counts)
        rest.extend(nodes_left)
    return rest


def _merge_counts(search, found, counts) -> None:
    """A worker's counters ``(nodes, leaves, closed, calls)`` added to ``search``, and
    the support it found (or None) offered to the incumbent."""
    nodes, leaves, closed, calls = counts
    search.nodes += nodes
    search.leaves += leaves
    search.closed_supports += closed
    for key, v in calls.items():
        search.bound_calls[key] = search.bound_calls.get(key, 0) + v
    if found is not None:
        search._offer(*found)


class SubtreePool:
    """Expands whole subtrees of a :class:`Search` in workers that hold their own copy of
    Σ (worker processes: :class:`ProcessNodePool`; a Dask cluster:
    :class:`eigensparse.solvers._exact._dask.DaskNodePool`); :meth:`Search.run` treats
    every such pool alike.

    Each batch takes the ``subtrees_per_batch`` best open nodes; a worker expands one of
    them best-first for ``nodes_per_subtree`` node evaluations (:func:`expand_subtree`)
    and sends back the nodes it left open, which join the main heap, so the global bound
    stays max(incumbent, largest open bound). Incumbent exchange: every subtree of a batch
    is searched at the incumbent of the batch's start; the results are merged in the
    order of the roots (:func:`merge_subtrees`) and the next batch starts from the best
    support found, so the result does not depend on which worker ran what or when.

    A subclass sets ``workers``, ``subtrees_per_batch`` and ``nodes_per_subtree`` and
    implements :meth:`_map` and :meth:`shutdown`.
    """

    workers: int
    subtrees_per_batch: int
    nodes_per_subtree: int

    def expand(self, search: Search, deadline: float, roots) -> list:
        """Expand ``roots`` (open nodes (F, R, bound, ρ, j)) in the workers; returns the
        nodes they left open (the roots themselves when the workers did not answer)."""
        left = deadline - time.perf_counter()
        sent = time.time()  # the wall clock, comparable in every worker
        args = [(left, search.incumbent, self.nodes_per_subtree, r, sent) for r in roots]
        out = self._map(args, left)
        if out is None:  # no answer: the roots stay open, with their (valid) bounds
            return list(roots)
        return merge_subtrees(search, out)

    def _map(self, args, left: float):
        """The results of :func:`expand_subtree` for ``args``, in their order (None: the
        workers did not answer in time)."""
        raise NotImplementedError

    def shutdown(self):
        raise NotImplementedError


_WORKER: Search | None = None


def _worker_init(S, s, tol, scale, U=None):
    """Each worker process holds its own :class:`Search` on Σ (sent once, with the
    clipping weights and the root's U)."""
    global _WORKER
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1)
    _WORKER = Search(S, s, -np.inf, np.zeros(0, dtype=np.intp), tol, scale, U)


def _worker_subtree(args):
    """:func:`expand_subtree` on this worker process's :class:`Search`."""
    return expand_subtree(_WORKER, args)


class ProcessNodePool(SubtreePool):
    """Expands subtrees of the search in worker processes (the GIL is not shared).

    A node (F, R, bound, ρ, branching variable) is a tuple of small arrays and floats, so
    it pickles cheaply; Σ is sent once per worker (the pool's initializer). Batches,
    incumbent exchange and determinism: see :class:`SubtreePool`.
    """

    def __init__(self, search: Search, workers: int, nodes_per_subtree: int = 64):
        from concurrent.futures import ProcessPoolExecutor
        import multiprocessing as mp

        self.workers = int(workers)
        self.subtrees_per_batch = 2 * self.workers
        self.nodes_per_subtree = int(nodes_per_subtree)
        self.executor = ProcessPoolExecutor(
            workers, mp_context=mp.get_context(), initializer=_worker_init,
            initargs=(search.S, search.s, search.tol, search.scale, search.U))

    def _map(self, args, left):
        return list(self.executor.map(_worker_subtree, args))

    def shutdown(self):
        self.executor.shutdown(cancel_futures=True)


def _worker_evaluate(args):
    """One node's :meth:`Search.evaluate` on this worker process's :class:`Search`, at the
    incumbent it is sent and as the node of that index (the samplings of
    :meth:`Search.evaluate` read the node counter), so the answer does not depend on the
    worker. Past the deadline (``left`` seconds after ``sent``, a ``time.time()`` value)
    the node stays open with its parent's bound. Returns (item, the support found when
    it beat the incumbent, counters)."""
    left, sent, incumbent, index, (F, R, rho, parent_bound) = args
    ws = _WORKER
    ws.incumbent, ws.best = incumbent, np.zeros(0, dtype=np.intp)
    ws.nodes, ws.leaves, ws.closed_supports = index, 0, 0
    ws.bound_calls = {key: 0 for key in ws.bound_calls}
    if time.time() - sent >= left and R.size > ws.s - F.size > 0:
        item = (parent_bound, rho, int(R[0]))
    else:
        item = ws.evaluate(F, R, rho, parent_bound)
    found = (ws.incumbent, ws.best) if ws.incumbent > incumbent else None
    return item, found, (ws.nodes - index, ws.leaves, ws.closed_supports,
                         dict(ws.bound_calls))


class ProcessEvalPool:
    """Evaluates the nodes of each batch of :meth:`Search.run` in worker processes, one
    task per node, while the tree stays in this process: the order is best-first over
    the whole tree, as with one worker (subtrees, :class:`ProcessNodePool`, are searched
    best-first only within each subtree). For expensive nodes (a node of a p = 1000
    problem costs tens of milliseconds, a task's transfer well under one). Σ, the
    clipping weights and the root's U are sent once per worker; a batch's nodes are
    evaluated at the incumbent of its start, each as the node of its index, and the
    results merged in the batch's order, so the search does not depend on which worker
    ran what."""

    def __init__(self, search: Search, workers: int):
        from concurrent.futures import ProcessPoolExecutor
        import multiprocessing as mp

        self.workers = int(workers)
        self.executor = ProcessPoolExecutor(
            workers, mp_context=mp.get_context(), initializer=_worker_init,
            initargs=(search.S, search.s, search.tol, search.scale, search.U))

    def evaluate(self, search: Search, deadline: float, work) -> list:
        """The items of :meth:`Search.evaluate` for ``work`` (tuples (F, R, ρ, parent's
        bound)), in order; counters and supports found are merged into ``search``."""
        left, sent, base = deadline - time.perf_counter(), time.time(), search.nodes
        args = [(left, sent, search.incumbent, base + i, w) for i, w in enumerate(work)]
        items = []
        for item, found, counts in self.executor.map(_worker_evaluate, args):
            _merge_counts(search, found, counts)
            items.append(item)
        return items

    def shutdown(self):
        self.executor.shutdown(cancel_futures=True)
