"""Breakpoints with ties and the one penalty search (eigensparse.screening)."""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from eigensparse import Covariance, InvalidParameterError
from eigensparse.screening import (Breakpoints, penalty_breakpoints, penalty_search,
                                   safe_elimination)


def _wishart(p, seed, m=None):
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((m or 2 * p, p))
    return F.T @ F / (m or 2 * p)


def test_breakpoints_group_rounding_ties_of_a_correlation_diagonal():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 8))
    C = np.corrcoef(X, rowvar=False)  # unit diagonal up to rounding
    bp = Breakpoints.of(Covariance(C))
    assert bp.counts.tolist() == [8]  # one tie group
    assert bp.penalty_keeping(3) == 0.0  # the whole group is kept, never split
    assert bp.n_kept(0.0) == 8


def test_breakpoints_kept_sets_match_safe_elimination():
    d = np.array([3.0, 1.0, 3.0, 2.0, 0.0, 1.0, 2.0])
    bp = Breakpoints.of(d)
    assert bp.counts.tolist() == [2, 4, 6]  # groups {3, 3}, {2, 2}, {1, 1}; 0 excluded
    for size, kept in ((1, 2), (2, 2), (3, 4), (5, 6), (6, 6)):
        for rule in ("lower", "midpoint"):
            rho = bp.penalty_keeping(size, rule=rule)
            assert bp.n_kept(rho) == kept
            assert safe_elimination(d, rho).working_set_size == kept
            assert sorted(bp.kept(rho)) == sorted(safe_elimination(d, rho).kept)
    assert bp.penalty_keeping(3, rule="lower") == 1.0
    assert bp.penalty_keeping(3, rule="midpoint") == 1.5


def _toy(d, calls):
    """Cardinality = number of kept features with variance > 2·penalty (monotone)."""
    def solve(rho, warm_start, kept):
        calls.append((rho, warm_start))
        card = int(np.count_nonzero(d[kept] > 2 * rho)) if kept is not None else \
            int(np.count_nonzero(d > 2 * rho))
        return card, ("result", rho), len(calls)
    return solve


def test_penalty_search_hits_every_reachable_cardinality_with_warm_starts():
    d = np.linspace(10.0, 1.0, 40)
    for s in (1, 5, 17, 40):
        calls = []
        out = penalty_search(_toy(d, calls), s, breakpoints=Breakpoints.of(d), refine_rtol=1e-9)
        assert out.hit and out.best.cardinality == s and out.stopped == "hit"
        assert out.best.result == ("result", out.best.penalty)
        assert calls[0][1] is None and all(w == i + 1 for i, (_, w) in enumerate(calls[1:]))
        assert out.n_solves == len(calls) <= 40
        # bracket mode (no breakpoints) finds the same cardinality
        out2 = penalty_search(_toy(d, []), s, bracket=(1e-9, 10.0), refine_rtol=1e-9)
        assert out2.hit and out2.best.cardinality == s


def test_penalty_search_tolerance_budget_and_lower():
    d = np.linspace(10.0, 1.0, 40)
    out = penalty_search(_toy(d, []), 17, breakpoints=Breakpoints.of(d), tolerance=3)
    assert out.hit and abs(out.best.cardinality - 17) <= 3
    out = penalty_search(_toy(d, []), 17, breakpoints=Breakpoints.of(d), max_solves=1)
    assert not out.hit and out.stopped == "max_solves" and out.n_solves == 1
    # a floor above what the target needs: the search stops before solving below it
    out = penalty_search(_toy(d, []), 30, breakpoints=Breakpoints.of(d), lower=4.0)
    assert out.stopped == "lower" and all(t.penalty >= 4.0 for t in out.trials)
    # unreachable: every trial short, the smallest penalty tried, the best is the largest
    out = penalty_search(lambda r, w, k: (min(len(k), 3), None, None), 5,
                         breakpoints=Breakpoints.of(d))
    assert not out.hit and out.stopped == "exhausted" and out.best.cardinality == 3
    assert min(t.penalty for t in out.trials) == 0.0


def test_penalty_search_rejects_bad_arguments():
    d = np.ones(3)
    with pytest.raises(InvalidParameterError, match="target"):
        penalty_search(lambda *a: (0, None, None), 0, breakpoints=Breakpoints.of(d))
    with pytest.raises(InvalidParameterError, match="exactly one"):
        penalty_search(lambda *a: (0, None, None), 1)


def _exhaustive_l0(S, rho):
    """Optimal support of max_x xᵀΣx − ρ‖x‖₀ (the empty set has value 0)."""
    p = S.shape[0]
    best, arg = 0.0, ()
    for k in range(1, p + 1):
        for I in combinations(range(p), k):
            v = np.linalg.eigvalsh(S[np.ix_(I, I)])[-1] - rho * k
            if v > best + 1e-12:
                best, arg = v, I
    return best, set(arg)


def test_safe_elimination_keeps_every_optimal_feature():
    for seed in range(3):
        rng = np.random.default_rng(seed)
        p = 8
        A = rng.standard_normal((12, p)) * rng.uniform(0.3, 2.0, p)  # spread variances
        S = A.T @ A / 12
        d = np.diag(S)
        for rho in np.concatenate([np.sort(d)[:-1], np.sort(d)[:-1] * 1.0001, [0.01]]):
            _, I = _exhaustive_l0(S, rho)
            kept = set(safe_elimination(Covariance(S), rho).kept.tolist())
            assert I <= kept, (seed, rho, I, kept)


def test_breakpoints_are_sorted_variances():
    S = _wishart(7, 0)
    bp = penalty_breakpoints(Covariance(S))
    assert np.all(np.diff(bp) <= 0)
    for k in range(1, 7):
        assert safe_elimination(Covariance(S), bp[k]).working_set_size <= k


def test_penalty_search_terminates_when_the_bracket_is_below_the_square_root_of_tiny():
    """The geometric midpoint was √(lo·hi): with lo·hi below float64's smallest number it
    was 0 or lo itself, a penalty already solved, and the bisection never ended."""
    import signal

    def solve(rho, warm, kept):  # cardinality 5 below the jump, 3 above: never the target 4
        return (5 if rho < 3e-250 else 3), None, None

    old = signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(TimeoutError("hung")))
    signal.alarm(20)
    try:
        search = penalty_search(solve, 4, bracket=(1e-260, 1e-240))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert not search.hit and search.stopped == "bracket"
    penalties = sorted(t.penalty for t in search.trials)
    assert penalties[0] > 0 and len(penalties) == len(set(penalties)) <= 80


@pytest.mark.parametrize("d", [[1.0, np.nan], [np.inf, 1.0], []])
def test_variances_given_as_a_vector_must_be_finite(d):
    """A NaN variance was eliminated silently (and sorted first among the breakpoints)."""
    from eigensparse.screening import max_useful_penalty, penalty_breakpoints, safe_elimination

    for call in (lambda: safe_elimination(np.array(d), 0.5), lambda: penalty_breakpoints(np.array(d)),
                 lambda: max_useful_penalty(np.array(d))):
        with pytest.raises(InvalidParameterError, match="'op' as a 1-D array is the variances"):
            call()
