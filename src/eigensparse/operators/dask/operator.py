"""An operator over a Dask array: the data stay on the cluster, solvers run unchanged.

:class:`DaskData` represents Σ = AᵀA with A = (X − 1μᵀ) D⁻¹ / √n for a row-chunked
``dask.array`` X whose chunks are NumPy arrays or scipy.sparse matrices (centered
implicitly, never densified). The data are persisted once on the workers; every
product of the operator protocol is **one** graph computation over the row blocks
(``Σ·V``, ``A·X``, ``Aᵀ·Y``, ``Σ[I, I]``, the column statistics) whose p × b (or
n × b) result comes back as a NumPy array, so every solver written against the
protocol runs on a Dask cluster unchanged, alternating maximization with batched
starts included (all the starts of a batch share each pass over the data).

Per-block partial results are added in a fixed binary tree, so the answer does not
depend on which worker computed which block: a fit whose worker died mid-way
(the scheduler recomputes the lost blocks from their lineage) gives bit for bit the
same result.

Works with the local threaded scheduler, a ``dask.distributed.LocalCluster`` or any
``Client``; :func:`connect` opens a client on a scheduler address with a short,
enforced timeout (an unreachable address is a clear error, never a hang).
"""
from __future__ import annotations

import math
import uuid

import numpy as np
import scipy.sparse as sp

from ..._validation import InvalidParameterError, check_data_shape
from .._base import Operator, _as_2d
from .._dense import scale_from_variance
from .client import DaskComputeError, import_dask, resolve_client
from .kernels import (BlockContext, data_columns_block, dot_block, gram_block, matmat_block,
                      prepare_block, quad_block, rdot_block, stats_block,
                      stats_combine_star, sum_parts)

__all__ = ["DaskData"]

#: arguments larger than this (bytes) are scattered to the workers instead of being
#: embedded in the task graph (distributed warns about graphs over 10 MB); embedded
#: arguments survive the loss of a worker, scattered ones are re-sent (one retry)
_SCATTER_BYTES = 8 << 20
#: partial results are added in groups of this many (a fixed tree: deterministic sums)
_FAN_IN = 8

