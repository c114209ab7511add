"""Talking to a Dask cluster: importing dask lazily, connecting to a scheduler with an
enforced timeout, resolving the client to use, and putting in-memory rows on the workers.

Nothing here computes on the data; :mod:`.kernels` holds the per-block functions and
:mod:`.operator` the :class:`~.operator.DaskData` operator that runs them.
"""
from __future__ import annotations

import math
import socket
from urllib.parse import urlsplit

import numpy as np
import scipy.sparse as sp

from numbers import Real

from ..._validation import Interval, IntInterval, InvalidParameterError, validate_params

__all__ = ["DaskComputeError", "connect", "is_dask_array", "scatter_rows", "resolve_client",
           "import_dask", "wrap_block"]

_SCHEMES = ("tcp", "tls", "inproc", "ws", "wss", "ucx")


class DaskComputeError(RuntimeError):
    """A graph computation of a :class:`DaskData` operator failed on the cluster
    (e.g. data without lineage lost with a worker).

    Examples
    --------
    >>> from eigensparse.operators.dask import DaskComputeError
    >>> issubclass(DaskComputeError, RuntimeError)  # a failed computation, not bad input
    True
    """


def import_dask():
    """``(dask, dask.array)``, or a clear error naming the ``dask`` extra when missing.

    Examples
    --------
    >>> import dask  # the dask extra (without it: a clear InvalidParameterError)
    >>> from eigensparse.operators.dask.client import import_dask
    >>> dask, da = import_dask()
    >>> da.__name__
    'dask.array'
    """
    try:
        import dask
        import dask.array as da
    except ImportError as exc:  # pragma: no cover - exercised without dask only
        raise InvalidParameterError(
            "Dask input needs the optional dependency dask: pip install 'eigensparse[dask]'."
        ) from exc
    return dask, da


def is_dask_array(x) -> bool:
    """True for a ``dask.array.Array`` (without importing dask when it is not loaded).

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from eigensparse.operators.dask import is_dask_array
    >>> is_dask_array(da.zeros((4, 2), chunks=2)), is_dask_array(np.zeros((4, 2)))
    (True, False)
    """
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


@validate_params({"timeout": [Interval(Real, 0, None, closed="neither")]})
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

    Examples
    --------
    >>> import distributed  # the dask extra
    >>> from eigensparse.operators.dask import connect
    >>> try:
    ...     connect("tcp://127.0.0.1:1", timeout=2)  # nothing listens there: fails at once
    ... except ValueError as err:
    ...     print(type(err).__name__)
    InvalidParameterError
    """
    if not math.isfinite(timeout):
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


def resolve_client(client):
    """A Client, an address (connected with :func:`connect`), or None (the default client
    when one is registered, else the local scheduler).

    Examples
    --------
    >>> import distributed  # the dask extra
    >>> from eigensparse.operators.dask import resolve_client
    >>> resolve_client(None) is None  # no default client registered: the local scheduler
    True
    """
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
# in-memory data onto the cluster, block by block
# ---------------------------------------------------------------------------
@validate_params({"rows_per_block": [None, IntInterval(1, None, closed="left")]})
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

    Examples
    --------
    >>> import numpy as np
    >>> import dask
    >>> from eigensparse.operators.dask import scatter_rows
    >>> X = np.arange(12.0).reshape(6, 2)
    >>> D = scatter_rows(X, rows_per_block=4)  # no client: in-process blocks
    >>> D.chunks[0], bool((D.compute() == X).all())
    ((4, 2), True)
    """
    dask, da = import_dask()
    client = resolve_client(client)
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
    blocks = []
    for start in range(0, max(n, 1), rows_per_block):
        part = X[start:start + rows_per_block]
        blocks.append(wrap_block(dask, da, client, part, meta, lineage))
    return da.concatenate(blocks, axis=0)


def _identity(x):
    return x


def wrap_block(dask, da, client, part, meta, lineage):
    """One in-memory block as a Dask block: scattered to the workers (a client, no
    lineage) or a task of the graph holding the data (recomputable).

    Examples
    --------
    >>> import numpy as np
    >>> import dask  # the dask extra
    >>> from eigensparse.operators.dask.client import import_dask, wrap_block
    >>> dask, da = import_dask()
    >>> part = np.ones((3, 2))
    >>> block = wrap_block(dask, da, None, part, np.empty((0, 2)), lineage=True)
    >>> block.shape, float(block.sum().compute())
    ((3, 2), 6.0)
    """
    if client is not None and not lineage:
        handle = dask.delayed(client.scatter(part, hash=False))
    else:
        handle = dask.delayed(_identity, pure=False)(part)
    return da.from_delayed(handle, shape=part.shape, dtype=part.dtype, meta=meta)
