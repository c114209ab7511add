"""The passes of the topic pipeline over a corpus (Zhang & El Ghaoui 2011, §4).

- **scalings**: the value of each (document, word) entry: raw counts, 0/1 occurrence,
  log(1 + count), or tf-idf (smooth idf, rows normalised to unit ℓ2 norm, as
  scikit-learn's TfidfTransformer);
- **pass 1** (:func:`word_statistics`): every word's Σv, Σv² and document frequency,
  exactly, streamed over whole-document chunks (memory O(W) + one chunk);
- **pass 2** (:func:`working_set_covariance`): the m × m covariance of a working set,
  centered implicitly (Σ = XᵀX/n − μμᵀ), accumulated by a compiled kernel (memory
  O(m²) + one chunk).

:class:`CorpusPasses` runs them on one corpus with the binary cache (statistics and
the working-set Gram matrix are kept with the corpus cache), records every pass and
times the phases.
"""
from __future__ import annotations

import logging
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._validation import InvalidParameterError
from ..io.corpus import open_corpus
from ..io.uci import DEFAULT_CHUNK_NNZ
from ._config import PASS_SCALINGS
from ._kernels import row_sums, scaled_gram, scaled_moments

__all__ = ["SCALINGS", "word_statistics", "working_set_covariance", "scale_matrix",
           "CorpusPasses", "Clock", "say", "progress_mode", "phase_line"]

log = logging.getLogger("eigensparse.text")

#: the value transforms of the passes (:data:`eigensparse.text._config.PASS_SCALINGS`)
SCALINGS = PASS_SCALINGS

#: largest working set whose Gram matrix is kept with the corpus cache (8·m² bytes)
_GRAM_CACHE_MAX = 4000


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


def scale_matrix(X, scaling: str):
    """The documents × words matrix ``X`` (scipy.sparse) with the values of ``scaling``
    (the same transform as the passes apply chunk by chunk), as CSR."""
    import scipy.sparse as sp
    from types import SimpleNamespace

    X = sp.csr_matrix(X, dtype=np.float64)
    if scaling == "count":
        return X
    X.sort_indices()
    idf = None
    if scaling == "tfidf":
        idf = _idf(np.bincount(X.indices, minlength=X.shape[1]), X.shape[0])
    chunk = SimpleNamespace(data=X.data, indices=X.indices, indptr=X.indptr, n_docs=X.shape[0])
    Y = X.copy()
    Y.data = np.asarray(_values(chunk, scaling, idf), dtype=np.float64)
    return Y


_MODES = {"count": 0, "binary": 1, "log": 2, "tfidf": 3}


_NONE = np.empty(0)


def _chunk_moments(ch, scaling, idf, s12, df, d_lo=0, d_hi=-1, norms=_NONE) -> None:
    """Add the Σv, Σv² (``s12``, W × 2), df per word of documents ``d_lo … d_hi - 1`` of
    one chunk (values v after ``scaling``) to the sums; tf-idf with a ``norms`` array of
    the corpus's documents: their ℓ2 norms are kept there."""
    if scaling == "tfidf" and idf is None:
        raise InvalidParameterError("scaling='tfidf' needs the idf of the words.")
    scaled_moments(ch.indptr, ch.indices, ch.data, _MODES[scaling],
                   idf if idf is not None else np.ones(1), s12, df, norms,
                   ch.doc_start if norms.size else 0, d_lo, d_hi)


def _chunk_statistics(ch, scaling, idf, W, n_df=None) -> dict:
    """Σv, Σv², df per word of one chunk (a block of a distributed corpus; ``n_df=0``:
    no document frequencies)."""
    s12 = np.zeros((W, 2))
    df = np.zeros(W if n_df is None else n_df, dtype=np.int64)
    _chunk_moments(ch, scaling, idf, s12, df)
    return {"s1": s12[:, 0].copy(), "s2": s12[:, 1].copy(), "df": df}


def _chunk_gram(ch, scaling, idf, col_map, m) -> np.ndarray:
    """The upper triangle of one chunk's working-set Gram matrix."""
    G = np.zeros((m, m))
    scaled_gram(ch.indptr, ch.indices, ch.data, _MODES[scaling],
                idf if idf is not None else np.ones(1), col_map, G, 0, ch.n_docs, _NONE, 0)
    return G


def _norms_array(norms, n_docs: int) -> np.ndarray:
    """``norms`` checked to hold one float64 per document (an empty array for None)."""
    if norms is None:
        return _NONE
    if not (isinstance(norms, np.ndarray) and norms.dtype == np.float64 and norms.shape == (n_docs,)
            and norms.flags.c_contiguous):
        raise InvalidParameterError(f"parameter 'norms' must be a float64 array of {n_docs} "
                                    f"document norms; got {type(norms).__name__} "
                                    f"{getattr(norms, 'shape', '')}.")
    return norms


