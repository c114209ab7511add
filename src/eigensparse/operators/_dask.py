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
import socket
import uuid
from urllib.parse import urlsplit

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError, check_data_shape
from ._base import Operator, _as_2d
from ._dense import scale_from_variance

__all__ = ["DaskData", "DaskComputeError", "connect", "is_dask_array", "from_uci_chunks",
           "scatter_rows"]

#: arguments larger than this (bytes) are scattered to the workers instead of being
#: embedded in the task graph (distributed warns about graphs over 10 MB); embedded
#: arguments survive the loss of a worker, scattered ones are re-sent (one retry)
_SCATTER_BYTES = 8 << 20
#: partial results are added in groups of this many (a fixed tree: deterministic sums)
_FAN_IN = 8
_SCHEMES = ("tcp", "tls", "inproc", "ws", "wss", "ucx")


class DaskComputeError(RuntimeError):
    """A graph computation of a :class:`DaskData` operator failed on the cluster
    (e.g. data without lineage lost with a worker)."""


def _import_dask():
    try:
        import dask
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - exercised without dask only
        raise InvalidParameterError(
            "Dask input needs the optional dependency dask: pip install 'eigensparse[dask]'."
        ) from exc
    return dask, da


def is_dask_array(x) -> bool:
    """True for a ``dask.array.Array`` (without importing dask when it is not loaded)."""
    import sys

    if "dask.array" not in sys.modules:
        return False
    import dask.array as da

    return isinstance(x, da.Array)


