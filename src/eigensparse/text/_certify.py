"""A topic's certificate by a bounded branch and bound on its strongest words.

For a PSD Σ over a word set V (the words the topic may use: the working set's block and
the words left out of it, known only by their variances), a block K ⊆ V and a support
T with r = |T ∖ K| words outside K, λmax(Σ_T) <= λmax(Σ_{T∩K}) + λmax(Σ_{T∖K}) (Σ_T =
A_TᵀA_T: the norm of [A_{T∩K} A_{T∖K}] is at most the root of the sum of their squared
norms), so

    v(s) <= max over r = 0 … s of  v_K(s − r) + (the r largest variances outside K)

where v_K(k) is the best k-word value inside K. K holds the topic's words and the words
of largest variance (at least ``BLOCK_FRACTION`` of the topic's value), at most
``MAX_BLOCK`` of them; each v_K(k) is bounded by the branch and bound of ``method="exact"``
(:func:`eigensparse.solvers._exact.prove_support`: the topic's k heaviest words as the
incumbent, a node budget) asked to prove v_K(k) <= c_k = u − (the r largest variances
outside K) for a target u a little above the topic's value; a term it cannot prove keeps
the search's own bound (the largest open node's), a term the budget does not reach
the cheap bounds of :func:`~eigensparse.text._screen.working_set_bounds`. The result is
the largest of the terms: valid whatever the budget stopped.

The search may find a k-word support inside K better than the topic (its incumbent
rises, and so does the bound it proves): the bound stays valid, and ``better`` in the
returned record says that a better topic exists.
"""
from __future__ import annotations

import math
import time

import numpy as np

__all__ = ["branch_bound_certificate", "BOUND_BRANCH", "CERTIFY_ABOVE"]

#: a topic is certified by the branch and bound when its bound's relative gap is above this
CERTIFY_ABOVE = 0.02
#: the target u of the search: the topic's value times (1 + this)
TARGET_SLACK = 0.01
#: block K: the words of variance above this fraction of the topic's value
BLOCK_FRACTION = 0.03
#: at most this many words in K (those of largest variance, the topic's words always)
MAX_BLOCK = 400
#: nodes of each search (one per cardinality s, s − 1, …)
MAX_NODES = 60
#: the relative margin added to the bound (rounding of the eigenvalues of the search)
_ROUNDING = 1e-10
#: the name the bound reports (``info["bound"]`` of a topic)
BOUND_BRANCH = ("branch and bound on the strongest words: max over r of [v(s−r) on the block, "
                "proven by a node-limited search + the r largest variances outside it]")


def _block(d: np.ndarray, support: np.ndarray, value: float, max_block: int) -> np.ndarray:
    """K: the support and the words of variance > BLOCK_FRACTION·value, at most
    ``max_block`` (by decreasing variance), sorted."""
    order = np.argsort(-d, kind="stable")
    rest = order[~np.isin(order, support)]
    room = max(max_block - support.size, 0)
    rest = rest[:room]
    rest = rest[d[rest] > BLOCK_FRACTION * value]
    return np.sort(np.concatenate([support, rest]))


def _term(BK: np.ndarray, k: int, start: np.ndarray, c: float, max_nodes: int):
    """A bound on v_K(k): c when the search proves it (or the better value it found,
    times the same factor), else the search's bound. (bound, value found, proven)."""
    from ..solvers._exact import prove_support

    if k >= BK.shape[0]:
        return float(np.linalg.eigvalsh(BK)[-1]), -np.inf, True
    inc = float(np.linalg.eigvalsh(BK[np.ix_(start, start)])[-1])
    tol = max(c / inc - 1.0, 1e-9) if inc > 0 else 1e-9
    _, val, ub, cert, _ = prove_support(BK, k, start, max_nodes=max_nodes, tol=tol)
    # certified: either every node was pruned at the cut val·(1 + tol) (then that cut
    # bounds the optimum) or the search's own bound ub is within tol of val
    bound = max(ub, val * (1.0 + tol)) if cert else ub
    return float(bound), float(val), bool(cert)


