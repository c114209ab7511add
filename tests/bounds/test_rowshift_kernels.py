import numpy as np

from eigensparse.bounds._rowshift_kernels import ritz, row_shifts


def test_row_shifts_are_the_sums_of_each_rows_largest_entries():
    rng = np.random.default_rng(0)
    U = rng.standard_normal((7, 7))
    U = U + U.T
    np.fill_diagonal(U, 0.0)
    k = 3
    want = np.sort(np.abs(U), axis=1)[:, ::-1][:, :k].sum(axis=1)
    thr = np.zeros(7)
    got = row_shifts(U, np.zeros((7, 0)), k, thr)
    assert np.allclose(got, want)
    assert np.allclose(thr, np.sort(np.abs(U), axis=1)[:, ::-1][:, k - 1])


def test_ritz_value_approaches_the_top_eigenvalue_from_below():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((30, 30))
    M = A @ A.T
    top = np.linalg.eigvalsh(M)[-1]
    out = ritz(M, rng.standard_normal(30), 25)
    val = out[0] if isinstance(out, tuple) else out
    assert val <= top * (1 + 1e-9) and val >= 0.99 * top
