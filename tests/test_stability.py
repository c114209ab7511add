"""Support stability: planted support stable with enough samples, unstable with few;
reproducible whatever n_jobs; sparse and Dask input; matching; plots; bad input."""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse import InvalidParameterError
from eigensparse.datasets import make_spiked_covariance
import eigensparse as es
from eigensparse.stability import match_components, resample_stability, support_stability


def _planted(n):
    return make_spiked_covariance(n, 80, 10, 4.0, random_state=3)


@pytest.fixture(scope="module")
def enough():
    X, v, support = _planted(1000)
    return X, support, support_stability(X, 2, 10, n_resamples=20, random_state=0)


def test_planted_support_is_stable_with_enough_samples(enough):
    X, support, r = enough
    j = int(np.argmax(np.abs(r.reference.components @ np.eye(80)[support].sum(0))))
    assert j == 0
    assert np.all(r.frequencies[0, support] >= 0.9)
    assert r.stability[0] >= 0.9
    assert r.frequencies.shape == (2, 80) and r.cosines.shape == (20, 2)
    assert np.all((r.frequencies >= 0) & (r.frequencies <= 1))
    # each refit's matched support has exactly 10 variables
    assert r.frequencies[0].sum() == pytest.approx(10)
    lines = r.lines([f"v{i}" for i in range(80)], label="topic")
    assert len(lines) == 2 and lines[0].startswith(f"topic 1: stability {r.stability[0]:.2f} (")
    assert lines[0].count(",") == 9


def test_stability_falls_with_too_few_samples(enough):
    X, support, r_many = enough
    Xf, _, support_f = _planted(40)
    r_few = support_stability(Xf, 2, 10, n_resamples=20, random_state=0)
    assert r_few.frequencies[0, support_f].min() < 0.9
    assert r_few.frequencies[0, support_f].mean() < r_many.frequencies[0, support].mean() - 0.2
    assert r_few.stability[0] < r_many.stability[0] - 0.2


def test_reproducible_whatever_n_jobs(enough):
    X = enough[0][:300]
    a = support_stability(X, 2, 10, n_resamples=6, random_state=7, n_jobs=1)
    b = support_stability(X, 2, 10, n_resamples=6, random_state=7, n_jobs=2)
    c = support_stability(X, 2, 10, n_resamples=6, random_state=7, n_jobs=2,
                          resampling="subsample")
    np.testing.assert_array_equal(a.frequencies, b.frequencies)
    np.testing.assert_allclose(a.cosines, b.cosines, rtol=1e-12)
    assert not np.array_equal(a.matches, c.matches) or not np.array_equal(a.frequencies,
                                                                          c.frequencies)


def test_sparse_input_stays_sparse_and_agrees_with_dense(enough, monkeypatch):
    X = np.where(np.abs(enough[0][:300]) > 1.0, enough[0][:300], 0.0)
    dense = support_stability(X, 2, 5, n_resamples=4, random_state=1)
    toarray = sp.csr_matrix.toarray

    def guarded(self, *a, **k):  # small products may be densified, data-sized matrices not
        if self.shape[0] >= 100 and self.shape[1] == X.shape[1]:
            pytest.fail(f"a {self.shape} data matrix was densified")
        return toarray(self, *a, **k)

    monkeypatch.setattr(sp.csr_matrix, "toarray", guarded)
    sparse = support_stability(sp.csr_matrix(X), 2, 5, n_resamples=4, random_state=1)
    np.testing.assert_array_equal(dense.frequencies, sparse.frequencies)


def test_dask_input_agrees_with_numpy(enough):
    da = pytest.importorskip("dask.array")
    X = enough[0][:300]
    a = support_stability(X, 2, 10, n_resamples=3, random_state=2)
    Xd = da.from_array(X, chunks=(100, 80))
    b = support_stability(Xd, 2, 10, n_resamples=3, random_state=2)
    c = support_stability(Xd, 2, 10, n_resamples=3, random_state=2, n_jobs=2,
                          backend="processes")  # dask: threads driving the cluster
    np.testing.assert_array_equal(a.frequencies, b.frequencies)
    np.testing.assert_array_equal(a.frequencies, c.frequencies)


def test_match_components_recovers_a_permutation():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((4, 30))
    perm = np.array([2, 0, 3, 1])
    B = np.empty_like(A)
    B[perm] = -A + 0.01 * rng.standard_normal(A.shape)
    matches, cos = match_components(A, B)
    np.testing.assert_array_equal(matches, perm)
    assert np.all(cos > 0.99)


