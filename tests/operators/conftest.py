"""Shared data of the operator tests."""
import numpy as np
import pytest


def _poisson_data(seed, n=40, p=9, density=0.4):
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, (n, p)).astype(float) * (rng.random((n, p)) < density)
    X[:, 0] += 5.0  # a large mean stresses implicit centering
    return X


@pytest.fixture
def poisson_data():
    """``poisson_data(seed, n=40, p=9, density=0.4)``: sparse-ish counts, column 0 shifted
    by 5 (a large mean stresses implicit centering)."""
    return _poisson_data
