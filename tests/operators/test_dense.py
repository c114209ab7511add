"""Data operators (``operators/_dense.py``): sparse implicit centering equals dense
explicit centering without densifying, bad data refused by name, the scale rule, and the
dense square root of a covariance."""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse import InvalidParameterError
from eigensparse.operators import Covariance, as_operator
from eigensparse.operators._dense import (DenseData, SparseData, dense_square_root,
                                          scale_from_variance)

TOL = 1e-10


def test_sparse_implicit_centering_never_densifies():
    X = sp.random(2000, 500, density=0.01, format="csr", random_state=0)
    op = SparseData(X)
    assert sp.issparse(op._X) and sp.issparse(op._XT)
    Xd = X.toarray()
    ref = DenseData(Xd)
    V = np.random.default_rng(0).standard_normal((500, 3))
    assert np.abs(op.matmat(V) - ref.matmat(V)).max() < TOL
    assert np.abs(op.diag() - ref.diag()).max() < TOL


@pytest.mark.parametrize("X, match", [
    (np.array([[1.0, np.inf], [0.0, 1.0]]), "infinite"),
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "NaN"),
    (np.zeros((0, 3)), "empty"),
    (np.ones((1, 3)), "1 sample"),
    (np.ones(5), "2-D"),
])
def test_data_operators_reject_bad_input(X, match):
    with pytest.raises(InvalidParameterError, match=match):
        as_operator(X)
    if X.ndim == 2:
        with pytest.raises(InvalidParameterError, match=match):
            as_operator(sp.csr_matrix(X))


def test_scale_is_the_standard_deviation_and_one_for_constant_features():
    np.testing.assert_array_equal(scale_from_variance(np.array([4.0, 0.0, 0.25]), True),
                                  [2.0, 1.0, 0.5])
    np.testing.assert_array_equal(scale_from_variance(np.array([4.0, 0.0]), False), [1.0, 1.0])


@pytest.mark.parametrize("sparse", [False, True])
def test_scaled_data_give_the_correlation_matrix(sparse):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((80, 6)) * [1.0, 10.0, 0.1, 3.0, 1.0, 5.0] + 2.0
    X[:, 4] = 7.0  # a constant feature: zero variance, left unscaled
    op = SparseData(sp.csr_matrix(X), scale=True) if sparse else DenseData(X, scale=True)
    C = np.corrcoef(np.delete(X, 4, axis=1), rowvar=False)
    D = op.to_dense()
    np.testing.assert_allclose(np.delete(np.delete(D, 4, 0), 4, 1), C, atol=1e-12)
    assert np.abs(D[4]).max() < 1e-12


def test_dense_square_root_of_a_rank_deficient_covariance():
    rng = np.random.default_rng(5)
    B = rng.standard_normal((3, 8))
    S = B.T @ B  # rank 3
    F = dense_square_root(Covariance(S))
    assert F.has_data and F.n_samples == 3
    np.testing.assert_allclose(F.rdot(F.dot(np.eye(8))), S, atol=1e-10)
    np.testing.assert_allclose(F.to_dense(), S, atol=1e-10)


@pytest.mark.parametrize("cls", ["DenseData", "SparseData"])
@pytest.mark.parametrize("param", ["center", "scale"])
def test_center_and_scale_must_be_booleans(cls, param):
    """center="no" was truthy: the data were centered against the caller's word."""
    import scipy.sparse as sp

    import eigensparse.operators as ops
    from eigensparse import InvalidParameterError

    X = np.random.default_rng(0).standard_normal((10, 3))
    with pytest.raises(InvalidParameterError, match=f"'{param}' parameter of {cls}"):
        getattr(ops, cls)(X if cls == "DenseData" else sp.csr_matrix(X), **{param: "no"})
