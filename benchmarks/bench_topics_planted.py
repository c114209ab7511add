"""Hidden planted topics: does ``eigensparse topics -k 5 -s 5`` find them? (issue #17)

Generates (once, into ``--dir``) a corpus of :func:`make_zipf_corpus` with
``mode="hidden"``: five planted topics of five co-occurring mid-frequency words whose
individual variances rank in the hundreds, below many frequent independent words, while
each topic has more variance than any five frequent words. Then, each in a fresh process
and from the ``.gz`` (cold, no cache) unless said otherwise:

- ``before``: ``working_set_rule="variance"``: the working set of the 1,000 words of
  largest variance and the per-topic solve set grown by variance;
- ``after``: :func:`eigensparse.text.extract_topics`'s defaults (the partner rule of
  the working set, :mod:`eigensparse.text._screen`, and the default method on all of it);
- ``am 2000``: ``method="am"`` with 2,000 starts on the same working set (the peer; from
  the cache of ``after``: its solve time is what compares).

Prints one row per run: corpus size, nonzeros, seconds per phase, planted-topic
precision, topics matched, and each topic's variance next to the planted topics' variance
(λmax of each planted topic's covariance, computed once per corpus).

Usage::

    python benchmarks/bench_topics_planted.py --n-docs 50000 --n-words 20000   # mid size
    python benchmarks/bench_topics_planted.py --scale 1                        # NYTimes size
    python benchmarks/bench_topics_planted.py --pubmed 0.0625 --variants after # PubMed shape
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

VARIANTS = ("before", "after", "am 2000")


def _child(args) -> None:
    import warnings

    warnings.simplefilter("ignore")
    from eigensparse.text import extract_topics

    rule = {"working_set_rule": "variance"} if args.variant == "before" else {}
    opts = {"n_starts": 2000} if args.variant == "am 2000" else None
    t = time.perf_counter()
    res = extract_topics(args.docword, args.vocab, n_topics=5, cardinality=5,
                         method="am" if args.variant == "am 2000" else None,
                         method_options=opts, cache_dir=args.cache_dir, progress=False, **rule)
    out = {"seconds": time.perf_counter() - t, "timings": res.timings,
           "topics": [[int(i) for i in tp.word_ids] for tp in res.topics],
           "variance": [float(tp.variance) for tp in res.topics]}
    print("RESULT " + json.dumps(out))


def _run(variant, docword, vocab, cache_dir) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--variant", variant,
           "--docword", docword, "--vocab", vocab, "--cache-dir", cache_dir]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit(f"child failed ({p.returncode}): {' '.join(cmd)}")
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def _planted_variance(docword, vocab, topics, cache_dir) -> list:
    """λmax of each planted topic's (tf-idf, centered) covariance, from one pass."""
    import numpy as np

    from eigensparse.io import open_corpus
    from eigensparse.text._passes import CorpusPasses

    corpus = open_corpus(docword, vocab, cache=True, cache_dir=cache_dir)
    passes = CorpusPasses(corpus, "tfidf")
    st = passes.statistics()
    ids = np.unique(np.concatenate(topics))
    G = passes.gram(ids, "planted words")
    mu = st["s1"][ids] / corpus.n_docs
    S = G - np.outer(mu, mu)
    out = []
    for t in topics:
        p = np.searchsorted(ids, t)
        out.append(float(np.linalg.eigvalsh(S[np.ix_(p, p)])[-1]))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--variant", default="after", choices=VARIANTS, help=argparse.SUPPRESS)
    ap.add_argument("--docword", help=argparse.SUPPRESS)
    ap.add_argument("--vocab", help=argparse.SUPPRESS)
    ap.add_argument("--cache-dir", help=argparse.SUPPRESS)
    ap.add_argument("--scale", type=float, default=None,
                    help="make_zipf_corpus scale (1: 300,000 × 102,660, ~80 M nonzeros)")
    ap.add_argument("--pubmed", type=float, default=None, metavar="F",
                    help="make_zipf_corpus(mode='pubmed', scale=F) instead of the hidden mode")
    ap.add_argument("--n-docs", type=int, default=50_000)
    ap.add_argument("--n-words", type=int, default=20_000)
    ap.add_argument("--random-state", type=int, default=1)
    ap.add_argument("--dir", default=None, help="where the corpus is generated (kept; default: "
                    "a temporary directory, removed)")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help=f"comma-separated subset of {', '.join(VARIANTS)}")
    args = ap.parse_args(argv)
    if args.child:
        return _child(args)
    import numpy as np

    from eigensparse.datasets.synthetic_corpus import make_zipf_corpus, topic_precision

    tmp = None
    d = args.dir
    if d is None:
        d = tmp = tempfile.mkdtemp(prefix="planted-")
    os.makedirs(d, exist_ok=True)
    try:
        truth = os.path.join(d, "planted_topics.json")
        if not os.path.exists(truth):
            kw = ({"scale": args.scale} if args.scale is not None
                  else {"n_docs": args.n_docs, "n_words": args.n_words})
            if args.pubmed is not None:  # the PubMed-shaped corpus at this fraction
                kw = {"scale": args.pubmed}
            c = make_zipf_corpus(d, name="hidden", mode="pubmed" if args.pubmed else "hidden",
                                 random_state=args.random_state, **kw)
            with open(truth, "w") as f:
                json.dump({"topics": [t.tolist() for t in c.topics], "nnz": c.nnz,
                           "n_docs": c.n_docs, "n_words": c.n_words}, f)
        meta = json.load(open(truth))
        topics = [np.asarray(t) for t in meta["topics"]]
        docword = glob.glob(os.path.join(d, "docword.hidden.txt.gz"))[0]
        vocab = os.path.join(d, "vocab.hidden.txt")
        rows = []
        for v in args.variants.split(","):
            v = v.strip()
            cache = os.path.join(d, "cache-after" if v == "am 2000" else f"cache-{v.replace(' ', '_')}")
            if v != "am 2000":
                shutil.rmtree(cache, ignore_errors=True)  # cold
            out = _run(v, docword, vocab, cache)
            pr = topic_precision(out["topics"], topics)
            rows.append((v, out, pr))
            print(f"  {v}: {out['seconds']:.1f} s, precision {pr['mean_precision']:.2f}",
                  file=sys.stderr)
        planted = _planted_variance(docword, vocab, topics, os.path.join(d, "cache-after"))
        size = f"{meta['n_docs']:,} × {meta['n_words']:,}"
        print(f"\nHidden planted topics — corpus {size}, {meta['nnz']:,} nonzeros, k=5, s=5 "
              "(seconds on this machine; compare rows of one run)\n")
        hdr = (f"{'run':9s} {'pass 1':>7s} {'screen':>7s} {'pass 2':>7s} {'solve':>7s} "
               f"{'total':>7s} {'prec.':>6s} {'matched':>7s}  topic variances")
        print(hdr)
        print("-" * len(hdr))
        for v, out, pr in rows:
            tm = out["timings"]
            p1 = tm.get("open", 0.0) + tm.get("pass 1: word statistics", 0.0)
            p2 = sum(x for k, x in tm.items() if k.startswith("pass 2"))
            print(f"{v:9s} {p1:7.1f} {tm.get('screening', 0.0):7.1f} {p2:7.1f} "
                  f"{tm.get('solve', 0.0):7.1f} {tm['total']:7.1f} {pr['mean_precision']:6.2f} "
                  f"{pr['n_distinct_matched']:>5d}/5  "
                  + " ".join(f"{x:.3e}" for x in out["variance"]))
        print(f"{'planted':9s} {'':>55s}  " + " ".join(f"{x:.3e}" for x in sorted(planted, reverse=True)))
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
