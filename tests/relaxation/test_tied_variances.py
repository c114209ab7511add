"""Relaxations on data whose variances tie (standardized data, correlation matrices,
duplicated columns): penalties just below the common variance leave φ(ρ) at rounding
level beside Σ's entries: the engines keep their iterate (bca) and converge (the
first-order method) there."""
import itertools

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

import eigensparse as es
from eigensparse.relaxation import bca_relaxation, first_order_relaxation, leading_support

ENGINES = [bca_relaxation, first_order_relaxation]


def _correlation():
    X = load_breast_cancer().data
    Xs = (X - X.mean(0)) / X.std(0)
    return Xs.T @ Xs / X.shape[0]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("margin", [1e-6, 1e-9, 1e-12])
def test_penalty_just_below_unit_variances(engine, margin):
    S = _correlation()
    rho = float(np.diag(S).max()) - margin
    kept = np.flatnonzero(np.diag(S) > rho)
    Sk = S[np.ix_(kept, kept)]
    sol = engine(Sk, rho, tol=1e-3)
    assert sol.Z is not None and np.isfinite(sol.Z).all()
    # every off-diagonal correlation is below ρ: the optimum is the best single feature
    best = float(np.diag(Sk).max()) - rho
    assert sol.primal <= sol.dual + 1e-12 * abs(sol.dual)
    assert sol.dual - sol.primal <= 1e-3 * sol.dual
    assert abs(sol.primal - best) <= 1e-3 * best
    z, support = leading_support(sol.Z, 1e-3)
    assert support.size == 1


def test_bca_warm_start_from_a_smaller_penalty_stays_finite():
    """The issue's crash: a warm start from ρ = 0.5 carried to ρ just below the unit
    variances broke the barrier iterate (Z None → AttributeError in leading_support)."""
    S = _correlation()
    first = bca_relaxation(S, 0.5, tol=1e-3)
    rho = 0.9999993389635563
    sol = bca_relaxation(S, rho, tol=1e-3, warm_start=first.state)
    assert sol.Z is not None and np.isfinite(sol.Z).all()
    assert abs(sol.primal - (float(np.diag(S).max()) - rho)) <= 1e-3 * sol.dual


@pytest.mark.parametrize("engine", ENGINES)
def test_duplicated_columns(engine):
    """Two copies of a feature: at ρ near their variance, the optimum is the pair (value
    2(d − ρ)), which the thresholded covariance certifies."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((200, 4))
    A = np.column_stack([A, A[:, 0]])
    A = (A - A.mean(0)) / A.std(0)
    S = A.T @ A / A.shape[0]
    rho = 1.0 - 1e-9
    sol = engine(S, rho, tol=1e-3)
    assert np.isfinite(sol.Z).all()
    assert abs(sol.primal - 2 * (S[0, 0] - rho)) <= 1e-3 * sol.dual
    assert leading_support(sol.Z, 1e-3)[1].tolist() == [0, 4]


def _best_pair(S):
    return max(np.linalg.eigvalsh(S[np.ix_(c, c)])[-1]
               for c in itertools.combinations(range(S.shape[0]), 2))


@pytest.mark.parametrize("method", [
    "bca",
    pytest.param("dspca", marks=pytest.mark.slow(seconds=25)),  # first-order: many eigensolves
])
def test_standardized_breast_cancer_end_to_end(method):
    """sparse_pca(scale=True) on breast cancer: every component has the cardinality asked,
    and the first is within 5% of the exhaustive best pair."""
    X = load_breast_cancer().data
    res = es.sparse_pca(X, n_components=2, cardinality=2, method=method, scale=True,
                        random_state=0)
    assert [int(np.count_nonzero(c)) for c in res.components] == [2, 2]
    best = _best_pair(_correlation())
    assert res.variances[0] <= best + 1e-9
    assert res.variances[0] >= 0.95 * best
