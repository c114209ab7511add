"""The compiled selection kernels of the default method (``solvers/_auto_select.py``)
against plain NumPy and Python references (ties to the lower index)."""
import numpy as np
import pytest

from eigensparse.solvers._auto_select import (SAMPLE, _kth_largest_of, first_distinct_rows,
                                              row_partners, selection_buffer, top_s)


def _wishart(p, n, seed):
    A = np.random.default_rng(seed).standard_normal((n, p))
    return np.ascontiguousarray(A.T @ A / n)


@pytest.mark.parametrize("m,s", [(7, 1), (7, 3), (40, 5), (40, 40), (200, 17), (700, 30), (700, 200), (1000, 1)])
def test_top_s_keeps_the_largest_and_breaks_ties_to_the_lower_index(m, s):
    rng = np.random.default_rng(m + s)
    w = np.round(rng.standard_normal(m), 1)  # many ties
    out = np.empty(s, dtype=np.int64)
    thr = top_s(w, s, out, *selection_buffer(m))
    expected = np.sort(np.lexsort((np.arange(m), -np.abs(w)))[:s])
    assert out.tolist() == expected.tolist()
    assert thr == np.sort(np.abs(w))[::-1][s - 1]
    for hint in (0.5 * thr, thr, 2.0 * thr + 1.0):  # a pivot hint below, at or above it
        hinted = np.empty(s, dtype=np.int64)
        top_s(w, s, hinted, *selection_buffer(m), hint)
        assert hinted.tolist() == expected.tolist()


@pytest.mark.parametrize("m,k,seed", [(5, 0, 0), (300, 0, 1), (300, 7, 2), (1000, 49, 3),
                                      (1000, 400, 4), (2000, 3, 5)])
def test_sampled_pivot_selection_equals_a_sort(m, k, seed):
    rng = np.random.default_rng(seed)
    for a in (rng.standard_normal(m), np.round(rng.standard_normal(m), 1),
              np.sort(rng.standard_normal(m)), -np.sort(rng.standard_normal(m))):
        before = a.copy()
        assert _kth_largest_of(a, k, np.empty(m + SAMPLE)) == np.sort(a)[::-1][k]
        assert np.array_equal(a, before)


@pytest.mark.parametrize("m,t,seed", [(6, 1, 0), (40, 7, 1), (400, 49, 2)])
def test_row_partners_equal_a_numpy_reference(m, t, seed):
    rng = np.random.default_rng(seed)
    B = np.round(_wishart(m, m + 5, seed), 1)  # ties
    J, V = row_partners(B, t)
    for i in range(m):
        a = np.abs(B[i]).astype(float)
        a[i] = -1.0
        ref = np.lexsort((np.arange(m), -a))[:t]  # |B_ij| descending, index ascending
        assert J[i].tolist() == ref.tolist()
        assert np.array_equal(V[i], a[ref])
    J2, P = row_partners(B, t, True)  # running sums, bit for bit those of np.cumsum
    assert np.array_equal(J2, J) and np.array_equal(P, np.cumsum(V, axis=1))


@pytest.mark.parametrize("N,s,seed", [(1, 3, 0), (50, 2, 1), (400, 5, 2)])
def test_first_distinct_rows_equals_a_python_reference(N, s, seed):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, 4, (N, s)).astype(np.int64)  # many repeated rows
    order = rng.permutation(N)
    for limit in (1, 3, N):
        seen, ref = set(), []
        for r in order:
            key = tuple(rows[r])
            if key not in seen:
                seen.add(key)
                ref.append(int(r))
                if len(ref) == limit:
                    break
        assert first_distinct_rows(rows, order, limit).tolist() == ref


@pytest.mark.parametrize("seed", range(6))
def test_top_order_is_the_stable_argsort_prefix(seed):
    from eigensparse.solvers._auto_select import top_order

    rng = np.random.default_rng(seed)
    a = rng.standard_normal(int(rng.integers(1, 400)))
    if seed % 2:
        a = np.round(np.abs(a), 1)  # many ties, zeros
    for k in (1, 5, 50, a.size, a.size + 2):
        assert np.array_equal(top_order(a, k), np.argsort(-a, kind="stable")[:k])
