"""Basic correctness of the simple, greedy, column-selection and exhaustive solvers.

Self-contained: builds its own small random instances (no shared data needed).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse._validation import InvalidParameterError
from eigensparse.operators import Covariance, DenseData, SparseData
# import the modules under test directly (each registers its solvers), so that this file
# does not depend on the other solver modules of the package importing cleanly
from eigensparse.solvers import SOLVERS, _colpca, _exhaustive, _greedy, _simple  # noqa: F401
from eigensparse.solvers._greedy import bordered_lmax

METHODS = ["variance", "threshold", "greedy", "approx_greedy", "scol", "mcol", "exhaustive"]


def run(method, op, s, **kw):
    return SOLVERS[method].func(op, s, **kw)


# --------------------------------------------------------------------------- instances
def _low_rank_noise(rng, n, p):
    r = int(rng.integers(1, 4))
    F = rng.standard_normal((n, r)) * rng.uniform(0.5, 3.0, r)
    L = rng.standard_normal((r, p)) * (rng.random((r, p)) < 0.5)
    return F @ L + 0.5 * rng.standard_normal((n, p))


def _spiked_cov(rng, p):
    k = int(rng.integers(1, p + 1))
    v = np.zeros(p)
    v[rng.choice(p, k, replace=False)] = rng.standard_normal(k)
    v /= np.linalg.norm(v)
    G = rng.standard_normal((p, p)) * 0.3
    return np.eye(p) + rng.uniform(1, 6) * np.outer(v, v) + G @ G.T / p


def make_instance(seed):
    """A random small operator: dense data / sparse data / covariance, p <= 12."""
    rng = np.random.default_rng(seed)
    p = int(rng.integers(3, 13))
    kind = seed % 4
    if kind == 0:
        n = int(rng.integers(2, 2 * p + 3))  # n < p happens: rank-deficient Σ
        return DenseData(_low_rank_noise(rng, n, p), scale=bool(rng.integers(2)))
    if kind == 1:
        n = int(rng.integers(5, 40))
        X = sp.random(n, p, density=0.35, random_state=seed, format="csr")
        X.data = rng.integers(1, 4, X.data.size).astype(float)
        return SparseData(X)
    if kind == 2:
        return Covariance(_spiked_cov(rng, p))
    X = _low_rank_noise(rng, int(rng.integers(3, 30)), p)
    return Covariance(np.cov(X.T, bias=True), scale=bool(rng.integers(2)))


def exhaustive_reference(S, s):
    """Naive optimum over all supports of size s (independent of the solver)."""
    return max(np.linalg.eigvalsh(S[np.ix_(I, I)])[-1]
               for I in map(list, itertools.combinations(range(S.shape[0]), s)))


def brute_force_greedy(S, s):
    """Textbook full greedy: evaluate every candidate with a dense eigvalsh."""
    p = S.shape[0]
    I = [int(np.argmax(np.diag(S)))]
    vals, margins = [S[I[0], I[0]]], []
    while len(I) < s:
        cand = [i for i in range(p) if i not in I]
        v = np.array([np.linalg.eigvalsh(S[np.ix_(I + [i], I + [i])])[-1] for i in cand])
        srt = np.sort(v)
        margins.append(srt[-1] - srt[-2] if v.size > 1 else np.inf)
        I.append(cand[int(np.argmax(v))])
        vals.append(v.max())
    return I, np.array(vals), np.array(margins)


# --------------------------------------------------------------------------- registry
def test_all_registered():
    for m in METHODS:
        assert m in SOLVERS
    assert "n_per_step" in SOLVERS["mcol"].options
    assert "max_supports" in SOLVERS["exhaustive"].options


# --------------------------------------------------------------------------- s = p
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("kind", ["dense", "sparse", "cov"])
def test_full_cardinality_gives_leading_eigenvector(method, kind):
    rng = np.random.default_rng(7)
    p = 9
    v = rng.standard_normal(p)
    v /= np.linalg.norm(v)
    C = np.eye(p) + 4.0 * np.outer(v, v)  # eigengap 5 : 1
    if kind == "cov":
        op = Covariance(C)
    else:
        X = rng.standard_normal((400, p)) @ np.linalg.cholesky(C).T
        op = DenseData(X) if kind == "dense" else SparseData(sp.csr_matrix(X))
    S = op.to_dense()
    w, V = np.linalg.eigh(S)
    res = run(method, op, p)
    assert res.cardinality == p
    assert abs(res.loadings @ V[:, -1]) == pytest.approx(1.0, abs=1e-9)
    assert res.variance == pytest.approx(w[-1], rel=1e-10)
    assert np.linalg.norm(res.loadings) == pytest.approx(1.0)
    assert res.method == method


# --------------------------------------------------------------------------- optimality
@pytest.mark.parametrize("seed", range(60))
def test_never_above_exhaustive_and_variance_is_exact(seed):
    op = make_instance(seed)
    p = op.n_features
    S = op.to_dense()
    rng = np.random.default_rng(1000 + seed)
    for s in sorted({1, int(rng.integers(1, p + 1)), int(rng.integers(1, p + 1))}):
        opt = run("exhaustive", op, s)
        ref = exhaustive_reference(S, s)
        tol = 1e-9 * max(1.0, ref)
        assert opt.variance == pytest.approx(ref, abs=tol)
        assert opt.upper_bound == opt.variance and opt.gap == 0
        for m in METHODS:
            res = run(m, op, s)
            assert res.variance <= ref + tol, (m, s)
            assert res.variance == pytest.approx(op.quad(res.loadings), abs=tol), m
            assert res.cardinality <= s
            assert np.linalg.norm(res.loadings) == pytest.approx(1.0)
            assert np.array_equal(res.support, np.flatnonzero(res.loadings))
            assert abs(res.loadings).max() == res.loadings.max()  # sign convention


@pytest.mark.parametrize("seed", range(12))
def test_greedy_paths_nondecreasing_and_consistent(seed):
    op = make_instance(seed)
    p = op.n_features
    for m in ("greedy", "approx_greedy"):
        res = run(m, op, p)
        pv = res.info["path_variances"]
        sup = res.info["path_supports"]
        assert pv.shape == (p,) and len(sup) == p
        assert np.all(np.diff(pv) >= -1e-12 * max(1.0, pv[-1]))
        for k, I in enumerate(sup):
            assert I.size == k + 1 and np.all(np.diff(I) > 0)
            assert pv[k] == pytest.approx(np.linalg.eigvalsh(op.block(I))[-1],
                                          abs=1e-10 * max(1.0, pv[-1]))
        assert sup[0][0] == np.argmax(op.diag())
        # the path at s is the start of the path at p
        s = max(1, p // 2)
        short = run(m, op, s)
        np.testing.assert_array_equal(short.support, sup[s - 1])
        np.testing.assert_allclose(short.info["path_variances"], pv[:s], rtol=1e-12)


@pytest.mark.parametrize("seed", range(15))
def test_full_greedy_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(8, 30))
    if seed % 3 == 2:
        op = Covariance(_spiked_cov(rng, p))
    else:
        op = DenseData(rng.standard_normal((int(rng.integers(5, 40)), p)))
    S = op.to_dense()
    s = min(p, 10)
    I_ref, v_ref, margins = brute_force_greedy(S, s)
    res = run("greedy", op, s)
    np.testing.assert_allclose(res.info["path_variances"], v_ref, rtol=1e-11, atol=1e-12)
    order = list(res.info["selection_order"])
    # selections agree as long as the brute-force choice was not a near tie
    first_tie = next((k for k, g in enumerate(margins) if g < 1e-9), len(margins))
    assert order[: first_tie + 1] == I_ref[: first_tie + 1]


@pytest.mark.parametrize("seed", range(4))
def test_approx_greedy_candidates_refinement(seed):
    rng = np.random.default_rng(seed)
    op = DenseData(rng.standard_normal((25, 18)))
    full = run("greedy", op, 9)
    every = run("approx_greedy", op, 9, n_candidates=18)  # tests all: the full greedy choice
    np.testing.assert_array_equal(every.info["selection_order"], full.info["selection_order"])
    plain = run("approx_greedy", op, 9)
    some = run("approx_greedy", op, 9, n_candidates=3)
    assert plain.info["path_variances"][1] <= some.info["path_variances"][1] + 1e-12
    with pytest.raises(InvalidParameterError, match="n_candidates"):
        run("approx_greedy", op, 3, n_candidates=0)


def test_bordered_lmax_against_eigvalsh():
    rng = np.random.default_rng(3)
    for trial in range(80):
        p = int(rng.integers(3, 14))
        if trial % 4 == 0:
            S = np.eye(p)  # repeated eigenvalues, zero borders
        elif trial % 4 == 1:
            B = rng.integers(-1, 2, (3, p)).astype(float)
            S = B.T @ B  # rank-deficient, exact ties
        else:
            A = rng.standard_normal((int(rng.integers(1, 20)), p))
            S = A.T @ A
        k = int(rng.integers(1, p))
        I = rng.choice(p, k, replace=False)
        cand = np.setdiff1d(np.arange(p), I)
        lam, Z = np.linalg.eigh(S[np.ix_(I, I)])
        ref = np.array([np.linalg.eigvalsh(S[np.ix_(np.r_[I, c], np.r_[I, c])])[-1]
                        for c in cand])
        mu = bordered_lmax(lam, Z, S[np.ix_(I, cand)], S[cand, cand])
        np.testing.assert_allclose(mu, ref, rtol=1e-12, atol=1e-12)
        mup = bordered_lmax(lam, Z, S[np.ix_(I, cand)], S[cand, cand], prune=True)
        assert ref[np.argmax(mup)] >= ref.max() - 1e-12
        fin = np.isfinite(mup)
        np.testing.assert_allclose(mup[fin], ref[fin], rtol=1e-12, atol=1e-12)


def test_planted_spike_recovered_by_greedy():
    rng = np.random.default_rng(2024)
    p, n, k, theta = 100, 200, 20, 5.0
    supp = np.sort(rng.choice(p, k, replace=False))
    v = np.zeros(p)
    v[supp] = 1.0 / np.sqrt(k)
    # rows ~ N(0, I + θ vvᵀ)
    X = rng.standard_normal((n, p)) + np.sqrt(theta) * rng.standard_normal((n, 1)) * v
    for op in (DenseData(X), Covariance(np.cov(X.T))):
        res = run("greedy", op, k)
        np.testing.assert_array_equal(res.support, supp)
        assert abs(res.loadings @ v) > 0.95
    assert np.array_equal(run("approx_greedy", DenseData(X), k).support, supp)


# --------------------------------------------------------------------------- exhaustive
def test_exhaustive_refuses_huge_problems():
    op = Covariance(np.eye(100))
    with pytest.raises(InvalidParameterError, match="cardinality") as exc:
        run("exhaustive", op, 10)
    assert "n_features" in str(exc.value) and "max_supports" in str(exc.value)
    with pytest.raises(InvalidParameterError, match="max_supports"):
        run("exhaustive", Covariance(np.eye(12)), 6, max_supports=100)
    assert run("exhaustive", Covariance(np.eye(12)), 6, max_supports=924).n_iter == 924


def test_exhaustive_batches(monkeypatch):
    """A problem spanning several batches of supports gives the naive optimum."""
    monkeypatch.setattr(_exhaustive, "_BATCH_ENTRIES", 64 * 1000)  # 1000 supports a batch
    rng = np.random.default_rng(5)
    A = rng.standard_normal((15, 16))
    op = DenseData(A)
    res = run("exhaustive", op, 8)  # 12870 supports
    assert res.info["n_supports"] == 12870
    assert res.variance == pytest.approx(exhaustive_reference(op.to_dense(), 8), rel=1e-12)


# --------------------------------------------------------------------------- Scol / Mcol
def _reference_scol_order(S, s, c):
    """Direct evaluation of the paper's criterion ‖V(x + αe_j)‖² (with VᵀV = S)."""
    p = S.shape[0]
    x = np.zeros(p)
    J = []
    while len(J) < s:
        gains = {}
        for j in range(p):
            if j in J:
                continue
            best = -np.inf
            for a in (1.0, -1.0):
                y = x.copy()
                y[j] += a
                best = max(best, y @ S @ y)
            gains[j] = best
        new = sorted(gains, key=lambda j: (-gains[j], j))[: min(c, s - len(J))]
        g = S @ x
        for j in new:
            x[j] = 1.0 if g[j] >= 0 else -1.0
        J += new
    return J


