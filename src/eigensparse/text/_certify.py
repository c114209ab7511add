"""A topic's certificate by a bounded branch and bound on its strongest words.

For a PSD Σ over the words a topic may use (the working set's block B and the words left
out of it, known only by their variances), a block K of B and a support T of s words
with k in K, r_R in R = B ∖ K and r_O left out, λmax(Σ_T) <= λmax(Σ_{T∖O}) + λmax(Σ_{T∩O})
(Σ_T = A_TᵀA_T: the norm of [A_{T∖O} A_{T∩O}] is at most the root of the sum of their
squared norms), and λmax(Σ_{T∖O}) is bounded by a 2 × 2 block bound from λmax(Σ_{T∩K}),
the covariances between K and R and the variances of R (:class:`_Split`). So

    v(s) <= max over the splits (k, r_R, r_O) of  term(k, v_K(k))

where v_K(k) is the best k-word value inside K and term is increasing in it. K holds the
topic's words and the words of largest variance (at least ``BLOCK_FRACTION`` of the
topic's value), at most ``MAX_BLOCK`` of them; each v_K(k) is bounded by the branch and
bound of ``method="exact"`` (as :func:`eigensparse.solvers._exact.prove_support`: the topic's
k heaviest words as the incumbent, a node budget, the root's penalty chosen once) asked to prove v_K(k) <= c_k, the
largest value whose terms stay below a target u a little above the topic's value; a
cardinality it cannot prove keeps the search's own bound (the largest open node's), one
the budget does not reach the cheap bounds of
:func:`~eigensparse.text._screen.working_set_bounds`. The result is the largest of the
terms: valid whatever the budget stopped.

The search may find a k-word support inside K better than the topic (its incumbent
rises, and so does the bound it proves): the bound stays valid, and ``better`` in the
returned record says that a better topic exists.
"""
from __future__ import annotations

import math
import time

import numpy as np

__all__ = ["branch_bound_certificate", "outside_floor", "floor_growth", "cheap_pass", "BOUND_BRANCH", "CERTIFY_ABOVE"]

#: a topic is certified by the branch and bound when its bound's relative gap is above this
CERTIFY_ABOVE = 0.05
#: the target u of the search: the topic's value times (1 + this)
TARGET_SLACK = 0.03
#: block K: the words of variance above this fraction of the topic's value
BLOCK_FRACTION = 0.03
#: at most this many words in K (those of largest variance, the topic's words always)
MAX_BLOCK = 250
#: the larger block K, taken when the floor of the ``MAX_BLOCK`` one (its terms at the
#: topic's heaviest words) is more than ``CERTIFY_ABOVE`` above the topic's value
LARGE_BLOCK = 400
#: a topic whose certificate the words left out keep above ``CERTIFY_ABOVE``
#: (:func:`outside_floor`) has its working set grown once, this many times larger …
GROW_FACTOR = 3
#: … when pass 2 is cheap: its estimated work, nnz·(1 + nnz / documents) (the nonzeros read
#: and the word pairs of an average document), at most this
GROW_MAX_WORK = 2e8
#: the wide block of a second search (``wide=True``), and its target above the value
#: (just under the 5% goal: a target the incumbents of a wide block can reach)
WIDE_BLOCK = 550
WIDE_SLACK = 0.045
#: nodes of each search (one per cardinality s, s − 1, …)
MAX_NODES = 60
#: the relative margin added to the bound (rounding of the eigenvalues of the search)
_ROUNDING = 1e-10
#: the name the bound reports (``info["bound"]`` of a topic)
BOUND_BRANCH = ("branch and bound on the strongest words: max over the splits of [v(k) on a "
                "block, proven by node-limited searches, with the working set's other words by "
                "their covariances (2×2 block bound) + the largest variances left out]")


def _block(d: np.ndarray, support: np.ndarray, value: float, max_block: int) -> np.ndarray:
    """K: the support and the words of variance > BLOCK_FRACTION·value, at most
    ``max_block`` (by decreasing variance), sorted."""
    order = np.argsort(-d, kind="stable")
    rest = order[~np.isin(order, support)]
    room = max(max_block - support.size, 0)
    rest = rest[:room]
    rest = rest[d[rest] > BLOCK_FRACTION * value]
    return np.sort(np.concatenate([support, rest]))


