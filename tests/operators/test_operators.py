"""Every operator equals its dense Σ and is symmetric; sparse implicit centering equals
dense explicit centering; deflated operators equal their dense formulas."""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse import InvalidParameterError
from eigensparse.multi import deflate
from eigensparse.operators import Covariance, DenseData, SparseData, as_operator, check_operator

TOL = 1e-10


def _data(seed, n=40, p=9, density=0.4):
    rng = np.random.default_rng(seed)
    X = rng.poisson(2.0, (n, p)).astype(float) * (rng.random((n, p)) < density)
    X[:, 0] += 5.0  # a large mean stresses implicit centering
    return X


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
def test_operator_equals_dense_covariance(center, scale, seed):
    X = _data(seed)
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


def test_sparse_implicit_centering_never_densifies():
    X = sp.random(2000, 500, density=0.01, format="csr", random_state=0)
    op = SparseData(X)
    assert sp.issparse(op._X) and sp.issparse(op._XT)
    Xd = X.toarray()
    ref = DenseData(Xd)
    V = np.random.default_rng(0).standard_normal((500, 3))
    assert np.abs(op.matmat(V) - ref.matmat(V)).max() < TOL
    assert np.abs(op.diag() - ref.diag()).max() < TOL


@pytest.mark.parametrize("scheme", ["hotelling", "projection", "schur", "orthogonal"])
def test_deflated_operators_match_formulas(scheme):
    X = _data(7, n=60, p=8)
    S, A = _reference(X, True, False)
    rng = np.random.default_rng(1)
    x = rng.standard_normal(8)
    x /= np.linalg.norm(x)
    Q = []
    op = deflate(DenseData(X), x, scheme, Q)
    c = x @ S @ x
    P = np.eye(8) - np.outer(x, x)
    ref = {"hotelling": S - c * np.outer(x, x), "projection": P @ S @ P, "orthogonal": P @ S @ P,
           "schur": S - np.outer(S @ x, S @ x) / c}[scheme]
    D = op.to_dense()
    check_operator(op, rtol=TOL)
    assert np.abs(D - ref).max() < TOL
    assert np.abs(op.diag() - np.diag(ref)).max() < TOL
    idx = [0, 3, 6]
    assert np.abs(op.block(idx) - ref[np.ix_(idx, idx)]).max() < TOL
    if op.has_data:  # the data square root is deflated consistently
        Fd = op.rdot(op.dot(np.eye(8)))
        assert np.abs(Fd - ref).max() < TOL
    else:
        with pytest.raises(InvalidParameterError, match="no data square root"):
            op.dot(x)


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


def test_as_operator_dispatch_and_pandas():
    pd = pytest.importorskip("pandas")
    X = _data(0)
    assert isinstance(as_operator(X), DenseData)
    assert isinstance(as_operator(sp.csr_matrix(X)), SparseData)
    df = pd.DataFrame(X, columns=[f"c{i}" for i in range(X.shape[1])])
    assert np.allclose(as_operator(df).to_dense(), DenseData(X).to_dense())
    op = Covariance(np.eye(3))
    assert as_operator(op) is op


@pytest.mark.parametrize("bad, match", [
    (np.ones((3, 4)), "square"),
    (np.array([[1.0, 0.5], [0.4, 1.0]]), "symmetric"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
    (np.array([[-1.0, 0.0], [0.0, 1.0]]), "negative diagonal"),
    (np.zeros((0, 0)), "empty|square"),
])
def test_covariance_rejects_bad_input(bad, match):
    with pytest.raises(InvalidParameterError, match=match):
        Covariance(bad)


def test_covariance_psd_check():
    S = np.array([[1.0, 2.0], [2.0, 1.0]])
    Covariance(S, check_psd=False)  # the user vouches for it
    with pytest.raises(InvalidParameterError, match="positive semidefinite"):
        Covariance(S)  # checked by default


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
