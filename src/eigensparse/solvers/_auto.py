"""The default method ``"auto"``: a portfolio that searches the whole problem's
correlation structure, and a bound on the whole problem with every answer.

What it does (one component, exact cardinality s), and why (s = 1 is solved exactly: the
feature of largest variance):

1. **Working set.** W = every feature when p <= ``DENSE_FEATURES`` (256), and also
   beyond, up to ``GLOBAL_FEATURES`` (4096), whenever Σ is held in memory (a
   :class:`Covariance`, a formed Gram matrix, see ``eigensparse.operators._gram``) or
   costs at most ``GLOBAL_FORM_FLOPS`` to form: ranking features by variance means
   nothing on a correlation matrix, and the strongest sparse direction is often a group
   of correlated features of moderate variance. Only when Σ is neither held nor cheap
   (wide data, p in the thousands) is W a subset: the features of largest variance,
   those of largest weight in Σ's leading eigenvectors (a key that sees correlated
   groups when samples are many), the warm start, and, when Σ can be streamed in
   row blocks for at most ``PARTNER_KEY_FLOPS``, the features of largest partner
   score (variance plus the s − 1 largest |Σ_ij| of the row) with the neighbourhoods
   of the best: with few samples the leading eigenvectors are noise, and only the
   partners see a correlated group. The streamed partners also give the whole
   problem's Gershgorin partner bound.
2. **Warm start.** The approximate greedy path (handbook Alg. 3; ``WARM_START``), run
   compiled on B (:func:`~eigensparse.solvers._auto_kernels.approx_greedy_order`: each
   step's leading eigenvector from a few Lanczos steps warm-started at the previous one).
   Starting vectors passed as ``init`` take its place (the refinement of a deflation
   chain passes the component being re-solved).
3. **Starts.** The greedy support, the top-variance support, ``e_i`` for the features of
   largest column energy ‖B[:, i]‖, Gaussian starts truncated to s entries, and the
   best **neighbourhoods**: feature i with its s − 1 strongest partners |B_ij|, ranked
   by a few batched power steps on their s×s blocks. A planted group is the neighbourhood of each of its members,
   whatever the variances around it. The partners come from one compiled selection per
   row, shared with the Gershgorin bound.
4. **Multistart truncated power** on B from all starts at once: every iterate is
   s-sparse, so one step costs O(m·s) (s rows of B scaled and added, then an O(m)
   selection) in the compiled loop
   (:func:`~eigensparse.solvers._auto_kernels.tpower_from_supports`). The number of
   random starts scales with the problem under a fixed flop budget:
   N = clip(``START_FLOPS`` / m², 16, 256), at least ``GLOBAL_MIN_STARTS`` beyond 256
   features; they come from ``random_state`` only, so the result is deterministic.
5. **Swap polish.** 1-swap local search from the best distinct candidates (one up to
   ``SWAP_SMALL`` features, ``SWAP_STARTS`` above: two overlapping clusters of correlated
   features can sit three swaps apart): a lower bound on the variance after each
   exchange is the top eigenvalue of a 2×2 matrix, for all s·m exchanges in O(s·m); the
   ``SWAP_EXACT`` best are evaluated exactly and the best improving one taken, until none
   improves.
6. **Full problem.** When W is a subset, one product Σx checks that the answer is a
   fixed point of the full iteration; otherwise :func:`~eigensparse.solvers.tpower` on
   the full operator moves on from it. The loadings are the leading eigenvector of
   Σ[I, I] (``polish``).
7. **Certificate (small problems).** Up to ``CERTIFY_FEATURES`` features the answer
   is the incumbent of a node-limited run of ``method="exact"``'s branch and bound
   (:func:`~eigensparse.solvers._exact.prove_support`): ``info["certified"]`` when it
   closes, else a tighter bound.
8. **Bound.** Every result carries ``upper_bound`` ≥ v(s) of the whole problem, ``gap``
   = upper_bound − variance and ``info["bound"]`` naming the bound
   (:func:`~eigensparse.bounds.full_problem_bound`): the smaller of the trace bound and
   the Gershgorin partner bound, and λmax(Σ) (proven by a Cholesky factor of t·I − Σ)
   up to ``CHOLESKY_BOUND_FEATURES``; when W is a subset, the working-set split bound.
   ``method="exact"`` certifies (or tightens) it.

The measurements behind these choices are in ``benchmarks/bench_global.py`` and
``benchmarks/bench_defaults.py``.
"""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from .._linalg import fix_sign, top_eigh
from .._validation import Interval, InvalidParameterError, check_start_vectors
from ..bounds import (BOUND_DENSE, BOUND_GERSHGORIN, _full_problem_bound,
                      _lambda_max_upper_bound)
