"""The operator front door (``operators/__init__.py``): ``as_operator`` dispatch, and every
operator it builds (dense, sparse in every format, covariance) equals its dense Σ in every
product, symmetric, with a data square root where one exists.

Each operator's own behaviour is tested in its mirror (``test_dense.py``,
``test_covariance.py``, ``test_deflated.py``, ``test_base.py``, ``test_check.py``)."""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse.operators import Covariance, DenseData, SparseData, as_operator, check_operator

TOL = 1e-10


def _reference(X, center, scale):
    n = X.shape[0]
    Xc = X - X.mean(0) if center else X.copy()
    if scale:
        sd = np.sqrt((Xc**2).mean(0))
        sd[sd == 0] = 1
        Xc = Xc / sd
    return Xc.T @ Xc / n, Xc / np.sqrt(n)


def _ops(X, center, scale):
    S, _ = _reference(X, center, scale)
    yield DenseData(X, center, scale)
    for fmt in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array):
        yield SparseData(fmt(X), center, scale)
    yield Covariance(S)


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("scale", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_operator_equals_dense_covariance(center, scale, seed, poisson_data):
    X = poisson_data(seed)
    S, A = _reference(X, center, scale)
    rng = np.random.default_rng(seed + 100)
    V = rng.standard_normal((X.shape[1], 4))
    idx = np.array([5, 1, 7])
    for op in _ops(X, center, scale):
        D = op.to_dense()
        assert np.abs(D - S).max() < TOL, type(op)
        assert np.abs(D - D.T).max() < TOL
        assert np.abs(op.diag() - np.diag(S)).max() < TOL
        assert np.abs(op.matmat(V) - S @ V).max() < TOL
        assert np.abs(op.matvec(V[:, 0]) - S @ V[:, 0]).max() < TOL
        assert np.abs(op.quad(V) - np.einsum("ij,ij->j", V, S @ V)).max() < TOL
        assert np.abs(op.block(idx) - S[np.ix_(idx, idx)]).max() < TOL
        assert np.abs(op.columns(idx) - S[:, idx]).max() < TOL
        R = op.restrict(idx)
        assert R.n_features == 3
        assert np.abs(R.to_dense() - S[np.ix_(idx, idx)]).max() < TOL
        assert abs(op.trace() - np.trace(S)) < TOL
        if op.has_data:
            assert np.abs(op.dot(V) - A @ V).max() < TOL
            y = rng.standard_normal((X.shape[0], 2))
            assert np.abs(op.rdot(y) - A.T @ y).max() < TOL
            assert np.abs(R.dot(V[idx]) - A[:, idx] @ V[idx]).max() < TOL
        check_operator(op, rtol=TOL)
        check_operator(R, rtol=TOL)
        F = op.factor()
        assert F.has_data
        assert np.abs(F.to_dense() - S).max() < 1e-9


def test_as_operator_dispatch_and_pandas(poisson_data):
    pd = pytest.importorskip("pandas")
    X = poisson_data(0)
    assert isinstance(as_operator(X), DenseData)
    assert isinstance(as_operator(sp.csr_matrix(X)), SparseData)
    df = pd.DataFrame(X, columns=[f"c{i}" for i in range(X.shape[1])])
    assert np.allclose(as_operator(df).to_dense(), DenseData(X).to_dense())
    op = Covariance(np.eye(3))
    assert as_operator(op) is op
