"""A topic's bound computed once the topics are final (``text/_topic_bound.py``): a chain
topic kept is certified on the problem the chain solved it on, one search per topic that
needs one, and what decides a growth needs no search; checked by brute force."""
from itertools import combinations

import numpy as np
import pytest

from eigensparse import Covariance, SparseData
from eigensparse._result import defer_bound
from eigensparse.text import extract_topics
from eigensparse.text._topic_bound import PENDING, unbounded

NO_PRUNING = {"min_df": 1, "max_df": 1.0, "scaling": "count"}


def _best_avoiding(S, s, banned):
    free = [i for i in range(S.shape[0]) if i not in banned]
    return max(np.linalg.eigvalsh(S[np.ix_(T, T)])[-1] for T in map(list, combinations(free, s)))


def test_unbounded_drops_a_pending_bound_without_computing_it():
    from eigensparse import sparse_pca

    r = sparse_pca(Covariance(np.diag([3.0, 2.0, 1.0])), n_components=1, cardinality=1).results[0]
    calls = []

    def compute():
        calls.append(1)
        return 9.0, {"bound": "never"}

    pending = defer_bound(r, compute)
    out = unbounded(pending, variance=2.5, info={"seconds": 1.0, PENDING: ()})
    assert out.upper_bound is None and out.gap is None and out.variance == 2.5
    assert PENDING not in out.info and not calls
    assert out.support.tolist() == [0]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_searches_are_counted_once_per_topic_kept(corpus, n_jobs):
    # with the refinement (the default) the topics replaced cost no search: the run's
    # counter equals the number of final topics that record one, on one thread or two
    X, _ = corpus
    res = extract_topics(X, n_topics=3, cardinality=3, working_set=12, progress=False,
                         random_state=0, n_jobs=n_jobs, **NO_PRUNING)
    searched = [t for t in res.topics if t.info.get("certificate_search")]
    assert res.info["certificate_searches"] == len(searched) <= len(res.topics)
    assert not any(PENDING in t.info for t in res.topics)


@pytest.mark.parametrize("deflation", ["disjoint", "schur"])
def test_chain_topics_kept_are_certified_once_on_their_chain_problem(corpus, deflation, monkeypatch):
    # without refinement every topic is the chain's: its certificate is computed once the
    # topics are final, on the problem the chain solved it on (disjoint: the words of the
    # topics before it removed), one search per topic whose cheap bound was above 5%
    from eigensparse.text import _certify

    X, _ = corpus
    S = SparseData(X).block(np.arange(X.shape[1]))
    monkeypatch.setattr(_certify, "GROW_MAX_WORK", 0.0)
    res = extract_topics(X, n_topics=3, cardinality=3, working_set=12, progress=False,
                         random_state=0, refine=False, deflation=deflation, **NO_PRUNING)
    searched = [t for t in res.topics if t.info.get("certificate_search")]
    assert res.info["certificate_searches"] == len(searched) >= 1
    assert not any("certificate_pending" in t.info for t in res.topics)
    if deflation == "disjoint":
        for j, topic in enumerate(res.topics):
            earlier = set(np.concatenate([t.word_ids for t in res.topics[:j]] or [[]]).astype(int))
            assert topic.result.upper_bound >= _best_avoiding(S, 3, earlier) * (1 - 1e-9)


def test_partner_table_gives_the_partner_sums_of_every_used_set():
    # the final topics' bounds share one partner table of the working set: the same
    # numbers as the selection on S[unused, unused]
    from eigensparse.text._screen import partner_table, working_set_bounds

    rng = np.random.default_rng(0)
    A = rng.standard_normal((80, 40))
    S = A.T @ A / 80
    S[3, 7] = S[7, 3] = S[3, 9] = S[9, 3]  # a tie
    for s in (2, 3, 5):
        for n_used in (0, 4, 12):
            used = np.zeros(40, dtype=bool)
            used[rng.choice(40, n_used, replace=False)] = True
            table = partner_table(S, s - 1 + n_used)
            a = working_set_bounds(S, s, used, lam_max=1e9)
            b = working_set_bounds(S, s, used, lam_max=1e9, table=table)
            assert np.array_equal(a, b)
