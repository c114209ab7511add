"""The bounds' shared helpers: λmax of a Gram matrix and of an operator, the checks."""
import numpy as np
import pytest

from eigensparse import Covariance, InvalidParameterError
from eigensparse.bounds._common import _check_card, _lam_max_gram, _lambda_max_op


def test_lambda_max_helpers_agree_with_a_dense_eigensolve():
    W = np.random.default_rng(1).standard_normal((30, 12))
    top = np.linalg.eigvalsh(W @ W.T)[-1]
    assert _lam_max_gram(W) == pytest.approx(top, rel=1e-10)
    assert _lam_max_gram(np.zeros((0, 3))) == 0.0
    assert _lambda_max_op(Covariance(W.T @ W)) == pytest.approx(top, rel=1e-10)


def test_a_cardinality_above_the_features_is_refused():
    assert _check_card(3, 5) == 3
    with pytest.raises(InvalidParameterError, match=r"'cardinality' .*n_features=5"):
        _check_card(6, 5)
