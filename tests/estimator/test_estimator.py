"""The scikit-learn estimator."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils.estimator_checks import parametrize_with_checks

from eigensparse import InvalidParameterError, SparsePCA, sparse_pca
from eigensparse.datasets import make_spiked_covariance


@parametrize_with_checks([
    SparsePCA(),
    SparsePCA(method="am", n_starts=4, random_state=0),
    SparsePCA(method="greedy"),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def X():
    X, _, _ = make_spiked_covariance(120, 30, 6, signal=4.0, random_state=1)
    return X


def test_attributes_and_roundtrip(X):
    est = SparsePCA(n_components=3, cardinality=6, method="greedy").fit(X)
    assert est.components_.shape == (3, 30)
    assert np.allclose(np.linalg.norm(est.components_, axis=1), 1)
    assert [s.size for s in est.supports_] == [6, 6, 6]
    assert np.allclose(est.mean_, X.mean(0))
    assert est.n_iter_.shape == (3,)
    Z = est.transform(X)
    assert np.allclose(Z, (X - X.mean(0)) @ est.components_.T)
    assert np.allclose(est.fit_transform(X), Z)
    back = est.inverse_transform(Z)
    W = est.components_
    assert back.shape == X.shape
    assert np.allclose(back, Z @ W + X.mean(0))  # the linear map back, mean restored
    # transform after inverse_transform multiplies the scores by the Gram matrix W Wᵀ of the
    # components: the identity exactly when the loadings are orthonormal, not in general
    G = W @ W.T
    assert np.allclose(est.transform(back), Z @ G, atol=1e-10)
    assert np.allclose(np.diag(G), 1.0)
    total = np.trace(np.cov(X.T, bias=True))
    assert np.allclose(est.explained_variance_ratio_, est.explained_variance_ / total)
    res = sparse_pca(X, n_components=3, cardinality=6, method="greedy")
    assert np.allclose(res.components, est.components_)
    assert list(est.get_feature_names_out()) == ["sparsepca0", "sparsepca1", "sparsepca2"]


def test_sparse_transform_matches_dense(X):
    Xs = np.where(np.abs(X) > 0.8, X, 0.0)
    a = SparsePCA(n_components=2, cardinality=5, method="greedy").fit(Xs)
    b = SparsePCA(n_components=2, cardinality=5, method="greedy").fit(sp.csr_matrix(Xs))
    assert np.allclose(a.components_, b.components_)
    assert np.allclose(a.transform(Xs), b.transform(sp.csr_matrix(Xs)))


def test_pandas_feature_names_and_topics(X):
    pd = pytest.importorskip("pandas")
    cols = [f"w{i}" for i in range(X.shape[1])]
    est = SparsePCA(n_components=2, cardinality=4, method="greedy").fit(pd.DataFrame(X, columns=cols))
    assert list(est.feature_names_in_) == cols
    topics = est.topics()
    assert len(topics) == 2 and len(topics[0]) == 4
    for t, c in zip(topics, est.components_):
        mags = [abs(v) for _, v in t]
        assert mags == sorted(mags, reverse=True)
        for w, v in t:
            assert c[cols.index(w)] == v
    assert len(est.topics(n_words=2)[0]) == 2
    with pytest.raises(InvalidParameterError, match="vocabulary"):
        est.topics(vocabulary=["a", "b"])


def test_scale_option_uses_correlation(X):
    Xs = X * np.arange(1, 31)
    est = SparsePCA(n_components=1, cardinality=30, method="greedy", scale=True).fit(Xs)
    C = np.corrcoef(Xs.T)
    assert np.isclose(est.component_variances_[0], np.linalg.eigvalsh(C)[-1])


@pytest.mark.parametrize("params, match", [
    (dict(method="nope"), "method"),
    (dict(deflation="nope"), "deflation"),
    (dict(n_components=0), "n_components"),
    (dict(cardinality=0), "cardinality"),
    (dict(cardinality=31), "cardinality"),
    (dict(n_components=40), "n_components"),
    (dict(n_components=2, cardinality=[2, 2, 2]), "cardinality"),
])
def test_estimator_bad_params(X, params, match):
    with pytest.raises(ValueError, match=match):
        SparsePCA(**params).fit(X)


def test_estimator_bad_data():
    with pytest.raises(ValueError, match="NaN"):
        SparsePCA().fit(np.array([[1.0, np.nan], [0.0, 1.0], [2.0, 2.0]]))
    with pytest.raises(ValueError, match="1 sample"):
        SparsePCA().fit(np.ones((1, 3)))


@pytest.mark.parametrize("scores, match", [(np.ones((3, 2)) + 1j, "complex numbers"),
                                           (np.full((3, 2), np.nan), "NaN"),
                                           (np.full((3, 2), np.inf), "infinite")])
def test_inverse_transform_refuses_what_transform_refuses(scores, match):
    """inverse_transform cast complex scores with NumPy's warning (the imaginary part
    dropped) and turned NaN into rows of NaN, where transform refuses both."""
    import warnings

    from eigensparse import InvalidParameterError, SparsePCA

    X = np.random.default_rng(0).standard_normal((30, 5))
    est = SparsePCA(n_components=2, cardinality=2).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidParameterError, match=match):
            est.inverse_transform(scores)
        np.testing.assert_allclose(est.inverse_transform(sp.csr_matrix(np.ones((3, 2)))),
                                   est.inverse_transform(np.ones((3, 2))))
