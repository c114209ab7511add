"""Bounded topic solve: exact cardinality, disjoint, swap test, cap and time budget."""
import itertools
import warnings

import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.operators import Covariance
from eigensparse.text._bounded import (TopicBudgetWarning, solve_topic_bounded,
                                       swap_gain_bound)


def _spiked(p=120, s=5, seed=0, n=400):
    """Covariance of data with two planted disjoint sparse spikes over noise."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) * rng.uniform(0.5, 1.5, p)
    for k, strength in enumerate((3.0, 2.0)):
        idx = rng.choice(p, s, replace=False) if k == 0 else np.setdiff1d(
            rng.permutation(p), planted[0])[:s]
        X[:, idx] += strength * rng.standard_normal((n, 1))
        planted = [idx] if k == 0 else planted + [idx]
    S = np.cov(X, rowvar=False)
    return S, [np.sort(i) for i in planted]


def _best_support(S, s, allowed):
    best, arg = -1.0, None
    for c in itertools.combinations(allowed, s):
        v = np.linalg.eigvalsh(S[np.ix_(c, c)])[-1]
        if v > best:
            best, arg = v, c
    return best, np.array(arg)


def test_swap_gain_bound_matches_definition():
    rng = np.random.default_rng(1)
    A = rng.standard_normal((30, 6))
    B = A.T @ A / 30
    ref = max(np.linalg.eigvalsh(np.delete(np.delete(B, i, 0), i, 1))[-1] for i in range(6))
    phi = np.linalg.eigvalsh(B)[-1]
    assert swap_gain_bound(B, 0.3) == pytest.approx(ref + 0.3 - phi)
    assert swap_gain_bound(B[:1, :1], 0.1) == pytest.approx(0.1 - B[0, 0])


def test_exact_cardinality_disjoint_and_optimal_on_small_problem():
    S, planted = _spiked(p=16, s=4, seed=3)
    cov = Covariance(S)
    r1 = solve_topic_bounded(cov, 4, random_state=0, initial_size=6)
    opt1, arg1 = _best_support(S, 4, range(16))
    assert r1.support.size == 4 and np.count_nonzero(r1.loadings) == 4
    assert r1.variance == pytest.approx(opt1, rel=1e-9)
    assert np.array_equal(r1.support, np.sort(arg1))
    assert r1.info["working_set_safe"] and r1.info["solve_set_sizes"][0] == 6
    r2 = solve_topic_bounded(cov, 4, used=r1.support, random_state=0, initial_size=6)
    assert not set(r2.support) & set(r1.support)
    opt2, _ = _best_support(S, 4, np.setdiff1d(np.arange(16), r1.support))
    assert r2.variance == pytest.approx(opt2, rel=1e-9)
    assert np.linalg.norm(r2.loadings) == pytest.approx(1.0)
    assert r2.loadings[np.argmax(np.abs(r2.loadings))] > 0


def test_recovers_planted_spikes_and_grows_until_safe():
    S, planted = _spiked(p=300, s=5, seed=2)
    cov = Covariance(S)
    r1 = solve_topic_bounded(cov, 5, initial_size=10, random_state=0)
    r2 = solve_topic_bounded(cov, 5, used=r1.support, initial_size=10, random_state=0)
    assert np.array_equal(r1.support, planted[0]) and np.array_equal(r2.support, planted[1])
    assert r1.info["working_set_safe"] and r2.info["working_set_safe"] and not r1.info["timed_out"]
    assert r1.info["solve_set_sizes"] == sorted(r1.info["solve_set_sizes"])
    seen = []
    solve_topic_bounded(cov, 5, initial_size=10, random_state=0,
                        callback=lambda m, v, t: seen.append((m, v)))
    assert [m for m, _ in seen] == r1.info["solve_set_sizes"] and seen[-1][1] == pytest.approx(r1.variance)
    # the swap test certificate: no outside word of variance <= tau improves the topic
    assert r1.info["swap_gain"] <= 0


def test_cap_stops_growth():
    S, _ = _spiked(p=300, s=5, seed=2)
    r = solve_topic_bounded(Covariance(S), 5, initial_size=8, max_working_set=12,
                            tau_outside=1e9, random_state=0)
    assert r.info["capped"] and not r.info["working_set_safe"] and max(r.info["solve_set_sizes"]) == 12 and r.support.size == 5


def test_time_budget_returns_best_so_far_with_warning():
    S, _ = _spiked(p=300, s=5, seed=2)
    with pytest.warns(TopicBudgetWarning, match="time budget"):
        r = solve_topic_bounded(Covariance(S), 5, initial_size=8, max_time=1e-9,
                                tau_outside=1e9, random_state=0)
    assert r.info["timed_out"] and r.info["solve_set_sizes"] == [8] and r.support.size == 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        solve_topic_bounded(Covariance(S), 5, initial_size=8, max_time=1e-9,
                            tau_outside=1e9, random_state=0, warn=False)


def test_bca_and_its_fallback():
    S, planted = _spiked(p=60, s=5, seed=4)
    r = solve_topic_bounded(Covariance(S), 5, method="bca", initial_size=20, random_state=0)
    assert r.method == "bca" and not r.info["fallback"] and r.support.size == 5
    assert np.array_equal(r.support, planted[0])
    r = solve_topic_bounded(Covariance(S), 5, method="bca", initial_size=20,
                            relaxation_max_size=10, random_state=0)
    assert r.info["fallback"] and r.method == "tpower" and np.array_equal(r.support, planted[0])


@pytest.mark.parametrize("kwargs,name", [
    ({"cardinality": 0}, "cardinality"), ({"max_time": 0}, "max_time"),
    ({"method": "greedy"}, "method"), ({"max_working_set": 0}, "max_working_set"),
    ({"used": np.ones(3, bool)}, "used"), ({"used": np.array([99])}, "used"),
    ({"cardinality": 10, "used": np.arange(5)}, "cardinality"), ({"cov": np.eye(10)}, "cov"),
])
def test_errors_name_the_parameter(kwargs, name):
    args = {"cov": Covariance(np.eye(10) + 0.1), "cardinality": 3}
    args.update(kwargs)
    with pytest.raises(InvalidParameterError, match=name):
        solve_topic_bounded(args.pop("cov"), args.pop("cardinality"), **args)


def test_time_budget_does_not_count_the_first_compilation(monkeypatch):
    """A method's first run in a process may compile its kernels (seconds): that happens
    in a warm-up before the budget's clock starts, so a first run gives the same topic
    as later ones."""
    import time

    from eigensparse.text import _bounded

    rng = np.random.default_rng(3)
    A = rng.standard_normal((300, 120)) * rng.uniform(0.2, 2.0, 120)
    cov = Covariance(np.cov(A, rowvar=False))
    calls = []
    orig = _bounded._solve

    def slow_first(*args, **kwargs):
        if not calls:
            time.sleep(2.0)  # a first-call compilation, longer than the budget
        calls.append(1)
        return orig(*args, **kwargs)

    monkeypatch.setattr(_bounded, "_WARM", set())
    monkeypatch.setattr(_bounded, "_solve", slow_first)
    first = _bounded.solve_topic_bounded(cov, 5, max_time=1.5, method="auto", random_state=0,
                                         initial_size=16, warn=False)
    again = _bounded.solve_topic_bounded(cov, 5, max_time=1.5, method="auto", random_state=0,
                                         initial_size=16, warn=False)
    assert not first.info["timed_out"]
    assert first.support.tolist() == again.support.tolist() and first.info["solve_set_sizes"] == again.info["solve_set_sizes"]
