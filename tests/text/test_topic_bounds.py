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


