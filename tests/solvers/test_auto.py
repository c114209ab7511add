"""The default method ``auto`` (``solvers/_auto.py``): the exhaustive optimum on small
problems, deterministic and never below its warm start, and beyond 256 features the whole
problem's correlation structure (not the features of largest variance). Its working set,
bound and settings have their own test modules (``test_auto_working_set.py``,
``test_auto_bound.py``, ``test_auto_settings.py``)."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.preprocessing import StandardScaler

import eigensparse as es
from eigensparse.solvers import get_solver
from eigensparse.solvers._auto import auto
from eigensparse.solvers._exhaustive import exhaustive


@pytest.mark.parametrize("seed", [0, 1])
def test_planted_spike_behind_louder_features_is_found(seed, hidden_spike):
    X, support = hidden_spike(seed)
    S = np.cov(X, rowvar=False)
    planted = np.linalg.eigvalsh(S[np.ix_(support, support)])[-1]
    assert np.sort(np.diag(S))[-1] < planted  # every feature alone is far below it
    assert np.intersect1d(np.argsort(-np.diag(S))[:256], support).size == 0  # not loud
    r = auto(es.Covariance(S), 10, random_state=0)
    np.testing.assert_array_equal(r.support, support)
    assert r.variance == pytest.approx(planted, rel=1e-9)
    assert r.upper_bound >= r.variance


def test_planted_spike_on_the_correlation_matrix(hidden_spike):
    X, support = hidden_spike(2, p=600, loud=200)
    r = es.sparse_pca(X, n_components=1, cardinality=10, scale=True, random_state=0)
    np.testing.assert_array_equal(r.results[0].support, support)


def _factor_correlation(seed, p=320, n_groups=12):
    """A correlation matrix of overlapping factor groups (features sharing members
    between groups), from data: correlation structure of moderate strength, all
    variances 1."""
    rng = np.random.default_rng(seed)
    n = 400
    F = rng.standard_normal((n, n_groups))
    L = np.zeros((n_groups, p))
    for g in range(n_groups):
        members = rng.choice(p, rng.integers(6, 25), replace=False)
        L[g, members] = rng.uniform(0.3, 1.0, members.size) * rng.choice([-1, 1], members.size)
    X = F @ L + rng.standard_normal((n, p))
    return np.corrcoef(X, rowvar=False)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("s", [5, 12])
def test_default_matches_many_starts_of_am_on_correlation_matrices(seed, s):
    R = _factor_correlation(seed)
    op = es.Covariance(R)
    best = get_solver("am").func(op, s, n_starts=400, random_state=0).variance
    r = auto(op, s, random_state=seed)
    assert r.variance >= best * (1 - 1e-9)
    assert r.info["working_set"] == R.shape[0]  # the whole problem
    assert r.variance <= r.upper_bound


def test_deterministic_for_a_random_state():
    R = _factor_correlation(7, p=400)
    a = auto(es.Covariance(R), 8, random_state=3)
    b = auto(es.Covariance(R), 8, random_state=3)
    np.testing.assert_array_equal(a.loadings, b.loadings)
    assert a.upper_bound == b.upper_bound


def _instances():
    """Small problems of the kinds where few-start methods miss the optimum: Wishart,
    spiked, and correlation matrices of real data (p 12–16)."""
    rng = np.random.default_rng(7)
    out = []
    for t in range(2):
        p = 14 + t
        A = rng.standard_normal((p // 2 + 3 * t, p)) * rng.uniform(0.5, 2.0, p)
        out.append(("wishart", A.T @ A / A.shape[0]))
    p = 15
    u = np.zeros(p)
    u[rng.choice(p, 5, replace=False)] = rng.standard_normal(5)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((2 * p, p)) @ np.linalg.cholesky(np.eye(p) + 3 * np.outer(u, u)).T
    out.append(("spiked", np.cov(X, rowvar=False)))
    bc = load_breast_cancer().data
    for t in range(2):
        cols = np.sort(rng.choice(30, 14 + t, replace=False))
        out.append(("breast_cancer", np.corrcoef(bc[:, cols], rowvar=False)))
    out.append(("wine", np.corrcoef(load_wine().data, rowvar=False)))
    return [(name, S, s) for name, S in out for s in (3, 5, 8)]


@pytest.mark.parametrize("name,S,s", _instances())
def test_auto_reaches_the_exhaustive_optimum(name, S, s):
    op = es.Covariance(S)
    best = exhaustive(op, s).variance
    res = es.sparse_pca(op, n_components=1, cardinality=s, random_state=0)
    assert res.method == "auto"
    assert np.count_nonzero(res.components[0]) == s
    assert res.variances[0] >= best * (1 - 1e-9), (name, s)


def test_auto_on_standardized_breast_cancer():
    Z = StandardScaler().fit_transform(load_breast_cancer().data)
    res = es.sparse_pca(Z, n_components=1, cardinality=5, random_state=0)
    best = exhaustive(es.as_operator(Z), 5).variance  # 4.9048 (the 4.905, rounded)
    assert res.variances[0] >= best * (1 - 1e-9) and best > 4.904
    tp = es.sparse_pca(Z, n_components=1, cardinality=5, method="tpower", random_state=0)
    assert res.variances[0] >= tp.variances[0] - 1e-12


def test_auto_is_deterministic_and_beats_its_warm_start():
    S = _instances()[0][1]
    a = es.sparse_pca(es.Covariance(S), n_components=2, cardinality=4, random_state=3)
    b = es.sparse_pca(es.Covariance(S), n_components=2, cardinality=4, random_state=3)
    np.testing.assert_array_equal(a.components, b.components)
    info = a.results[0].info
    assert a.results[0].variance >= info["warm_start_variance"] - 1e-12
    assert a.results[0].variance >= info["multistart_variance"] - 1e-9


def test_auto_searches_the_whole_problem_when_it_is_cheap_to_form():
    # 60 x 400 data: Σ costs 60·400² multiply-adds to form, so the default searches all
    # 400 features (behaviour meant to change: it used to keep the 256 of largest variance)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 400)) @ np.diag(rng.uniform(0.2, 2.0, 400))
    res = es.sparse_pca(X, n_components=1, cardinality=6, random_state=0)
    r = res.results[0]
    assert r.info["working_set"] == 400
    assert r.variance <= r.upper_bound
    for method in ("approx_greedy", "tpower"):
        other = es.sparse_pca(X, n_components=1, cardinality=6, method=method)
        assert res.variances[0] >= other.variances[0] - 1e-9, method


def test_auto_bad_input():
    with pytest.raises(es.InvalidParameterError, match="n_starts"):
        es.sparse_pca(np.eye(5), n_components=1, cardinality=2, n_starts=0)


@pytest.mark.parametrize("p,s,seed", [(60, 7, 0), (300, 25, 1)])
def test_loadings_are_the_leading_eigenvector_of_their_block(p, s, seed):
    # the loadings come from the swap search's Lanczos eigenpair: they agree with a dense
    # eigensolve of Σ[I, I] (polish_loadings) to the Lanczos tolerance
    from eigensparse.solvers import polish_loadings

    A = np.random.default_rng(seed).standard_normal((p + 20, p))
    A[:, :s] += np.random.default_rng(seed + 1).standard_normal((p + 20, 1))  # a group
    op = es.Covariance(A.T @ A / (p + 20))
    r = get_solver("auto").func(op, s, random_state=0)
    z, lam = polish_loadings(op, r.support)
    assert r.variance == pytest.approx(lam, rel=1e-12)
    np.testing.assert_allclose(r.loadings, z, atol=1e-9)
    assert np.linalg.norm(r.loadings) == pytest.approx(1.0, rel=1e-12)
