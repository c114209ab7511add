"""Support stability on KOS: time of ``support_stability`` (20 bootstrap refits) against one
fit, sequential and in parallel (joblib threads / processes), and the stability per topic.

    PYTHONPATH=src python benchmarks/bench_stability.py [--threads 1] [--resamples 20]

Target (issue 14): 20 resamples in <= 10x the time of one fit. Prints one table row per
configuration: seconds, ratio to one fit (measured in the same run), per-topic stability.
"""
from _common import set_thread_env  # noqa: I001  (thread limits before numpy)

import argparse
import time

set_thread_env(default=1)

import numpy as np  # noqa: E402

import eigensparse as es  # noqa: E402
from eigensparse.datasets import load_kos  # noqa: E402
from eigensparse.stability import support_stability  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--resamples", type=int, default=20)
    ap.add_argument("-k", type=int, default=5)
    ap.add_argument("-s", type=int, default=5)
    a = ap.parse_args()
    b = load_kos()
    X = b.data.astype(np.float64)
    kw = dict(n_components=a.k, cardinality=a.s, center=False)
    es.sparse_pca(X, random_state=0, **kw)  # warm-up (numba, caches)
    t = []
    for seed in range(3):
        t0 = time.perf_counter()
        es.sparse_pca(X, random_state=seed, **kw)
        t.append(time.perf_counter() - t0)
    one = float(np.median(t))
    print(f"KOS {X.shape[0]}x{X.shape[1]}, k={a.k}, s={a.s}, uncentered; one fit: {one:.3f} s "
          f"(median of 3)")
    print(f"{'configuration':32s} {'seconds':>8s} {'x one fit':>9s}  stability per topic")
    ref = None
    for n_jobs, backend in ((1, "threads"), (2, "threads"), (2, "processes")):
        t0 = time.perf_counter()
        r = support_stability(X, a.k, a.s, n_resamples=a.resamples, center=False, n_jobs=n_jobs,
                              backend=backend, random_state=0)
        sec = time.perf_counter() - t0
        same = "" if ref is None else ("  (same as n_jobs=1)" if np.array_equal(
            ref.frequencies, r.frequencies) else "  (DIFFERS from n_jobs=1)")
        ref = r if ref is None else ref
        print(f"{f'{a.resamples} bootstrap, n_jobs={n_jobs} {backend}':32s} {sec:8.2f} "
              f"{sec / one:9.1f}  {' '.join(f'{v:.2f}' for v in r.stability)}{same}")
    for j in range(a.k):
        words = [b.feature_names[i] for i in ref.reference.supports[j]]
        freq = ref.frequencies[j, ref.reference.supports[j]]
        print(f"topic {j + 1}: stability {ref.stability[j]:.2f}  "
              + ", ".join(f"{w} {f:.2f}" for w, f in zip(words, freq)))


if __name__ == "__main__":
    main()
