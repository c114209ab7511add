"""The DSPCA relaxation solvers ``dspca`` and ``bca`` (``solvers/_relaxation.py``): the
cardinality search reaches its target with a valid bound, the penalty mode, the empty
solution explained, and bad input refused by name. The relaxations themselves are tested
in ``tests/relaxation``."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

import eigensparse as es
from eigensparse import Covariance, InvalidParameterError
from eigensparse.registry import methods as registry_methods
from eigensparse.solvers._exhaustive import exhaustive
from eigensparse.solvers._relaxation import bca, dspca

SOLVE = {"bca": bca, "dspca": dspca}


def get_solver(method):
    """The registered spec of ``method``, its function the module's own."""
    spec = es.solvers.get_solver(method)
    assert spec.func is SOLVE[method]
    return spec


def _wishart(p, seed, m=None):
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((m or 2 * p, p))
    return F.T @ F / (m or 2 * p)


@pytest.mark.parametrize("method", ["bca", "dspca"])
def test_relaxation_on_correlation_matrices_reaches_the_cardinality(method):
    X = load_wine().data[:, :9]
    C = np.corrcoef(X, rowvar=False)
    # a unit diagonal only up to rounding, as np.corrcoef and scale=True give
    C[np.diag_indices_from(C)] = 1.0 + np.array([0, -2, 0, -1, 1, 0, -2, 0, 1]) * 1.1e-16
    s = 3
    best = exhaustive(es.Covariance(C), s).variance
    res = es.sparse_pca(es.Covariance(C), n_components=1, cardinality=s, method=method,
                        random_state=0)
    r = res.results[0]
    assert np.count_nonzero(res.components[0]) == s
    assert r.info["search_hit"]  # a penalty with exactly s nonzeros was found
    assert r.upper_bound >= best - 1e-9
    assert r.upper_bound < s  # not the trivial bound s·max Σ_ii
    assert res.variances[0] >= 0.98 * best


def test_bca_with_scale_true_solves_the_correlation_problem():
    """``scale=True`` hands BCA the correlation matrix (a unit diagonal up to rounding):
    the first component is a valid 4-sparse eigenvector of it, within its own bound of the
    exhaustive optimum, and equals the solve on the correlation matrix given directly."""
    X = load_breast_cancer().data[:, :12]
    res = es.sparse_pca(X, n_components=2, cardinality=4, method="bca", scale=True,
                        random_state=0)
    assert [np.count_nonzero(c) for c in res.components] == [4, 4]
    C = np.corrcoef(X, rowvar=False)
    best = exhaustive(es.Covariance(C), 4).variance
    r = res.results[0]
    I = np.flatnonzero(res.components[0])
    assert r.variance == pytest.approx(np.linalg.eigvalsh(C[np.ix_(I, I)])[-1], rel=1e-9)
    assert r.variance <= best * (1 + 1e-9) and r.variance >= 0.95 * best
    if r.upper_bound is not None:
        assert r.upper_bound >= best * (1 - 1e-9)
    on_c = es.sparse_pca(es.Covariance(C), n_components=1, cardinality=4, method="bca",
                         random_state=0)
    np.testing.assert_array_equal(np.flatnonzero(on_c.components[0]), I)


@pytest.mark.parametrize("method", ["bca", "dspca"])
def test_cardinality_search_exact_support_and_fields(method):
    rng = np.random.default_rng(0)
    p = 30
    u = np.zeros(p)
    u[:5] = 1 / np.sqrt(5)
    X = rng.standard_normal((150, p)) + 2.5 * rng.standard_normal((150, 1)) * u
    op = es.as_operator(X)
    r = get_solver(method).func(op, 4)
    assert r.cardinality == 4
    assert np.count_nonzero(r.loadings) == 4
    assert np.linalg.norm(r.loadings) == pytest.approx(1.0)
    assert r.upper_bound >= r.variance - 1e-12
    assert r.gap == pytest.approx(r.upper_bound - r.variance)
    for key in ("objective", "certified", "penalty", "working_set_size", "n_penalties_tried",
                "bound_kind"):
        assert key in r.info
    assert 1 <= r.info["working_set_size"] <= p
    assert r.info["n_penalties_tried"] >= 1
    assert r.variance == pytest.approx(float(r.loadings @ op.matvec(r.loadings)))


