"""Root screening of the branch and bound: variables that no support beating the incumbent
contains.

A variable j is removed from the allowed set A when the node ({j}, A) — every support
S ⊆ A of size s with j ∈ S — has an upper bound <= the cut (the incumbent times
1 + tol): no such support beats the incumbent, so the optimum (if better) lies in
A \\ {j}. Removals are applied at once; each is valid given the ones before it (the
supports that remain to be searched are those inside the current A), and a smaller A
tightens the bounds of the others (fewer partners for each row).

Three phases, cheapest first, repeated while the last removes something:

0. the low-rank bound of :func:`._lowrank.lowrank_screen` for every j at once (one
   eigensolve of the top three eigenpairs, on Σ[A, A] and on the soft-threshold block
   at the root's ρ, both of which dominate Σ on every support inside A);
1. the Gershgorin and 2×2 block bounds of :mod:`._bounds` (O(p·s) each), to a fixpoint;
2. the shifted soft-threshold eigenvalue bound of :func:`._bounds.soft_eig_bound`, decided
   by one Cholesky factor of cut·I − (M + D) (:func:`._bounds.proves_below`: success proves
   λmax(M + D) <= cut; failure keeps j, which is always safe). No eigensolve: only the
   prune decision is needed. Survivors of phase 1 are tried in the order of their
   cheap bound (most likely to go first, so the others face a smaller A); the phase
   stops after ``PATIENCE`` failures in a row (on problems where the eigenvalue bound
   prunes nothing, e.g. a root gap of a few percent, it would otherwise cost one
   factorization per variable).
"""
from __future__ import annotations

import math
import time

import numpy as np

from ._bounds import (block_split_bound, free_block_bound, gershgorin_bound, proves_below,
                      shifted_block)
from ._lowrank import lowrank_screen

__all__ = ["screen_root"]

#: phase 2 stops after this many variables in a row that it could not remove
PATIENCE = 32


def _cheap_bound(search, j: int, A: np.ndarray) -> float:
    """The smaller of the Gershgorin and 2×2 block bounds of the node ({j}, A)."""
    s = search.s
    F = np.array([j], dtype=np.intp)
    R = A[A != j]
    b = gershgorin_bound(search.absS, search.d, F, R, s - 1, search.order)
    if b <= search.cut:
        return b
    lam_T = free_block_bound(search.S, search.absS, search.d, R, s - 1, order=search.order)
    return min(b, block_split_bound(search.S, F, R, s - 1, float(search.d[j]), lam_T))


def _soft_prunes(search, j: int, A: np.ndarray, rho: float) -> bool:
    """True only if the soft-threshold bound of ({j}, A) at ρ is proven <= the cut."""
    F = np.array([j], dtype=np.intp)
    B = shifted_block(search.S, F, A[A != j], search.s - 1, rho, search.scale, search.order,
                      search.U)
    return proves_below(B, search.cut)


def _lowrank_pass(search, A: np.ndarray, rho: float) -> np.ndarray:
    """Phase 0: A without the variables whose low-rank bound is <= the cut (all tested on
    the same A: a support beating the cut contains none of them, so it lies in what is
    left)."""
    bound = lowrank_screen(search.S[np.ix_(A, A)], search.s)
    if rho > 0 or search.U is not None:
        F = np.zeros(0, dtype=np.intp)
        M = shifted_block(search.S, F, A, search.s, rho, search.scale, search.order, search.U)
        bound = np.minimum(bound, lowrank_screen(M, search.s))
    return A[bound > search.cut]


def _cheap_pass(search, A: np.ndarray, deadline: float):
    """Phase 1 once over A: returns (A without the variables pruned, the cheap bounds of the
    survivors, in A's order). Past the deadline the rest are kept."""
    keep, bounds = np.ones(A.size, dtype=bool), np.full(A.size, np.inf)
    cur = A
    for a, j in enumerate(A):
        if time.perf_counter() >= deadline:
            break
        b = _cheap_bound(search, int(j), cur)
        if b <= search.cut:
            keep[a] = False
            cur = cur[cur != j]
        else:
            bounds[a] = b
    return A[keep], bounds[keep]


def screen_root(search, allowed: np.ndarray, rho: float, *, rounds: int = 4,
                deadline: float = math.inf) -> np.ndarray:
    """The allowed set after root screening (see the module docstring), sorted.

    ``rho`` is the penalty of the soft-threshold bound (the root's). Variables not yet
    examined when ``deadline`` (a ``time.perf_counter`` value) passes are kept. Fewer
    than s variables left means that no support beats the cut: the incumbent is optimal
    (within tol).
    """
    s = search.s
    A = np.sort(np.asarray(allowed, dtype=np.intp))
    if s == 1:
        keep = search.d[A] > search.cut
        return A[keep]
    for _ in range(rounds):
        before = A.size
        if A.size >= 3 and time.perf_counter() < deadline:
            A = _lowrank_pass(search, A, rho)
            if A.size < s:
                return A
        # phase 1 to a fixpoint (each pass is cheap; a smaller A tightens the rows)
        while True:
            n = A.size
            A, cheap = _cheap_pass(search, A, deadline)
            if A.size == n or time.perf_counter() >= deadline:
                break
        if A.size < s:
            return A
        # phase 2: the eigenvalue test, most promising first, removals at once
        removed = set()
        cur = A
        misses = 0
        for a in np.argsort(cheap, kind="stable"):
            if time.perf_counter() >= deadline or cur.size < s or misses >= PATIENCE:
                break
            j = int(A[a])
            if _soft_prunes(search, j, cur, rho):
                removed.add(j)
                cur = cur[cur != j]
                misses = 0
            else:
                misses += 1
        A = cur
        if not removed or A.size == before or time.perf_counter() >= deadline:
            break
    return A
