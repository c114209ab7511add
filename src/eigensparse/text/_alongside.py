"""The topics' bounds over the whole vocabulary, computed on the other threads while the
chain of topics goes on.

A chain topic's cheap bound (:func:`~eigensparse.text._topic_bound.vocabulary_bound`
without the certificate: the solver's bound on the working set, the vocabulary split, the
soft-threshold dual) is not needed to solve the next topic, except where the working set
may grow for a topic's floor (:func:`~eigensparse.text._certify.floor_growth`: a corpus
whose pass 2 is cheap), where the chain computes none (only the floor decides there), and
the final topics' bounds and certificates (the pipeline's ``_checked``) are independent of
each other. :class:`BoundsAlongside` computes each on a
pool of ``n_jobs`` threads (the bounds' compiled kernels and LAPACK release the GIL), and
the topic carries it as a pending bound (:func:`eigensparse._result.defer_bound`) that
waits for its thread on first read: the bounds of the five topics of a large corpus run
on both cores instead of one after the other. The numbers are the same: the same
computation on the same arrays, each task in the context it was submitted from (its
parameter checks trusted as there), and BLAS on one thread (threadpoolctl's limit is
process-wide: it is held over the whole section, as
:class:`~eigensparse.text._total.TotalBoundAlongside` does). Leaving the section waits
for every task, so none outlives the solve.
"""
from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor

from .._result import defer_bound, with_info
from ..bounds._common import one_blas_thread

__all__ = ["BoundsAlongside", "POOL_MAX_WORDS"]

#: a task on the pool holds several working-set-sized arrays (m × m float64: the deflated
#: covariance, the bounds' work arrays) beside those of the main thread; above this many
#: words the tasks run in line, so that running them side by side does not multiply the
#: peak memory (the measurements are in docs/developer/performance.rst)
POOL_MAX_WORDS = 1500


class BoundsAlongside:
    """``with BoundsAlongside(n_jobs) as alongside: ... alongside.defer(r, compute)``:
    ``compute()`` (the result ``r`` with its bound) on a pool of ``n_jobs`` threads, or at
    once with ``n_jobs`` 1.

    Examples
    --------
    >>> import numpy as np
    >>> from dataclasses import replace
    >>> from eigensparse import Covariance, sparse_pca
    >>> from eigensparse.text._alongside import BoundsAlongside
    >>> S = Covariance(np.diag([3.0, 2.0, 1.0]))
    >>> r = sparse_pca(S, n_components=1, cardinality=1).results[0]
    >>> with BoundsAlongside(2) as alongside:
    ...     out = alongside.defer(r, lambda: replace(r, upper_bound=3.5, gap=0.5))
    >>> float(out.upper_bound), float(out.gap), out.support.tolist()
    (3.5, 0.5, [0])
    """

    def __init__(self, n_jobs: int | None):
        self.n_jobs = max(1, int(n_jobs or 1))
        self.pool, self._blas = None, None

    def __enter__(self):
        if self.n_jobs > 1:
            self._blas = one_blas_thread()
            self._blas.__enter__()
            self.pool = ThreadPoolExecutor(max_workers=self.n_jobs,
                                           thread_name_prefix="eigensparse-topic-bound")
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.pool is not None:
            interrupted = exc_type is not None and issubclass(exc_type, KeyboardInterrupt)
            self.pool.shutdown(wait=not interrupted, cancel_futures=interrupted)
            self._blas.__exit__(exc_type, exc, tb)
        return False

    def defer(self, result, compute, words: int = 0):
        """``compute()`` (no arguments: ``result`` with its ``upper_bound``, ``gap`` and
        ``info``) on the pool, and ``result`` with that bound pending (a copy: ``result``
        itself, and a bound it holds pending, are the task's); ``compute()`` itself
        outside the section, with one thread, or for a working set of more than
        :data:`POOL_MAX_WORDS` ``words``."""
        if self.pool is None or words > POOL_MAX_WORDS:
            return compute()
        future = self.pool.submit(contextvars.copy_context().run, compute)

        def bound():
            done = future.result()
            return done.upper_bound, dict(done.info or {})

        return defer_bound(with_info(result, {"support": result.support}), bound)
