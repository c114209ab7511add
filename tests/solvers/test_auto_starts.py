"""The starts of the default method (``solvers/_auto_starts.py``): their count, their
supports, the null-free block and the neighbourhoods."""
import numpy as np

from eigensparse.solvers._auto_select import row_partners
from eigensparse.solvers._auto_settings import SETTINGS
from eigensparse.solvers._auto_starts import (drop_null, init_supports, n_starts_for,
                                              neighbourhoods, start_supports)


def _block(m, seed, null=()):
    A = np.random.default_rng(seed).standard_normal((m + 5, m))
    A[:, list(null)] = 0.0
    return np.ascontiguousarray(A.T @ A)


def test_start_count_scales_with_the_working_set():
    assert n_starts_for(10, SETTINGS) == SETTINGS.max_starts
    assert n_starts_for(100, SETTINGS) == SETTINGS.start_flops // 100**2
    assert n_starts_for(5000, SETTINGS) == SETTINGS.min_starts


def test_start_supports_are_sorted_s_sparse_and_seeded():
    B, s, N = _block(30, 0), 4, 20
    warm = np.arange(s)
    sup, val = start_supports(B, s, warm, N, np.random.default_rng(1))
    assert sup.shape == val.shape == (N, s)
    assert np.array_equal(sup[0], warm) and np.all(np.diff(sup, axis=1) > 0)
    assert np.array_equal(sup[1], np.sort(np.argsort(-np.diag(B), kind="stable")[:s]))
    again = start_supports(B, s, warm, N, np.random.default_rng(1))
    assert np.array_equal(sup, again[0]) and np.array_equal(val, again[1])


def test_init_supports_take_the_largest_entries_ties_to_the_lower_index():
    A = np.array([[0.5, 0.0], [-0.9, 1.0], [0.5, 1.0], [0.1, 1.0]])
    sups, cols = init_supports(A, 4, 2)
    assert [x.tolist() for x in sups] == [[0, 1], [1, 2]] and cols.shape == (4, 2)


def test_null_features_collapse_to_one_sink():
    B = _block(12, 2, null=(3, 7, 9))
    keep, pos = drop_null(B, 3, np.array([0, 1, 2]), 8)
    assert keep.tolist() == [i for i in range(12) if i not in (7, 9)]
    assert np.all(pos[[3, 7, 9]] == pos[3]) and np.array_equal(keep[pos[keep]], keep)
    assert drop_null(_block(12, 2, null=(3,)), 3, np.array([0, 1, 2]), 8) is None


def test_neighbourhoods_are_distinct_sorted_and_hold_their_feature():
    B = _block(40, 3)
    J, _ = row_partners(B, 4)
    sup, val = neighbourhoods(B, J, 10, SETTINGS)
    assert sup.shape == val.shape == (10, 5)
    assert len({tuple(r) for r in sup.tolist()}) == 10 and np.all(np.diff(sup, axis=1) > 0)
    for r in sup:  # each is some feature with its 4 strongest partners
        assert any(set(r) == {i, *J[i]} for i in r)


def test_neighbourhoods_select_the_partners_they_need_with_the_same_result():
    # J=None: the core partners of every row, then all t of the rows ranked best only
    B = _block(300, 4)
    B[:, 7] = B[7, :] = np.round(B[7], 1)  # ties among the partners of row 7
    for t in (4, 20):
        J, _ = row_partners(B, t)
        sup, val = neighbourhoods(B, J, 8, SETTINGS)
        sup2, val2 = neighbourhoods(B, None, 8, SETTINGS, t=t)
        assert np.array_equal(sup, sup2) and np.array_equal(val, val2)
