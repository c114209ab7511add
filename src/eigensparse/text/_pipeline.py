"""The out-of-core topic pipeline (Zhang & El Ghaoui 2011, §4).

1. **pass 1**: every word's mean and variance, exactly, streamed over whole-document
   chunks (memory O(W) + one chunk);
2. **screening**: safe elimination — a word with variance Σ_ii <= ρ is absent from every
   optimal support of the ℓ0-penalized problem at penalty ρ — so a working set of the m
   words of largest variance is exact for every ρ >= the largest variance left out
   (the *threshold*);
3. **pass 2**: the m × m covariance of the working set, centered implicitly
   (Σ = XᵀX/n − μμᵀ on the working-set columns), accumulated document by document by a
   compiled kernel (memory O(m²) + one chunk);
4. **solve**: k components from the working-set covariance (an
   :class:`eigensparse.Covariance`), deflating between them, with no further pass over
   the data while the working set suffices: a penalized method's penalty must stay >=
   the threshold; for other methods a support reaching into the last tenth of the
   working set (by variance) is taken as a sign that it is too small. Otherwise the
   working set is enlarged and pass 2 repeated (reported in ``rereads``).

Memory never grows with the number of documents.
"""
from __future__ import annotations

import logging
import math
import time
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from .._api import DEFAULT_METHOD, adjusted_variance, available_methods
from .._linalg import fix_sign
from .._validation import InvalidParameterError, Interval, Options, validate_params
from ..io.corpus import Corpus, open_corpus
from ..io.uci import DEFAULT_CHUNK_NNZ
from ..multi import DEFLATIONS
from ..multi._deflation import deflate
from ..operators import Covariance
from ._kernels import accumulate_gram, row_sums
from ._result import Topic, TopicsResult

__all__ = ["extract_topics", "word_statistics", "working_set_covariance", "SCALINGS",
           "default_topic_method"]

log = logging.getLogger("eigensparse.text")

#: value transforms: raw counts, 0/1 occurrence, log(1 + count), tf-idf (smooth idf,
#: rows normalised to unit ℓ2 norm, as scikit-learn's TfidfTransformer)
SCALINGS = ("count", "binary", "log", "tfidf")

#: largest working set whose Gram matrix is kept with the corpus cache (8·m² bytes)
_GRAM_CACHE_MAX = 4000

#: a cardinality method's component is accepted when no swap with a word outside the
#: working set can add more than this fraction of its variance (see ``check``)
_SWAP_RTOL = 0.01


def _swap_gain_bound(S: np.ndarray, support, tau: float) -> float:
    """Upper bound on the variance gained by exchanging one word of ``support`` for any
    word whose (deflated) variance is <= tau: max_i [λmax(S[I∖i]) + τ] − λmax(S[I])."""
    I = np.asarray(support, dtype=np.int64)
    if I.size == 0:
        return tau
    B = S[np.ix_(I, I)]
    phi = float(np.linalg.eigvalsh(B)[-1])
    if I.size == 1:
        return tau - phi
    best_rest = 0.0
    for i in range(I.size):
        keep = np.r_[0:i, i + 1:I.size]
        best_rest = max(best_rest, float(np.linalg.eigvalsh(B[np.ix_(keep, keep)])[-1]))
    return best_rest + tau - phi


def default_topic_method() -> str:
    """``"bca"`` when registered (the paper's method), else ``"tpower"``, ``"greedy"``,
    else the library default."""
    names = available_methods()
    for m in ("bca", "tpower", "greedy", DEFAULT_METHOD):
        if m in names:
            return m
    return names[0]


# --- values and statistics ------------------------------------------------------------

def _idf(df: np.ndarray, n: int) -> np.ndarray:
    return np.log((1.0 + n) / (1.0 + df)) + 1.0


def _values(chunk, scaling: str, idf=None) -> np.ndarray:
    data = chunk.data
    if scaling == "count":
        return data.astype(np.float64, copy=False)
    if scaling == "binary":
        return np.ones(data.size)
    if scaling == "log":
        return np.log1p(data.astype(np.float64))
    v = data.astype(np.float64) * idf[chunk.indices]
    norms = np.empty(chunk.n_docs)
    row_sums(chunk.indptr, v * v, norms)
    np.sqrt(norms, out=norms)
    norms[norms == 0] = 1.0
    v /= np.repeat(norms, np.diff(chunk.indptr))
    return v