def test_plots_are_written(enough, tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from eigensparse import plotting
    from eigensparse.selection import choose_cardinality

    X, support, r = enough
    r.plot(path=tmp_path / "stability.png")
    plotting.plot_loadings(r.reference, path=tmp_path / "loadings.pdf")
    choose_cardinality(X[:300], fraction=0.95).plot(path=tmp_path / "path.png")
    for name in ("stability.png", "loadings.pdf", "path.png"):
        assert (tmp_path / name).stat().st_size > 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loadings.pdf", "path.png",
                                                          "stability.png"]


@pytest.mark.parametrize("kwargs, name", [
    ({"n_resamples": 1}, "n_resamples"), ({"n_resamples": 2.5}, "n_resamples"),
    ({"resampling": "jackknife"}, "resampling"),
    ({"subsample_fraction": 1.0}, "subsample_fraction"),
    ({"n_jobs": 0}, "n_jobs"), ({"backend": "mpi"}, "backend"),
])
def test_bad_input_names_the_parameter(kwargs, name):
    X = np.ones((10, 5))
    with pytest.raises(InvalidParameterError, match=name):
        support_stability(X, 1, 2, **kwargs)


@pytest.mark.parametrize("sparse", [False, True])
def test_weighted_distinct_rows_give_the_bootstrap_covariance(enough, sparse):
    from eigensparse import as_operator
    from eigensparse.stability import _resampled

    X = enough[0][:200]
    X = sp.csr_matrix(np.where(np.abs(X) > 0.5, X, 0.0)) if sparse else X
    rows = np.sort(np.random.default_rng(4).integers(0, 200, 200))
    from types import SimpleNamespace

    kw = SimpleNamespace(center=False, scale=False)
    plain = as_operator(X[rows], center=False).to_dense()
    weighted = _resampled(X, rows, kw)
    assert weighted.shape[0] == np.unique(rows).size
    # same covariance up to n / n_distinct, hence the same sparse components
    np.testing.assert_allclose(as_operator(weighted, center=False).to_dense()
                               * weighted.shape[0] / 200, plain, rtol=1e-10, atol=1e-12)
    assert _resampled(X, rows, SimpleNamespace(center=True, scale=False)).shape[0] == 200


@pytest.mark.parametrize("refine", [False, True])
def test_every_refit_is_the_reference_request_reseeded(refine, monkeypatch):
    """sparse_pca(..., refine=R, stability=B): each refit solves the reference's plan with
    only its seeds changed (refine=False stays off in the refits: the refinement never runs)."""
    from eigensparse import _dispatch

    X, _, _ = make_spiked_covariance(200, 30, 6, 4.0, random_state=1)
    plans, refined = [], []
    solve = _dispatch.solve_components
    refine_plan = _dispatch.refine_plan
    monkeypatch.setattr(_dispatch, "solve_components",
                        lambda op, plan, **kw: plans.append(plan) or solve(op, plan, **kw))
    monkeypatch.setattr(_dispatch, "refine_plan",
                        lambda *a, **kw: refined.append(1) or refine_plan(*a, **kw))
    res = es.sparse_pca(X, n_components=2, cardinality=[4, 3], method="greedy", refine=refine,
                        order="deflation", stability=3, random_state=0)
    assert len(plans) == 4 and plans[0] is res.plan and res.plan.refine is refine
    for plan in plans[1:]:
        assert plan.seeds != res.plan.seeds
        assert (plan.refine, plan.cardinalities, plan.deflation, plan.options, plan.method) == \
            (refine, [4, 3], "schur", {}, "greedy")
    assert len(refined) == (4 if refine else 0)


