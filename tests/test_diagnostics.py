"""Diagnostics (``diagnostics.py``): the variance-cardinality path with its bounds, and the
adjusted variance of several components."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

import eigensparse as es
from eigensparse.diagnostics import (adjusted_variance, adjusted_variance_of_gram,
                                     variance_cardinality_path)
from eigensparse.solvers._exhaustive import exhaustive


def test_variance_cardinality_path_bounds_are_monotone_and_valid():
    C = np.corrcoef(load_breast_cancer().data[:, :12], rowvar=False)
    path = variance_cardinality_path(es.Covariance(C), 6, relaxation=False)
    ub = path.upper_bounds
    assert np.all(np.diff(ub) >= -1e-12)
    for k in range(1, 7):
        assert ub[k - 1] >= exhaustive(es.Covariance(C), k).variance - 1e-9


def test_adjusted_variance_equals_qr_of_scores():
    """Zou–Hastie–Tibshirani: R_jj² of the QR of the scores, computed from Σ products."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 12)) @ rng.standard_normal((12, 12))
    C = rng.standard_normal((3, 12))
    C /= np.linalg.norm(C, axis=1, keepdims=True)
    Z = (X - X.mean(0)) @ C.T / np.sqrt(X.shape[0])
    R = np.linalg.qr(Z, mode="r")
    np.testing.assert_allclose(adjusted_variance(es.as_operator(X), C), np.diag(R) ** 2,
                               rtol=1e-10)
    np.testing.assert_allclose(adjusted_variance_of_gram(Z.T @ Z), np.diag(R) ** 2, rtol=1e-10)


def test_adjusted_variance_of_orthogonal_scores_is_the_plain_variance():
    """Eigenvectors of Σ have uncorrelated scores: nothing to adjust; a repeated component
    explains nothing more (the semi-definite Cholesky gives 0, not NaN)."""
    rng = np.random.default_rng(4)
    A = rng.standard_normal((10, 10))
    S = A @ A.T
    w, V = np.linalg.eigh(S)
    C = V[:, [-1, -2, -3]].T
    np.testing.assert_allclose(adjusted_variance(es.Covariance(S), C), w[[-1, -2, -3]],
                               rtol=1e-10)
    twice = adjusted_variance(es.Covariance(S), np.vstack([C[0], C[0]]))
    assert twice[0] == pytest.approx(w[-1], rel=1e-10)
    assert abs(twice[1]) <= 1e-9 * w[-1]


def test_path_variances_equal_the_method_at_each_cardinality():
    C = np.corrcoef(load_breast_cancer().data[:, :10], rowvar=False)
    path = variance_cardinality_path(es.Covariance(C), 5, method="greedy", relaxation=False)
    np.testing.assert_array_equal(path.cardinalities, np.arange(1, 6))
    for k in range(1, 6):
        r = es.solvers.get_solver("greedy").func(es.Covariance(C), k)
        assert path.variances[k - 1] == pytest.approx(r.variance, rel=1e-10)
        assert path.upper_bounds[k - 1] >= path.variances[k - 1] - 1e-12


@pytest.mark.parametrize("call, match", [
    (lambda C, X: adjusted_variance(C, np.ones((2, 5))), r"'components' must be an array \(n_components, n_features=6\)"),
    (lambda C, X: adjusted_variance(C, np.zeros((1, 1, 6))), "'components'"),
    (lambda C, X: adjusted_variance(C, np.full((1, 6), np.nan)), "'components' contains NaN"),
    (lambda C, X: es.adjusted_variance(C, np.ones((2, 5))), "'components'"),
    (lambda C, X: adjusted_variance_of_gram(np.ones((2, 3))), "'G' must be a square"),
    (lambda C, X: adjusted_variance_of_gram(np.full((2, 2), np.nan)), "'G' contains 4 NaN"),
    (lambda C, X: variance_cardinality_path(C, 2.5), "'max_cardinality'"),
    (lambda C, X: variance_cardinality_path(C, 7), r"'max_cardinality' must be an int in \[1, n_features=6\]"),
    (lambda C, X: variance_cardinality_path(C, 3, relaxation=True, relaxation_penalties=0), "'relaxation_penalties'"),
    (lambda C, X: variance_cardinality_path(C, 3, certificate="no"), "'certificate'"),
    (lambda C, X: variance_cardinality_path(C, 2, random_state="x"), "'random_state'"),
])
def test_bad_input_is_refused_at_the_boundary(call, match):
    """They were numpy tracebacks, NaN answers, or accepted silently (0 relaxation
    penalties, a string for a boolean, a random_state the path never used)."""
    X = np.random.default_rng(0).standard_normal((40, 6))
    with pytest.raises(es.InvalidParameterError, match=match):
        call(es.Covariance(np.cov(X.T)), X)


def test_adjusted_variance_takes_data_as_the_other_functions_do():
    """An array is the data (centered), as for sparse_pca: it was an AttributeError."""
    X = np.random.default_rng(0).standard_normal((40, 6))
    C = np.eye(6)[:2]
    np.testing.assert_allclose(es.adjusted_variance(X, C),
                               es.adjusted_variance(es.as_operator(X), C))
