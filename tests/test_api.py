"""The functional API: multi-component behaviour and bad input."""
import numpy as np
import pytest
import scipy.sparse as sp

import eigensparse as es
from eigensparse import Covariance, InvalidParameterError, sparse_pca
from eigensparse.datasets import load_pitprops, make_spiked_covariance
from eigensparse.operators import DenseData


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(0)
    return rng.standard_normal((60, 12)) @ rng.standard_normal((12, 12))


@pytest.mark.parametrize("deflation", ["schur", "projection", "orthogonal", "hotelling", "disjoint"])
def test_every_deflation_gives_exact_cardinalities(X, deflation):
    res = sparse_pca(X, n_components=3, cardinality=[4, 3, 2], method="greedy", deflation=deflation)
    assert res.components.shape == (3, 12)
    assert [s.size for s in res.supports] == [4, 3, 2]
    assert np.allclose(np.linalg.norm(res.components, axis=1), 1)
    S = DenseData(X).to_dense()
    assert np.allclose(res.variances, np.einsum("ij,jk,ik->i", res.components, S, res.components))
    # adjusted variance never exceeds the plain variance and sums below the trace
    assert np.all(res.explained_variance <= res.variances + 1e-9)
    assert res.explained_variance.sum() <= np.trace(S) + 1e-9
    if deflation == "disjoint":
        allsupp = np.concatenate(res.supports)
        assert np.unique(allsupp).size == allsupp.size


def test_full_cardinality_is_pca(X):
    res = sparse_pca(X, n_components=1, cardinality=12, method="greedy")
    S = DenseData(X).to_dense()
    w, V = np.linalg.eigh(S)
    assert np.isclose(res.variances[0], w[-1], rtol=1e-10)
    assert abs(abs(res.components[0] @ V[:, -1]) - 1) < 1e-8


def test_sparse_equals_dense(X):
    Xs = np.where(np.abs(X) > 1.0, X, 0.0)
    a = sparse_pca(Xs, n_components=2, cardinality=4, method="greedy")
    b = sparse_pca(sp.csr_matrix(Xs), n_components=2, cardinality=4, method="greedy")
    assert np.allclose(a.components, b.components, atol=1e-10)
    assert np.allclose(a.variances, b.variances, rtol=1e-10)


def test_covariance_input_and_pitprops():
    b = load_pitprops()
    res = sparse_pca(Covariance(b.data), n_components=3, cardinality=5, method="greedy")
    assert res.components.shape == (3, 13)
    assert res.total_variance == pytest.approx(13.0)
    assert res.variances[0] <= np.linalg.eigvalsh(b.data)[-1] + 1e-12


def test_spiked_model_recovered_by_greedy():
    for seed in range(5):
        X, v, supp = make_spiked_covariance(200, 100, 20, signal=10.0, random_state=seed)
        res = sparse_pca(X, n_components=1, cardinality=20, method="greedy")
        assert np.array_equal(res.supports[0], supp)


def test_same_random_state_same_output(X):
    a = sparse_pca(X, n_components=2, cardinality=3, random_state=4)
    b = sparse_pca(X, n_components=2, cardinality=3, random_state=4)
    assert np.array_equal(a.components, b.components)


def test_sign_rule(X):
    res = sparse_pca(X, n_components=3, cardinality=4, method="greedy")
    for c in res.components:
        assert c[np.argmax(np.abs(c))] > 0


@pytest.mark.parametrize("kwargs, match", [
    (dict(cardinality=0), "'cardinality'.*\\[1, n_features=12\\]"),
    (dict(cardinality=-2), "'cardinality'"),
    (dict(cardinality=13), "'cardinality'.*got 13"),
    (dict(n_components=13), "'n_components'.*n_features=12"),
    (dict(n_components=0), "'n_components'"),
    (dict(n_components=2, cardinality=[3, 3, 3]), "'cardinality' is a list of length 3.*n_components=2"),
    (dict(cardinality=2.5), "'cardinality'"),
    (dict(method="nope"), "'method' must be one of"),
    (dict(deflation="nope"), "'deflation'"),
    (dict(method="greedy", bogus=1), "unknown option"),
    (dict(n_components=4, cardinality=4, deflation="disjoint"), "sum\\(cardinality\\)"),
    (dict(penalty=-1.0), "'penalty'"),
])
def test_bad_parameters(X, kwargs, match):
    kwargs = {"method": "greedy", **kwargs}
    if kwargs.get("deflation") == "disjoint":
        X = X[:, :10]
        kwargs["cardinality"] = 3
    with pytest.raises(InvalidParameterError, match=match):
        sparse_pca(X, **kwargs)


@pytest.mark.parametrize("data, match", [
    (np.array([[1.0, np.nan], [2.0, 3.0]]), "NaN"),
    (np.array([[1.0, np.inf], [2.0, 3.0]]), "infinite"),
    (np.zeros((0, 4)), "empty"),
    (np.ones((1, 4)), "1 sample"),
    ("text", "2-D|numeric"),
])
def test_bad_data(data, match):
    with pytest.raises(InvalidParameterError, match=match):
        sparse_pca(data, n_components=1, cardinality=1, method="greedy")


def test_available_methods_lists_core():
    names = es.available_methods()
    for m in ["threshold", "greedy", "approx_greedy", "scol", "mcol", "am", "tpower", "exhaustive"]:
        assert m in names
