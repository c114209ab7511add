"""Per-topic bounds of disjoint topics (``text/_pipeline.py`` ``_checked``,
``text/_working_set.py`` ``vocabulary_bound``): each topic's bound is about the best
topic of Σ on the words the other topics leave, checked by brute force."""
from itertools import combinations

import numpy as np
import pytest

from eigensparse import SparseData
from eigensparse.text import extract_topics

NO_PRUNING = {"min_df": 1, "max_df": 1.0, "scaling": "count"}


def _best_avoiding(S, s, banned):
    free = [i for i in range(S.shape[0]) if i not in banned]
    return max(np.linalg.eigvalsh(S[np.ix_(T, T)])[-1] for T in map(list, combinations(free, s)))


@pytest.mark.parametrize("grow", [False, True])
def test_disjoint_topic_bounds_hold_by_brute_force(corpus, grow, monkeypatch):
    from eigensparse.text import _certify

    X, _ = corpus
    S = SparseData(X).block(np.arange(X.shape[1]))
    if not grow:  # a pass 2 deemed costly: the working set stays at 12 words
        monkeypatch.setattr(_certify, "GROW_MAX_WORK", 0.0)
    res = extract_topics(X, n_topics=3, cardinality=3, working_set=12, progress=False,
                         random_state=0, **NO_PRUNING)
    # words outside the working set are covered; or it grew once for a certificate
    assert res.working_set_sizes == ([12, 30] if grow else [12])
    for j, topic in enumerate(res.topics):
        ids = topic.word_ids
        # the variance the bound is about is the topic's variance on Σ (not a deflated one)
        assert np.isclose(topic.solved_variance, topic.variance, rtol=1e-10)
        assert topic.variance <= np.linalg.eigvalsh(S[np.ix_(ids, ids)])[-1] * (1 + 1e-9)
        others = set(np.concatenate([t.word_ids for i, t in enumerate(res.topics) if i != j]))
        best = _best_avoiding(S, 3, others)
        assert topic.result.upper_bound >= best * (1 - 1e-9)
        assert topic.variance <= best * (1 + 1e-9)



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