@numba.njit(cache=True, nogil=True)
def _moments(indices, values, s1, s2, df):
    for t in range(indices.size):
        w = indices[t]
        v = values[t]
        s1[w] += v
        s2[w] += v * v
        df[w] += 1


def word_statistics(corpus, scaling: str = "count", *, idf=None, chunk_nnz=DEFAULT_CHUNK_NNZ,
                    progress: bool = False, desc: str = "pass 1: word statistics") -> dict:
    """One pass: per word Σv, Σv² and the document frequency, for values v after
    ``scaling`` (``"tfidf"`` needs ``idf``). Returns ``{"s1", "s2", "df"}``."""
    corpus = open_corpus(corpus)
    W = corpus.n_words
    s1, s2 = np.zeros(W), np.zeros(W)
    df = np.zeros(W, dtype=np.int64)
    for ch in corpus.iter_chunks(chunk_nnz=chunk_nnz, progress=progress, desc=desc):
        _moments(ch.indices, _values(ch, scaling, idf), s1, s2, df)
    return {"s1": s1, "s2": s2, "df": df}


def working_set_covariance(corpus, working_set, *, scaling: str = "count", idf=None, mean=None,
                           center: bool = True, chunk_nnz=DEFAULT_CHUNK_NNZ, n_jobs: int = 1,
                           progress: bool = False, desc: str = "pass 2: covariance") -> np.ndarray:
    """One pass: the covariance (or, with ``center=False``, the second-moment matrix)
    of the words ``working_set`` (sorted ids), divided by n as in
    :class:`eigensparse.SparseData`. ``mean`` (the per-word means of all words) is
    needed for centering."""
    corpus = open_corpus(corpus)
    ws = np.asarray(working_set, dtype=np.int64)
    if ws.ndim != 1 or ws.size == 0 or np.any(np.diff(ws) <= 0) or ws[0] < 0 or ws[-1] >= corpus.n_words:
        raise InvalidParameterError("parameter 'working_set' must be sorted unique word ids in "
                                    f"[0, {corpus.n_words}).")
    m = ws.size
    col_map = np.full(corpus.n_words, -1, dtype=np.int64)
    col_map[ws] = np.arange(m)
    Gs = [np.zeros((m, m)) for _ in range(max(1, n_jobs))]
    pool = ThreadPoolExecutor(max_workers=n_jobs) if n_jobs > 1 else None
    try:
        for ch in corpus.iter_chunks(chunk_nnz=chunk_nnz, progress=progress, desc=desc):
            v = _values(ch, scaling, idf)
            if pool is None:
                accumulate_gram(ch.indptr, ch.indices, v, col_map, Gs[0], 0, ch.n_docs)
            else:
                ip = ch.indptr
                cuts = np.searchsorted(ip, np.linspace(0, ip[-1], n_jobs + 1)[1:-1])
                bounds = np.r_[0, cuts, ch.n_docs]
                futs = [pool.submit(accumulate_gram, ip, ch.indices, v, col_map, Gs[j],
                                    int(bounds[j]), int(bounds[j + 1])) for j in range(n_jobs)]
                for f in futs:
                    f.result()
    finally:
        if pool is not None:
            pool.shutdown()
    G = Gs[0]
    for extra in Gs[1:]:
        G += extra
    del Gs
    # upper triangle → symmetric
    iu = np.triu_indices(m, 1)
    G[(iu[1], iu[0])] = G[iu]
    G /= corpus.n_docs
    if center:
        mu = np.asarray(mean, dtype=float)[ws]
        G -= np.outer(mu, mu)
    return G


