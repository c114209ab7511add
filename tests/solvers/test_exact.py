"""Branch and bound ``method="exact"``: brute-force agreement, certificates, budgets."""
import warnings

import numpy as np

import eigensparse as es
import pytest

from eigensparse import InvalidParameterError, sparse_pca
from eigensparse.datasets import load_pitprops, make_spiked_covariance
from eigensparse.operators import Covariance
from eigensparse.solvers._exact import ExactSearchWarning, exact
from eigensparse.solvers._exact._bounds import (block_lmax, gershgorin_bound, soft_eig_bound,
                                                trace_bound)
from eigensparse.solvers._exhaustive import exhaustive


def _wishart(p, n, seed):
    A = np.random.default_rng(seed).standard_normal((n, p))
    return A.T @ A / n


def _spiked(p, seed):
    X, _, _ = make_spiked_covariance(60, p, support_size=5, signal=3.0, random_state=seed)
    return np.cov(X, rowvar=False)


def _real_corr(p, seed):
    from sklearn.datasets import load_breast_cancer

    X = load_breast_cancer().data
    idx = np.sort(np.random.default_rng(seed).choice(X.shape[1], p, replace=False))
    return np.corrcoef(X[:, idx], rowvar=False)


PROBLEMS = [("wishart", 12, 3, 0), ("wishart", 16, 5, 1), ("wishart", 20, 4, 2),
            ("wishart-lowrank", 18, 6, 3), ("spiked", 20, 5, 4), ("spiked", 24, 7, 5),
            ("corr", 22, 6, 6), ("corr", 26, 8, 7), ("corr", 30, 5, 8)]


