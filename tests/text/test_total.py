"""The bound on the total of disjoint topics computed on a second thread while they are
solved (``text/_total.py``): it holds by brute force, a failure there leaves it to the
result, and plans without such a bound start no thread."""
from itertools import combinations

import numpy as np

from eigensparse import SparseData
from eigensparse.text import _total, extract_topics

NO_PRUNING = {"min_df": 1, "max_df": 1.0, "scaling": "count"}


def _best_disjoint_pairs(S):
    """max λmax(Σ_A) + λmax(Σ_B) over disjoint pairs of words A, B (brute force)."""
    pairs = list(combinations(range(S.shape[0]), 2))
    v = np.array([np.linalg.eigvalsh(S[np.ix_(T, T)])[-1] for T in pairs])
    P = np.array(pairs)
    disjoint = ((P[:, None, 0] != P[None, :, 0]) & (P[:, None, 0] != P[None, :, 1])
                & (P[:, None, 1] != P[None, :, 0]) & (P[:, None, 1] != P[None, :, 1]))
    return float(np.max(np.where(disjoint, v[:, None] + v[None, :], -np.inf)))


def test_the_total_bound_computed_alongside_the_solve_holds(corpus, monkeypatch):
    X, _ = corpus
    S = SparseData(X).block(np.arange(X.shape[1]))
    best = _best_disjoint_pairs(S)
    ran, run = [], _total.TotalBoundAlongside._run
    monkeypatch.setattr(_total.TotalBoundAlongside, "_run", lambda self: (ran.append(1), run(self)))
    kw = dict(n_topics=2, cardinality=2, working_set=12, progress=False, random_state=0,
              **NO_PRUNING)
    res = extract_topics(X, **kw)
    assert ran == [1] and len(res.working_set) < X.shape[1]
    assert best * (1 - 1e-9) <= res.total_upper_bound < np.inf
    assert sum(t.variance for t in res.topics) <= best * (1 + 1e-9)
    # nothing from the thread (a failure there): the result computes it after the solve
    monkeypatch.setattr(_total.TotalBoundAlongside, "_run", lambda self: None)
    again = extract_topics(X, **kw)
    assert best * (1 - 1e-9) <= again.total_upper_bound < np.inf
    assert [t.words for t in again.topics] == [t.words for t in res.topics]


def test_plans_without_a_total_bound_start_no_thread(corpus, monkeypatch):
    X, _ = corpus
    ran, run = [], _total.TotalBoundAlongside._run
    monkeypatch.setattr(_total.TotalBoundAlongside, "_run", lambda self: (ran.append(1), run(self)))
    res = extract_topics(X, n_topics=2, cardinality=2, working_set=12, progress=False,
                         random_state=0, deflation="schur", **NO_PRUNING)
    assert ran == [] and res.total_upper_bound is None
