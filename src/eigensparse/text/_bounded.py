"""One topic in bounded time: exact cardinality on a growing, capped solve set.

Policy ("each topic finishes in seconds whatever the working set does"):

1. the candidate words are the working-set words not used by earlier topics (disjoint
   topics) with positive variance, ordered by (deflated) variance;
2. solve an exact-cardinality problem (truncated power with several starts: the
   approximate-greedy solution, coordinate starts on the largest-variance words, and the
   previous best support as a warm start) on the ``m`` words of largest variance,
   starting small (``initial_size``);
3. **swap test**: exchanging a topic word i for any word left out (variance <= τ, the
   largest variance left out) gives at most λmax(Σ[I∖i]) + τ, so when
   ``max_i λmax(Σ[I∖i]) + τ <= λmax(Σ[I])`` no single swap with a word outside can
   improve the topic and the solve set suffices (``safe=True``);
4. otherwise double the solve set, warm-started from the best support so far, until the
   test passes, the **cap** ``max_working_set`` is reached (the answer on the capped
   set is returned, ``capped=True``) or the **time budget** runs out (the best answer
   so far, with a :class:`TopicBudgetWarning`).

How each solve runs is the method's :class:`~eigensparse.registry.BoundedSolve` (its
``MethodSpec.bounded``): the starts it is given, its options, the exponent of its cost in
the solve-set size, and a cheaper fallback. A method with a fallback (``bca``: the DSPCA
relaxation, cubic) hands the solve to it when the predicted time would exceed the budget
left or the solve set exceeds ``relaxation_max_size`` (``fallback=True``).

:func:`solve_topic_bounded` is the checked entry point; :func:`bounded_solve` is the
solve itself, for a caller that holds a checked request (the topic pipeline's plan).
"""
from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np

from .._linalg import fix_sign
from .._result import ComponentResult, defer_bound
from .._util import Deadline
from .._validation import Interval, InvalidParameterError, StrOptions, check_params
from ..operators import Covariance, Operator
from ..registry import MethodSpec, get_method, methods

__all__ = ["TopicBudgetWarning", "solve_topic_bounded", "bounded_solve", "swap_gain_bound"]


class TopicBudgetWarning(RuntimeWarning):
    """A topic's time budget ran out; the best answer found so far was returned."""


def swap_gain_bound(B: np.ndarray, tau: float) -> float:
    """Bound on what exchanging one of the s words of the block ``B`` = Σ[I, I] for a
    word of variance <= ``tau`` can add to λmax(B): max_i λmax(B∖i) + τ − λmax(B).

    Parameters
    ----------
    B : ndarray of shape (s, s)
    tau : float

    Returns
    -------
    float
        <= 0 means no single swap can improve the support.
    """
    s = B.shape[0]
    phi = float(np.linalg.eigvalsh(B)[-1])
    if s == 1:
        return float(tau) - phi
    keep = np.array([np.r_[0:i, i + 1:s] for i in range(s)])
    sub = B[keep[:, :, None], keep[:, None, :]]  # (s, s-1, s-1): every leave-one-out block
    return float(np.linalg.eigvalsh(sub)[:, -1].max()) + float(tau) - phi


def _check(cov, cardinality, used, max_time, max_working_set, initial_size, method, n_starts):
    check_params(
        {"cardinality": cardinality, "max_time": max_time, "max_working_set": max_working_set,
         "initial_size": initial_size, "method": method, "n_starts": n_starts},
        {"cardinality": [Interval(Integral, 1, None, closed="left")],
         "max_time": [Interval(Real, 0, None, closed="neither")],
         "max_working_set": [Interval(Integral, 1, None, closed="left")],
         "initial_size": [None, Interval(Integral, 1, None, closed="left")],
         "method": [StrOptions({m.name for m in methods() if m.bounded})],
         "n_starts": [Interval(Integral, 1, None, closed="left")]}, "solve_topic_bounded")
    if not isinstance(cov, Operator) or cov.has_data:
        raise InvalidParameterError("solve_topic_bounded: parameter 'cov' must be a covariance "
                                    "operator (eigensparse.Covariance, or a covariance on a device); "
                                    f"got {type(cov).__name__}.")
    return _used_mask(cov, used)


