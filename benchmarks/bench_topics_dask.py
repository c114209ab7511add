#!/usr/bin/env python
"""Topics on a Dask cluster: wall time and the client's memory against the local cold run.

A corpus (``--docword``/``--vocab``, or a synthetic one: ``make_zipf_corpus`` shaped like
PubMed, 8.2M documents × 141,043 words × ``--scale``) is read, each run in a fresh
process with a fresh binary cache (its peak resident memory, ``VmHWM``; the Dask
workers are other processes):

* ``local``: ``extract_topics(path)`` on this machine (cold: the first pass builds the
  cache, the other passes read it, pass 2 on ``n_jobs=2`` threads);
* ``dask N``: ``extract_topics(path, client=...)`` on a ``LocalCluster`` of N worker
  processes × 1 thread (``--workers``, default ``1,2``): one worker builds the cache,
  every worker reads its documents of it at each pass, the client receives word sums
  and working-set Gram pieces only (cluster start-up included in the seconds);
* ``dask 2, client reads`` (``--client-reads``): the client reads the whole matrix
  (``read_uci_bow``) and places its blocks on the workers, for comparison.

Prints, per run, the process wall time (imports and cluster start-up included), the
seconds of ``extract_topics`` alone, the client's peak memory, and whether the topics
agree with the local run; then the issue-30 targets: the 2-worker run within 1.5× of the
local cold run, its client within 0.5 GB. The machine may be shared: compare rows of one
run (the load average is printed).

Usage::

    python benchmarks/bench_topics_dask.py --pubmed 0.0625   # bench_text_scale's corpus
    python benchmarks/bench_topics_dask.py --pubmed 1 --dir /data/pubmed   # its --dir
    python benchmarks/bench_topics_dask.py --scale 0.0625
    python benchmarks/bench_topics_dask.py --docword docword.pubmed.txt.gz --vocab vocab.pubmed.txt
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


def _child(mode, path, vocab, cache_dir):
    vocab = vocab or None
    import warnings

    warnings.simplefilter("ignore")
    from eigensparse.text import extract_topics

    t0 = time.perf_counter()
    if mode == "local":
        res = extract_topics(path, vocab, n_topics=K, cardinality=S, cache_dir=cache_dir,
                             progress=False)
    else:
        import distributed

        n = int(mode.split("-")[1])
        with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                      dashboard_address=":0") as cluster, \
                distributed.Client(cluster) as client:
            startup = time.perf_counter() - t0
            if not mode.endswith("client"):
                res = extract_topics(path, vocab, n_topics=K, cardinality=S, client=client,
                                     cache_dir=cache_dir, progress=False)
            else:
                from eigensparse.io.uci import read_uci_bow

                X, words = read_uci_bow(path, vocab)
                res = extract_topics(X, words, n_topics=K, cardinality=S, client=client,
                                     progress=False)
            workers_cpu = sum(client.run(_cpu_seconds).values())
    dt = time.perf_counter() - t0
    rss = _peak_mib()
    timings = dict(res.timings)
    if mode != "local":
        timings["cluster start-up"] = startup
    print(json.dumps({"mode": mode, "seconds": dt, "client_peak_mib": rss, "nnz": res.nnz,
                      "topics": [t.words for t in res.topics], "timings": timings,
                      "client_cpu": _cpu_seconds(),
                      "workers_cpu": workers_cpu if mode != "local" else 0.0}))


def _cpu_seconds() -> float:
    """CPU seconds (user + system) of this process, all threads."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _phase_rows(rows) -> None:
    """Wall seconds of each phase, one column per run, then the CPU seconds."""
    names = []
    for r in rows:
        names += [k for k in r.get("timings", {}) if k not in names and not k.startswith("topic ")]
    print(f"{'phase (wall s)':<28}" + "".join(f"{r['mode']:>12}" for r in rows))
    for k in names:
        print(f"{k[:28]:<28}" + "".join(f"{r.get('timings', {}).get(k, float('nan')):12.2f}"
                                         for r in rows))
    print(f"{'CPU s: client process':<28}" + "".join(f"{r.get('client_cpu', 0):12.1f}" for r in rows))
    print(f"{'CPU s: workers':<28}" + "".join(f"{r.get('workers_cpu', 0):12.1f}" for r in rows))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docword")
    ap.add_argument("--vocab")
    ap.add_argument("--scale", type=float, default=1 / 64, help="of the PubMed-shaped corpus")
    ap.add_argument("--pubmed", type=float, default=None, metavar="F",
                    help="the corpus of bench_text_scale.py --pubmed F (generated there once)")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--client-reads", action="store_true")
    ap.add_argument("--dir", default=None,
                    help="where the corpus is generated (with --pubmed: bench_text_scale.py's "
                         "--dir, whose corpus is reused when it matches)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return _child(*args.child)
    path, vocab = args.docword, args.vocab
    if path is None and args.pubmed:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import bench_text_scale as bts

        meta = bts._corpus(argparse.Namespace(
            dir=args.dir or os.path.join(tempfile.gettempdir(), f"eigensparse-pubmed-{args.pubmed:g}"),
            pubmed=args.pubmed, seed=0, generator="zipf", scale=1.0, docs=0, words=0,
            nnz_per_doc=0, progress=False))
        path, vocab = meta["docword"], meta["vocab"]
    if path is None:
        from eigensparse.datasets.synthetic_corpus import make_zipf_corpus

        d = os.path.join(args.dir or os.path.join(tempfile.gettempdir(), "eigensparse-bench"),
                         f"pubmed-2-{args.scale:g}")  # mode="pubmed" (generator 2)
        path = os.path.join(d, "docword.pubmed.txt.gz")
        vocab = os.path.join(d, "vocab.pubmed.txt")
        if not os.path.exists(path):
            make_zipf_corpus(d, name="pubmed", mode="pubmed", scale=args.scale)
    modes = ["local"] + [f"dask-{n}" for n in args.workers.split(",")]
    modes += ["dask-2-client"] if args.client_reads else []
    rows = []
    for mode in modes:
        with tempfile.TemporaryDirectory(prefix="eigensparse-cache-") as cache_dir:
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, __file__, "--child", mode, path, vocab or "",
                                  cache_dir], capture_output=True, text=True, check=True)
            wall = time.perf_counter() - t0
        rows.append({**json.loads(out.stdout.strip().splitlines()[-1]), "wall": wall})
    ref, local = rows[0]["topics"], rows[0]["wall"]
    print(f"corpus: {path}: {rows[0]['nnz']:,} nonzeros; k={K}, s={S}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'run':<20} {'wall s':>8} {'x local':>8} {'topics s':>9} {'client peak MiB':>16}  "
          "same topics")
    for r in rows:
        print(f"{r['mode']:<20} {r['wall']:8.1f} {r['wall'] / local:8.2f} {r['seconds']:9.1f} "
              f"{r['client_peak_mib']:16.0f}  {r['topics'] == ref}")
    for r in rows:
        if r["topics"] != ref:
            print(f"{r['mode']} topics: " + "; ".join(", ".join(t) for t in r["topics"]))
    _phase_rows(rows)
    two = [r for r in rows if r["mode"] == "dask-2"]
    if two:
        r = two[0]
        print(f"dask-2 against the local cold run: {r['wall'] / local:.2f}x (target <= 1.5x), "
              f"client peak {r['client_peak_mib']:.0f} MiB (target <= 512 MiB)")


if __name__ == "__main__":
    main()