from ..operators import Covariance, HotellingDeflated, Operator
from . import register
from .am import tpower
from ._common import check_random_state, make_result, polish_loadings
from ._auto_kernels import (approx_greedy_order, first_distinct_rows, gather_block_single,
                            neighbourhood_scores, row_partners, rows_partners,
                            rows_with_nonzero, support_values,
                            swap_search, tpower_from_supports)
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
#: beyond DENSE_FEATURES, the whole matrix is searched when it is held or costs at most
#: GLOBAL_FORM_FLOPS multiply-adds to form, up to GLOBAL_FEATURES features (the budget of
#: the partner key, PARTNER_KEY_FLOPS: a working set keyed by partners streams Σ once
#: anyway, so up to GLOBAL_FEATURES Σ is formed and searched whole instead)
GLOBAL_FEATURES = 4096
GLOBAL_FORM_FLOPS = 2e10
#: starts on the whole matrix beyond DENSE_FEATURES: at least GLOBAL_MIN_STARTS, plus the
#: NEIGHBOURHOOD_STARTS best neighbourhoods (:func:`_neighbourhoods`)
GLOBAL_MIN_STARTS = 16
NEIGHBOURHOOD_STARTS = 32
#: the swap search runs from this many best distinct candidates (two clusters of
#: correlated features sharing one member can sit three swaps apart: communities
#: covariance, s = 5)
SWAP_STARTS = 8
SWAP_SMALL = 32
#: ... fewer as s·m grows (at most SWAP_START_FLOPS / (s·m), at least one); one for a warm
#: re-solve (``init`` given: the refinement), which adds no neighbourhood starts either
SWAP_START_FLOPS = 5_000
#: ... and up to GLOBAL_SWAP_STARTS under GLOBAL_SWAP_START_FLOPS beyond DENSE_FEATURES,
#: where separate clusters of correlated features are more numerous and closer in value
#: (a 300-senator covariance, s = 10: the best cluster was the second candidate; a
#: 466-pixel MNIST correlation, s = 5: the ninth, 0.012% above the first)
GLOBAL_SWAP_STARTS = 16
GLOBAL_SWAP_START_FLOPS = 60_000
#: batched power steps that rank the neighbourhoods before the best are solved exactly
HOOD_POWER_STEPS = 2
#: ... beyond HOOD_PROBE partners, taken by the HOOD_ROWS_PER_START × NEIGHBOURHOOD_STARTS
#: neighbourhoods whose cores (HOOD_PROBE strongest partners) rank best (:func:`_neighbourhoods`)
HOOD_PROBE = 10
HOOD_ROWS_PER_START = 4
#: leading eigenvectors whose weights key the working set when Σ is not formed
SPECTRAL_VECTORS = 8
#: ... and the partner scores of every feature, when Σ streamed in row blocks of at most
#: PARTNER_KEY_BYTES costs at most PARTNER_KEY_FLOPS multiply-adds (:func:`_partner_key`)
PARTNER_KEY_FLOPS = 2e10
PARTNER_KEY_BYTES = 4 * 2**20
#: λmax(Σ) joins the cheap bound: exact up to EIG_BOUND_FEATURES features (one dense
#: eigvalsh), a Lanczos estimate proven by a Cholesky factor up to CHOLESKY_BOUND_FEATURES
EIG_BOUND_FEATURES = 128
CHOLESKY_BOUND_FEATURES = 640
#: small problems (p <= CERTIFY_FEATURES, the whole matrix searched, no ``init``): the
#: answer is handed to the branch and bound of ``method="exact"`` for at most CERTIFY_NODES
#: nodes (deterministic work), which proves it optimal (``info["certified"]``) or tightens
#: the bound, and takes any better support it meets
CERTIFY_FEATURES = 48
CERTIFY_NODES = 64
CERTIFY_TOL = 1e-9
BOUND_CERTIFIED = "certified by branch and bound"
BOUND_TREE = "branch and bound (node-limited)"
#: relative margin on a reported upper bound: rounding never puts it below a value
BOUND_MARGIN = 1e-10
#: at most this many swap rounds
SWAP_ROUNDS = 64
#: distinct multistart supports compared (with the warm start's) before the swap search
N_REFINE = 4
#: above this working-set size the truncated power products B·x run on a single-precision
#: copy of B (half the memory traffic, twice the vector width); the candidates' values
#: are computed in double precision
SINGLE_PRODUCT_FEATURES = 256


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


