"""Exhaustive search over all supports of a given size (small problems, and the
reference every other solver is tested against)."""
from __future__ import annotations

import itertools
import math
import warnings
from numbers import Real

import numpy as np

from .._util import Deadline
from .._validation import Interval, InvalidParameterError
from ..operators import Operator
from . import register
from ._common import make_result, polish_loadings
from ._greedy import _path
from ._simple import _check_problem

__all__ = ["exhaustive"]

#: entries (batch × s × s) of the stacked blocks handled at once
_BATCH_ENTRIES = 2_000_000


def _combination_batches(p: int, s: int, batch: int):
    """All s-subsets of range(p) in lexicographic order, as int arrays (≤ batch, s)."""
    it = itertools.combinations(range(p), s)
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(it, batch)),
                           dtype=np.intp)
        if flat.size == 0:
            return
        yield flat.reshape(-1, s)


@register("exhaustive", cost="O(C(p, s)·s³): every support", summary="Exact search over all supports of size s (small problems).",
          constraints={"max_supports": [Interval(Real, 1, None, closed="left")],
                       "max_cost": [Interval(Real, 1, None, closed="left")],
                       "max_time": [None, Interval(Real, 0, None, closed="neither")],
                       "progress": [bool]})
def exhaustive(op: Operator, cardinality: int, *, random_state=None,
               max_supports: int | float = 2_000_000, max_cost: float = 1e10,
               max_time: float | None = None, progress: bool = False):
    """Exact solution of max {xᵀΣx : ‖x‖₂ = 1, ‖x‖₀ <= s} by enumerating every support.

    All C(p, s) supports I are scanned in batches. A support is discarded at once when an
    upper bound on λmax(Σ[I, I]) (Gershgorin's max_i Σ_{j∈I} |Σ_ij|, then the Frobenius
    norm ‖Σ[I, I]‖_F) is below the value of the full greedy support; for the others
    λmax(Σ[I, I]) is computed for the whole batch at once with ``np.linalg.eigvalsh`` on
    the stacked s×s blocks. Since λmax(Σ[I, I]) is nondecreasing in I, supports of size
    exactly s suffice.

    Parameters
    ----------
    op : Operator
        Represents the p×p covariance Σ (densified with ``op.to_dense()``).
    cardinality : int
        Support size s, 1 <= s <= p.
    random_state : ignored
        Deterministic: among equal values the lexicographically first support wins.
    max_supports : int or float, default=2e6
        Refuse (with :class:`InvalidParameterError`) when C(p, s) exceeds this.
    max_cost : float, default=1e10
        Refuse when the estimated cost, C(p, s) × (2s² + s³) floating-point operations
        (bounds, then a worst-case s×s eigenvalue problem per support), exceeds this
        (about 10 s at 1 GFLOP/s), unless ``max_time`` bounds the run.
    max_time : float or None
        Seconds: stop when spent and return the best support scanned so far with a
        RuntimeWarning (``converged=False``, no optimality claim).
    progress : bool, default=False
        A tqdm bar over the supports.

    Returns
    -------
    ComponentResult
        ``loadings`` shape (p,), the leading eigenvector of Σ[I*, I*] for the best
        support I* (shape (s,)); ``upper_bound = variance`` and ``gap = 0`` (optimal);
        ``n_iter`` and ``info["n_supports"]`` the number of supports scanned.

    Raises
    ------
    InvalidParameterError
        When C(n_features, cardinality) > max_supports, or the estimated cost exceeds
        ``max_cost`` and no ``max_time`` is given.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("exhaustive").func(S, 3)  # all C(13, 3) = 286 supports
    >>> res.support.tolist(), round(res.variance, 3), round(res.upper_bound, 3)
    ([0, 1, 8], 2.475, 2.475)
    """
    s = _check_problem(op, cardinality, "exhaustive")
    p = op.n_features
    n_sup = math.comb(p, s)
    cost = n_sup * (2 * s * s + s ** 3) + p * p
    if max_time is None:  # a time budget bounds the run instead
        _refuse_if_too_big(p, s, n_sup, cost, max_supports, max_cost)
    if s == p:
        best = np.arange(p)
    elif s == 1:
        best = np.array([int(np.argmax(op.diag()))])
    else:
        S = op.to_dense()
        absS = np.abs(S)
        # any support's value is a lower bound; the greedy one is a good, cheap start
        g_order, g_path = _path(op, s, "greedy")
        lower = float(g_path[-1])
        cut = lower - 1e-12 * max(abs(lower), 1.0)  # keep ties (rounding slack)
        batch = max(1, _BATCH_ENTRIES // (s * s))
        best_val, best = -np.inf, None
        deadline = Deadline(max_time)
        scanned = 0
        bar = _bar(n_sup, progress)
        for idx in _combination_batches(p, s, batch):
            scanned += idx.shape[0]
            if bar is not None:
                bar.update(idx.shape[0])
            if deadline.passed():
                break
            rows, cols = idx[:, :, None], idx[:, None, :]
            # skip supports whose Gershgorin or Frobenius bound on λmax is below `lower`
            live = np.flatnonzero(absS[rows, cols].sum(axis=2).max(axis=1) >= cut)
            if live.size == 0:
                continue
            blocks = S[rows[live], cols[live]]
            ok = np.sqrt(np.einsum("bij,bij->b", blocks, blocks)) >= cut
            if not ok.any():
                continue
            live = live[ok]
            vals = np.linalg.eigvalsh(blocks[ok])[:, -1]
            j = int(np.argmax(vals))
            if vals[j] > best_val:
                best_val, best = float(vals[j]), idx[live[j]].copy()
        if bar is not None:
            bar.close()
        if best is None:  # stopped before a better support, or rounding defeated the slack
            best = np.sort(g_order)
        if scanned < n_sup or deadline.passed():
            return _stopped(op, best, n_sup, scanned, max_time)
    x, var = polish_loadings(op, best)
    return make_result(op, x, "exhaustive", variance=var, n_iter=n_sup, converged=True,
                       upper_bound=var, gap=0.0,
                       message=f"exact: scanned all {n_sup} supports of size {s}",
                       info={"n_supports": n_sup})


def _refuse_if_too_big(p, s, n_sup, cost, max_supports, max_cost):
    est = (f"estimated cost {n_sup:.3g} supports x (2s² + s³) = {cost:.3g} operations (about "
           f"{cost / 1e9:.3g} s at 1 GFLOP/s)")
    if n_sup > max_supports:
        raise InvalidParameterError(
            f"exhaustive: C(n_features={p}, cardinality={s}) = {n_sup:.3g} supports exceeds "
            f"max_supports={max_supports:.3g} ({est}); exhaustive search is only for small "
            "problems (use a smaller 'cardinality', fewer 'n_features', raise 'max_supports', "
            "give 'max_time' for a bounded search, or use method 'greedy').")
    if cost > max_cost:
        raise InvalidParameterError(
            f"exhaustive: C(n_features={p}, cardinality={s}) = {n_sup:.3g} supports: {est} exceeds "
            f"max_cost={max_cost:.3g}; give 'max_time' for a bounded search, raise 'max_cost', "
            "or use method 'greedy'.")


def _bar(total, progress):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="supports", desc="exhaustive", leave=False)


def _stopped(op, best, n_sup, scanned, max_time):
    """The best support so far of a search stopped by ``max_time`` (no optimality claim)."""
    x, var = polish_loadings(op, best)
    warnings.warn(f"exhaustive: stopped by max_time={max_time:g} s after {scanned} of {n_sup} "
                  f"supports; returning the best support so far (variance {var:.6g}), not "
                  "certified optimal.", RuntimeWarning, stacklevel=3)
    return make_result(op, x, "exhaustive", variance=var, n_iter=scanned, converged=False,
                       message=f"stopped by max_time after {scanned} of {n_sup} supports",
                       info={"n_supports": n_sup, "n_scanned": scanned, "stopped": "max_time"})
