"""Pieces every solver shares (``solvers/_common.py``): loadings polished on a support
are the leading eigenvector of Σ[I, I], results are normalised with the sign convention
and the variance read on the operator, and a repeated top eigenvalue keeps the support."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse.operators import Covariance, DenseData, SparseData
from eigensparse.solvers._common import make_result, polish, polish_loadings


@pytest.mark.parametrize("kind", ["cov", "dense", "sparse"])
def test_polished_loadings_are_the_leading_eigenvector_of_the_block(kind):
    rng = np.random.default_rng(0)
    X = sp.random(50, 12, density=0.4, random_state=1, format="csr")
    X.data = rng.standard_normal(X.data.size)
    op = {"cov": Covariance(np.cov(X.toarray(), rowvar=False)),
          "dense": DenseData(X.toarray()), "sparse": SparseData(X)}[kind]
    S = op.to_dense()
    I = np.array([7, 2, 9, 4])  # unsorted on purpose
    x, lam = polish_loadings(op, I)
    w, V = np.linalg.eigh(S[np.ix_(np.sort(I), np.sort(I))])
    assert lam == pytest.approx(w[-1], rel=1e-12)
    assert np.count_nonzero(x[np.setdiff1d(np.arange(12), I)]) == 0
    assert abs(x[np.sort(I)] @ V[:, -1]) == pytest.approx(1.0, abs=1e-10)
    assert x @ S @ x == pytest.approx(lam, rel=1e-10)
    assert np.abs(x).max() == x.max()  # the sign convention: largest entry positive
    # no loading vector on these four features does better
    for _ in range(200):
        y = np.zeros(12)
        y[I] = rng.standard_normal(4)
        y /= np.linalg.norm(y)
        assert y @ S @ y <= lam * (1 + 1e-12)


def test_a_repeated_top_eigenvalue_keeps_every_index_of_the_support():
    """Σ[I, I] = 2·I: any unit vector on I is optimal; the polished one must use all of I
    (an eigen-solver may return a coordinate vector)."""
    S = np.diag([2.0, 2.0, 2.0, 1.0, 0.5])
    x, lam = polish_loadings(Covariance(S), [0, 1, 2])
    assert lam == pytest.approx(2.0)
    np.testing.assert_array_equal(np.flatnonzero(x), [0, 1, 2])
    np.testing.assert_allclose(x[:3], 1 / np.sqrt(3), rtol=1e-10)


def test_make_result_normalises_fixes_the_sign_and_reads_the_variance():
    rng = np.random.default_rng(2)
    A = rng.standard_normal((8, 8))
    op = Covariance(A @ A.T)
    res = make_result(op, [0.0, 3.0, 0.0, -4.0, 0, 0, 0, 0], "manual", n_iter=5)
    np.testing.assert_allclose(res.loadings[[1, 3]], [-0.6, 0.8])  # flipped: -0.8 was largest
    np.testing.assert_array_equal(res.support, [1, 3])
    assert res.variance == pytest.approx(res.loadings @ op.to_dense() @ res.loadings)
    assert res.method == "manual" and res.n_iter == 5
    given = make_result(op, [1.0, 0, 0, 0, 0, 0, 0, 0], "manual", variance=123.0)
    assert given.variance == 123.0  # a variance handed in is trusted, not recomputed
    zero = make_result(op, np.zeros(8), "manual")
    assert zero.support.size == 0 and zero.variance == 0.0


def test_polish_is_make_result_of_the_polished_loadings():
    rng = np.random.default_rng(3)
    op = DenseData(rng.standard_normal((30, 10)))
    res = polish(op, [5, 1, 8], "mine", converged=True)
    x, lam = polish_loadings(op, [5, 1, 8])
    np.testing.assert_array_equal(res.loadings, x)
    assert res.variance == lam and res.method == "mine" and res.converged
    np.testing.assert_array_equal(res.support, [1, 5, 8])
