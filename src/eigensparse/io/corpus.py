"""Corpora as sequences of whole-document CSR chunks, read as many times as needed.

:func:`open_corpus` accepts a UCI ``docword`` file (streamed; the first pass also
writes the binary cache, later passes and later runs read the cache), a Matrix
Market or ``.npz`` file, a scipy.sparse matrix, or a :class:`Corpus`.
"""
from __future__ import annotations

import os
from typing import Iterator

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError, check_sparse_structure, real_dtype_problem
from .cache import BowCache, BowCacheWriter, CSRChunk
from ._vocab import check_vocabulary
from .uci import DEFAULT_CHUNK_NNZ, UCIChunk, _UCIStream, read_vocabulary

__all__ = ["Corpus", "UCICorpus", "MatrixCorpus", "open_corpus", "build_cache", "CSRChunk"]


class Corpus:
    """Base class: a documents × words matrix read in whole-document chunks.

    Attributes: ``name``, ``n_docs``, ``n_words``, ``nnz``, ``words`` (list or None),
    ``integer_counts`` (values are non-negative integer counts), ``last_source``
    (where the latest pass read from: "text", "cache" or "memory").

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.io import Corpus, open_corpus
    >>> corpus = open_corpus(np.array([[2, 0, 1], [0, 5, 0]]), ["a", "b", "c"])
    >>> isinstance(corpus, Corpus), corpus.describe()
    (True, 'matrix: 2 documents x 3 words, 3 nonzeros')
    >>> [ch.n_docs for ch in corpus.iter_chunks(chunk_nnz=2)]  # whole documents per chunk
    [1, 1]
    """

    name: str = "corpus"
    n_docs: int
    n_words: int
    nnz: int
    words: list | None = None
    integer_counts: bool = True
    last_source: str = ""

    def iter_chunks(self, *, chunk_nnz: int = DEFAULT_CHUNK_NNZ, progress: bool = False,
                    desc: str = "pass") -> Iterator[CSRChunk]:
        raise NotImplementedError

    def describe(self) -> str:
        return f"{self.name}: {self.n_docs} documents x {self.n_words} words, {self.nnz} nonzeros"


def _tqdm(total, unit, desc, progress):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit=unit, unit_scale=True, desc=desc, leave=False)


