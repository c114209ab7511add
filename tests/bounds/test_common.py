"""The bounds' shared helpers: λmax of a Gram matrix and of an operator, the checks."""
import numpy as np
import pytest

from eigensparse import Covariance, InvalidParameterError
from eigensparse._linalg import lambda_max_gram, lambda_max_op
from eigensparse.bounds._common import _check_card


def test_lambda_max_helpers_agree_with_a_dense_eigensolve():
    W = np.random.default_rng(1).standard_normal((30, 12))
    top = np.linalg.eigvalsh(W @ W.T)[-1]
    assert lambda_max_gram(W) == pytest.approx(top, rel=1e-10)
    assert lambda_max_gram(np.zeros((0, 3))) == 0.0
    assert lambda_max_op(Covariance(W.T @ W)) == pytest.approx(top, rel=1e-10)


def test_a_cardinality_above_the_features_is_refused():
    assert _check_card(3, 5) == 3
    with pytest.raises(InvalidParameterError, match=r"'cardinality' .*n_features=5"):
        _check_card(6, 5)
