"""Benchmark of ``method="exact"`` (certified branch and bound): time and nodes per instance.

Prints one row per instance and run: p, s, seconds, nodes, relative gap, certified, value.

Instances. With ``--data-home DIR`` (a directory holding
``certified/certified_spca_matrices.npz`` and the ``fetch_*`` datasets): the published
correlation and covariance matrices (ionosphere, geographic, MiniBooNE, communities p=101,
arrhythmia p=274) at s = 5, 10, 20, correlation matrices of random 100-variable subsets of
leukemia, senate and MNIST at s = 10, and, as stand-ins for a published p = 466 matrix,
correlation matrices of the 466 highest-variance columns of leukemia, senate and MNIST
and of 466 random leukemia genes at s = 20 (not with ``--quick``). Always: correlation matrices of random 72-word
subsets of the bundled KOS corpus (words in >= 50 documents) and the weak spike of
``make_spiked_covariance`` (n=200, p=100, s=10, signal 1.5) at s = 10; without a data
directory also pitprops, scikit-learn's breast-cancer correlation and digits covariance.

Comparisons, in the same run (timings on a shared machine are only comparable within
one run):

- ``--compare-ref REF``: every instance also with the code of git ref REF (exported with
  ``git archive`` to a temporary directory and run in a subprocess), e.g. ``main``;
- ``--n-jobs N`` (N > 1): every instance with one worker, then N processes, then N
  threads;
- ``--dask`` (with ``--n-jobs N``): also ``backend="dask"`` on a
  ``distributed.LocalCluster`` of N worker processes x 1 thread (started once, before
  the first instance, its workers warmed by a small search: their start-up is not in the
  times).

Usage::

    PYTHONPATH=src python benchmarks/bench_exact.py [--data-home DIR] [--max-time 60]
        [--compare-ref main] [--n-jobs 2 [--dask]] [--only NAME[,NAME...]] [--quick]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings

import numpy as np


def _corr(X):
    X = np.asarray(X, dtype=float)
    X = X[:, X.std(axis=0) > 0]
    return np.corrcoef(X, rowvar=False)


def _spike(seed):
    from eigensparse.datasets import make_spiked_covariance

    X = make_spiked_covariance(200, 100, support_size=10, signal=1.5, random_state=seed)[0]
    return np.cov(X, rowvar=False)


def _kos_subsets(n=3, size=72, min_docs=50):
    from eigensparse.datasets import load_kos

    X = load_kos().data.tocsc()
    df = np.asarray((X > 0).sum(axis=0)).ravel()
    frequent = np.flatnonzero(df >= min_docs)
    for seed in range(n):
        idx = np.sort(np.random.default_rng(seed).choice(frequent, size, replace=False))
        yield f"kos{size} seed{seed}", (lambda idx=idx: _corr(X[:, idx].toarray())), [10]


def instances(data_home, quick):
    """(name, zero-argument function returning Σ, cardinalities), in a fixed order."""
    if data_home:
        z = os.path.join(data_home, "certified", "certified_spca_matrices.npz")
        keys = ["ionosphere_corr", "geographic_corr", "geographic_cov", "miniboone_corr",
                "miniboone_cov", "communities_corr", "communities_cov", "arrhythmia_corr",
                "arrhythmia_cov"]
        if quick:
            keys = ["communities_corr", "arrhythmia_corr"]
        for key in keys:
            yield key, (lambda key=key: np.load(z)[key]), [5, 10, 20]
        from eigensparse.datasets import _fetch

        for name in ("leukemia", "senate", "mnist"):
            fetch = getattr(_fetch, f"fetch_{name}")
            for seed in range(1 if quick else 2):
                def make(fetch=fetch, seed=seed):
                    Y = np.asarray(fetch(data_home=data_home).data, dtype=float)
                    Y = Y[:, Y.std(axis=0) > 0]
                    idx = np.sort(np.random.default_rng(seed).choice(Y.shape[1], 100,
                                                                     replace=False))
                    return _corr(Y[:, idx])
                yield f"{name}100 seed{seed}", make, [10]
        if not quick:
            # stand-ins for the published p = 466 correlation matrix at s = 20: the 466
            # highest-variance columns of each data set, and 466 random leukemia genes
            for name in ("leukemia", "senate", "mnist"):
                fetch = getattr(_fetch, f"fetch_{name}")

                def make466(fetch=fetch, rand=False):
                    Y = np.asarray(fetch(data_home=data_home).data, dtype=float)
                    Y = Y[:, Y.std(axis=0) > 0]
                    if rand:
                        idx = np.random.default_rng(0).choice(Y.shape[1], 466, replace=False)
                    else:
                        idx = np.argsort(-Y.var(axis=0), kind="stable")[:466]
                    return _corr(Y[:, np.sort(idx)])
                yield f"{name}466 topvar", make466, [20]
                if name == "leukemia":
                    yield "leukemia466 rand0", (lambda fetch=fetch: make466(fetch, True)), [20]
    else:
        from sklearn.datasets import load_breast_cancer, load_digits

        from eigensparse.datasets import load_pitprops

        yield "pitprops", lambda: np.asarray(load_pitprops().data, dtype=float), [5, 10]
        yield "breast_cancer corr", lambda: _corr(load_breast_cancer().data), [5, 10]
        if not quick:
            yield "digits cov", lambda: np.cov(load_digits().data, rowvar=False), [5, 10]
    yield from _kos_subsets(1 if quick else 3)
    for seed in range(1 if quick else 3):
        yield f"spike sig1.5 seed{seed}", (lambda seed=seed: _spike(seed)), [10]


def solve(S, s, max_time, n_jobs, backend, client=None):
    from eigensparse.operators import Covariance
    from eigensparse.solvers._exact import exact

    kw = dict(random_state=0, progress=False, max_time=max_time, n_jobs=n_jobs)
    if n_jobs > 1:
        kw["backend"] = backend
    if backend == "dask":
        kw["client"] = client
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = exact(Covariance(S), s, **kw)
    return {"time": time.perf_counter() - t, "nodes": int(r.info["nodes"]),
            "gap": float(r.info["relative_gap"]), "certified": bool(r.info["certified"]),
            "value": float(r.variance)}


def _runs(n_jobs, dask=False):
    yield 1, "-"
    if n_jobs > 1:
        yield n_jobs, "processes"
        yield n_jobs, "threads"
        if dask:
            yield n_jobs, "dask"


def _warm_worker():
    """On a worker: import eigensparse and load its compiled kernels (a small search)."""
    from eigensparse.operators import Covariance
    from eigensparse.solvers._exact import exact

    S = np.cov(np.random.default_rng(0).standard_normal((60, 30)), rowvar=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact(Covariance(S), 6, n_jobs=1, progress=False, screen=False)


def _dask_client(n_workers):
    """A client on a LocalCluster of ``n_workers`` worker processes x 1 thread, whose
    workers have imported eigensparse (so that no time below counts their start)."""
    import distributed

    cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1,
                                       processes=True, dashboard_address=":0")
    client = distributed.Client(cluster, set_as_default=False)
    client.wait_for_workers(n_workers, timeout=120)
    client.run(_warm_worker)
    return cluster, client


def worker(args):
    """Run every instance (this process's eigensparse), one JSON line per run."""
    dask = args.dask and args.n_jobs > 1
    cluster, client = _dask_client(args.n_jobs) if dask else (None, None)
    try:
        for name, make, sizes in instances(args.data_home, args.quick):
            if args.only and not any(o in name for o in args.only.split(",")):
                continue
            S = make()
            for s in sizes:
                if s >= S.shape[0]:
                    continue
                for n_jobs, backend in _runs(args.n_jobs, dask):
                    row = {"name": name, "p": S.shape[0], "s": s, "n_jobs": n_jobs,
                           "backend": backend,
                           **solve(S, s, args.max_time, n_jobs, backend, client)}
                    print(json.dumps(row), flush=True)
    finally:
        if client is not None:
            client.close()
            cluster.close()


def _export(ref, dest):
    """The ``src`` tree of git ref ``ref`` under ``dest``."""
    root = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "rev-parse",
                           "--show-toplevel"], capture_output=True,
                          text=True, check=True).stdout.strip()
    os.makedirs(dest, exist_ok=True)
    tar = os.path.join(dest, "src.tar")
    subprocess.run(["git", "-C", root, "archive", "-o", tar, ref, "src"], check=True)
    with tarfile.open(tar) as f:
        f.extractall(dest, filter="data")
    return os.path.join(dest, "src")