def test_penalty_mode_and_sparse_pca_front_door():
    S = _wishart(12, 5)
    res = es.sparse_pca(Covariance(S), method="bca", penalty=0.5 * np.diag(S).max(),
                        n_components=1)
    r = res.results[0]
    assert r.info["penalty"] == pytest.approx(0.5 * np.diag(S).max())
    assert r.info["working_set_size"] == int(np.count_nonzero(np.diag(S) > r.info["penalty"]))
    assert r.upper_bound >= r.variance - 1e-12
    res2 = es.sparse_pca(Covariance(S), method="bca", cardinality=3, n_components=2)
    assert all(s.size == 3 for s in res2.supports)


def test_penalty_above_every_variance_gives_explained_empty_solution():
    S = _wishart(6, 1)
    with pytest.warns(RuntimeWarning, match="every feature is eliminated"):
        r = get_solver("bca").func(Covariance(S), None, penalty=10 * np.diag(S).max())
    assert r.cardinality == 0 and r.variance == 0.0
    assert np.all(r.loadings == 0)
    assert "empty" in r.message and "max" in r.message


@pytest.mark.parametrize("method", ["bca", "dspca"])
def test_bad_inputs(method):
    S = _wishart(6, 2)
    f = get_solver(method).func
    with pytest.raises(InvalidParameterError, match="penalty"):
        f(Covariance(S), None, penalty=-1.0)
    with pytest.raises(InvalidParameterError):
        f(Covariance(S), None)  # neither cardinality nor penalty
    with pytest.raises(InvalidParameterError, match="cardinality"):
        f(Covariance(S), 7)
    # a diagonal covariance's optimal loadings are one coordinate, and zero-variance
    # features carry none: fewer nonzeros than asked, as every other method returns them
    # (sparse_pca says so: test_every_method_says_when_a_component_has_fewer_nonzeros)
    for d in ([3.0, 2.0, 1.0], [3.0, 0.0, 0.0]):
        r = f(Covariance(np.diag(d)), 2)
        assert r.support.tolist() == [0] and r.variance == pytest.approx(3.0)
    # non-PSD covariance
    B = np.array([[1.0, 0.9, 0.9], [0.9, 1.0, -0.9], [0.9, -0.9, 1.0]])
    assert np.linalg.eigvalsh(B)[0] < 0
    with pytest.raises(InvalidParameterError, match="positive semidefinite"):
        f(Covariance(B), 2)
    with pytest.raises(InvalidParameterError, match="penalty"):
        es.sparse_pca(Covariance(S), method=method, penalty=-0.1)


@pytest.mark.parametrize("method", [s.name for s in registry_methods()
                                    if s.takes_penalty])
def test_every_penalized_method_says_when_its_penalty_empties_the_component(method):
    """am warned when a penalty too large left no loading; bca and dspca returned the
    empty components silently (a table of 0 features, certified)."""
    import eigensparse as es

    X = np.random.default_rng(0).standard_normal((30, 5))
    opts = {"formulation": "l2_l0_pen"} if method == "am" else {}
    with pytest.warns(RuntimeWarning, match=rf"{method}: .*decrease 'penalty'"):
        res = es.sparse_pca(X, n_components=1, penalty=1e3, method=method, **opts)
    assert res.results[0].cardinality == 0


@pytest.mark.parametrize("method", [s.name for s in registry_methods() if s.takes_cardinality])
def test_every_method_says_when_a_component_has_fewer_nonzeros(method):
    """Two of five features vary and s=3 is asked: bca and dspca raised 'unreachable ...
    Use cardinality <= 2' (an error for a valid parameter; on constant data 'Use
    cardinality <= 0'), the other methods returned 2 nonzeros without a word."""
    import warnings

    rng = np.random.default_rng(0)
    X = np.c_[rng.standard_normal((30, 2)), np.ones((30, 3))]
    with pytest.warns(UserWarning, match=r"PC1 has 2 nonzero loading\(s\) of the 3 asked"):
        res = es.sparse_pca(X, n_components=1, cardinality=3, method=method)
    assert res.supports[0].tolist() == [0, 1] and res.info["cardinality_short"] == {0: (2, 3)}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # three varying features: nothing to say
        es.sparse_pca(np.c_[X, rng.standard_normal(30)], n_components=1, cardinality=3, method=method)
