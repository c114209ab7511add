"""Small problems for the bounds' tests: random 9 × 9 covariances and brute force."""
from itertools import combinations

import numpy as np
import pytest


def _exhaustive(S, s):
    best, arg = -np.inf, None
    for I in combinations(range(S.shape[0]), s):
        v = np.linalg.eigvalsh(S[np.ix_(I, I)])[-1]
        if v > best:
            best, arg = v, I
    return best, np.array(arg)


def _instances():
    out = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        p = 9
        F = rng.standard_normal((p, p))
        out.append(F.T @ F / p)  # Gaussian (hard)
        u = 1.0 / np.arange(1, p + 1)
        V = rng.uniform(size=(p, p))
        out.append(np.outer(u, u) / (u @ u) + 0.05 * V.T @ V)  # rank one plus noise
    return out


@pytest.fixture
def instances():
    """Six PSD 9 × 9 matrices: Gaussian Wishart and rank one plus noise."""
    return _instances()


@pytest.fixture
def exhaustive():
    """``exhaustive(S, s) -> (v(s), best support)`` by enumeration."""
    return _exhaustive
