"""The topic engine's passes on a Dask cluster, whose workers read the corpus.

:func:`cluster_corpus` gives a :class:`~eigensparse.io.corpus.Corpus` whose row blocks
are :class:`eigensparse.operators.dask.blocks.RowBlocks` on the workers: a UCI file is
read by the workers: one builds its binary cache, then each reads its own documents
from it at every pass, a chunk at a time (the client reads only the header and the
vocabulary); a matrix the caller holds is placed there block by block. The passes
(:func:`eigensparse.text.word_statistics`, :func:`eigensparse.text.working_set_covariance`)
call its :meth:`ClusterCorpus.reduce_blocks`: per-block word sums (pass 1) and
working-set Gram pieces (pass 2), computed by the same compiled kernels as the
streamed passes, are added on the workers, and only the totals (O(W) and O(m²)
numbers) reach the client.
"""
from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError
from ..io._vocab import check_vocabulary
from ..io.cache import BowCache
from ..io.corpus import Corpus, UCICorpus, build_cache, open_corpus
from ..io.uci import DEFAULT_CHUNK_NNZ
from ..operators.dask.blocks import RowBlocks, _add
from ..operators.dask.client import resolve_client

__all__ = ["ClusterCorpus", "cluster_corpus"]


def _build(path, cache_dir):
    """On a worker: the file's binary cache, built by one streamed pass if needed, with
    the document frequencies of that pass (pass 1a: no second read for them); returns
    its directory."""
    from ._passes import word_statistics

    corpus = UCICorpus(path, cache_dir=cache_dir)
    if corpus.ensure_cache() is not None:  # the fused pass 1a (io._build)
        return corpus.cache.directory
    if corpus.cache is None or all(corpus.cache.load_stats(k) is None for k in ("df", "count")):
        stats = word_statistics(corpus, "count")  # builds the cache when it is missing
        if corpus.cache is not None:
            corpus.cache.save_stats("count", stats)
    return build_cache(path, cache_dir).directory


class CacheRows:
    """On a worker: documents ``lo … hi-1`` of a binary cache, read chunk by chunk at
    each pass (the worker holds one chunk, never its block)."""

    def __init__(self, directory: str, n_words: int, lo: int, hi: int, chunk_nnz: int):
        self.directory, self.n_words, self.lo, self.hi = directory, int(n_words), int(lo), int(hi)
        self.chunk_nnz = int(chunk_nnz)
        self.indptr = np.fromfile(os.path.join(directory, "indptr.i64"), dtype="<i8",
                                  count=hi - lo + 1, offset=8 * lo)
        if self.indptr.size != hi - lo + 1 or np.any(np.diff(self.indptr) < 0):
            raise InvalidParameterError(f"{directory}: line 1: corrupt cache (offsets); delete "
                                        "the directory to rebuild it.")
        self.shape = (hi - lo, self.n_words)
        self.nnz = int(self.indptr[-1] - self.indptr[0])

    def chunks(self):
        ip = self.indptr
        with open(os.path.join(self.directory, "indices.i32"), "rb") as fi, \
                open(os.path.join(self.directory, "data.u32"), "rb") as fd:
            d0, n = 0, ip.size - 1
            while d0 < n:
                d1 = int(np.searchsorted(ip, ip[d0] + self.chunk_nnz, side="right")) - 1
                d1 = min(max(d1, d0 + 1), n)
                a, b = int(ip[d0]), int(ip[d1])
                fi.seek(4 * a)
                fd.seek(4 * a)
                idx = np.fromfile(fi, dtype="<i4", count=b - a)
                dat = np.fromfile(fd, dtype="<u4", count=b - a)
                if idx.size != b - a or dat.size != b - a:
                    raise InvalidParameterError(f"{self.directory}: line 1: corrupt cache "
                                                "(arrays shorter than recorded).")
                yield SimpleNamespace(data=dat, indices=idx, indptr=ip[d0:d1 + 1] - a,
                                      n_docs=d1 - d0)
                d0 = d1


def _cache_rows(directory, n_words: int, chunk_nnz: int, lo: int, hi: int):
    return CacheRows(directory, n_words, lo, hi, chunk_nnz)


def _run_block(X, fn, args):
    """On a worker: ``fn(chunk, *args)`` on the block's CSR arrays (summed over the
    chunks of a block read from a cache)."""
    if isinstance(X, CacheRows):
        total = None
        for chunk in X.chunks():
            part = fn(chunk, *args)
            total = part if total is None else _add(total, part)
        return total if total is not None else fn(SimpleNamespace(
            data=np.zeros(0, np.uint32), indices=np.zeros(0, np.int32),
            indptr=np.zeros(X.shape[0] + 1, np.int64), n_docs=X.shape[0]), *args)
    chunk = SimpleNamespace(data=X.data, indices=X.indices, indptr=X.indptr.astype(np.int64),
                            n_docs=X.shape[0])
    return fn(chunk, *args)


