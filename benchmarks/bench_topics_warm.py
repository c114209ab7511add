#!/usr/bin/env python
"""The second (cached) ``eigensparse topics`` run of a corpus: process wall and CPU seconds.

Runs ``python -m eigensparse topics DOCWORD VOCAB --cache-dir DIR`` in fresh processes,
``--repeats`` times (after one run that builds the cache if it is missing, not timed),
and prints per run the wall seconds, the CPU seconds (user + system of the process and
its threads), the load average, then the median and spread and the issue-30 check
(a cached run <= 3 s wall on 2 cores at ``--pubmed 1``). With ``--baseline SRC`` (the
``src`` folder of another checkout) the two trees alternate, run by run, and their
topics and total bounds are compared: on a shared machine only such interleaved ratios
and CPU seconds mean much.

``--pycache DIR`` runs the children with their bytecode cached in DIR (as an installed
package has it; where ``PYTHONDONTWRITEBYTECODE`` is set, every run compiles the
package's modules again).

Usage::

    python benchmarks/bench_topics_warm.py --docword /data/pubmed/docword.zipf.txt.gz \\
        --vocab /data/pubmed/vocab.zipf.txt --cache-dir /data/pubmed/cache --repeats 5
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET_WALL = 3.0


def _run(src, args, env):
    cmd = [sys.executable, "-m", "eigensparse", "topics", args.docword, args.vocab,
           "--cache-dir", args.cache_dir, "-k", str(args.k), "-s", str(args.s)]
    env = {**env, "PYTHONPATH": src}
    before = os.times()
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = os.times()
    if out.returncode != 0:
        sys.exit(f"{src}: exit {out.returncode}\n{out.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system
                                                           - before.children_system)
    total = re.search(r"bound on any .*? ([0-9.e+-]+) \(gap", out.stdout)
    words = [w for line in out.stdout.splitlines() if re.match(r"^\s+[+−]\S", line)
             for w in re.findall(r"([+−]\S+) [0-9.]+", line)]
    return {"wall": wall, "cpu": cpu, "load": os.getloadavg()[0],
            "bound": total.group(1) if total else "-", "words": words}


def _summary(label, runs):
    w = [r["wall"] for r in runs]
    c = [r["cpu"] for r in runs]
    print(f"{label:<10} wall median {statistics.median(w):6.2f} s (min {min(w):.2f}, max "
          f"{max(w):.2f})   CPU median {statistics.median(c):5.2f} s (min {min(c):.2f}, max "
          f"{max(c):.2f})   total bound {runs[-1]['bound']}")
    return statistics.median(w), statistics.median(c)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docword", required=True)
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("-k", dest="k", type=int, default=5)
    ap.add_argument("-s", dest="s", type=int, default=5)
    ap.add_argument("--baseline", help="the src folder of another checkout, run alternately")
    ap.add_argument("--pycache", help="cache the children's bytecode in this folder")
    args = ap.parse_args(argv)
    env = dict(os.environ)
    if args.pycache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.abspath(args.pycache)
    trees = {"this": os.path.join(os.path.dirname(HERE), "src")}
    if args.baseline:
        trees["baseline"] = os.path.abspath(args.baseline)
    for src in trees.values():  # builds the cache (and the bytecode) when missing: untimed
        _run(src, args, env)
    runs = {k: [] for k in trees}
    for i in range(args.repeats):
        for label, src in trees.items():
            r = _run(src, args, env)
            runs[label].append(r)
            print(f"run {i + 1} {label:<9} wall {r['wall']:6.2f} s  CPU {r['cpu']:5.2f} s  "
                  f"load {r['load']:.1f}", flush=True)
    print(f"\nbytecode: {'cached in ' + args.pycache if args.pycache else 'as the environment has it'}"
          f" (PYTHONDONTWRITEBYTECODE={env.get('PYTHONDONTWRITEBYTECODE', 'unset')}); "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    wall, _ = _summary("this", runs["this"])
    if args.baseline:
        bw, bc = _summary("baseline", runs["baseline"])
        same = runs["this"][-1]["words"] == runs["baseline"][-1]["words"]
        print(f"this / baseline: wall {wall / bw:.2f}x, CPU "
              f"{statistics.median(r['cpu'] for r in runs['this']) / bc:.2f}x; same topic words: {same}")
    print(f"cached run <= {TARGET_WALL:g} s wall (issue 30, PubMed size, 2 idle cores): "
          f"{'met' if wall <= TARGET_WALL else 'NOT met'} ({wall:.2f} s)")


if __name__ == "__main__":
    main()
