"""A working set that sees correlation, and a bound on the whole vocabulary.

Variance alone is the wrong key for topics: a topic is a group of mid-frequency words
that co-occur, each of moderate variance, while the largest variances belong to frequent
words that co-occur with nothing in particular. This module ranks words by their
**partner score** — Σᵢᵢ plus the s−1 largest |Σᵢⱼ| — which is also a bound: for any
support T of s words containing i, Gershgorin's theorem gives

    λmax(Σ_T) <= max_{i ∈ T} (Σᵢᵢ + Σ_{j ∈ T∖i} |Σᵢⱼ|) <= max_{i ∈ T} score_s(i),

so a word can only belong to a topic of variance φ if some word of that topic scores at
least φ.

:func:`select_working_set` computes the scores of a candidate pool (the kept words of
largest variance, a few thousand) from the covariance of the pool on a sample of the
documents (the first ``sample_docs`` documents: one partial pass whose cost does not
grow with the corpus), and returns every word in priority order (the pool by the
better of each word's ranks by partner score and by variance, then the rest by
variance), whose first m are the working set: the m/2 or so words of largest variance
and the m/2 or so of largest partner score.

:func:`full_vocabulary_bound` bounds the best s-word variance over the **whole**
vocabulary from the working-set covariance and the variances of the words left out:
for PSD Σ and T = (T ∩ W) ∪ (T ∖ W) with r = |T ∖ W|,
λmax(Σ_T) <= λmax(Σ_{T∩W}) + λmax(Σ_{T∖W}) <= ub_W(s − r) + (the r largest variances
outside W).

:func:`neighbourhood_topic` is the per-topic search on the working set: every word's
neighbourhood (itself and its s−1 strongest partners) is a start, the best are polished
by the truncated power method.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numba
import numpy as np

from .._validation import InvalidParameterError, Interval, validate_params

__all__ = ["WorkingSetSelection", "select_working_set", "partner_scores", "sample_covariance",
           "full_vocabulary_bound", "working_set_bounds", "neighbourhood_topic",
           "DEFAULT_POOL_SIZE", "DEFAULT_SAMPLE_DOCS"]

#: candidate pool: the kept words of largest variance whose partner scores are computed
DEFAULT_POOL_SIZE = 3000
#: documents read (from the start of the corpus) for the pool's covariance
DEFAULT_SAMPLE_DOCS = 10_000
#: relative margin on the bounds, above the rounding of an eigenvalue computed elsewhere
_ROUNDING = 1e-10


@dataclass
class WorkingSetSelection:
    """What :func:`select_working_set` chose.

    Attributes
    ----------
    order : ndarray of int, shape (W,)
        Every word id in priority order: the pool by the better of a word's ranks by
        partner score and by variance, then the other words by variance.
    ws : ndarray of int
        The working set: ``np.sort(order[:m])``.
    pool : ndarray of int
        Sorted ids of the candidate pool.
    score : ndarray of float, shape (W,)
        Partner score of the pool words on the sample (NaN outside the pool).
    sample_docs : int
        Documents read for the pool's covariance (0: variance order only).
    seconds : float
    info : dict
    """

    order: np.ndarray
    ws: np.ndarray
    pool: np.ndarray
    score: np.ndarray
    sample_docs: int
    seconds: float
    info: dict = field(default_factory=dict)


def partner_scores(S, cardinality: int) -> np.ndarray:
    """Σᵢᵢ + the ``cardinality`` − 1 largest |Σᵢⱼ| (j ≠ i) of every row of ``S``.

    For every support T of at most ``cardinality`` features,
    λmax(S_T) <= max_{i ∈ T} score(i) (Gershgorin), when S is symmetric.

    Parameters
    ----------
    S : ndarray of shape (m, m)
    cardinality : int

    Returns
    -------
    ndarray of shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.text._screen import partner_scores
    >>> S = np.array([[2.0, 0.5, -1.0], [0.5, 1.0, 0.1], [-1.0, 0.1, 1.5]])
    >>> partner_scores(S, 2).tolist()
    [3.0, 1.5, 2.5]
    """
    S = np.asarray(S, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise InvalidParameterError(f"partner_scores: parameter 'S' must be square; got shape {S.shape}.")
    validate_params({"cardinality": cardinality}, {"cardinality": Interval("int", 1, None)},
                    where="partner_scores")
    m = S.shape[0]
    d = np.diag(S).copy()
    k = min(int(cardinality) - 1, m - 1)
    if k <= 0:
        return d
    A = np.abs(S)
    np.fill_diagonal(A, 0.0)
    top = np.partition(A, m - k, axis=1)[:, m - k:]
    return d + top.sum(axis=1)


@numba.njit(cache=True, nogil=True)
def _gram_by_rows(c_ptr, c_doc, c_val, r_ptr, r_col, r_val, G):
    """Upper triangle: G[i, j] += v_di · v_dj (j >= i) for every document d of word i
    (X: the sample on the pool, as CSC ``c_*`` and CSR ``r_*`` with sorted columns): one
    row of G at a time, so the updates stay in cache whatever the pool size."""
    for i in range(c_ptr.size - 1):
        row = G[i]
        for t in range(c_ptr[i], c_ptr[i + 1]):
            d = c_doc[t]
            vi = c_val[t]
            lo = r_ptr[d]
            hi = r_ptr[d + 1]
            while lo < hi:  # first entry of document d with column >= i
                mid = (lo + hi) // 2
                if r_col[mid] < i:
                    lo = mid + 1
                else:
                    hi = mid
            for u in range(lo, r_ptr[d + 1]):
                row[r_col[u]] += vi * r_val[u]


def sample_covariance(corpus, words, *, scaling: str, idf=None, sample_docs: int,
                      chunk_nnz: int) -> tuple[np.ndarray, int]:
    """Covariance (centered on the sample's own means, divided by the sample size) of
    the words ``words`` (sorted ids) over the first ``sample_docs`` documents of
    ``corpus``. Returns (S, documents read)."""
    import scipy.sparse as sp

    from ._passes import _values

    ws = np.asarray(words, dtype=np.int64)
    m = ws.size
    col_map = np.full(corpus.n_words, -1, dtype=np.int64)
    col_map[ws] = np.arange(m)
    parts, n = [], 0
    # chunks about the size of the sample: one read, one scaling of what is used
    per_doc = max(1.0, float(corpus.nnz) / max(1, corpus.n_docs))
    chunk_nnz = int(min(chunk_nnz, 1.3 * sample_docs * per_doc + 1))
    for ch in corpus.iter_chunks(chunk_nnz=chunk_nnz, progress=False, desc="screening sample"):
        v = _values(ch, scaling, idf)
        nd = min(ch.n_docs, sample_docs - n)
        end = int(ch.indptr[nd])
        a = col_map[ch.indices[:end]]
        inside = a >= 0
        rows = np.repeat(np.arange(n, n + nd), np.diff(ch.indptr[:nd + 1]))
        parts.append((rows[inside], a[inside], v[:end][inside]))
        n += nd
        if n >= sample_docs:
            break
    n = max(n, 1)
    r, c, v = (np.concatenate([p[k] for p in parts]) for k in range(3))
    X = sp.csr_matrix((v, (r, c)), shape=(n, m))
    X.sort_indices()
    Xc = X.tocsc()
    Xc.sort_indices()
    G = np.zeros((m, m))
    _gram_by_rows(Xc.indptr.astype(np.int64), Xc.indices.astype(np.int64), Xc.data,
                  X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data, G)
    G = G + G.T
    G[np.diag_indices(m)] *= 0.5
    mu = np.asarray(X.sum(axis=0)).ravel() / n
    G /= n
    G -= np.outer(mu, mu)
    return G, n


def select_working_set(passes, var, m: int, cardinality: int, *,
                       pool_size: int = DEFAULT_POOL_SIZE,
                       sample_docs: int = DEFAULT_SAMPLE_DOCS) -> WorkingSetSelection:
    """The working set of the topic pipeline by partner scores on a candidate pool.

    Parameters
    ----------
    passes : eigensparse.text._passes.CorpusPasses
        The corpus and its scaling (pass 1 done: ``passes.idf`` set for tf-idf).
    var : ndarray of shape (W,)
        Per-word variances after pruning (0 for pruned words): pass 1's statistics.
    m : int
        Working-set size.
    cardinality : int
        Words per topic (the s of the partner score).
    pool_size : int, default=3000
        Candidate pool: the words of largest variance whose partners are measured;
        its covariance costs 8·pool_size² bytes.
    sample_docs : int, default=10000
        Documents read for the pool's covariance (the first ones).

    Returns
    -------
    WorkingSetSelection
    """
    validate_params({"m": m, "cardinality": cardinality, "pool_size": pool_size,
                     "sample_docs": sample_docs},
                    {"m": Interval("int", 1, None), "cardinality": Interval("int", 1, None),
                     "pool_size": Interval("int", 1, None), "sample_docs": Interval("int", 1, None)},
                    where="select_working_set")
    t0 = time.perf_counter()
    var = np.asarray(var, dtype=float)
    W = var.size
    by_var = np.argsort(-var, kind="stable")
    n_pos = int(np.count_nonzero(var > 0))
    P = min(max(pool_size, m), n_pos)
    pool = np.sort(by_var[:P])
    corpus = passes.corpus
    score = np.full(W, np.nan)
    if P <= m or not hasattr(corpus, "iter_chunks") or getattr(corpus, "reduce_blocks", None):
        # nothing to choose (or a distributed corpus): the variance order
        ws = np.sort(by_var[:m])
        return WorkingSetSelection(by_var, ws, pool, score, 0, time.perf_counter() - t0,
                                   {"rule": "variance"})
    S, n_read = sample_covariance(corpus, pool, scaling=passes.scaling, idf=passes.idf,
                                  sample_docs=sample_docs, chunk_nnz=passes.chunk_nnz)
    sc = partner_scores(S, cardinality)
    score[pool] = sc
    # a word's priority: the better of its ranks by partner score and by variance, so
    # the working set holds the words of largest variance (a small elimination
    # threshold) and the words of strongest partners alike
    r_sc = np.empty(P, dtype=np.int64)
    r_sc[np.lexsort((-var[pool], -sc))] = np.arange(P)
    r_var = np.empty(P, dtype=np.int64)
    r_var[np.argsort(-var[pool], kind="stable")] = np.arange(P)
    first = pool[np.lexsort((r_sc, np.minimum(r_sc, r_var)))]
    rest = by_var[P:]
    order = np.concatenate([first, rest])
    ws = np.sort(order[:m])
    info = {"rule": "partner", "pool_size": int(P),
            "variance_words_kept": int(np.intersect1d(ws, by_var[:m]).size)}
    return WorkingSetSelection(order, ws, pool, score, int(n_read), time.perf_counter() - t0, info)


def working_set_bounds(S, cardinality: int, used=None) -> np.ndarray:
    """ub[k], k = 0 … cardinality: a bound on λmax(S_T) over every support T of k
    unused features of the PSD matrix ``S``: the least of the sum of the k largest
    variances (trace), the largest k-partner score (Gershgorin) and λmax(S)."""
    S = np.asarray(S, dtype=float)
    avail = np.ones(S.shape[0], dtype=bool) if used is None else ~np.asarray(used, dtype=bool)
    idx = np.flatnonzero(avail)
    Sa = S[np.ix_(idx, idx)]
    n = idx.size
    ub = np.zeros(cardinality + 1)
    if n == 0:
        return ub
    d = np.clip(np.sort(np.diag(Sa))[::-1], 0.0, None)
    from scipy.linalg import eigh

    lam = float(eigh(Sa, eigvals_only=True, subset_by_index=[n - 1, n - 1])[0])
    for k in range(1, cardinality + 1):
        if k > n:
            ub[k] = ub[k - 1]
            continue
        ger = float(partner_scores(Sa, k).max())
        ub[k] = min(float(d[:k].sum()), ger, lam)
    return ub * (1.0 + _ROUNDING)


def full_vocabulary_bound(S, cardinality: int, var_outside, *, used=None) -> float:
    """A bound on the best ``cardinality``-word variance over the whole vocabulary.

    ``S`` is the (PSD) covariance of the working set W, ``var_outside`` the variances
    of every word outside it (the pruned vocabulary). For a support T with r words
    outside W, λmax(Σ_T) <= λmax(Σ_{T∩W}) + λmax(Σ_{T∖W}) <= ub_W(s − r) + (the sum
    of the r largest variances outside W), so the bound is the largest of these over r.

    Parameters
    ----------
    S : ndarray of shape (m, m)
    cardinality : int
    var_outside : array-like of float
        Variances of the words outside the working set (zeros may be omitted).
    used : bool array of shape (m,), optional
        Working-set words excluded (earlier disjoint topics).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.text._screen import full_vocabulary_bound
    >>> S = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> full_vocabulary_bound(S, 2, [0.5]) >= 3.0  # the best pair inside W has 3
    True
    """
    validate_params({"cardinality": cardinality}, {"cardinality": Interval("int", 1, None)},
                    where="full_vocabulary_bound")
    s = int(cardinality)
    ub = working_set_bounds(S, s, used)
    out = np.sort(np.clip(np.asarray(var_outside, dtype=float).ravel(), 0.0, None))[::-1][:s]
    top = np.concatenate([[0.0], np.cumsum(out)])
    best = max(ub[s - r] + top[r] for r in range(min(s, out.size) + 1))
    return float(best * (1.0 + _ROUNDING))


def neighbourhood_topic(S, cardinality: int, *, used=None, n_polish: int = 16,
                        random_state=None):
    """The best s-word topic from neighbourhood starts on the covariance ``S``.

    Every unused word i gives the support {i} ∪ its s−1 strongest partners (largest
    |Sᵢⱼ| among unused words); the ``n_polish`` supports of largest λmax start the
    truncated power method on all unused words, and the best result is returned as
    (positions in S, unit loadings, variance).
    """
    from ..operators import Covariance
    from ..solvers import get_solver

    S = np.asarray(S, dtype=float)
    s = int(cardinality)
    m = S.shape[0]
    avail = np.ones(m, dtype=bool) if used is None else ~np.asarray(used, dtype=bool)
    idx = np.flatnonzero(avail & (np.diag(S) > 0))
    if idx.size < s:
        raise InvalidParameterError(f"neighbourhood_topic: parameter 'cardinality' ({s}) exceeds "
                                    f"the {idx.size} unused features of positive variance.")
    Sa = S[np.ix_(idx, idx)]
    n = idx.size
    A = np.abs(Sa)
    np.fill_diagonal(A, -np.inf)
    k = s - 1
    if k > 0:
        part = np.argpartition(A, n - k, axis=1)[:, n - k:]
        sup = np.concatenate([np.arange(n)[:, None], part], axis=1)
    else:
        sup = np.arange(n)[:, None]
    sup = np.unique(np.sort(sup, axis=1), axis=0)
    blocks = Sa[sup[:, :, None], sup[:, None, :]]
    w, V = np.linalg.eigh(blocks)
    lam = w[:, -1]
    top = np.argsort(-lam, kind="stable")[:n_polish]
    init = np.zeros((n, top.size))
    for c, i in enumerate(top):
        init[sup[i], c] = V[i, :, -1]
    op = Covariance(Sa, check_psd=False)
    r = get_solver("tpower").func(op, s, init=init, random_state=random_state)
    best_lam = float(lam[top[0]])
    if r.variance >= best_lam:
        supp, x, val = np.flatnonzero(r.loadings), r.loadings, float(r.variance)
        x = x[supp]
    else:
        supp, x, val = sup[top[0]], V[top[0], :, -1], best_lam
    o = np.argsort(supp)
    supp, x = idx[supp[o]], x[o]
    x = x / np.linalg.norm(x)
    if x[np.argmax(np.abs(x))] < 0:
        x = -x
    return supp, x, val
