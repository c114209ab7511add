"""Row blocks that live on the workers of a Dask cluster, and sums over them.

:class:`RowBlocks` holds one future per row block of a documents × features matrix.
The blocks are **read by the workers** (:meth:`RowBlocks.load`: each worker runs a
loader for its row range, e.g. reading its documents of a file) or placed there from
a matrix the caller already holds (:meth:`RowBlocks.scatter`). :meth:`RowBlocks.map_sum`
runs a function on every block where it lives and adds the results in a fixed tree
of tasks on the workers, so the client receives one sum (a few arrays the size of a
row or of a small Gram matrix), never a block.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..._validation import InvalidParameterError
from .client import resolve_client
from .kernels import sum_parts

__all__ = ["RowBlocks", "row_ranges"]

#: partial results are added in groups of this many (a fixed tree: deterministic sums)
_FAN_IN = 8


def row_ranges(n_rows: int, n_blocks: int) -> list:
    """``[(lo, hi), ...]``: ``n_rows`` rows in at most ``n_blocks`` contiguous ranges.

    Examples
    --------
    >>> from eigensparse.operators.dask.blocks import row_ranges
    >>> row_ranges(10, 3)
    [(0, 3), (3, 7), (7, 10)]
    """
    cuts = np.linspace(0, n_rows, max(1, min(n_blocks, n_rows)) + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


def _add(*parts):
    """The sum of per-block results: arrays, or dicts of arrays (a node of the tree)."""
    if isinstance(parts[0], dict):
        return {k: _add(*[p[k] for p in parts]) for k in parts[0]}
    if np.issubdtype(np.asarray(parts[0]).dtype, np.integer):
        out = np.array(parts[0], copy=True)
        for q in parts[1:]:
            out += q
        return out
    return sum_parts(*parts)


def _shape(block):
    nnz = block.nnz if sp.issparse(block) or hasattr(block, "nnz") else np.count_nonzero(block)
    return int(block.shape[0]), int(nnz)


class RowBlocks:
    """Row blocks of a matrix held by the workers of a ``dask.distributed`` client.

    Examples
    --------
    >>> import numpy as np
    >>> import distributed  # the dask extra
    >>> from eigensparse.operators.dask.blocks import RowBlocks
    >>> def rows(lo, hi):  # a loader: what a worker reads for its rows
    ...     return np.arange(lo * 2, hi * 2, dtype=float).reshape(-1, 2)
    >>> with distributed.Client(processes=False, n_workers=1, dashboard_address=":0") as c:
    ...     blocks = RowBlocks.load(c, rows, n_rows=5, n_blocks=2)
    ...     total = blocks.map_sum(lambda b: b.sum(axis=0))
    >>> blocks.n_rows, total.tolist()
    (5, [20.0, 25.0])
    """

    def __init__(self, client, futures, n_rows: int, nnz: int):
        self.client, self.futures = client, list(futures)
        self.n_rows, self.nnz = int(n_rows), int(nnz)

    @classmethod
    def load(cls, client, loader, *args, n_rows: int, n_blocks: int | None = None) -> "RowBlocks":
        """Each worker reads its rows: ``loader(*args, lo, hi)`` for the ranges of
        :func:`row_ranges` (default: two blocks per worker thread)."""
        client = cls._client(client)
        if n_blocks is None:
            n_blocks = 2 * max(1, sum(client.nthreads().values()))
        futs = [client.submit(loader, *args, lo, hi, pure=False)
                for lo, hi in row_ranges(n_rows, n_blocks)]
        return cls._checked(client, futs, n_rows)

    @classmethod
    def scatter(cls, client, X, n_blocks: int | None = None) -> "RowBlocks":
        """A matrix the caller holds, its row blocks placed on the workers."""
        client = cls._client(client)
        if n_blocks is None:
            n_blocks = 2 * max(1, sum(client.nthreads().values()))
        X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)
        parts = [X[lo:hi] for lo, hi in row_ranges(X.shape[0], n_blocks)]
        return cls._checked(client, client.scatter(parts), X.shape[0])

    @staticmethod
    def _client(client):
        client = resolve_client(client)
        if client is None:
            raise InvalidParameterError(
                "parameter 'client' must be a dask.distributed.Client or a scheduler address; "
                "no default client is registered.")
        return client

    @classmethod
    def _checked(cls, client, futs, n_rows):
        shapes = client.gather([client.submit(_shape, f, pure=False) for f in futs])
        rows = sum(r for r, _ in shapes)
        if rows != n_rows:
            raise InvalidParameterError(
                f"the workers read {rows} rows in all; the source has {n_rows}.")
        return cls(client, futs, n_rows, sum(z for _, z in shapes))

    def map_sum(self, fn, *args):
        """``fn(block, *args)`` on every block on the workers, added there in a fixed
        tree; the client receives the total only."""
        c = self.client
        big = [a for a in args if isinstance(a, np.ndarray) and a.nbytes > (1 << 20)]
        if big:  # large arguments (e.g. the word-to-column map) are sent once
            sent = {id(a): c.scatter(a, broadcast=True) for a in big}
            args = tuple(sent.get(id(a), a) for a in args)
        level = [c.submit(fn, f, *args, pure=False) for f in self.futures]
        while len(level) > 1:
            level = [c.submit(_add, *level[i:i + _FAN_IN], pure=False)
                     for i in range(0, len(level), _FAN_IN)]
        return level[0].result()
