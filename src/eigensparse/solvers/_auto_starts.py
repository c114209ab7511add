"""The starting points of the default method ``auto`` (:mod:`eigensparse.solvers._auto`)
on its working-set block B: the warm start, the top-variance support, ``e_i`` for the
features of largest column energy, Gaussian starts truncated to s entries, and the best
neighbourhoods (feature i with its s − 1 strongest partners |B_ij|); and the null-free
block the search runs on.
"""
from __future__ import annotations

import numpy as np

from .._validation import InvalidParameterError, check_start_vectors
from ._auto_kernels import neighbourhood_scores, rows_with_nonzero
from ._auto_select import first_distinct_rows, partners_of_rows, row_partners, top_order
from ._auto_settings import AutoSettings

__all__ = ["n_starts_for", "init_supports", "start_supports", "drop_null", "partners",
           "neighbourhoods"]


def n_starts_for(m: int, cfg: AutoSettings) -> int:
    """The random and coordinate starts on m features: clip(start_flops / m², min_starts, max_starts)."""
    return int(min(cfg.max_starts, max(cfg.min_starts, cfg.start_flops // max(m * m, 1))))


def init_supports(init, p: int, s: int) -> tuple[list, np.ndarray]:
    """The supports (s largest |entries|, ties to the lower index; sorted) of the columns
    of ``init`` (shape (p,) or (p, n)), and the columns as a (p, n) array."""
    if isinstance(init, str):
        raise InvalidParameterError(
            f"auto: parameter 'init' must be None or a numeric array of shape (p,) or (p, n) "
            f"with p={p}; got {init!r}.")
    A = check_start_vectors(init, p, valid="None or a numeric array")
    rank = np.arange(p)
    return [np.sort(np.lexsort((rank, -np.abs(A[:, c])))[:s]) for c in range(A.shape[1])], A


def start_supports(B: np.ndarray, s: int, greedy_support: np.ndarray, N: int, rng, pos=None,
                   energy=None):
    """N s-sparse starting points on the working set, as ``(supports, values)`` of
    shape (N, s) each (supports sorted; a start with fewer nonzeros carries zero values
    on filler features): the greedy support, the top-variance support, ``e_i`` for the
    features of largest column energy ‖B[:, i]‖, and Gaussian vectors truncated to their
    s largest entries.

    ``pos`` (from :func:`drop_null`): the starts are drawn on B, then mapped to the
    null-free block's positions (every null feature to its one kept null row, where a
    start's entry multiplies a zero row: the same iterates, from the same draws).
    ``energy``: the column energies ‖B[:, i]‖² when already computed."""
    m = B.shape[0]
    sup = np.empty((N, s), dtype=np.int64)
    val = np.ones((N, s))
    sup[0] = greedy_support
    if N > 1:
        sup[1] = np.sort(top_order(np.diag(B).copy(), s))
    n_coord = max(0, min(m, (N - 2) // 2))
    if n_coord:  # e_i padded with zero-valued filler features: [0, s) if i < s, else [0, s-1) ∪ {i}
        if energy is None:
            energy = np.einsum("ij,ij->j", B, B)
        coords = top_order(energy, n_coord)
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


def drop_null(B: np.ndarray, s: int, warm: np.ndarray, N: int):
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


def partners(B: np.ndarray, s: int):
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


def neighbourhoods(B: np.ndarray, J, limit: int, cfg: AutoSettings, t: int | None = None):
    """Starts from each feature's neighbourhood: feature i with its s − 1 strongest
    partners ``J[i]`` (from :func:`partners`; None: the t = ``t`` strongest, computed here
    as needed, the same ones). Returns the
    ``limit`` best distinct supports, as ``(supports, values)`` (sorted supports;
    values: an approximate leading eigenvector of their s×s block), best first, ranked
    by a lower bound on λmax of their block: the Rayleigh quotient after
    ``hood_power_steps`` batched power steps from B[i, N_i]. A group of correlated
    features of moderate variance is the neighbourhood of each of its members, whatever
    the variances around it.

    Beyond ``hood_probe`` partners, the neighbourhoods are first ranked on their cores
    (feature i with its ``hood_probe`` strongest partners, the first columns of J: the
    same bound on a (hood_probe + 1)² block), and only the ``hood_rows_per_start`` ×
    ``limit`` best take the steps on their whole block (with ``J`` None, only their rows
    select all t partners)."""
    m = B.shape[0]
    t = J.shape[1] if J is not None else int(t)
    rows = np.arange(m)
    if t > cfg.hood_probe and m > cfg.hood_rows_per_start * limit:
        core = (row_partners(B, cfg.hood_probe)[0] if J is None
                else np.ascontiguousarray(J[:, :cfg.hood_probe]))
        rq, _ = neighbourhood_scores(B, rows, core, cfg.hood_power_steps)
        rows = np.sort(top_order(rq, cfg.hood_rows_per_start * limit))
    if J is None:  # each row's partners do not depend on the other rows
        Jr = partners_of_rows(B, rows, rows, t)[0]
    else:
        Jr = np.ascontiguousarray(J[rows])
    sup = np.hstack([rows[:, None], Jr])
    rq, v = neighbourhood_scores(B, rows, Jr, cfg.hood_power_steps)
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
