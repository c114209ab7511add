"""The working set of the topic pipeline (``text/_working_set.py``): which words the
covariance is built on, each topic's time, and the time passed down to the solves."""
import types

import numpy as np
import pytest

from eigensparse.registry import MethodSpec, _METHODS, register_method
from eigensparse.solvers import polish
from eigensparse.text import TopicConfig, extract_topics
from eigensparse.text import _working_set
from eigensparse.text._config import DEFAULT_WORKING_SET
from eigensparse.text._working_set import TopicBudget, auto_working_set, select_working_set


def _first(op, cardinality):
    """The features of largest variance (a toy method)."""
    idx = np.sort(np.argsort(-op.diag(), kind="stable")[:cardinality])
    return polish(op, idx, "toy_timed")


def test_max_time_is_passed_down_across_the_growth_of_the_working_set(corpus, monkeypatch):
    """A method that takes ``max_time`` gets the time left of its topic at every solve,
    the solves after a re-read of a larger working set included. The solver's time is
    simulated: each solve takes 10 s of a fake clock."""
    from eigensparse import _budget

    X, _ = corpus
    clock, calls = [0.0], []
    fake = types.SimpleNamespace(perf_counter=lambda: clock[0])
    monkeypatch.setattr(_working_set, "time", fake)
    monkeypatch.setattr(_budget, "time", fake)  # the per-component budget's clock

    def timed_first(op, cardinality, *, max_time=None, random_state=None):
        """The features of largest variance, recording the time it is given."""
        calls.append(max_time)
        clock[0] += 10.0
        return _first(op, cardinality)

    register_method(MethodSpec("toy_timed", timed_first))
    try:
        res = extract_topics(X, n_topics=2, cardinality=4, method="toy_timed", scaling="count",
                             min_df=1, max_df=1.0, working_set=5, max_time=25.0, refine=False,
                             progress=False)
    finally:
        del _METHODS["toy_timed"]
    assert len(res.working_set_sizes) > 1 and res.rereads  # the working set grew
    # topic 1 is accepted on the first working set; topic 2 needs two re-reads: its
    # solves get 25 s, then what is left after each 10 s solve
    assert [r.split(":")[0] for r in res.rereads] == ["topic 2", "topic 2"]
    assert calls == [25.0, 25.0, 15.0, 5.0]
    assert all(v >= _working_set.TopicBudget.FLOOR for v in calls)



def test_variance_rule_keeps_the_largest_and_reports_the_largest_left_out():
    rng = np.random.default_rng(3)
    score = rng.random(50)
    ids, tau = select_working_set(score, 8, TopicConfig(working_set_rule="variance"))
    assert np.array_equal(ids, np.sort(np.argsort(-score)[:8]))
    assert tau == np.sort(score)[::-1][8]
    assert score[ids].min() >= tau  # safe elimination: every word left out is below tau
    # every word kept: nothing is left out
    ids, tau = select_working_set(score, 50, TopicConfig(working_set_rule="variance"))
    assert np.array_equal(ids, np.arange(50)) and tau == 0.0


def test_partner_rule_follows_the_ranking_and_tau_is_still_the_largest_variance_left_out():
    score = np.array([5.0, 4.0, 3.0, 2.0, 1.0, 0.5])
    ranking = np.array([4, 0, 5, 1, 2, 3])
    ids, tau = select_working_set(score, 3, TopicConfig(), ranking=ranking)  # default: partner
    assert ids.tolist() == [0, 4, 5] and tau == 4.0
    # without a ranking (a penalized request, a distributed corpus): the variance rule
    ids, tau = select_working_set(score, 3, TopicConfig())
    assert ids.tolist() == [0, 1, 2] and tau == 2.0


def test_auto_working_set_size():
    assert auto_working_set(5, 5) == DEFAULT_WORKING_SET
    assert auto_working_set(20, 10) == 2000 > DEFAULT_WORKING_SET


def test_topic_budget_charges_each_topic_its_own_time(monkeypatch):
    from eigensparse import _budget

    clock = [100.0]
    fake = types.SimpleNamespace(perf_counter=lambda: clock[0])
    monkeypatch.setattr(_working_set, "time", fake)
    monkeypatch.setattr(_budget, "time", fake)  # TopicBudget is a ComponentBudget
    b = TopicBudget(10.0)
    assert b.left(0) == 10.0
    b.start(0)
    clock[0] += 3.0
    assert b.left(0) == pytest.approx(7.0)  # a running solve counts
    b.stop(0)
    b.start(1)
    clock[0] += 4.0
    b.stop(1)
    b.start(0)
    clock[0] += 2.5
    b.stop(0)
    assert b.used == pytest.approx({0: 5.5, 1: 4.0})
    assert b.left(0) == pytest.approx(4.5) and b.left(1) == pytest.approx(6.0)
    b.start(1)
    clock[0] += 60.0
    assert b.left(1) == TopicBudget.FLOOR  # spent: the floor, never zero or negative
    b.stop(0)  # a topic not running: nothing charged
    assert b.used[0] == pytest.approx(5.5)
