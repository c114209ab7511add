"""The default method (``auto``), the Gram policy of the operator layer, tied variances
in the DSPCA penalty search, and monotone cardinality bounds (issue 10)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.preprocessing import StandardScaler

import eigensparse as es
from eigensparse._api import DEFAULT_METHOD
from eigensparse.bounds import monotone_upper_bounds
from eigensparse.diagnostics import variance_cardinality_path
from eigensparse.operators import DenseData, SparseData
from eigensparse.operators._gram import gram_is_cheap
from eigensparse.solvers._exhaustive import exhaustive


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


def test_default_method_is_auto():
    assert DEFAULT_METHOD == "auto"
    assert "auto" in es.available_methods()


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


def test_auto_large_problem_uses_a_working_set_and_is_a_fixed_point(monkeypatch):
    from eigensparse.solvers import _auto

    monkeypatch.setattr(_auto, "GLOBAL_FORM_FLOPS", 0.0)  # Σ "too costly" to form
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 400)) @ np.diag(rng.uniform(0.2, 2.0, 400))
    op = es.as_operator(X)
    res = es.sparse_pca(X, n_components=1, cardinality=6, random_state=0)
    r = res.results[0]
    assert r.info["working_set"] < 400
    x = res.components[0]
    g = op.matvec(x)
    top = np.sort(np.argsort(-np.abs(g), kind="stable")[:6])
    np.testing.assert_array_equal(top, np.flatnonzero(x))  # a truncated power fixed point
    # the working-set split bound is a bound on the whole problem
    full = _auto.auto(es.Covariance(op.to_dense()), 6, random_state=0)
    assert r.upper_bound >= full.variance
    assert r.info["bound"].startswith("working-set split")
    for method in ("approx_greedy", "tpower"):
        other = es.sparse_pca(X, n_components=1, cardinality=6, method=method)
        assert res.variances[0] >= other.variances[0] - 1e-9, method


def test_auto_bad_input():
    with pytest.raises(es.InvalidParameterError, match="n_starts"):
        es.sparse_pca(np.eye(5), n_components=1, cardinality=2, n_starts=0)


# ------------------------------------------------------------------------ Gram policy
def test_gram_policy_from_shapes_and_nonzeros():
    assert gram_is_cheap(100, 2 * 65451 + 2 * 16342)  # 20 newsgroups: form Σ
    assert not gram_is_cheap(6906, 2 * 353160 + 2 * 10336)  # KOS: implicit
    assert not gram_is_cheap(5000, 1e12)  # too many features for a dense Σ
    rng = np.random.default_rng(1)
    tall = sp.random(3000, 40, density=0.1, random_state=2, format="csr")
    wide = sp.random(50, 3000, density=0.01, random_state=2, format="csr")
    assert SparseData(tall).gram() is not None
    assert SparseData(wide).gram() is None
    assert DenseData(rng.standard_normal((100, 30))).gram() is not None
    assert DenseData(rng.standard_normal((10, 300))).gram() is None


@pytest.mark.parametrize("center,scale", [(True, False), (False, False), (True, True)])
def test_gram_products_equal_implicit_products(center, scale):
    X = sp.random(500, 30, density=0.2, random_state=3, format="csr") * 3.0
    op = SparseData(X, center=center, scale=scale)
    V = np.random.default_rng(4).standard_normal((30, 3))
    implicit = op.rdot(op.dot(V))
    assert op.gram() is not None
    np.testing.assert_allclose(op.matmat(V), implicit, rtol=1e-10, atol=1e-12)
    idx = np.array([3, 7, 11])
    np.testing.assert_array_equal(op.block(idx), op.gram()[np.ix_(idx, idx)])
    sub = op.restrict(idx)
    np.testing.assert_allclose(sub.to_dense(), op.gram()[np.ix_(idx, idx)], atol=1e-12)
    Xd = X.toarray()
    ref = DenseData(Xd, center=center, scale=scale)
    np.testing.assert_allclose(op.to_dense(), ref.to_dense(), rtol=1e-9, atol=1e-12)


# ------------------------------------------------------- tied variances in DSPCA / BCA
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


def test_bca_with_scale_true_does_not_crash():
    X = load_breast_cancer().data[:, :12]
    res = es.sparse_pca(X, n_components=2, cardinality=4, method="bca", scale=True,
                        random_state=0)
    assert [np.count_nonzero(c) for c in res.components] == [4, 4]
    assert np.all(np.isfinite(res.variances))


# ------------------------------------------------------------------ monotone bounds
def test_monotone_upper_bounds_is_the_suffix_minimum():
    b = np.array([3.0, 2.5, 4.0, 3.5, 5.0])
    np.testing.assert_array_equal(monotone_upper_bounds(b), [2.5, 2.5, 3.5, 3.5, 5.0])


def test_variance_cardinality_path_bounds_are_monotone_and_valid():
    C = np.corrcoef(load_breast_cancer().data[:, :12], rowvar=False)
    path = variance_cardinality_path(es.Covariance(C), 6, relaxation=False)
    ub = path.upper_bounds
    assert np.all(np.diff(ub) >= -1e-12)
    for k in range(1, 7):
        assert ub[k - 1] >= exhaustive(es.Covariance(C), k).variance - 1e-9


def test_sparse_columns_without_gram_match_the_dense_operator():
    X = sp.random(40, 400, density=0.05, random_state=5, format="csr")
    op = SparseData(X, center=True)
    assert op.gram() is None
    ref = DenseData(X.toarray()).to_dense()
    for idx in (np.array([5]), np.arange(0, 400, 5)):  # implicit and sparse-product routes
        np.testing.assert_allclose(op.columns(idx), ref[:, idx], atol=1e-12)