def _block_cost(op: Operator) -> float:
    """Multiply-adds to form the whole p×p matrix with ``op.block`` (inf when unknown)."""
    p = float(op.n_features)
    if _dense_matrix(op) is not None:
        return p * p
    cost = getattr(op, "_product_cost", None)
    if callable(cost):  # a data operator: about n·p² (dense), less for sparse rows
        return float(cost()) * p / 2.0
    parent = getattr(op, "parent", None)
    if isinstance(parent, Operator):  # a deflation: the parent's block and a rank-one term
        return _block_cost(parent) + 2.0 * p * p
    return np.inf


def _full_matrix(op: Operator):
    """The whole p×p matrix when it is held in memory or cheap to form (at most
    ``GLOBAL_FEATURES`` features and ``GLOBAL_FORM_FLOPS`` multiply-adds), else None."""
    S = _dense_matrix(op)
    if S is not None or op.n_features > GLOBAL_FEATURES:
        return S
    if _block_cost(op) > GLOBAL_FORM_FLOPS:
        return None
    S = np.asarray(op.block(np.arange(op.n_features)), dtype=float)
    return np.ascontiguousarray(0.5 * (S + S.T))


def _spectral_scores(op: Operator, k: int) -> np.ndarray:
    """Each feature's weight in the leading ``k`` eigenvectors of Σ (the diagonal of the
    rank-k approximation Σ_k = Σ λ_j u_j u_jᵀ): a key that sees correlated groups of
    moderate variance, from a few dozen products with Σ."""
    import scipy.sparse.linalg as spla

    p = int(op.n_features)
    k = max(1, min(int(k), p - 2))
    lin = spla.LinearOperator((p, p), matvec=lambda v: op.matvec(np.ravel(v)),
                              matmat=lambda V: op.matmat(V), dtype=float)
    v0 = np.ones(p) / np.sqrt(p)  # deterministic
    lam, U = spla.eigsh(lin, k=k, which="LA", v0=v0, tol=1e-4, maxiter=20 * p)
    return (U * U) @ np.maximum(lam, 0.0)


