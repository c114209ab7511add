"""Topic certificates on KOS (issue #31's topic rows).

1. ``eigensparse topics --dataset kos -k 5 -s 5`` (the defaults): per topic its variance,
   bound, relative gap and bound's name, and the run's wall and CPU time. With
   ``--exact-time T``, ``method="exact"`` (``max_time=T``) on each topic's problem over the
   working set (the words the other topics leave): the best variance it finds and its own
   gap, which says how far a bound on the working set can get within T seconds.
2. ``--method bipartite --scaling count --min-df 1 --max-df 1.0``, k = 8, s = 15: the total
   found, ``total_upper_bound`` and their gap; and, in the same run, the CPU time of
   :func:`eigensparse.bounds.total_upper_bound` on that working set at the default cap and
   at 2000 features, and of its joint row-shift dual alone, beside the soft-threshold Ky Fan
   bound.

``--working-set M ...`` repeats row 1 with those working-set sizes (the words left out of
the working set, known only by their variances, put a floor under a topic's gap).

Usage: ``PYTHONPATH=src python benchmarks/bench_topic_certificates.py [--exact-time T]
[--skip-bipartite] [--working-set M ...] [--threads N]``.
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import set_thread_env  # noqa: E402

N_THREADS = set_thread_env(default=2)

import time  # noqa: E402

import numpy as np  # noqa: E402

import eigensparse as es  # noqa: E402
from eigensparse.bounds import total_upper_bound  # noqa: E402
from eigensparse.bounds._kyfan import kyfan_total_bound  # noqa: E402
from eigensparse.datasets import load_kos  # noqa: E402
from eigensparse.text import extract_topics  # noqa: E402


def _run(kos, **kw):
    t, c = time.perf_counter(), time.process_time()
    res = extract_topics(kos.data, kos.feature_names, progress=False, random_state=0, **kw)
    return res, time.perf_counter() - t, time.process_time() - c


def topics_default(kos, exact_time, working_set=None):
    kw = {} if working_set is None else {"working_set": working_set}
    res, wall, cpu = _run(kos, n_topics=5, cardinality=5, **kw)
    what = "defaults" if working_set is None else f"working set {working_set}"
    print(f"KOS topics -k 5 -s 5 ({what}): wall {wall:.2f} s, CPU {cpu:.2f} s")
    print(f"{'topic':>5} {'variance':>10} {'bound':>10} {'gap %':>6}  bound")
    pos = {w: i for i, w in enumerate(res.working_set)}
    S = np.asarray(res.covariance)
    for j, t in enumerate(res.topics):
        r = t.result
        gap = 100 * (r.upper_bound - t.variance) / r.upper_bound
        line = f"{t.rank:>5} {t.variance:>10.6g} {r.upper_bound:>10.6g} {gap:>6.2f}  {r.info['bound'][:48]}"
        bb = r.info.get("branch_bound")
        if bb:  # the branch and bound's block, the cardinalities it proved, a better topic
            line += f" [block {bb['block']}, proven k={bb['proven']}" + (
                f", a better topic {bb['better']:.6g}]" if bb["better"] else "]")
        if exact_time:
            others = {pos[i] for k, q in enumerate(res.topics) if k != j for i in q.word_ids}
            free = np.array([i for i in range(S.shape[0]) if i not in others])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e = es.sparse_pca(es.Covariance(S[np.ix_(free, free)]), n_components=1,
                                  cardinality=t.cardinality, method="exact",
                                  max_time=exact_time, random_state=0).results[0]
            line += (f" | exact {exact_time:g} s on the working set: {e.variance:.6g}, "
                     f"gap {100 * (e.upper_bound - e.variance) / e.upper_bound:.2f}%")
        print(line)
    print(f"worst gap {max(100 * t.result.gap / t.result.upper_bound for t in res.topics):.2f}% "
          "(acceptance: every topic <= 5%)\n")


def topics_bipartite(kos):
    res, wall, cpu = _run(kos, n_topics=8, cardinality=15, method="bipartite", scaling="count",
                          min_df=1, max_df=1.0)
    found, ub = res.total_found, res.total_upper_bound
    print(f"KOS bipartite k=8 s=15 (count, no pruning): wall {wall:.2f} s, CPU {cpu:.2f} s")
    print(f"total found {found:.4f}, total_upper_bound {ub:.4f}, gap {100 * (ub - found) / ub:.2f}% "
          "(acceptance: <= 10%)")
    op = es.Covariance(np.asarray(res.covariance))
    left = np.ones(res.word_variance.size, dtype=bool)
    left[res.working_set] = False
    outside = res.word_variance[left]
    support = np.flatnonzero(np.any(np.asarray(res.components)[:, res.working_set] != 0, axis=0))
    for cap in (None, 2000):
        kw = {} if cap is None else {"max_working_set": cap}
        c = time.process_time()
        b = total_upper_bound(op, [15] * 8, outside=outside, value=found, support=support, **kw)
        print(f"  total_upper_bound, cap {cap or 'default'}: {b:.4f} in {time.process_time() - c:.2f} s CPU")
    c = time.process_time()
    b = kyfan_total_bound(op, [15] * 8, outside, value=found, support=support)
    print(f"  of which the joint row-shift dual: {b:.4f} in {time.process_time() - c:.2f} s CPU; "
          f"the soft-threshold families: {_threshold_only(op, outside):.4f}")


def _threshold_only(op, outside):
    """total_upper_bound's bounds other than the joint row-shift dual (cardinality 1 has
    none: the same bound at s_j = 15 is the least of the soft-threshold and trace ones)."""
    from eigensparse.bounds._threshold import _scan

    scan = _scan(op, [15] * 8, np.asarray(outside, dtype=float), 500, 12)
    return min(float(np.maximum(w, 0.0).sum()) + r * 120 for r, w in scan)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exact-time", type=float, default=0.0)
    ap.add_argument("--skip-bipartite", action="store_true")
    ap.add_argument("--working-set", type=int, nargs="*", default=[],
                    help="also run the -k 5 -s 5 rows with these working-set sizes")
    ap.add_argument("--threads", type=int, default=N_THREADS)
    args = ap.parse_args(argv)
    kos = load_kos()
    topics_default(kos, args.exact_time)
    for m in args.working_set:
        topics_default(kos, args.exact_time, m)
    if not args.skip_bipartite:
        topics_bipartite(kos)


if __name__ == "__main__":
    main()
