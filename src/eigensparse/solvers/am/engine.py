"""The AM engine: the batched loop over starts, the starting points, the penalty search
and the result (:func:`_run_am`, called by the ``am`` and ``tpower`` methods)."""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from ..._validation import InvalidParameterError, check_start_vectors
from ...operators import Operator
from ...screening import penalty_search
from .._common import check_random_state, make_result, polish_loadings
from .formulations import FORMULATIONS, INITS, Formulation
from .products import _LoopArrays, _LevelView, _ScreenedProducts
from .steps import namespace_of, to_host

#: default number of starting points of :func:`am`
AM_DEFAULT_STARTS = 16
#: largest working set (features) of the screened iteration before switching to
#: full products (a dense m×m block is kept: 4096² doubles = 128 MiB)
SCREEN_MAX_FEATURES = 4096
#: working-set size allowed per starting point before full products are cheaper
SCREEN_FEATURES_PER_START = 64
#: smallest working-set limit
SCREEN_MIN_FEATURES = 256
#: initial working set: this many leading-variance features (at least 4s)
SCREEN_START_FEATURES = 256
#: default block width of the "otf" and "batch" strategies, and the most entries
#: (p × width) a default block may hold
DEFAULT_BATCH = 256
BLOCK_ENTRIES = 4_000_000
#: bisection steps of the penalty search (penalized formulations with a cardinality),
#: stopped earlier when the bracket [lo, hi] has hi/lo < 1 + PENALTY_SEARCH_RTOL
PENALTY_SEARCH_STEPS = 40
PENALTY_SEARCH_RTOL = 1e-4


@dataclass
class _RunOutput:
    x: np.ndarray  # best iterate, natural feature order (p,)
    best: int
    objectives: np.ndarray  # (N,)
    iterations: np.ndarray  # (N,)
    converged: np.ndarray  # (N,) bool
    levels: np.ndarray  # (N,) final working-set level of each start (p: full)
    paths: list | None


