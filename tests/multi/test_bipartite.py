"""Joint disjoint components by bipartite matchings, and the EM-SPCA / SpanSPCA baselines."""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import eigensparse
from eigensparse import Covariance, DenseData, InvalidParameterError, SparseData, sparse_pca
from eigensparse.multi import get_joint
from eigensparse.multi.bipartite import bipartite, epsilon_net, match_supports
from eigensparse.multi.bipartite.refine import _rematch, _State, _swap_round
from eigensparse.multi.bipartite.search import _Gram


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------
def brute_matching(W2, caps):
    """max Σ_j Σ_{i∈I_j} W2[i, j] over disjoint I_j with |I_j| = caps[j], by enumeration."""
    d, k = W2.shape

    def rec(j, avail):
        if j == k:
            return 0.0
        best = -np.inf
        for I in itertools.combinations(avail, caps[j]):
            rest = [a for a in avail if a not in I]
            best = max(best, W2[list(I), j].sum() + rec(j + 1, rest))
        return best

    return rec(0, list(range(d)))


def brute_disjoint_optimum(S, caps):
    """max Σ_j λmax(S[I_j, I_j]) over disjoint supports of sizes caps (exhaustive)."""
    d = S.shape[0]
    lmax = {}

    def lam(I):
        if I not in lmax:
            lmax[I] = float(np.linalg.eigvalsh(S[np.ix_(I, I)])[-1])
        return lmax[I]

    def rec(j, avail):
        if j == len(caps):
            return 0.0
        best = -np.inf
        for I in itertools.combinations(avail, caps[j]):
            rest = tuple(a for a in avail if a not in I)
            best = max(best, lam(I) + rec(j + 1, rest))
        return best

    return rec(0, tuple(range(d)))


def low_rank_cov(d, r, seed):
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((d, r)) * np.sqrt(rng.pareto(2.0, size=d) + 0.2)[:, None]
    return B @ B.T


def total(results):
    return sum(r.variance for r in results)


def check_disjoint(results, caps, p):
    seen = np.zeros(p, dtype=int)
    for r, s in zip(results, caps):
        assert r.support.size == s
        assert np.all(np.diff(r.support) > 0)
        assert np.isclose(np.linalg.norm(r.loadings), 1.0)
        assert np.all(r.loadings[np.setdiff1d(np.arange(p), r.support)] == 0)
        seen[r.support] += 1
    assert seen.max() <= 1