def coo_chunk_to_csr(ch: UCIChunk, n_words: int) -> CSRChunk:
    """A whole-document chunk of (doc, word, count) entries as CSR, duplicates summed."""
    d, w, c = ch.doc, ch.word, ch.count
    start = int(d[0])
    nd = int(d[-1]) - start + 1
    if not ch.canonical:
        key = (d - start).astype(np.int64) * n_words + w
        order = np.argsort(key, kind="stable")
        key = key[order]
        first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        c = np.add.reduceat(c[order], first)
        key = key[first]
        d = (key // n_words + start).astype(np.int32)
        w = (key % n_words).astype(np.int32)
    indptr = np.zeros(nd + 1, dtype=np.int64)
    np.cumsum(np.bincount(d - start, minlength=nd), out=indptr[1:])
    return CSRChunk(start, indptr, w, c)


class UCICorpus(Corpus):
    """A UCI ``docword`` file (``.txt`` or ``.gz``) with its optional vocabulary.

    Parameters
    ----------
    docword, vocab : path-like
    cache : bool, default=True
        Use (and build on the first pass) the binary cache of :mod:`eigensparse.io.cache`.
    cache_dir : path-like, optional
        Root directory of caches (default :func:`eigensparse.io.cache.default_cache_dir`).
    verify : {"hash", "stat"}
        How a cache is matched to its source (content hash, or size and mtime).

    Examples
    --------
    >>> import tempfile
    >>> from importlib.resources import files
    >>> from eigensparse.io import UCICorpus
    >>> data = files("eigensparse.datasets") / "data"
    >>> caches = tempfile.TemporaryDirectory()
    >>> corpus = UCICorpus(data / "docword.kos.txt.gz", data / "vocab.kos.txt",
    ...                    cache_dir=caches.name)
    >>> corpus.cache_status, sum(ch.nnz for ch in corpus.iter_chunks()), corpus.last_source
    ('miss', 353160, 'text')
    >>> UCICorpus(data / "docword.kos.txt.gz", cache_dir=caches.name).cache_status
    'hit'
    >>> caches.cleanup()
    """

    def __init__(self, docword, vocab=None, *, cache: bool = True, cache_dir=None,
                 verify: str = "hash"):
        self.path = os.fspath(docword)
        self.name = os.path.basename(self.path)
        self.use_cache = bool(cache)
        self.cache_dir = cache_dir
        self.verify = verify
        self.cache: BowCache | None = None
        self.cache_status = "off"
        if self.use_cache:
            # the arrays are checked before the first pass reads them (a run served by the
            # cached statistics reads none)
            self.cache = BowCache.open(self.path, cache_dir, verify=verify, check_arrays=False)
            self.cache_status = "hit" if self.cache is not None else "miss"
        if self.cache is not None:
            self.n_docs, self.n_words, self.nnz = self.cache.n_docs, self.cache.n_words, self.cache.nnz
        else:
            s = _UCIStream(self.path)
            try:
                h = s.header
            finally:
                s.close()
            self.n_docs, self.n_words, self.nnz = h.n_docs, h.n_words, h.nnz
        self.words = read_vocabulary(vocab, self.n_words) if vocab is not None else None
        self.integer_counts = True

    @property
    def cache_directory(self) -> str | None:
        return None if self.cache is None else self.cache.directory

    def ensure_cache(self, *, progress: bool = False, desc: str = "pass 1a") -> dict | None:
        """Pass 1a when the cache is missing: one streamed pass parses the file straight
        into its binary cache (:mod:`eigensparse.io._build`) and returns the count
        statistics ``{"s1", "s2", "df"}`` (also saved with the cache). None when there is
        nothing to build (a cache is there, or ``cache=False``), the cache directory
        cannot be written, or the file needs the general route of :meth:`iter_chunks`
        (entries repeated or unsorted inside a document)."""
        if not self.use_cache or self.cache is not None:
            return None
        from ._build import build_uci_cache

        bar = _tqdm(os.path.getsize(self.path), "B", f"{desc} ({self.name})", progress)
        try:
            out = build_uci_cache(self.path, self.cache_dir, progress=bar)
        except OSError:
            return None  # e.g. an unwritable cache directory: streamed without a cache
        finally:
            if bar is not None:
                bar.close()
        if out is None:
            return None
        self.cache, stats = out
        self.cache_status, self.last_source = "written", "text"
        return stats

    def iter_chunks(self, *, chunk_nnz: int = DEFAULT_CHUNK_NNZ, progress: bool = False,
                    desc: str = "pass") -> Iterator[CSRChunk]:
        if self.cache is not None and not self.cache.verify_arrays(self.path):
            self.cache, self.cache_status = None, "damaged"
        if self.cache is not None:
            self.last_source = "cache"
            bar = _tqdm(self.nnz, "nz", f"{desc} (cache)", progress)
            try:
                yield from self.cache.iter_chunks(chunk_nnz, progress=bar)
            finally:
                if bar is not None:
                    bar.close()
            return
        self.last_source = "text"
        bar = _tqdm(os.path.getsize(self.path), "B", f"{desc} ({self.name})", progress)
        stream = _UCIStream(self.path, chunk_nnz=chunk_nnz, require_sorted=True,
                            checksum=self.use_cache, progress=bar)
        writer = None
        if self.use_cache:
            try:
                writer = BowCacheWriter(self.path, self.n_docs, self.n_words, self.cache_dir)
            except OSError:
                writer = None  # unwritable cache directory: stream without a cache
        try:
            for ch in stream.chunks():
                csr = coo_chunk_to_csr(ch, self.n_words)
                if writer is not None:
                    try:
                        writer.add(csr)
                    except (OSError, InvalidParameterError):
                        writer.abort()
                        writer = None
                yield csr
            if writer is not None:
                try:
                    self.cache = writer.commit(stream.src.digest())
                    self.cache_status = "written"
                except OSError:
                    writer.abort()
                writer = None
        finally:
            stream.close()
            if writer is not None:
                writer.abort()
            if bar is not None:
                bar.close()

    def describe(self) -> str:
        return super().describe() + f" (cache: {self.cache_status})"


class MatrixCorpus(Corpus):
    """A documents × words matrix in memory (scipy.sparse or dense).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from eigensparse.io import MatrixCorpus
    >>> corpus = MatrixCorpus(sp.csr_matrix([[2, 0, 1], [0, 5, 0]]), ["a", "b", "c"])
    >>> corpus.n_docs, corpus.n_words, corpus.integer_counts, corpus.words
    (2, 3, True, ['a', 'b', 'c'])
    """

    def __init__(self, X, words=None, *, name: str = "matrix"):
        if not sp.issparse(X):
            X = np.asarray(X)
            if X.ndim != 2:
                raise InvalidParameterError(f"parameter 'docword' must be a 2-D matrix; got shape {X.shape}.")
        problem = real_dtype_problem(X.dtype)
        if problem:
            raise InvalidParameterError(f"parameter 'docword' {problem}.")
        check_sparse_structure(X, "docword")
        X = sp.csr_matrix(X, dtype=np.float64)
        if X.shape[0] < 1 or X.shape[1] < 1:
            raise InvalidParameterError(f"parameter 'docword' must be a non-empty matrix; got shape {X.shape}.")
        X.sum_duplicates()
        X.sort_indices()
        if X.nnz and not np.all(np.isfinite(X.data)):
            raise InvalidParameterError("parameter 'docword' has NaN or infinite entries.")
        self.X = X
        self.name = name
        self.n_docs, self.n_words = X.shape
        self.nnz = int(X.nnz)
        if words is not None:
            words = check_vocabulary(words, "vocab")
            if len(words) != self.n_words:
                raise InvalidParameterError(
                    f"parameter 'vocab' has {len(words)} words but the matrix has {self.n_words} columns.")
        self.words = words
        d = X.data
        self.integer_counts = bool(d.size == 0 or (d.min() >= 0 and np.all(d == np.round(d))))
        self.last_source = "memory"

    def iter_chunks(self, *, chunk_nnz: int = DEFAULT_CHUNK_NNZ, progress: bool = False,
                    desc: str = "pass") -> Iterator[CSRChunk]:
        X = self.X
        ip = X.indptr
        bar = _tqdm(self.nnz, "nz", f"{desc} (memory)", progress)
        try:
            d0 = 0
            while d0 < self.n_docs:
                d1 = int(np.searchsorted(ip, ip[d0] + chunk_nnz, side="right")) - 1
                d1 = min(max(d1, d0 + 1), self.n_docs)
                a, b = int(ip[d0]), int(ip[d1])
                yield CSRChunk(d0, (ip[d0:d1 + 1] - a).astype(np.int64), X.indices[a:b], X.data[a:b])
                if bar is not None:
                    bar.update(b - a)
                d0 = d1
        finally:
            if bar is not None:
                bar.close()


def open_corpus(docword, vocab=None, *, cache: bool = True, cache_dir=None,
                verify: str = "hash") -> Corpus:
    """A :class:`Corpus` for a file, a matrix or a corpus.

    ``docword`` may be a UCI docword file (``.txt``/``.gz``), a Matrix Market file
    (``.mtx``/``.mtx.gz``), a scipy sparse ``.npz``, a scipy.sparse matrix or array, or a
    :class:`Corpus` (returned as is). ``vocab`` is a vocabulary file or a list of words.

    Examples
    --------
    >>> import tempfile
    >>> import scipy.sparse as sp
    >>> from importlib.resources import files
    >>> from eigensparse.io import open_corpus
    >>> type(open_corpus(sp.eye(3, format="csr"))).__name__
    'MatrixCorpus'
    >>> data = files("eigensparse.datasets") / "data"
    >>> with tempfile.TemporaryDirectory() as caches:
    ...     print(open_corpus(data / "docword.kos.txt.gz", cache_dir=caches).describe())
    docword.kos.txt.gz: 3430 documents x 6906 words, 353160 nonzeros (cache: miss)
    """
    if isinstance(docword, Corpus):
        return docword
    if sp.issparse(docword) or isinstance(docword, np.ndarray):
        words = read_vocabulary(vocab) if isinstance(vocab, (str, os.PathLike)) else vocab
        return MatrixCorpus(docword, words)
    if not isinstance(docword, (str, os.PathLike)):
        raise InvalidParameterError(
            f"parameter 'docword' must be a path, a scipy.sparse matrix or a Corpus; got "
            f"{type(docword).__name__}.")
    path = os.fspath(docword)
    low = path.lower()
    if low.endswith((".mtx", ".mtx.gz")):
        from .formats import read_matrix_market

        X = read_matrix_market(path)
    elif low.endswith(".npz"):
        from .formats import read_npz

        X = read_npz(path)
    else:
        if vocab is not None and not isinstance(vocab, (str, bytes, os.PathLike)):
            vocab = check_vocabulary(vocab, "vocab")  # a list, an array, a Series of words
            c = UCICorpus(path, None, cache=cache, cache_dir=cache_dir, verify=verify)
            if len(vocab) != c.n_words:
                raise InvalidParameterError(
                    f"parameter 'vocab' has {len(vocab)} words but {path} has W={c.n_words}.")
            c.words = vocab
            return c
        return UCICorpus(path, vocab, cache=cache, cache_dir=cache_dir, verify=verify)
    words = read_vocabulary(vocab, X.shape[1]) if isinstance(vocab, (str, os.PathLike)) else vocab
    return MatrixCorpus(X, words, name=os.path.basename(path))


def build_cache(docword, cache_dir=None, *, verify: str = "hash", chunk_nnz: int = DEFAULT_CHUNK_NNZ,
                progress: bool = False) -> BowCache:
    """The binary cache of a UCI docword file, built by one streamed pass when it is
    missing or damaged (:class:`UCICorpus`'s first pass), its arrays checked.

    Examples
    --------
    >>> import tempfile
    >>> from importlib.resources import files
    >>> from eigensparse.io import build_cache
    >>> kos = files("eigensparse.datasets") / "data" / "docword.kos.txt.gz"
    >>> with tempfile.TemporaryDirectory() as caches:
    ...     cache = build_cache(kos, caches)            # one pass over the text
    ...     again = build_cache(kos, caches)            # found: no pass
    ...     print(cache.n_docs, cache.nnz, again.directory == cache.directory)
    3430 353160 True
    """
    c = UCICorpus(docword, cache_dir=cache_dir, verify=verify)
    if c.cache is None or not c.cache.verify_arrays(c.path):
        c.cache = None
        if c.ensure_cache(progress=progress, desc="cache") is not None:
            return c.cache
        for _ in c.iter_chunks(chunk_nnz=chunk_nnz, progress=progress, desc="cache"):
            pass
        if c.cache is None:
            raise InvalidParameterError(f"{c.path}: line 1: the cache could not be written "
                                        f"under {cache_dir or 'the default cache directory'}.")
    return c.cache