def _term(BK: np.ndarray, k: int, start: np.ndarray, c: float, max_nodes: int, root: dict):
    """A bound on v_K(k) by the branch and bound of ``method="exact"`` (as its
    :func:`~eigensparse.solvers._exact.prove_support`: ``start`` the incumbent, a node
    budget, no heuristic) with the cut at c: (bound, value found, proven). The root's
    penalty and thresholding are chosen once per block (``root``, at the first k) and
    kept for the other cardinalities (any penalty gives valid bounds)."""
    from ..solvers._exact import _root_penalty
    from ..solvers._exact._search import Search

    if k >= BK.shape[0]:
        return float(np.linalg.eigvalsh(BK)[-1]), -np.inf, True
    inc = float(np.linalg.eigvalsh(BK[np.ix_(start, start)])[-1])
    tol = max(c / inc - 1.0, 1e-9) if inc > 0 else 1e-9
    search = Search(BK, int(k), inc, np.asarray(start, dtype=np.intp), float(tol))
    allowed = np.arange(BK.shape[0])
    if "rho" in root:
        search.scale, rho, bound = root["scale"], root["rho"], np.inf
    else:  # the penalty of the uniform threshold (no thresholding of correlations)
        from .._linalg import top_eigh

        lam0, v0 = top_eigh(BK, small=0, check_finite=False)
        v0 = np.abs(v0) + 1e-2 * float(np.abs(v0).max())
        bound, rho = _root_penalty(search, allowed, None, v0)
        bound = min(bound, float(lam0))
        root.update(rho=rho, scale=None)
    done = True
    if bound > search.cut:
        search.root(allowed, rho, bound=bound)
        done = search.run(deadline=math.inf, max_nodes=int(max_nodes))
    val = float(search.incumbent)
    if done:  # every node pruned at the cut val·(1 + tol), which bounds the optimum
        return val * (1.0 + tol), val, True
    ub = max(min(search.upper_bound, bound), val)
    return float(ub), val, bool(ub - val <= tol * abs(ub))


class _Split:
    """The words outside K: R, those of the working set (their covariances with K known),
    and O, those left out of it (known by their variances). For a support T with k words
    in K, r_R in R and r_O in O (k + r_R + r_O = s):

        λmax(Σ_T) <= λ₂(b_k, G, t_R) + t_O,   λ₂(a, g, t) = λmax([[a, g], [g, t]]),

    with b_k >= λmax(Σ_{T∩K}), t_R the r_R largest variances of R (>= λmax(Σ_{T∩R}): the
    trace), t_O the r_O largest of O, and G² the sum of the r_R largest g_j, g_j the sum
    of the k largest Σ_ij² over i in K (G >= the Frobenius norm of Σ[T∩K, T∩R], hence
    its spectral norm): for x = (x_K, x_R) of norm one, xᵀΣx <= b‖x_K‖² + 2G‖x_K‖‖x_R‖ +
    t_R‖x_R‖² <= λ₂, and the O words add at most λmax(Σ_{T∩O}) <= t_O (module docstring)."""

    def __init__(self, C: np.ndarray, dR: np.ndarray, var_outside, s: int):
        self.s = s
        self.tR = self._tops(dR)
        self.tO = self._tops(np.asarray(var_outside, dtype=float).ravel())
        C2 = np.asarray(C, dtype=float) ** 2
        if C2.shape[1] > s:  # the s largest squares of each row, decreasing
            C2 = np.partition(C2, C2.shape[1] - s, axis=1)[:, -s:]
        C2 = -np.sort(-C2, axis=1)
        cum = np.cumsum(C2, axis=1)
        #: G2[k][r]: the sum of the r largest g_j at k (k = 1 … s)
        self.G2 = {k: self._tops(cum[:, min(k, cum.shape[1]) - 1] if cum.size else np.zeros(0))
                   for k in range(1, s + 1)}

    def _tops(self, v: np.ndarray) -> np.ndarray:
        """[0, v_(1), v_(1) + v_(2), …] up to s terms, nan past the count of v."""
        v = np.sort(np.clip(v, 0.0, None))[::-1][:self.s]
        out = np.full(self.s + 1, np.nan)
        out[:v.size + 1] = np.concatenate([[0.0], np.cumsum(v)])
        return out

    def _splits(self, k: int):
        """(G², t_R, t_O) of every split of the s − k words outside K."""
        r = self.s - k
        for rR in range(r + 1):
            tR, tO = self.tR[rR], self.tO[r - rR]
            if np.isnan(tR) or np.isnan(tO):
                continue
            G2 = self.G2[k][rR] if k and rR else 0.0
            yield (0.0 if np.isnan(G2) else G2), tR, tO

    def term(self, k: int, b: float) -> float:
        """The bound on the supports with k words in K, given b >= their λmax there."""
        best = -np.inf
        for G2, tR, tO in self._splits(k):
            lam = 0.5 * (b + tR) + np.sqrt(0.25 * (b - tR) ** 2 + G2)
            best = max(best, lam + tO)
        return float(best)

    def cut(self, k: int, u: float) -> float:
        """The largest b with term(k, b) <= u (-inf when none): what the search at k must
        prove."""
        c = np.inf
        for G2, tR, tO in self._splits(k):
            room = u - tO
            if room <= tR:
                return -np.inf
            c = min(c, room - G2 / (room - tR))
        return float(c)