class _References:
    """Iterates x' whose full product Σx' is known (from earlier certificate checks),
    used to certify other iterates without a product.

    With ``y = Ax/‖Ax‖`` and ``y'`` likewise, ``|v_i| = |a_iᵀy| <= |v'_i| + ‖a_i‖·δ``
    with ``δ = min ‖y ∓ y'‖ = √(2 − 2|yᵀy'|)`` and ``yᵀy' = xᵀ(Σx')/(‖Ax‖‖Ax'‖)`` (exact
    from Σx'). Starts that converge to the same point as a checked one are certified
    at the cost of a few inner products. (``v' = 0``, δ = 1 is the plain bound √Σ_ii.)
    """

    SIZE = 64  # most recent references kept

    def __init__(self, prod: _ScreenedProducts):
        self.prod = prod
        self.SX = np.zeros((prod.p, 0))  # Σx' over the sorted features
        self.f = np.zeros(0)  # ‖Ax'‖₂
        self.tail = np.zeros((prod.p + 1, 0))  # tail[L] = max_{i >= L} |v'_i|

    def add(self, SX, f):
        good = f > 0
        SX, f = SX[:, good], f[good]
        tail = np.zeros((self.prod.p + 1, f.size))
        tail[:-1] = np.maximum.accumulate((np.abs(SX) / f)[::-1], axis=0)[::-1]
        self.SX = np.hstack([self.SX, SX])[:, -self.SIZE:]
        self.f = np.concatenate([self.f, f])[-self.SIZE:]
        self.tail = np.hstack([self.tail, tail])[:, -self.SIZE:]

    def certifies(self, X, f, lev, thr) -> np.ndarray:
        """Per column: does the bound prove max_{i outside its working set} |v_i| <= thr?
        (Features are sorted by decreasing √Σ_ii, so off a working set of L features
        ``|v_i| <= max_{j>=L} |v'_j| + √Σ_LL·δ``.)"""
        ok = np.zeros(X.shape[1], dtype=bool)
        if self.f.size == 0:
            return ok
        live = f > 0
        M = X.shape[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = np.abs(X.T @ self.SX[:M]) / (f[:, None] * self.f[None, :])
        cos[~live] = 0.0
        r = np.argmax(cos, axis=1)
        c = np.minimum(cos[np.arange(r.size), r], 1.0)
        delta = np.sqrt(np.maximum(2.0 - 2.0 * c, 0.0)) + 1e-7  # + round-off margin
        L = np.minimum(lev, self.prod.p - 1)
        bound = self.tail[L, r] + self.prod.root[L] * delta
        return live & (bound <= thr)


def _pad_rows(X, M):
    """X with zero rows appended up to M rows (Fortran-ordered)."""
    if X.shape[0] >= M:
        return X
    if not isinstance(X, np.ndarray):
        xp = namespace_of(X)
        return xp.concat([X, xp.zeros((M - X.shape[0], X.shape[1]), dtype=X.dtype,
                                      device=X.device)], axis=0)
    out = np.zeros((M, X.shape[1]), order="F")
    out[: X.shape[0]] = X
    return out


def _run(form: Formulation, prod: _ScreenedProducts, level: float, X0: np.ndarray, *, width: int,
         refill: bool, max_iter: int, tol: float, record_path: bool) -> _RunOutput:
    """Advance the starts (columns of X0, rows = sorted features) by alternating
    maximization, ``width`` columns at a time.

    ``refill``: replace converged columns by fresh starts (on-the-fly); otherwise run
    each group of ``width`` starts to completion. Every column evolves independently
    of the others (its working set depends on its own iterates only), so the strategy
    changes the cost, not the iterates. Blocks are Fortran-ordered (columns contiguous).

    Long (about 100 lines) on purpose: it is the one loop of the 8-formulation table
    (x-step, product, objective, convergence, refill and path bookkeeping of a block of
    starts, per iteration); the pieces are already in the table (:mod:`.formulations`)
    and in :class:`_ScreenedProducts`, and what remains shares the block state.
    """
    N = X0.shape[1]
    vpiece, spiece = form.variance, form.sparsity
    p = prod.p
    obj_final = np.full(N, -np.inf)
    iters = np.zeros(N, dtype=np.int64)
    conv = np.zeros(N, dtype=bool)
    lev_final = np.zeros(N, dtype=np.int64)
    paths = [[] for _ in range(N)] if record_path else None
    best_j, best_obj, best_x = -1, -np.inf, None
    next_start = 0

    # initial level of each start: the smallest working set holding its support
    last_row = np.where(X0 != 0, np.arange(1, X0.shape[0] + 1)[:, None], 0).max(axis=0)
    if vpiece.screenable:
        lev0 = np.array([prod.level_for(int(r)) for r in last_row], dtype=np.int64)
    else:
        lev0 = np.full(N, p, dtype=np.int64)

    refs = _References(prod)
    arr = prod.arrays
    ids = np.zeros(0, dtype=np.int64)
    lev = np.zeros(0, dtype=np.int64)
    X = Xprev = arr.asarray(np.zeros((0, 0), order="F"))
    obj_prev = np.zeros(0)
    it = np.zeros(0, dtype=np.int64)

    while True:
        if (refill or ids.size == 0) and next_start < N and ids.size < width:
            j = np.arange(next_start, min(N, next_start + width - ids.size))
            next_start = int(j[-1]) + 1
            M = max(X.shape[0], int(lev0[j].max()))
            Xn = np.zeros((M, j.size), order="F")
            k = min(M, X0.shape[0])
            Xn[:k] = X0[:k, j]
            X = arr.hstack(_pad_rows(X, M), arr.asarray(Xn))
            Xprev = arr.hstack(_pad_rows(Xprev, M), arr.asarray(np.zeros_like(Xn)))
            ids = np.concatenate([ids, j])
            lev = np.concatenate([lev, lev0[j]])
            obj_prev = np.concatenate([obj_prev, np.full(j.size, -np.inf)])
            it = np.concatenate([it, np.zeros(j.size, dtype=np.int64)])
        if ids.size == 0:
            break

        V, f = vpiece.step(_LevelView(prod, lev), X)
        obj = form.objective(f, X, level)
        f, obj = to_host(f), to_host(obj)  # per-start scalars live on the host
        if record_path:
            for c, j in enumerate(ids):
                paths[j].append(float(obj[c]))
        same = arr.same_support(X, Xprev)
        stalled = (it >= 1) & same & (obj - obj_prev <= tol * np.maximum(np.abs(obj), 1e-300))
        T, thr = spiece.xstep(V, level)
        nrm_t, nrm = arr.col_norms(T)
        dead = (nrm == 0) & spiece.constrained  # v = 0 on the working set
        # Certificate: a column that stopped on its working set stops for good if no
        # feature outside could enter (a bound on |v_i| off the working set <= its
        # threshold), or else if the full x-step (one full product) keeps its support;
        # otherwise it moves on with that full step, on a working set large enough for
        # its new support. Either way the outcome is the full x-step's.
        check = (stalled | dead) & (thr < prod.radius(lev))
        esc = np.zeros(0, dtype=np.int64)
        if np.any(check):
            cc = np.flatnonzero(check)
            cc = cc[~refs.certifies(X[:, cc], f[cc], lev[cc], thr[cc])]
        if np.any(check) and cc.size:
            SX = prod.full_sigma(X[:, cc])
            refs.add(SX, f[cc])
            Vf = SX / np.where(f[cc] > 0, f[cc], 1.0)
            Tf, _ = spiece.xstep(Vf, level)
            nf = np.linalg.norm(Tf, axis=0)
            keeps = (np.all((Tf != 0) == (_pad_rows(X[:, cc], p) != 0), axis=0)
                     | ((nf == 0) & spiece.constrained))
            esc = cc[~keeps]
            if esc.size:
                stalled[esc] = dead[esc] = False
                Tesc = Tf[:, ~keeps] / nf[~keeps]
                rows = np.where(Tesc != 0, np.arange(1, p + 1)[:, None], 0).max(axis=0)
                lev = lev.copy()  # working sets only grow (no restriction cycles)
                lev[esc] = np.maximum(lev[esc], [prod.level_for(int(r)) for r in rows])
        done = stalled | dead | (it >= max_iter)
        for c in np.flatnonzero(done):
            j = int(ids[c])
            obj_final[j], iters[j], lev_final[j] = obj[c], it[c], lev[c]
            conv[j] = stalled[c] or dead[c]
            if obj[c] > best_obj or (obj[c] == best_obj and j < best_j):
                best_j, best_obj = j, float(obj[c])
                best_x = prod.to_features(to_host(X[:, c]))
        keep = np.flatnonzero(~done)
        Xnext = arr.divide_columns(T, nrm_t)
        if esc.size:
            M = max(X.shape[0], int(lev[esc].max()))
            Xnext, X = _pad_rows(Xnext, M), _pad_rows(X, M)
            Xnext[:, esc] = Tesc[:M]
        M = int(lev[keep].max()) if keep.size else 0  # storage: the largest level in use
        Xprev = arr.columns(X, keep, M)
        X = arr.columns(Xnext, keep, M)
        obj_prev = obj[keep]
        ids, lev, it = ids[keep], lev[keep], it[keep] + 1
    return _RunOutput(best_x, best_j, obj_final, iters, conv, lev_final, paths)


# =========================================================================== starts
def _starts(kind, init_array, n_starts, prod: _ScreenedProducts, s_ref: int, rng) -> np.ndarray:
    """Starting points over the sorted features (rows = prefix of the variance order).

    - coordinate starts: ``e_i`` for the i-th largest-variance feature, i = 0, 1, ...;
    - the ``variance`` start: the indicator of the ``s`` largest-variance features / √s;
    - random starts: i.i.d. Gaussian entries on the ``max(4s, 64)`` largest-variance
      features (mapped into the feasible set by the x-step, as every start is).
    ``auto``: the first ⌈N/2⌉ starts are coordinate starts, the rest random.
    """
    p = prod.p
    if init_array is not None:
        A = init_array[prod.order]
        nz = np.flatnonzero(np.any(A != 0, axis=1))
        m = int(nz[-1]) + 1 if nz.size else 1
        return A[:m].copy()
    N = n_starts
    m_rand = min(p, max(4 * s_ref, 64))
    if kind == "coordinates":
        n_coord = min(N, p)
    elif kind == "random":
        n_coord = 0
    elif kind == "variance":
        n_coord = -1
    else:  # auto
        n_coord = min(-(-N // 2), p)
    cols = []
    if n_coord < 0:
        x = np.zeros(min(p, max(s_ref, 1)))
        x[:] = 1.0 / math.sqrt(x.size)
        cols.append(x)
        n_coord = 0
    for i in range(n_coord):
        e = np.zeros(i + 1)
        e[i] = 1.0
        cols.append(e)
    n_rand = N - len(cols)
    m = max([c.size for c in cols] + [m_rand if n_rand > 0 else 1])
    X0 = np.zeros((m, N))
    for j, c in enumerate(cols):
        X0[: c.size, j] = c
    if n_rand > 0:
        X0[:m_rand, len(cols):] = rng.standard_normal((m_rand, n_rand))
    return X0


def _feasible(form: Formulation, X0: np.ndarray, level: float) -> np.ndarray:
    """Map starts into the feasible set: the x-step applied to the start itself
    (``argmax_{x feasible} x₀ᵀx``; the identity on feasible unit vectors)."""
    if form.sparsity.constrained:
        T, _ = form.sparsity.xstep(X0, level)
    else:
        T = X0.copy()
    nrm = np.linalg.norm(T, axis=0)
    if np.any(nrm == 0):
        raise InvalidParameterError("parameter 'init' has a zero starting point (an all-zero column).")
    return T / nrm


# =========================================================================== support / result
def _support_of_size(op: Operator, x: np.ndarray, s: int) -> np.ndarray:
    """The ``s`` largest |x_i| (ties: lower index); completed, when x has fewer than s
    nonzeros, by the largest |(Σx)_i| off its support (the greedy correlation)."""
    nz = np.flatnonzero(x)
    if nz.size >= s:
        order = np.argsort(-np.abs(x), kind="stable")
        return np.sort(order[:s])
    score = np.abs(op.matvec(x)) if nz.size else op.diag().astype(float)
    score[nz] = np.inf
    order = np.argsort(-score, kind="stable")
    return np.sort(order[:s])


def _finish(op, x, method, *, s, do_polish, **fields):
    """Result on the support of x (resized to exactly s entries when s is given)."""
    if s is not None:
        support = _support_of_size(op, x, s)
    else:
        support = np.flatnonzero(x)
    if support.size == 0:
        return make_result(op, np.zeros(op.n_features), method, variance=0.0, **fields)
    if do_polish:
        z, lam = polish_loadings(op, support)
        return make_result(op, z, method, variance=lam, **fields)
    z = np.zeros(op.n_features)
    z[support] = x[support]
    if not np.any(z):
        z[support] = 1.0
    return make_result(op, z, method, **fields)


def _penalty_bound(form: Formulation, op: Operator, d: np.ndarray) -> float:
    """A penalty above which every start collapses to x = 0 (|v_i| <= ‖a_i‖₂ for L2;
    <= ‖a_i‖₁ <= √n‖a_i‖₂ for L1)."""
    c = float(np.sqrt(np.clip(d, 0, None)).max())
    if form.variance.name == "l1":
        c *= math.sqrt(max(op.n_samples or 1, 1))
    return c * c if form.sparsity.squared else c


def _greedy_and_coordinate_starts(op: Operator, cardinality) -> np.ndarray:
    """tpower's default starts: ``e_i`` at the largest-variance feature, and the
    approximate-greedy solution at the same cardinality (handbook Alg. 3). The
    truncated power iteration never lowers xᵀΣx from a start (Σ ⪰ 0), so the result is
    at least as good as approximate greedy's."""
    from .._greedy import approx_greedy

    if not (isinstance(cardinality, numbers.Integral) and 1 <= int(cardinality) <= op.n_features):
        return "auto"  # let _am raise its clear error
    e = np.zeros(op.n_features)
    e[int(np.argmax(np.asarray(op.diag(), dtype=float)))] = 1.0
    g = approx_greedy(op, int(cardinality)).loadings
    return np.column_stack([e, g])


def _check_init(init, p):
    """None for a named start (one of ``INITS``: the solvers' constraints), else the
    array of starting vectors, checked against ``p``."""
    if isinstance(init, str):
        return None
    return check_start_vectors(init, p, valid=f"one of {', '.join(map(repr, INITS))} or a "
                                              "numeric array")


def _run_am(op, cardinality, *, formulation, penalty, n_starts, strategy, batch_size, max_iter,
           tol, init, polish, screen, record_path, random_state, method, default_starts):
    """Alternating maximization for :func:`~eigensparse.solvers.am.am` and ``tpower``:
    check the problem, build the products and the starts, run at the level (s, γ, or a
    searched γ) and make the result."""
    form = FORMULATIONS[formulation]
    cardinality = _check_problem(op, cardinality, penalty, form, formulation, method)
    init_array, N = _count_starts(init, n_starts, default_starts, int(op.n_features), method)
    loop = _AMLoop(op, form, cardinality, N, strategy, batch_size, max_iter, tol, screen,
                   record_path)
    kind = init if isinstance(init, str) else "array"
    loop.X0 = _starts(kind, init_array, N, loop.products, loop.s_ref,
                      check_random_state(random_state))
    out, gamma, search = _run_at_level(loop, form, cardinality, penalty)
    return _am_result(op, loop, out, gamma, search, cardinality, formulation, N, strategy,
                      record_path, polish, method)


def _check_problem(op, cardinality, penalty, form, formulation, method):
    """The cardinality as an int (or None), after checking it fits the formulation."""
    p = int(op.n_features)
    sp_piece = form.sparsity
    # the data requirement of the L1-variance formulations is checked once, by the
    # dispatcher (the registry's needs_data of ``am``)
    if cardinality is not None:
        if not 1 <= int(cardinality) <= p:
            raise InvalidParameterError(
                f"{method}: parameter 'cardinality' must be an int in [1, n_features={p}] or "
                f"None; got {cardinality!r}.")
        cardinality = int(cardinality)
    if sp_piece.constrained:
        if cardinality is None:
            raise InvalidParameterError(
                f"{method}: parameter 'cardinality' is required by the constrained formulation "
                f"{formulation!r}; got None.")
        if penalty is not None:
            raise InvalidParameterError(
                f"{method}: parameter 'penalty' is only used by the penalized formulations "
                f"(*_pen); formulation {formulation!r} is constrained. Got penalty={penalty!r}.")
    elif cardinality is None and penalty is None:
        raise InvalidParameterError(
            f"{method}: the penalized formulation {formulation!r} needs parameter 'penalty' "
            "(γ >= 0) or parameter 'cardinality' (γ is then searched); got neither.")
    return cardinality


def _count_starts(init, n_starts, default_starts, p, method):
    """(starting points given as an array or None, number of starts)."""
    init_array = _check_init(init, p)
    if init_array is not None:
        if n_starts is not None and n_starts != init_array.shape[1]:
            raise InvalidParameterError(
                f"{method}: parameter 'n_starts'={n_starts} disagrees with parameter 'init' "
                f"({init_array.shape[1]} starting point(s)); leave n_starts=None.")
        N = init_array.shape[1]
    else:
        N = default_starts if n_starts is None else int(n_starts)
    return init_array, N


class _AMLoop:
    """The products, block width and loop options of one AM call; runs the loop at a
    level and counts the iterations of every run."""

    def __init__(self, op, form, cardinality, N, strategy, batch_size, max_iter, tol, screen,
                 record_path):
        p = int(op.n_features)
        self.form, self.max_iter, self.record_path = form, max_iter, record_path
        d = np.asarray(op.diag(), dtype=float)
        self.variances = d
        self.s_ref = cardinality if cardinality is not None else min(p, 10)
        arrays = _LoopArrays(op)
        self.tol = max(tol, 1e-6) if arrays.float32 else tol  # float32 objective round-off
        if not form.variance.screenable or screen is False or not arrays.numpy:
            cap = 0
        elif screen is True:
            cap = p
        else:
            cap = min(SCREEN_MAX_FEATURES,
                      max(SCREEN_MIN_FEATURES, SCREEN_FEATURES_PER_START * N), p // 2)
        self.products = _ScreenedProducts(op, d, cap, m0=max(SCREEN_START_FEATURES, 4 * self.s_ref),
                                         arrays=arrays)
        if batch_size is None:
            batch_size = min(DEFAULT_BATCH, max(8, BLOCK_ENTRIES // p))
        self.width = max(1, min({"sequential": 1, "all": N}.get(strategy, batch_size), N))
        self.refill = strategy == "otf"
        self.total_iter = 0
        self.X0 = None

    def run_at(self, level):
        o = _run(self.form, self.products, level, _feasible(self.form, self.X0, level),
                 width=self.width, refill=self.refill, max_iter=self.max_iter, tol=self.tol,
                 record_path=self.record_path)
        self.total_iter += int(o.iterations.sum())
        return o


def _run_at_level(loop, form, cardinality, penalty):
    """(best run, γ used or None, penalty-search trials or None)."""
    if form.sparsity.constrained:
        return loop.run_at(cardinality), None, None
    if penalty is not None:
        return loop.run_at(float(penalty)), float(penalty), None
    # penalized, cardinality given: search γ (geometric bisection below the bound)
    hi = _penalty_bound(form, loop.products.op, loop.variances)

    def solve_at(g, warm_start, kept):
        o = loop.run_at(g)
        return (int(np.count_nonzero(o.x)) if o.x is not None else 0), o, None

    found = penalty_search(solve_at, cardinality, bracket=(hi * 1e-12, hi),
                           refine_rtol=PENALTY_SEARCH_RTOL, max_solves=PENALTY_SEARCH_STEPS)
    search = [(t.penalty, t.cardinality) for t in found.trials]
    return found.best.result, found.best.penalty, search


def _am_result(op, loop, out, gamma, search, cardinality, formulation, N, strategy, record_path,
               polish, method):
    """The ComponentResult of the best start (info, message, warning on collapse)."""
    prod = loop.products
    width = loop.width
    x = out.x
    am_nnz = int(np.count_nonzero(x))
    fields = dict(
        n_iter=loop.total_iter,
        converged=bool(out.converged[out.best]),
        info={
            "formulation": formulation,
            "objective": float(out.objectives[out.best]),
            "objectives": out.objectives,
            "iterations": out.iterations,
            "converged": out.converged,
            "best_start": int(out.best),
            "n_starts": N,
            "strategy": strategy,
            "batch_size": width,
            "penalty": gamma,
            "am_cardinality": am_nnz,
            "am_loadings": x,
            "truncated": cardinality is not None and am_nnz != cardinality,
            "products": dict(prod.counts),
            "working_set": int(out.levels[out.best]),
        },
    )
    if search is not None:
        fields["info"]["penalty_search"] = search
        fields["info"]["penalty_exact"] = am_nnz == cardinality
    if record_path:
        fields["info"]["paths"] = out.paths
    n_conv = int(out.converged.sum())
    msg = (f"{formulation}: best of {N} start(s) (start {out.best}), "
           f"{n_conv}/{N} converged, {fields['n_iter']} iterations in all")
    if am_nnz == 0:
        warnings.warn(f"{method}: every start collapsed to x = 0 (penalty γ={gamma:g} too large "
                      "for this data); decrease 'penalty'.", RuntimeWarning, stacklevel=4)
        msg += "; all starts collapsed to x = 0 (penalty too large)"
    elif fields["info"]["truncated"]:
        msg += f"; AM solution had {am_nnz} nonzeros, resized to {cardinality}"
    return _finish(op, x, method, s=cardinality, do_polish=polish, message=msg, **fields)