def _partner_key(op: Operator, s: int):
    """``(J, V)`` of :func:`~eigensparse.solvers._auto_kernels.row_partners` for every
    feature of the whole Σ (each feature's s − 1 strongest partners and their |Σ_ij|),
    from Σ streamed in blocks of rows (``Operator.rows``) of at most ``PARTNER_KEY_BYTES``; None when
    that costs more than ``PARTNER_KEY_FLOPS`` multiply-adds (:func:`_block_cost`, or
    the operator's own ``_form_cost``) or s = 1."""
    p = int(op.n_features)
    t = min(s - 1, p - 1)
    form = getattr(op, "_form_cost", None)  # sparse data: Σ_rows nnz², not n·p²
    if t <= 0 or not (float(form()) if callable(form) else _block_cost(op)) <= PARTNER_KEY_FLOPS:
        return None
    width = int(max(1, min(p, PARTNER_KEY_BYTES // (8 * p))))
    J = np.empty((p, t), dtype=np.int64)
    V = np.empty((p, t))
    for lo in range(0, p, width):
        idx = np.arange(lo, min(lo + width, p))
        R = np.ascontiguousarray(op.rows(idx), dtype=float)  # Σ[idx, :]
        J[idx], V[idx] = rows_partners(R, idx, t)
    return J, V


def _working_set(op: Operator, d: np.ndarray, s: int, given=None):
    """``(W, warm, gershgorin)``: the working set W (sorted feature indices); when it was
    needed to build W, the warm-start support in feature indices (else None: it is
    computed on Σ[W, W]); and the Gershgorin partner bound of the whole problem when
    the partner key was computed (else None). ``given`` (a list of supports from
    ``init``) replaces the warm start: the first is the warm support, and all of them
    join W.

    Used only when Σ is not held and not cheap to form (p > ``DENSE_FEATURES``): W is
    the union of the features of largest variance, of largest weight in Σ's leading
    eigenvectors (:func:`_spectral_scores`), and the warm start; and, when Σ can be
    streamed at most ``PARTNER_KEY_FLOPS`` (:func:`_partner_key`), of largest partner
    score d_i + Σ_j∈J_i |Σ_ij| and the neighbourhoods (feature and partners) of the
    ``NEIGHBOURHOOD_STARTS`` best: variances and leading eigenvectors both miss a group
    of correlated features of moderate variance (a correlation matrix has no variance
    order; with few samples its leading eigenvectors are noise)."""
    p = op.n_features
    if p <= DENSE_FEATURES:
        return np.arange(p), (None if given is None else given[0]), None
    m = min(p, max(WORKING_SET_MIN, WORKING_SET_PER_CARD * s))
    top = np.argsort(-d, kind="stable")[:m]
    spec = np.argsort(-_spectral_scores(op, SPECTRAL_VECTORS), kind="stable")[:m]
    top = np.union1d(top, spec)
    gershgorin = None
    key = _partner_key(op, s) if given is None else None  # (a warm re-solve explores less)
    if key is not None:
        J, V = key
        score = d + V.sum(axis=1)
        gershgorin = float(score.max())
        ranked = np.argsort(-score, kind="stable")
        hoods = ranked[:NEIGHBOURHOOD_STARTS]
        top = np.union1d(top, np.concatenate([ranked[:m], hoods, J[hoods].ravel()]))
    if given is not None:
        return np.union1d(top, np.concatenate(given)), given[0], gershgorin
    warm = np.sort(_path(op, s, WARM_START)[0])
    return np.union1d(top, warm), warm, gershgorin


def _partners(B: np.ndarray, s: int):
    """``(d, P, J)``: ``(d, P)`` of :func:`~eigensparse.bounds.partner_sums` on B
    (compiled: one selection per row) and each row's partners J."""
    d = np.diag(B).copy()
    t = min(s - 1, B.shape[0] - 1)
    if t <= 0:
        return d, np.zeros((B.shape[0], max(s - 1, 0))), np.zeros((B.shape[0], 0), dtype=np.int64)
    J, P = row_partners(B, t, True)  # P: the running sums of each row's partner values
    if P.shape[1] < s - 1:
        P = np.hstack([P, np.repeat(P[:, -1:], s - 1 - P.shape[1], axis=1)])
    return d, P, J


def _neighbourhoods(B: np.ndarray, J: np.ndarray, limit: int):
    """Starts from each feature's neighbourhood: feature i with its s − 1 strongest
    partners ``J[i]`` (from :func:`_partners`). Returns the
    ``limit`` best distinct supports, as ``(supports, values)`` (sorted supports;
    values: an approximate leading eigenvector of their s×s block), best first, ranked
    by a lower bound on λmax of their block: the Rayleigh quotient after
    ``HOOD_POWER_STEPS`` batched power steps from B[i, N_i]. A group of correlated
    features of moderate variance is the neighbourhood of each of its members, whatever
    the variances around it.

    Beyond ``HOOD_PROBE`` partners, the neighbourhoods are first ranked on their cores
    (feature i with its ``HOOD_PROBE`` strongest partners, the first columns of J: the
    same bound on a (HOOD_PROBE + 1)² block), and only the ``HOOD_ROWS_PER_START`` ×
    ``limit`` best take the steps on their whole block."""
    m, t = J.shape
    rows = np.arange(m)
    if t > HOOD_PROBE and m > HOOD_ROWS_PER_START * limit:
        core = np.ascontiguousarray(J[:, :HOOD_PROBE])
        rq, _ = neighbourhood_scores(B, rows, core, HOOD_POWER_STEPS)
        rows = np.sort(np.argsort(-rq, kind="stable")[:HOOD_ROWS_PER_START * limit])
    sup = np.hstack([rows[:, None], J[rows]])
    rq, v = neighbourhood_scores(B, rows, np.ascontiguousarray(J[rows]), HOOD_POWER_STEPS)
    order = np.argsort(-rq, kind="stable")
    head = order[:2 * limit]  # usually enough: few neighbourhoods coincide
    while True:
        perm = np.argsort(sup[head], axis=1)  # the entries of a row are distinct
        srt = np.take_along_axis(sup[head], perm, axis=1)
        keep = first_distinct_rows(srt, np.arange(head.size), limit)
        if keep.size == limit or head.size == order.size:
            break
        head = order
    return srt[keep], np.take_along_axis(v[head], perm, axis=1)[keep]


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


def _start_supports(B: np.ndarray, s: int, greedy_support: np.ndarray, N: int, rng, pos=None,
                    energy=None):
    """N s-sparse starting points on the working set, as ``(supports, values)`` of
    shape (N, s) each (supports sorted; a start with fewer nonzeros carries zero values
    on filler features): the greedy support, the top-variance support, ``e_i`` for the
    features of largest column energy ‖B[:, i]‖, and Gaussian vectors truncated to their
    s largest entries.

    ``pos`` (from :func:`_drop_null`): the starts are drawn on B, then mapped to the
    null-free block's positions (every null feature to its one kept null row, where a
    start's entry multiplies a zero row: the same iterates, from the same draws).
    ``energy``: the column energies ‖B[:, i]‖² when already computed."""
    m = B.shape[0]
    sup = np.empty((N, s), dtype=np.int64)
    val = np.ones((N, s))
    sup[0] = greedy_support
    if N > 1:
        sup[1] = np.sort(np.argsort(-np.diag(B), kind="stable")[:s])
    n_coord = max(0, min(m, (N - 2) // 2))
    if n_coord:  # e_i padded with zero-valued filler features: [0, s) if i < s, else [0, s-1) ∪ {i}
        if energy is None:
            energy = np.einsum("ij,ij->j", B, B)
        coords = np.argsort(-energy, kind="stable")[:n_coord]
        if pos is not None:
            coords = pos[coords]
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
        sup[N - n_rand:] = top if pos is None else pos[top]
        val[N - n_rand:] = np.take_along_axis(G, top, axis=1)
    if pos is not None:
        sup[:2] = pos[sup[:2]]
    return sup, val


def _drop_null(B: np.ndarray, s: int, warm: np.ndarray, N: int):
    """``(keep, pos)`` to search the null-free block B[keep, keep] instead of B, or None.

    A null feature (zero variance, so a zero row of the PSD B: MNIST's constant border
    pixels) never adds variance, and its zero row cannot change a product, a selection
    above zero, a bound or an eigenvalue: the search runs on the other features plus
    one null feature (the target of every start entry on a null feature; ``pos`` maps
    B's positions to the block's). Dropped only when there are at least two, the warm
    start avoids them, and s and the coordinate starts fit in the others."""
    d = np.diag(B)
    null = d == 0
    if np.count_nonzero(null) < 2:
        return None
    rows = np.flatnonzero(null)
    null[rows[rows_with_nonzero(B, rows)]] = False  # a zero variance with a nonzero row: kept
    n_null = int(np.count_nonzero(null))
    m = B.shape[0]
    if n_null < 2 or s >= m - n_null or (N - 2) // 2 >= m - n_null or null[warm].any():
        return None
    sink = int(np.flatnonzero(null)[0])
    null[sink] = False
    keep = np.flatnonzero(~null)
    pos = np.full(m, int(np.searchsorted(keep, sink)), dtype=np.int64)
    pos[keep] = np.arange(keep.size)
    return keep, pos


def _swap_search(B: np.ndarray, support: np.ndarray, exact: bool = True,
                 start: np.ndarray | None = None) -> tuple[np.ndarray, float, int, np.ndarray]:
    """1-swap local search from ``support`` on B (compiled:
    :func:`~eigensparse.solvers._auto_kernels.swap_search`). Every exchange (support
    feature i out, feature j in) is bounded from below by the top eigenvalue of a 2×2
    matrix (u = the eigenvector z without entry i, plus e_j: [[a_i, b_ij], [b_ij, B_jj]]
    with a_i = uᵀBu/‖u‖², b_ij = B[j, I∖i]·u/‖u‖), for all s·m exchanges in O(s·m); the
    ``SWAP_EXACT`` best are evaluated (a few power steps, then exactly when no
    improvement is proven) and the best improving one is taken, until none improves
    (``exact=False``: until the power steps prove none, a cheaper search for the
    further candidates). ``start``: an approximate leading eigenvector of the block of
    ``support`` (in its order), the first eigenvalue solve's start. Returns the final
    support (sorted), its λmax, the rounds and its unit leading eigenvector (Lanczos, to
    a relative Ritz residual of ``EIG_TOL``)."""
    m, s = B.shape[0], support.size
    support = np.asarray(support, dtype=np.int64)
    order = np.argsort(support, kind="stable")
    support = support[order]
    z0 = np.zeros(s) if start is None else np.asarray(start, dtype=float)[order]
    n_exact = int(min(SWAP_EXACT, max(4, SWAP_FLOPS // s**3), max(s * (m - s), 1)))
    lam, rounds, z = swap_search(B, support, n_exact, SWAP_ROUNDS, bool(exact), z0)
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


@register("auto", cost="O(m·s) per truncated power step and start (compiled); O(p²) partners",
          summary="Default: greedy and neighbourhood starts, multistart truncated power, "
                  "1-swap polish, a bound on the whole problem.",
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
        Represents the p×p covariance Σ (any operator: ``diag``, ``block`` and, when Σ
        is not formed, its products).
    cardinality : int
        Exact support size s, 1 <= s <= p.
    n_starts : int >= 1 or None
        Random and coordinate starting points of the batched truncated power stage
        (the neighbourhood starts come on top); None scales them with the working-set
        size m: clip(1.6·10⁵/m², 16, 256), at least 64 beyond 256 features.
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
    s = _check_problem(op, cardinality, "auto")
    p = int(op.n_features)
    rng = check_random_state(random_state)
    given, A = (None, None) if init is None else _init_supports(init, p, s)
    if s == 1:  # exact: the feature of largest variance (ties: the lowest index)
        i = int(np.argmax(np.asarray(op.diag(), dtype=float)))
        z, lam = polish_loadings(op, [i])
        return make_result(op, z, "auto", variance=lam, n_iter=0, converged=True,
                           upper_bound=float(lam), gap=0.0,
                           message="auto: s = 1, the feature of largest variance (exact)",
                           info={"n_starts": 0, "working_set": 1, "exact": True})
    W, B, warm, gershgorin = _working_block(op, s, given)
    m = W.size
    N = _n_starts(m) if n_starts is None else int(n_starts)
    if m > DENSE_FEATURES and n_starts is None:
        N = max(N, GLOBAL_MIN_STARTS)
    if given is not None and n_starts is None:  # a warm re-solve explores less
        N = min(N, WARM_STARTS)
    dropped = _drop_null(B, s, warm, N) if W.size == p else None
    keep, pos = (None, None) if dropped is None else dropped
    single = (m if keep is None else keep.size) > SINGLE_PRODUCT_FEATURES
    energy = None
    if keep is not None:  # the null-free block, its single-precision copy, its energies
        Bk, Bp, energy_k = gather_block_single(B, keep, single)
        energy = np.zeros(m)  # a null feature's column is zero
        energy[keep] = energy_k
    sup0, val0 = _start_supports(B, s, warm, N, rng, pos, energy)
    if given is not None:  # the given vectors' own entries on their supports
        val0[0] = A[given[0], 0]
        extra = [np.searchsorted(W, g) for g in given[1:]]
        if extra:
            sup0 = np.vstack([sup0, extra if pos is None else pos[np.array(extra)]])
            val0 = np.vstack([val0, [A[g, c] for c, g in enumerate(given[1:], start=1)]])
    B_full = B
    if keep is not None:  # the search runs on the null-free block
        B, warm = Bk, pos[warm]
    if not single:  # the products' matrix: B itself, or its single-precision copy
        Bp = B
    elif keep is None:
        Bp = B.astype(np.float32)
    n_hood = 0
    d_B, P, J = _partners(B, s)  # the bound's and the starts'
    if given is None and s < m and J.shape[1] == s - 1:  # the correlation structure
        hood_sup, hood_val = _neighbourhoods(B, J, NEIGHBOURHOOD_STARTS)
        n_hood = hood_sup.shape[0]
        sup0, val0 = np.vstack([sup0, hood_sup]), np.vstack([val0, hood_val])
    sups, xs, f, _ = tpower_from_supports(B, sup0, val0, max_iter, tol, Bp)
    multi_value = float(f.max())
    n_cand = max(N_REFINE, SWAP_STARTS if m <= DENSE_FEATURES else GLOBAL_SWAP_STARTS)
    keep_c = first_distinct_rows(sups, np.argsort(-f, kind="stable"), n_cand)
    cands = list(sups[keep_c]) + [warm]
    starts = np.vstack([xs[keep_c], np.ones((1, s))])  # each candidate's tpower iterate
    vals = support_values(B, np.array(cands), starts)
    best = int(np.argmax(vals))
    support, value = cands[best], float(vals[best])
    rounds, before, z_best = 0, value, None
    if swap and s < m:  # from the SWAP_STARTS best distinct candidates
        value = -np.inf
        n_swap = 1 if (m <= SWAP_SMALL or given is not None) else int(
            min(SWAP_STARTS, max(1, SWAP_START_FLOPS // (s * m))) if m <= DENSE_FEATURES
            else min(GLOBAL_SWAP_STARTS, max(1, GLOBAL_SWAP_START_FLOPS // (s * m))))
        for t, j in enumerate(np.argsort(-vals, kind="stable")[:n_swap]):
            sup_j, val_j, r_j, z_j = _swap_search(B, cands[j], exact=t == 0, start=starts[j])
            rounds += r_j
            if val_j > value * (1 + 1e-12) if value > 0 else val_j > value:
                support, value, z_best = sup_j, val_j, z_j
    if keep is not None:  # back to the working set's positions (order kept)
        support, warm = keep[support], keep[warm]
    support, refined = _on_full_problem(op, W, support, warm)
    if refined or z_best is None or np.min(np.abs(z_best)) < 1e-10:
        z, lam = polish_loadings(op, support)
    else:  # the swap search's eigenpair of Σ[I, I] (no repeated top eigenvalue in sight)
        z, lam = np.zeros(p), float(value)
        z[support] = z_best / np.linalg.norm(z_best)
        z = fix_sign(z)
    ub, bound = _upper_bound(op, W, B_full, s, lam, d_B, P, eig=given is None,
                             gershgorin=gershgorin)
    certified, nodes = False, 0
    if (given is None and m == p and s < p and p <= CERTIFY_FEATURES and ub is not None
            and ub - lam > CERTIFY_TOL * ub and _is_psd(op)):
        from ._exact import prove_support  # the branch and bound, node-limited

        best_sup, v, ub_bb, certified, nodes = prove_support(
            B_full, s, support, max_nodes=CERTIFY_NODES, tol=CERTIFY_TOL)
        if v > lam * (1 + 1e-12):  # the search found a better support
            support = best_sup
            z, lam = polish_loadings(op, support)
        if certified:
            ub, bound = float(lam), BOUND_CERTIFIED
        elif ub_bb < ub:
            ub, bound = max(float(ub_bb), float(lam)) * (1 + BOUND_MARGIN), BOUND_TREE
    info = {"n_starts": N, "neighbourhood_starts": n_hood, "working_set": m,
            "warm_start_variance": float(vals[-1]), "multistart_variance": multi_value,
            "swap_rounds": rounds, "swap_gain": value - before, "refined": refined,
            "bound": bound, "certify_nodes": nodes}
    if certified:  # the property reads the bound otherwise
        info["certified"] = True
    return make_result(op, z, "auto", variance=lam, n_iter=int(rounds), converged=True,
                       upper_bound=ub, gap=None if ub is None else ub - lam,
                       message=f"auto: greedy + {N} starts on {m} features + {rounds} swap rounds",
                       info=info)


def _is_psd(op: Operator) -> bool:
    """False for a Hotelling deflation (Σ − c·xxᵀ of a non-eigenvector can be
    indefinite) anywhere in the chain; every other operator here is PSD."""
    while isinstance(op, Operator):
        if isinstance(op, HotellingDeflated):
            return False
        op = getattr(op, "parent", None)
    return True


def _lambda_max_bound(B: np.ndarray) -> float | None:
    """A proven upper bound on λmax(B) up to ``CHOLESKY_BOUND_FEATURES`` features
    (:func:`~eigensparse.bounds.lambda_max_upper_bound`), else None."""
    if B.shape[0] > CHOLESKY_BOUND_FEATURES:
        return None
    return _lambda_max_upper_bound(B, exact_below=EIG_BOUND_FEATURES)


def _upper_bound(op: Operator, W: np.ndarray, B: np.ndarray, s: int, lam: float, d_B, P,
                 eig: bool = True, gershgorin=None):
    """A valid upper bound on the whole problem's v(s) and its name (``None`` when none
    is available): :func:`~eigensparse.bounds.full_problem_bound` on B when W is every
    feature (with λmax(B) when B is small enough for a dense eigenvalue solve), its
    working-set split otherwise, or the whole problem's Gershgorin partner bound
    ``gershgorin`` (from :func:`_working_set`) when smaller. Never below the value found
    (rounding). ``eig=False`` (a warm re-solve of the refinement, which runs many) skips
    λmax."""
    p = int(op.n_features)
    psd = _is_psd(op)
    if W.size >= p:  # min(trace, Gershgorin) at s: each is nondecreasing in s
        g = float(d_B.max()) if s == 1 else float((d_B + P[:, s - 2]).max())
        ub = min(float(np.sort(d_B)[::-1][:s].sum()), g) if psd else g
        name = BOUND_DENSE if psd else BOUND_GERSHGORIN
        top = _lambda_max_bound(B) if psd and eig else None
        if top is not None and top < ub:
            ub, name = top, "largest eigenvalue of Σ"
    else:
        ub, name = _full_problem_bound(op, s, working_set=W, block=B, psd=psd, partners=P)
        if gershgorin is not None and gershgorin < ub:
            ub, name = gershgorin, BOUND_GERSHGORIN
    if not np.isfinite(ub):
        return None, None
    return max(float(ub), float(lam)) * (1 + BOUND_MARGIN), name


def _working_block(op: Operator, s: int, given=None):
    """``(W, B, warm, gershgorin)``: the working set W (sorted feature ids), its symmetric
    C-contiguous block B = Σ[W, W], the approximate-greedy support at cardinality s
    (positions in W), or ``given[0]`` when supports are given, and the whole problem's
    Gershgorin partner bound when :func:`_working_set` computed it (else None). W is
    every feature when p <= ``DENSE_FEATURES`` or when Σ is held or cheap to form
    (:func:`_full_matrix`)."""
    p = int(op.n_features)
    S = _full_matrix(op) if p > DENSE_FEATURES else None
    gershgorin = None
    if S is not None:
        W, B, warm = np.arange(p), S, (None if given is None else given[0])
    else:
        d = np.asarray(op.diag(), dtype=float)
        W, warm, gershgorin = _working_set(op, d, s, given)
        B = np.asarray(op.block(W), dtype=float)
        B = np.ascontiguousarray(0.5 * (B + B.T))
    if warm is None:
        warm = np.sort(approx_greedy_order(B, s))
    else:
        warm = np.searchsorted(W, warm)
    return W, B, warm, gershgorin


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
    given, A = (None, None) if init is None else _init_supports(init, int(op.n_features), s)
    W, B, warm, gershgorin = _working_block(op, s, None if given is None else given[:1])
    lam, z = top_eigh(B[np.ix_(warm, warm)]) if given is None else (None, A[given[0], 0])
    i = int(np.argmax(np.diag(B)))
    sup0 = np.vstack([np.arange(s) if i < s else np.append(np.arange(s - 1), i), warm])
    val0 = np.vstack([(sup0[0] == i).astype(float), z])
    sups, _, f, _ = tpower_from_supports(B, sup0, val0, max_iter, tol, B)
    support, refined = _on_full_problem(op, W, sups[int(np.argmax(f))], warm)
    z, lam = polish_loadings(op, support)
    d_B, P, _ = _partners(B, s)
    ub, bound = _upper_bound(op, W, B, s, lam, d_B, P, eig=False, gershgorin=gershgorin)
    return make_result(op, z, "tpower", variance=lam, converged=True,
                       upper_bound=ub, gap=None if ub is None else ub - lam,
                       message="tpower's two starts on auto's working set",
                       info={"working_set": W.size, "refined": refined, "bound": bound})
