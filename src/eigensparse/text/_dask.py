"""The Dask back-end of the topic pipeline: the same passes, run on a cluster.

:class:`DaskCorpus` is a :class:`~eigensparse.io.corpus.MatrixCorpus` whose row blocks
live on the workers of a ``dask.distributed`` client. The pipeline's passes
(:func:`eigensparse.text.word_statistics`, :func:`eigensparse.text.working_set_covariance`)
see its :meth:`DaskCorpus.reduce_blocks` and send the per-block work there: each
worker computes its block's per-word sums (pass 1) or its working-set Gram block
(pass 2) with the same compiled kernels as the streamed passes, and only those sums
(O(W) and O(m²) numbers per block) come back. Everything after the passes (pruning,
working set, the bounded solve, the table) is the one pipeline.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..io.corpus import MatrixCorpus

__all__ = ["DaskCorpus"]


def _chunk(X):
    return SimpleNamespace(data=X.data, indices=X.indices,
                           indptr=X.indptr.astype(np.int64), n_docs=X.shape[0])


def _run_block(X, fn, args):
    """On a worker: ``fn(chunk, *args)`` on the block's CSR arrays."""
    return fn(_chunk(X), *args)


class DaskCorpus(MatrixCorpus):
    """A documents × words matrix split in row blocks over a Dask cluster.

    Parameters
    ----------
    X : scipy.sparse matrix, shape (n_docs, n_words)
    words : list of str, optional
    client : dask.distributed.Client
    name : str
    n_blocks : int, optional
        Row blocks (default: two per worker thread).
    """

    def __init__(self, X, words=None, *, client, name: str = "matrix", n_blocks: int | None = None):
        super().__init__(X, words, name=name)
        self.client = client
        if n_blocks is None:
            n_blocks = 2 * max(1, sum(client.nthreads().values()))
        ip = self.X.indptr
        cuts = np.searchsorted(ip, np.linspace(0, ip[-1], n_blocks + 1)[1:-1])
        bounds = np.unique(np.r_[0, cuts, self.n_docs])
        blocks = [self.X[a:b] for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
        self.blocks = client.scatter(blocks)
        self.last_source = "dask"

    def reduce_blocks(self, fn, *args):
        """``fn(chunk, *args)`` on every block on the workers, summed (arrays or dicts
        of arrays), as one pass over the data."""
        futs = [self.client.submit(_run_block, b, fn, args, pure=False) for b in self.blocks]
        out = None
        for part in self.client.gather(futs):
            if out is None:
                out = part
            elif isinstance(out, dict):
                for k in out:
                    out[k] = out[k] + part[k]
            else:
                out = out + part
        self.last_source = "dask"
        return out
