"""The bound and certificate of the default method (``solvers/_auto_bound.py``): never
below the optimum, Gershgorin only on an indefinite deflation, and small problems
certified by the node-limited branch and bound."""
import numpy as np
import pytest

import eigensparse as es
from eigensparse.solvers import get_solver
from eigensparse.solvers._auto import auto
from eigensparse.solvers._auto_bound import is_psd
from eigensparse.solvers._auto_settings import SETTINGS


def test_bound_holds_against_exhaustive_search():
    rng = np.random.default_rng(4)
    for t in range(6):
        X = rng.standard_normal((30, 12)) @ rng.standard_normal((12, 12))
        S = np.cov(X, rowvar=False)
        for s in (2, 4, 7):
            opt = get_solver("exhaustive").func(es.Covariance(S), s).variance
            r = auto(es.Covariance(S), s, random_state=t)
            assert r.variance == pytest.approx(opt, rel=1e-9)
            assert r.upper_bound >= opt
            assert r.gap == pytest.approx(r.upper_bound - r.variance)
            assert r.info["bound"]


def test_bound_on_a_hotelling_deflation_is_gershgorin_only():
    # Σ − c·xxᵀ of a sparse x can be indefinite: the trace and split bounds need PSD
    rng = np.random.default_rng(5)
    S = np.cov(rng.standard_normal((40, 300)) @ rng.standard_normal((300, 300)), rowvar=False)
    x = auto(es.Covariance(S), 5, random_state=0).loadings
    D = es.operators.HotellingDeflated(es.Covariance(S), x)
    r = auto(D, 5, random_state=0)
    assert r.info["bound"].startswith("Gershgorin")
    for method in ("tpower", "approx_greedy"):
        assert r.upper_bound >= get_solver(method).func(D, 5).variance


def test_small_problems_are_certified_by_a_node_limited_branch_and_bound():
    """Up to ``certify_features`` features the default's answer is the incumbent of the exact
    search: certified only when it equals the exhaustive optimum, and the bound it reports
    otherwise is never below that optimum."""
    brute = get_solver("exhaustive").func
    S = es.Covariance(es.datasets.load_pitprops().data)
    for s in range(2, 13):
        r = auto(S, s, random_state=0)
        assert r.certified and r.relative_gap <= 1e-9  # by the tree, or the cheap bound
        assert r.variance == pytest.approx(brute(S, s).variance, rel=1e-10)
    rng = np.random.default_rng(11)
    n_cert = 0
    for t in range(12):
        p = int(rng.integers(10, 17))
        A = rng.standard_normal((p + 3, p)) @ np.diag(rng.uniform(0.3, 2.0, p))
        A[:, :3] += rng.standard_normal((p + 3, 1))  # a correlated group
        op = es.Covariance(A.T @ A / (p + 3))
        s = int(rng.integers(2, 6))
        r, best = auto(op, s, random_state=t), brute(op, s).variance
        assert r.upper_bound >= best * (1 - 1e-12)
        if r.certified:
            n_cert += 1
            assert r.variance == pytest.approx(best, rel=1e-9)
    assert n_cert >= 9
    # beyond the threshold, no tree search runs (the cheap bound only)
    X = np.random.default_rng(0).standard_normal((80, SETTINGS.certify_features + 1))
    r = auto(es.Covariance(np.cov(X, rowvar=False)), 3, random_state=0)
    assert r.info["certify_nodes"] == 0 and not r.info["bound"].startswith("certified")


def test_only_a_hotelling_deflation_is_not_psd():
    S = es.Covariance(np.cov(np.random.default_rng(0).standard_normal((30, 6)), rowvar=False))
    x = np.zeros(6)
    x[0] = 1.0
    assert is_psd(S) and is_psd(es.operators.SchurDeflated(S, x))
    assert not is_psd(es.operators.HotellingDeflated(es.operators.SchurDeflated(S, x), x))


def test_the_tightening_is_computed_on_first_read_with_the_numbers_of_an_eager_one(monkeypatch):
    # beyond certify_features the tightening is pending until read; forced eager (as it
    # is up to certify_features), the bound, its gap and its name are the same numbers
    import pickle

    from eigensparse.bounds import BOUND_DENSE
    from eigensparse.solvers import _auto

    rng = np.random.default_rng(6)
    X = rng.standard_normal((90, 70))
    X[:, :8] += 2 * rng.standard_normal((90, 1))
    S = es.Covariance(np.cov(X, rowvar=False))
    lazy = auto(S, 6, random_state=0)
    assert lazy.__dict__["_pending"] is not None
    twin = pickle.loads(pickle.dumps(auto(S, 6, random_state=0)))  # pickling computes it
    eager_bound = _auto.upper_bound
    monkeypatch.setattr(_auto, "upper_bound",
                        lambda *a, **k: eager_bound(*a, **{**k, "defer": False}))
    eager = auto(S, 6, random_state=0)
    assert "_pending" not in eager.__dict__
    for r in (lazy, twin):
        assert (r.upper_bound, r.gap, r.info["bound"]) == \
            (eager.upper_bound, eager.gap, eager.info["bound"])
        assert r.__dict__.get("_pending") is None and r.info["bound"] != BOUND_DENSE
