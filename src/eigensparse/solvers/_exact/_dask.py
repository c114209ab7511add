"""``exact(..., backend="dask")``: the subtrees of the branch and bound on a Dask cluster.

:class:`DaskNodePool` is the :class:`._search.SubtreePool` of a ``dask.distributed``
client: Σ (with s, tol and the clipping weights) is scattered once to every worker; a
task expands one open node on the worker's own :class:`._search.Search`, built the first
time a worker thread meets the problem and kept for the next tasks (keyed by a token of
the problem, per thread: a worker with several threads runs several subtrees at once).
Nodes, incumbents and counters travel as in the process pool, and the results are merged
in the order of the roots, so the result does not depend on which worker ran what.

Dask is an optional extra: this module imports ``distributed`` only when a pool is made.
"""
from __future__ import annotations

import math
import threading
import uuid
from contextlib import contextmanager

import numpy as np

from ..._validation import InvalidParameterError
from ...operators.dask.client import resolve_client
from ._search import Search, SubtreePool, expand_subtree

__all__ = ["DaskNodePool", "dask_client", "cluster_threads"]

#: seconds a batch may run past the search's deadline before its roots are taken back
#: unexpanded (a cluster that lost its workers stops the search instead of hanging it)
ANSWER_GRACE = 30.0
#: problems whose Search a worker thread keeps at most (the oldest is dropped first)
KEEP_PROBLEMS = 2

# per worker process: {(token, thread id): Search}, and the BLAS-limit nesting count
_SEARCHES: dict = {}
_LOCK = threading.Lock()
_BLAS = {"depth": 0, "limits": None}


def dask_client(client):
    """``(client, owned)`` for ``backend="dask"``: ``client`` resolved by
    :func:`eigensparse.operators.dask.resolve_client` (a Client; an address, connected
    here and ``owned``: the caller closes it; None: the default client), or a clear
    error when distributed is missing or no cluster is given."""
    try:
        import distributed  # noqa: F401
    except ImportError as exc:
        raise InvalidParameterError(
            "parameter 'backend'='dask' needs the optional dependency dask.distributed: "
            "pip install 'eigensparse[dask]'.") from exc
    try:
        resolved = resolve_client(client)
    except InvalidParameterError as exc:
        if isinstance(client, str):  # the address is the exact solver's 'client'
            raise InvalidParameterError(f"parameter 'client'={client!r}: {exc}") from None
        raise
    if resolved is None:
        raise InvalidParameterError(
            "parameter 'backend'='dask' needs a Dask cluster: pass client= (a "
            "dask.distributed.Client or a scheduler address such as 'tcp://HOST:8786'), or "
            "start a distributed.Client first (it becomes the default client).")
    return resolved, isinstance(client, str)


def cluster_threads(client) -> int:
    """The number of worker threads of the cluster (0 while it has no worker)."""
    return int(sum(client.nthreads().values()))


@contextmanager
def _one_blas_thread():
    """One BLAS thread while a subtree runs (small blocks are many times faster so).
    Nested across the threads of a worker: the first task in sets the limit, the last
    one out restores the worker's own setting."""
    from threadpoolctl import threadpool_limits

    with _LOCK:
        if _BLAS["depth"] == 0:
            _BLAS["limits"] = threadpool_limits(limits=1)
        _BLAS["depth"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _BLAS["depth"] -= 1
            if _BLAS["depth"] == 0:
                _BLAS["limits"].restore_original_limits()
                _BLAS["limits"] = None


def _worker_search(problem) -> Search:
    """This worker thread's :class:`Search` on ``problem`` = (token, Σ, s, tol, scale, U),
    built once and kept for the next subtrees of the same problem."""
    token, S, s, tol, scale, U = problem
    key = (token, threading.get_ident())
    with _LOCK:
        ws = _SEARCHES.get(key)
    if ws is None:
        ws = Search(S, s, -np.inf, np.zeros(0, dtype=np.intp), tol, scale, U)
        with _LOCK:
            mine = [k for k in _SEARCHES if k[1] == key[1]]
            for old in mine[:max(len(mine) - KEEP_PROBLEMS + 1, 0)]:
                del _SEARCHES[old]  # dicts keep insertion order: the oldest first
            _SEARCHES[key] = ws
    return ws


def _dask_subtree(problem, args):
    """On a worker: :func:`._search.expand_subtree` of ``args`` on this thread's Search
    of the scattered ``problem``."""
    ws = _worker_search(problem)
    with _one_blas_thread():
        return expand_subtree(ws, args)


def _forget(token):
    """On a worker: drop the Searches of the problem ``token`` (the pool is done)."""
    with _LOCK:
        for key in [k for k in _SEARCHES if k[0] == token]:
            del _SEARCHES[key]
    return len(_SEARCHES)


class DaskNodePool(SubtreePool):
    """Expands subtrees of the search as tasks on a Dask cluster.

    Σ, s, tol and the clipping weights are scattered once to every worker, at the first
    batch (``client.scatter(..., broadcast=True)``); each task carries one open node and
    the incumbent of the batch's start and returns what :func:`._search.expand_subtree`
    returns (small arrays and floats). Batches, incumbent exchange and determinism: see
    :class:`._search.SubtreePool`. A batch whose tasks do not come back within
    ``ANSWER_GRACE`` seconds past the deadline is cancelled and its roots stay open.

    Parameters
    ----------
    search : Search
        The search (its Σ, s, tol and ``scale`` are the problem sent).
    workers : int
        Subtrees in flight (``subtrees_per_batch = 2 * workers``).
    client : distributed.Client
    nodes_per_subtree : int, default=64
    """

    def __init__(self, search: Search, workers: int, client, nodes_per_subtree: int = 64):
        self.client = client
        self.workers = int(workers)
        self.subtrees_per_batch = 2 * self.workers
        self.nodes_per_subtree = int(nodes_per_subtree)
        self.token = uuid.uuid4().hex
        self._sent = (self.token, search.S, search.s, search.tol, search.scale, search.U)
        self._problem = None  # scattered at the first batch: a closed tree costs nothing

    def _map(self, args, left):
        import distributed

        if self._problem is None:
            # a list of one: the tuple travels as one object, to every worker
            self._problem = self.client.scatter([self._sent], broadcast=True, hash=False)[0]
        futures = self.client.map(_dask_subtree, [self._problem] * len(args), args, pure=False)
        wait = max(left, 0.0) + ANSWER_GRACE if math.isfinite(left) else None
        try:
            with self.client.as_current():
                distributed.wait(futures, timeout=wait)
        except distributed.TimeoutError:
            self.client.cancel(futures)
            return None
        return self.client.gather(futures)

    def shutdown(self):
        problem, self._problem = self._problem, None
        if problem is None:
            return
        try:
            self.client.run(_forget, self.token, on_error="ignore")
        except Exception:  # noqa: BLE001 - best effort: the client may be closing
            pass
        self.client.cancel([problem])
