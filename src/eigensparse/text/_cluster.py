"""The topic engine's passes on a Dask cluster, whose workers read the corpus.

:func:`cluster_corpus` gives a :class:`~eigensparse.io.corpus.Corpus` whose row blocks
are :class:`eigensparse.operators.dask.blocks.RowBlocks` on the workers: a UCI file is
read by the workers, each its own documents (the client reads only the header and the
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
from ..io.corpus import Corpus, UCICorpus, open_corpus
from ..operators.dask.blocks import RowBlocks
from ..operators.dask.client import resolve_client

__all__ = ["ClusterCorpus", "cluster_corpus"]


def _read_rows(path, n_words: int, lo: int, hi: int):
    """On a worker: the documents ``lo … hi-1`` of a UCI file, as CSR (streamed: the
    worker holds its block and one chunk)."""
    corpus = UCICorpus(path, cache=False)
    parts = []
    for ch in corpus.iter_chunks():
        a, b = ch.doc_start, ch.doc_start + ch.n_docs
        if b <= lo:
            continue
        if a >= hi:
            break
        X = sp.csr_matrix((ch.data.astype(np.float64), ch.indices, ch.indptr),
                          shape=(ch.n_docs, n_words))
        parts.append(X[max(lo, a) - a:min(hi, b) - a])
    X = sp.vstack(parts, format="csr") if parts else sp.csr_matrix((0, n_words))
    X.sort_indices()
    return X


def _run_block(X, fn, args):
    """On a worker: ``fn(chunk, *args)`` on the block's CSR arrays."""
    chunk = SimpleNamespace(data=X.data, indices=X.indices, indptr=X.indptr.astype(np.int64),
                            n_docs=X.shape[0])
    return fn(chunk, *args)


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

    def iter_chunks(self, **kwargs):
        raise NotImplementedError("the blocks of a cluster corpus are read where they live "
                                  "(reduce_blocks), never streamed to the client")

    def reduce_blocks(self, fn, *args):
        """``fn(chunk, *args)`` on every block on the workers, summed there."""
        self.last_source = "dask"
        return self.blocks.map_sum(_run_block, fn, args)


def cluster_corpus(docword, vocab=None, *, client, name=None, n_blocks=None) -> ClusterCorpus:
    """The corpus ``docword`` on the cluster of ``client`` (a client or an address).

    A UCI file path is read by the workers (each reads its documents; the path must be
    readable there); any other source (a matrix, an ``.mtx``/``.npz`` file, a
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
        blocks = RowBlocks.load(client, _read_rows, os.fspath(docword), head.n_words,
                                n_rows=head.n_docs, n_blocks=n_blocks)
        return ClusterCorpus(blocks, n_words=head.n_words, words=words, name=name or head.name)
    corpus = open_corpus(docword, vocab, cache=False)
    X = getattr(corpus, "X", None)
    if X is None:  # a streamed corpus of another kind: its chunks, placed block by block
        X = sp.vstack([sp.csr_matrix((ch.data.astype(np.float64), ch.indices, ch.indptr),
                                     shape=(ch.n_docs, corpus.n_words))
                       for ch in corpus.iter_chunks()], format="csr")
    blocks = RowBlocks.scatter(client, X, n_blocks)
    return ClusterCorpus(blocks, n_words=corpus.n_words, words=corpus.words,
                         name=name or corpus.name, integer_counts=corpus.integer_counts)