def _heaviest(B: np.ndarray, support: np.ndarray, value: float):
    """(value, the support's positions heaviest first): the topic's λmax on ``B`` (when
    above ``value``) and its words by decreasing |loading|."""
    w, V = np.linalg.eigh(B[np.ix_(support, support)])
    return max(float(value), float(w[-1])), support[np.argsort(-np.abs(V[:, -1]), kind="stable")]


def _floor(split: "_Split", B: np.ndarray, heavy: np.ndarray, s: int) -> float:
    """The largest term at the topic's own words: for r = 1 … s − 1 its s − r heaviest
    words (a (s − r)-word value inside the block, so a lower bound on v_K(s − r)) with r
    words outside, and the s words outside. No search on this block can prove less."""
    terms = [split.term(s - r, float(np.linalg.eigvalsh(B[np.ix_(heavy[:s - r], heavy[:s - r])])[-1]))
             for r in range(1, s)]
    return max(terms + [split.term(0, 0.0)])


def outside_floor(B, support, value: float, var_outside, s: int) -> float:
    """The least bound :func:`branch_bound_certificate` can return whatever its block and
    budget: the topic's value, or its floor (``_floor``) when every word of ``B`` is in
    the block (only the words left out, by their variances, outside it). Above the topic's value by more
    than ``CERTIFY_ABOVE`` it says the words left out keep the certificate from closing
    the gap: a larger working set can."""
    B = np.asarray(B, dtype=float)
    support = np.sort(np.asarray(support, dtype=np.intp))
    if support.size != s or value <= 0:
        return math.inf
    value, heavy = _heaviest(B, support, value)
    split = _Split(np.zeros((0, s)), np.zeros(0), var_outside, s)
    return max(_floor(split, B, heavy, s), value)


def floor_growth(r, m: int, cap: int, n_docs: int, nnz) -> int:
    """The working-set size a topic ``r`` asks for its certificate: ``GROW_FACTOR`` times
    ``m`` (at most ``cap``) when its gap is above ``CERTIFY_ABOVE`` because of the words
    left out (``r.info["outside_floor"]``, :func:`outside_floor`) and another pass 2 is
    cheap for the corpus (``GROW_MAX_WORK``); 0 otherwise."""
    floor = (r.info or {}).get("outside_floor")
    if floor is None or r.upper_bound is None or nnz is None or m >= cap:
        return 0
    if floor - float(r.variance) <= CERTIFY_ABOVE * floor:
        return 0
    if not cheap_pass(n_docs, nnz):
        return 0
    return int(min(GROW_FACTOR * m, cap))


def cheap_pass(n_docs: int, nnz) -> bool:
    """Whether another pass 2 over the corpus is cheap: its estimated work, nnz·(1 + nnz /
    documents), at most ``GROW_MAX_WORK`` (then the certificate may also spend its wide
    search)."""
    return nnz is not None and float(nnz) * (1.0 + float(nnz) / max(int(n_docs), 1)) <= GROW_MAX_WORK


