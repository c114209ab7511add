"""Choosing the cardinality: the fraction rule against exhaustive search, planted supports,
20 newsgroups, the knee and CV rules, the per-component hook and bad input."""
import numpy as np
import pytest

import eigensparse as es
from eigensparse import InvalidParameterError
from eigensparse.multi import deflate
from eigensparse.datasets import load_20news, load_pitprops, make_spiked_covariance
from eigensparse.selection import choose_cardinality, resolve_auto_cardinalities
from eigensparse.solvers import get_solver


def _lmax_block(op, support):
    return float(np.linalg.eigvalsh(op.block(np.asarray(support)))[-1])


@pytest.fixture(scope="module")
def spiked():
    # I + 10·vvᵀ, v uniform on 10 variables: a support of 9 reaches (1 + 9)/(1 + 10) ≈ 0.91 of
    # λmax, the planted 10 all of it, so the 0.95 rule must pick exactly the planted support.
    return make_spiked_covariance(500, 60, 10, 10.0, random_state=0)


@pytest.mark.parametrize("fraction", [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99])
def test_fraction_rule_matches_exhaustive_on_pitprops(fraction):
    S = load_pitprops().data
    op = es.Covariance(S)
    lam1 = np.linalg.eigvalsh(S)[-1]
    exact = np.array([get_solver("exhaustive").func(op, k).variance for k in range(1, 14)])
    s_star = int(np.argmax(exact >= fraction * lam1)) + 1  # the true minimal cardinality
    c = choose_cardinality(op, fraction=fraction, exact_supports=0)  # path + bounds only
    assert c.cardinality == s_star
    assert c.s_lower <= s_star
    assert c.proven == (c.s_lower == c.cardinality)
    assert _lmax_block(op, c.result.support) >= fraction * lam1 * (1 - 1e-12)
    # every reported upper bound is a true bound, every variance is reached
    k = c.cardinalities[: c.cardinality]
    assert np.all(c.upper_bounds[: k.size] >= exact[: k.size] * (1 - 1e-9))
    assert np.all(c.variances[: k.size] <= exact[: k.size] * (1 + 1e-9))
    # with the exact search allowed, every choice is proven minimal
    assert choose_cardinality(op, fraction=fraction).proven


def test_planted_support_chosen_and_proven_minimal(spiked):
    X, v, support = spiked
    c = choose_cardinality(X, fraction=0.95)
    assert c.cardinality == 10
    np.testing.assert_array_equal(c.result.support, support)
    assert c.proven  # the bounds show no 9 variables reach 0.95 λmax
    assert c.upper_bounds[8] < 0.95 * c.dense_variance <= c.variances[9]


def test_knee_and_cv_find_the_planted_support(spiked):
    X, v, support = spiked
    assert choose_cardinality(X, rule="knee", s_max=30).cardinality == 10
    c = choose_cardinality(X, rule="cv", s_max=20, n_folds=4, random_state=0)
    assert c.cardinality == 10
    assert c.scores["mean"].shape == (20,)
    assert np.argmax(c.scores["mean"]) + 1 >= 10


def _check_fraction_choices(op, choices, components, fraction=0.9, deflation="schur"):
    """Each chosen s reaches ``fraction`` of the deflated λmax (the component returned does),
    the best support of size s−1 found does not, the bounds prove every k < s_lower short;
    returns the deflated operators, one per component."""
    cur, Q, ops = op, [], []
    for t, (c, x) in enumerate(zip(choices, components)):
        s, thr = c.cardinality, fraction * c.dense_variance
        assert c.dense_variance == pytest.approx(np.linalg.eigvalsh(cur.to_dense())[-1], rel=1e-9)
        assert np.count_nonzero(x) == s
        assert _lmax_block(cur, c.result.support) >= thr  # s reaches the fraction ...
        assert float(x @ cur.matvec(x)) >= thr * (1 - 1e-9)  # ... so does the component
        assert c.variances[s - 2] < thr  # ... the best support of size s−1 found does not
        assert 1 <= c.s_lower <= s
        assert np.all(c.upper_bounds[: c.s_lower - 1] < thr)
        assert np.all(c.upper_bounds[:s] >= c.variances[:s] * (1 - 1e-12))
        assert c.proven == (c.s_lower == s)
        ops.append(cur)
        cur = deflate(cur, x, deflation, Q)
    return ops


