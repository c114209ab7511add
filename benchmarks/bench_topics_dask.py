#!/usr/bin/env python
"""Topics on a Dask cluster: the client's memory against the one-machine streamed run.

A synthetic corpus (``make_synthetic_corpus``, NYTimes vocabulary; ``--docs``
documents) is written once under ``--dir``; then, each in a fresh process (its peak
resident memory, ``VmHWM``; the Dask workers are other processes):

* ``streamed``: ``extract_topics(path)`` on one machine (no cache: one pass per phase);
* ``dask, workers read``: ``extract_topics(path, client=...)`` on a ``LocalCluster`` of
  2 worker processes × 1 thread: the workers read their documents of the file, the
  client receives word sums and working-set Gram pieces only;
* ``dask, client reads``: what the former integration did — the client reads the whole
  matrix (``read_uci_bow``) and places its blocks on the workers — for comparison.

Prints seconds, the client's peak memory, and whether the topics agree with the
streamed run. The machine may be shared: compare rows of one run.

Usage::

    python benchmarks/bench_topics_dask.py --docs 60000
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

K, S = 5, 5


def _peak_mib() -> float:
    """This process's peak resident memory (VmHWM: reset at exec, unlike ru_maxrss,
    which a child started by fork + exec inherits from its parent)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _child(mode, path, vocab):
    import warnings

    warnings.simplefilter("ignore")
    from eigensparse.text import extract_topics

    t0 = time.perf_counter()
    if mode == "streamed":
        res = extract_topics(path, vocab, n_topics=K, cardinality=S, cache=False, progress=False)
    else:
        import distributed

        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as cluster, \
                distributed.Client(cluster) as client:
            if mode == "dask-workers":
                res = extract_topics(path, vocab, n_topics=K, cardinality=S, client=client,
                                     progress=False)
            else:
                from eigensparse.io.uci import read_uci_bow

                X, words = read_uci_bow(path, vocab)
                res = extract_topics(X, words, n_topics=K, cardinality=S, client=client,
                                     progress=False)
    dt = time.perf_counter() - t0
    rss = _peak_mib()
    print(json.dumps({"mode": mode, "seconds": dt, "client_peak_mib": rss, "nnz": res.nnz,
                      "topics": [t.words for t in res.topics]}))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=60_000)
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "eigensparse-bench"))
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return _child(*args.child)
    from eigensparse.datasets.synthetic_corpus import make_synthetic_corpus

    d = os.path.join(args.dir, f"synthetic-{args.docs}")
    path = os.path.join(d, "docword.synthetic.txt.gz")
    vocab = os.path.join(d, "vocab.synthetic.txt")
    if not os.path.exists(path):
        make_synthetic_corpus(d, n_docs=args.docs, random_state=0)
    rows = []
    for mode in ("streamed", "dask-workers", "dask-client-reads"):
        out = subprocess.run([sys.executable, __file__, "--child", mode, path, vocab],
                             capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    ref = rows[0]["topics"]
    print(f"corpus: {args.docs:,} documents, {rows[0]['nnz']:,} nonzeros; k={K}, s={S}")
    print(f"{'run':<20} {'seconds':>8} {'client peak MiB':>16}  same topics")
    for r in rows:
        print(f"{r['mode']:<20} {r['seconds']:8.1f} {r['client_peak_mib']:16.0f}  "
              f"{r['topics'] == ref}")


if __name__ == "__main__":
    main()