def _over_chunks(chunks, work, n_jobs: int) -> None:
    """``work(chunk, j, d_lo, d_hi)`` on ``n_jobs`` row ranges of equal entries of every
    chunk, range j on thread j (compiled kernels release the GIL: thread j adds to its
    own sums); the next chunk is read while the threads work on this one."""
    if n_jobs <= 1:
        for ch in chunks:
            work(ch, 0, 0, ch.n_docs)
        return
    with ThreadPoolExecutor(max_workers=n_jobs) as pool:
        running = []
        for ch in chunks:  # read while the previous chunk's ranges run
            for f in running:
                f.result()
            ip = ch.indptr
            cuts = np.searchsorted(ip, np.linspace(0, ip[-1], n_jobs + 1)[1:-1])
            bounds = np.r_[0, np.minimum(cuts, ch.n_docs), ch.n_docs]
            running = [pool.submit(work, ch, j, int(bounds[j]), int(bounds[j + 1]))
                       for j in range(n_jobs)]
        for f in running:
            f.result()


def word_statistics(corpus, scaling: str = "count", *, idf=None, chunk_nnz=DEFAULT_CHUNK_NNZ,
                    progress: bool = False, desc: str = "pass 1: word statistics",
                    n_jobs: int = 1, df=None, norms=None) -> dict:
    """One pass: per word Σv, Σv² and the document frequency, for values v after
    ``scaling`` (``"tfidf"`` needs ``idf``), on ``n_jobs`` threads. Returns
    ``{"s1", "s2", "df"}``; a known ``df`` (the document frequencies of an earlier pass)
    is returned as it is, not counted again. With tf-idf, ``norms`` (an array of one
    float per document) receives every document's ℓ2 norm, which
    :func:`working_set_covariance` can then reuse.

    A corpus with ``reduce_blocks`` (:class:`eigensparse.text._cluster.ClusterCorpus`) runs
    the pass where its blocks are.

    Examples
    --------
    >>> from eigensparse.datasets import load_kos
    >>> from eigensparse.text import word_statistics
    >>> stats = word_statistics(load_kos().data)  # a matrix, a UCI file or a corpus
    >>> stats["s1"].shape, int(stats["df"].max()) <= 3430
    ((6906,), True)
    """
    corpus = open_corpus(corpus)
    W = corpus.n_words
    known = None if df is None else np.asarray(df, dtype=np.int64).copy()
    if known is not None and known.shape != (W,):
        raise InvalidParameterError(f"parameter 'df' must hold {W} document frequencies; "
                                    f"got shape {known.shape}.")
    n_df = W if known is None else 0  # an empty df array: the kernel does not count
    remote = getattr(corpus, "reduce_blocks", None)
    if remote is not None:
        out = remote(_chunk_statistics, scaling, idf, W, n_df)
        return out if known is None else {**out, "df": known}
    keep = _norms_array(norms, corpus.n_docs)
    n_jobs = max(1, int(n_jobs))
    sums = [(np.zeros((W, 2)), np.zeros(n_df, dtype=np.int64)) for _ in range(n_jobs)]
    _over_chunks(corpus.iter_chunks(chunk_nnz=chunk_nnz, progress=progress, desc=desc),
                 lambda ch, j, lo, hi: _chunk_moments(ch, scaling, idf, *sums[j], lo, hi, keep),
                 n_jobs)
    s12, counted = sums[0]
    for e12, edf in sums[1:]:
        s12 += e12
        counted += edf
    return {"s1": s12[:, 0].copy(), "s2": s12[:, 1].copy(),
            "df": counted if known is None else known}