def test_20news_fraction_rule_reaches_and_previous_size_does_not():
    """The handbook's rule on 20 newsgroups, three components (Schur deflation); component 3
    is proven minimal by exhaustive search."""
    op = es.as_operator(load_20news().data)
    auto = resolve_auto_cardinalities(op, 3, deflation="schur", fraction=0.9, certify=False)
    ops = _check_fraction_choices(op, auto.choices, [r.loadings for r in auto.results])
    c = auto.choices[2]  # small enough for the exact check: no support of size s−1 reaches 90%
    assert c.proven and c.cardinality <= 5
    assert get_solver("exhaustive").func(ops[2], c.cardinality - 1).variance < 0.9 * c.dense_variance


def test_sparse_pca_auto_on_20news():
    """The front door: sparse_pca(cardinality="auto") returns the components of the chosen
    cardinalities (checked as the hook's), with the choices in info and in the table."""
    X = load_20news().data
    res = es.sparse_pca(X, n_components=3, cardinality="auto", deflation="schur", random_state=0)
    choices = res.info["cardinality_choices"]
    assert res.info["cardinalities"] == [c.cardinality for c in choices]
    assert [s.size for s in res.supports] == res.info["cardinalities"]
    _check_fraction_choices(es.as_operator(X), choices, res.components)
    table = res.format_table()
    for j, c in enumerate(choices):
        assert f"PC{j + 1}: s={c.cardinality} chosen: reaches" in table
    doc = res.to_dict()
    assert doc["cardinality_rule"] == "fraction"
    assert [d["cardinality_choice"]["cardinality"] for d in doc["components"]] == \
        res.info["cardinalities"]


@pytest.mark.parametrize("kwargs, name", [
    ({"cardinality": "foo"}, "'cardinality'"), ({"cardinality_fraction": 1.5}, "'cardinality_fraction'"),
    ({"cardinality": "auto", "cardinality_rule": "best"}, "'cardinality_rule'"),
    ({"cardinality": "auto", "method": "bipartite"}, "'cardinality'='auto'")])
def test_front_door_bad_auto_values_name_the_parameter(spiked, kwargs, name):
    X = spiked[0]
    with pytest.raises(InvalidParameterError, match=name):
        es.sparse_pca(X, n_components=2, **kwargs)
    with pytest.raises(ValueError, match=name.split("=")[0].strip("'")):
        es.SparsePCA(2, **kwargs).fit(X)


def test_sparse_pca_auto_picks_the_planted_support(spiked):
    X, v, support = spiked
    res = es.sparse_pca(X, n_components=1, cardinality="auto", cardinality_fraction=0.95,
                        random_state=0)
    assert res.info["cardinalities"] == [10]
    np.testing.assert_array_equal(res.supports[0], support)
    assert res.info["cardinality_choices"][0].proven
    est = es.SparsePCA(1, cardinality="auto", cardinality_fraction=0.95, random_state=0).fit(X)
    np.testing.assert_array_equal(est.supports_[0], support)
    assert est.cardinality_choices_[0].cardinality == 10


def test_resolve_auto_cardinalities_per_component(spiked):
    X, v, support = spiked
    op = es.as_operator(X)
    calls = []

    def solve(sub, s, t):
        calls.append((s, t))
        return get_solver("tpower").func(sub, s, random_state=t)

    auto = resolve_auto_cardinalities(op, 2, deflation="schur", fraction=0.95, solve=solve)
    assert auto.cardinalities[0] == 10
    assert len(auto.results) == 2 and len(auto.choices) == 2
    assert (10, 0) in calls and calls[-1][1] == 1
    np.testing.assert_array_equal(auto.results[0].support, support)
    # the second component is chosen on the deflated operator: orthogonal to the spike
    assert abs(auto.results[1].loadings @ v) < 0.5
    auto_disjoint = resolve_auto_cardinalities(op, 2, deflation="disjoint", fraction=0.95)
    assert not set(auto_disjoint.results[0].support) & set(auto_disjoint.results[1].support)


@pytest.mark.parametrize("kwargs, name", [
    ({"fraction": 0.0}, "fraction"), ({"fraction": 1.5}, "fraction"),
    ({"fraction": "0.9"}, "fraction"), ({"fraction": float("nan")}, "fraction"),
    ({"rule": "bic"}, "rule"), ({"s_max": 0}, "s_max"), ({"s_max": 1000}, "s_max"),
    ({"rule": "cv", "n_folds": 1}, "n_folds"), ({"rule": "cv", "cv_select": "min"}, "cv_select"),
])
def test_bad_input_names_the_parameter(spiked, kwargs, name):
    X = spiked[0]
    with pytest.raises(InvalidParameterError, match=name):
        choose_cardinality(X, **kwargs)


def test_cv_needs_data_rows(spiked):
    op = es.as_operator(spiked[0])
    with pytest.raises(InvalidParameterError, match="rule"):
        choose_cardinality(op, rule="cv")
    with pytest.raises(InvalidParameterError, match="data"):
        resolve_auto_cardinalities(op, 2, rule="cv")