def _coarse_penalty_search(spec, S_cur, avail, s, tol, tau, n, seed, opts, max_solves=8):
    """Penalty search for a cardinality within ``tol`` of ``s`` (penalized methods).

    The trial penalties sit between consecutive sorted (deflated) variances of the
    available words, so a trial keeping j words solves a j × j problem (safe
    elimination). Returns (positions solved on, ComponentResult with info["penalty"])
    or None when the search needs a penalty below ``tau`` (the largest variance outside
    the working set) while the cardinality is still too small.
    """
    d_all = np.diag(S_cur)
    d = d_all[avail]
    dv = np.sort(d)[::-1]
    P = int(np.count_nonzero(dv > 0))
    if P == 0:
        return None

    def rho_keep(j):
        if j >= P:
            return max(tau, 0.0)
        hi, lo = dv[j - 1], dv[j]
        return 0.5 * (hi + lo) if lo < hi else float(lo)

    cache = {}

    def run(j):
        rho = rho_keep(j)
        if rho in cache:
            return cache[rho]
        keep = avail[d > rho]
        if keep.size == 0:
            cache[rho] = (0, None, rho, keep)
            return cache[rho]
        op = Covariance(S_cur[np.ix_(keep, keep)], n_samples=n, check_psd=False)
        r = spec.func(op, None, random_state=seed, **trial_opts, penalty=float(rho))
        cache[rho] = (int(np.count_nonzero(r.loadings)), r, rho, keep)
        return cache[rho]

    # trials skip the method's optimality certificate (when it has one: it costs several
    # times the solve); with method_options={"certify": True} the accepted penalty is
    # solved once more with it
    trial_opts = dict(opts)
    if "certify" in spec.options:
        trial_opts["certify"] = False

    best = None
    j, j_lo, j_hi = min(s, P), None, None
    solves = 0
    while solves < max_solves:
        card, r, rho, keep = run(j)
        solves += 1
        if rho < tau:  # below the safe range of this working set: it must grow
            return None
        if r is not None:
            score = (0 if card >= s - tol else 1, abs(card - s))
            if rho >= tau and (best is None or score < best[0]):
                best = (score, r, rho, keep)
        if s - tol <= card <= s + tol and rho >= tau:
            break
        if card < s - tol:
            if j >= P:
                if tau > 0:
                    return None
                break
            j_lo = j
            j = min(2 * j, P) if j_hi is None else (j + j_hi) // 2
        else:
            j_hi = j
            j = (j_lo + j) // 2 if j_lo is not None else max(1, j // 2)
        if j_lo is not None and j_hi is not None and j_hi - j_lo <= 1:
            break
    if best is None:
        return None
    _, r, rho, keep = best
    if opts.get("certify"):
        op = Covariance(S_cur[np.ix_(keep, keep)], n_samples=n, check_psd=False)
        r = spec.func(op, None, random_state=seed, **opts, penalty=float(rho))
        solves += 1
    info = dict(r.info) if isinstance(r.info, dict) else {}
    info["penalty"] = float(rho)
    info["coarse_search_solves"] = solves
    from dataclasses import replace

    return keep, replace(r, info=info)



# --- the pipeline -----------------------------------------------------------------------

class _Clock:
    def __init__(self):
        self.t0 = time.perf_counter()
        self.timings = {}
        self._last = self.t0

    def lap(self, name: str) -> float:
        now = time.perf_counter()
        dt = now - self._last
        self.timings[name] = self.timings.get(name, 0.0) + dt
        self._last = now
        return dt


def _say(msg: str, progress: bool, messages: list):
    messages.append(msg)
    log.info(msg)
    if progress:
        try:
            from tqdm.auto import tqdm

            tqdm.write(f"eigensparse: {msg}", file=__import__("sys").stderr)
        except Exception:  # pragma: no cover
            pass


def _auto_working_set(n_topics: int, smax: int) -> int:
    """Initial working-set size: the paper's few hundred words, more for large requests."""
    return int(max(300, 10 * n_topics * smax))


