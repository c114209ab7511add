"""Each component's time: one clock shared by every solve of a component."""
from __future__ import annotations

import time

__all__ = ["ComponentBudget"]


class ComponentBudget:
    """Each component's time: ``max_time`` seconds of solving, shared by every solve of
    the component (its solve in the deflation chain and the refinement's re-solves; for a
    topic also its solves on a growing working set), so that k components take about
    k·``max_time`` in all.

    Examples
    --------
    >>> from eigensparse._budget import ComponentBudget
    >>> b = ComponentBudget(5.0)
    >>> b.start(0); 4.9 < b.left(0) <= 5.0
    True
    >>> b.stop(0); sorted(b.used)
    [0]
    """

    #: the least time a solve is given once the component's time is spent (it returns
    #: its first answer)
    FLOOR = 1e-3

    def __init__(self, max_time: float):
        self.max_time = float(max_time)
        self.used: dict = {}
        self._since: dict = {}

    def start(self, t: int) -> None:
        """A solve of component t begins (its time runs)."""
        self._since[t] = time.perf_counter()

    def stop(self, t: int) -> None:
        """The solve of component t ended: its time is charged to the component."""
        since = self._since.pop(t, None)
        if since is not None:
            self.used[t] = self.used.get(t, 0.0) + time.perf_counter() - since

    def left(self, t: int) -> float:
        """Seconds left to component t (at least :attr:`FLOOR`)."""
        since = self._since.get(t)
        running = 0.0 if since is None else time.perf_counter() - since
        return max(self.max_time - self.used.get(t, 0.0) - running, self.FLOOR)