# ---- the "topics" rule: a reader's size, chosen by the solver's knee, in [5, 30] --------------

def _planted_cov(p, support, signal, seed=0):
    rng = np.random.default_rng(seed)
    v = np.zeros(p)
    v[support] = 1 / np.sqrt(len(support))
    D = np.diag(rng.uniform(0.5, 1.0, p))
    return D + signal * np.outer(v, v)


@pytest.mark.parametrize("size", [7, 10, 14, 20])
def test_topics_rule_finds_a_planted_block_at_the_knee(size):
    # a block of `size` equally loaded variables: v(s) rises linearly up to `size`, then
    # almost flat, so the knee of the solver's values is the block's size
    p = 200
    support = np.arange(3, 3 + size)
    op = es.Covariance(_planted_cov(p, support, 4.0 * size))
    ch = choose_cardinality(op, rule="topics")
    assert ch.rule == "topics" and ch.cardinality == size
    assert sorted(ch.result.support.tolist()) == support.tolist()
    assert "knee" in ch.reason


@pytest.mark.parametrize("size", [1, 2, 3])
def test_topics_rule_never_goes_below_five_words(size):
    op = es.Covariance(_planted_cov(120, np.arange(size), 50.0))
    ch = choose_cardinality(op, rule="topics")
    assert ch.cardinality == 5 and set(range(size)) <= set(ch.result.support.tolist())
    assert "clipped" in ch.reason


def test_topics_rule_never_goes_above_thirty_and_bounds_hold():
    # a flat spectrum (no block): every choice must stay in [5, 30]
    rng = np.random.default_rng(3)
    X = rng.standard_normal((400, 80))
    op = es.Covariance(np.cov(X.T))
    ch = choose_cardinality(op, rule="topics")
    assert 5 <= ch.cardinality <= 30
    exact = np.isfinite(ch.variances)
    assert np.all(ch.variances[exact] <= ch.upper_bounds[exact] * (1 + 1e-9))
    assert ch.variances[ch.cardinality - 1] == pytest.approx(ch.result.variance)
    small = choose_cardinality(es.Covariance(np.cov(X[:, :4].T)), rule="topics")
    assert small.cardinality == 4  # fewer than 5 variables: all of them


def test_topics_command_and_extract_topics_use_the_topics_rule():
    from eigensparse.cli import build_parser
    from eigensparse.datasets import load_kos
    from eigensparse.text import extract_topics

    args = build_parser().parse_args(["topics", "--dataset", "kos", "-s", "auto"])
    assert args.cardinality_rule == "topics"
    fit_args = build_parser().parse_args(["fit", "x.csv", "-s", "auto"])
    assert fit_args.cardinality_rule == "fraction"  # the statistician's rule stays for fit
    kos = load_kos()
    res = extract_topics(kos.data, kos.feature_names, n_topics=3, cardinality="auto",
                         progress=False)
    cards = [t.cardinality for t in res.topics]
    assert all(5 <= c <= 30 for c in cards), cards
    assert [c.rule for c in res.cardinality_choices] == ["topics"] * 3


# ---- the cardinality-path plot shows what the solver reaches, never a weaker path -------------


@pytest.mark.parametrize("rule", ["fraction", "knee", "cv", "topics"])
def test_an_automatic_choice_pickles_with_its_result_and_estimator(rule):
    """A choice keeps its solver for the plot: a named, module-level callable, so the
    result, and an estimator fitted on data or on a Covariance, pickle (a closure did not)."""
    import pickle

    X = np.random.default_rng(0).standard_normal((40, 6))
    res = es.sparse_pca(X, n_components=2, cardinality="auto", cardinality_rule=rule,
                        random_state=0)
    back = pickle.loads(pickle.dumps(res))
    assert back.info["cardinalities"] == res.info["cardinalities"]
    ch, ch2 = res.info["cardinality_choices"][0], back.info["cardinality_choices"][0]
    np.testing.assert_allclose(ch2.solver_variances(3), ch.solver_variances(3))
    for data in (X, es.Covariance(np.cov(X.T))) if rule != "cv" else (X,):
        est = es.SparsePCA(2, cardinality="auto", cardinality_rule=rule, random_state=0).fit(data)
        np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).components_, est.components_)


@pytest.mark.parametrize("rule", ["fraction", "knee", "topics"])
def test_automatic_disjoint_components_that_run_out_of_features_say_so(rule):
    """Disjoint components with chosen cardinalities can use every feature before the
    last: the error names n_components and how many fit (it was the inner solver's
    'cardinality must be in [1, n_features=0]; got 0')."""
    X = np.random.default_rng(0).standard_normal((40, 6))
    with pytest.raises(InvalidParameterError, match=r"'n_components'=6 .*none is left for "
                                                     r"component \d; ask for at most \d"):
        es.sparse_pca(X, n_components=6, cardinality="auto", deflation="disjoint",
                      cardinality_rule=rule, random_state=0)


