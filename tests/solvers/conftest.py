"""Small random instances shared by the solver tests (as fixtures: the test modules are
imported by path, not as a package)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse.operators import Covariance, DenseData, SparseData


def _low_rank_noise(rng, n, p):
    r = int(rng.integers(1, 4))
    F = rng.standard_normal((n, r)) * rng.uniform(0.5, 3.0, r)
    L = rng.standard_normal((r, p)) * (rng.random((r, p)) < 0.5)
    return F @ L + 0.5 * rng.standard_normal((n, p))


def _spiked_cov(rng, p):
    k = int(rng.integers(1, p + 1))
    v = np.zeros(p)
    v[rng.choice(p, k, replace=False)] = rng.standard_normal(k)
    v /= np.linalg.norm(v)
    G = rng.standard_normal((p, p)) * 0.3
    return np.eye(p) + rng.uniform(1, 6) * np.outer(v, v) + G @ G.T / p


def _make_instance(seed):
    """A random small operator: dense data / sparse data / covariance, p <= 12."""
    rng = np.random.default_rng(seed)
    p = int(rng.integers(3, 13))
    kind = seed % 4
    if kind == 0:
        n = int(rng.integers(2, 2 * p + 3))  # n < p happens: rank-deficient Σ
        return DenseData(_low_rank_noise(rng, n, p), scale=bool(rng.integers(2)))
    if kind == 1:
        n = int(rng.integers(5, 40))
        X = sp.random(n, p, density=0.35, random_state=seed, format="csr")
        X.data = rng.integers(1, 4, X.data.size).astype(float)
        return SparseData(X)
    if kind == 2:
        return Covariance(_spiked_cov(rng, p))
    X = _low_rank_noise(rng, int(rng.integers(3, 30)), p)
    return Covariance(np.cov(X.T, bias=True), scale=bool(rng.integers(2)))


@pytest.fixture
def make_instance():
    """``make_instance(seed)``: a random small operator (dense or sparse data, or a
    covariance; p <= 12)."""
    return _make_instance


@pytest.fixture
def spiked_cov():
    """``spiked_cov(rng, p)``: identity plus one sparse spike plus a little noise."""
    return _spiked_cov


@pytest.fixture
def low_rank_noise():
    """``low_rank_noise(rng, n, p)``: data of rank 1 to 3 with sparse loadings, plus noise."""
    return _low_rank_noise


def _hidden_spike(seed, p=1000, k=10, loud=300, n=5000, rho=0.12, loud_var=1.7):
    """k unit-variance features with pairwise correlation rho (λmax ≈ 1 + (k−1)·rho ≈
    2.08) hidden among p − k unit-variance features, ``loud`` of them louder
    (variance ``loud_var``) and independent: the planted support is not among the
    features of largest variance, and no single statistic of a feature reveals it."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    X[:, :loud] *= np.sqrt(loud_var)
    support = np.sort(rng.choice(np.arange(loud, p), k, replace=False))
    f = rng.standard_normal(n)
    X[:, support] = np.sqrt(1 - rho) * X[:, support] + np.sqrt(rho) * f[:, None]
    return X, support


@pytest.fixture
def hidden_spike():
    """``hidden_spike(seed, ...)``: (X, support) with k correlated features hidden among
    louder independent ones."""
    return _hidden_spike


@pytest.fixture
def auto_settings(monkeypatch):
    """``auto_settings(**changes)``: run the default method with some of its settings
    replaced (for this test only); returns the settings in force."""
    import dataclasses

    from eigensparse.solvers import _auto_settings

    def change(**changes):
        monkeypatch.setattr(_auto_settings, "SETTINGS",
                            dataclasses.replace(_auto_settings.SETTINGS, **changes))
        return _auto_settings.SETTINGS

    return change