class _BlockCorpus:
    """On a worker: its block as a corpus streamed in chunks (what the screening sample
    reads)."""

    def __init__(self, X):
        self.X, self.n_docs, self.n_words = X, int(X.shape[0]), int(X.shape[1])
        self.nnz = int(X.nnz)

    def iter_chunks(self, *, chunk_nnz: int = DEFAULT_CHUNK_NNZ, progress: bool = False,
                    desc: str = "pass"):
        X = self.X
        if isinstance(X, CacheRows):
            yield from CacheRows(X.directory, X.n_words, X.lo, X.hi, chunk_nnz).chunks()
        else:
            yield SimpleNamespace(data=X.data, indices=X.indices,
                                  indptr=X.indptr.astype(np.int64), n_docs=X.shape[0])


def _on_block(X, fn, args):
    """On a worker: ``fn(corpus, *args)`` on the block ``X`` seen as a corpus."""
    return fn(_BlockCorpus(X), *args)


class ClusterCorpus(Corpus):
    """A corpus whose row blocks the workers of a Dask cluster hold (see the module).

    Attributes
    ----------
    blocks : RowBlocks
    """

    def __init__(self, blocks: RowBlocks, *, n_words: int, words, name: str,
                 integer_counts: bool = True):
        self.blocks, self.client = blocks, blocks.client
        self.n_docs, self.n_words, self.nnz = blocks.n_rows, int(n_words), blocks.nnz
        self.words, self.name, self.integer_counts = words, name, integer_counts
        self.last_source = "dask"
        #: the binary cache of the file, when the client sees it (statistics kept there)
        self.cache = None

    def iter_chunks(self, **kwargs):
        raise NotImplementedError("the blocks of a cluster corpus are read where they live "
                                  "(reduce_blocks), never streamed to the client")

    def on_first_block(self, fn, *args):
        """``fn(corpus, *args)`` on the worker holding the first block (its documents
        as a corpus); the client receives what ``fn`` returns."""
        return self.client.submit(_on_block, self.blocks.futures[0], fn, args,
                                  pure=False).result()

    def reduce_blocks(self, fn, *args):
        """``fn(chunk, *args)`` on every block on the workers, summed there."""
        self.last_source = "dask"
        return self.blocks.map_sum(_run_block, fn, args)


def cluster_corpus(docword, vocab=None, *, client, name=None, n_blocks=None, cache_dir=None,
                   chunk_nnz: int = DEFAULT_CHUNK_NNZ) -> ClusterCorpus:
    """The corpus ``docword`` on the cluster of ``client`` (a client or an address).

    A UCI file path is read by the workers: one builds its binary cache
    (:func:`eigensparse.io.build_cache`, under ``cache_dir`` as the workers see it;
    kept for later runs), then each worker thread reads its documents from the cache at
    every pass, chunk by chunk (the path and the cache directory must be readable
    there: one machine or a shared file system); any other source (a matrix, an ``.mtx``/``.npz`` file, a
    :class:`~eigensparse.io.Corpus` in memory) is opened here and its row blocks placed
    on the workers.
    """
    client = resolve_client(client)
    if isinstance(docword, (str, os.PathLike)) and str(docword).endswith((".txt", ".txt.gz", ".gz")) \
            and not str(docword).endswith((".mtx.gz",)):
        listed = vocab is not None and not isinstance(vocab, (str, os.PathLike))
        head = UCICorpus(docword, None if listed else vocab, cache=False)
        words = check_vocabulary(vocab, "vocab") if listed else head.words
        if words is not None and len(words) != head.n_words:
            raise InvalidParameterError(f"parameter 'vocab' has {len(words)} words; "
                                        f"{head.name} has {head.n_words}.")
        # one worker builds the binary cache (one streamed pass; a later run finds it),
        # then every worker thread reads its rows of it at each pass
        directory = client.submit(_build, os.path.abspath(os.fspath(docword)), cache_dir,
                                  pure=False).result()
        if n_blocks is None:
            n_blocks = max(1, sum(client.nthreads().values()))
        blocks = RowBlocks.load(client, _cache_rows, directory, head.n_words, chunk_nnz,
                                n_rows=head.n_docs, n_blocks=n_blocks)
        corpus = ClusterCorpus(blocks, n_words=head.n_words, words=words, name=name or head.name)
        # where the client sees the same cache (one machine, a shared file system), the
        # statistics and Gram matrices of the passes are kept with it, as for a local run
        cache = BowCache.open(docword, cache_dir, verify="stat", check_arrays=False)
        corpus.cache = cache if cache is not None and cache.directory == directory else None
        return corpus
    corpus = open_corpus(docword, vocab, cache=False)
    X = getattr(corpus, "X", None)
    if X is None:  # a streamed corpus of another kind: its chunks, placed block by block
        X = sp.vstack([sp.csr_matrix((ch.data.astype(np.float64), ch.indices, ch.indptr),
                                     shape=(ch.n_docs, corpus.n_words))
                       for ch in corpus.iter_chunks()], format="csr")
    blocks = RowBlocks.scatter(client, X, n_blocks)
    return ClusterCorpus(blocks, n_words=corpus.n_words, words=corpus.words,
                         name=name or corpus.name, integer_counts=corpus.integer_counts)