def test_resolve_auto_cardinalities_checks_n_components_against_the_features():
    X = np.random.default_rng(0).standard_normal((40, 6))
    with pytest.raises(InvalidParameterError, match=r"'n_components' must be .*n_features=6\]; got 7"):
        resolve_auto_cardinalities(es.Covariance(np.cov(X.T)), 7)
    # data are taken as choose_cardinality takes them (it was an AttributeError)
    auto = resolve_auto_cardinalities(X, 1, fraction=0.8)
    assert auto.cardinalities == [choose_cardinality(X, fraction=0.8).cardinality]


@pytest.mark.parametrize("kw, match", [
    (dict(exact_supports=-1), "'exact_supports'"),
    (dict(certify="no"), "'certify'"),
    (dict(relaxation="no"), "'relaxation'"),
    (dict(random_state="x"), "'random_state'"),
    (dict(method="tpower", method_options=[1]), "'method_options'"),
    (dict(rule="cv", previous=np.ones((1, 3))), r"'previous' must be .*n_features=6\); got shape \(1, 3\)"),
    (dict(rule="cv", previous=np.full((1, 6), np.nan)), "'previous' .*NaN"),
    (dict(rule="cv", n_folds=40), r"'n_folds' must be <= n_samples // 2 = 20"),
])
def test_choose_cardinality_refuses_bad_options_at_the_boundary(kw, match):
    """They were accepted silently (a negative exact_supports, a string for a boolean, a
    random_state the path ignored) or failed deep inside (matmul, IndexError, a held-out
    fold of one sample)."""
    X = np.random.default_rng(0).standard_normal((40, 6))
    with pytest.raises(InvalidParameterError, match=match):
        choose_cardinality(X, **kw)


def test_resolve_auto_cardinalities_names_an_unknown_option_and_checks_the_known():
    P = es.Covariance(load_pitprops().data)
    with pytest.raises(InvalidParameterError, match="unknown option.*'certfy'.*did you mean 'certify'"):
        resolve_auto_cardinalities(P, 1, certfy=True)
    with pytest.raises(InvalidParameterError, match="'certify'"):
        resolve_auto_cardinalities(P, 1, certify="no")


def test_cross_validation_without_rows_names_the_rule_and_the_alternatives():
    """cardinality_rule='cv' on input without rows (a precomputed covariance; a corpus'
    covariance in topics) says which parameter and what to use instead, not an internal
    parameter name."""
    S = np.cov(np.random.default_rng(0).standard_normal((50, 8)), rowvar=False)
    with pytest.raises(es.InvalidParameterError,
                       match=r"'cardinality_rule'='cv'.*rows.*'fraction' or 'knee'"):
        es.sparse_pca(es.Covariance(S), n_components=2, cardinality="auto",
                      cardinality_rule="cv")


# ---- cross-validation fits every training fold as the request -------------------------------


def test_cv_folds_are_fitted_by_the_request_method_options_and_seed():
    """cardinality="auto", cardinality_rule="cv": the component of each training fold at each
    s is the request's own fit (its method, its options, its seed), as every refit of a request;
    the folds were fitted by the greedy path, which dropped the method and its options."""
    from eigensparse import registry
    from eigensparse.registry import MethodSpec, register_method
    from eigensparse.solvers import polish

    calls = []

    def toy_every(op, cardinality, *, random_state=None, stride: int = 2):
        """Toy: features 0, stride, 2·stride, … modulo p (the first s of them), polished."""
        calls.append((op.n_samples, cardinality, stride, random_state))
        return polish(op, np.arange(cardinality) * stride % op.n_features, method="toy_every")

    register_method(MethodSpec("toy_every", toy_every))
    try:
        X = np.random.default_rng(3).standard_normal((60, 12))
        res = es.sparse_pca(X, n_components=1, cardinality="auto", cardinality_rule="cv",
                            method="toy_every", stride=5, random_state=7)
    finally:
        del registry._METHODS["toy_every"]
    seed = res.plan.seeds[0]
    assert {(stride, rs) for _, _, stride, rs in calls} == {(5, seed)}
    folds = [c for c in calls if c[0] == 48]  # 5 folds of 60 rows: 48 training rows
    assert sorted(s for _, s, _, _ in folds) == sorted(list(range(1, 13)) * 5)  # s = 1..p
    s = res.info["cardinalities"][0]
    assert calls[-1][1] == s  # the component on the whole data, at the s chosen
