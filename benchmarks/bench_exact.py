"""Benchmark of ``method="exact"`` (certified branch and bound) on a grid of problems.

Prints, per problem: p, s, seconds, nodes, relative gap, certified, the exact value, the
exhaustive search's value and time (where C(p, s) <= 2e6) and the default method's value.
Data: the bundled pitprops correlation matrix, scikit-learn's breast-cancer correlation
matrix and digits covariance, and generated spiked / Wishart covariances only.

Usage: ``PYTHONPATH=src python benchmarks/bench_exact.py [--quick] [--max-time T]``.
"""
from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np

from eigensparse._api import DEFAULT_METHOD
from eigensparse.datasets import load_pitprops, make_spiked_covariance
from eigensparse.operators import Covariance
from eigensparse.solvers import get_solver
from eigensparse.solvers._exact import ExactSearchWarning, exact
from eigensparse.solvers._exhaustive import exhaustive


def _spiked(p, s, n, signal, seed=0):
    X, _, _ = make_spiked_covariance(n, p, support_size=s, signal=signal, random_state=seed)
    return np.cov(X, rowvar=False)


def _wishart(p, n, seed=0):
    A = np.random.default_rng(seed).standard_normal((n, p))
    return A.T @ A / n


def problems(quick: bool):
    from sklearn.datasets import load_breast_cancer, load_digits

    bc = np.corrcoef(load_breast_cancer().data, rowvar=False)
    yield "breast_cancer corr", bc, [5, 10]
    yield "wishart n=2p", _wishart(30, 60), [5, 8]
    yield "spiked (default gen.)", _spiked(100, 20, 200, 5.0), [10]
    if not quick:
        yield "digits cov", np.cov(load_digits().data, rowvar=False), [5, 10]
        yield "spiked (default gen.)", _spiked(300, 20, 200, 5.0), [5]
        yield "spiked n=1000 snr=5", _spiked(300, 5, 1000, 5.0), [5]
        yield "spiked n=200 snr=1.5", _spiked(100, 10, 200, 1.5), [10]
        yield "spiked n=200 snr=1.5", _spiked(300, 5, 200, 1.5), [5]


def _row(name, p, s, r, t, ex, default):
    ex_val, ex_t = ex if ex is not None else (float("nan"), float("nan"))
    i = r.info
    print(f"{name:<22} {p:>4} {s:>3} {t:>8.2f} {i['nodes']:>8} {i['relative_gap']:>9.1e} "
          f"{str(i['certified']):>5} {r.variance:>13.9f} {ex_val:>13.9f} {ex_t:>8.2f} "
          f"{default:>13.9f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small grid only")
    ap.add_argument("--max-time", type=float, default=60.0, help="seconds per exact solve")
    ap.add_argument("--n-jobs", type=int, default=1)
    args = ap.parse_args()
    default_solver = get_solver(DEFAULT_METHOD).func
    print(f"{'problem':<22} {'p':>4} {'s':>3} {'time_s':>8} {'nodes':>8} {'rel_gap':>9} "
          f"{'cert':>5} {'exact':>13} {'exhaustive':>13} {'exh_s':>8} {DEFAULT_METHOD:>13}")
    S = np.asarray(load_pitprops().data, dtype=float)
    t0, nodes, cert = time.perf_counter(), 0, True
    for s in range(1, 14):
        r = exact(Covariance(S), s, progress=False, n_jobs=args.n_jobs)
        nodes, cert = nodes + r.info["nodes"], cert and r.info["certified"]
    print(f"{'pitprops s=1..13 total':<22} {13:>4} {'all':>3} {time.perf_counter() - t0:>8.2f} "
          f"{nodes:>8} {'':>9} {str(cert):>5}")
    for name, S, sizes in problems(args.quick):
        op = Covariance(S)
        p = S.shape[0]
        for s in sizes:
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExactSearchWarning)
                r = exact(op, s, random_state=0, progress=False, max_time=args.max_time,
                          n_jobs=args.n_jobs)
            t = time.perf_counter() - t
            ex = None
            if math.comb(p, s) <= 2_000_000:
                te = time.perf_counter()
                e = exhaustive(op, s)
                ex = (e.variance, time.perf_counter() - te)
            _row(name, p, s, r, t, ex, default_solver(op, s, random_state=0).variance)


if __name__ == "__main__":
    main()