def test_front_doors_auto_then_stable_planted_support():
    """sparse_pca(cardinality="auto", stability=B): the planted 10 variables chosen, each
    selected in >= 90% of the refits; the estimator gives the same; too few samples: the
    stabilities fall."""
    import eigensparse as es

    X, v, support = make_spiked_covariance(500, 60, 10, 10.0, random_state=0)
    res = es.sparse_pca(X, n_components=1, cardinality="auto", cardinality_fraction=0.95,
                        stability=20, n_jobs=2, random_state=0)
    st = res.info["stability"]
    assert res.info["cardinalities"] == [10]
    np.testing.assert_array_equal(res.supports[0], support)
    assert np.all(st.frequencies[0, support] >= 0.9) and st.stability[0] >= 0.9
    assert [ln.split()[1] for ln in res.format_table().splitlines()
            if ln.startswith("stability")] == [f"{st.stability[0]:.2f}"]
    est = es.SparsePCA(1, cardinality="auto", cardinality_fraction=0.95, stability=20,
                       random_state=0).fit(X)
    np.testing.assert_array_equal(est.stability_.frequencies, st.frequencies)  # n_jobs-free
    Xf, _, support_f = _planted(40)
    few = es.SparsePCA(1, cardinality=10, random_state=0).fit(Xf).support_stability(Xf, 20)
    assert few.frequencies[0, support_f].mean() < st.frequencies[0, support].mean() - 0.2
    assert few.stability[0] < st.stability[0] - 0.2


def test_stability_of_a_covariance_is_a_clear_error():
    """A precomputed covariance has no rows to resample: a clear error naming the
    parameter, from every front door, before any fit."""
    import eigensparse as es

    X = np.random.default_rng(0).standard_normal((60, 8))
    cov = es.Covariance(np.cov(X.T))
    with pytest.raises(InvalidParameterError, match="parameter 'data'.*rows"):
        es.sparse_pca(cov, n_components=2, cardinality=3, stability=3)
    with pytest.raises(InvalidParameterError, match="parameter 'data'.*rows"):
        es.SparsePCA(2, cardinality=3, stability=3).fit(cov)
    with pytest.raises(InvalidParameterError, match="parameter 'X'.*rows"):
        support_stability(cov, 2, 3)


@pytest.mark.parametrize("kw, match", [
    (dict(random_state="x"), "'random_state'"),
    (dict(random_state=-1), "'random_state'"),
    (dict(n_jobs=True), "'n_jobs'"),
    (dict(n_jobs=0), "'n_jobs'"),
    (dict(reference="abc"), "'reference' .*SparsePCAResult"),
])
def test_bad_resampling_parameters_are_refused_at_the_boundary(kw, match):
    """random_state='x' and -1 were numpy's SeedSequence errors, n_jobs=True ran, a
    reference that is not a result was an AttributeError."""
    X = np.random.default_rng(0).standard_normal((40, 6))
    with pytest.raises(es.InvalidParameterError, match=match):
        support_stability(X, 1, 2, n_resamples=2, **kw)


def test_a_reference_of_other_features_and_mismatched_components_are_refused():
    X = np.random.default_rng(0).standard_normal((40, 6))
    ref = es.sparse_pca(X[:, :4], n_components=1, cardinality=2, random_state=0)
    with pytest.raises(es.InvalidParameterError, match="'reference' was fitted on 4 features but X has 6"):
        support_stability(X, reference=ref, n_resamples=2)
    # fewer refit components than reference ones: the matches were INT_MIN garbage
    with pytest.raises(es.InvalidParameterError, match=r"m >= k; got shapes \(3, 3\) and \(1, 3\)"):
        match_components(np.eye(3), np.eye(3)[:1])
    with pytest.raises(es.InvalidParameterError, match="'refit' .*callable"):
        resample_stability(ref, 40, 5, n_resamples=2)


def test_a_randomstate_seeds_the_resampling():
    """scikit-learn's RandomState is a valid random_state (default_rng refused it)."""
    X = np.random.default_rng(0).standard_normal((40, 6))
    a = support_stability(X, 1, 2, n_resamples=3, random_state=np.random.RandomState(0))
    b = support_stability(X, 1, 2, n_resamples=3, random_state=np.random.RandomState(0))
    np.testing.assert_array_equal(a.frequencies, b.frequencies)


def test_top_variables_orders_by_frequency_and_refuses_bad_arguments():
    X = np.random.default_rng(0).standard_normal((60, 8))
    st = es.sparse_pca(X, n_components=2, cardinality=3, stability=4, random_state=0).stability
    idx, freq = st.top_variables(1)
    assert np.all(np.diff(freq) <= 0) and np.all(freq > 0)  # every selected variable, most first
    assert np.array_equal(freq, st.frequencies[1, idx])
    assert st.top_variables(1, 2)[0].tolist() == idx[:2].tolist()
    for component, n, name in [(2, None, "component"), (-1, None, "component"),
                               ("a", None, "component"), (0, 0, "'n'"), (0, 2.5, "'n'")]:
        with pytest.raises(InvalidParameterError, match=name):
            st.top_variables(component, n)
