"""The operator protocol (``operators/_base.py``): the products an operator derives from
``diag`` and ``matmat`` alone, restriction to a subset of features, and principal blocks."""
import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.operators import Covariance, DenseData
from eigensparse.operators._base import Operator, RestrictedOperator, principal_block


def test_principal_block_equals_fancy_indexing():
    rng = np.random.default_rng(1)
    S = rng.standard_normal((50, 50))
    for idx in ([3, 1, 1, 49], np.arange(50), [], rng.permutation(50)[:17]):
        idx = np.asarray(idx, dtype=np.intp)
        assert np.array_equal(principal_block(S, idx), S[np.ix_(idx, idx)])


class _DiagMatmat(Operator):
    """The least an operator implements: ``diag`` and ``matmat`` of a dense Σ."""

    def __init__(self, S):
        self.S, self.n_features = S, S.shape[0]

    def diag(self):
        return np.diag(self.S).copy()

    def matmat(self, V):
        return self.S @ V


def _spd(p, seed):
    A = np.random.default_rng(seed).standard_normal((p + 3, p))
    return A.T @ A


def test_products_derived_from_diag_and_matmat_equal_the_dense_matrix():
    S = _spd(7, 0)
    op = _DiagMatmat(S)
    v = np.random.default_rng(1).standard_normal((7, 3))
    idx = [5, 0, 3]
    assert op.shape == (7, 7)
    np.testing.assert_allclose(op.matvec(v[:, 0]), S @ v[:, 0], rtol=1e-12)
    np.testing.assert_allclose(op.quad(v), np.einsum("ij,ij->j", v, S @ v), rtol=1e-12)
    assert op.quad(v[:, 0]) == pytest.approx(v[:, 0] @ S @ v[:, 0], rel=1e-12)
    np.testing.assert_allclose(op.columns(idx), S[:, idx], rtol=1e-12)
    np.testing.assert_allclose(op.block(idx), S[np.ix_(idx, idx)], rtol=1e-12)
    np.testing.assert_allclose(op.to_dense(), S, rtol=1e-12)
    assert op.trace() == pytest.approx(np.trace(S), rel=1e-12)
    assert not op.has_data


def test_without_a_square_root_dot_rdot_and_factor_refuse_clearly():
    op = _DiagMatmat(_spd(4, 2))
    with pytest.raises(InvalidParameterError, match="no data square root"):
        op.dot(np.ones(4))
    with pytest.raises(InvalidParameterError, match="no data square root"):
        op.rdot(np.ones(3))
    with pytest.raises(InvalidParameterError, match="factor"):
        op.factor()


@pytest.mark.parametrize("parent", ["cov", "data"])
def test_restriction_of_a_restriction_is_the_nested_block(parent):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 9))
    op = DenseData(X) if parent == "data" else Covariance(DenseData(X).to_dense())
    S = op.to_dense()
    outer, inner = np.array([8, 1, 4, 6, 2]), np.array([3, 0, 4])
    R = RestrictedOperator(op, outer)
    RR = R.restrict(inner)
    np.testing.assert_allclose(RR.to_dense(), S[np.ix_(outer[inner], outer[inner])], atol=1e-12)
    v = rng.standard_normal(5)
    np.testing.assert_allclose(R.matvec(v), S[np.ix_(outer, outer)] @ v, atol=1e-12)
    np.testing.assert_allclose(R.columns([1, 2]), S[np.ix_(outer, outer[[1, 2]])], atol=1e-12)
    np.testing.assert_allclose(R.diag(), np.diag(S)[outer], atol=1e-12)
    F = R.factor()  # a data square root of Σ[outer, outer], from the data or from eigh
    assert F.has_data
    np.testing.assert_allclose(F.rdot(F.dot(np.eye(5))), S[np.ix_(outer, outer)], atol=1e-9)


@pytest.mark.parametrize("idx", [[0, 9], [-1, 2], [[0, 1]]])
def test_restriction_to_bad_indices_names_the_parameter(idx):
    with pytest.raises(InvalidParameterError, match="'idx'.*\\[0, 9\\)"):
        RestrictedOperator(Covariance(np.eye(9)), idx)
