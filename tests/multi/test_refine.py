"""Cyclic refinement after the deflation chain (multi/_refine.py) and refine= of the front doors."""
import numpy as np
import pytest

import eigensparse
from eigensparse import Covariance, InvalidParameterError, SparsePCA, adjusted_variance, sparse_pca
from eigensparse.datasets import load_20news, load_pitprops
from eigensparse.multi._refine import refine_components, set_total
from eigensparse.registry import get_method


def _total(op, C):
    return set_total(op, C, adjusted_variance)


def _pitprops():
    C = np.asarray(load_pitprops().data, dtype=float)
    return Covariance(0.5 * (C + C.T), n_samples=180)


def _wishart(p, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((3 * p, p)) @ np.diag(rng.uniform(0.3, 2.0, p))
    return Covariance(A.T @ A / (3 * p))


@pytest.mark.parametrize("method", ["auto", "tpower", "greedy"])
@pytest.mark.parametrize("deflation", ["schur", "disjoint", "projection"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_refinement_never_lowers_total_and_keeps_cardinalities(method, deflation, seed):
    op = _wishart(16, seed)
    cards = [4, 3, 5]
    plain = sparse_pca(op, n_components=3, cardinality=cards, method=method, deflation=deflation,
                       random_state=seed, refine=False)
    refined = sparse_pca(op, n_components=3, cardinality=cards, method=method, deflation=deflation,
                         random_state=seed, refine=True)
    assert _total(op, refined.components) >= _total(op, plain.components) * (1 - 1e-12)
    assert [s.size for s in refined.supports] == cards
    assert np.allclose(np.linalg.norm(refined.components, axis=1), 1.0)
    if deflation == "disjoint":
        used = np.concatenate(refined.supports)
        assert used.size == np.unique(used).size


def test_refine_components_direct_and_its_info():
    op = _pitprops()
    spec = get_method("tpower")

    def solve(sub, s, t):
        return spec.func(sub, s, random_state=t)

    chain = eigensparse.multi.run_deflation(op, solve, [5, 5, 5], "schur")
    before = _total(op, np.vstack([r.loadings for r in chain]))
    out, info = refine_components(op, chain, solve, [5, 5, 5], "schur", adjusted_variance)
    after = _total(op, np.vstack([r.loadings for r in out]))
    assert info["refine_total_before"] == pytest.approx(before)
    assert info["refine_total_after"] == pytest.approx(after)
    assert after > before + 0.05  # tpower's chain is 7.286 adjusted, refined 7.45
    assert info["refine_accepted"] >= 1
    assert 1 <= info["refine_sweeps"] <= 2 and info["refine_solves"] <= 2 * 3


def test_pitprops_total_beats_peers_when_pc1_may_be_traded():
    """bench_peers' pitprops problem (k=3, s=5): best peer 7.699 (sum of xᵀΣx), reached
    by refine="total", which trades PC1 (3.406 for k = 1) for the total; the default
    keeps PC1 and still refines the others."""
    op = _pitprops()
    res = sparse_pca(op, n_components=3, cardinality=5, random_state=0, refine="total")
    assert [s.size for s in res.supports] == [5, 5, 5]
    assert float(np.sum(res.variances)) >= 7.699
    assert _total(op, res.components) >= 7.45  # without refinement: 7.340
    off = sparse_pca(op, n_components=3, cardinality=5, random_state=0, refine=False)
    assert _total(op, off.components) < _total(op, res.components) - 0.1
    kept = sparse_pca(op, n_components=3, cardinality=5, random_state=0)
    single = sparse_pca(op, n_components=1, cardinality=5, random_state=0)
    assert kept.variances[0] >= single.variances[0] * (1 - 1e-12)
    assert _total(op, kept.components) >= _total(op, off.components) - 1e-9


def test_20news_default_total():
    """bench_peers' 20news problem (k=3, s=10, centered): best peer 0.4337 (sum)."""
    X = load_20news().data.tocsr().astype(float)
    res = sparse_pca(X, n_components=3, cardinality=10, random_state=0, refine="total")
    op = eigensparse.as_operator(X, center=True)
    assert float(np.sum(res.variances)) >= 0.4337
    assert _total(op, res.components) >= 0.4326  # without refinement: 0.4236
    # the default keeps PC1 at the single-component answer
    kept = sparse_pca(X, n_components=3, cardinality=10, random_state=0)
    single = sparse_pca(X, n_components=1, cardinality=10, random_state=0)
    assert kept.variances[0] >= single.variances[0] * (1 - 1e-12)


def test_deterministic_for_a_random_state():
    op = _wishart(18, 5)
    a = sparse_pca(op, n_components=4, cardinality=4, random_state=3, refine=True)
    c = sparse_pca(op, n_components=4, cardinality=4, random_state=3, refine=True)
    assert np.array_equal(a.components, c.components)


def _data(op):
    w, V = np.linalg.eigh(op.to_dense())
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((60, op.n_features))
    return Z @ (V * np.sqrt(np.maximum(w, 0))) @ V.T


def test_estimator_passes_refine():
    X = _data(_wishart(14, 7))
    on = SparsePCA(3, cardinality=4, random_state=0).fit(X)
    off = SparsePCA(3, cardinality=4, random_state=0, refine=False).fit(X)
    op = eigensparse.as_operator(X, center=True)
    assert _total(op, on.components_) >= _total(op, off.components_) * (1 - 1e-12)
    with pytest.raises(ValueError, match="refine"):  # scikit-learn's parameter validation
        SparsePCA(3, cardinality=4, refine="yes").fit(X)


@pytest.mark.parametrize("bad", ["yes", 1.0, None])
def test_bad_refine_is_a_clear_error(bad):
    with pytest.raises(InvalidParameterError, match="refine"):
        sparse_pca(_pitprops(), n_components=2, cardinality=3, refine=bad)


def test_refine_true_with_a_joint_method_is_an_error():
    with pytest.raises(InvalidParameterError, match="refine"):
        sparse_pca(_pitprops(), n_components=2, cardinality=3, method="bipartite", refine=True)


def test_auto_skips_single_component_and_projection():
    op = _wishart(14, 1)
    one_a = sparse_pca(op, n_components=1, cardinality=4, random_state=0)
    one_b = sparse_pca(op, n_components=1, cardinality=4, random_state=0, refine=False)
    assert np.array_equal(one_a.components, one_b.components)
    pa = sparse_pca(op, n_components=3, cardinality=4, deflation="projection", random_state=0)
    pb = sparse_pca(op, n_components=3, cardinality=4, deflation="projection", random_state=0,
                    refine=False)
    assert np.array_equal(pa.components, pb.components)


@pytest.mark.parametrize("k,s", [(3, 4), (4, 3)])
def test_first_component_is_the_single_component_answer(k, s):
    """Refinement never trades PC1 by default (diabetes, standardized: a k=3, s=4 fit had
    PC1 = 2.722 against 2.793 for k=1); refine="total" may, and says so."""
    from sklearn.datasets import load_diabetes

    X = load_diabetes().data
    single = sparse_pca(X, n_components=1, cardinality=s, scale=True, random_state=0).variances[0]
    kept = sparse_pca(X, n_components=k, cardinality=s, scale=True, random_state=0)
    assert kept.variances[0] >= single * (1 - 1e-12)
    assert kept.info["refine"]["first_traded"] is False
    assert kept.info["refine"]["policy"] == "keep_first"
    traded = sparse_pca(X, n_components=k, cardinality=s, scale=True, random_state=0,
                        refine="total")
    info = traded.info["refine"]
    assert info["first_variance_single"] == pytest.approx(single)
    assert info["first_traded"] == bool(traded.variances[0] < single * (1 - 1e-12))
    # the trade buys total: never less than the guarded refinement's
    assert info["refine_total_after"] >= kept.info["refine"]["refine_total_after"] - 1e-9


def test_refine_total_needs_a_single_component_method():
    with pytest.raises(InvalidParameterError, match="refine"):
        sparse_pca(load_pitprops().data, n_components=2, cardinality=3, method="bipartite",
                   refine="total")


@pytest.mark.parametrize("k,seed", [(1, 0), (2, 1), (4, 2)])
def test_multi_vector_schur_deflation_equals_nested_wrappers(k, seed):
    """One dense Schur-deflated matrix for several vectors: the same blocks, diagonal and
    (to rounding) products as the chain of SchurDeflated wrappers it replaces."""
    from eigensparse import Covariance
    from eigensparse.multi._refine import schur_deflated_matrix
    from eigensparse.operators import SchurDeflated

    rng = np.random.default_rng(seed)
    A = rng.standard_normal((60, 15))
    op = Covariance(A.T @ A / 60)
    X = rng.standard_normal((k, 15))
    X[:, rng.choice(15, 5, replace=False)] = 0.0  # sparse-ish loadings
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    nested = op
    for x in X:
        nested = SchurDeflated(nested, x)
    dense = schur_deflated_matrix(op, X)
    idx = np.sort(rng.choice(15, 7, replace=False))
    assert np.array_equal(dense.block(idx), nested.block(idx))
    assert np.array_equal(dense.diag(), nested.diag())
    v = rng.standard_normal(15)
    np.testing.assert_allclose(dense.matvec(v), nested.matvec(v), rtol=1e-12, atol=1e-12)
    # every deflating vector is in the null space of the result (Schur deflation)
    np.testing.assert_allclose(dense.S @ X.T, 0.0, atol=1e-10)