def _used_mask(cov, used) -> np.ndarray:
    """``used`` (a bool mask or positions) as a bool mask over ``cov``'s features."""
    m = cov.n_features
    mask = np.zeros(m, dtype=bool)
    if used is not None:
        u = np.asarray(used)
        if u.dtype == bool:
            if u.shape != (m,):
                raise InvalidParameterError(f"solve_topic_bounded: parameter 'used' as a mask must "
                                            f"have shape ({m},); got {u.shape}.")
            mask = u.copy()
        elif u.size:
            if u.ndim != 1 or not np.issubdtype(u.dtype, np.integer) or u.min() < 0 or u.max() >= m:
                raise InvalidParameterError(f"solve_topic_bounded: parameter 'used' must be a bool "
                                            f"mask or positions in [0, {m}).")
            mask[u] = True
    return mask


def _starts(op: Operator, s: int, n_coord: int, warm) -> np.ndarray:
    """Columns: approximate greedy at s, e_i at the n_coord largest variances, warm."""
    from ..solvers._greedy import approx_greedy

    m = op.n_features
    cols = [approx_greedy(op, s).loadings]
    for i in np.argsort(-op.diag(), kind="stable")[:n_coord]:
        e = np.zeros(m)
        e[i] = 1.0
        cols.append(e)
    if warm is not None:
        w = np.zeros(m)
        w[warm] = 1.0 / np.sqrt(len(warm))
        cols.append(w)
    return np.column_stack(cols)


def _solve(op: Operator, s, spec: MethodSpec, n_starts, warm, seed, opts):
    """One solve on the solve-set operator ``op`` (a restriction of the checked
    covariance: no copy, no second validation), as ``spec.bounded`` says."""
    how = spec.bounded
    extra = {"init": _starts(op, s, max(0, n_starts - 2), warm)} if how.starts else {}
    return spec.trusted(op, s, random_state=seed, **{**how.options, **opts}, **extra)


#: methods whose compiled code this process has already run (see :func:`_warm_up`)
_WARM: set = set()


def _warm_up(spec: MethodSpec, n_starts: int) -> None:
    """Run ``method`` once on a tiny problem, so that its compiled kernels (numba: a few
    seconds the first time after installation, then a disk-cache load) are ready
    before a time budget starts: the budget measures solving, not compiling, and the
    same ``random_state`` gives the same topics on a first run as on later ones.
    Best effort: a failure here is left to the real solve to report."""
    if spec.name in _WARM:
        return
    _WARM.add(spec.name)
    S = np.array([[3.0, 1.0, 0.5, 0.2], [1.0, 2.0, 0.3, 0.1], [0.5, 0.3, 1.5, 0.4],
                  [0.2, 0.1, 0.4, 1.0]])
    try:
        _solve(Covariance.trusted(S), 2, spec, n_starts, None, 0, {})
    except Exception:  # noqa: BLE001 - the real solve raises its own clear error
        pass


