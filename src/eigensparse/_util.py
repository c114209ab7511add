"""Small helpers shared across layers: the seed drawn from a ``random_state``, and the
time limit of a call.

Every randomised step that hands a seed to another routine (a refit, a worker, a
scikit-learn splitter) draws it here, so the same ``random_state`` gives the same seeds
everywhere. Every ``max_time`` of one call is a :class:`Deadline` (a component's time
shared by several calls is :class:`eigensparse._budget.ComponentBudget`).
"""
from __future__ import annotations

import functools
import math
import time

import numpy as np

__all__ = ["SEED_HIGH", "rng_or", "draw_seed", "int_seeds", "Deadline"]

#: seeds are drawn in [0, SEED_HIGH): the int32 range every consumer accepts
SEED_HIGH = 2**31 - 1


def rng_or(random_state):
    """``random_state`` itself when it is a numpy Generator or RandomState, else
    ``np.random.default_rng(random_state)`` (None or an int; not validated here: the
    front doors check ``random_state`` with ``check_random_state``)."""
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return random_state
    return np.random.default_rng(random_state)


def draw_seed(random_state, size=None):
    """One seed (an int) in [0, :data:`SEED_HIGH`), or an int64 array of ``size`` seeds,
    drawn from ``random_state`` (a Generator or RandomState draws from its stream; None or
    an int seeds a fresh Generator, :func:`rng_or`).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._util import draw_seed
    >>> draw_seed(0) == draw_seed(np.random.default_rng(0))
    True
    >>> draw_seed(np.random.default_rng(1), size=3).shape
    (3,)
    """
    rng = rng_or(random_state)
    if isinstance(rng, np.random.RandomState):
        out = rng.randint(0, SEED_HIGH, size=size)
    else:
        out = rng.integers(0, SEED_HIGH, size=size)
    return int(out) if size is None else out


@functools.lru_cache(maxsize=64)
def int_seeds(seed: int, k: int) -> tuple:
    """``k`` seeds (ints) drawn by :func:`draw_seed` from a fresh Generator of the
    non-negative int ``seed``: the same every time, so kept (creating the Generator
    costs more than the rest of a small fit's planning).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._util import draw_seed, int_seeds
    >>> int_seeds(0, 2) == tuple(int(s) for s in draw_seed(np.random.default_rng(0), size=2))
    True
    """
    return tuple(int(s) for s in draw_seed(np.random.default_rng(seed), size=k))


class Deadline:
    """The time limit of one call: ``seconds`` from now (or from ``start``, a
    ``time.perf_counter`` value: several limits of one call share its start) on
    ``time.perf_counter`` (None: no limit), with the time elapsed since the start.

    Examples
    --------
    >>> from eigensparse._util import Deadline
    >>> d = Deadline(60.0)
    >>> d.bounded, d.passed(), 59.0 < d.left() <= 60.0, d.elapsed() < 1.0
    (True, False, True, True)
    >>> Deadline(None).left(), Deadline(None).passed(), Deadline(0.0).left(floor=1e-3)
    (inf, False, 0.001)
    """

    def __init__(self, seconds=None, *, start: float | None = None):
        self.start = time.perf_counter() if start is None else float(start)
        self.at = math.inf if seconds is None else self.start + float(seconds)

    @property
    def bounded(self) -> bool:
        """Whether there is a limit."""
        return self.at < math.inf

    def left(self, floor: float = -math.inf) -> float:
        """Seconds left (inf without a limit; negative once passed), at least ``floor``."""
        return max(self.at - time.perf_counter(), floor)

    def passed(self) -> bool:
        """Whether the limit is reached."""
        return time.perf_counter() >= self.at

    def elapsed(self) -> float:
        """Seconds since the deadline was set."""
        return time.perf_counter() - self.start