@pytest.mark.parametrize("seed", range(8))
def test_scol_selection_matches_paper_criterion(seed):
    rng = np.random.default_rng(seed)
    p = 14
    X = _low_rank_noise(rng, 30, p)
    op = DenseData(X)
    S = op.to_dense()
    for c in (1, 3):
        ref = _reference_scol_order(S, 9, c)
        res = run("mcol", op, 9, n_per_step=c)
        assert list(res.info["selection_order"]) == ref
        assert res.info["n_selection_loops"] == -(-9 // c)


def test_scol_sparse_matches_dense():
    """Implicit centering of sparse data gives the same answer as dense centered data."""
    X = sp.random(60, 40, density=0.2, random_state=1, format="csr")
    X.data += 1.0
    dense, sparse = DenseData(X.toarray()), SparseData(X)
    for m in ("scol", "mcol", "greedy", "approx_greedy", "threshold", "variance"):
        a, b = run(m, dense, 10), run(m, sparse, 10)
        np.testing.assert_array_equal(a.support, b.support)
        assert a.variance == pytest.approx(b.variance, rel=1e-10)


def test_power_stage_options():
    rng = np.random.default_rng(11)
    op = DenseData(rng.standard_normal((50, 20)))
    raw = run("scol", op, 6, power_iter=0)
    J = raw.support
    assert np.allclose(np.abs(raw.loadings[J]), 1 / np.sqrt(6))
    full = run("scol", op, 6, power_iter=5000, tol=1e-13)
    assert full.converged
    assert full.variance == pytest.approx(np.linalg.eigvalsh(op.block(full.support))[-1],
                                          rel=1e-10)
    assert full.variance >= raw.variance
    short = run("scol", op, 6, power_iter=1, tol=0.0)
    assert not short.converged and short.n_iter == 1
    assert run("mcol", op, 20).info["n_per_step"] == 2
    with pytest.raises(InvalidParameterError, match="n_per_step"):
        run("mcol", op, 6, n_per_step=0)
    with pytest.raises(InvalidParameterError, match="power_iter"):
        run("scol", op, 6, power_iter=-1)


# --------------------------------------------------------------------------- misc
def test_threshold_large_p_uses_lanczos_and_is_deterministic():
    rng = np.random.default_rng(0)
    p = 700
    v = np.zeros(p)
    v[:10] = 1 / np.sqrt(10)
    X = rng.standard_normal((150, p)) + 3.0 * rng.standard_normal((150, 1)) * v
    op = DenseData(X)
    a, b = run("threshold", op, 10), run("threshold", op, 10)
    assert "eigsh" in a.message
    np.testing.assert_array_equal(a.loadings, b.loadings)
    np.testing.assert_array_equal(a.support, np.arange(10))
    lam = np.linalg.eigvalsh(op.to_dense())[-1]
    assert a.upper_bound == pytest.approx(lam, rel=1e-9)
    assert a.gap == pytest.approx(lam - a.variance)


def test_variance_picks_largest_diagonal_with_ties_to_lower_index():
    op = Covariance(np.diag([1.0, 3.0, 2.0, 3.0, 0.5]) + 0.1)
    np.testing.assert_array_equal(run("variance", op, 2).support, [1, 3])
    np.testing.assert_array_equal(run("variance", op, 1).support, [1])
    # on a degenerate block the loadings may be sparser than the chosen support
    res = run("variance", Covariance(np.diag([1.0, 3.0, 2.0, 3.0, 0.5])), 2)
    np.testing.assert_array_equal(res.info["selected_support"], [1, 3])
    assert res.variance == 3.0


@pytest.mark.parametrize("method", METHODS)
def test_bad_cardinality_is_refused(method):
    op = Covariance(np.eye(4))
    for bad in (0, 5, 2.5, True):
        with pytest.raises(InvalidParameterError, match="cardinality"):
            run(method, op, bad)


def test_degenerate_zero_variance_features():
    X = np.zeros((10, 6))
    X[:, 0] = np.arange(10.0)
    op = DenseData(X)
    for m in METHODS:
        res = run(m, op, 3)
        assert res.variance == pytest.approx(op.to_dense()[0, 0])
        assert np.isfinite(res.loadings).all()