def _print(label, row):
    print(f"{row['name']:<22} {row['p']:>4} {row['s']:>3} {label:<10} {row['n_jobs']:>2} "
          f"{row['backend']:<9} {row['time']:>8.2f} {row['nodes']:>8} {row['gap']:>9.1e} "
          f"{str(row['certified']):>5} {row['value']:>16.9g}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-home", help="directory with certified/ and the fetch_* datasets")
    ap.add_argument("--max-time", type=float, default=60.0, help="seconds per exact solve")
    ap.add_argument("--n-jobs", type=int, default=1,
                    help="N > 1: also N processes and N threads per instance")
    ap.add_argument("--dask", action="store_true",
                    help="with --n-jobs N: also backend='dask' on a LocalCluster of N worker "
                         "processes x 1 thread")
    ap.add_argument("--compare-ref", metavar="REF", help="also run the code of git ref REF")
    ap.add_argument("--only", help="instances whose name contains one of these (comma list)")
    ap.add_argument("--quick", action="store_true", help="a few instances only")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    print(f"{'instance':<22} {'p':>4} {'s':>3} {'code':<10} {'nj':>2} {'backend':<9} "
          f"{'time_s':>8} {'nodes':>8} {'rel_gap':>9} {'cert':>5} {'value':>16}")
    labels = [("HEAD", None)]
    if args.compare_ref:
        labels.insert(0, (args.compare_ref, args.compare_ref))
    with tempfile.TemporaryDirectory() as tmp:
        streams = []
        for label, ref in labels:
            env = dict(os.environ)
            if ref is not None:
                env["PYTHONPATH"] = _export(ref, os.path.join(tmp, "ref"))
            cmd = [sys.executable, os.path.abspath(__file__), "--worker",
                   "--max-time", str(args.max_time), "--n-jobs", str(args.n_jobs)]
            for flag, value in (("--data-home", args.data_home), ("--only", args.only)):
                if value:
                    cmd += [flag, value]
            if args.quick:
                cmd.append("--quick")
            if args.dask and ref is None:  # a ref without the dask backend skips it
                cmd.append("--dask")
            streams.append((label, cmd, env))
        outputs = {}
        for label, cmd, env in streams:  # one code version after the other
            outputs[label] = []
            p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True,
                                 stdin=subprocess.DEVNULL)
            for line in p.stdout:
                outputs[label].append(json.loads(line))
                _print(label, outputs[label][-1])
            p.wait()
    if args.compare_ref:
        print(f"\n{'instance':<22} {'s':>3} {'nj':>2} {'backend':<9} "
              f"{args.compare_ref + ' s':>10} {'nodes':>8} {'cert':>5} {'HEAD s':>8} "
              f"{'nodes':>8} {'cert':>5}")
        key = (lambda r: (r["name"], r["s"], r["n_jobs"], r["backend"]))
        before = {key(r): r for r in outputs[args.compare_ref]}
        for r in outputs["HEAD"]:
            b = before.get(key(r))
            if b is None:
                continue
            print(f"{r['name']:<22} {r['s']:>3} {r['n_jobs']:>2} {r['backend']:<9} "
                  f"{b['time']:>10.2f} {b['nodes']:>8} {str(b['certified']):>5} "
                  f"{r['time']:>8.2f} {r['nodes']:>8} {str(r['certified']):>5}")

if __name__ == "__main__":
    main()