def working_set_covariance(corpus, working_set, *, scaling: str = "count", idf=None, mean=None,
                           center: bool = True, chunk_nnz=DEFAULT_CHUNK_NNZ, n_jobs: int = 1,
                           progress: bool = False, desc: str = "pass 2: covariance",
                           norms=None) -> np.ndarray:
    """One pass: the covariance (or, with ``center=False``, the second-moment matrix)
    of the words ``working_set`` (sorted ids), divided by n as in
    :class:`eigensparse.SparseData`. ``mean`` (the per-word means of all words) is
    needed for centering. With tf-idf, ``norms`` (the documents' ℓ2 norms that
    :func:`word_statistics` kept for the same ``idf``) saves computing them again.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.datasets import load_kos
    >>> from eigensparse.text import word_statistics, working_set_covariance
    >>> X = load_kos().data
    >>> mean = word_statistics(X)["s1"] / X.shape[0]
    >>> S = working_set_covariance(X, [0, 5, 9], mean=mean)
    >>> S.shape, bool(np.allclose(S, S.T))
    ((3, 3), True)
    """
    corpus = open_corpus(corpus)
    ws = np.asarray(working_set, dtype=np.int64)
    if ws.ndim != 1 or ws.size == 0 or np.any(np.diff(ws) <= 0) or ws[0] < 0 or ws[-1] >= corpus.n_words:
        raise InvalidParameterError("parameter 'working_set' must be sorted unique word ids in "
                                    f"[0, {corpus.n_words}).")
    if scaling == "tfidf" and idf is None:
        raise InvalidParameterError("scaling='tfidf' needs the idf of the words.")
    m = ws.size
    col_map = np.full(corpus.n_words, -1, dtype=np.int32)
    col_map[ws] = np.arange(m)
    remote = getattr(corpus, "reduce_blocks", None)
    if remote is not None:
        G = remote(_chunk_gram, scaling, idf, col_map, m)
    else:
        known = _norms_array(norms, corpus.n_docs)
        n_jobs = max(1, int(n_jobs))
        Gs = [np.zeros((m, m)) for _ in range(n_jobs)]
        mode, w = _MODES[scaling], idf if idf is not None else np.ones(1)
        _over_chunks(corpus.iter_chunks(chunk_nnz=chunk_nnz, progress=progress, desc=desc),
                     lambda ch, j, lo, hi: scaled_gram(ch.indptr, ch.indices, ch.data, mode, w,
                                                       col_map, Gs[j], lo, hi, known,
                                                       ch.doc_start if known.size else 0),
                     n_jobs)
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


class Clock:
    """Seconds per phase, in order (a phase timed twice accumulates): wall time in
    ``timings``, CPU time of the process (all its threads) in ``cpu``."""

    def __init__(self):
        self.t0 = time.perf_counter()
        self.c0 = time.process_time()
        self.timings, self.cpu = {}, {}
        self._last, self._last_cpu = self.t0, self.c0

    def lap(self, name: str) -> float:
        now, cpu = time.perf_counter(), time.process_time()
        dt = now - self._last
        self.timings[name] = self.timings.get(name, 0.0) + dt
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu - self._last_cpu
        self._last, self._last_cpu = now, cpu
        return dt


def progress_mode(progress) -> str:
    """``"bar"``, ``"log"`` or ``"off"`` for the ``progress`` option.

    None (automatic): tqdm bars when stderr is a terminal, else one log line per phase
    on stderr (never a bar in a file or a pipe); True: bars; False: nothing.
    """
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        return "bar" if isatty is not None and isatty() else "log"
    return "bar" if progress else "off"


def phase_line(msg: str, mode: str) -> None:
    """One line for a finished phase on stderr when ``mode`` is ``"log"``."""
    log.info(msg)
    if mode == "log":
        print(f"eigensparse: {msg}", file=sys.stderr, flush=True)


def say(msg: str, progress, messages: list):
    """Record ``msg``, log it, and show it above the progress bars when they are on."""
    messages.append(msg)
    log.info(msg)
    if progress:
        try:
            from tqdm.auto import tqdm

            tqdm.write(f"eigensparse: {msg}", file=sys.stderr)
        except Exception:  # pragma: no cover
            pass


