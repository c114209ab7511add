"""The incumbent: a strong feasible support before (and during) the search.

Any support's value λmax(Σ[I, I]) is a *lower* bound on the optimum, so everything here
only needs to be good, never proven: the library's heuristics (the default method, the
greedy path, the truncated power method from its default starts, alternating
maximization from many starts), then a best-improvement 1-swap local search.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ...operators import Covariance
from ._bounds import block_lmax

__all__ = ["initial_incumbent", "swap_search"]


def swap_search(S: np.ndarray, support: np.ndarray, allowed: np.ndarray | None = None,
                max_rounds: int = 50, deadline: float = math.inf) -> tuple[float, np.ndarray]:
    """Best-improvement 1-swap local search: repeatedly replace one member of the support
    by one allowed non-member when that raises λmax(Σ[I, I]) (all s·(p−s) swaps of a round
    are evaluated at once with a batched ``eigvalsh``), until no swap improves, after
    ``max_rounds`` rounds or once ``deadline`` has passed. Returns (value, sorted support)."""
    p = S.shape[0]
    I = np.sort(np.asarray(support, dtype=np.intp))
    val = float(block_lmax(S, I[None, :])[0])
    pool = np.arange(p) if allowed is None else np.asarray(allowed, dtype=np.intp)
    s = I.size
    for _ in range(max_rounds):
        if time.perf_counter() >= deadline:
            break
        out = np.setdiff1d(pool, I, assume_unique=False)
        if out.size == 0:
            break
        # candidate supports: I with position a replaced by b
        cand = np.repeat(I[None, :], s * out.size, axis=0)
        pos = np.repeat(np.arange(s), out.size)
        cand[np.arange(cand.shape[0]), pos] = np.tile(out, s)
        vals = block_lmax(S, cand)
        j = int(np.argmax(vals))
        if vals[j] <= val * (1 + 1e-13) + 1e-300:
            break
        val, I = float(vals[j]), np.sort(cand[j])
    return val, I


def initial_incumbent(S: np.ndarray, s: int, *, n_starts: int, seed: int,
                      deadline: float = math.inf) -> tuple[float, np.ndarray, dict]:
    """Best support of the default method (``auto``), greedy, tpower and multi-start am on
    Σ, improved by :func:`swap_search`.

    The heuristics run in that order while ``deadline`` (a ``time.perf_counter`` value)
    has not passed; the first always runs, so there is always a support.
    Returns (value, sorted support, {heuristic name: value}).
    """
    from ...registry import get_method  # the default method, through the registry: it
    from .._greedy import _path          # hands small problems to this search in turn
    from ..am import am, tpower

    # the search's own symmetrized matrix (a deflation's can carry rounding below zero
    # on its diagonal): not the caller's input, so not checked again
    op = Covariance.trusted(np.ascontiguousarray(S, dtype=float))
    found = {}

    def greedy():
        order, path = _path(op, s, "greedy")
        return np.sort(order)

    auto = get_method("auto").func
    runs = (("auto", lambda: auto(op, s, random_state=seed)),
            ("greedy", greedy),
            ("tpower", lambda: tpower(op, s)),
            ("am", lambda: am(op, s, n_starts=n_starts, random_state=seed)))
    for name, run in runs:
        if found and time.perf_counter() >= deadline:
            break
        res = run()
        I = res if isinstance(res, np.ndarray) else \
            np.sort(np.argsort(-np.abs(res.loadings), kind="stable")[:s])
        found[name] = (float(block_lmax(S, I[None, :])[0]), I)
    name = max(found, key=lambda n: found[n][0])
    val, I = swap_search(S, found[name][1], deadline=deadline)
    return val, I, {n: v for n, (v, _) in found.items()}
