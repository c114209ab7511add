"""eigensparse._linalg: the small dense helpers, against NumPy's full decompositions."""
import numpy as np
import pytest

from eigensparse._linalg import (SMALL_EIGH, fix_sign, lambda_max_symmetric,
                                 normalize_on_support, support_of, top_eigh)


def _sym(m, seed):
    A = np.random.default_rng(seed).standard_normal((m + 3, m))
    return A.T @ A


@pytest.mark.parametrize("m", [1, 2, SMALL_EIGH, SMALL_EIGH + 1, 60])
def test_top_eigh_is_the_largest_eigenpair_on_both_routes(m):
    S = _sym(m, m)
    lam, v = top_eigh(S)
    w = np.linalg.eigvalsh(S)
    assert lam == pytest.approx(w[-1], rel=1e-12)
    assert np.linalg.norm(v) == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(S @ v, lam * v, atol=1e-9 * max(1.0, abs(lam)))


def test_lambda_max_of_the_symmetric_part():
    M = np.random.default_rng(1).standard_normal((25, 25))  # not symmetric
    assert lambda_max_symmetric(M) == pytest.approx(np.linalg.eigvalsh((M + M.T) / 2)[-1],
                                                    rel=1e-12)
    assert lambda_max_symmetric(np.zeros((0, 0))) == 0.0
    assert lambda_max_symmetric([[-4.0]]) == -4.0


def test_fix_sign_makes_the_largest_magnitude_positive_rowwise():
    X = np.random.default_rng(2).standard_normal((50, 7))
    Y = fix_sign(X)
    idx = np.argmax(np.abs(X), axis=1)
    assert np.all(Y[np.arange(50), idx] > 0)
    np.testing.assert_array_equal(np.abs(Y), np.abs(X))  # only signs change, row by row
    assert np.all((Y == X).all(axis=1) | (Y == -X).all(axis=1))
    for x in X:
        np.testing.assert_array_equal(fix_sign(x), Y[np.argmax((X == x).all(axis=1))])
    # ties: the lowest index decides
    assert fix_sign([-1.0, 1.0]).tolist() == [1.0, -1.0]
    assert fix_sign(np.zeros(0)).size == 0


def test_support_and_normalisation():
    x = np.array([0.0, 3.0, 0.0, -4.0, 0.0])
    assert support_of(x).tolist() == [1, 3]
    y = normalize_on_support(x)
    assert y.tolist() == [0.0, 0.6, 0.0, -0.8, 0.0]
    z = np.zeros(4)
    np.testing.assert_array_equal(normalize_on_support(z), z)
