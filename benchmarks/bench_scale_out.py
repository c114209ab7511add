#!/usr/bin/env python
"""Scale-out: the Dask operator against in-memory, and batched ``am`` on array-API devices.

Part 1 — Dask overhead. The same fits on the same data held three ways:

* ``in-memory``: ``SparseData`` (scipy CSR in this process);
* ``dask local``: ``DaskData`` over ``dask.array`` row blocks on the local threaded
  scheduler (no cluster);
* ``dask cluster``: ``DaskData`` on a ``LocalCluster`` of 2 worker processes × 1 thread
  talking TCP over loopback (the corpus is read by ``from_uci_chunks``, straight into
  the workers).

Per backend: ``build`` (operator construction: persisting the blocks and the one-graph
variance pass), one ``Σv`` (b = 1) and one ``Σ·V`` with b = 256, a ``tpower`` fit
(k = 5, s = 10) and a batched ``am`` fit (1 component, 256 starts, s = 10), and the
largest |difference| of the components from the in-memory ones. Data: KOS (bundled,
3430 × 6906) and a synthetic corpus written by ``make_synthetic_corpus`` (NYTimes
vocabulary of 102,660 words; ``--corpus-docs`` documents, 50,000 by default;
``--corpus-docs 300000`` is the NYTimes scale, ~70 M nonzeros). The corpus is cached
under ``--cache`` (default ``$TMPDIR/eigensparse-bench``).

Part 2 — batched alternating maximization (256 starts, s = 10, one block of 256
columns, full products) on an n × p float32 matrix (a Gaussian matrix with a planted
sparse spike): NumPy (``DenseData``, float64), PyTorch CPU float32 through
``ArrayAPIData`` (the same solver code), and a CUDA GPU (PyTorch or CuPy) when one is
visible; otherwise the GPU row says that no GPU was lent. The issue's size is
10,000 × 100,000; the default here is ``--am-shape 2000 20000`` because one iteration
at full size is ~1 TFLOP (minutes per fit on a 2-core machine; 4 GB float32 plus an
8 GB float64 copy for NumPy).

Usage::

    python benchmarks/bench_scale_out.py                     # defaults above
    python benchmarks/bench_scale_out.py --quick             # small corpus, small AM matrix
    python benchmarks/bench_scale_out.py --corpus-docs 300000 --json out/scale.json
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import set_thread_env  # noqa: E402  (no numpy import)

THREADS = set_thread_env()

import argparse  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from _common import (atomic_write_json, environment, fmt_seconds, limit_threads,  # noqa: E402
                     print_table, timed)

K_TPOWER, S = 5, 10
AM_STARTS = 256


def _parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--corpus-docs", type=int, default=50_000)
    ap.add_argument("--corpus-words", type=int, default=102_660)
    ap.add_argument("--no-corpus", action="store_true", help="KOS only")
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "eigensparse-bench"))
    ap.add_argument("--am-shape", type=int, nargs=2, default=(2000, 20000), metavar=("N", "P"))
    ap.add_argument("--am-max-iter", type=int, default=200)
    ap.add_argument("--no-am", action="store_true")
    ap.add_argument("--quick", action="store_true",
                    help="corpus of 5000 documents × 20000 words, AM on 1000 × 5000")
    ap.add_argument("--json", help="write the rows as JSON here")
    args = ap.parse_args(argv)
    if args.quick:
        args.corpus_docs, args.corpus_words = 5000, 20_000
        args.am_shape = (1000, 5000)
    return args


# ------------------------------------------------------------------ part 1: Dask
def _fits(op, ref=None):
    from eigensparse import sparse_pca

    out = {}
    res, t, _ = timed(lambda: sparse_pca(op, n_components=K_TPOWER, cardinality=S, method="tpower",
                                         random_state=0), repeat_under=5, budget=10, max_runs=2)
    out["tpower"], out["tpower_res"] = t, res
    res, t, _ = timed(lambda: sparse_pca(op, n_components=1, cardinality=S, method="am",
                                         n_starts=AM_STARTS, random_state=0),
                      repeat_under=5, budget=10, max_runs=2)
    out["am"], out["am_res"] = t, res
    return out


def _products(op):
    rng = np.random.default_rng(0)
    v = rng.standard_normal(op.n_features)
    V = rng.standard_normal((op.n_features, 256))
    _, t1, _ = timed(lambda: op.matvec(v), budget=2, max_runs=5)
    _, t256, _ = timed(lambda: op.matmat(V), budget=5, max_runs=3)
    return t1, t256


def _row(dataset, backend, build, prods, fits, base):
    r = {"dataset": dataset, "backend": backend, "build": fmt_seconds(build),
         "matvec": fmt_seconds(prods[0]), "matmat256": fmt_seconds(prods[1]),
         "tpower": fmt_seconds(fits["tpower"]), "am256": fmt_seconds(fits["am"]),
         "seconds": {"build": build, "matvec": prods[0], "matmat256": prods[1],
                     "tpower": fits["tpower"], "am256": fits["am"]}}
    if base is None:
        r["overhead"] = "1.0x / 1.0x"
        r["max_diff"] = "-"
    else:
        r["overhead"] = (f"{fits['tpower'] / base['tpower']:.1f}x / {fits['am'] / base['am']:.1f}x")
        d = max(float(np.abs(fits["tpower_res"].components - base["tpower_res"].components).max()),
                float(np.abs(fits["am_res"].components - base["am_res"].components).max()))
        r["max_diff"] = f"{d:.1e}"
        r["max_abs_diff"] = d
    return r


def bench_dask(args, rows):
    import dask.array as da
    from distributed import Client, LocalCluster

    from eigensparse.datasets import load_kos
    from eigensparse.io import read_uci_bow
    from eigensparse.operators import SparseData
    from eigensparse.io.dask_chunks import from_uci_chunks
    from eigensparse.operators.dask import DaskData

    datasets = [("kos", lambda: (load_kos().data, None))]
    if not args.no_corpus:
        from eigensparse.datasets.synthetic_corpus import make_synthetic_corpus

        name = f"syn{args.corpus_docs}x{args.corpus_words}"
        path = os.path.join(args.cache, f"docword.{name}.txt.gz")
        if not os.path.exists(path):
            print(f"[corpus] writing {args.corpus_docs} documents x {args.corpus_words} words "
                  f"to {args.cache} ...", flush=True)
            c = make_synthetic_corpus(args.cache, name=name, n_docs=args.corpus_docs,
                                      n_words=args.corpus_words, random_state=0,
                                      n_threads=args.threads)
            print(f"[corpus] {c.nnz} nonzeros in {c.seconds:.0f} s", flush=True)
        vocab = os.path.join(args.cache, f"vocab.{name}.txt")
        datasets.append((name, lambda path=path, vocab=vocab: (read_uci_bow(path, vocab)[0], path)))

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=":0") as cluster, \
            Client(cluster, set_as_default=False) as client:
        # workers import the library once, outside every timing
        client.run(lambda: __import__("eigensparse.operators.dask").__name__)
        for name, load in datasets:
            X, path = load()
            print(f"[{name}] {X.shape[0]} x {X.shape[1]}, {X.nnz} nonzeros", flush=True)
            t0 = time.perf_counter()
            ref = SparseData(X)
            build = time.perf_counter() - t0
            base = _fits(ref)
            rows.append(_row(name, "in-memory", build, _products(ref), base, None))
            print_table(rows[-1:], COLS)
            rows_per_block = max(1000, X.shape[0] // 8)

            t0 = time.perf_counter()
            op = DaskData(da.from_array(X, chunks=(rows_per_block, -1), asarray=False))
            build = time.perf_counter() - t0
            rows.append(_row(name, "dask local", build, _products(op), _fits(op), base))
            print_table(rows[-1:], COLS)
            del op

            t0 = time.perf_counter()
            if path is None:
                Xd = da.from_array(X, chunks=(rows_per_block, -1), asarray=False)
                how = "dask cluster"
            else:
                Xd = from_uci_chunks(path, client=client,
                                     chunk_nnz=max(200_000, X.nnz // 8))
                how = "dask cluster (read by chunks)"
            op = DaskData(Xd, client=client)
            build = time.perf_counter() - t0
            rows.append(_row(name, how, build, _products(op), _fits(op), base))
            print_table(rows[-1:], COLS)
            del op, X, ref


# ------------------------------------------------------------------ part 2: batched am
def _spiked(n, p, rng):
    """float32 Gaussian n × p with a planted spike on 10 features."""
    X = rng.standard_normal((n, p), dtype=np.float32)
    supp = rng.choice(p, S, replace=False)
    z = rng.standard_normal(n).astype(np.float32)
    X[:, supp] += 3.0 * z[:, None]
    return X, np.sort(supp)


def _am_fit(op, max_iter):
    from eigensparse.solvers import get_solver

    am = get_solver("am").func
    return am(op, S, n_starts=AM_STARTS, strategy="all", screen=False, max_iter=max_iter,
              random_state=0)


def _gpu():
    """(description, namespace maker) of a visible CUDA device, or (None, reason)."""
    try:
        import torch

        if torch.cuda.is_available():
            return f"torch cuda ({torch.cuda.get_device_name(0)})", \
                lambda X: torch.asarray(X, device="cuda")
    except ImportError:
        pass
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return "cupy cuda", lambda X: cupy.asarray(X)
    except Exception:  # noqa: BLE001 - no CuPy, no driver
        pass
    return None, "no GPU lent to this task (no CUDA device visible)"


def bench_am(args, rows):
    from eigensparse.operators import DenseData
    from eigensparse.operators._xp import ArrayAPIData

    n, p = args.am_shape
    rng = np.random.default_rng(0)
    X, supp = _spiked(n, p, rng)
    print(f"[am] {n} x {p} float32 ({X.nbytes / 2**20:.0f} MiB), {AM_STARTS} starts, s={S}", flush=True)
    base = None

    def add(backend, make):
        nonlocal base
        try:
            t0 = time.perf_counter()
            op = make()
            build = time.perf_counter() - t0
            res, t, _ = timed(lambda: _am_fit(op, args.am_max_iter), repeat_under=10, budget=20,
                              max_runs=2)
        except Exception as exc:  # noqa: BLE001 - report, do not stop the benchmark
            rows.append({"dataset": f"am {n}x{p}", "backend": backend, "am256": "failed",
                         "note": f"{type(exc).__name__}: {exc}"[:120]})
            print_table(rows[-1:], AM_COLS)
            return
        r = {"dataset": f"am {n}x{p}", "backend": backend, "build": fmt_seconds(build),
             "am256": fmt_seconds(t), "iters": int(res.n_iter),
             "found": "yes" if set(res.support) == set(supp) else "no",
             "seconds": {"build": build, "am256": t}}
        if base is None:
            base = (t, res)
            r["speedup"] = "1.0x"
        else:
            r["speedup"] = f"{base[0] / t:.1f}x"
            r["max_diff"] = f"{float(np.abs(res.loadings - base[1].loadings).max()):.1e}"
        rows.append(r)
        print_table(rows[-1:], AM_COLS)

    add("numpy (float64)", lambda: DenseData(X))
    try:
        import torch

        torch.set_num_threads(args.threads)
        add("torch cpu float32", lambda: ArrayAPIData(torch.asarray(X)))
    except ImportError:
        rows.append({"dataset": f"am {n}x{p}", "backend": "torch cpu float32",
                     "am256": "-", "note": "torch not installed"})
    desc, make = _gpu()
    if desc is None:
        rows.append({"dataset": f"am {n}x{p}", "backend": "gpu", "am256": "-", "note": make})
        print_table(rows[-1:], AM_COLS)
    else:
        add(desc + " float32", lambda: ArrayAPIData(make(X)))


COLS = [("dataset", "dataset"), ("backend", "backend"), ("build", "build"),
        ("matvec", "Σv"), ("matmat256", "Σ·V (b=256)"), ("tpower", "tpower k=5"),
        ("am256", "am 256 starts"), ("overhead", "overhead tpower/am"),
        ("max_diff", "max |Δ comp|")]
AM_COLS = [("dataset", "dataset"), ("backend", "backend"), ("build", "build"),
           ("am256", "am 256 starts"), ("iters", "iterations"), ("speedup", "speed-up"),
           ("found", "spike found"), ("max_diff", "max |Δ x|"), ("note", "note")]


def main(argv=None):
    args = _parse(argv)
    _keep = limit_threads(args.threads)  # noqa: F841
    rows, am_rows = [], []
    bench_dask(args, rows)
    print()
    print_table(rows, COLS)
    if not args.no_am:
        print()
        bench_am(args, am_rows)
        print()
        print_table(am_rows, AM_COLS)
    if args.json:
        atomic_write_json(args.json, {"environment": environment(args.threads),
                                      "dask": rows, "am": am_rows,
                                      "args": {k: v for k, v in vars(args).items()}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
