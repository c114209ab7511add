"""The baselines EM-SPCA and SpanSPCA (``solvers/_baselines.py``): exact sizes, the
leading eigenvalue at full cardinality, close to the exhaustive optimum on small
problems, and their options."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import eigensparse
from eigensparse import InvalidParameterError
from eigensparse.operators import Covariance, DenseData
from eigensparse.solvers._baselines import emspca, spanspca


@pytest.mark.parametrize("method", ["emspca", "spanspca"])
def test_baselines_exact_sizes_and_optimal_on_full_support(method):
    rng = np.random.default_rng(13)
    X = rng.standard_normal((60, 12)) @ rng.standard_normal((12, 12))
    op = DenseData(X)
    spec = eigensparse.solvers.get_solver(method)
    r = spec.func(op, 4, random_state=0)
    assert r.support.size == 4 and r.method == method
    S = op.to_dense()
    assert r.variance == pytest.approx(np.linalg.eigvalsh(S[np.ix_(r.support, r.support)])[-1])
    full = spec.func(op, 12, random_state=0)  # cardinality p: the leading eigenvalue
    assert full.variance == pytest.approx(np.linalg.eigvalsh(S)[-1], rel=1e-9)


@pytest.mark.parametrize("method", ["emspca", "spanspca"])
def test_baselines_close_to_exhaustive_on_small_problems(method):
    rng = np.random.default_rng(14)
    B = rng.standard_normal((10, 2))
    S = B @ B.T + 0.01 * np.eye(10)
    op = Covariance(S)
    best = max(np.linalg.eigvalsh(S[np.ix_(I, I)])[-1]
               for I in itertools.combinations(range(10), 3))
    r = eigensparse.solvers.get_solver(method).func(op, 3, random_state=0)
    assert r.variance >= 0.9 * best


def test_emspca_options():
    rng = np.random.default_rng(16)
    X = rng.standard_normal((50, 30)) + 1.0
    one = eigensparse.solvers.get_solver("emspca").func(DenseData(X, center=False), 5)
    more = eigensparse.solvers.get_solver("emspca").func(DenseData(X, center=False), 5,
                                                         n_starts=5, random_state=0)
    assert more.variance >= one.variance - 1e-12
    nn = eigensparse.solvers.get_solver("emspca").func(DenseData(X, center=False), 5,
                                                       nonnegative=True)
    assert np.all(nn.loadings >= 0) and nn.support.size == 5
    with pytest.raises(InvalidParameterError, match="'init'"):
        eigensparse.solvers.get_solver("emspca").func(DenseData(X), 5, init="bogus")
    with pytest.raises(InvalidParameterError, match="'rank'"):
        eigensparse.solvers.get_solver("spanspca").func(DenseData(X), 5, rank=31)


@pytest.mark.parametrize("solve", [emspca, spanspca])
def test_rank_one_covariance_gives_the_largest_entries(solve):
    """On Σ = vvᵀ the optimum of size s is the s entries of v largest in magnitude, with
    variance their squared norm: both baselines must find it exactly."""
    rng = np.random.default_rng(3)
    v = rng.standard_normal(15)
    s = 4
    top = np.sort(np.argsort(-np.abs(v))[:s])
    r = solve(Covariance(np.outer(v, v)), s, random_state=0)
    np.testing.assert_array_equal(r.support, top)
    assert r.variance == pytest.approx(np.sum(v[top] ** 2), rel=1e-10)


def test_spanspca_on_a_rank_two_covariance_reaches_the_exhaustive_optimum():
    """With ``rank`` equal to the rank of Σ the span holds the optimum (SpanSPCA is exact
    there); the sampled circle must find it on a small problem."""
    rng = np.random.default_rng(5)
    B = rng.standard_normal((10, 2)) * [3.0, 1.0]
    S = B @ B.T
    best = max(np.linalg.eigvalsh(S[np.ix_(I, I)])[-1]
               for I in itertools.combinations(range(10), 3))
    r = spanspca(Covariance(S), 3, rank=2, random_state=0)
    assert r.variance == pytest.approx(best, rel=1e-9)
    assert r.info["eigenvalues"].size == 2
