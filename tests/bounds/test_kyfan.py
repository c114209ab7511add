"""The joint row-shift dual (bounds._kyfan) against brute force over disjoint supports."""
from itertools import combinations

import numpy as np

from eigensparse import Covariance
from eigensparse.bounds import total_upper_bound
from eigensparse.bounds._kyfan import kyfan_row_shift_bound, kyfan_total_bound


def _lmax(S, T):
    return np.linalg.eigvalsh(S[np.ix_(T, T)])[-1] if len(T) else 0.0


def _best_disjoint(S, cards):
    """max Σ_j λmax(Σ[T_j, T_j]) over pairwise disjoint T_j, |T_j| = s_j (brute force)."""
    def rec(free, cards):
        if not cards:
            return 0.0
        return max(_lmax(S, list(T)) + rec([i for i in free if i not in T], cards[1:])
                   for T in combinations(free, cards[0]))

    return rec(list(range(S.shape[0])), list(cards))


def _planted(seed, k=2, s=3, p=9, noise=0.05):
    """k disjoint blocks of s correlated features among p, plus Wishart noise."""
    rng = np.random.default_rng(seed)
    S = noise * np.cov(rng.standard_normal((3 * p, p)), rowvar=False)
    for j in range(k):
        u = np.zeros(p)
        u[j * s:(j + 1) * s] = rng.uniform(0.5, 1.0, s)
        S += (3.0 - j) * np.outer(u, u) / (u @ u)
    return S


def test_bound_is_above_the_best_disjoint_components(instances):
    for S in instances[:4]:
        for cards in ([2, 2], [3, 2], [2, 2, 2]):
            best = _best_disjoint(S, cards)
            for value in (best, None, 0.0):  # any target: the steps only choose Y
                ub = kyfan_row_shift_bound(S, cards, value=value)
                assert ub >= best * (1 - 1e-10), (cards, value, ub, best)
            # a small core, the rest exact or by the block argument
            for n_eval in (3, 6):
                ub = kyfan_row_shift_bound(S, cards, value=best, core=3, n_eval=n_eval)
                assert ub >= best * (1 - 1e-10), (cards, n_eval, ub, best)


def test_features_known_by_their_variance_are_covered(instances):
    for S in instances[:4]:
        d = np.diag(S)
        W = np.sort(np.argsort(-d)[:6])  # 6 of the 9 features held, the others by variance
        out = np.setdiff1d(np.arange(9), W)
        for cards in ([2, 2], [3, 3]):
            best = _best_disjoint(S, cards)
            ub = kyfan_row_shift_bound(S[np.ix_(W, W)], cards, value=best, floor=d[out].max())
            assert ub >= best * (1 - 1e-10)
            # through the operator: only 4 features held densely, the rest by variance
            ub = kyfan_total_bound(Covariance(S[np.ix_(W, W)]), cards, d[out], value=best,
                                   max_features=4)
            assert ub >= best * (1 - 1e-10)


def test_planted_blocks_get_a_tight_total():
    for seed in range(3):
        S = _planted(seed)
        best = _best_disjoint(S, [3, 3])
        ub = kyfan_row_shift_bound(S, [3, 3], value=best)
        assert best * (1 - 1e-10) <= ub <= 1.05 * best, (ub, best)
        assert total_upper_bound(Covariance(S), [3, 3], value=best) <= ub * (1 + 1e-9)


def test_cardinality_one_is_left_to_the_other_bounds():
    assert kyfan_row_shift_bound(np.eye(3), [1, 1]) == np.inf


def test_degenerate_matrices_with_the_block_argument():
    rng = np.random.default_rng(0)
    u = rng.uniform(0.5, 1.0, 7)
    for S in (np.zeros((7, 7)), np.outer(u, u), np.diag(u)):
        best = _best_disjoint(S, [2, 2])
        for kw in ({}, {"core": 2, "n_eval": 2}, {"core": 1, "n_eval": 3, "steps": 5}):
            ub = kyfan_row_shift_bound(S, [2, 2], value=0.5 * best, **kw)
            assert best * (1 - 1e-10) - 1e-12 <= ub < np.inf, (kw, ub, best)


def test_a_cutoff_it_cannot_beat_skips_the_work():
    S = _planted(0)
    best = _best_disjoint(S, [3, 3])
    ub = kyfan_row_shift_bound(S, [3, 3], value=best)
    assert kyfan_row_shift_bound(S, [3, 3], value=best, cutoff=0.5 * best) == np.inf
    assert kyfan_row_shift_bound(S, [3, 3], value=best, cutoff=2 * ub) == ub
    # through the operator: the first look at the largest variances skips it too
    assert kyfan_total_bound(Covariance(S), [3, 3], value=best, cutoff=0.5 * best) == np.inf
    assert kyfan_total_bound(Covariance(S), [3, 3], value=best, cutoff=2 * ub) <= ub * (1 + 1e-9)



def test_a_whole_dense_solve_is_below_the_block_argument(instances, monkeypatch):
    # p = 9 <= _EXACT_FACTOR * 5: one dense solve of all 9 features; with the factor at 1,
    # the same Y (same core) bounds 4 of them by the block argument instead
    from eigensparse.bounds import _kyfan

    below = 0
    for S in instances[:4]:
        for cards in ([2, 2], [3, 2]):
            best = _best_disjoint(S, cards)
            whole = kyfan_row_shift_bound(S, cards, value=best, core=3, n_eval=5)
            with monkeypatch.context() as m:
                m.setattr(_kyfan, "_EXACT_FACTOR", 1)
                block = kyfan_row_shift_bound(S, cards, value=best, core=3, n_eval=5)
            assert best * (1 - 1e-10) <= whole <= block * (1 + 1e-10), (cards, whole, block)
            below += whole < block * (1 - 1e-6)
    assert below >= 4  # the block argument's slack is real: the dense solve removes it


def test_the_steps_stop_when_their_pace_cannot_reach_the_cutoff(instances, monkeypatch):
    from eigensparse.bounds import _kyfan

    S = instances[0]
    A = np.abs(S)
    np.fill_diagonal(A, 0.0)
    f0, core, Y0, _ = _kyfan._start(S, A, np.arange(9), np.zeros(0, dtype=np.intp), 0.0, 2, 2)
    calls = []
    top = _kyfan._top_eigen
    monkeypatch.setattr(_kyfan, "_top_eigen", lambda M, k, vectors=False: (
        calls.append(vectors), top(M, k, vectors))[1])
    f, _ = core.descend(Y0, 0.0, 400)  # an unreachable target: the steps run on
    free = len(calls)
    calls.clear()
    g, _ = core.descend(Y0, 0.0, 400, cutoff=0.5 * f)
    assert len(calls) < free and g >= f * (1 - 1e-12) and g <= f0
