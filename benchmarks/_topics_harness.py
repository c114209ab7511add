"""The topic pipeline for the studies: :func:`eigensparse.text.extract_topics` with a
pruning configuration, its result as a plain dict.

The pipeline itself (pass 1, pruning, working set, pass 2, the bounded per-topic solve)
is :func:`eigensparse.text.extract_topics`; this module only names the pruning
configurations of the study and reads a result into the dict the study and the
benchmark tabulate. It runs out of core on a UCI ``.gz`` (through the corpus cache)
and in memory on a sparse matrix alike.
"""
from __future__ import annotations

import numpy as np

from eigensparse.text import extract_topics
from eigensparse.text._vocabulary import prune_vocabulary

#: the pruning configurations of the study (scikit-learn vectorizer parameters)
PRUNINGS = {
    "none": {},
    "stop": {"stop_words": "english"},
    "df": {"min_df": 5, "max_df": 0.5},
    "df+stop": {"min_df": 5, "max_df": 0.5, "stop_words": "english"},
    "df.1": {"min_df": 5, "max_df": 0.1},
}


def pruned_topics(docword, vocab=None, *, k=5, s=5, scaling="log", center=True, pruning=None,
                  working_set=1000, max_time=2.0, cache=True, cache_dir=None,
                  random_state=0, progress=False) -> dict:
    """Topics with pruning and the bounded solve; returns a dict of results and timings."""
    rules = {"min_df": 1, "max_df": 1.0, **(pruning or {})}
    res = extract_topics(docword, vocab, n_topics=k, cardinality=s, scaling=scaling,
                         center=center, working_set=working_set, max_working_set=working_set,
                         max_time=max_time, cache=cache, cache_dir=cache_dir,
                         random_state=random_state, progress=progress, **rules)
    ws = res.working_set
    topics = []
    for t, r in zip(res.topics, res.results):
        pos = np.searchsorted(ws, t.word_ids)
        o = np.argsort(pos)
        topics.append({"word_ids": t.word_ids, "loadings": t.loadings, "variance": t.variance,
                       "words": t.words, "seconds": t.seconds, "safe": r.info.get("working_set_safe"),
                       "capped": r.info.get("capped"), "timed_out": r.info.get("timed_out"),
                       "sizes": r.info.get("solve_set_sizes"), "support_pos": pos[o],
                       "loadings_pos": t.loadings[o],
                       "explained_variance_ratio": t.explained_variance_ratio})
    tm = res.timings
    timings = {"pass 1": tm.get("open", 0.0) + tm.get("pass 1: word statistics", 0.0),
               "pass 2": tm.get("pass 2: covariance", 0.0),
               "solve": sum(t["seconds"] for t in topics), "total": tm["total"]}
    words = res.feature_names
    pr = prune_vocabulary(res.word_df, res.n_docs, words=words,
                          counts=None if "max_features" not in rules else res.word_df, **rules)
    return {"topics": topics, "timings": timings, "pruning": pr, "working_set": ws,
            "tau": res.threshold, "covariance": res.covariance, "n_docs": res.n_docs,
            "n_words": res.n_words, "nnz": res.nnz, "df": res.word_df, "name": res.name,
            "total_variance": res.total_variance, "result": res}


def score_correlation(res) -> float:
    """Mean |corr| between the document scores of the topics (from the working-set
    covariance: xᵢᵀΣxⱼ / √(xᵢᵀΣxᵢ · xⱼᵀΣxⱼ)); low means distinct topics."""
    G = res["covariance"]
    m = G.shape[0]
    X = np.zeros((m, len(res["topics"])))
    for j, t in enumerate(res["topics"]):
        X[t["support_pos"], j] = t["loadings_pos"]
    C = X.T @ G @ X
    d = np.sqrt(np.clip(np.diag(C), 1e-300, None))
    R = np.abs(C / np.outer(d, d))
    iu = np.triu_indices(R.shape[0], 1)
    return float(R[iu].mean()) if iu[0].size else 0.0
