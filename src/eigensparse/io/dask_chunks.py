"""A UCI bag-of-words file read in chunks straight into a Dask array.

Input side of the Dask back-end (:mod:`eigensparse.operators.dask`): the file is
streamed with :func:`eigensparse.io.uci.iter_uci_chunks` and each chunk of whole
documents becomes one CSR block of the Dask array.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..operators.dask.client import import_dask, resolve_client, wrap_block
from .uci import DEFAULT_CHUNK_NNZ, iter_uci_chunks, read_uci_header

__all__ = ["from_uci_chunks"]


def from_uci_chunks(docword, *, client=None, chunk_nnz: int | None = None, lineage: bool = False):
    """A Dask array (CSR chunks, known sizes) from a UCI docword file, read in chunks.

    The file is streamed once on the client (gzip cannot be read at random) with
    :func:`eigensparse.io.iter_uci_chunks`; each chunk of whole documents becomes a
    CSR block that is scattered to the workers straight away when a distributed
    ``client`` is given, so the client holds one chunk at a time.

    Returns
    -------
    dask.array.Array of shape (n_docs, n_words), float64, scipy.sparse CSR chunks.

    Examples
    --------
    >>> import dask  # the dask extra
    >>> from importlib.resources import files
    >>> from eigensparse.io.dask_chunks import from_uci_chunks
    >>> X = from_uci_chunks(files("eigensparse.datasets") / "data" / "docword.kos.txt.gz",
    ...                     chunk_nnz=100_000)  # local threads; client= for a cluster
    >>> X.shape, X.numblocks[0] > 1, X.blocks[0].compute().format
    ((3430, 6906), True, 'csr')
    """
    dask, da = import_dask()
    client = resolve_client(client)
    header = read_uci_header(docword)
    n, p = header.n_docs, header.n_words
    blocks, sizes, start = [], [], 0
    meta = sp.csr_matrix((0, p), dtype=np.float64)

    def add(block):
        blocks.append(wrap_block(dask, da, client, block, meta, lineage))
        sizes.append(block.shape[0])

    for ch in iter_uci_chunks(docword, chunk_nnz=chunk_nnz or DEFAULT_CHUNK_NNZ):
        if ch.nnz == 0:
            continue
        stop = int(ch.doc[-1]) + 1
        block = sp.csr_matrix((ch.count.astype(np.float64), (ch.doc - start, ch.word)),
                              shape=(stop - start, p))
        block.sum_duplicates()
        add(block)
        start = stop
    if start < n or not blocks:
        add(sp.csr_matrix((n - start, p), dtype=np.float64))
    return da.concatenate(blocks, axis=0)