def _choose_block(B: np.ndarray, d: np.ndarray, support: np.ndarray, value: float,
                  var_outside, s: int, max_block):
    """(K, its :class:`_Split`, the topic's value, its words heaviest first in K, the
    floor): the ``MAX_BLOCK`` block, or the ``LARGE_BLOCK`` one when the first's floor is
    more than ``CERTIFY_ABOVE`` above the value and the larger one's is lower (a fixed
    choice: the same block on every machine)."""
    sizes = [int(max_block)] if max_block is not None else [MAX_BLOCK, LARGE_BLOCK]
    best = None
    for size in sizes:
        K = _block(d, support, float(value), size)
        if best is not None and K.size <= best[0].size:
            break
        rest = np.ones(B.shape[0], dtype=bool)
        rest[K] = False
        split = _Split(B[np.ix_(rest, K)], d[rest], var_outside, s)
        BK = np.ascontiguousarray(B[np.ix_(K, K)])
        val, heavy = _heaviest(BK, np.searchsorted(K, support), value)
        floor = _floor(split, BK, heavy, s)
        if best is None or floor < best[5]:
            best = (K, BK, split, val, heavy, floor)
        if floor - val <= CERTIFY_ABOVE * floor:
            break
    return best


def branch_bound_certificate(B, support, value: float, var_outside, s: int, *,
                             current: float = math.inf, max_nodes: int | None = None,
                             max_block: int | None = None, cpu_seconds: float = math.inf,
                             wide: bool = False):
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
    max_nodes, max_block : int, optional
        Each search's node budget (default ``MAX_NODES``); the largest block K (default
        ``MAX_BLOCK``, or ``LARGE_BLOCK`` where the smaller block's floor is above the
        topic's value by more than ``CERTIFY_ABOVE``: :func:`_choose_block`).
    cpu_seconds : float
        No search starts once this call has used that much CPU time (the cheap bounds
        then; CPU time, not wall time: the same work whatever else runs).
    wide : bool
        When the default blocks leave the relative gap above ``CERTIFY_ABOVE`` and more
        words qualify for K than ``LARGE_BLOCK``, search once more on a block of
        ``WIDE_BLOCK`` words with the target ``WIDE_SLACK`` above the value (the smaller
        bound is kept): a fixed amount of work more, for a caller whose corpus is small.

    Returns
    -------
    None or (float, dict)
        The bound and a record: ``block`` (|K|), ``nodes`` budget, ``proven`` (the
        cardinalities whose term the search proved), ``better`` (a k-word value above the
        topic's, found inside K, at k = s; None when none).
    """
    B = np.asarray(B, dtype=float)
    support = np.sort(np.asarray(support, dtype=np.intp))
    if support.size != s or B.shape[0] <= s or value <= 0:
        return None
    max_nodes = MAX_NODES if max_nodes is None else int(max_nodes)
    args = (B, support, float(value), var_outside, s, max_nodes, time.process_time() + cpu_seconds)
    out = _search_block(*args, max_block, TARGET_SLACK, current)
    gap_left = out is None or out[0] - value > CERTIFY_ABOVE * out[0]
    if wide and max_block is None and gap_left and \
            np.count_nonzero(np.diag(B) > BLOCK_FRACTION * value) > LARGE_BLOCK:
        more = _search_block(*args, WIDE_BLOCK, WIDE_SLACK, current if out is None else out[0])
        out = more if more is not None else out
    return out


def _search_block(B, support, value, var_outside, s, max_nodes, stop, max_block, slack, current):
    """:func:`branch_bound_certificate` on one block choice (``max_block``, None: by the
    floor) with the target ``slack`` above the value; no search starts after the process
    time ``stop``."""
    from ._screen import working_set_bounds

    K, BK, split, value, heavy, floor = _choose_block(B, np.diag(B), support, float(value),
                                                      var_outside, s, max_block)
    # each term is at least the floor (the topic's own words): when it reaches ``current``
    # no search can help
    if floor >= current:
        return None
    cheap = working_set_bounds(BK, s)
    u = float(value) * (1.0 + slack)
    terms, proven, better, root = [split.term(0, 0.0)], [], None, {}
    for k in range(s, 0, -1):
        term = split.term(k, float(cheap[k]))
        c = split.cut(k, u)
        if term <= u or term <= max(terms) or c <= 0 or time.process_time() >= stop:
            terms.append(term)
        else:
            b, val, ok = _term(BK, k, np.sort(heavy[:k]), c, max_nodes, root)
            terms.append(split.term(k, min(b, float(cheap[k]))))
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