def _make(kind, p, seed):
    if kind == "wishart":
        return _wishart(p, 2 * p, seed)
    if kind == "wishart-lowrank":
        return _wishart(p, p // 3, seed)
    if kind == "spiked":
        return _spiked(p, seed)
    return _real_corr(p, seed)


@pytest.mark.parametrize("kind,p,s,seed", PROBLEMS)
def test_agrees_with_brute_force(kind, p, s, seed):
    S = _make(kind, p, seed)
    op = Covariance(S)
    r = exact(op, s, random_state=0, progress=False)
    e = exhaustive(op, s, max_supports=1e7)
    assert r.info["certified"] and r.converged
    assert abs(r.variance - e.variance) <= 1e-9 * max(1.0, e.variance)
    assert r.upper_bound >= e.variance - 1e-9 * e.variance
    assert r.support.size == s
    assert np.isclose(r.loadings @ S @ r.loadings, r.variance, rtol=1e-10)


def test_pitprops_every_cardinality():
    S = np.asarray(load_pitprops().data, dtype=float)
    op = Covariance(S)
    for s in range(1, 14):
        r = exact(op, s, progress=False)
        e = exhaustive(op, s)
        assert r.info["certified"]
        assert abs(r.variance - e.variance) <= 1e-9 * e.variance


def test_node_budget_gives_honest_uncertified_result():
    S = _wishart(60, 30, 11)
    op = Covariance(S)
    with pytest.warns(ExactSearchWarning, match="relative gap"):
        r = exact(op, 8, max_nodes=1, progress=False, screen=False, random_state=0)
    assert not r.info["certified"] and not r.converged
    assert r.info["relative_gap"] > 0 and r.gap > 0
    assert r.upper_bound >= r.variance
    assert r.info["nodes"] <= 3
    # the bound is above a many-start heuristic's value
    from eigensparse.solvers.am import am
    assert r.upper_bound >= am(op, 8, n_starts=200, random_state=1).variance


def test_deterministic():
    S = _spiked(40, 3)
    a = exact(Covariance(S), 6, random_state=5, progress=False)
    b = exact(Covariance(S), 6, random_state=5, progress=False)
    assert np.array_equal(a.loadings, b.loadings) and a.info["nodes"] == b.info["nodes"]


def test_threads_give_the_same_optimum():
    S = _real_corr(30, 2)
    a = exact(Covariance(S), 7, progress=False)
    b = exact(Covariance(S), 7, progress=False, n_jobs=2)
    assert b.info["certified"] and abs(a.variance - b.variance) <= 1e-12 * a.variance


@pytest.mark.parametrize("opts,match", [({"max_time": 0}, "max_time"), ({"max_time": -1.0}, "max_time"),
                                        ({"max_nodes": 0}, "max_nodes"), ({"tol": -1e-3}, "tol"),
                                        ({"n_jobs": 0}, "n_jobs"), ({"progress": "yes"}, "progress")])
def test_bad_options(opts, match):
    with pytest.raises(InvalidParameterError, match=match):
        exact(Covariance(np.eye(5)), 2, **opts)


def test_bad_cardinality():
    with pytest.raises(InvalidParameterError, match="cardinality"):
        exact(Covariance(np.eye(5)), 6)
    with pytest.raises(InvalidParameterError, match="cardinality"):
        sparse_pca(Covariance(np.eye(5)), n_components=1, cardinality=0, method="exact")


def test_node_bounds_are_valid():
    """Every bound >= the best completion found by brute force, on random nodes."""
    import itertools

    rng = np.random.default_rng(0)
    for trial in range(30):
        p, s = 12, int(rng.integers(2, 7))
        S = _wishart(p, int(rng.integers(3, 30)), trial)
        absS = np.abs(S)
        np.fill_diagonal(absS, 0)
        perm = rng.permutation(p)
        f = int(rng.integers(0, s))
        F, R = np.sort(perm[:f]), np.sort(perm[f:f + int(rng.integers(s - f, p - f + 1))])
        k = s - f
        best = max(block_lmax(S, np.concatenate([F, T])[None, :])[0]
                   for T in itertools.combinations(R, k))
        tiny = 1e-10 * best
        assert trace_bound(np.diag(S), F, R, k) >= best - tiny
        if k >= 1:
            assert gershgorin_bound(absS, np.diag(S), F, R, k) >= best - tiny
        for rho in (0.0, 0.1, 0.5, 2.0):
            assert soft_eig_bound(S, F, R, k, rho)[0] >= best - tiny
            w = np.sqrt(np.diag(S))
            assert soft_eig_bound(S, F, R, k, rho, w)[0] >= best - tiny


@pytest.mark.parametrize("deflation", ["schur", "disjoint"])
def test_multi_component(deflation):
    S = _real_corr(20, 9)
    res = sparse_pca(Covariance(S), n_components=3, cardinality=4, method="exact",
                     deflation=deflation, progress=False, refine=False)  # the chain itself
    assert all(r.info["certified"] for r in res.results)
    if deflation == "disjoint":
        # the first component is the global optimum; the second the optimum on the rest
        assert np.isclose(res.variances[0], exhaustive(Covariance(S), 4).variance, rtol=1e-9)
        rest = np.setdiff1d(np.arange(20), res.supports[0])
        sub = exhaustive(Covariance(S[np.ix_(rest, rest)]), 4).variance
        assert np.isclose(res.variances[1], sub, rtol=1e-9)
        assert len(set(np.concatenate(res.supports))) == 12


def test_time_budget_and_progress_bar(capsys):
    S = _wishart(80, 40, 12)
    with pytest.warns(ExactSearchWarning):
        r = exact(Covariance(S), 10, max_time=1e-3, progress=True, screen=False)
    assert not r.info["certified"] and r.upper_bound > r.variance
    assert r.info["time"] < 30


def test_never_below_many_am_starts():
    from eigensparse.solvers.am import am

    S = _real_corr(30, 4)
    r = exact(Covariance(S), 6, progress=False)
    best_am = am(Covariance(S), 6, n_starts=500, random_state=0).variance
    assert r.info["certified"] and r.variance >= best_am * (1 - 1e-12)


def _random_node(rng, p, s):
    perm = rng.permutation(p)
    f = int(rng.integers(0, s + 1))
    F = np.sort(perm[:f])
    R = np.sort(perm[f:f + int(rng.integers(s - f, p - f + 1))])
    return F, R, s - f


def _brute_nodes(kind, seed, trials, s_stop, base):
    """Random nodes (F, R, k >= 1) of random 10-variable PSD (or correlation) matrices,
    s in [2, s_stop), with the best completion by brute force: (S, F, R, k, best)."""
    import itertools

    rng = np.random.default_rng(seed)
    for trial in range(trials):
        p, s = 10, int(rng.integers(2, s_stop))
        S = _wishart(p, int(rng.integers(2, 25)), base + trial)
        if kind == "corr":
            w = np.sqrt(np.diag(S))
            S = S / np.outer(w, w)
        F, R, k = _random_node(rng, p, s)
        if k == 0:
            continue
        best = max(block_lmax(S, np.concatenate([F, T]).astype(int)[None, :])[0]
                   for T in itertools.combinations(R, k))
        yield S, F, R, k, best


@pytest.mark.parametrize("kind", ["psd", "corr"])
def test_block_split_bound_is_valid(kind):
    """The 2×2 block bound (fixed rows jointly) and the free-part bound are >= the brute-force
    best completion of random nodes, on random PSD and correlation matrices; the bound is
    attained for some nodes (it is not slack everywhere)."""
    import itertools

    from eigensparse._linalg import top_eigh
    from eigensparse.solvers._exact._bounds import block_split_bound, free_block_bound

    rng = np.random.default_rng(1 if kind == "psd" else 2)
    tightest = np.inf
    for trial in range(60):
        p, s = 11, int(rng.integers(2, 8))
        S = _wishart(p, int(rng.integers(2, 25)), 100 + trial)
        if kind == "corr":
            w = np.sqrt(np.diag(S))
            S = S / np.outer(w, w)
        absS = np.abs(S)
        np.fill_diagonal(absS, 0)
        d = np.diag(S).copy()
        F, R, k = _random_node(rng, p, s)
        best = max(block_lmax(S, np.concatenate([F, T]).astype(int)[None, :])[0]
                   for T in itertools.combinations(R, k))
        free_best = max((block_lmax(S, np.asarray(T)[None, :])[0]
                         for T in itertools.combinations(R, k)), default=0.0) if k else 0.0
        lam_R = np.linalg.eigvalsh(S[np.ix_(R, R)])[-1] if R.size else 0.0
        tiny = 1e-10 * best
        for lam in (None, lam_R):
            lt = free_block_bound(S, absS, d, R, k, lam)
            assert lt >= free_best - tiny
            lam_F = top_eigh(S[np.ix_(F, F)], small=0, check_finite=False)[0] if F.size else 0.0
            b = block_split_bound(S, F, R, k, lam_F, lt)
            assert b >= best - tiny
            tightest = min(tightest, b / best)
    assert tightest < 1 + 1e-9


def test_root_upper_bound():
    """root_upper_bound is above the exhaustive optimum, at most λmax(Σ), never below it
    with a tiny time budget, and rejects bad input naming the parameter."""
    from eigensparse.solvers._exact import root_upper_bound

    for seed, (p, s) in enumerate([(14, 3), (16, 6), (18, 9)]):
        S = _real_corr(p, seed)
        opt = exhaustive(Covariance(S), s).variance
        u = root_upper_bound(S, s)
        assert opt * (1 - 1e-12) <= u <= np.linalg.eigvalsh(S)[-1] * (1 + 1e-12)
        assert root_upper_bound(Covariance(S), s, max_time=1e-9) >= u * (1 - 1e-12)
        assert root_upper_bound(S, p) == pytest.approx(np.linalg.eigvalsh(S)[-1], rel=1e-12)
    # the bound is strictly below λmax(Σ) on a weakly correlated matrix
    S = _wishart(40, 400, 3)
    assert root_upper_bound(S, 3) < np.linalg.eigvalsh(S)[-1] * 0.9
    with pytest.raises(InvalidParameterError, match="s"):
        root_upper_bound(np.eye(4), 5)
    with pytest.raises(InvalidParameterError, match="max_time"):
        root_upper_bound(np.eye(4), 2, max_time=0)
    with pytest.raises(ValueError, match="square"):
        root_upper_bound(np.ones((3, 4)), 2)


def test_max_time_is_honoured_mid_batch():
    """A tiny budget at p = 150 ends as uncertified with an upper bound >= the best found,
    (the batch stops at the deadline)."""
    S = _wishart(150, 60, 21)
    with pytest.warns(ExactSearchWarning):
        r = exact(Covariance(S), 12, max_time=0.3, progress=False, random_state=0, n_starts=4)
    assert not r.info["certified"]
    assert r.upper_bound >= r.variance and r.info["relative_gap"] > 0


def test_processes_give_the_same_optimum():
    """backend="processes": nodes evaluated in worker processes (pickled nodes, incumbent
    exchange) certify the same optimum as the sequential search and as brute force."""
    S = _real_corr(26, 5)
    a = exact(Covariance(S), 7, progress=False, screen=False)
    b = exact(Covariance(S), 7, progress=False, n_jobs=2, backend="processes", screen=False)
    e = exhaustive(Covariance(S), 7).variance
    assert a.info["certified"] and b.info["certified"]
    assert abs(b.variance - e) <= 1e-10 * e and abs(a.variance - e) <= 1e-10 * e
    assert b.info["nodes"] >= 1
    with pytest.raises(InvalidParameterError, match="backend"):  # checked at the boundary
        es.sparse_pca(Covariance(S), n_components=1, cardinality=3, method="exact",
                      backend="mpi")


@pytest.mark.parametrize("budget", [1, 30, 120])
def test_max_time_is_honoured_at_p300_simulated_clock(monkeypatch, budget):
    """max_time at p = 300, on a simulated clock: each eigenvalue bound and each exact scan
    advances the clock by one unit (the work that costs time), so the check does not depend
    on the machine. Past the deadline the search does at most one more node's penalty
    descent (<= 17 eigenvalue bounds: the root grid, the screening, the root node and
    every batch check the clock), it uses its budget (the clock reaches it) and it stops
    uncertified with an upper bound >= its value."""
    import importlib
    import types

    pkg = importlib.import_module("eigensparse.solvers._exact")
    srch = importlib.import_module("eigensparse.solvers._exact._search")
    clock = {"t": 0.0, "after": 0}
    fake = types.SimpleNamespace(perf_counter=lambda: clock["t"])

    def ticking(f):
        def g(*a, **kw):
            if clock["t"] >= budget:
                clock["after"] += 1
            clock["t"] += 1.0
            return f(*a, **kw)
        return g

    scr = importlib.import_module("eigensparse.solvers._exact._screen")
    for mod in (pkg, srch):
        monkeypatch.setattr(mod, "time", fake)
        monkeypatch.setattr(mod, "soft_eig_bound", ticking(mod.soft_eig_bound))
    monkeypatch.setattr(scr, "time", fake)
    monkeypatch.setattr(scr, "_soft_prunes", ticking(scr._soft_prunes))
    monkeypatch.setattr(srch, "enumerate_completions", ticking(srch.enumerate_completions))
    S = _wishart(300, 120, 5)
    with pytest.warns(ExactSearchWarning):
        # one worker: the clock is simulated in this process only (worker processes,
        # which n_jobs=None adds after ESCALATE_SECONDS, would not advance it)
        r = exact(Covariance(S), 10, max_time=budget, progress=False, random_state=0, n_starts=2,
                  n_jobs=1)
    assert clock["t"] >= budget            # the budget was used, not skipped
    assert clock["after"] <= 17            # at most one node's descent past the deadline
    assert clock["t"] <= budget + 17
    assert not r.info["certified"] and r.upper_bound >= r.variance
    assert r.upper_bound <= np.linalg.eigvalsh(S)[-1] * (1 + 1e-12)


@pytest.mark.parametrize("kind", ["psd", "corr"])
def test_shifted_eig_bound_vs_brute_force(kind):
    """The per-row shifted bound λmax(Σ − U + diag(r)) is >= the brute-force best completion
    of random nodes (uniform and correlation clipping, every ρ), never above the unshifted
    λmax(Σ − U) + max r it replaces, and equal to the Gershgorin bound when ρ clips nothing
    away (U = Σ off the diagonal) and to interlacing at ρ = 0."""
    from eigensparse.solvers._exact._bounds import _row_sums, shifted_block

    for S, F, R, k, best in _brute_nodes(kind, 11 if kind == "psd" else 12, 40, 7, 300):
        A = np.concatenate([F, R])
        tiny = 1e-10 * abs(best)
        off = np.abs(S - np.diag(np.diag(S))).max()
        for scale in (None, np.sqrt(np.diag(S))):
            for rho in (0.0, 0.05 * off, 0.3 * off, off, 10 * off):
                b, _ = soft_eig_bound(S, F, R, k, rho, scale)
                assert b >= best - tiny
                if rho > 0:
                    B = shifted_block(S, F, R, k, rho, scale)
                    r = np.diag(B) - np.diag(S)[A]
                    unshifted = np.linalg.eigvalsh(B - np.diag(r))[-1] + r.max()
                    assert b <= unshifted + tiny
            assert soft_eig_bound(S, F, R, k, 0.0, scale)[0] == pytest.approx(
                np.linalg.eigvalsh(S[np.ix_(A, A)])[-1], rel=1e-12)
        # ρ above every |Σ_ij|: M + D is Σ_FF plus the Gershgorin row sums of the pairs
        # with a free variable (diagonal when |F| <= 1): at most the Gershgorin bound
        g = gershgorin_bound(S, np.diag(S), F, R, k)
        if F.size <= 1:
            assert soft_eig_bound(S, F, R, k, 10 * off)[0] == pytest.approx(g, rel=1e-12)
        else:
            assert soft_eig_bound(S, F, R, k, 10 * off)[0] <= g * (1 + 1e-12)
        # Σ_FF is kept whole: never above the bound that clips the fixed pairs as well
        if F.size >= 2:
            for rho in (0.05 * off, 0.3 * off):
                B = shifted_block(S, F, R, k, rho)
                f = F.size
                cap = np.clip(S[np.ix_(F, F)], -rho, rho)
                np.fill_diagonal(cap, 0.0)
                Bc = B.copy()
                Bc[:f, :f] -= cap
                Bc[np.arange(f), np.arange(f)] += np.abs(cap).sum(axis=1)
                assert np.linalg.eigvalsh(B)[-1] <= np.linalg.eigvalsh(Bc)[-1] + tiny


def test_node_row_sums_match_a_direct_sort():
    """The compiled row sums (rows walked by decreasing |Σ_ij|, stopped early) equal a
    direct sort of every row's clipped free entries, with and without per-row weights."""
    from eigensparse.solvers._exact._bounds import _row_sums

    rng = np.random.default_rng(5)
    for trial in range(30):
        p = 15
        S = _wishart(p, 6, 500 + trial) * rng.uniform(0.1, 10, p)[:, None]
        S = 0.5 * (S + S.T)
        F, R, k = _random_node(rng, p, int(rng.integers(2, 8)))
        if k == 0:  # no free slot: no free row belongs to a support
            continue
        w = np.sqrt(np.abs(np.diag(S))) if trial % 2 else np.ones(p)
        rho = float(rng.uniform(0.01, 2.0))
        A = np.concatenate([F, R])
        for fixed_pairs in (True, False):
            got = _row_sums(S, F, R, k, rho, w, fixed_pairs=fixed_pairs)
            want = []
            for a, i in enumerate(A):
                clipped = np.minimum(np.abs(S[i]), rho * w[i] * w)
                fixed = sum(clipped[j] for j in F if j != i)
                if a < F.size and not fixed_pairs:
                    fixed = 0.0
                free = np.sort([clipped[j] for j in R if j != i])[::-1]
                want.append(fixed + free[:k if a < F.size else k - 1].sum())
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_cholesky_proof_never_proves_a_false_bound():
    """proves_below(B, t) is True only when λmax(B) <= t, including t just below and just
    above λmax (the rounding margin errs on the side of not proving)."""
    from eigensparse.solvers._exact._bounds import proves_below

    rng = np.random.default_rng(8)
    proved = 0
    for trial in range(50):
        n = int(rng.integers(1, 40))
        B = _wishart(n, int(rng.integers(1, 60)), 700 + trial) - rng.uniform(0, 1)
        lam = np.linalg.eigvalsh(B)[-1]
        scale = max(abs(lam), 1.0)
        for t in (lam - 1e-3 * scale, lam - 1e-12 * scale, lam, lam + 1e-6 * scale,
                  lam + 0.1 * scale):
            ok = proves_below(B, t)
            assert not ok or lam <= t
            proved += ok
    assert proved >= 50  # the comfortable margins are proven


def test_process_subtrees_hand_back_open_nodes():
    """Subtrees cut short in the workers (3 nodes each) send their open nodes back to the
    main heap: the search still closes on the brute-force optimum from a poor incumbent."""
    from eigensparse.solvers._exact._search import ProcessNodePool, Search

    S = _real_corr(22, 3)
    s = 6
    e = exhaustive(Covariance(S), s).variance
    first = np.arange(s)  # a poor incumbent: the workers must find the optimum
    search = Search(S, s, float(block_lmax(S, first[None, :])[0]), first, 1e-9)
    search.root(np.arange(22), 0.0)
    pool = ProcessNodePool(search, 2, nodes_per_subtree=3)
    try:
        done = search.run(deadline=np.inf, max_nodes=np.inf, pool=pool)
    finally:
        pool.shutdown()
    assert done and abs(search.incumbent - e) <= 1e-10 * e
    assert search.nodes > 2 * 3  # more than one batch: open nodes came back


def test_process_node_tasks_search_the_serial_tree():
    """Nodes evaluated one task each in worker processes (ProcessEvalPool): the search
    closes on the brute-force optimum from a poor incumbent, with the nodes of the
    serial search at the same batch size (the tree does not depend on the workers)."""
    from eigensparse.solvers._exact._search import ProcessEvalPool, Search

    S = _real_corr(22, 3)
    s = 6
    e = exhaustive(Covariance(S), s).variance
    first = np.arange(s)
    runs = []
    for workers in (0, 2):
        search = Search(S, s, float(block_lmax(S, first[None, :])[0]), first, 1e-9)
        search.root(np.arange(22), 0.0)
        pool = ProcessEvalPool(search, workers) if workers else None
        try:
            done = search.run(deadline=np.inf, max_nodes=np.inf, pool=pool)
        finally:
            if pool is not None:
                pool.shutdown()
        assert done and abs(search.incumbent - e) <= 1e-10 * e
        runs.append((search.nodes, search.best.tolist()))
    assert runs[0][1] == runs[1][1] and runs[0][0] > 8


def test_lanczos_upper_bound_is_proven():
    """top_eig_upper returns u >= λmax(B) (close to it) and a near-top unit vector, from a
    good, a poor and an adversarial start (orthogonal to the top eigenvector: the Cholesky
    proof fails and the dense solve answers); indefinite blocks included."""
    from eigensparse.solvers._exact._bounds import LANCZOS_MIN, top_eig_upper

    rng = np.random.default_rng(21)
    n = LANCZOS_MIN + 30
    for trial in range(6):
        B = _wishart(n, int(rng.integers(20, 400)), 900 + trial) - (trial % 2) * 0.5 * np.eye(n)
        lam, V = np.linalg.eigh(B)
        top = V[:, -1]
        bad = V[:, 0]  # orthogonal to the top eigenvector
        for v0 in (np.abs(top) + 0.01, np.ones(n), bad):
            u, x = top_eig_upper(B, v0)
            assert u >= lam[-1] * (1 - 1e-15) - 1e-15
            assert u <= lam[-1] + 1e-4 * max(abs(lam[-1]), 1.0)  # a residual above it
            assert abs(np.linalg.norm(x) - 1) < 1e-10
            assert x @ B @ x >= lam[-1] - 1e-6 * max(abs(lam[-1]), 1.0)
        # a cut inside [θ, u] asks for the exact value
        u, _ = top_eig_upper(B, np.ones(n), cut=lam[-1])
        assert u >= lam[-1] * (1 - 1e-15) - 1e-15


def test_lanczos_nodes_certify_the_dense_optimum(monkeypatch):
    """At p >= LANCZOS_MIN the nodes' eigenvalue bounds come from the proven Lanczos
    estimate: the certified value equals the one with dense eigensolves everywhere."""
    import eigensparse.solvers._exact._bounds as bnd
    import eigensparse.solvers._exact._search as srch

    X, _, _ = make_spiked_covariance(120, bnd.LANCZOS_MIN + 10, support_size=6, signal=2.0,
                                     random_state=3)
    S = np.corrcoef(X, rowvar=False)
    a = exact(Covariance(S), 5, progress=False, screen=False, random_state=0)
    import eigensparse.solvers._exact._krylov as lcz

    monkeypatch.setattr(lcz, "LANCZOS_MIN", 10**9)
    monkeypatch.setattr(bnd, "LANCZOS_MIN", 10**9)
    monkeypatch.setattr(srch, "LANCZOS_MIN", 10**9)
    b = exact(Covariance(S), 5, progress=False, screen=False, random_state=0)
    assert a.info["certified"] and b.info["certified"]
    assert a.variance == pytest.approx(b.variance, rel=1e-10)
    assert a.info["nodes"] > 1  # a tree was searched


def test_prove_support_proves_or_improves_a_given_support():
    from eigensparse.solvers._exact import prove_support
    from eigensparse.solvers._exhaustive import exhaustive

    rng = np.random.default_rng(3)
    for t in range(6):
        p, s = 12, 4
        A = rng.standard_normal((15, p))
        S = A.T @ A / 15
        opt = exhaustive(Covariance(S), s).variance
        bad = np.arange(s)  # an arbitrary incumbent
        best, value, ub, certified, nodes = prove_support(S, s, bad, max_nodes=10_000)
        assert certified and value == pytest.approx(opt, rel=1e-9) and ub >= value
        assert value == pytest.approx(np.linalg.eigvalsh(S[np.ix_(best, best)])[-1], rel=1e-12)
        # one node: a bound, never below the optimum, and a value never above it
        best, value, ub, certified, nodes = prove_support(S, s, bad, max_nodes=1)
        assert ub >= opt * (1 - 1e-12) and value <= opt * (1 + 1e-12) and nodes <= 1 + 2


def test_a_deflated_rank_one_covariance_is_searched_not_rechecked():
    """The second component of a rank-one Σ searches a deflated matrix whose diagonal
    carries rounding below zero: the search's own matrix is not the caller's input and
    is not checked again (it raised 'negative diagonal entry')."""
    a = np.random.default_rng(0).standard_normal(12)
    S = np.outer(a, a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (fewer nonzeros than asked: said by a warning)
        res = es.sparse_pca(es.Covariance(S), n_components=2, cardinality=3, method="exact")
    assert res.results[0].info["certified"]
    assert res.explained_variance[0] == pytest.approx(np.sort(a**2)[-3:].sum(), rel=1e-12)
    assert abs(res.explained_variance[1]) <= 1e-12 * res.explained_variance[0]


@pytest.mark.parametrize("kind", ["psd", "corr"])
def test_schur_prune_never_prunes_a_node_worth_lam_vs_brute_force(kind):
    """schur_prunes(λ) is True only when every completion of the node is below λ: tried at
    λ below, at and above the brute-force best completion of random nodes; and it does
    prune the nodes it should at a clearly higher λ (it is not vacuous)."""
    from eigensparse.solvers._exact._bounds import schur_prunes

    pruned_above = tried_above = 0
    for S, F, R, k, best in _brute_nodes(kind, 21 if kind == "psd" else 22, 60, 8, 500):
        if F.size == 0:
            continue
        for factor in (0.5, 0.9, 0.999, 1.0, 1.0 + 1e-12):
            assert not schur_prunes(S, F, R, k, best * factor), factor
        tried_above += 1
        pruned_above += schur_prunes(S, F, R, k, best * 1.5)
    assert pruned_above >= tried_above // 2  # a strong bound: most nodes at 1.5× their value


def test_schur_prune_exact_at_one_free_slot_near_the_fixed_block():
    """With one free slot the Schur test is exact, also when λmax(Σ_FF) lies within a
    fraction of a percent of the node's value (a dominant variable fixed in, as on word
    counts): it prunes just above the brute-force best completion, never at or below."""
    from eigensparse.solvers._exact._bounds import schur_prunes

    rng = np.random.default_rng(5)
    tried = 0
    for trial in range(6):
        p, s = 40, 6
        X = rng.standard_normal((200, p)) * np.r_[8.0, rng.uniform(0.2, 1.0, p - 1)]
        X[:, 1:6] += 0.3 * X[:, [0]] / 8.0
        S = np.cov(X, rowvar=False)
        F = np.arange(s - 1)
        R = np.arange(s - 1, p)
        best = block_lmax(S, np.c_[np.tile(F, (R.size, 1)), R]).max()
        sep = (best - np.linalg.eigvalsh(S[np.ix_(F, F)])[-1]) / best
        assert 0 < sep < 1e-2  # the case the test is about
        for factor in (0.9, 1 - 1e-12, 1.0):
            assert not schur_prunes(S, F, R, 1, best * factor)
        assert schur_prunes(S, F, R, 1, best * (1 + 1e-6))
        tried += 1
    assert tried == 6
