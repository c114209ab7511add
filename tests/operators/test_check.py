"""The operator self-check (``operators/_check.py``): exact on a correct operator, and
each broken product caught by name."""
import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.operators import Covariance, DenseData
from eigensparse.operators._check import check_operator


def _data(seed, n=40, p=9, density=0.4):
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, (n, p)).astype(float) * (rng.random((n, p)) < density)
    X[:, 0] += 5.0
    return X


def test_check_operator_catches_broken_products():
    X = _data(3)

    class WrongAdjoint(DenseData):
        def rdot(self, Y):
            return 1.01 * super().rdot(Y)

    class WrongDiag(DenseData):
        def diag(self):
            return super().diag() + 1e-3

    errors = check_operator(DenseData(X))
    assert errors["adjoint (Ax)·z = x·(Aᵀz)"] < 1e-12 and len(errors) == 13
    with pytest.raises(AssertionError, match="adjoint"):
        check_operator(WrongAdjoint(X))
    with pytest.raises(AssertionError, match="diag = Σ e_i"):
        check_operator(WrongDiag(X))
    with pytest.raises(InvalidParameterError, match="Operator"):
        check_operator(np.eye(3))


def test_a_non_symmetric_product_fails_the_dot_test_and_only_it():
    """Σ + εK with K skew-symmetric has the diagonal, trace and quadratic forms of Σ: only
    the dot test x·(Σy) = (Σx)·y (and the products read off Σe_i) can see it."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 6))
    S = A @ A.T
    K = 1e-3 * (A - A.T)

    class Skewed(Covariance):
        def matmat(self, V):
            return super().matmat(V) + K @ V

    errors = check_operator(Covariance(S))
    assert max(errors.values()) < 1e-12
    with pytest.raises(AssertionError, match="dot test") as exc:
        check_operator(Skewed(S))
    assert "quad" not in str(exc.value) and "trace" not in str(exc.value)
    # a loose enough tolerance accepts it: the differences are relative, about 1e-4 here
    loose = check_operator(Skewed(S), rtol=1e-2)
    assert 1e-6 < loose["dot test x·(Σy) = (Σx)·y"] < 1e-2
