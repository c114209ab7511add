"""The partner rule of the topic pipeline's working set, and a bound on the whole vocabulary.

Variance alone is the wrong key for topics: a topic is a group of mid-frequency words
that co-occur, each of moderate variance, while the largest variances belong to frequent
words that co-occur with nothing in particular. :func:`rank_by_partners` ranks words by
their **partner score** — Σᵢᵢ plus the s−1 largest |Σᵢⱼ|
(:func:`eigensparse.bounds.partner_sums`) — which is also a bound: for any support T of
s words containing i, Gershgorin's theorem gives

    λmax(Σ_T) <= max_{i ∈ T} (Σᵢᵢ + Σ_{j ∈ T∖i} |Σᵢⱼ|) <= max_{i ∈ T} score_s(i),

so a word can only belong to a topic of variance φ if some word of that topic scores at
least φ.

The scores of a candidate pool (the kept words of largest variance, a few thousand) come
from the covariance of the pool on a sample of the documents (the first ``sample_docs``:
one partial pass whose cost does not grow with the corpus). The ranking puts every word
in priority order — the pool by the better of each word's ranks by partner score and by
variance, then the rest by variance — whose first m are the working set of
:func:`eigensparse.text._working_set.select_working_set`'s ``"partner"`` rule: the m/2
or so words of largest variance and the m/2 or so of largest partner score.

:func:`full_vocabulary_bound` bounds the best s-word variance over the **whole**
vocabulary from the working-set covariance and the variances of the words left out:
for PSD Σ and T = (T ∩ W) ∪ (T ∖ W) with r = |T ∖ W|,
λmax(Σ_T) <= λmax(Σ_{T∩W}) + λmax(Σ_{T∖W}) <= u_W(s − r) + (the r largest variances
outside W), as :func:`eigensparse.bounds.full_problem_bound`, with λmax of the
working set in u_W and, at r = 0, a bound of the solver on the working set.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numba
import numpy as np

from ..bounds import _lambda_max_upper_bound, _partner_sums, _small_bounds

__all__ = ["PartnerRanking", "rank_by_partners", "rank_pool", "sample_covariance",
           "full_vocabulary_bound", "working_set_bounds", "BOUND_VOCABULARY", "DEFAULT_POOL_SIZE", "DEFAULT_SAMPLE_DOCS"]

#: candidate pool: the kept words of largest variance whose partner scores are computed
DEFAULT_POOL_SIZE = 3000
#: documents read (from the start of the corpus) for the pool's covariance
DEFAULT_SAMPLE_DOCS = 10_000
#: relative margin on the bounds, above the rounding of an eigenvalue computed elsewhere
_ROUNDING = 1e-10
#: the name :func:`full_vocabulary_bound` reports (``info["bound"]`` of a topic)
BOUND_VOCABULARY = ("vocabulary split: max over r of [bound at s−r on the working set (trace, "
                    "Gershgorin partner, λmax; the solver's at r=0) + the r largest variances of "
                    "the words left out]")


@dataclass
class PartnerRanking:
    """What :func:`rank_by_partners` found.

    Attributes
    ----------
    order : ndarray of int, shape (W,)
        Every word id in priority order: the pool by the better of a word's ranks by
        partner score and by variance, then the other words by variance.
    pool : ndarray of int
        Sorted ids of the candidate pool.
    score : ndarray of float, shape (W,)
        Partner score of the pool words on the sample (NaN outside the pool).
    sample_docs : int
        Documents read for the pool's covariance (0: variance order only).
    seconds : float
    info : dict
        ``rule`` (``"partner"``, or ``"variance"`` when there was nothing to rank).
    """

    order: np.ndarray
    pool: np.ndarray
    score: np.ndarray
    sample_docs: int
    seconds: float
    info: dict = field(default_factory=dict)


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


def rank_by_partners(passes, var, m: int, cardinality: int, *, unit=None,
                     pool_size: int = DEFAULT_POOL_SIZE,
                     sample_docs: int = DEFAULT_SAMPLE_DOCS) -> PartnerRanking:
    """Every word in priority order for the working set, by partner scores on a pool.

    Parameters
    ----------
    passes : eigensparse.text._passes.CorpusPasses
        The corpus and its scaling (pass 1 done: ``passes.idf`` set for tf-idf).
    var : ndarray of shape (W,)
        The words' selection score after pruning (0 for pruned words): their variances.
    m : int
        Working-set size (nothing to rank when the pool is not larger).
    cardinality : int
        Words per topic (the s of the partner score).
    unit : ndarray of shape (W,), optional
        Per-word divisors of the covariance (``scaling="unit"``: partner scores of the
        correlation matrix).
    pool_size : int, default=3000
        Candidate pool: the words of largest ``var`` whose partners are measured; its
        covariance costs 8·pool_size² bytes.
    sample_docs : int, default=10000
        Documents read for the pool's covariance (the first ones).

    Returns
    -------
    PartnerRanking
    """
    t0 = time.perf_counter()
    var = np.asarray(var, dtype=float)
    W = var.size
    by_var = np.argsort(-var, kind="stable")
    n_pos = int(np.count_nonzero(var > 0))
    P = min(max(int(pool_size), int(m)), n_pos)
    pool = np.sort(by_var[:P])
    corpus = passes.corpus
    score = np.full(W, np.nan)
    if P <= m or not hasattr(corpus, "iter_chunks"):  # nothing to choose: the variance order
        return PartnerRanking(by_var, pool, score, 0, time.perf_counter() - t0, {"rule": "variance"})
    args = (var, pool, m, cardinality, unit, passes.scaling, passes.idf, int(sample_docs),
            passes.chunk_nnz)
    on_first = getattr(corpus, "on_first_block", None)  # a cluster: where the documents are
    return on_first(rank_sample, *args) if on_first is not None else rank_sample(corpus, *args)


def rank_sample(corpus, var, pool, m, cardinality, unit, scaling, idf, sample_docs, chunk_nnz):
    """:func:`rank_pool` from the pool's covariance on the first ``sample_docs``
    documents of ``corpus`` (on a cluster: run by the worker holding the first block)."""
    t0 = time.perf_counter()
    S, n_read = sample_covariance(corpus, pool, scaling=scaling, idf=idf,
                                  sample_docs=sample_docs, chunk_nnz=chunk_nnz)
    if unit is not None:
        d = 1.0 / np.asarray(unit, dtype=float)[pool]
        S = S * d[:, None] * d[None, :]
    return rank_pool(var, pool, S, m, cardinality, sample_docs=n_read, t0=t0)


def rank_pool(var, pool, S, m: int, cardinality: int, *, sample_docs: int = 0,
              t0: float | None = None) -> PartnerRanking:
    """The priority order of :func:`rank_by_partners` from the covariance ``S`` of the
    candidate ``pool`` (sorted ids): the pool by the better of each feature's ranks by
    partner score and by variance ``var``, then the features outside the pool by
    variance. ``sample_docs``: the documents ``S`` was measured on (0: all of them)."""
    t0 = time.perf_counter() if t0 is None else t0
    var = np.asarray(var, dtype=float)
    pool = np.asarray(pool)
    P = pool.size
    by_var = np.argsort(-var, kind="stable")
    inpool = np.zeros(var.size, dtype=bool)
    inpool[pool] = True
    score = np.full(var.size, np.nan)
    dS, Psum = _partner_sums(np.asarray(S, dtype=float), int(cardinality))
    sc = dS + (Psum[:, int(cardinality) - 2] if int(cardinality) > 1 else 0.0)
    score[pool] = sc
    # a word's priority: the better of its ranks by partner score and by variance, so
    # the working set holds the words of largest variance (a small elimination
    # threshold) and the words of strongest partners alike
    r_sc = np.empty(P, dtype=np.int64)
    r_sc[np.lexsort((-var[pool], -sc))] = np.arange(P)
    r_var = np.empty(P, dtype=np.int64)
    r_var[np.argsort(-var[pool], kind="stable")] = np.arange(P)
    first = pool[np.lexsort((r_sc, np.minimum(r_sc, r_var)))]
    order = np.concatenate([first, by_var[~inpool[by_var]]])
    info = {"rule": "partner", "pool_size": int(P),
            "variance_words_kept": int(np.intersect1d(order[:m], by_var[:m]).size)}
    return PartnerRanking(order, pool, score, int(sample_docs), time.perf_counter() - t0, info)


def partner_table(S, width: int) -> tuple:
    """``(width, J, V)``: for each row i of ``S``, the ``width`` largest |S_ij|, j ≠ i
    (``V``, decreasing) and their columns (``J``), for :func:`working_set_bounds` of
    several ``used`` sets of one matrix (``width`` < p − 1)."""
    A = np.abs(np.asarray(S, dtype=float))
    np.fill_diagonal(A, -1.0)  # below every |S_ij|: the diagonal is never a partner
    J = np.argpartition(-A, width - 1, axis=1)[:, :width]
    V = np.take_along_axis(A, J, axis=1)
    order = np.argsort(-V, axis=1, kind="stable")
    return width, np.take_along_axis(J, order, axis=1), np.take_along_axis(V, order, axis=1)


def _partners_from_table(table, idx, avail, t: int):
    """The partner prefix sums of :func:`~eigensparse.bounds.partner_sums` on S[avail,
    avail] (rows ``idx``), from ``table`` (:func:`partner_table`) of S: each row's t
    largest among the available columns, the same values in the same order. None when
    the table is too narrow for the features ``used``."""
    width, J, V = table
    if width < t + int(np.count_nonzero(~avail)) or t <= 0:
        return None
    keep = avail[J[idx]]
    keep &= np.cumsum(keep, axis=1) <= t
    return np.cumsum(np.maximum(V[idx][keep].reshape(idx.size, t), 0.0), axis=1)


def working_set_bounds(S, cardinality: int, used=None, lam_max=None, table=None) -> np.ndarray:
    """ub[k], k = 0 … cardinality: a bound on λmax(S_T) over every support T of k
    unused features of the PSD matrix ``S``: the least of the sum of the k largest
    variances (trace), the largest k-partner score (Gershgorin) and ``lam_max``, a
    proven bound on λmax(S) (any matrix that dominates S, e.g. the undeflated
    covariance; computed by :func:`eigensparse.bounds.lambda_max_upper_bound` when
    None). ``table`` (:func:`partner_table` of S, wide enough for ``used``) gives the
    partner sums without a selection over S[unused, unused]: the same numbers."""
    S = np.asarray(S, dtype=float)
    avail = np.ones(S.shape[0], dtype=bool) if used is None else ~np.asarray(used, dtype=bool)
    idx = np.flatnonzero(avail)
    s = int(cardinality)
    if idx.size == 0:
        return np.zeros(s + 1)
    Psum = None
    if table is not None and lam_max is not None and s - 1 < idx.size - 1:
        Psum = _partners_from_table(table, idx, avail, s - 1)
    if Psum is not None:
        d = np.diag(S)[idx]
    else:
        Sa = S[np.ix_(idx, idx)]
        d, Psum = _partner_sums(Sa, s)
    ub = _small_bounds(d, Psum, s)
    if lam_max is None:
        lam_max = _lambda_max_upper_bound(Sa)
    if lam_max is not None:
        ub = np.minimum(ub, max(float(lam_max), 0.0))
    return ub * (1.0 + _ROUNDING)


def full_vocabulary_bound(S, cardinality: int, var_outside, *, used=None,
                          inside: float | None = None, lam_max=None, table=None) -> tuple[float, str]:
    """A bound on the best ``cardinality``-word variance over the whole vocabulary, and
    its name (:data:`BOUND_VOCABULARY`).

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
    inside : float, optional
        A bound on the best ``cardinality``-word variance inside the working set (e.g.
        the solver's): it replaces ub_W(s) when smaller.
    lam_max : float, optional
        A proven bound on λmax(S) (see :func:`working_set_bounds`).
    table : tuple, optional
        :func:`partner_table` of S (see :func:`working_set_bounds`).

    Returns
    -------
    (float, str)

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.text._screen import full_vocabulary_bound
    >>> S = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> ub, name = full_vocabulary_bound(S, 2, [0.5])
    >>> bool(ub >= 3.0), name.startswith("vocabulary split")  # the best pair inside W has 3
    (True, True)
    """
    s = int(cardinality)
    ub = working_set_bounds(S, s, used, lam_max, table)
    if inside is not None:
        ub[s] = min(ub[s], float(inside) * (1.0 + _ROUNDING))
    out = np.sort(np.clip(np.asarray(var_outside, dtype=float).ravel(), 0.0, None))[::-1][:s]
    top = np.concatenate([[0.0], np.cumsum(out)])
    best = max(ub[s - r] + top[r] for r in range(min(s, out.size) + 1))
    return float(best * (1.0 + _ROUNDING)), BOUND_VOCABULARY
