"""The seed helpers (``_util.py``): the same ``random_state`` gives the same seeds, from
a Generator, a RandomState, an int or None."""
import numpy as np

from eigensparse._util import SEED_HIGH, draw_seed, rng_or


def test_draw_seed_is_the_int32_draw_of_its_stream():
    assert draw_seed(5) == int(np.random.default_rng(5).integers(0, SEED_HIGH))
    assert draw_seed(np.random.RandomState(3)) == int(np.random.RandomState(3).randint(0, SEED_HIGH))
    seeds = draw_seed(np.random.default_rng(1), size=4)
    assert seeds.shape == (4,) and np.all((0 <= seeds) & (seeds < SEED_HIGH))
    assert isinstance(draw_seed(None), int)


def test_rng_or_keeps_a_given_generator():
    g = np.random.default_rng(0)
    rs = np.random.RandomState(0)
    assert rng_or(g) is g and rng_or(rs) is rs
    assert isinstance(rng_or(7), np.random.Generator)