# ---------------------------------------------------------------------------
# connecting to a scheduler
# ---------------------------------------------------------------------------
def _split_address(address: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a scheduler address, or a clear error."""
    if not isinstance(address, str) or not address.strip():
        raise InvalidParameterError(
            f"parameter 'address' must be a scheduler address such as 'tcp://127.0.0.1:8786'; "
            f"got {address!r}.")
    text = address.strip()
    if "://" not in text:
        text = "tcp://" + text
    scheme = text.split("://", 1)[0].lower()
    if scheme not in _SCHEMES:
        raise InvalidParameterError(
            f"parameter 'address' has an unknown protocol {scheme!r} ({address!r}); expected one of "
            f"{list(_SCHEMES)}, e.g. 'tcp://127.0.0.1:8786'.")
    if scheme == "inproc":
        return scheme, text, None
    try:
        parts = urlsplit(text)
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise InvalidParameterError(
            f"parameter 'address' is not a valid scheduler address: {address!r} ({exc}).") from None
    if not host or port is None:
        raise InvalidParameterError(
            f"parameter 'address' must name a host and a port, e.g. 'tcp://127.0.0.1:8786'; "
            f"got {address!r}.")
    return scheme, host, port


def connect(address: str, *, timeout: float = 10.0):
    """A ``dask.distributed.Client`` on the scheduler at ``address``, or a clear error.

    The host and port are first probed with a plain TCP connection (refused or
    unreachable addresses fail at once); then the client handshake is given
    ``timeout`` seconds. Any failure raises :class:`InvalidParameterError` naming the
    address; nothing waits longer than about ``timeout`` seconds.

    Parameters
    ----------
    address : str
        ``tcp://HOST:PORT`` (``HOST:PORT`` means tcp), ``tls://...``, ``ws://...``.
    timeout : float, default=10
        Seconds allowed for reaching the scheduler.
    """
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0 \
            or not math.isfinite(timeout):
        raise InvalidParameterError(f"parameter 'timeout' must be a positive number of seconds; got {timeout!r}.")
    scheme, host, port = _split_address(address)
    try:
        from distributed import Client
    except ImportError as exc:
        raise InvalidParameterError(
            "a scheduler address needs the optional dependency dask.distributed: "
            "pip install 'eigensparse[dask]'.") from exc
    if scheme in ("tcp", "tls", "ws", "wss"):
        try:
            with socket.create_connection((host, port), timeout=timeout):
                pass
        except OSError as exc:
            raise InvalidParameterError(
                f"cannot reach the Dask scheduler at {address!r}: {exc.strerror or exc} "
                f"(is `dask scheduler` running there, and is the port open?).") from None
    target = address if "://" in address else f"tcp://{address.strip()}"
    try:
        return Client(target, timeout=timeout, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - whatever the handshake raised
        raise InvalidParameterError(
            f"could not connect to the Dask scheduler at {address!r} within {timeout:g} s: "
            f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")
        ) from None


def _resolve_client(client):
    """A Client, an address (connected with :func:`connect`), or None (the default client
    when one is registered, else the local scheduler)."""
    if client is None:
        try:
            from distributed import default_client
        except ImportError:
            return None
        try:
            return default_client()
        except ValueError:
            return None
    if isinstance(client, str):
        return connect(client)
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover
        Client = ()
    if not isinstance(client, Client):
        raise InvalidParameterError(
            f"parameter 'client' must be a dask.distributed.Client, a scheduler address or None; "
            f"got {type(client).__name__}.")
    if client.status in ("closed", "closing"):
        raise InvalidParameterError("parameter 'client' is closed; pass an open dask.distributed.Client.")
    return client


# ---------------------------------------------------------------------------
# block kernels (module level: picklable, run on the workers)
# ---------------------------------------------------------------------------
def _prepare_block(b):
    """float64 CSR for sparse blocks, C-contiguous float64 for dense ones."""
    if sp.issparse(b):
        b = sp.csr_matrix(b, dtype=np.float64)
        b.sum_duplicates()
        return b
    return np.ascontiguousarray(np.asarray(b, dtype=np.float64))


class _Ctx:
    """What every block kernel needs besides its block: the column selection of a
    restricted view (or None) and the mean to subtract (or None)."""

    __slots__ = ("cols", "mu")

    def __init__(self, cols, mu):
        self.cols, self.mu = cols, mu

    @property
    def nbytes(self):
        return sum(getattr(a, "nbytes", 0) for a in (self.cols, self.mu))

    def __iter__(self):  # unpacking: cols, mu, _ = ctx
        return iter((self.cols, self.mu, None))

    def __reduce__(self):
        return (_Ctx, (self.cols, self.mu))


def _select(b, cols):
    return b if cols is None else b[:, cols]


def _stats_block(b):
    """(rows, column sums, centered column sums of squares, non-finite count)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return _stats_block_raw(b)


def _stats_block_raw(b):
    n = b.shape[0]
    if sp.issparse(b):
        s = np.asarray(b.sum(axis=0)).ravel()
        sq = np.asarray(b.multiply(b).sum(axis=0)).ravel()
        m2 = sq - s * s / n if n else sq
        bad = int(np.count_nonzero(~np.isfinite(b.data)))
    else:
        s = b.sum(axis=0)
        if n:
            d = b - s / n
            m2 = np.einsum("ij,ij->j", d, d)
        else:
            m2 = np.zeros(b.shape[1])
        bad = int(np.count_nonzero(~np.isfinite(b)))
    return n, s, np.maximum(m2, 0.0), bad


def _stats_combine(parts):
    """Chan et al.'s pairwise update, in the given (fixed) order."""
    n, s, m2, bad = parts[0]
    m2 = m2.copy()
    s = s.copy()
    for nb, sb, m2b, badb in parts[1:]:
        if nb == 0:
            bad += badb
            continue
        if n > 0:
            delta = sb / nb - s / n
            m2 += m2b + delta * delta * (n * nb / (n + nb))
        else:
            m2 = m2b.copy()
        s += sb
        n += nb
        bad += badb
    return n, s, m2, bad


def _centered_product(b, W, mu):
    """(X_b − 1μᵀ)·W, shape (rows, k); sparse blocks are never densified."""
    if sp.issparse(b):
        Y = b @ W
        return Y - (mu @ W) if mu is not None else Y
    if mu is not None:
        return (b - mu) @ W
    return b @ W


def _matmat_block(b, W, ctx):
    cols, mu, _ = ctx
    b = _select(b, cols)
    Y = _centered_product(b, W, mu)
    if sp.issparse(b):
        out = b.T @ Y
        if mu is not None:
            out -= np.outer(mu, Y.sum(axis=0))
        return out
    return ((b - mu) if mu is not None else b).T @ Y


def _quad_block(b, W, ctx):
    cols, mu, _ = ctx
    Y = _centered_product(_select(b, cols), W, mu)
    return np.einsum("ij,ij->j", Y, Y)


def _dot_block(b, W, ctx):
    cols, mu, _ = ctx
    return _centered_product(_select(b, cols), W, mu)


def _rdot_block(b, Y, ctx):
    cols, mu, _ = ctx
    b = _select(b, cols)
    if sp.issparse(b):
        out = np.asarray(b.T @ Y)
        if mu is not None:
            out -= np.outer(mu, Y.sum(axis=0))
        return out
    return ((b - mu) if mu is not None else b).T @ Y


def _gram_block(b, idx, ctx):
    """Raw Gram block X_Iᵀ X_I (sparse: densified |I| × |I|) and the column sums of X_I."""
    cols, mu, _ = ctx
    sel = idx if cols is None else cols[idx]
    Xi = b[:, sel]
    if sp.issparse(Xi):
        return np.asarray((Xi.T @ Xi).toarray())
    if mu is not None:
        Xi = Xi - mu[idx]
    return Xi.T @ Xi


def _data_columns_block(b, idx, ctx):
    cols, mu, _ = ctx
    sel = idx if cols is None else cols[idx]
    Xi = b[:, sel]
    Xi = Xi.toarray() if sp.issparse(Xi) else np.array(Xi)
    if mu is not None:
        Xi = Xi - mu[idx]
    return Xi


def _sum_parts(*parts):
    out = np.array(parts[0], dtype=np.float64, copy=True)
    for q in parts[1:]:
        out += q
    return out


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
    """

    has_data = True
    kind = "Dask data operator"

    def __init__(self, X, *, center: bool = True, scale: bool = False, client=None,
                 persist: bool = True):
        dask, da = _import_dask()
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
        self.client = _resolve_client(client)
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        meta = getattr(X, "_meta", None)
        self.sparse_chunks = bool(sp.issparse(meta))
        # the unpersisted array holds the futures of scattered sources: keeping it keeps
        # them (and so the lineage of the persisted blocks) alive as long as the operator
        self._source = X
        X = X.map_blocks(_prepare_block, dtype=np.float64, meta=meta if self.sparse_chunks else None)
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
        parts = [delayed(_stats_block, pure=True)(b) for b in self._blocks]
        total = self._tree(parts, _stats_combine_star)
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
            self._ctx_cache = self._dask.delayed(_Ctx(self._cols, mu),
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
                               _sum_parts)]

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
        out = self._reduce(_matmat_block, self._weights(V))
        return out / self.scale_[:, None] * self._c2

    def quad(self, V):
        V = np.asarray(V, dtype=float)
        vec = V.ndim == 1
        V2 = V.reshape(-1, 1) if vec else V
        self._check_rows(V2, self.n_features, "V")
        q = self._reduce(_quad_block, self._weights(V2)) * self._c2
        return float(q[0]) if vec else q

    def dot(self, X):
        X = np.asarray(X, dtype=float)
        vec = X.ndim == 1
        X2 = X.reshape(-1, 1) if vec else X
        self._check_rows(X2, self.n_features, "X")
        out = self._stack(_dot_block, self._weights(X2))
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
            parts = [delayed(_rdot_block, pure=True)(
                         b, self._put(np.ascontiguousarray(Y2[bounds[i]:bounds[i + 1]])), ctx)
                     for i, b in enumerate(self._blocks)]
            return [self._tree(parts, _sum_parts)]

        out = self._run(build)
        out = out / self.scale_[:, None] * math.sqrt(self._c2)
        return out[:, 0] if vec else out

    def block(self, idx):
        idx = self._check_idx(idx)
        G = self._reduce(_gram_block, idx) * self._c2
        if self.center and self.sparse_chunks:
            mi = self.mean_[idx]
            G -= np.outer(mi, mi)
        sd = self.scale_[idx]
        G = G / np.outer(sd, sd)
        return 0.5 * (G + G.T)

    def data_columns(self, idx) -> np.ndarray:
        """Dense columns of A for the features ``idx``, shape (n_samples, len(idx))."""
        idx = self._check_idx(idx)
        cols = self._stack(_data_columns_block, idx)
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


def _stats_combine_star(*parts):
    return _stats_combine(list(parts))


# ---------------------------------------------------------------------------
# in-memory data onto the cluster, block by block
# ---------------------------------------------------------------------------
def scatter_rows(X, *, client=None, rows_per_block: int | None = None, lineage: bool = False):
    """A row-chunked Dask array of an in-memory matrix whose blocks live on the workers.

    ``da.from_array`` embeds the whole matrix in the task graph (distributed then warns
    about a large graph and ships it through the scheduler); here each row block is
    scattered to a worker directly and wrapped as a Dask block of known size.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features)
    client : dask.distributed.Client, str or None
        None: the default client if one is registered, else plain in-process blocks.
    rows_per_block : int, optional
        Default: enough blocks for about 4 per worker (at least 1000 rows each).
    lineage : bool, default=False
        False: blocks are scattered straight to the workers (nothing stays on the
        scheduler); scattered data cannot be recomputed, so if a worker dies its blocks
        are lost and the next product raises :class:`DaskComputeError`. True: each block
        is a task of the graph holding its data (like ``da.from_array``): the scheduler
        keeps a copy and recomputes blocks lost with a worker, so a fit survives the
        death of workers.
    """
    dask, da = _import_dask()
    client = _resolve_client(client)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        meta = sp.csr_matrix((0, X.shape[1]), dtype=X.dtype)
    else:
        X = np.asarray(X)
        meta = np.empty((0, X.shape[1]) if X.ndim == 2 else (0,), dtype=X.dtype)
    if X.ndim != 2:
        raise InvalidParameterError(
            f"parameter 'X' must be 2-D (n_samples, n_features); got shape {X.shape}.")
    n = X.shape[0]
    if rows_per_block is None:
        workers = len(client.scheduler_info().get("workers", {})) if client is not None else 1
        rows_per_block = max(1000, -(-n // max(4 * workers, 1)))
    if isinstance(rows_per_block, bool) or not isinstance(rows_per_block, (int, np.integer)) \
            or rows_per_block < 1:
        raise InvalidParameterError(
            f"parameter 'rows_per_block' must be a positive int; got {rows_per_block!r}.")
    blocks = []
    for start in range(0, max(n, 1), rows_per_block):
        part = X[start:start + rows_per_block]
        blocks.append(_wrap_block(dask, da, client, part, meta, lineage))
    return da.concatenate(blocks, axis=0)


def _identity(x):
    return x


def _wrap_block(dask, da, client, part, meta, lineage):
    """One in-memory block as a Dask block: scattered to the workers (a client, no
    lineage) or a task of the graph holding the data (recomputable)."""
    if client is not None and not lineage:
        handle = dask.delayed(client.scatter(part, hash=False))
    else:
        handle = dask.delayed(_identity, pure=False)(part)
    return da.from_delayed(handle, shape=part.shape, dtype=part.dtype, meta=meta)


# ---------------------------------------------------------------------------
# the text pipeline's chunks as Dask blocks
# ---------------------------------------------------------------------------
def from_uci_chunks(docword, *, client=None, chunk_nnz: int | None = None, lineage: bool = False):
    """A Dask array (CSR chunks, known sizes) from a UCI docword file, read in chunks.

    The file is streamed once on the client (gzip cannot be read at random) with
    :func:`eigensparse.io.iter_uci_chunks`; each chunk of whole documents becomes a
    CSR block that is scattered to the workers straight away when a distributed
    ``client`` is given, so the client holds one chunk at a time.

    Returns
    -------
    dask.array.Array of shape (n_docs, n_words), float64, scipy.sparse CSR chunks.
    """
    dask, da = _import_dask()
    from ..io import DEFAULT_CHUNK_NNZ, iter_uci_chunks, read_uci_header

    client = _resolve_client(client)
    header = read_uci_header(docword)
    n, p = header.n_docs, header.n_words
    blocks, sizes, start = [], [], 0
    meta = sp.csr_matrix((0, p), dtype=np.float64)

    def add(block):
        blocks.append(_wrap_block(dask, da, client, block, meta, lineage))
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
