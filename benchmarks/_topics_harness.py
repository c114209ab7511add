"""The topic pipeline with vocabulary pruning and the bounded solve, for the studies.

This is the reference wiring of :mod:`eigensparse.text._vocabulary` and
:mod:`eigensparse.text._bounded` on top of the pipeline's public pass functions
(:func:`eigensparse.text.word_statistics`, :func:`eigensparse.text.working_set_covariance`):

1. pass 1 (``word_statistics`` under the scaling; for tf-idf a pass 1a of counts gives
   the document frequencies first): per-word mean, variance and document frequency;
2. pruning (``prune_vocabulary`` on the document frequencies) → keep-mask;
3. working set: the ``working_set`` kept words of largest variance; τ = the largest
   variance of a kept word left out;
4. pass 2: the working-set covariance;
5. per topic ``solve_topic_bounded`` (disjoint: words of earlier topics are ``used``).

It runs out of core on a UCI ``.gz`` (through the corpus cache) and in memory on a
sparse matrix alike.
"""
from __future__ import annotations

import time

import numpy as np

from eigensparse.io.corpus import open_corpus
from eigensparse.operators import Covariance
from eigensparse.text import word_statistics, working_set_covariance
from eigensparse.text._bounded import solve_topic_bounded
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
                  working_set=1000, time_budget=2.0, cache=True, cache_dir=None,
                  random_state=0, progress=False) -> dict:
    """Topics with pruning and the bounded solve; returns a dict of results and timings."""
    t0 = time.perf_counter()
    corpus = open_corpus(docword, vocab, cache=cache, cache_dir=cache_dir)
    n = corpus.n_docs
    timings = {}
    idf = None
    if scaling == "tfidf":
        base = word_statistics(corpus, "count", progress=progress)
        idf = np.log((1.0 + n) / (1.0 + base["df"])) + 1.0
    st = word_statistics(corpus, scaling, idf=idf, progress=progress)
    timings["pass 1"] = time.perf_counter() - t0
    mean = st["s1"] / n
    var = st["s2"] / n - (mean * mean if center else 0.0)
    words = corpus.words
    pr = prune_vocabulary(st["df"], n, words=words, **(pruning or {}))
    v = np.where(pr.keep & (var > 0), var, -np.inf)
    order = np.argsort(-v, kind="stable")
    n_ok = int(np.count_nonzero(np.isfinite(v)))
    m = min(working_set, n_ok)
    ws = np.sort(order[:m])
    tau = float(v[order[m]]) if m < n_ok else 0.0
    t1 = time.perf_counter()
    G = working_set_covariance(corpus, ws, scaling=scaling, idf=idf, mean=mean, center=center,
                               progress=progress)
    timings["pass 2"] = time.perf_counter() - t1
    cov = Covariance(G)
    used = np.zeros(m, dtype=bool)
    topics = []
    for t in range(k):
        r = solve_topic_bounded(cov, s, used=used, tau_outside=tau, time_budget=time_budget,
                                max_working_set=m, random_state=random_state)
        used[r.support] = True
        ids = ws[r.support]
        o = np.argsort(-np.abs(r.loadings), kind="stable")
        topics.append({"word_ids": ids[o], "loadings": r.loadings[o], "variance": r.variance,
                       "words": [words[i] if words is not None else f"word{i + 1}" for i in ids[o]],
                       "seconds": r.seconds, "safe": r.safe, "capped": r.capped,
                       "timed_out": r.timed_out, "sizes": r.sizes, "support_pos": r.support,
                       "loadings_pos": r.loadings})
    timings["solve"] = sum(t["seconds"] for t in topics)
    from eigensparse._api import adjusted_variance

    C = np.zeros((len(topics), m))
    for j, t in enumerate(topics):
        C[j, t["support_pos"]] = t["loadings_pos"]
    total = float(var[var > 0].sum())
    for t, e in zip(topics, adjusted_variance(cov, C) if topics else []):
        t["explained_variance_ratio"] = float(e) / total if total > 0 else 0.0
    timings["total"] = time.perf_counter() - t0
    return {"topics": topics, "timings": timings, "pruning": pr, "working_set": ws, "tau": tau,
            "covariance": G, "n_docs": n, "n_words": corpus.n_words, "nnz": int(corpus.nnz),
            "df": st["df"], "name": corpus.name, "total_variance": float(var[var > 0].sum())}


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