def solve_topic_bounded(cov, cardinality: int, *, used=None, tau_outside: float = 0.0,
                        max_time: float = 2.0, max_working_set: int = 1000,
                        initial_size: int | None = None, method: str = "tpower",
                        n_starts: int = 6, relaxation_max_size: int = 400, random_state=None,
                        method_options: dict | None = None, warn: bool = True,
                        callback=None) -> ComponentResult:
    """One exact-cardinality topic from a working-set covariance, in bounded time.

    Parameters
    ----------
    cov : Covariance or a covariance operator (e.g. on a device)
        The (deflated, if the deflation is not disjoint) covariance of the m working-set
        words.
    cardinality : int
        Exactly this many words.
    used : bool array of shape (m,) or array of int, optional
        Positions of words already in earlier topics (never chosen: disjoint topics).
    tau_outside : float, default=0.0
        Largest variance among the words outside the working set (the pipeline's
        elimination threshold): the swap test also covers them.
    max_time : float, default=2.0
        Seconds for this topic; at the budget the best answer so far is returned with a
        :class:`TopicBudgetWarning` (the first solve always completes).
    max_working_set : int, default=1000
        Cap on the solve set (dense m × m blocks, tpower costs O(m²) per iteration).
    initial_size : int, optional
        First solve-set size (default max(8·s, 64)).
    method : str, default="tpower"
        A method whose :class:`~eigensparse.registry.MethodSpec` declares a
        :class:`~eigensparse.registry.BoundedSolve` (``"auto"``, ``"tpower"``, ``"bca"``).
    n_starts : int, default=6
        tpower starts: approximate greedy, ``n_starts − 2`` coordinate starts on the
        largest variances, and the warm start.
    relaxation_max_size : int, default=400
        For a method with a fallback (``"bca"``): larger solve sets use the fallback.
    random_state : int or None
    method_options : dict, optional
        Extra options for the solver.
    warn : bool, default=True
        Issue the :class:`TopicBudgetWarning`.
    callback : callable, optional
        Called after every solve as ``callback(size, variance, seconds)`` (solve-set
        size, best variance so far, seconds since the start): e.g. to show the
        working-set size on a progress bar.

    Returns
    -------
    ComponentResult
        Loadings on the m words of ``cov`` (unit norm, largest |.| positive);
        ``converged`` is False when the time ran out. ``info``: ``working_set_safe`` (the
        swap test passed: no single exchange with a word left out can improve it),
        ``capped`` (the solve set reached ``max_working_set`` first), ``timed_out``,
        ``fallback`` (the method's fallback solved), ``solve_set_sizes``,
        ``seconds``, ``swap_gain`` (the bound of the last test), ``tau``, ``n_solves``.
        ``upper_bound``, ``gap`` (and ``info["bound"]``) are the solver's, when it gives
        them and its solve saw every candidate word (a bound on the topic's problem over
        the working set).
    """
    used_mask = _check(cov, cardinality, used, max_time, max_working_set, initial_size, method,
                       n_starts)
    spec = get_method(method)
    opts = spec.check_options(dict(method_options or {}))
    return bounded_solve(cov, spec, int(cardinality), used=used_mask, tau_outside=tau_outside,
                         max_time=max_time, max_working_set=max_working_set,
                         initial_size=initial_size, n_starts=n_starts,
                         relaxation_max_size=relaxation_max_size, random_state=random_state,
                         options=opts, warn=warn, callback=callback)


