"""Compiled kernels of the operator layer (``operators/_kernels.py``) against NumPy:
the Gram matrix of a working set of CSR columns, and the fused covariance checks."""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse.operators._kernels import accumulate_gram, covariance_checks


def _numpy_checks(S, w, root):
    M = 0.5 * (S + S.T) * np.outer(w, w)
    excess = np.abs(M) - np.outer(root, root)
    return S.sum() + np.trace(S), np.abs(S - S.T).max(), excess.max(), excess


def test_kernel_upper_triangle_of_a_working_set():
    X = sp.random(70, 20, density=0.3, format="csr", random_state=1)
    ws = np.array([2, 5, 6, 11, 19])
    col_map = -np.ones(20, dtype=np.int64)
    col_map[ws] = np.arange(ws.size)
    G = np.zeros((ws.size, ws.size))
    accumulate_gram(X.indptr, X.indices, X.data, col_map, G, 0, X.shape[0])
    full = (X.T @ X).toarray()[np.ix_(ws, ws)]
    assert np.allclose(np.triu(G), np.triu(full), rtol=1e-14, atol=0)
    assert np.all(np.tril(G, -1) == 0)


@pytest.mark.parametrize("p", [1, 2, 63, 64, 65, 130, 200])
@pytest.mark.parametrize("scaled", [False, True])
def test_fused_pass_equals_numpy(p, scaled):
    rng = np.random.default_rng(p)
    S = rng.standard_normal((p, p))
    S[np.tril_indices(p, -1)] = S.T[np.tril_indices(p, -1)]  # symmetric …
    S[rng.integers(p), rng.integers(p)] += 1e-3  # … but for one entry (or the diagonal)
    w = rng.uniform(0.5, 2.0, p) if scaled else np.ones(p)
    root = rng.uniform(0.0, 1.0, p)
    none, no_pos = np.zeros((0, 0), np.float32), np.zeros(0, np.int64)
    total, asym, worst, row = covariance_checks(S, w, root, none, no_pos)
    ref_total, ref_asym, ref_worst, excess = _numpy_checks(S, w, root)
    assert total == pytest.approx(ref_total, rel=1e-12, abs=1e-12 * np.abs(S).sum())
    assert asym == ref_asym  # a difference of two doubles: exact
    assert worst == pytest.approx(ref_worst, rel=1e-14, abs=1e-14)
    assert excess[row].max() == pytest.approx(ref_worst, rel=1e-14, abs=1e-14)
    S_sym = 0.5 * (S + S.T)
    assert covariance_checks(S_sym, w, root, none, no_pos)[1] == 0.0  # exactly symmetric: exactly 0
    low = np.full(S.shape, np.nan, dtype=np.float32)
    # the upper triangle of ½(S + Sᵀ) ∘ wwᵀ, float32
    assert covariance_checks(S, w, root, low, np.arange(p)) == (total, asym, worst, row)
    upper = np.triu(np.ones(S.shape, dtype=bool))
    M = 0.5 * (S + S.T) * np.outer(w, w)
    np.testing.assert_allclose(low[upper], M[upper], rtol=1e-6)
    assert np.isnan(low[~upper]).all()  # the lower triangle is not written
    # ... of the principal block of the features kept by ``pos`` (every third left out)
    kept = np.flatnonzero(np.arange(p) % 3 != 1)
    pos = np.full(p, -1)
    pos[kept] = np.arange(kept.size)
    low = np.full((kept.size, kept.size), np.nan, dtype=np.float32)
    assert covariance_checks(S, w, root, low, pos) == (total, asym, worst, row)
    upper = np.triu(np.ones(low.shape, dtype=bool))
    np.testing.assert_allclose(low[upper], M[np.ix_(kept, kept)][upper], rtol=1e-6)
    assert np.isnan(low[~upper]).all()


@pytest.mark.parametrize("center, scale", [(True, False), (True, True), (False, False)])
def test_sparse_rows_of_many_columns_equal_the_dense_covariance(center, scale):
    """SparseData.columns beyond IMPLICIT_COLUMNS_MAX runs :func:`accumulate_rows` over
    the documents of the chosen features (empty documents and empty features included)."""
    from eigensparse.operators._dense import IMPLICIT_COLUMNS_MAX, DenseData, SparseData

    X = sp.random(70, 150, density=0.08, random_state=3, format="lil")
    X[5, :] = 0.0  # an empty document
    X[:, 7] = 0.0  # an empty feature
    X = X.tocsr()
    op = SparseData(X, center=center, scale=scale)
    ref = DenseData(X.toarray(), center=center, scale=scale).to_dense()
    idx = np.r_[7, np.arange(20, 20 + IMPLICIT_COLUMNS_MAX + 10)]
    C = op.columns(idx)
    assert C.shape == (150, idx.size)
    np.testing.assert_allclose(C, ref[:, idx], rtol=1e-10, atol=1e-13)



def test_sparse_rows_of_few_features_take_the_compiled_pass(monkeypatch):
    """SparseData.rows of a few features (at most IMPLICIT_COLUMNS_MAX: the blocks in
    which a wide Σ is streamed) runs :func:`accumulate_rows`, with the dense
    covariance's values, for rare and frequent features alike."""
    from eigensparse.operators import _dense
    from eigensparse.operators._dense import DenseData, SparseData

    rng = np.random.default_rng(4)
    X = sp.random(60, 2000, density=0.004, random_state=5, format="lil")
    X[:, 0] = rng.integers(1, 4, (60, 1)).astype(float)  # a feature in every document
    X = X.tocsr()
    op = SparseData(X, center=True)
    ref = DenseData(X.toarray(), center=True).to_dense()
    calls = []
    orig = _dense.accumulate_rows
    monkeypatch.setattr(_dense, "accumulate_rows", lambda *a: calls.append(1) or orig(*a))
    for idx in (np.arange(100, 130), np.array([0]), np.array([0, 5, 1999])):
        np.testing.assert_allclose(op.rows(idx), ref[idx], rtol=1e-10, atol=1e-13)
    assert len(calls) == 3


def test_lanczos_step_keeps_the_basis_orthonormal_and_sees_an_invariant_subspace():
    from eigensparse.operators._kernels import lanczos_step

    rng = np.random.default_rng(0)
    A = rng.standard_normal((30, 30))
    M = A + A.T
    Q, W = np.zeros((8, 30)), np.zeros((8, 30))
    Q[0] = rng.standard_normal(30)
    Q[0] /= np.linalg.norm(Q[0])
    for m in range(1, 9):
        W[m - 1] = M @ Q[m - 1]
        assert lanczos_step(Q, W, m, 1e-12)
    np.testing.assert_allclose(Q @ Q.T, np.eye(8), atol=1e-12)
    # a start in the span of two eigenvectors: the third step finds nothing new
    D = np.diag(np.arange(1.0, 31.0))
    Q, W = np.zeros((4, 30)), np.zeros((4, 30))
    Q[0, :2] = [0.6, 0.8]
    steps = []
    for m in range(1, 5):
        W[m - 1] = D @ Q[m - 1]
        steps.append(lanczos_step(Q, W, m, 1e-12))
        if not steps[-1]:
            break
    assert steps == [True, False]
