"""The compiled Gram matrix of a scipy.sparse operator equals the scipy product XᵀX on
every input shape the operator accepts, and the operator owns canonical copies."""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse.operators import SchurDeflated, SparseData, as_operator, check_operator


def _reference_sigma(X, center, scale):
    """Σ of the dense array, centered and scaled as the operators document."""
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    Xc = X - X.mean(0) if center else X
    S = Xc.T @ Xc / n
    sd = np.sqrt(np.diag(S)) if scale else np.ones(X.shape[1])
    sd[sd == 0] = 1.0
    return S / np.outer(sd, sd)


def _messy(seed, n=400, p=25):
    """CSR with empty rows and columns, unsorted indices and duplicate entries."""
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(0, n, 300), rng.integers(0, p, 300)
    keep = (rows % 7 != 3) & (cols % 5 != 2)  # empty rows and columns
    rows, cols = rows[keep], cols[keep]
    rows, cols = np.r_[rows, rows[:30]], np.r_[cols, cols[:30]]  # duplicates
    vals = rng.standard_normal(rows.size) * 3
    order = np.argsort(rows, kind="stable")
    rows, cols, vals = rows[order], cols[order], vals[order]
    indptr = np.r_[0, np.cumsum(np.bincount(rows, minlength=n))]
    X = sp.csr_matrix((vals, cols, indptr), shape=(n, p))
    assert not X.has_sorted_indices or not X.has_canonical_format
    return X


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("scale", [True, False])
def test_compiled_gram_equals_scipy_on_messy_input(seed, center, scale):
    X = _messy(seed)
    snapshot = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    op = SparseData(X, center=center, scale=scale)
    assert op.gram() is not None  # p² is cheap next to one implicit product here
    G = op._form_gram()
    ref = _reference_sigma(X.toarray(), center, scale)
    assert np.abs(G - ref).max() <= 1e-13 * np.abs(ref).max()
    assert np.array_equal(G, G.T)
    # the compiled path and the scipy sparse product agree to rounding
    assert np.abs(op._form_gram() - op._centered_gram()).max() <= 1e-14 * np.abs(ref).max()
    assert np.abs(op.diag() - np.diag(ref)).max() <= 1e-13 * np.abs(ref).max()
    for a, b in zip(snapshot, (X.data, X.indices, X.indptr)):
        assert np.array_equal(a, b)  # the caller's matrix is left as it was
    check_operator(op, rtol=1e-10)


@pytest.mark.parametrize("make", [
    lambda D: sp.csr_matrix(D.astype(np.float32)),
    lambda D: sp.csc_matrix(D.astype(np.int64)),
    lambda D: sp.coo_matrix(D),
    lambda D: sp.csr_array(D.astype(np.int32)),
])
def test_compiled_gram_for_every_dtype_and_format(make):
    rng = np.random.default_rng(4)
    D = rng.poisson(1.0, (300, 30)) * (rng.random((300, 30)) < 0.2)
    D[:, 7] = 0
    D[11] = 0
    X = make(D)
    op = as_operator(X)
    ref = _reference_sigma(np.asarray(X.toarray(), dtype=np.float64), True, False)
    assert np.abs(op.gram() - ref).max() <= 1e-13 * np.abs(ref).max()


def test_binary_gram_is_exact():
    """0/1 data: every sum of the kernel is an integer, so Σ equals the scipy route bit for bit."""
    X = sp.random(500, 40, density=0.1, format="csr", random_state=3)
    X.data[:] = 1.0
    op = SparseData(X)
    assert np.array_equal(op._form_gram(), op._centered_gram())


def test_transpose_is_built_only_when_needed():
    X = sp.random(300, 12, density=0.2, format="csr", random_state=2)
    op = SparseData(X)
    assert "_XT_csr" not in op.__dict__
    op.matmat(np.ones((12, 2)))  # through the formed Gram matrix
    assert "_XT_csr" not in op.__dict__
    y = np.random.default_rng(0).standard_normal(300)
    ref = _reference_sigma(X.toarray(), True, False)
    Xc = (X.toarray() - X.toarray().mean(0)) / np.sqrt(300)
    assert np.allclose(op.rdot(y), Xc.T @ y, rtol=1e-12, atol=1e-14)
    R = op.restrict([3, 1, 8])
    assert np.allclose(R.to_dense(), ref[np.ix_([3, 1, 8], [3, 1, 8])], rtol=1e-12, atol=1e-15)
    assert np.allclose(R.rdot(y), (Xc.T @ y)[[3, 1, 8]], rtol=1e-12, atol=1e-14)


def test_schur_deflation_defers_the_data_product():
    X = sp.random(300, 12, density=0.3, format="csr", random_state=5)
    op = SparseData(X)
    x = np.random.default_rng(0).standard_normal(12)
    D = SchurDeflated(op, x / np.linalg.norm(x))
    D.block([0, 3, 5])
    D.matmat(np.ones((12, 2)))
    assert "_u" not in D.__dict__  # products through Σ never need u = Ax/‖Ax‖
    check_operator(D, rtol=1e-10)  # dot/rdot agree with Σ' = Σ − wwᵀ/c
    assert "_u" in D.__dict__
    S = op.to_dense()
    w = S @ D.x
    assert np.allclose(D.rdot(D.dot(np.eye(12))), S - np.outer(w, w) / (D.x @ w), atol=1e-12)
