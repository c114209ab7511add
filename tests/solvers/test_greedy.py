"""The greedy solvers (``solvers/_greedy.py``): the full greedy path against a textbook
brute force, the bordered eigenvalue update against ``eigvalsh``, approximate greedy's
candidate refinement, and a planted support recovered."""
from __future__ import annotations

import numpy as np
import pytest

from eigensparse._validation import InvalidParameterError
from eigensparse.operators import Covariance, DenseData
from eigensparse.solvers._greedy import approx_greedy, bordered_lmax, greedy

RUN = {"greedy": greedy, "approx_greedy": approx_greedy}


def run(method, op, s, **kw):
    return RUN[method](op, s, **kw)


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


@pytest.mark.parametrize("seed", range(12))
def test_greedy_paths_nondecreasing_and_consistent(seed, make_instance):
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
def test_full_greedy_matches_brute_force(seed, spiked_cov):
    rng = np.random.default_rng(seed)
    p = int(rng.integers(8, 30))
    if seed % 3 == 2:
        op = Covariance(spiked_cov(rng, p))
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


@pytest.mark.parametrize("scale", [1e-200, 1e-170])
def test_approx_greedy_scores_do_not_underflow(scale):
    """(Σ[i, I]z)²/λ underflowed to 0 for every candidate where Σ's entries are below
    ~1e-154, so approximate greedy added the lowest index instead of the best."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 8))
    X[:, 5] += 2 * X[:, 6]
    X[:, 7] += X[:, 6]  # the best partners of feature 5 are 7 and 6, not the lowest indices
    S = np.cov(X.T, bias=True)
    ref = approx_greedy(Covariance(S), 3)
    tiny = approx_greedy(Covariance.trusted(S * scale), 3)
    assert ref.info["selection_order"].tolist() == [5, 7, 6]
    assert tiny.info["selection_order"].tolist() == [5, 7, 6]
    assert tiny.variance / scale == pytest.approx(ref.variance, rel=1e-10)
