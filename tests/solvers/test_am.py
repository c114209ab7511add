"""Alternating maximization (24am, 8 formulations) and the truncated power method.

Self-contained: small random instances only (no shared data).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from eigensparse.solvers import get_solver
import scipy.sparse as sp
from scipy.optimize import minimize_scalar

from eigensparse import sparse_pca
from eigensparse._validation import InvalidParameterError
from eigensparse.operators import Covariance, DenseData, SparseData
from eigensparse.solvers import SOLVERS
from eigensparse.solvers.am import (FORMULATIONS, am, hard_threshold, soft_threshold_l1_ball,
                                     tpower)

ALL = sorted(FORMULATIONS)
L1_VARIANCE = [f for f in ALL if f.startswith("l1_")]


# --------------------------------------------------------------------------- instances
def spiked(n=120, p=40, k=6, strength=3.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    X[:, :k] += strength * rng.standard_normal((n, 1))
    return X


def sparse_counts(n=150, p=60, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, p, density=0.15, random_state=seed, format="csr")
    X.data = rng.integers(1, 5, X.data.size).astype(float)
    X = X.tolil()
    topic = rng.random(n) < 0.4  # a co-occurring group of words
    for j in range(5):
        X[np.flatnonzero(topic & (rng.random(n) < 0.8)), j] = 3.0
    return X.tocsr()


def ops_dense_sparse():
    return [DenseData(spiked()), SparseData(sparse_counts())]


def exhaustive(S, s):
    return max(np.linalg.eigvalsh(S[np.ix_(I, I)])[-1]
               for I in map(list, itertools.combinations(range(S.shape[0]), s)))


# --------------------------------------------------------------------------- registry
def test_registered():
    assert "am" in SOLVERS and "tpower" in SOLVERS
    assert SOLVERS["am"].takes_penalty and not SOLVERS["tpower"].takes_penalty
    for opt in ("formulation", "penalty", "n_starts", "strategy", "batch_size", "init"):
        assert opt in SOLVERS["am"].options
    assert len(FORMULATIONS) == 8
    assert {f.name for f in FORMULATIONS.values()} == {
        f"{v}_{s}_{u}" for v in ("l1", "l2") for s in ("l0", "l1") for u in ("con", "pen")}


# --------------------------------------------------------------------------- every formulation
@pytest.mark.parametrize("formulation", ALL)
def test_every_formulation_dense_and_sparse(formulation):
    for op in ops_dense_sparse():
        for s in (1, 5):
            res = am(op, s, formulation=formulation, random_state=0, n_starts=6)
            assert res.cardinality == s, (formulation, s, res.info["am_cardinality"])
            assert np.linalg.norm(res.loadings) == pytest.approx(1.0)
            assert np.array_equal(res.support, np.flatnonzero(res.loadings))
            assert res.variance == pytest.approx(op.quad(res.loadings), rel=1e-9)
            assert res.info["formulation"] == formulation
            assert res.info["objectives"].shape == (6,)
            if "penalty_search" in res.info:
                assert res.n_iter >= res.info["iterations"].sum()
            else:
                assert res.n_iter == res.info["iterations"].sum()
            if formulation.endswith("_pen"):
                assert res.info["penalty"] is not None and res.info["penalty"] >= 0


@pytest.mark.parametrize("formulation", ALL)
def test_unpolished_result_keeps_am_loadings(formulation):
    op = DenseData(spiked(seed=3))
    res = am(op, 4, formulation=formulation, random_state=1, polish=False)
    assert res.cardinality == 4
    assert np.linalg.norm(res.loadings) == pytest.approx(1.0)
    polished = am(op, 4, formulation=formulation, random_state=1)
    assert polished.variance >= res.variance - 1e-12


@pytest.mark.parametrize("formulation", L1_VARIANCE)
def test_l1_variance_refuses_covariance(formulation):
    op = Covariance(np.cov(spiked().T))
    with pytest.raises(InvalidParameterError, match="formulation") as e:  # checked by the dispatcher
        sparse_pca(op, n_components=1, cardinality=3, method="am", formulation=formulation,
                   penalty=0.1 if formulation.endswith("pen") else None)
    assert "data matrix" in str(e.value)
    # a square root of the same Σ is accepted
    res = am(op.factor(), 3, formulation=formulation, random_state=0)
    assert res.cardinality == 3


@pytest.mark.parametrize("formulation", [f for f in ALL if f.startswith("l2_")])
def test_l2_variance_on_covariance(formulation):
    X = spiked(seed=5)
    cov = am(Covariance(np.cov(X.T, bias=True)), 5, formulation=formulation, random_state=0)
    dat = am(DenseData(X), 5, formulation=formulation, random_state=0)
    assert np.array_equal(cov.support, dat.support)
    assert cov.variance == pytest.approx(dat.variance, rel=1e-9)


# --------------------------------------------------------------------------- x-step operators
def test_hard_threshold_columns():
    rng = np.random.default_rng(0)
    V = rng.standard_normal((30, 7))
    T, thr = hard_threshold(V, 4)
    for j in range(7):
        keep = np.argsort(-np.abs(V[:, j]))[:4]
        assert set(np.flatnonzero(T[:, j])) == set(keep)
        assert np.allclose(T[keep, j], V[keep, j])
        assert thr[j] == pytest.approx(np.sort(np.abs(V[:, j]))[-4])


@pytest.mark.parametrize("s", [1, 2, 3.5, 6, 30])
def test_l1_ball_step_is_optimal(s):
    """vᵀx for x = V_λ(v)/‖V_λ(v)‖ equals the dual min_λ λ√s + ‖V_λ(v)‖₂ (weak duality
    makes any λ an upper bound, so equality proves optimality) and x is feasible."""
    rng = np.random.default_rng(int(10 * s))
    V = rng.standard_normal((25, 5)) * rng.uniform(0.1, 3, (25, 1))
    V[:3, 0] = 0.0
    T, lam = soft_threshold_l1_ball(V, s)
    for j in range(V.shape[1]):
        v = V[:, j]
        x = T[:, j] / np.linalg.norm(T[:, j])
        assert np.abs(x).sum() <= np.sqrt(s) * (1 + 1e-9)

        def dual(t):
            return t * np.sqrt(s) + np.linalg.norm(np.sign(v) * np.clip(np.abs(v) - t, 0, None))

        grid = np.linspace(0, np.abs(v).max(), 501)
        ref = min(min(dual(t) for t in grid),  # the dual is convex: the grid brackets it
                  minimize_scalar(dual, bounds=(0, np.abs(v).max()), method="bounded").fun)
        assert v @ x == pytest.approx(ref, rel=1e-6)
        assert v @ x <= ref + 1e-9
        assert dual(lam[j]) == pytest.approx(v @ x, rel=1e-9)


# --------------------------------------------------------------------------- optimality
def _small_instance(seed):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(4, 11))
    kind = seed % 3
    if kind == 0:
        return DenseData(spiked(n=int(rng.integers(8, 40)), p=p, k=int(rng.integers(1, p)),
                                strength=rng.uniform(0.5, 3), seed=seed))
    if kind == 1:
        return SparseData(sparse_counts(n=40, p=p, seed=seed))
    G = rng.standard_normal((p, p))
    return Covariance(G @ G.T / p + np.eye(p))


def test_variance_bounded_by_exhaustive_and_usually_equal():
    hits = total = 0
    for seed in range(24):
        op = _small_instance(seed)
        S = op.to_dense()
        p = S.shape[0]
        for s in sorted({1, 2, p // 2, p - 1}):
            if s < 1:
                continue
            ref = exhaustive(S, s)
            res = am(op, s, random_state=seed)
            tp = tpower(op, s)
            for r in (res, tp):
                assert r.variance <= ref * (1 + 1e-9) + 1e-12
                assert r.cardinality == s
            total += 1
            hits += res.variance >= ref * (1 - 1e-9)
    assert hits >= 0.85 * total, (hits, total)


def test_full_cardinality_gives_leading_eigenvector():
    op = DenseData(spiked(p=12, seed=2))
    S = op.to_dense()
    w, V = np.linalg.eigh(S)
    res = tpower(op, 12)
    assert res.variance == pytest.approx(w[-1], rel=1e-10)
    assert abs(res.loadings @ V[:, -1]) == pytest.approx(1.0, abs=1e-9)


def test_planted_spike_recovered_by_tpower():
    rng = np.random.default_rng(42)
    n, p, k = 200, 100, 20
    support = np.sort(rng.choice(p, k, replace=False))
    u = np.zeros(p)
    u[support] = rng.choice([-1.0, 1.0], k) * rng.uniform(0.5, 1.0, k)
    u /= np.linalg.norm(u)
    X = rng.standard_normal((n, p)) + np.sqrt(8.0) * rng.standard_normal((n, 1)) * u
    for op in (DenseData(X), Covariance(np.cov(X.T, bias=True))):
        res = tpower(op, k)
        assert np.array_equal(res.support, support)
        assert abs(res.loadings @ u) > 0.95
        assert res.converged


# --------------------------------------------------------------------------- strategies / determinism
@pytest.mark.parametrize("formulation", ["l2_l0_con", "l2_l1_con", "l2_l0_pen", "l1_l0_con"])
def test_strategies_give_the_same_answer(formulation):
    op = SparseData(sparse_counts(seed=4))
    kw = dict(formulation=formulation, n_starts=11, random_state=3, screen=True)
    if formulation.endswith("pen"):
        kw["penalty"] = 0.2 if formulation.startswith("l2") else 2.0
        s = None
    else:
        s = 5
    ref = am(op, s, strategy="sequential", **kw)
    assert ref.info["batch_size"] == 1
    for strategy, bs in [("batch", 4), ("all", 64), ("otf", 3), ("otf", 64)]:
        res = am(op, s, strategy=strategy, batch_size=bs, **kw)
        assert res.info["strategy"] == strategy
        assert np.array_equal(res.support, ref.support), strategy
        assert res.variance == pytest.approx(ref.variance, rel=1e-9)
        np.testing.assert_allclose(res.info["objectives"], ref.info["objectives"], rtol=1e-9)
        assert np.array_equal(res.info["iterations"], ref.info["iterations"])
        assert res.info["best_start"] == ref.info["best_start"]


def test_same_random_state_same_output():
    op = DenseData(spiked(seed=9))
    for formulation in ALL:
        a = am(op, 4, formulation=formulation, random_state=123, n_starts=5)
        b = am(op, 4, formulation=formulation, random_state=123, n_starts=5)
        assert np.array_equal(a.loadings, b.loadings)
        assert a.variance == b.variance and a.n_iter == b.n_iter
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    assert np.array_equal(am(op, 4, random_state=rng_a).loadings,
                          am(op, 4, random_state=rng_b).loadings)


def test_starts_are_deterministic_and_documented():
    op = DenseData(spiked(seed=1))
    order = np.argsort(-op.diag(), kind="stable")
    res = tpower(op, 3, max_iter=1, polish=False, record_path=True)
    # two starts: e_i at the largest-variance feature (first objective √Σ_ii) and the
    # approximate-greedy solution (first objective √(its variance))
    assert res.info["n_starts"] == 2
    assert res.info["paths"][0][0] == pytest.approx(np.sqrt(op.diag()[order[0]]))
    g = get_solver("approx_greedy").func(op, 3)
    assert res.info["paths"][1][0] == pytest.approx(np.sqrt(g.variance))
    assert tpower(op, 3).variance >= g.variance - 1e-12
    res = tpower(op, 3, n_starts=1, max_iter=1, polish=False, record_path=True)
    assert res.info["n_starts"] == 1
    assert res.info["paths"][0][0] == pytest.approx(np.sqrt(op.diag()[order[0]]))
    res = am(op, 3, init="coordinates", n_starts=4, record_path=True, max_iter=1)
    first = [path[0] for path in res.info["paths"]]
    np.testing.assert_allclose(first, np.sqrt(op.diag()[order[:4]]))
    x0 = np.zeros(op.n_features)
    x0[[1, 2, 3]] = 1.0
    res = am(op, 3, init=x0, record_path=True, max_iter=1)
    assert res.info["n_starts"] == 1
    assert res.info["paths"][0][0] == pytest.approx(np.sqrt(op.quad(x0 / np.sqrt(3))))


# --------------------------------------------------------------------------- monotonicity
@pytest.mark.parametrize("formulation", ALL)
def test_objective_never_decreases(formulation):
    for op in ops_dense_sparse():
        kw = dict(formulation=formulation, n_starts=8, random_state=0, record_path=True,
                  tol=0.0, max_iter=60)
        if formulation.endswith("pen"):
            kw["penalty"] = {"l2_l0_pen": 0.3, "l2_l1_pen": 0.3, "l1_l0_pen": 30.0,
                             "l1_l1_pen": 2.0}[formulation]
            res = am(op, None, **kw)
        else:
            res = am(op, 5, screen=True, **kw)
        for j, path in enumerate(res.info["paths"]):
            path = np.asarray(path)
            assert path.size == res.info["iterations"][j] + 1
            assert np.all(np.diff(path) >= -1e-10 * np.abs(path[1:]).max()), (formulation, j)
            assert path[-1] == pytest.approx(res.info["objectives"][j])


# --------------------------------------------------------------------------- screening
def _text_like(n=300, p=400, seed=0):
    """Zipf-like word frequencies with a few topics: the working set is much smaller than p."""
    rng = np.random.default_rng(seed)
    freq = 1.0 / np.arange(1, p + 1) ** 0.9
    X = sp.random(n, p, density=0.03, random_state=seed, format="lil")
    for t in range(4):
        words = rng.choice(p, 8, replace=False)
        docs = rng.random(n) < 0.2
        for w in words:
            X[np.flatnonzero(docs & (rng.random(n) < 0.7)), w] = 2.0
    X = X.tocsr()
    X.data *= freq[X.indices] * 10 + 0.5
    return X


@pytest.mark.parametrize("formulation", ["l2_l0_con", "l2_l1_con", "l2_l0_pen", "l2_l1_pen"])
def test_screened_result_is_a_fixed_point_of_the_full_iteration(formulation):
    op = SparseData(_text_like(), center=False)
    p = op.n_features
    form = FORMULATIONS[formulation]
    level = 4 if form.sparsity.constrained else {"l2_l0_pen": 0.05, "l2_l1_pen": 0.2}[formulation]
    s = 4 if form.sparsity.constrained else None
    res = am(op, s, formulation=formulation, penalty=None if s else level, n_starts=20,
             random_state=0, screen=True, polish=False, tol=1e-12, max_iter=500)
    assert res.info["products"]["block"] >= 1
    assert res.info["working_set"] < p or res.info["products"]["matmat"] > 0
    x = res.info["am_loadings"]
    assert np.linalg.norm(x) == pytest.approx(1.0)
    assert res.converged
    # one full iteration from x keeps the support
    v = op.matvec(x) / np.sqrt(op.quad(x))
    T, _ = form.sparsity.xstep(v[:, None], level)
    assert np.array_equal(np.flatnonzero(T[:, 0]), np.flatnonzero(x))
    full = am(op, s, formulation=formulation, penalty=None if s else level, n_starts=20,
              random_state=0, screen=False, polish=False, tol=1e-12, max_iter=500)
    assert full.info["products"]["block"] == 0
    assert res.variance >= 0.9 * full.variance


def test_screening_escapes_its_working_set():
    """A strong group of low-variance features, reachable only through a correlation
    with the top feature: the restricted iteration stalls on the working set, the
    certificate (a full product) fails, and the start moves on to a larger set."""
    rng = np.random.default_rng(0)
    n, p = 400, 300
    X = rng.standard_normal((n, p)) * np.linspace(1.6, 1.0, p)
    z = rng.standard_normal(n)
    group = np.arange(280, 290)  # variance ranks 290..299
    X[:, group] = 0.8 * z[:, None] + 0.3 * rng.standard_normal((n, 10))
    X[:, 0] += 0.8 * z
    op = DenseData(X)
    res = am(op, 10, n_starts=4, screen=True, record_path=True, random_state=0)
    assert res.info["products"]["matmat"] >= 1 and res.info["products"]["block"] >= 2
    assert set(group) - set(res.support) <= {288, 289} and 0 in res.support
    for j, path in enumerate(res.info["paths"]):
        assert len(path) == res.info["iterations"][j] + 1
        assert np.all(np.diff(path) >= -1e-10 * max(path))
    plain = am(op, 10, n_starts=4, screen=False, random_state=0)
    assert np.array_equal(plain.support, res.support)
    assert res.variance == pytest.approx(plain.variance, rel=1e-9)


def test_screening_saves_products_on_many_starts():
    op = SparseData(_text_like(n=400, p=1200, seed=1), center=False)
    res = am(op, 5, n_starts=64, random_state=0)
    plain = am(op, 5, n_starts=64, random_state=0, screen=False)
    assert res.info["working_set"] < op.n_features
    assert res.info["products"]["matmat"] < plain.info["products"]["matmat"]
    assert res.variance >= plain.variance * (1 - 1e-3)


# --------------------------------------------------------------------------- penalties
def test_penalty_given_without_cardinality():
    op = DenseData(spiked(seed=6))
    d = op.diag()
    res = am(op, None, formulation="l2_l0_pen", penalty=float(np.median(d)))
    assert res.info["penalty"] == pytest.approx(np.median(d))
    assert res.cardinality == res.info["am_cardinality"] >= 1
    assert not res.info["truncated"]
    # a larger penalty gives a sparser solution
    res2 = am(op, None, formulation="l2_l0_pen", penalty=float(np.sort(d)[-3]))
    assert res2.cardinality <= res.cardinality


def test_huge_penalty_collapses_with_warning():
    op = DenseData(spiked(seed=6))
    with pytest.warns(RuntimeWarning, match="collapsed"):
        res = am(op, None, formulation="l2_l1_pen", penalty=1e6)
    assert res.cardinality == 0 and res.variance == 0.0


@pytest.mark.parametrize("formulation", [f for f in ALL if f.endswith("_pen")])
def test_penalty_search_reaches_cardinality(formulation):
    op = DenseData(spiked(seed=7))
    res = am(op, 6, formulation=formulation, random_state=0)
    assert res.cardinality == 6
    assert res.info["penalty_search"]
    assert res.info["penalty_exact"] == (res.info["am_cardinality"] == 6)


def test_penalty_and_cardinality_resize():
    op = DenseData(spiked(seed=8))
    res = am(op, 3, formulation="l2_l0_pen", penalty=1e-6)  # keeps ~every feature
    assert res.info["am_cardinality"] > 3 and res.info["truncated"]
    assert res.cardinality == 3


def test_l1_constraint_reports_raw_cardinality():
    op = DenseData(spiked(seed=11))
    res = am(op, 4, formulation="l2_l1_con", random_state=0)
    assert res.cardinality == 4
    assert res.info["truncated"] == (res.info["am_cardinality"] != 4)


# --------------------------------------------------------------------------- validation
@pytest.mark.parametrize("kw, match", [
    (dict(formulation="l3_l0_con"), "formulation"),
    (dict(n_starts=0), "n_starts"),
    (dict(n_starts=2.5), "n_starts"),
    (dict(strategy="parallel"), "strategy"),
    (dict(batch_size=0), "batch_size"),
    (dict(max_iter=0), "max_iter"),
    (dict(tol=-1.0), "tol"),
    (dict(formulation="l2_l0_pen", penalty=-0.1), "penalty"),
    (dict(penalty=0.5), "penalty"),  # a constrained formulation takes no penalty
    (dict(init="eigen"), "init"),
    (dict(init=np.ones(3)), "init"),
    (dict(init=np.zeros(40)), "init"),
    (dict(init=np.ones((40, 2)), n_starts=3), "n_starts"),
    (dict(screen="yes"), "screen"),
    (dict(polish=1), "polish"),
])
def test_bad_parameters(kw, match):
    op = DenseData(spiked())
    with pytest.raises(InvalidParameterError, match=match):
        am(op, 3, **kw)


def test_bad_cardinality():
    op = DenseData(spiked())
    for s in (0, 41, 2.0, True):
        with pytest.raises(InvalidParameterError, match="cardinality"):
            am(op, s)
        with pytest.raises(InvalidParameterError, match="cardinality"):
            tpower(op, s)
    with pytest.raises(InvalidParameterError, match="cardinality"):
        am(op, None)
    with pytest.raises(InvalidParameterError, match="penalty"):
        am(op, None, formulation="l2_l1_pen")
    with pytest.raises(InvalidParameterError, match="op"):
        am(np.eye(3), 2)


def test_through_sparse_pca():
    import eigensparse

    X = spiked(seed=12)
    res = eigensparse.sparse_pca(X, n_components=2, cardinality=4, method="am",
                                 formulation="l2_l1_con", n_starts=4, random_state=0)
    assert [len(s) for s in res.supports] == [4, 4]
    res = eigensparse.sparse_pca(X, n_components=2, cardinality=4, method="tpower")
    assert [len(s) for s in res.supports] == [4, 4]
