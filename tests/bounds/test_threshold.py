"""The soft-threshold bounds (one component, disjoint totals) against brute force."""
from itertools import combinations

import numpy as np
import pytest

from eigensparse import Covariance, InvalidParameterError
from eigensparse.bounds import threshold_bound, total_upper_bound


def _lmax(S, T):
    return np.linalg.eigvalsh(S[np.ix_(T, T)])[-1] if len(T) else 0.0


def _best_disjoint(S, cards):
    """max Σ_j λmax(Σ[T_j, T_j]) over pairwise disjoint T_j, |T_j| = s_j (brute force)."""
    p = S.shape[0]

    def rec(free, cards):
        if not cards:
            return 0.0
        return max(_lmax(S, list(T)) + rec([i for i in free if i not in T], cards[1:])
                   for T in combinations(free, cards[0]))

    return rec(list(range(p)), list(cards))


def test_threshold_bound_is_above_the_optimum(instances, exhaustive):
    for S in instances:
        for s in (1, 2, 3, 5):
            v, _ = exhaustive(S, s)
            ub, rho = threshold_bound(Covariance(S), s)
            assert ub >= v * (1 - 1e-12) and rho >= 0


def test_total_bound_is_above_the_best_disjoint_components(instances):
    for S in instances[:4]:
        for cards in ([2, 2], [3, 2], [2, 2, 2]):
            best = _best_disjoint(S, cards)
            ub = total_upper_bound(Covariance(S), cards)
            assert ub >= best * (1 - 1e-12), (cards, ub, best)
            assert ub <= np.sort(np.diag(S))[::-1][:sum(cards)].sum() * (1 + 1e-9)
            # a cap on the features a penalty keeps only drops penalties: still valid
            for cap in (1, 3, 5):
                assert total_upper_bound(Covariance(S), cards, max_working_set=cap) >= \
                    best * (1 - 1e-12)


def test_features_left_out_are_covered_by_their_variances(instances, exhaustive):
    for S in instances[:4]:
        d = np.diag(S)
        W = np.argsort(-d)[:6]  # the op holds 6 of the 9 features, the others by variance
        out = np.setdiff1d(np.arange(9), W)
        v, _ = exhaustive(S, 3)
        ub, rho = threshold_bound(Covariance(S[np.ix_(W, W)]), 3, outside=d[out])
        assert ub >= v * (1 - 1e-12) and rho >= d[out].max()
        best = _best_disjoint(S, [2, 2])
        assert total_upper_bound(Covariance(S[np.ix_(W, W)]), [2, 2], outside=d[out]) >= best


def test_bad_input_names_the_parameter():
    S = Covariance(np.eye(4))
    with pytest.raises(InvalidParameterError, match="'cardinalities'"):
        total_upper_bound(S, [3, 3])
    with pytest.raises(InvalidParameterError, match="'outside'"):
        threshold_bound(S, 2, outside=[np.nan])


def test_threshold_bound_near_a_found_value_is_above_the_optimum(instances, exhaustive):
    from eigensparse.bounds._threshold import threshold_bound_near

    for S in instances:
        for s in (2, 3, 5):
            v, _ = exhaustive(S, s)
            ub, rho = threshold_bound_near(S, s, v)
            assert ub >= v * (1 - 1e-12) and rho > 0
            assert threshold_bound_near(S, s, 0.7 * v, max_features=2)[0] >= v * (1 - 1e-12)


def test_a_floor_covers_the_features_left_out(instances, exhaustive):
    from eigensparse.bounds._threshold import threshold_bound_near

    for S in instances:
        d = np.diag(S)
        W = np.argsort(-d)[:6]
        floor = d[np.setdiff1d(np.arange(9), W)].max()
        for s in (2, 3):
            v, _ = exhaustive(S, s)
            ub, rho = threshold_bound_near(S[np.ix_(W, W)], s, v, floor=floor)
            assert ub >= v * (1 - 1e-12) and rho >= floor


def _near_reference(S, s, value, floor=0.0):
    """threshold_bound_near's grid with the same stopping rule, every λmax a dense
    eigenvalue (the bound before the Lanczos search)."""
    from eigensparse.bounds._threshold import NEAR_FRACTIONS

    d = np.diag(S)
    best, last = np.inf, np.inf
    for rho in np.unique(np.maximum(np.array(NEAR_FRACTIONS) * value / s, floor))[::-1]:
        K = np.flatnonzero(d > rho)
        M = np.sign(S[np.ix_(K, K)]) * np.maximum(np.abs(S[np.ix_(K, K)]) - rho, 0.0)
        val = max(np.linalg.eigvalsh(M)[-1] if K.size else 0.0, 0.0) + rho * s
        best = min(best, val)
        if val > last:
            break
        last = val
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_threshold_bound_near_lanczos_search_is_proven_and_no_looser(seed):
    """Above the dense cut-off the search reads Lanczos estimates and proves one λmax by
    a Cholesky factor: the bound is λmax(M_ρ) + ρs at its ρ (exact eigenvalue, up to the
    proof's rounding margin), at most the grid's dense-eigenvalue minimum, and above the
    brute-force v(2) (every pair)."""
    from eigensparse.bounds._threshold import threshold_bound_near

    rng = np.random.default_rng(seed)
    p = 150
    A = rng.standard_normal((400, p)) * rng.uniform(0.8, 1.2, p)
    A[:, :6] += 1.2 * rng.standard_normal((400, 1))  # a planted 6-feature component
    S = A.T @ A / 400
    iu, ju = np.triu_indices(p, 1)
    a, b, c = np.diag(S)[iu], np.diag(S)[ju], S[iu, ju]
    v2 = float(np.max(0.5 * (a + b) + np.sqrt(0.25 * (a - b) ** 2 + c * c)))
    d = np.diag(S)
    sizes = []
    for s, value, floor in ((2, v2, 0.0), (6, 0.9 * v2 * 3, 0.0), (6, 3 * v2, np.sort(d)[-40])):
        ub, rho = threshold_bound_near(S, s, value, floor=floor)
        K = np.flatnonzero(d > rho)
        M = np.sign(S[np.ix_(K, K)]) * np.maximum(np.abs(S[np.ix_(K, K)]) - rho, 0.0)
        exact = max(np.linalg.eigvalsh(M)[-1], 0.0) + rho * s
        assert exact * (1 - 1e-12) <= ub <= exact * (1 + 1e-8) and rho >= floor
        sizes.append(K.size)
        assert ub <= _near_reference(S, s, value, floor) * (1 + 1e-8)
        assert ub >= v2 * (1 - 1e-12)
    assert max(sizes) > 64  # the Lanczos path
