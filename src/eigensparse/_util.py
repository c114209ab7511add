"""Small helpers shared across layers: the seed drawn from a ``random_state``.

Every randomised step that hands a seed to another routine (a refit, a worker, a
scikit-learn splitter) draws it here, so the same ``random_state`` gives the same seeds
everywhere.
"""
from __future__ import annotations

import numpy as np

__all__ = ["SEED_HIGH", "rng_or", "draw_seed"]

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
