"""``method="exact"``'s time budget through every caller: ``sparse_pca``, the estimator,
the ``fit`` command and the topic pipeline (per topic, its growth rounds included).

The problems here cannot be certified within the budget, so every caller must hand back
the best support with its proven upper bound, a positive gap and ``certified=False``.
Time is a simulated clock where it matters: every eigenvalue bound and exact scan of the
search advances it by one unit, so "how far past the budget" is counted in work units,
never measured on the wall clock.
"""
import importlib
import types
import warnings

import numpy as np
import pytest

import eigensparse as es
from eigensparse.datasets import load_kos
from eigensparse.operators import Covariance
from eigensparse.solvers._exact import ExactSearchWarning

#: work units one exact call may spend after its deadline (the first root bound, the
#: root node opened with it, a batch's clock checks)
SLACK = 3


def _hard(p=200, n=60, seed=5):
    A = np.random.default_rng(seed).standard_normal((n, p))
    return A.T @ A / n


@pytest.fixture
def clock(monkeypatch):
    """A simulated clock shared by the exact search and the dispatcher's per-component
    budget; ``clock.results`` collects every result the exact search returns."""
    pkg = importlib.import_module("eigensparse.solvers._exact")
    srch = importlib.import_module("eigensparse.solvers._exact._search")
    inc = importlib.import_module("eigensparse.solvers._exact._incumbent")
    disp = importlib.import_module("eigensparse._dispatch")
    budget = importlib.import_module("eigensparse._budget")  # each component's clock
    util = importlib.import_module("eigensparse._util")  # Deadline: one call's clock
    state = types.SimpleNamespace(t=0.0, results=[])
    fake = types.SimpleNamespace(perf_counter=lambda: state.t)

    def ticking(f):
        def g(*a, **kw):
            state.t += 1.0
            return f(*a, **kw)
        return g

    scr = importlib.import_module("eigensparse.solvers._exact._screen")
    for mod in (pkg, srch, inc, disp, budget, util, scr):
        monkeypatch.setattr(mod, "time", fake, raising=False)
    # the clock is simulated in this process only: worker processes (which n_jobs=None
    # adds after ESCALATE_SECONDS) would not advance it, so they never join here
    monkeypatch.setattr(pkg, "ESCALATE_SECONDS", float("inf"))
    for mod in (pkg, srch):
        monkeypatch.setattr(mod, "soft_eig_bound", ticking(mod.soft_eig_bound))
    monkeypatch.setattr(srch, "enumerate_completions", ticking(srch.enumerate_completions))
    # a node's bound from one solve of its top pairs (both bounds at once)
    monkeypatch.setattr(srch.Search, "_dual_node", ticking(srch.Search._dual_node))
    monkeypatch.setattr(scr, "_soft_prunes", ticking(scr._soft_prunes))
    finish = pkg._finish

    def spy(*a, **kw):
        r = finish(*a, **kw)
        state.results.append(r)
        return r

    monkeypatch.setattr(pkg, "_finish", spy)
    return state


def _stopped_early(r):
    assert r.info["certified"] is False and r.converged is False
    assert r.gap > 0 and r.upper_bound > r.variance
    assert r.info["relative_gap"] > 0
    assert r.upper_bound == pytest.approx(r.info["upper_bound"])


def test_sparse_pca_budget_is_per_component_refinement_included(clock):
    """Two components with the refinement: every solve of a component (chain solve and
    re-solves) shares its max_time, so the clock ends within 2·(budget + slack·solves)."""
    budget = 100
    with pytest.warns(ExactSearchWarning):
        res = es.sparse_pca(Covariance(_hard()), n_components=2, cardinality=12,
                            method="exact", max_time=budget, refine=True, progress=False)
    assert len(clock.results) >= 3  # two chain solves and at least one re-solve
    for r in clock.results:
        _stopped_early(r)
    for r in res.results:
        assert r.info["certified"] is False and r.gap > 0
    assert clock.results[0].info["nodes"] > 0  # the budget reached the tree
    assert budget <= clock.t <= 2 * budget + SLACK * len(clock.results)


def test_estimator_passes_max_time(clock):
    budget = 10
    X = np.random.default_rng(3).standard_normal((60, 150))
    est = es.SparsePCA(n_components=1, cardinality=12, method="exact",
                       method_options={"max_time": budget})
    with pytest.warns(ExactSearchWarning):
        est.fit(X)
    assert len(clock.results) == 1
    _stopped_early(clock.results[0])
    r = est.result_.results[0]
    assert r.info["certified"] is False and r.gap > 0 and r.upper_bound > r.variance
    assert budget <= clock.t <= budget + SLACK


def test_fit_command_passes_max_time(clock, tmp_path, capsys):
    from eigensparse.cli import main

    budget = 10
    X = np.random.default_rng(4).standard_normal((60, 150))
    path = tmp_path / "x.csv"
    np.savetxt(path, X, delimiter=",")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExactSearchWarning)
        code = main(["fit", str(path), "--method", "exact", "-k", "1", "-s", "12",
                     "--max-time", str(budget), "--no-refine"])
    assert code == 0
    assert len(clock.results) == 1
    _stopped_early(clock.results[0])
    assert budget <= clock.t <= budget + SLACK


def test_topics_budget_is_per_topic_growth_included(clock):
    """``extract_topics(method="exact")``: each topic's max_time covers all its solves,
    those after the working set grew included (a small initial working set forces the
    growth), so k topics end within k·(budget + slack per solve)."""
    kos = load_kos()
    budget, k = 12, 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = es.text.extract_topics(kos.data, kos.feature_names, n_topics=k, cardinality=8,
                                     method="exact", max_time=budget, working_set=60,
                                     progress=False, refine=False)
    assert len(res.topics) == k
    assert clock.results, "the exact search was not called"
    for r in clock.results:
        _stopped_early(r)
    for r in res.results:
        assert r.gap > 0 and r.upper_bound > r.variance
    assert clock.t <= k * budget + SLACK * len(clock.results)


def test_topic_time_budget_flag_is_a_deprecated_max_time():
    from eigensparse.cli import build_parser

    parser = build_parser()
    with pytest.warns(FutureWarning, match="--topic-time-budget is deprecated.*--max-time"):
        old = parser.parse_args(["topics", "--dataset", "kos", "--topic-time-budget", "7"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        new = parser.parse_args(["topics", "--dataset", "kos", "--max-time", "7"])
        default = parser.parse_args(["topics", "--dataset", "kos"])
    assert old.max_time == new.max_time == 7.0
    assert default.max_time != 7.0