class CorpusPasses:
    """The passes over one opened corpus, with its cache, for one scaling.

    Attributes
    ----------
    passes : list of dict
        One entry per pass over the data: name, source ("text", "cache", "memory"),
        seconds, nnz.
    messages : list of str
        What was read from the cache instead of the data.
    """

    def __init__(self, corpus, scaling: str, *, chunk_nnz: int = DEFAULT_CHUNK_NNZ,
                 n_jobs: int = 1, progress="off", messages: list | None = None):
        self.corpus = corpus
        self.scaling = scaling
        self.chunk_nnz = chunk_nnz
        self.n_jobs = n_jobs
        #: "bar" (tqdm bars per pass), "log" (one line per pass on stderr) or "off"
        self.mode = progress if isinstance(progress, str) else progress_mode(bool(progress))
        self.progress = self.mode == "bar"
        self.passes: list = []
        self.messages = [] if messages is None else messages
        self.idf = None
        #: tf-idf: the documents' ℓ2 norms kept by pass 1 in this process (for pass 2)
        self.norms = None

    def _run(self, name, fn):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        self._record(name, time.perf_counter() - t, time.process_time() - c)
        return out

    def _record(self, name, dt, cpu=None):
        self.passes.append({"name": name, "source": self.corpus.last_source,
                            "seconds": dt, "nnz": int(self.corpus.nnz)}
                           | ({} if cpu is None else {"cpu_seconds": cpu}))
        phase_line(f"{name}: {int(self.corpus.nnz):,} nonzeros from {self.corpus.last_source} "
                   f"in {dt:.2f} s", self.mode)

    def _note(self, msg: str) -> None:
        self.messages.append(msg)
        phase_line(msg, self.mode)

    def _cache(self):
        return getattr(self.corpus, "cache", None)

    def memo(self, name: str, key: list, compute) -> tuple:
        """``(compute(), False)``, or ``(arrays, True)`` when the corpus cache holds the
        arrays of ``name`` computed for the same ``key`` (numbers, strings, arrays,
        None): results that depend only on the corpus, its scaling and ``key`` are
        computed once per cache."""
        import zlib

        tag = []
        for k in key:
            if isinstance(k, np.ndarray):
                a = np.ascontiguousarray(k)
                tag.append(f"{a.dtype.str}{a.shape}:{zlib.crc32(a.view(np.uint8).reshape(-1)):08x}")
            else:
                tag.append(repr(k))
        tag = f"{self.scaling}|" + "|".join(tag)
        cache = self._cache()
        got = cache.load_stats(name) if cache is not None else None
        if got is not None and str(got.get("__key__", "")) == tag:
            return {k: v for k, v in got.items() if k != "__key__"}, True
        out = compute()
        if cache is not None:
            cache.save_stats(name, {**out, "__key__": np.array(tag)})
        return out, False

    def statistics(self) -> dict:
        """Pass 1 (or the cache): ``{"s1", "s2", "df"}`` per word after scaling. A file
        without its cache is first read once into it (pass 1a, which also counts the
        document frequencies); tf-idf needs those first (pass 1a, or the cache's)."""
        corpus, scaling, cache = self.corpus, self.scaling, self._cache()
        stats = cache.load_stats(scaling) if cache is not None else None
        if stats is not None:
            self._note(f"pass 1: word statistics ({scaling}) read from the cache")
        else:
            df = self._build()
            if scaling == "tfidf":
                df = self._document_frequencies() if df is None else df
                self.idf = _idf(df, corpus.n_docs)
                if getattr(corpus, "reduce_blocks", None) is None:
                    self.norms = np.empty(corpus.n_docs)
            stats = self._run("pass 1: word statistics", lambda: word_statistics(
                corpus, scaling, idf=self.idf, chunk_nnz=self.chunk_nnz, progress=self.progress,
                n_jobs=self.n_jobs, df=df, norms=self.norms))
            if self._cache() is not None:
                self._cache().save_stats(scaling, stats)
        if scaling == "tfidf" and self.idf is None:
            self.idf = _idf(stats["df"], corpus.n_docs)
        return stats

    def _build(self):
        """Pass 1a of a file without its cache (:meth:`eigensparse.io.UCICorpus.ensure_cache`):
        the document frequencies, or None (nothing built)."""
        ensure = getattr(self.corpus, "ensure_cache", None)
        if ensure is None or self._cache() is not None:
            return None
        desc = "pass 1a: cache and document frequencies"
        t, c = time.perf_counter(), time.process_time()
        out = ensure(progress=self.progress, desc=desc)
        if out is None:
            return None
        self._record(desc, time.perf_counter() - t, time.process_time() - c)
        return out["df"]

    def _document_frequencies(self) -> np.ndarray:
        """Every word's document frequency: kept with the cache, or one pass (pass 1a of
        a corpus without a cache)."""
        cache = self._cache()
        for name in ("df", "count"):
            got = cache.load_stats(name) if cache is not None else None
            if got is not None:
                return got["df"]
        desc = "pass 1a: document frequencies"
        base = self._run(desc, lambda: word_statistics(
            self.corpus, "count", chunk_nnz=self.chunk_nnz, progress=self.progress, desc=desc))
        if self._cache() is not None:
            self._cache().save_stats("count", base)
        return base["df"]

    def gram(self, ws: np.ndarray, label: str) -> np.ndarray:
        """Pass 2: the uncentered XᵀX/n of the words ``ws`` (sorted ids), from the Gram
        matrix cached with the corpus when it covers ``ws`` (no pass), else one pass
        (whose Gram matrix is then cached)."""
        key = f"gram-{self.scaling}"
        cache = self._cache()
        cached = cache.load_stats(key) if cache is not None else None
        if cached is not None:
            cws = cached["ws"]
            pos = np.searchsorted(cws, ws)
            if np.all(pos < cws.size) and np.array_equal(cws[np.minimum(pos, cws.size - 1)], ws):
                self._note(f"pass 2: covariance of {ws.size} words taken from the cached Gram "
                           f"matrix of {cws.size} words (no pass over the data)")
                return cached["G"][np.ix_(pos, pos)]
        G = self._run(label, lambda: working_set_covariance(
            self.corpus, ws, scaling=self.scaling, idf=self.idf, mean=None, center=False,
            chunk_nnz=self.chunk_nnz, n_jobs=self.n_jobs, progress=self.progress, desc=label,
            norms=self.norms))
        if self._cache() is not None and G.shape[0] <= _GRAM_CACHE_MAX:
            self._cache().save_stats(key, {"ws": ws, "G": G})
        return G