def branch_bound_certificate(B, support, value: float, var_outside, s: int, *,
                             current: float = math.inf, max_nodes: int = MAX_NODES,
                             max_block: int = MAX_BLOCK, cpu_seconds: float = math.inf):
    """A bound on the best ``s``-word value over the block's words and the words left out
    (module docstring), or None when it is not below ``current``.

    Parameters
    ----------
    B : ndarray (m, m)
        The PSD covariance of the words the topic may use in the working set.
    support : array of int
        The topic's positions in ``B``.
    value : float
        The topic's variance (its support's λmax(B[support, support]) when larger).
    var_outside : array of float
        The variances of the words the topic may use outside ``B``.
    s : int
    current : float
        A bound already known (the search is skipped for a cardinality once the bound
        cannot go below it).
    max_nodes, max_block : int
        Each search's node budget; the largest block K.
    cpu_seconds : float
        No search starts once this call has used that much CPU time (the cheap bounds
        then; CPU time, not wall time: the same work whatever else runs).

    Returns
    -------
    None or (float, dict)
        The bound and a record: ``block`` (|K|), ``nodes`` budget, ``proven`` (the
        cardinalities whose term the search proved), ``better`` (a k-word value above the
        topic's, found inside K, at k = s; None when none).
    """
    from ._screen import working_set_bounds

    start = time.process_time()
    B = np.asarray(B, dtype=float)
    support = np.sort(np.asarray(support, dtype=np.intp))
    if support.size != s or B.shape[0] <= s or value <= 0:
        return None
    d = np.diag(B)
    K = _block(d, support, float(value), int(max_block))
    BK = np.ascontiguousarray(B[np.ix_(K, K)])
    left = np.ones(B.shape[0], dtype=bool)
    left[K] = False
    out = np.concatenate([d[left], np.asarray(var_outside, dtype=float).ravel()])
    out = np.sort(np.clip(out, 0.0, None))[::-1][:s]
    top = np.concatenate([[0.0], np.cumsum(out), np.full(s + 1 - out.size, out.sum())])[:s + 1]
    cheap = working_set_bounds(BK, s)
    sup = np.searchsorted(K, support)
    w, V = np.linalg.eigh(BK[np.ix_(sup, sup)])
    value, x = max(float(value), float(w[-1])), V[:, -1]
    heavy = sup[np.argsort(-np.abs(x), kind="stable")]  # the topic's words, heaviest first
    # each term is at least the value of the topic's k heaviest words plus the r largest
    # variances outside K: when one of these reaches ``current`` no search can help
    floor = [float(np.linalg.eigvalsh(BK[np.ix_(heavy[:s - r], heavy[:s - r])])[-1]) + top[r]
             for r in range(1, s)]
    if max(floor, default=0.0) >= current or top[s] >= current:
        return None
    u = float(value) * (1.0 + TARGET_SLACK)
    terms, proven, better = [float(top[s])], [], None
    for r in range(s):
        k = s - r
        if cheap[k] + top[r] <= u or cheap[k] + top[r] <= max(terms):
            terms.append(float(cheap[k] + top[r]))
            continue
        c = u - top[r]
        if c <= 0 or time.process_time() - start >= cpu_seconds:
            terms.append(float(cheap[k] + top[r]))
        else:
            b, val, ok = _term(BK, k, np.sort(heavy[:k]), c, max_nodes)
            terms.append(min(b, float(cheap[k])) + float(top[r]))
            if ok:
                proven.append(k)
            if k == s and val > value * (1.0 + 1e-9):
                better = val
        if max(terms) >= current:
            return None
    ub = max(terms) * (1.0 + _ROUNDING)
    if ub >= current:
        return None
    return float(ub), {"block": int(K.size), "max_nodes": int(max_nodes), "proven": proven,
                       "better": better}