# ---------------------------------------------------------------------------
# the operator
# ---------------------------------------------------------------------------
class DaskData(Operator):
    """Σ = AᵀA with A = (X − 1μᵀ) D⁻¹ / √n for a row-chunked Dask array X.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        NumPy or scipy.sparse chunks. Chunk sizes must be known (call
        ``X.compute_chunk_sizes()`` after boolean indexing); column chunks are merged
        (each row block holds all features).
    center, scale : bool
        As in :class:`~eigensparse.operators.DenseData`; sparse chunks are centered
        implicitly.
    client : dask.distributed.Client, str or None
        Where to compute: a client, a scheduler address (see :func:`connect`), or None
        for the default client when one exists, otherwise the local threaded scheduler.
    persist : bool, default=True
        Keep the (float64, CSR or contiguous) blocks in the workers' memory. With
        False each product re-reads X from its graph.

    Notes
    -----
    One column-statistics pass (a single graph: counts, sums and pairwise-combined
    centered sums of squares) gives ``mean_``, ``scale_`` and :meth:`diag`. Each
    :meth:`matmat`, :meth:`quad`, :meth:`dot`, :meth:`rdot`, :meth:`block` and
    :meth:`data_columns` is one graph computation; p × b blocks travel, never X.
    :meth:`restrict` is a view (a column selection applied inside the block kernels).

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from eigensparse import DenseData
    >>> from eigensparse.operators import DaskData
    >>> X = np.random.default_rng(0).standard_normal((60, 4))
    >>> op = DaskData(da.from_array(X, chunks=(20, 4)))  # local threads: no cluster needed
    >>> bool(np.allclose(op.matvec(np.ones(4)), DenseData(X).matvec(np.ones(4))))
    True
    """

    has_data = True
    kind = "Dask data operator"

    def __init__(self, X, *, center: bool = True, scale: bool = False, client=None,
                 persist: bool = True):
        dask, da = import_dask()
        if not isinstance(X, da.Array):
            raise InvalidParameterError(
                f"DaskData needs a dask.array.Array; got {type(X).__name__}.")
        if X.ndim != 2:
            raise InvalidParameterError(
                f"parameter 'X' (Dask array) must be 2-D (n_samples, n_features); got {X.ndim}-D.")
        unknown = [ax for ax in (0, 1) if any(math.isnan(c) for c in X.chunks[ax])]
        if unknown:
            raise InvalidParameterError(
                f"parameter 'X' (Dask array) has unknown chunk sizes along axis {unknown[0]} "
                f"(shape {X.shape}, NaN chunks, e.g. after boolean indexing); call "
                "X.compute_chunk_sizes() (or X.compute_chunk_sizes().persist()) first.")
        if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool) or np.issubdtype(X.dtype, np.complexfloating):
            raise InvalidParameterError(
                f"parameter 'X' (Dask array) must have a real numeric dtype; got {X.dtype}.")
        n, p = check_data_shape(X.shape, "X")
        self._dask = dask
        self.client = resolve_client(client)
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        meta = getattr(X, "_meta", None)
        self.sparse_chunks = bool(sp.issparse(meta))
        # the unpersisted array holds the futures of scattered sources: keeping it keeps
        # them (and so the lineage of the persisted blocks) alive as long as the operator
        self._source = X
        X = X.map_blocks(prepare_block, dtype=np.float64, meta=meta if self.sparse_chunks else None)
        if persist:
            X = self.client.persist(X) if self.client is not None else X.persist()
        self._X = X
        self._blocks = list(X.to_delayed(optimize_graph=False).ravel())
        self.row_chunks = tuple(int(c) for c in X.chunks[0])
        self.n_samples, self.n_features = n, p
        self.center, self.scale = bool(center), bool(scale)
        self._cols = None

        # the variance pass: one graph, Chan's pairwise combination of block statistics
        delayed = dask.delayed
        parts = [delayed(stats_block, pure=True)(b) for b in self._blocks]
        total = self._tree(parts, stats_combine_star)
        rows, colsum, m2, bad = self._compute(total)
        if bad:
            raise InvalidParameterError(
                f"parameter 'X' (Dask array) contains {bad} NaN or infinite value(s); "
                "remove or impute them first.")
        if rows != n:  # pragma: no cover - a chunk that lied about its size
            raise InvalidParameterError(
                f"parameter 'X' (Dask array) declares {n} rows but its chunks hold {rows}.")
        mean = colsum / n
        var = m2 / n if center else m2 / n + mean * mean
        self.mean_ = mean if center else np.zeros(p)
        sd = scale_from_variance(var, scale)
        self.scale_ = sd
        self._diag = var / sd**2
        self._c2 = 1.0 / n
        self._ctx_cache = None

    # -- plumbing ---------------------------------------------------------
    def _tree(self, parts, combine):
        """Combine ``parts`` in a fixed tree of fan-in :data:`_FAN_IN` (deterministic)."""
        delayed = self._dask.delayed
        while len(parts) > 1:
            parts = [delayed(combine, pure=True)(*parts[i:i + _FAN_IN])
                     for i in range(0, len(parts), _FAN_IN)]
        return parts[0]

    def _compute(self, *objs):
        try:
            if self.client is not None:
                out = self.client.compute(list(objs), sync=True)
            else:
                out = self._dask.compute(*objs)
        except Exception as exc:
            if type(exc).__name__ in ("FutureCancelledError", "CancelledError", "KilledWorker"):
                raise DaskComputeError(
                    f"a Dask computation of the {self.kind} failed ({type(exc).__name__}: {exc}). "
                    "Scattered blocks (scatter_rows/from_uci_chunks with lineage=False) are lost "
                    "with their worker; pass lineage=True, or build the array from a graph "
                    "(da.from_array, a reader) so that lost blocks are recomputed."
                ) from exc
            raise
        return out[0] if len(objs) == 1 else tuple(out)

    def _run(self, build):
        """Compute the graphs ``build()`` returns. Should a scattered argument have been
        lost with a worker, the graphs are built (arguments re-sent) and computed once
        more; lost data blocks without lineage fail again, with a clear error."""
        try:
            return self._compute(*build())
        except DaskComputeError:
            if self.client is None:
                raise
            return self._compute(*build())

    def _put(self, value):
        """A graph handle for ``value``: scattered to the workers when large and a
        distributed client is in use, else embedded once under a fresh key."""
        if self.client is not None and getattr(value, "nbytes", 0) > _SCATTER_BYTES:
            return self.client.scatter(value, broadcast=True, hash=False)
        return self._dask.delayed(value, name=f"eigensparse-arg-{uuid.uuid4().hex}")

    def _ctx(self):
        """(column selection, mean or None) shared by all block kernels; embedded in the
        graph (never lost with a worker)."""
        if self._ctx_cache is None:
            mu = self.mean_ if self.center else None
            self._ctx_cache = self._dask.delayed(BlockContext(self._cols, mu),
                                                 name=f"eigensparse-ctx-{uuid.uuid4().hex}")
        return self._ctx_cache

    def _weights(self, V):
        """W = D⁻¹V (float64, C-contiguous), V of shape (p, b)."""
        return np.ascontiguousarray(V / self.scale_[:, None])

    def _reduce(self, kernel, arg):
        """Σ_blocks kernel(block, arg): one graph, a fixed summation tree."""
        delayed = self._dask.delayed

        def build():
            A, ctx = self._put(arg), self._ctx()
            return [self._tree([delayed(kernel, pure=True)(b, A, ctx) for b in self._blocks],
                               sum_parts)]

        return self._run(build)

    def _stack(self, kernel, arg):
        """kernel(block, arg) of every block, stacked by rows: one graph."""
        delayed = self._dask.delayed

        def build():
            A, ctx = self._put(arg), self._ctx()
            return [delayed(kernel, pure=True)(b, A, ctx) for b in self._blocks]

        parts = self._run(build)
        return np.concatenate(parts, axis=0) if len(self._blocks) > 1 else np.asarray(parts)

    # -- the protocol -------------------------------------------------------
    def diag(self):
        return self._diag.copy()

    def trace(self):
        return float(self._diag.sum())

    def matmat(self, V):
        V, _ = _as_2d(V)
        self._check_rows(V, self.n_features, "V")
        out = self._reduce(matmat_block, self._weights(V))
        return out / self.scale_[:, None] * self._c2

    def quad(self, V):
        V = np.asarray(V, dtype=float)
        vec = V.ndim == 1
        V2 = V.reshape(-1, 1) if vec else V
        self._check_rows(V2, self.n_features, "V")
        q = self._reduce(quad_block, self._weights(V2)) * self._c2
        return float(q[0]) if vec else q

    def dot(self, X):
        X = np.asarray(X, dtype=float)
        vec = X.ndim == 1
        X2 = X.reshape(-1, 1) if vec else X
        self._check_rows(X2, self.n_features, "X")
        out = self._stack(dot_block, self._weights(X2))
        out *= math.sqrt(self._c2)
        return out[:, 0] if vec else out

    def rdot(self, Y):
        Y = np.asarray(Y, dtype=float)
        vec = Y.ndim == 1
        Y2 = Y.reshape(-1, 1) if vec else Y
        self._check_rows(Y2, self.n_samples, "Y")
        delayed = self._dask.delayed
        bounds = np.concatenate([[0], np.cumsum(self.row_chunks)])

        def build():
            ctx = self._ctx()
            parts = [delayed(rdot_block, pure=True)(
                         b, self._put(np.ascontiguousarray(Y2[bounds[i]:bounds[i + 1]])), ctx)
                     for i, b in enumerate(self._blocks)]
            return [self._tree(parts, sum_parts)]

        out = self._run(build)
        out = out / self.scale_[:, None] * math.sqrt(self._c2)
        return out[:, 0] if vec else out

    def block(self, idx):
        idx = self._check_idx(idx)
        G = self._reduce(gram_block, idx) * self._c2
        if self.center and self.sparse_chunks:
            mi = self.mean_[idx]
            G -= np.outer(mi, mi)
        sd = self.scale_[idx]
        G = G / np.outer(sd, sd)
        return 0.5 * (G + G.T)

    def data_columns(self, idx) -> np.ndarray:
        """Dense columns of A for the features ``idx``, shape (n_samples, len(idx))."""
        idx = self._check_idx(idx)
        cols = self._stack(data_columns_block, idx)
        return cols / self.scale_[idx] * math.sqrt(self._c2)

    def restrict(self, idx):
        idx = self._check_idx(idx)
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._cols = idx if self._cols is None else self._cols[idx]
        new.mean_, new.scale_, new._diag = self.mean_[idx], self.scale_[idx], self._diag[idx]
        new.n_features = int(idx.size)
        new._ctx_cache = None
        return new

    def factor(self):
        return self

    def compute_dense(self) -> np.ndarray:
        """X (restricted to this operator's features) as a dense NumPy array: for tests."""
        X = self._X if self._cols is None else self._X[:, self._cols]
        X = X.map_blocks(lambda b: b.toarray() if sp.issparse(b) else b, dtype=np.float64,
                         meta=np.empty((0, 0)))
        return np.asarray(self._compute(X))

    # -- checks -------------------------------------------------------------
    def _check_rows(self, V, rows, name):
        if V.ndim != 2 or V.shape[0] != rows:
            raise InvalidParameterError(
                f"parameter {name!r} must have {rows} rows for this {self.kind}; got shape {V.shape}.")

    def _check_idx(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        if idx.ndim != 1 or (idx.size and (idx.min() < 0 or idx.max() >= self.n_features)):
            raise InvalidParameterError(
                f"parameter 'idx' must be indices in [0, {self.n_features}); got {idx!r}.")
        return idx

    def __repr__(self) -> str:
        where = "local scheduler" if self.client is None else f"client {self.client.scheduler.address}"
        fmt = "scipy.sparse" if self.sparse_chunks else "dense"
        return (f"<DaskData p={self.n_features} n={self.n_samples} blocks={len(self._blocks)} "
                f"{fmt} chunks, {where}>")
