"""Compiled kernels of the topic passes (``text/_kernels.py``) against SciPy."""
import numpy as np
import scipy.sparse as sp

from eigensparse.text._kernels import row_sums


def test_row_sums_equal_scipy_with_empty_documents():
    X = sp.random(40, 25, density=0.2, format="csr", random_state=0)
    X = sp.vstack([sp.csr_matrix((2, 25)), X, sp.csr_matrix((1, 25))]).tocsr()  # empty rows
    out = np.full(X.shape[0], np.nan)
    row_sums(X.indptr, X.data, out)
    np.testing.assert_allclose(out, np.asarray(X.sum(axis=1)).ravel(), rtol=1e-14)
    sq = np.empty(X.shape[0])
    row_sums(X.indptr, X.data ** 2, sq)  # squared values: the squared row norms
    np.testing.assert_allclose(np.sqrt(sq), sp.linalg.norm(X, axis=1), rtol=1e-14)
    assert out[0] == out[1] == out[-1] == 0.0
