"""Component order (issue 10, item 3): by decreasing variance in `_dispatch.assemble`,
the deflation's order on request, per-component results kept aligned with the rows."""
import numpy as np
import pytest

from eigensparse import Covariance, InvalidParameterError, SparsePCA, adjusted_variance, sparse_pca
from eigensparse.operators import as_operator


@pytest.fixture(scope="module")
def X():
    """A 6-feature factor (variance 5 each, strongly correlated) and one lone feature of
    variance 9: with cardinalities [1, 6] the deflation finds the lone feature first
    (9 > 5), then the factor (about 25)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((400, 10))
    X[:, :6] += 2 * rng.standard_normal((400, 1))
    X[:, 8] *= 3
    return X


@pytest.mark.parametrize("method", ["greedy", "exhaustive", "tpower"])
def test_sorted_by_variance_with_rows_aligned(X, method):
    found = sparse_pca(X, n_components=2, cardinality=[1, 6], method=method, random_state=0,
                       order="deflation")
    res = sparse_pca(X, n_components=2, cardinality=[1, 6], method=method, random_state=0)
    assert found.supports[0].tolist() == [8] and found.variances[0] < found.variances[1]
    assert found.info["found_at"] == [0, 1] and found.info["order"] == "deflation"
    # default: the factor first; everything per component follows its row
    assert res.info["found_at"] == [1, 0] and res.info["order"] == "variance"
    assert res.info["cardinalities"] == [6, 1]
    assert np.all(np.diff(res.variances) < 0)
    assert np.allclose(res.components, found.components[[1, 0]])
    assert np.allclose(res.variances, found.variances[[1, 0]])
    for j in range(2):
        assert res.supports[j].tolist() == res.results[j].support.tolist()
        assert res.supports[j].size == res.info["cardinalities"][j]
        twin = found.results[res.info["found_at"][j]]
        assert res.results[j].variance == twin.variance and res.results[j].n_iter == twin.n_iter
    # adjusted variances recomputed in the new order (they depend on it)
    op = as_operator(X)
    assert np.allclose(res.explained_variance, adjusted_variance(op, res.components))
    assert np.allclose(found.explained_variance, adjusted_variance(op, found.components))
    assert not np.allclose(res.explained_variance, found.explained_variance[[1, 0]])
    assert res.explained_variance[0] == pytest.approx(res.variances[0])


def test_estimator_order_and_attributes(X):
    a = SparsePCA(2, cardinality=[1, 6], method="greedy").fit(X)
    b = SparsePCA(2, cardinality=[1, 6], method="greedy", order="deflation").fit(X)
    assert [s.size for s in a.supports_] == [6, 1] and [s.size for s in b.supports_] == [1, 6]
    assert np.all(np.diff(a.component_variances_) < 0)
    assert np.allclose(a.transform(X), b.transform(X)[:, [1, 0]])
    assert a.n_iter_.tolist() == b.n_iter_[[1, 0]].tolist()


def test_covariance_and_data_agree_on_order(X):
    S = np.cov(X.T, bias=True)
    a = sparse_pca(Covariance(S), n_components=3, cardinality=[1, 6, 2], method="greedy")
    b = sparse_pca(X, n_components=3, cardinality=[1, 6, 2], method="greedy")
    assert np.allclose(a.components, b.components) and a.info["found_at"] == b.info["found_at"]


def test_bad_order_is_named():
    X = np.random.default_rng(0).standard_normal((20, 4))
    # scikit-learn's message lists the valid values as a set (in no fixed order)
    with pytest.raises(InvalidParameterError, match="'order'") as err:
        sparse_pca(X, n_components=1, cardinality=2, order="nope")
    assert "'variance'" in str(err.value) and "'deflation'" in str(err.value)
    assert "'nope'" in str(err.value)
    with pytest.raises(ValueError, match="order"):
        SparsePCA(1, cardinality=2, order="nope").fit(X)
