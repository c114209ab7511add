"""Deflation between components (``multi/_deflation.py``): each scheme removes the found
component, orthogonal deflation orthogonalises against the earlier ones, and the loop
gives the components a manual solve-deflate-solve gives."""
import numpy as np
import pytest

from eigensparse import InvalidParameterError, sparse_pca
from eigensparse.datasets import load_pitprops
from eigensparse.multi._deflation import DEFLATIONS, deflate, run_deflation
from eigensparse.operators import Covariance, DenseData
from eigensparse.solvers import get_solver

TOL = 1e-10


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(0)
    return rng.standard_normal((60, 12)) @ rng.standard_normal((12, 12))


def _data(seed, n=40, p=9, density=0.4):
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, (n, p)).astype(float) * (rng.random((n, p)) < density)
    X[:, 0] += 5.0
    return X


def test_orthogonal_deflation_orthogonalizes_against_earlier():
    X = _data(3, n=50, p=6)
    op0 = DenseData(X)
    Q = []
    x1 = np.eye(6)[0]
    x2 = (np.eye(6)[0] + np.eye(6)[1]) / np.sqrt(2)
    op = deflate(deflate(op0, x1, "orthogonal", Q), x2, "orthogonal", Q)
    assert len(Q) == 2 and abs(Q[0] @ Q[1]) < 1e-12
    D = op.to_dense()
    assert np.abs(D[:, :2]).max() < TOL  # both e1 and e2 projected out


def test_deflation_removes_found_component(X):
    """After Schur, projection or orthogonal deflation the found x carries no variance."""
    from eigensparse.multi import deflate

    op = DenseData(X)
    res = sparse_pca(X, n_components=1, cardinality=5, method="greedy")
    x = res.components[0]
    for scheme in ("schur", "projection", "orthogonal"):
        d = deflate(op, x, scheme, [])
        assert np.abs(d.matvec(x)).max() < 1e-9


def _greedy(op, s, t):
    return get_solver("greedy").func(op, s)


@pytest.mark.parametrize("scheme", ["schur", "projection", "hotelling", "orthogonal"])
def test_the_loop_is_solve_deflate_solve(scheme):
    S = Covariance(load_pitprops().data)
    got = run_deflation(S, _greedy, [4, 3, 2], scheme)
    op, Q = S, []
    for r, s in zip(got, [4, 3, 2]):
        ref = get_solver("greedy").func(op, s)
        np.testing.assert_array_equal(r.support, ref.support)
        np.testing.assert_allclose(r.loadings, ref.loadings, atol=1e-12)
        op = deflate(op, ref.loadings, scheme, Q)


def test_disjoint_supports_never_overlap_and_replayed_components_are_kept():
    S = Covariance(load_pitprops().data)
    out = run_deflation(S, _greedy, [3, 3, 3, 3], "disjoint")
    allsupp = np.concatenate([r.support for r in out])
    assert allsupp.size == 12 and np.unique(allsupp).size == 12
    # replaying the first two found components gives the same last two
    found = out[:2]
    again = run_deflation(S, _greedy, [3, 3, 3, 3], "disjoint", found=list(found))
    assert [r.support.tolist() for r in again] == [r.support.tolist() for r in out]


def test_bad_scheme_and_too_many_disjoint_features_are_refused_by_name():
    S = Covariance(load_pitprops().data)
    with pytest.raises(InvalidParameterError, match="'deflation'.*hotelling"):
        run_deflation(S, _greedy, [3], "bogus")
    with pytest.raises(InvalidParameterError, match="n_features=13.*14"):
        run_deflation(S, _greedy, [7, 7], "disjoint")
    assert set(DEFLATIONS) >= {"schur", "projection", "orthogonal", "hotelling", "disjoint"}
