"""What every single-component solver of the registry (``solvers/__init__.py``) shares:
registered with its options, never above the exhaustive optimum, the leading eigenvector
at full cardinality, the same answer on sparse and dense data, a bad cardinality refused.

Each solver's own behaviour is tested in its mirror (``test_greedy.py``,
``test_simple.py``, ``test_colpca.py``, ``test_exhaustive.py``, ...); the random
instances come from ``conftest.py``.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse._validation import InvalidParameterError
from eigensparse.operators import Covariance, DenseData, SparseData
# import the modules under test directly (each registers its solvers), so that this file
# does not depend on the other solver modules of the package importing cleanly
from eigensparse.solvers import SOLVERS, _colpca, _exhaustive, _greedy, _simple  # noqa: F401

METHODS = ["variance", "threshold", "greedy", "approx_greedy", "scol", "mcol", "exhaustive"]


def run(method, op, s, **kw):
    return SOLVERS[method].func(op, s, **kw)


def exhaustive_reference(S, s):
    """Naive optimum over all supports of size s (independent of the solver)."""
    return max(np.linalg.eigvalsh(S[np.ix_(I, I)])[-1]
               for I in map(list, itertools.combinations(range(S.shape[0]), s)))


# --------------------------------------------------------------------------- registry
def test_all_registered():
    for m in METHODS:
        assert m in SOLVERS
    assert "n_per_step" in SOLVERS["mcol"].options
    assert "max_supports" in SOLVERS["exhaustive"].options


# --------------------------------------------------------------------------- s = p
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", ["dense", "sparse", "cov"])
def test_full_cardinality_gives_leading_eigenvector(method, kind):
    rng = np.random.default_rng(7)
    p = 9
    v = rng.standard_normal(p)
    v /= np.linalg.norm(v)
    C = np.eye(p) + 4.0 * np.outer(v, v)  # eigengap 5 : 1
    if kind == "cov":
        op = Covariance(C)
    else:
        X = rng.standard_normal((400, p)) @ np.linalg.cholesky(C).T
        op = DenseData(X) if kind == "dense" else SparseData(sp.csr_matrix(X))
    S = op.to_dense()
    w, V = np.linalg.eigh(S)
    res = run(method, op, p)
    assert res.cardinality == p
    assert abs(res.loadings @ V[:, -1]) == pytest.approx(1.0, abs=1e-9)
    assert res.variance == pytest.approx(w[-1], rel=1e-10)
    assert np.linalg.norm(res.loadings) == pytest.approx(1.0)
    assert res.method == method


# --------------------------------------------------------------------------- optimality
@pytest.mark.parametrize("seed", range(60))
def test_never_above_exhaustive_and_variance_is_exact(seed, make_instance):
    op = make_instance(seed)
    p = op.n_features
    S = op.to_dense()
    rng = np.random.default_rng(1000 + seed)
    for s in sorted({1, int(rng.integers(1, p + 1)), int(rng.integers(1, p + 1))}):
        opt = run("exhaustive", op, s)
        ref = exhaustive_reference(S, s)
        tol = 1e-9 * max(1.0, ref)
        assert opt.variance == pytest.approx(ref, abs=tol)
        assert opt.upper_bound == opt.variance and opt.gap == 0
        for m in METHODS:
            res = run(m, op, s)
            assert res.variance <= ref + tol, (m, s)
            assert res.variance == pytest.approx(op.quad(res.loadings), abs=tol), m
            assert res.cardinality <= s
            assert np.linalg.norm(res.loadings) == pytest.approx(1.0)
            assert np.array_equal(res.support, np.flatnonzero(res.loadings))
            assert abs(res.loadings).max() == res.loadings.max()  # sign convention


# --------------------------------------------------------------------------- exhaustive


# --------------------------------------------------------------------------- Scol / Mcol


def test_scol_sparse_matches_dense():
    """Implicit centering of sparse data gives the same answer as dense centered data."""
    X = sp.random(60, 40, density=0.2, random_state=1, format="csr")
    X.data += 1.0
    dense, sparse = DenseData(X.toarray()), SparseData(X)
    for m in ("scol", "mcol", "greedy", "approx_greedy", "threshold", "variance"):
        a, b = run(m, dense, 10), run(m, sparse, 10)
        np.testing.assert_array_equal(a.support, b.support)
        assert a.variance == pytest.approx(b.variance, rel=1e-10)


# --------------------------------------------------------------------------- misc


@pytest.mark.parametrize("method", METHODS)
def test_bad_cardinality_is_refused(method):
    op = Covariance(np.eye(4))
    for bad in (0, 5, 2.5, True):
        with pytest.raises(InvalidParameterError, match="cardinality"):
            run(method, op, bad)


def test_degenerate_zero_variance_features():
    X = np.zeros((10, 6))
    X[:, 0] = np.arange(10.0)
    op = DenseData(X)
    for m in METHODS:
        res = run(m, op, 3)
        assert res.variance == pytest.approx(op.to_dense()[0, 0])
        assert np.isfinite(res.loadings).all()