# ---------------------------------------------------------------------------------------
# the matching step
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("matcher", ["ssp", "lsa"])
def test_matching_equals_brute_force(matcher):
    rng = np.random.default_rng(0)
    for trial in range(60):
        d = int(rng.integers(4, 11))
        W = rng.standard_normal((d, 2))
        if trial % 4 == 0:
            W = np.round(W, 1)  # ties
        supp = match_supports(W, [2, 2], matcher=matcher)
        W2 = W**2
        assert all(I.size == 2 for I in supp)
        assert np.intersect1d(supp[0], supp[1]).size == 0
        got = W2[supp[0], 0].sum() + W2[supp[1], 1].sum()
        assert got == pytest.approx(brute_matching(W2, [2, 2]), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("matcher", ["ssp", "lsa"])
def test_matching_unequal_cardinalities_and_three_columns(matcher):
    rng = np.random.default_rng(1)
    for trial in range(40):
        d = int(rng.integers(6, 10))
        caps = [int(c) for c in rng.integers(1, 4, size=3)]
        if sum(caps) > d:
            continue
        W = rng.standard_normal((d, 3))
        supp = match_supports(W, caps, matcher=matcher)
        assert [I.size for I in supp] == caps
        assert np.unique(np.concatenate(supp)).size == sum(caps)
        got = sum((W[I, j] ** 2).sum() for j, I in enumerate(supp))
        assert got == pytest.approx(brute_matching(W**2, caps), rel=1e-12)


def test_matchers_agree_on_larger_instances():
    rng = np.random.default_rng(2)
    for p, k, s in [(300, 4, 20), (120, 8, 15), (60, 3, 20)]:
        W = rng.standard_normal((p, 3)) @ rng.standard_normal((3, k))
        W *= np.sqrt(rng.pareto(1.5, size=p) + 0.1)[:, None]
        a = match_supports(W, [s] * k, matcher="ssp")
        b = match_supports(W, [s] * k, matcher="lsa")
        va = sum((W[I, j] ** 2).sum() for j, I in enumerate(a))
        vb = sum((W[I, j] ** 2).sum() for j, I in enumerate(b))
        assert va == pytest.approx(vb, rel=1e-12)


def test_epsilon_net_covers_the_sphere():
    rng = np.random.default_rng(3)
    for r, eps in [(2, 0.2), (3, 0.4), (4, 0.8)]:
        net = epsilon_net(r, eps)
        assert np.allclose(np.linalg.norm(net, axis=1), 1.0)
        c = rng.standard_normal((2000, r))
        c /= np.linalg.norm(c, axis=1, keepdims=True)
        dist = np.minimum(np.linalg.norm(c[:, None] - net[None], axis=2),
                          np.linalg.norm(c[:, None] + net[None], axis=2)).min(axis=1)
        assert dist.max() <= eps / 2 + 1e-12


# ---------------------------------------------------------------------------------------
# the joint algorithm
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("d,r,caps,eps,seed", [
    (8, 2, [2, 2], 0.1, 0),
    (9, 2, [3, 2], 0.1, 1),
    (8, 3, [2, 2], 0.4, 2),
])
def test_within_one_minus_eps_of_exhaustive_optimum(d, r, caps, eps, seed):
    S = low_rank_cov(d, r, seed)
    op = Covariance(S)
    opt = brute_disjoint_optimum(S, caps)
    res = bipartite(op, caps, rank=r, epsilon=eps, refine=False, random_state=0)
    check_disjoint(res, caps, d)
    assert total(res) >= (1 - eps) * opt - 1e-10
    assert total(res) <= opt + 1e-10
    assert res[0].info["search"] == "epsilon-net"
    assert not res[0].info["stopped_early"]
    refined = bipartite(op, caps, rank=r, epsilon=eps, refine=True, random_state=0)
    assert total(refined) >= total(res) - 1e-10
    assert total(refined) <= opt + 1e-10


def test_full_rank_sampling_finds_the_optimum_on_tiny_data():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((30, 8)) @ rng.standard_normal((8, 8))
    op = DenseData(X)
    opt = brute_disjoint_optimum(op.to_dense(), [2, 2])
    res = bipartite(op, [2, 2], rank=8, n_candidates=3000, random_state=0)
    assert total(res) == pytest.approx(opt, rel=1e-9)


def test_supports_disjoint_with_exact_sizes_through_sparse_pca():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((80, 40)) @ rng.standard_normal((40, 40))
    out = sparse_pca(X, n_components=4, cardinality=5, method="bipartite", n_candidates=500,
                     random_state=0)
    assert out.method == "bipartite" and out.deflation == "disjoint"
    check_disjoint(out.results, [5] * 4, 40)
    assert all(s.size == 5 for s in out.supports)
    assert np.all(np.diff(out.variances) <= 1e-12)  # equal cardinalities: sorted
    assert out.variances.sum() == pytest.approx(out.results[0].info["objective"], rel=1e-9)
    # unequal cardinalities keep the given order with order="deflation"
    out = sparse_pca(X, n_components=3, cardinality=[2, 7, 4], method="bipartite",
                     n_candidates=300, random_state=0, order="deflation")
    check_disjoint(out.results, [2, 7, 4], 40)
    # a per-component list is honoured position by position (the variance sort only swaps
    # rows of equal cardinality): distinct cardinalities keep the order given
    out = sparse_pca(X, n_components=3, cardinality=[2, 7, 4], method="bipartite",
                     n_candidates=300, random_state=0)
    cards = [s.size for s in out.supports]
    assert out.info["cardinalities"] == cards == [2, 7, 4]
    check_disjoint(out.results, cards, 40)
    # equal cardinalities are sorted by variance among themselves
    out = sparse_pca(X, n_components=3, cardinality=[4, 4, 6], method="bipartite",
                     n_candidates=300, random_state=0)
    assert [s.size for s in out.supports] == [4, 4, 6]
    assert out.variances[0] >= out.variances[1]


def test_sparse_and_dense_input_agree():
    X = sp.random(200, 60, density=0.1, random_state=7, format="csr")
    X.data = np.round(10 * X.data)
    a = bipartite(SparseData(X, center=False), [4, 4, 4], rank=3, n_candidates=400,
                  random_state=1)
    b = bipartite(DenseData(X.toarray(), center=False), [4, 4, 4], rank=3, n_candidates=400,
                  random_state=1)
    assert total(a) == pytest.approx(total(b), rel=1e-8)
    check_disjoint(a, [4] * 3, 60)


def test_sketch_routes_agree():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((50, 1200)) * np.sqrt(rng.pareto(2.0, size=1200) + 0.1)
    op = DenseData(X)
    vals = {}
    for sk in ["dense", "eigsh", "randomized"]:
        r = bipartite(op, [5, 5], rank=3, n_candidates=50, refine=False, sketch=sk,
                      random_state=0)
        vals[sk] = r[0].info["sketch_eigenvalues"]
    assert np.allclose(vals["eigsh"], vals["dense"], rtol=1e-8)
    assert np.allclose(vals["randomized"], vals["dense"], rtol=1e-2)  # approximate by design


def test_reproducible_and_time_budget():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((60, 100))
    a = bipartite(DenseData(X), [5] * 3, rank=3, n_candidates=1000, random_state=3)
    b = bipartite(DenseData(X), [5] * 3, rank=3, n_candidates=1000, random_state=3)
    assert all(np.array_equal(x.loadings, y.loadings) for x, y in zip(a, b))
    with pytest.warns(RuntimeWarning, match="stopped by the time budget"):
        r = bipartite(DenseData(X), [5] * 3, rank=3, n_candidates=10**7, max_time=0.3,
                      random_state=0)
    info = r[0].info
    assert info["stopped_early"] and not r[0].converged
    assert info["time_total"] < 5.0
    check_disjoint(r, [5] * 3, 100)


def test_small_gram_cache_gives_the_same_result(monkeypatch):
    import eigensparse.multi.bipartite as mod

    X = sp.random(100, 1200, density=0.05, random_state=4, format="csr")
    op = SparseData(X, center=False)
    a = bipartite(op, [5, 5, 5], rank=3, n_candidates=150, random_state=0)
    monkeypatch.setattr(mod, "MAX_GRAM", 20)  # the objective then goes through op.quad
    b = bipartite(op, [5, 5, 5], rank=3, n_candidates=150, random_state=0)
    assert b[0].info["gram_size"] <= 20
    assert total(a) == pytest.approx(total(b), rel=1e-10)
    check_disjoint(b, [5] * 3, 1200)


def test_registered_and_lsa_matcher_end_to_end():
    assert get_joint("bipartite") is not None
    assert "bipartite" in eigensparse.available_methods()
    rng = np.random.default_rng(10)
    X = rng.standard_normal((40, 30))
    a = sparse_pca(X, n_components=3, cardinality=4, method="bipartite", matcher="lsa",
                   n_candidates=200, random_state=0)
    b = sparse_pca(X, n_components=3, cardinality=4, method="bipartite", matcher="ssp",
                   n_candidates=200, random_state=0)
    assert a.variances.sum() == pytest.approx(b.variances.sum(), rel=1e-9)


# ---------------------------------------------------------------------------------------
# refinement
# ---------------------------------------------------------------------------------------
def test_refinement_never_lowers_the_objective():
    for seed in range(6):
        rng = np.random.default_rng(100 + seed)
        X = rng.standard_normal((50, 45)) @ rng.standard_normal((45, 45))
        op = DenseData(X)
        caps = np.array([4, 4, 3])
        plain = bipartite(op, list(caps), rank=2, n_candidates=200, refine=False,
                          random_state=seed)
        refined = bipartite(op, list(caps), rank=2, n_candidates=200, refine=True,
                            random_state=seed)
        assert total(refined) >= total(plain) - 1e-10
        for st in refined[0].info["refine"]:
            assert st["after"] >= st["before"] - 1e-10
        # every single step is monotone, from random (poor) supports too
        perm = rng.permutation(45)
        state = _State([perm[:4], perm[4:8], perm[8:11]], _Gram(op, 4096))
        values = [state.value]
        for _ in range(30):
            SX = op.matmat(state.dense(45))
            nxt = _rematch(state, op, caps, "ssp", SX)
            if nxt is not None:
                state = nxt
            elif _swap_round(state, op, SX) == 0:
                break
            values.append(state.value)
            Xd = state.dense(45)
            assert np.allclose(op.quad(Xd), state.lam, rtol=1e-9)
        assert np.all(np.diff(values) >= -1e-10)
        sup = np.concatenate(state.supports)
        assert np.unique(sup).size == caps.sum()


def test_refinement_reaches_polished_local_optimum():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((40, 20)) @ rng.standard_normal((20, 20))
    op = DenseData(X)
    res = bipartite(op, [3, 3], rank=2, n_candidates=100, random_state=0)
    S = op.to_dense()
    for r in res:  # loadings are the top eigenvector on the support
        lam = np.linalg.eigvalsh(S[np.ix_(r.support, r.support)])[-1]
        assert r.variance == pytest.approx(lam, rel=1e-10)
    assert res[0].info["refine"][0]["converged"]


# ---------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------
def test_bad_input_errors():
    rng = np.random.default_rng(12)
    X = rng.standard_normal((10, 20))
    with pytest.raises(InvalidParameterError, match="'cardinality'.*exceeds n_features=20"):
        sparse_pca(X, n_components=5, cardinality=5, method="bipartite")
    with pytest.raises(InvalidParameterError, match="'cardinality'"):
        bipartite(DenseData(X), [10, 11])
    with pytest.raises(InvalidParameterError, match="'rank' must be <= 9"):  # centered: n − 1
        sparse_pca(X, n_components=2, cardinality=3, method="bipartite", rank=10)
    with pytest.raises(InvalidParameterError, match="'rank' must be <= 10"):
        bipartite(DenseData(X, center=False), [3, 3], rank=11)
    with pytest.raises(InvalidParameterError, match="'rank' must be <= 20"):
        bipartite(Covariance(np.eye(20)), [3, 3], rank=21)
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(InvalidParameterError, match="'max_time'"):
            sparse_pca(X, n_components=2, cardinality=3, method="bipartite", max_time=bad)
    # the deprecated name still works, with a FutureWarning; both names is an error
    with pytest.warns(FutureWarning, match="'time_budget' is deprecated.*'max_time'"):
        r = bipartite(DenseData(X), [3, 3], rank=3, n_candidates=50, time_budget=60.0,
                      random_state=0)
    assert [c.support.size for c in r] == [3, 3]
    with pytest.raises(InvalidParameterError, match="not both"):
        bipartite(DenseData(X), [3, 3], max_time=1.0, time_budget=1.0)
    with pytest.raises(InvalidParameterError, match="'epsilon'"):
        bipartite(DenseData(X), [3, 3], epsilon=1.5)
    with pytest.raises(InvalidParameterError, match="either 'epsilon'"):
        bipartite(DenseData(X), [3, 3], epsilon=0.5, n_candidates=10)
    with pytest.raises(InvalidParameterError, match="'epsilon'.*net"):
        bipartite(DenseData(X), [3, 3], rank=8, epsilon=0.01)
    with pytest.raises(InvalidParameterError, match="'n_candidates'"):
        bipartite(DenseData(X), [3, 3], n_candidates=0)
    with pytest.raises(InvalidParameterError, match="unknown option"):
        sparse_pca(X, n_components=2, cardinality=3, method="bipartite", n_candidate=5)
    with pytest.raises(InvalidParameterError, match="'deflation'"):
        sparse_pca(X, n_components=2, cardinality=3, method="bipartite", deflation="projection")


# ---------------------------------------------------------------------------------------
# baselines: EM-SPCA and SpanSPCA
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["emspca", "spanspca"])
def test_baselines_with_disjoint_deflation(method):
    X = sp.random(150, 80, density=0.15, random_state=3, format="csr")
    out = sparse_pca(X, n_components=4, cardinality=6, method=method, deflation="disjoint",
                     center=False, random_state=0)
    check_disjoint(out.results, [6] * 4, 80)


def test_a_component_support_is_where_its_loadings_are_nonzero():
    """With fewer varying features than slots, a slot gets a zero-variance feature and a
    zero loading: the component's support (as every result's) is its nonzeros, the same
    as the result's ``supports``, and the shortfall is said."""
    import warnings

    import eigensparse as es

    rng = np.random.default_rng(0)
    X = np.zeros((50, 10))
    X[:, :3] = rng.standard_normal((50, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = es.sparse_pca(X, n_components=2, cardinality=2, method="bipartite")
    for r, s in zip(res.results, res.supports):
        assert r.support.tolist() == np.flatnonzero(r.loadings).tolist() == s.tolist()
    assert sum(r.support.size for r in res.results) == 3
    assert any("nonzero loading" in str(w.message) for w in caught)
