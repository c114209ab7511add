"""Deflated operators (``operators/_deflated.py``) equal their dense formulas, and their
data square root is deflated consistently."""
import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.multi import deflate
from eigensparse.operators import DenseData, check_operator
from eigensparse.operators._deflated import HotellingDeflated, ProjectionDeflated, SchurDeflated

TOL = 1e-10


def _centered_covariance(X):
    Xc = X - X.mean(0)
    return Xc.T @ Xc / X.shape[0]


@pytest.mark.parametrize("scheme", ["hotelling", "projection", "schur", "orthogonal"])
def test_deflated_operators_match_formulas(scheme, poisson_data):
    X = poisson_data(7, n=60, p=8)
    S = _centered_covariance(X)
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


def test_deflating_the_leading_eigenvector_removes_it_in_every_scheme(poisson_data):
    """For an eigenvector x (Σx = λx) the three deflations coincide: Σ − λxxᵀ."""
    S = _centered_covariance(poisson_data(1, n=60, p=8))
    w, V = np.linalg.eigh(S)
    x = V[:, -1]
    ref = S - w[-1] * np.outer(x, x)
    for cls in (HotellingDeflated, ProjectionDeflated, SchurDeflated):
        D = cls(DenseData(poisson_data(1, n=60, p=8)), x)
        np.testing.assert_allclose(D.to_dense(), ref, atol=1e-10, err_msg=cls.__name__)
        assert np.abs(D.matvec(x)).max() < 1e-10


def test_schur_and_projection_keep_psd_where_hotelling_does_not(poisson_data):
    """Mackey (2009): for a vector that is not an eigenvector, Hotelling's deflation may
    leave a negative eigenvalue; Schur's and projection's never do, and both remove x."""
    X = poisson_data(2, n=60, p=8)
    S = _centered_covariance(X)
    x = np.ones(8) / np.sqrt(8)
    assert np.linalg.eigvalsh(HotellingDeflated(DenseData(X), x).to_dense())[0] < -1e-6
    for cls in (ProjectionDeflated, SchurDeflated):
        D = cls(DenseData(X), x)
        assert np.linalg.eigvalsh(D.to_dense())[0] >= -1e-10 * np.trace(S), cls.__name__
        assert np.abs(D.matvec(x)).max() < 1e-10, cls.__name__
        check_operator(D, rtol=TOL)


def test_stacked_deflations_compose_the_formulas(poisson_data):
    X = poisson_data(3, n=60, p=8)
    S = _centered_covariance(X)
    rng = np.random.default_rng(0)
    x1, x2 = (v / np.linalg.norm(v) for v in rng.standard_normal((2, 8)))
    D = SchurDeflated(SchurDeflated(DenseData(X), x1), x2)
    S1 = S - np.outer(S @ x1, S @ x1) / (x1 @ S @ x1)
    S2 = S1 - np.outer(S1 @ x2, S1 @ x2) / (x2 @ S1 @ x2)
    np.testing.assert_allclose(D.to_dense(), S2, atol=1e-10)
    np.testing.assert_allclose(D.rdot(D.dot(np.eye(8))), S2, atol=1e-10)


@pytest.mark.parametrize("scale", [1e-200, 1e-160])
def test_schur_deflation_does_not_underflow_at_a_tiny_scale(scale):
    """Σ' = Σ − vvᵀ with v = w/√c: wwᵀ/c underflowed to 0 where Σ's entries are below
    ~1e-154, so the deflation did nothing and the next component repeated the first."""
    from eigensparse import Covariance

    rng = np.random.default_rng(3)
    A = rng.standard_normal((40, 6))
    S = A.T @ A / 40
    x = np.linalg.eigh(S)[1][:, -1]
    ref = SchurDeflated(Covariance(S), x)
    tiny = SchurDeflated(Covariance.trusted(S * scale), x)  # trusted: the scale check passed
    idx = np.arange(6)
    np.testing.assert_allclose(tiny.diag() / scale, ref.diag(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(tiny.block(idx) / scale, ref.block(idx), rtol=1e-10, atol=1e-12)
    V = rng.standard_normal((6, 2))
    np.testing.assert_allclose(tiny.matmat(V) / scale, ref.matmat(V), rtol=1e-10, atol=1e-12)
    assert abs(tiny.quad(x)) <= 1e-12 * scale * np.trace(S)


@pytest.mark.parametrize("kind", ["hotelling", "projection", "schur"])
@pytest.mark.parametrize("sparse", [False, True])
def test_rows_are_the_rows_of_the_dense_deflated_matrix(kind, sparse):
    """``rows(idx)`` (Σ'[idx, :], C-contiguous, built from the parent's rows) equals the
    dense deflated matrix's rows, on dense data, sparse data (many rows: the compiled
    path) and a covariance."""
    import scipy.sparse as sp

    from eigensparse.operators import Covariance, as_operator
    from eigensparse.operators._deflated import (HotellingDeflated, ProjectionDeflated,
                                                 SchurDeflated)

    cls = {"hotelling": HotellingDeflated, "projection": ProjectionDeflated,
           "schur": SchurDeflated}[kind]
    rng = np.random.default_rng(1)
    X = sp.random(60, 120, density=0.1, random_state=1, format="csr") if sparse else \
        rng.standard_normal((60, 120))
    x = rng.standard_normal(120)
    x /= np.linalg.norm(x)
    idx = np.r_[3, 5, np.arange(30, 110)]  # more than 64: SparseData's compiled rows
    for parent in (as_operator(X, scale=True), Covariance(as_operator(X).to_dense())):
        D = cls(parent, x)
        R = D.rows(idx)
        assert R.flags.c_contiguous and R.shape == (idx.size, 120)
        np.testing.assert_allclose(R, D.to_dense()[idx], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(D.columns(idx[:5]), D.to_dense()[:, idx[:5]], rtol=1e-9, atol=1e-12)
