"""eigensparse.operators._gram: the one policy for forming the Gram matrix, and the
cache that forms it once, symmetrises it and hands slices to restricted copies."""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse.operators import DenseData, SparseData
from eigensparse.operators._gram import GRAM_MAX_FEATURES, GramCache, gram_is_cheap


@pytest.mark.parametrize("p, cost, expected", [
    (100, 100 * 100, True),            # p² equal to one implicit product: formed
    (100, 100 * 100 - 1, False),       # one multiply-add cheaper implicitly: not
    (GRAM_MAX_FEATURES, 1e12, True),
    (GRAM_MAX_FEATURES + 1, 1e12, False),  # never above the memory cap, whatever the cost
])
def test_gram_is_cheap_boundary(p, cost, expected):
    assert gram_is_cheap(p, cost) is expected


class _Counting(GramCache):
    """A minimal data operator over a fixed non-symmetric-by-rounding matrix."""

    def __init__(self, M, cost):
        self.M, self.cost, self.formed = M, cost, 0
        self.n_features = M.shape[0]

    def _product_cost(self):
        return self.cost

    def _form_gram(self):
        self.formed += 1
        return self.M.copy()


def test_cache_forms_once_and_symmetrises():
    M = np.array([[2.0, 1.0 + 1e-9], [1.0, 3.0]])
    op = _Counting(M, cost=10.0)
    S = op.gram()
    assert op.formed == 1 and op.gram() is S and op.formed == 1
    np.testing.assert_array_equal(S, S.T)
    assert S[0, 1] == pytest.approx(1.0 + 5e-10, abs=1e-15)
    never = _Counting(M, cost=3.0)  # 2² > 3: stays implicit, and the answer is cached too
    assert never.gram() is None and never.gram() is None and never.formed == 0


def test_restricted_copy_gets_the_slice_of_a_formed_gram():
    X = np.random.default_rng(0).standard_normal((200, 12))
    op = DenseData(X)
    S = op.gram()
    assert S is not None  # tall dense data: formed
    np.testing.assert_allclose(S, np.cov(X, rowvar=False, bias=True), atol=1e-12)
    idx = np.array([1, 4, 9])
    sub = op.restrict(idx)
    np.testing.assert_array_equal(sub.gram(), S[np.ix_(idx, idx)])


def test_wide_sparse_data_stays_implicit():
    X = sp.random(30, 600, density=0.02, random_state=1, format="csr")
    op = SparseData(X)
    assert not gram_is_cheap(600, op._product_cost()) and op.gram() is None


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


def test_sparse_columns_without_gram_match_the_dense_operator():
    X = sp.random(40, 400, density=0.05, random_state=5, format="csr")
    op = SparseData(X, center=True)
    assert op.gram() is None
    ref = DenseData(X.toarray()).to_dense()
    for idx in (np.array([5]), np.arange(0, 400, 5)):  # implicit and sparse-product routes
        np.testing.assert_allclose(op.columns(idx), ref[:, idx], atol=1e-12)
