"""The topics' bounds computed on other threads while the chain goes on
(``text/_alongside.py``): the same topics, bounds and records as computed in line, the
bound of a topic that may grow the working set computed at once, and a failure in a
thread raised where the bound is read."""
import threading

import numpy as np
import pytest

from eigensparse import Covariance, sparse_pca
from eigensparse.text import _working_set, extract_topics
from eigensparse.text._alongside import BoundsAlongside

NO_PRUNING = {"min_df": 1, "max_df": 1.0, "scaling": "count"}
TIMES = {"seconds"}


def _spy(monkeypatch):
    """The names of the threads that compute each topic's vocabulary bound."""
    names, real = [], _working_set.vocabulary_bound

    def spy(*args, **kwargs):
        names.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(_working_set, "vocabulary_bound", spy)
    return names


def _record(res):
    return [(t.words, t.variance, t.upper_bound, t.gap,
             {k: v for k, v in t.result.info.items() if k not in TIMES}) for t in res.topics]


def test_bounds_on_other_threads_are_the_bounds_computed_in_line(corpus, monkeypatch):
    X, _ = corpus
    names = _spy(monkeypatch)
    # the whole vocabulary in the working set: it cannot grow, the bounds need not wait
    kw = dict(n_topics=3, cardinality=4, progress=False, random_state=0, **NO_PRUNING)
    one = extract_topics(X, n_jobs=1, **kw)
    assert len(names) == 3 and set(names) == {"MainThread"}
    del names[:]
    two = extract_topics(X, n_jobs=2, **kw)
    assert len(names) == 3 and all(n.startswith("eigensparse-topic-bound") for n in names)
    assert len(two.working_set) == X.shape[1]
    a, b = _record(one), _record(two)
    assert [r[:4] for r in a] == [r[:4] for r in b]  # bit for bit
    assert [r[4] for r in a] == [r[4] for r in b]
    assert all(t.upper_bound >= t.variance for t in two.topics)
    assert two.total_upper_bound == one.total_upper_bound


def test_a_topic_that_may_grow_the_working_set_has_its_bound_at_once(corpus, monkeypatch):
    X, _ = corpus
    names = _spy(monkeypatch)
    # a working set smaller than the vocabulary of a small corpus (another pass 2 is cheap):
    # the floor of a topic's bound may ask for more words, so it is computed in line until
    # the working set has grown for a floor (once), then on the other threads
    grown = []
    real = _working_set.WorkingSet.enlarge
    monkeypatch.setattr(_working_set.WorkingSet, "enlarge",
                        lambda self, *a: (grown.append(len(names)), real(self, *a))[1])
    res = extract_topics(X, n_topics=2, cardinality=3, working_set=12, n_jobs=2,
                         progress=False, random_state=0, **NO_PRUNING)
    assert grown, "the working set was expected to grow for a floor"
    assert names[:grown[0]] == ["MainThread"] * grown[0]
    assert all(t.upper_bound >= t.variance for t in res.topics)


def test_a_deferred_bound_is_the_computed_one_and_its_failure_is_raised_on_read():
    r = sparse_pca(Covariance(np.diag([3.0, 2.0, 1.0])), n_components=1, cardinality=1).results[0]

    def fails():
        raise RuntimeError("no bound")

    with BoundsAlongside(2) as alongside:
        bad = alongside.defer(r, fails)
        assert bad.support.tolist() == [0]  # what the solve knew, read without waiting
    with pytest.raises(RuntimeError, match="no bound"):
        bad.upper_bound
    with BoundsAlongside(1) as alongside:  # one thread: computed at once
        with pytest.raises(RuntimeError, match="no bound"):
            alongside.defer(r, fails)
