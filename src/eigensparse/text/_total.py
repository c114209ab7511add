"""The bound on the total of disjoint topics, computed on a second thread while the topics
are solved.

:func:`~eigensparse.bounds.total_upper_bound` over every word (the working set's
covariance held densely, the words left out by their variances) needs neither the topics
nor their words: it is computed from the working set as loaded, alongside the solve, and
the result takes it instead of computing it after the solve (as
:func:`~eigensparse._dispatch.assemble` otherwise does, with the topics found as the
target of its steps). Its dense solves and the solve's run on one BLAS thread each
(threadpoolctl's limit is process-wide: it is held over the whole section, so that the
two threads' own nested limits never undo it). A working set enlarged during the solve
(another operator) or a failure leaves the bound to ``assemble``.
"""
from __future__ import annotations

import threading

import numpy as np

from .._validation import trusted
from ..bounds._common import one_blas_thread


def _applies(plan) -> bool:
    """The plans whose result carries a bound on the total (as in ``assemble``)."""
    return bool((plan.joint or plan.deflation == "disjoint") and plan.auto is None
                and plan.penalty is None and plan.cardinalities
                and all(c is not None for c in plan.cardinalities))


class TotalBoundAlongside:
    """``with TotalBoundAlongside(wset, plan) as total: <solve>``, then
    ``total.bound(wset)``: the bound (float) or None (not computed here)."""

    def __init__(self, wset, plan):
        self.plan, self.op = plan, wset.op
        self.value, self.thread, self._blas = None, None, None
        if wset.device is None and _applies(plan):
            left_out = np.ones(wset.W, dtype=bool)
            left_out[wset.ws] = False
            self.outside = wset.var[left_out]

    def _run(self):
        from ..bounds import total_upper_bound

        try:
            with trusted():  # a checked plan's cardinalities (a new thread's own context)
                self.value = float(total_upper_bound(self.op, self.plan.cardinalities,
                                                     outside=self.outside))
        except Exception:  # noqa: BLE001 - left to assemble, which raises it if it must
            self.value = None

    def __enter__(self):
        if hasattr(self, "outside"):
            self._blas = one_blas_thread()
            self._blas.__enter__()
            self.thread = threading.Thread(target=self._run, name="eigensparse-total-bound",
                                           daemon=True)
            self.thread.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        if self.thread is not None:
            if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
                self.value = None  # interrupted: no wait (the thread is a daemon)
            else:
                self.thread.join()
            self._blas.__exit__(exc_type, exc, tb)
        return False

    def bound(self, wset):
        """The bound, when computed on the working set the topics were solved on."""
        return self.value if wset.op is self.op else None
