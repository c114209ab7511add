"""Which scaling and which vocabulary pruning find topics? (issue 11, item 5)

For every pruning of :data:`_topics_harness.PRUNINGS` × scaling (count, binary, log,
tf-idf) × centered or not, extract 5 disjoint topics of exactly 5 words
(:func:`_topics_harness.pruned_topics`: pruning, working set of the 1,000 kept words
of largest variance, bounded tpower solve) and measure:

- on :func:`eigensparse.datasets.synthetic_corpus.make_zipf_corpus` (planted
  mid-frequency topics): mean precision of the found topics against the planted ones
  and the number of distinct planted topics matched;
- on every corpus: distinctness (mean |correlation| between the topics' document
  scores; 0 = unrelated topics), the share of topic words that are English stop words
  (scikit-learn's list) and the median document frequency of topic words (readability:
  very frequent words make vague topics), and the first topic.

Also prints the two hardness checks of the generated corpus: the count-variance
optimum is made of frequent words, and a correlation-scaled optimum of value exactly s
(the largest possible) is made of words seen in a single document.

Usage::

    python benchmarks/study_text_scaling.py --zipf-scale 0.1          # ~2 min
    python benchmarks/study_text_scaling.py --zipf-scale 1 --only tfidf:df  # full size
    python benchmarks/study_text_scaling.py --kos-dir DIR --json out.json
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _topics_harness import PRUNINGS, pruned_topics, score_correlation  # noqa: E402

SCALINGS = ("count", "binary", "log", "tfidf")


def _readability(res, n_docs):
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    words = [w for t in res["topics"] for w in t["words"]]
    ids = np.concatenate([t["word_ids"] for t in res["topics"]])
    stop = np.mean([w in ENGLISH_STOP_WORDS for w in words])
    return float(stop), float(np.median(res["df"][ids]) / n_docs)


def run_grid(corpus, vocab, *, planted=None, only=None, working_set=1000, cache_dir=None):
    """One row per configuration."""
    from eigensparse.datasets.synthetic_corpus import topic_precision

    rows = []
    for pr, sc, center in itertools.product(PRUNINGS, SCALINGS, (True, False)):
        if only and f"{sc}:{pr}" not in only:
            continue
        res = pruned_topics(corpus, vocab, k=5, s=5, scaling=sc, center=center,
                            pruning=PRUNINGS[pr], working_set=working_set, cache_dir=cache_dir)
        stop, med_df = _readability(res, res["n_docs"])
        row = {"pruning": pr, "scaling": sc, "center": center,
               "distinct": 1.0 - score_correlation(res), "stop_words": stop,
               "median_df": med_df, "seconds": res["timings"]["total"],
               "solve_per_topic": res["timings"]["solve"] / 5,
               "topic1": " ".join(res["topics"][0]["words"]),
               "topics": [t["words"] for t in res["topics"]]}
        if planted is not None:
            P = topic_precision([t["word_ids"] for t in res["topics"]], planted)
            row["precision"] = P["mean_precision"]
            row["matched"] = P["n_distinct_matched"]
        rows.append(row)
        print(_fmt_row(row), flush=True)
    return rows


def _fmt_row(r) -> str:
    prec = f"{r['precision']:.2f} {r['matched']}" if "precision" in r else "  -   -"
    return (f"{r['pruning']:8s} {r['scaling']:6s} {'yes' if r['center'] else 'no':3s} {prec:7s} "
            f"{r['distinct']:5.2f} {100 * r['stop_words']:5.0f} {100 * r['median_df']:6.2f} "
            f"{r['seconds']:6.2f}  {r['topic1']}")


HEADER = ("pruning  scaling cen prec  #  dist. stop% df%med  sec    topic 1")


def hardness(docword, vocab, planted, s=5, cache_dir=None):
    """The two hardness checks, streamed (any size): under count variance, the ranks of
    the s largest-variance words and λmax of their block against the best planted
    s-word block; under correlation scaling, the documents holding >= s words seen in
    no other document (those words are perfectly correlated: λmax = s, the largest
    possible value, which a planted topic (correlations < 1) cannot reach)."""
    from eigensparse.io.corpus import open_corpus
    from eigensparse.text import word_statistics, working_set_covariance

    corpus = open_corpus(docword, vocab, cache_dir=cache_dir)
    n = corpus.n_docs
    st = word_statistics(corpus, "count")
    mean = st["s1"] / n
    var = st["s2"] / n - mean**2
    top = np.argsort(-var)[:s]
    best = [np.asarray(t)[np.argsort(-var[np.asarray(t)])[:s]] for t in planted]
    ws = np.unique(np.concatenate([top] + best))
    G = working_set_covariance(corpus, ws, mean=mean)

    def lam(idx):
        p = np.searchsorted(ws, idx)
        return float(np.linalg.eigvalsh(G[np.ix_(p, p)])[-1])

    rank = np.empty(var.size, dtype=int)
    rank[np.argsort(-mean, kind="stable")] = np.arange(var.size)
    once = st["df"] == 1
    rare = (st["df"] >= 1) & (st["df"] <= 3)
    docs_with_s, best_doc = 0, (-1, None)
    for ch in corpus.iter_chunks():
        if not ch.indices.size:
            continue
        empty = np.diff(ch.indptr) == 0
        per_doc = np.add.reduceat(once[ch.indices].astype(np.int64), ch.indptr[:-1])
        docs_with_s += int(np.count_nonzero((per_doc >= s) & ~empty))
        n_rare = np.where(empty, 0, np.add.reduceat(rare[ch.indices].astype(np.int64), ch.indptr[:-1]))
        d = int(np.argmax(n_rare))
        if n_rare[d] > best_doc[0]:
            w = ch.indices[ch.indptr[d]:ch.indptr[d + 1]]
            best_doc = (int(n_rare[d]), np.sort(w[rare[w]]))
    # correlation scaling: the best s rare words of the document richest in rare words
    # (a lower bound on the correlation-scaled optimum) against the planted topics
    from eigensparse.operators import Covariance
    from eigensparse.solvers import get_solver

    cand = best_doc[1]
    ws2 = np.unique(np.concatenate([cand] + [np.asarray(t) for t in planted]))
    C = Covariance(working_set_covariance(corpus, ws2, mean=mean), scale=True).S
    pos = lambda ids: np.searchsorted(ws2, ids)
    r = get_solver("tpower").func(Covariance(C[np.ix_(pos(cand), pos(cand))]), s)
    import itertools

    lam_planted = max(float(np.linalg.eigvalsh(C[np.ix_(c, c)])[-1])
                      for t in planted for c in itertools.combinations(pos(np.asarray(t)), s))
    return {"count_top_variance_words_rank": sorted(int(rank[i]) for i in top),
            "count_lambda_top_variance_words": lam(top),
            "count_lambda_best_planted": max(lam(b) for b in best),
            "words_in_one_document": int(np.count_nonzero(once)),
            "documents_with_s_such_words": docs_with_s,
            "correlation_lambda_rare_words": float(r.variance),
            "correlation_rare_words_df": [int(st["df"][i]) for i in cand[r.support]],
            "correlation_lambda_best_planted": lam_planted}


def rst_table(rows) -> str:
    """The rows as a reStructuredText simple table (for docs/user_guide/topics.rst)."""
    prec = "precision" in rows[0]
    head = ["pruning", "scaling", "centered"] + (["precision", "matched"] if prec else []) + [
        "distinct", "stop %", "median df %", "topic 1"]
    body = []
    for r in rows:
        body.append([r["pruning"], r["scaling"], "yes" if r["center"] else "no"]
                    + ([f"{r['precision']:.2f}", str(r["matched"])] if prec else [])
                    + [f"{r['distinct']:.2f}", f"{100 * r['stop_words']:.0f}",
                       f"{100 * r['median_df']:.1f}", r["topic1"]])
    w = [max(len(x[i]) for x in [head] + body) for i in range(len(head))]
    rule = "  ".join("=" * k for k in w)
    fmt = lambda cells: "  ".join(c.ljust(k) for c, k in zip(cells, w)).rstrip()
    return "\n".join([rule, fmt(head), rule] + [fmt(b) for b in body] + [rule])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--zipf-scale", type=float, default=0.1)
    ap.add_argument("--zipf-dir", default=None, help="where the corpus is (or is made)")
    ap.add_argument("--kos-dir", default=None, help="a directory with docword.kos.txt.gz (else bundled)")
    ap.add_argument("--only", default=None, help="comma list of scaling:pruning, e.g. tfidf:df")
    ap.add_argument("--skip", default="", help="comma list of corpora to skip: zipf,kos,20news")
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-hardness", action="store_true", help="skip the hardness checks")
    a = ap.parse_args(argv)
    from eigensparse.datasets import load_20news, load_kos
    from eigensparse.datasets.synthetic_corpus import make_zipf_corpus

    only = set(a.only.split(",")) if a.only else None
    skip = set(a.skip.split(",")) if a.skip else set()
    out = {}
    if "zipf" not in skip:
        d = a.zipf_dir or os.path.join(tempfile.gettempdir(), f"eigensparse-zipf-{a.zipf_scale:g}")
        path = os.path.join(d, "docword.zipf.txt.gz")
        t = time.perf_counter()
        c = make_zipf_corpus(d, scale=a.zipf_scale)
        print(f"zipf corpus scale {a.zipf_scale:g}: {c.n_docs:,} x {c.n_words:,}, {c.nnz:,} nonzeros, "
              f"generated in {c.seconds:.1f} s ({time.perf_counter() - t:.1f} s with setup)")
        out["zipf"] = {"n_docs": c.n_docs, "n_words": c.n_words, "nnz": c.nnz,
                       "generate_seconds": c.seconds}
        if not a.no_hardness:
            h = hardness(path, c.vocab, c.topics, cache_dir=os.path.join(d, "cache"))
            out["zipf"]["hardness"] = h
            print("hardness:", json.dumps(h))
        print(HEADER)
        out["zipf"]["rows"] = run_grid(path, c.vocab, planted=c.topics, only=only,
                                       cache_dir=os.path.join(d, "cache"))
    if "kos" not in skip:
        if a.kos_dir:
            src, voc = os.path.join(a.kos_dir, "docword.kos.txt.gz"), os.path.join(a.kos_dir, "vocab.kos.txt")
        else:
            b = load_kos()
            src, voc = b.data, b.feature_names
        print("KOS\n" + HEADER)
        out["kos"] = {"rows": run_grid(src, voc, only=only)}
    if "20news" not in skip:
        b = load_20news()
        print("20news_w100\n" + HEADER)
        out["20news"] = {"rows": run_grid(b.data.astype(float), b.feature_names, only=only)}
    for name, v in out.items():
        if v.get("rows"):
            print(f"\n{name} (reStructuredText)\n" + rst_table(v["rows"]))
    if a.json:
        from eigensparse.io._atomic import atomic_open

        with atomic_open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return out


if __name__ == "__main__":
    main()
