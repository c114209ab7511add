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
def test_cardinality_list_keeps_its_order_with_rows_aligned(X, method):
    """A list of distinct cardinalities fixes the rows ([1, 6] gives rows of 1 and 6
    nonzeros, whatever their variances); everything per component follows its row."""
    found = sparse_pca(X, n_components=2, cardinality=[1, 6], method=method, random_state=0,
                       order="deflation")
    res = sparse_pca(X, n_components=2, cardinality=[1, 6], method=method, random_state=0)
    assert found.supports[0].tolist() == [8] and found.variances[0] < found.variances[1]
    assert found.info["found_at"] == [0, 1] and found.info["order"] == "deflation"
    assert res.info["found_at"] == [0, 1] and res.info["order"] == "variance"
    assert res.info["cardinalities"] == [1, 6]
    assert np.allclose(res.components, found.components)
    for j in range(2):
        assert res.supports[j].tolist() == res.results[j].support.tolist()
        assert res.supports[j].size == res.info["cardinalities"][j]
    op = as_operator(X)
    assert np.allclose(res.explained_variance, adjusted_variance(op, res.components))
    # one cardinality for all: sorted by variance, adjusted variances in the new order
    res1 = sparse_pca(X, n_components=3, cardinality=1, method=method, random_state=0)
    assert np.all(np.diff(res1.variances) <= 0)
    assert np.allclose(res1.explained_variance, adjusted_variance(op, res1.components))


def test_estimator_order_and_attributes(X):
    a = SparsePCA(2, cardinality=[1, 6], method="greedy").fit(X)
    b = SparsePCA(2, cardinality=[1, 6], method="greedy", order="deflation").fit(X)
    assert [s.size for s in a.supports_] == [1, 6] and [s.size for s in b.supports_] == [1, 6]
    assert np.allclose(a.transform(X), b.transform(X))
    assert a.n_iter_.tolist() == b.n_iter_.tolist()


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


@pytest.mark.parametrize("cards", [[4, 4, 5], [2, 4, 5], [5, 2, 3], [3, 6, 3, 2]])
def test_cardinality_list_is_honoured_position_by_position(cards):
    """Row i has cards[i] nonzeros whatever the variances (diabetes, [4, 4, 5]: the rows
    have 4, 4 and 5 nonzeros)."""
    from sklearn.datasets import load_diabetes

    import eigensparse as es

    X = load_diabetes().data
    res = es.sparse_pca(X, n_components=len(cards), cardinality=cards, scale=True,
                        random_state=0)
    assert [int(np.count_nonzero(c)) for c in res.components] == cards
    assert res.info["cardinalities"] == cards
    # components given the same cardinality are still sorted by variance between themselves
    for c in set(cards):
        rows = [i for i, v in enumerate(cards) if v == c]
        assert np.all(np.diff(res.variances[rows]) <= 1e-12)
    est = es.SparsePCA(n_components=len(cards), cardinality=cards, scale=True,
                       random_state=0).fit(X)
    assert [int(np.count_nonzero(c)) for c in est.components_] == cards