def bounded_solve(cov, spec: MethodSpec, s: int, *, used=None, tau_outside: float = 0.0,
                  max_time: float = 2.0, max_working_set: int = 1000, initial_size=None,
                  n_starts: int = 6, relaxation_max_size: int = 400, random_state=None,
                  options=None, warn: bool = True, callback=None) -> ComponentResult:
    """:func:`solve_topic_bounded` for a checked request: ``spec`` a method with a
    :class:`~eigensparse.registry.BoundedSolve`, ``options`` its checked options, the
    other parameters as there (``used`` a bool mask); nothing is checked again."""
    used_mask = _used_mask(cov, used)
    how = spec.bounded
    fallback = None if how.fallback is None else get_method(how.fallback)
    _warm_up(spec, n_starts)
    deadline = Deadline(max_time)
    d = cov.diag()
    cand = np.flatnonzero(~used_mask & (d > 0))
    if cand.size < s:
        raise InvalidParameterError(
            f"solve_topic_bounded: parameter 'cardinality' ({s}) exceeds the {cand.size} unused "
            "words of positive variance.")
    cand = cand[np.argsort(-d[cand], kind="stable")]
    cap = min(max_working_set, cand.size)
    size = min(cap, max(s, initial_size or max(8 * s, 64)))
    opts = dict(options or {})
    best, warm, sizes = None, None, []
    fell_back = timed_out = capped = False
    n_solves, gain, tau, per_cost = 0, np.inf, 0.0, None
    while True:
        idx = np.sort(cand[:size])
        sub = cov.restrict(idx)
        use = spec
        left = deadline.left()
        if fallback is not None and (size > relaxation_max_size or (
                per_cost is not None and per_cost * size**how.cost_exponent > left)):
            use, fell_back = fallback, True
        solve_clock = Deadline()
        r = _solve(sub, s, use, n_starts, warm, random_state, opts if use is spec else {})
        dt = solve_clock.elapsed()
        if fallback is not None and use is spec:
            per_cost = dt / size**how.cost_exponent
        n_solves += 1
        sizes.append(int(size))
        if best is None or r.variance > best[2] * (1 + 1e-12):
            best = (idx[r.support], r.loadings[r.support], float(r.variance), use.name)
            # the solver's bound holds for the topic's problem only when it saw every
            # candidate word
            bound = r if size >= cand.size else None
        if callback is not None:
            callback(int(size), best[2], deadline.elapsed())
        tau = max(float(d[cand[size]]) if size < cand.size else 0.0, float(tau_outside))
        sup = np.sort(best[0])
        gain = swap_gain_bound(cov.block(sup), tau) if tau > 0 else -np.inf
        if gain <= 0:
            break
        if size >= cap:
            capped = True
            break
        nxt_size = min(cap, 2 * size)
        # the next solve costs about dt·growth (the cost exponent of the method that
        # solved); stop now rather than overrun the budget
        growth = (nxt_size / size) ** use.bounded.cost_exponent
        if deadline.left() < dt * growth:
            timed_out = True
            break
        size = nxt_size
        nxt = np.sort(cand[:size])
        warm = np.searchsorted(nxt, sup)
    if timed_out and warn:
        warnings.warn(f"topic solve stopped at its time budget ({max_time:g} s) on {sizes[-1]} "
                      f"words; returning the best answer so far (a swap with a word left out "
                      f"could add up to {gain:.3g}).", TopicBudgetWarning, stacklevel=2)
    ids, lv, var, used_method = best
    x = np.zeros(cov.n_features)
    x[ids] = lv
    x = fix_sign(x)
    info = {"working_set_safe": bool(gain <= 0), "capped": capped, "timed_out": timed_out,
            "fallback": fell_back, "solve_set_sizes": sizes, "seconds": deadline.elapsed(),
            "swap_gain": float(gain), "tau": float(tau), "n_solves": n_solves, "penalty": None}
    if bound is not None and bound.__dict__.get("_pending") is not None:
        # the solver's bound left pending (computed on first read, e.g. on another thread)
        out = ComponentResult(loadings=x, support=np.flatnonzero(x), variance=var,
                              method=used_method, n_iter=n_solves, converged=not timed_out,
                              upper_bound=None, gap=None, message="bounded topic solve", info=info)
        return defer_bound(out, lambda: _solver_bound(bound))
    ub = gap = None
    if bound is not None and bound.upper_bound is not None:
        ub, gap = bound.upper_bound, bound.gap
        info.update(_solver_bound(bound)[1])
    return ComponentResult(loadings=x, support=np.flatnonzero(x), variance=var, method=used_method,
                           n_iter=n_solves, converged=not timed_out, upper_bound=ub, gap=gap,
                           message="bounded topic solve", info=info)


def _solver_bound(bound) -> tuple:
    """(upper bound, ``{"bound": name}`` when named) of the solve that saw every candidate."""
    ub = bound.upper_bound
    if ub is not None and isinstance(bound.info, dict) and "bound" in bound.info:
        return ub, {"bound": bound.info["bound"]}
    return ub, {}