def extract_topics(docword, vocab=None, *, n_topics: int = 5, cardinality=5, method: str | None = None,
                   deflation: str = "schur", penalty: float | None = None,
                   cardinality_tolerance: int | None = None, center: bool = True,
                   scaling: str = "count", working_set: int | None = None,
                   max_working_set: int = 4000, cache: bool = True, cache_dir=None,
                   verify: str = "hash", chunk_nnz: int = DEFAULT_CHUNK_NNZ, n_jobs: int = 1,
                   random_state=0, progress: bool = True, method_options: dict | None = None
                   ) -> TopicsResult:
    """Sparse principal components of a bag-of-words corpus, out of core.

    Parameters
    ----------
    docword : path-like, scipy.sparse matrix or Corpus
        A UCI ``docword.NAME.txt[.gz]`` file (streamed), a Matrix Market (``.mtx``) or
        scipy ``.npz`` file, a documents × words matrix, or an
        :class:`eigensparse.io.Corpus`.
    vocab : path-like or list of str, optional
        The vocabulary (UCI ``vocab.NAME.txt``: one word per line, exactly W lines).
    n_topics : int, default=5
    cardinality : int or list of int, default=5
        Words per topic (exact for the cardinality methods and for ``bca``'s penalty
        search). Ignored when ``penalty`` is given.
    method : str, optional
        Any name of ``eigensparse.available_methods()``; default ``"bca"`` (the paper's
        block coordinate ascent with penalty search) when available, else ``"tpower"``.
    deflation : {"schur", "projection", "orthogonal", "hotelling", "disjoint"}
    penalty : float, optional
        Solve the penalized problem at this ρ (penalized methods): the working set is
        then every word with variance > ρ, exact by safe elimination.
    cardinality_tolerance : int, optional
        For penalized methods (``bca``, ``dspca``): accept a component whose cardinality
        is within this many words of the target, found by a coarse penalty search over
        the sorted (deflated) word variances — each trial penalty ρ eliminates every
        word of variance <= ρ first, so trials are small — as in the paper (§4: "we
        might end up accepting a solution with cardinality close, but not necessarily
        equal to, 5"). Default 1 for penalized methods; 0 asks the method's own search
        for the exact cardinality (can be much slower). Other methods always give the
        exact cardinality.
    center : bool, default=True
        Center the words (covariance); False gives the second-moment matrix XᵀX/n.
    scaling : {"count", "binary", "log", "tfidf"}, default="count"
        Values used: raw counts, 0/1 occurrence, log(1 + count), or tf-idf (smooth idf,
        unit-ℓ2 documents; needs one more pass for the document frequencies unless
        they are cached).
    working_set : int, optional
        Initial working-set size m (default max(300, 10·k·s)); enlarged when needed.
    max_working_set : int, default=4000
        Largest working set (memory 8·m² bytes).
    cache, cache_dir, verify
        Binary cache of a UCI file (see :class:`eigensparse.io.UCICorpus`): the first
        pass writes it, later passes and runs read it.
    chunk_nnz : int
        Entries per streamed chunk (memory per chunk about 40 bytes × chunk_nnz).
    n_jobs : int, default=1
        Threads for pass 2.
    random_state : int, None or Generator
        Seeds the solvers.
    progress : bool, default=True
        tqdm bars on every pass and over the topics; messages (re-reads) on stderr.
    method_options : dict, optional
        Extra options for the solver. With the penalty search of a penalized method the
        method's optimality certificate is skipped unless ``{"certify": True}``.

    Returns
    -------
    TopicsResult
    """
    validate_params(
        {"n_topics": n_topics, "deflation": deflation, "center": center, "scaling": scaling,
         "working_set": working_set, "max_working_set": max_working_set, "cache": cache,
         "chunk_nnz": chunk_nnz, "n_jobs": n_jobs, "progress": progress, "penalty": penalty,
         "method": method, "verify": verify, "cardinality_tolerance": cardinality_tolerance},
        {"n_topics": Interval("int", 1, None), "deflation": [Options(DEFLATIONS)],
         "center": [bool], "scaling": [Options(SCALINGS)],
         "working_set": [None, Interval("int", 1, None)],
         "max_working_set": Interval("int", 1, None), "cache": [bool],
         "chunk_nnz": Interval("int", 1, None), "n_jobs": Interval("int", 1, 64),
         "progress": [bool], "penalty": [None, Interval("real", 0, None)],
         "method": [None, str], "verify": [Options(("hash", "stat"))],
         "cardinality_tolerance": [None, Interval("int", 0, None)]},
        where="extract_topics")
    from ..multi import get_joint
    from ..solvers import SOLVERS, check_random_state, get_solver

    method = default_topic_method() if method is None else method
    names = available_methods()
    if method not in names:
        raise InvalidParameterError(f"parameter 'method' must be one of {names}; got {method!r}.")
    joint = get_joint(method)
    spec = None if joint is not None else get_solver(method)
    opts = dict(method_options or {})
    allowed = set((joint or spec).options)
    unknown = sorted(set(opts) - allowed)
    if unknown:
        raise InvalidParameterError(
            f"method {method!r} got unknown option(s) {unknown}; valid options: {sorted(allowed)}.")
    if penalty is not None:
        if spec is None or not spec.penalized:
            raise InvalidParameterError(
                f"parameter 'penalty' needs a penalized method "
                f"({sorted(n for n, s in SOLVERS.items() if s.penalized)}); got method {method!r}.")
        cards = [None] * n_topics
    else:
        if isinstance(cardinality, (list, tuple, np.ndarray)):
            cards = [c for c in cardinality]
            if len(cards) != n_topics:
                raise InvalidParameterError(
                    f"parameter 'cardinality' has {len(cards)} values for n_topics={n_topics}.")
        else:
            cards = [cardinality] * n_topics
        for c in cards:
            if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 1:
                raise InvalidParameterError(
                    f"parameter 'cardinality' must be a positive int or a list of them; got {cardinality!r}.")
        cards = [int(c) for c in cards]
    if deflation == "disjoint" and joint is None and penalty is not None:
        raise InvalidParameterError("deflation='disjoint' needs cardinalities, not a penalty.")

    clock = _Clock()
    messages: list = []
    corpus = open_corpus(docword, vocab, cache=cache, cache_dir=cache_dir, verify=verify)
    if not isinstance(corpus, Corpus):  # pragma: no cover
        raise InvalidParameterError("could not open the corpus.")
    if scaling in ("log", "tfidf") and not corpus.integer_counts:
        X = getattr(corpus, "X", None)
        if X is not None and X.nnz and X.data.min() < 0:
            raise InvalidParameterError(f"scaling={scaling!r} needs non-negative values; the matrix has negative entries.")
    n, W = corpus.n_docs, corpus.n_words
    if corpus.nnz == 0:
        raise InvalidParameterError(f"{corpus.name}: the corpus has no nonzero entries.")
    clock.lap("open")
    passes: list = []

    def run_pass(name, fn):
        t = time.perf_counter()
        out = fn()
        passes.append({"name": name, "source": corpus.last_source,
                       "seconds": time.perf_counter() - t, "nnz": int(corpus.nnz)})
        return out

    # --- pass 1: exact word statistics (possibly from the cache) ----------------------
    cache_obj = getattr(corpus, "cache", None)
    stats = cache_obj.load_stats(scaling) if cache_obj is not None else None
    idf = None
    if stats is not None:
        messages.append(f"word statistics ({scaling}) read from the cache")
    else:
        if scaling == "tfidf":
            base = cache_obj.load_stats("count") if cache_obj is not None else None
            if base is None:
                base = run_pass("pass 1a: document frequencies",
                                lambda: word_statistics(corpus, "count", chunk_nnz=chunk_nnz,
                                                        progress=progress,
                                                        desc="pass 1a: document frequencies"))
                cache_obj = getattr(corpus, "cache", None)
                if cache_obj is not None:
                    cache_obj.save_stats("count", base)
            idf = _idf(base["df"], n)
        stats = run_pass("pass 1: word statistics",
                         lambda: word_statistics(corpus, scaling, idf=idf, chunk_nnz=chunk_nnz,
                                                 progress=progress))
        cache_obj = getattr(corpus, "cache", None)
        if cache_obj is not None:
            cache_obj.save_stats(scaling, stats)
    if scaling == "tfidf" and idf is None:
        idf = _idf(stats["df"], n)
    clock.lap("pass 1: word statistics")

    mean = stats["s1"] / n
    var = stats["s2"] / n - (mean * mean if center else 0.0)
    np.maximum(var, 0.0, out=var)
    if not center:
        mean_used = np.zeros(W)
    else:
        mean_used = mean
    total_variance = float(var.sum())
    order = np.argsort(-var, kind="stable")
    n_pos = int(np.count_nonzero(var > 0))
    smax = max([c for c in cards if c is not None], default=1)
    if n_pos == 0:
        raise InvalidParameterError(f"{corpus.name}: every word has zero variance.")
    if smax > n_pos:
        raise InvalidParameterError(
            f"parameter 'cardinality' ({smax}) exceeds the number of words with positive "
            f"variance ({n_pos}).")
    if deflation == "disjoint" and sum(cards) > n_pos:
        raise InvalidParameterError(
            f"deflation='disjoint' needs sum(cardinality) <= {n_pos} words with positive variance.")

    # --- screening: the working set ---------------------------------------------------
    cap = min(max_working_set, n_pos)
    if penalty is not None:
        m = int(np.count_nonzero(var > penalty))
        if m == 0:
            raise InvalidParameterError(
                f"parameter 'penalty' ({penalty:g}) is >= every word variance (max {var.max():.4g}): "
                "safe elimination removes every word.")
        if m > max_working_set:
            raise InvalidParameterError(
                f"penalty {penalty:g} keeps {m} words, more than max_working_set={max_working_set}; "
                "raise the penalty or max_working_set.")
    else:
        m = working_set if working_set is not None else _auto_working_set(n_topics, smax)
        m = max(m, 2 * smax if deflation != "disjoint" else sum(cards) + smax)
        m = min(m, cap)

    def select(m_):
        ws_ = np.sort(order[:m_])
        tau_ = float(var[order[m_]]) if m_ < W else 0.0
        return ws_, tau_

    ws, tau = select(m)
    clock.lap("screening")

    gram_key = f"gram-{scaling}"

    def build_cov(ws_, label):
        """Covariance of ws_: from the Gram matrix cached with the corpus when it covers
        ws_ (no pass over the data), else one pass (and the Gram is cached)."""
        cached = cache_obj.load_stats(gram_key) if cache_obj is not None else None
        G = None
        if cached is not None:
            cws = cached["ws"]
            pos = np.searchsorted(cws, ws_)
            if np.all(pos < cws.size) and np.array_equal(cws[np.minimum(pos, cws.size - 1)], ws_):
                G = cached["G"][np.ix_(pos, pos)]
                messages.append(f"covariance of {ws_.size} words taken from the cached Gram "
                                f"matrix of {cws.size} words (no pass over the data)")
        if G is None:
            G = run_pass(label, lambda: working_set_covariance(
                corpus, ws_, scaling=scaling, idf=idf, mean=None, center=False,
                chunk_nnz=chunk_nnz, n_jobs=n_jobs, progress=progress, desc=label))
            c_obj = getattr(corpus, "cache", None)
            if c_obj is not None and G.shape[0] <= _GRAM_CACHE_MAX:
                c_obj.save_stats(gram_key, {"ws": ws_, "G": G})
        if center:
            mu = mean_used[ws_]
            G = G - np.outer(mu, mu)
        return G

    S = build_cov(ws, "pass 2: covariance")
    clock.lap("pass 2: covariance")
    sizes = [int(ws.size)]
    rereads: list = []

    rng = check_random_state(random_state)
    seeds = [int(s_) for s_ in rng.integers(0, 2**31 - 1, size=n_topics)]
    needs_data = spec is not None and spec.needs_data
    penalized = spec is not None and spec.penalized
    found: list = []  # (word ids, loadings, ComponentResult, seconds, safe)

    def deflated(S_, ws_):
        """Dense covariance of ws_ deflated by the topics found so far (+ remaining set)."""
        op = Covariance(S_, n_samples=n, check_psd=False)
        Q: list = []
        remaining = np.arange(ws_.size)
        for ids, vals, *_ in found:
            pos = np.searchsorted(ws_, ids)
            if deflation == "disjoint":
                remaining = np.setdiff1d(remaining, pos, assume_unique=True)
            else:
                x = np.zeros(ws_.size)
                x[pos] = vals
                op = deflate(op, x, deflation, Q)
        return op.to_dense() if found and deflation != "disjoint" else S_, Q, remaining

    def solve_set(m_solve, remaining):
        """Positions (in ws) of the m_solve words of largest variance, minus used ones."""
        top = np.searchsorted(ws, np.sort(order[:m_solve]))
        if deflation == "disjoint":
            top = np.intersect1d(top, remaining, assume_unique=True)
        return top

    def check(support_pos, pen, m_solve, S_now):
        """(ok, safe, why): does a solve on the m_solve top words suffice?

        Penalized: ρ >= τ, the largest variance left out (safe elimination: exact).
        Otherwise a swap test on the (deflated) covariance S_now: exchanging support word
        i for an outside word j gives at most λmax(S[I∖i]) + S_jj <= λmax(S[I∖i]) + τ,
        so no single swap can gain more than τ − (φ − λmax(S[I∖i])); accepted when that
        is <= 0 (safe=True) or below _SWAP_RTOL·φ (safe=None).
        """
        tau_ = float(var[order[m_solve]]) if m_solve < W else 0.0
        if tau_ <= 0.0:
            return True, True, ""
        if pen is not None:
            if pen >= tau_:
                return True, True, ""
            return False, False, (f"penalty {pen:.4g} is below the largest variance left out "
                                  f"({tau_:.4g}): words outside could enter")
        gain = _swap_gain_bound(S_now, support_pos, tau_)
        if gain <= 0.0:
            return True, True, ""
        phi = float(np.linalg.eigvalsh(S_now[np.ix_(support_pos, support_pos)])[-1])
        if gain <= _SWAP_RTOL * phi:
            return True, None, ""
        return False, None, (f"swapping a topic word for a word left out (variance <= {tau_:.4g}) "
                             f"could add up to {gain:.3g} to the variance {phi:.4g}")

    def grow(pen, m_solve):
        if pen is not None:
            need = int(math.ceil(1.25 * np.count_nonzero(var >= pen))) + smax
            need = max(need, 2 * m_solve)
        else:
            need = 2 * m_solve
        return min(max(need, m_solve + 1), cap)

    def reread(new_m, why, label):
        nonlocal ws, tau, S
        msg = f"{label}re-reading the data: working set {ws.size} -> {new_m} words ({why})."
        _say(msg, progress, messages)
        rereads.append(msg)
        clock.lap("solve")
        ws, tau = select(new_m)
        S = build_cov(ws, "pass 2 (re-read): covariance")
        sizes.append(int(ws.size))
        clock.lap("pass 2 (re-read): covariance")

    # penalized methods solve on the top words only (safe elimination at the penalty
    # they end on), growing inside the computed covariance before re-reading
    tol_card = (1 if penalized else 0) if cardinality_tolerance is None else int(cardinality_tolerance)
    coarse = penalized and penalty is None and tol_card > 0
    m_solve = ws.size
    if penalized and penalty is None and not coarse:
        m_solve = min(ws.size, max(40, 4 * smax))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_topics, desc=f"solve [{method}]", unit="topic", leave=False)
    try:
        if joint is not None:
            while True:
                t0 = time.perf_counter()
                results = joint.func(Covariance(S, n_samples=n, check_psd=False), cards, random_state=seeds[0], **opts)
                dt = (time.perf_counter() - t0) / max(1, len(results))
                checks = [check(r.support, r.info.get("penalty"), ws.size, S) for r in results]
                bad = [c for c in checks if not c[0]]
                if bad and ws.size < cap:
                    reread(grow(None, ws.size), bad[0][2], "")
                    continue
                for r, c in zip(results, checks):
                    found.append((ws[r.support], r.loadings[r.support], r, dt, c[1] if c[0] else False))
                if bar is not None:
                    bar.update(n_topics)
                break
        else:
            S_cur, Q, remaining = deflated(S, ws)
            t = 0
            t_topic = 0.0
            while t < n_topics:
                t0 = time.perf_counter()
                r = None
                if coarse and cards[t] is not None:
                    avail = remaining if deflation == "disjoint" else np.arange(ws.size)
                    out = _coarse_penalty_search(spec, S_cur, avail, cards[t], tol_card, tau, n,
                                                 seeds[t], opts)
                    if out is None:  # needs words beyond the working set
                        t_topic += time.perf_counter() - t0
                        if ws.size >= cap:
                            _say(f"topic {t + 1}: the working set reached its limit ({ws.size} "
                                 "words) before the penalty search reached the cardinality.",
                                 progress, messages)
                            out = _coarse_penalty_search(spec, S_cur, avail, cards[t], tol_card,
                                                         0.0, n, seeds[t], opts)
                        else:
                            reread(grow(None, ws.size), "the penalty search needs a penalty "
                                   f"below the largest variance left out ({tau:.4g})",
                                   f"topic {t + 1}: ")
                            S_cur, Q, remaining = deflated(S, ws)
                            m_solve = ws.size
                            continue
                    sub, r = out
                    n_solves_t = r.info.get("coarse_search_solves", 0)
                    messages.append(f"topic {t + 1}: penalty {r.info['penalty']:.4g} gives "
                                    f"{r.cardinality} words after {n_solves_t} solves.")
                    if abs(r.cardinality - cards[t]) > tol_card:
                        # the coarse search missed the tolerance: the method's own search
                        # for the exact cardinality instead
                        messages.append(f"topic {t + 1}: outside the tolerance of {tol_card}; "
                                        "searching the exact cardinality.")
                        r = None
                if r is None:
                    sub = solve_set(m_solve, remaining)
                    op = Covariance(S_cur[np.ix_(sub, sub)], n_samples=n, check_psd=False)
                    if needs_data:
                        op = op.factor()
                    o = dict(opts)
                    if cards[t] is None:
                        o["penalty"] = penalty
                    r = spec.func(op, cards[t], random_state=seeds[t], **o)
                xs = np.asarray(r.loadings, dtype=float)
                x = np.zeros(ws.size)
                x[sub] = xs
                supp = np.flatnonzero(x)
                pen = r.info.get("penalty") if isinstance(r.info, dict) else None
                if penalty is not None and pen is None:
                    pen = penalty
                ok, safe, why = check(supp, pen, m_solve, S_cur)
                t_topic += time.perf_counter() - t0
                if not ok and m_solve < cap:
                    new_m = grow(pen, m_solve)
                    if new_m <= ws.size:  # the covariance already covers it: no re-read
                        messages.append(f"topic {t + 1}: solving again on {new_m} words ({why}).")
                        m_solve = new_m
                    else:
                        reread(new_m, why, f"topic {t + 1}: ")
                        S_cur, Q, remaining = deflated(S, ws)
                        m_solve = ws.size
                    continue
                if not ok:
                    _say(f"topic {t + 1}: the working set reached its limit ({m_solve} words); "
                         f"the component is not proven exact ({why}).", progress, messages)
                    safe = False
                found.append((ws[supp], x[supp], r, t_topic, safe))
                t_topic = 0.0
                if deflation == "disjoint":
                    remaining = np.setdiff1d(remaining, supp, assume_unique=True)
                elif t + 1 < n_topics:
                    S_cur = deflate(Covariance(S_cur, n_samples=n, check_psd=False), x, deflation, Q).to_dense()
                if bar is not None:
                    bar.update(1)
                t += 1
    finally:
        if bar is not None:
            bar.close()
    clock.lap("solve")

    # --- assemble --------------------------------------------------------------------
    C = np.zeros((len(found), ws.size))
    for i, (ids, vals, *_r) in enumerate(found):
        C[i, np.searchsorted(ws, ids)] = vals
    C = fix_sign(C)
    base = Covariance(S, n_samples=n, check_psd=False)
    variances = np.atleast_1d(base.quad(C.T)) if len(found) else np.zeros(0)
    expl = adjusted_variance(base, C) if len(found) else np.zeros(0)
    words_all = corpus.words
    topics = []
    for i, (ids, vals, r, dt, safe) in enumerate(found):
        pos = np.searchsorted(ws, ids)
        lv = C[i, pos]
        o = np.lexsort((ids, -np.abs(lv)))
        ids_o, lv_o = ids[o], lv[o]
        words = ([words_all[j] for j in ids_o] if words_all is not None
                 else [f"word{j + 1}" for j in ids_o])
        pen = r.info.get("penalty") if isinstance(r.info, dict) else None
        if pen is None and penalty is not None:
            pen = penalty
        info = {k: v for k, v in (r.info or {}).items()
                if isinstance(v, (int, float, str, bool, type(None)))}
        info.update({"n_iter": r.n_iter, "converged": r.converged})
        topics.append(Topic(
            rank=i + 1, words=words, word_ids=ids_o, loadings=lv_o,
            variance=float(variances[i]), explained_variance=float(expl[i]),
            explained_variance_ratio=float(expl[i] / total_variance) if total_variance > 0 else 0.0,
            penalty=None if pen is None else float(pen), working_set_safe=safe, seconds=float(dt),
            method=method, info=info))
    for i, tp in enumerate(topics):
        clock.timings[f"  topic {i + 1}"] = tp.seconds
    clock.timings["total"] = time.perf_counter() - clock.t0
    cache_info = {"status": getattr(corpus, "cache_status", "n/a"),
                  "directory": getattr(corpus, "cache_directory", None)}
    return TopicsResult(
        topics=topics, name=corpus.name, n_docs=n, n_words=W, nnz=int(corpus.nnz), method=method,
        deflation="disjoint" if joint is not None else deflation, scaling=scaling, center=center,
        cardinality=cards[0] if len(set(cards)) == 1 else cards,
        word_mean=mean, word_variance=var, total_variance=total_variance, working_set=ws,
        working_set_sizes=sizes, threshold=tau, covariance=S, timings=clock.timings,
        passes=passes, rereads=rereads, cache=cache_info, messages=messages,
        vocabulary=words_all)
