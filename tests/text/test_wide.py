"""Wide problems: the topic pipeline's working-set search behind the default method
(:mod:`eigensparse.text._wide`), on small problems made "wide" by lowering its limits."""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse import SparsePCA, sparse_pca
from eigensparse.text import _wide


def planted(n=300, p=120, seed=0):
    """Sparse counts: background noise and three planted groups of co-occurring features."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, p)) < 0.05) * rng.integers(1, 3, (n, p))
    groups = [np.arange(10, 14), np.arange(40, 44), np.arange(80, 84)]
    for g, rate in zip(groups, (0.3, 0.25, 0.2)):
        docs = np.flatnonzero(rng.random(n) < rate)
        X[np.ix_(docs, g)] += rng.integers(1, 4, (docs.size, g.size))
    return sp.csr_matrix(X.astype(float)), groups


@pytest.fixture
def wide(monkeypatch):
    """Every problem beyond 50 features is wide; a working set of 40 of a pool of 80."""
    monkeypatch.setattr(_wide, "WIDE_FEATURES", 50)
    monkeypatch.setattr(_wide, "WORKING_SET", 40)
    monkeypatch.setattr(_wide, "POOL_SIZE", 80)


def _old(X, **kw):
    """The whole-operator chain (the route before the working set)."""
    mp = pytest.MonkeyPatch()
    mp.setattr(_wide, "WIDE_FEATURES", 10**9)
    try:
        return sparse_pca(X, **kw)
    finally:
        mp.undo()


def best_pair(S):
    """max over pairs of λmax(S[{i,j}]) (closed form, every pair)."""
    i, j = np.triu_indices(S.shape[0], 1)
    a, c, b = S[i, i], S[j, j], S[i, j]
    return float(np.max((a + c) / 2 + np.sqrt(((a - c) / 2) ** 2 + b * b)))


def test_planted_groups_found_as_by_the_whole_chain(wide):
    X, groups = planted()
    res = sparse_pca(X, n_components=3, cardinality=4, random_state=0)
    assert all(r.info["working_set_size"] == 40 for r in res.results)  # the wide route ran
    assert sorted(map(tuple, res.supports)) == sorted(tuple(g) for g in groups)
    old = _old(X, n_components=3, cardinality=4, random_state=0)
    assert "working_set_size" not in old.results[0].info
    assert res.explained_variance.sum() >= old.explained_variance.sum() * (1 - 1e-9)


@pytest.mark.parametrize("deflation", ["schur", "disjoint"])
def test_bounds_hold_over_every_feature(wide, deflation):
    X, _ = planted(seed=1)
    res = sparse_pca(X, n_components=3, cardinality=2, deflation=deflation, random_state=0)
    from eigensparse.operators import as_operator

    Sigma = as_operator(X).block(np.arange(X.shape[1]))
    v1 = best_pair(Sigma)
    assert res.variances[0] == pytest.approx(v1, rel=1e-9)  # the best pair of all 120
    for r in res.results:
        assert r.info["working_set_size"] == 40
        assert r.upper_bound >= r.variance * (1 - 1e-12)
        assert r.info["bound"].startswith(("vocabulary split", "DSPCA dual", "branch and bound"))
    assert res.results[0].upper_bound >= v1 * (1 - 1e-12)


def test_deterministic_and_through_the_estimator(wide):
    X, groups = planted(seed=2)
    a = SparsePCA(n_components=3, cardinality=4, random_state=3).fit(X)
    b = SparsePCA(n_components=3, cardinality=4, random_state=3).fit(X)
    np.testing.assert_array_equal(a.components_, b.components_)
    assert a.components_.shape == (3, X.shape[1])
    assert (np.count_nonzero(a.components_, axis=1) == 4).all()


@pytest.mark.parametrize("kw", [dict(n_components=1), dict(method="tpower"),
                                dict(n_starts=8),
                                dict(deflation="hotelling")])
def test_other_requests_keep_the_whole_chain(wide, kw):
    X, _ = planted(n=120, seed=3)
    args = {"n_components": 2, "cardinality": 3, "random_state": 0, **kw}
    res = sparse_pca(X, **args)
    assert all("working_set_size" not in (r.info or {}) for r in res.results)


def test_a_rule_for_the_cardinalities_keeps_the_whole_chain(wide):
    from eigensparse._dispatch import plan_components
    from eigensparse.operators import as_operator

    op = as_operator(planted(n=120, seed=3)[0])
    assert _wide.wide_applies(op, plan_components(None, n_features=120, n_components=2,
                                                  cardinality=3))
    assert not _wide.wide_applies(op, plan_components(None, n_features=120, n_components=2,
                                                      cardinality="auto"))
