"""The default method's certificate on real column subsets (issue #31's grid).

Problems: random column subsets of MNIST test images (``fetch_mnist``), leukemia (Golub,
``fetch_leukemia``) and KOS word counts (``load_kos``, bundled), p = 300 and 1000 (all
non-constant columns where there are fewer), covariance and correlation, s = 5, 10, 20.
A data set that is not available is skipped with the way to supply it.

Per problem: the default's variance, time (median of ``--repeats``; the fit and the first
read of its bound, which is computed then), the relative gap
(upper_bound − variance) / upper_bound it reports and the bound's name, and, in the same
run, the relative gap of the cheap bounds alone (min of the trace, Gershgorin partner and
λmax(Σ) bounds, λmax at every p; the default itself proves λmax only up to
``cholesky_bound_features``).
With ``--exact-time T``, ``method="exact"`` runs with ``max_time=T`` on the p = 1000
problems (MNIST: its 668 non-constant pixels) at s = 10 and 20 (certified or not, its gap
and time) and every bound is checked against a certified value (never below it).
With ``--exact-only`` only those 12 problems run, ``exact`` alone (``n_jobs=None``: both
cores once the tree is open after two seconds): per problem its wall and CPU time
(this process and its worker processes), certified or not, the final gap, the gap at the
root, the nodes and the variables removed at the root; the load average at the start and
the end (on a loaded machine the CPU column, not the wall time, says how much search a
problem got).

Usage: ``PYTHONPATH=src python benchmarks/bench_certificates.py [--data-home DIR]
[--repeats R] [--exact-time T] [--exact-only [--only PROBLEM ...]] [--threads N]``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import limit_threads, set_thread_env, unavailable_note  # noqa: E402

N_THREADS = set_thread_env(default=2)

import time  # noqa: E402

import numpy as np  # noqa: E402

import eigensparse as es  # noqa: E402
from eigensparse.bounds import full_problem_bound, lambda_max_upper_bound  # noqa: E402
from eigensparse.datasets import DataUnavailableError  # noqa: E402
from eigensparse.solvers import get_solver  # noqa: E402

SIZES = (300, 1000)
CARDS = (5, 10, 20)


def _datasets(data_home):
    from eigensparse.datasets import fetch_leukemia, fetch_mnist, load_kos

    for name, fetch in (("mnist", fetch_mnist), ("leukemia", fetch_leukemia),
                        ("kos", lambda data_home=None: load_kos())):
        try:
            X = fetch(data_home=data_home).data
        except (DataUnavailableError, OSError) as exc:
            print(f"{name}: {unavailable_note(exc).splitlines()[0]}")
            continue
        X = np.asarray(X.toarray() if hasattr(X, "toarray") else X, dtype=float)
        yield name, X[:, X.std(axis=0) > 0]


def problems(data_home):
    rng = np.random.default_rng(0)
    for name, X in _datasets(data_home):
        for size in SIZES:
            size = min(size, X.shape[1])
            C = np.cov(X[:, np.sort(rng.choice(X.shape[1], size, replace=False))], rowvar=False)
            d = np.sqrt(np.diag(C))
            for kind, S in (("cov", C), ("corr", C / np.outer(d, d))):
                for s in CARDS:
                    yield f"{name} {size} {kind}", S, s


def _gap(ub, v):
    return 100 * (ub - v) / ub


def _exact_problem(S, s):
    """The p = 1000 tier (MNIST has fewer non-constant pixels) at s = 10 and 20."""
    return S.shape[0] > SIZES[0] and s >= 10


def _cpu():
    import resource

    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def exact_only(args):
    """``exact`` alone on the 12 problems of :func:`_exact_problem` (see the docstring)."""
    import warnings

    exact = get_solver("exact").func
    T = args.exact_time if args.exact_time > 0 else 60.0
    print(f"threads: {N_THREADS}; exact max_time {T:g} s; gaps relative to the bound, %; "
          f"load average at the start {_load()} (a loaded machine leaves the search less "
          f"than max_time x cores of CPU: compare the cpu column)")
    print(f"{'problem':<20} {'s':>3} {'wall s':>7} {'cpu s':>7} {'cert':>4} {'gap':>6} "
          f"{'root':>6} {'nodes':>7} {'screened':>8} {'variance':>11}")
    n = n_cert = 0
    with limit_threads(N_THREADS):
        for name, S, s in problems(args.data_home):
            if not _exact_problem(S, s) or (args.only and not any(
                    f"{name} s{s}".startswith(o) for o in args.only)):
                continue
            t0, c0 = time.perf_counter(), _cpu()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                e = exact(es.Covariance(S), s, max_time=T, progress=False, random_state=0)
            te, ce = time.perf_counter() - t0, _cpu() - c0
            i = e.info
            rb = i.get("root_bound")
            root = _gap(max(rb, e.variance), e.variance) if rb is not None else float("nan")
            n += 1
            n_cert += bool(i["certified"])
            print(f"{name:<20} {s:>3} {te:>7.1f} {ce:>7.1f} {'yes' if i['certified'] else 'no':>4} "
                  f"{_gap(e.upper_bound, e.variance):>6.2f} {root:>6.2f} {i['nodes']:>7} "
                  f"{i['n_screened']:>8} {e.variance:>11.6g}", flush=True)
    print(f"\nexact (max_time {T:g} s): certified {n_cert} of {n}; load average at the end "
          f"{_load()}")


def _load():
    import os

    return "{:.1f}".format(os.getloadavg()[0]) if hasattr(os, "getloadavg") else "n/a"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="timed runs of the default")
    ap.add_argument("--data-home", default=None, help="the data home of the fetch_* loaders")
    ap.add_argument("--exact-time", type=float, default=0.0,
                    help="max_time of method='exact' on the p = 1000 tier, s >= 10 (0: not run)")
    ap.add_argument("--exact-only", action="store_true",
                    help="only method='exact' on the p = 1000, s >= 10 problems")
    ap.add_argument("--only", nargs="+", default=None, metavar="PROBLEM",
                    help="with --exact-only, only the problems whose 'name s<s>' starts with "
                         "one of these (e.g. 'kos 1000 cov s10' 'mnist 668 corr')")
    ap.add_argument("--threads", type=int, default=N_THREADS)
    args = ap.parse_args()
    if args.exact_only:
        return exact_only(args)
    auto, exact = get_solver("auto").func, get_solver("exact").func
    print(f"threads: {N_THREADS}; gaps relative to the bound, %")
    print(f"{'problem':<20} {'s':>3} {'variance':>11} {'t (s)':>7} {'gap':>6} {'cheap':>6}  "
          f"{'bound':<12} {'exact':>15}")
    gaps, cheap, times, n_exact, n_cert, below = [], [], [], 0, 0, 0
    with limit_threads(N_THREADS):
        for name, S, s in problems(args.data_home):
            op = es.Covariance(S)
            auto(op, s, random_state=0)  # compiled kernels loaded, caches warm
            ts = []
            for _ in range(max(1, args.repeats)):
                t0 = time.perf_counter()
                r = auto(op, s, random_state=0)
                r.upper_bound  # the bound is computed on first read: timed with the fit
                ts.append(time.perf_counter() - t0)
            ub0 = min(full_problem_bound(S, s)[0], lambda_max_upper_bound(S) or np.inf)
            gaps.append(_gap(r.upper_bound, r.variance))
            cheap.append(_gap(max(ub0, r.variance), r.variance))
            times.append(float(np.median(ts)))
            ex = ""
            if args.exact_time > 0 and _exact_problem(S, s):
                t0 = time.perf_counter()
                e = exact(op, s, max_time=args.exact_time)
                te = time.perf_counter() - t0
                n_exact += 1
                n_cert += bool(e.info.get("certified"))
                ex = f"{'yes' if e.info.get('certified') else 'no'} {_gap(e.upper_bound, e.variance):4.1f}% {te:5.1f}s"
                if e.info.get("certified") and r.upper_bound < e.variance * (1 - 1e-9):
                    below += 1
                    ex += " BOUND BELOW"
            print(f"{name:<20} {s:>3} {r.variance:>11.5g} {times[-1]:>7.3f} {gaps[-1]:>6.1f} "
                  f"{cheap[-1]:>6.1f}  {str(r.info.get('bound'))[:12]:<12} {ex:>15}", flush=True)
    print(f"\ndefault's gap: median {np.median(gaps):.1f}%, max {np.max(gaps):.1f}%, "
          f"<= 2% on {sum(g <= 2 for g in gaps)} of {len(gaps)}; cheap bounds alone: median "
          f"{np.median(cheap):.1f}%, max {np.max(cheap):.1f}%; default's time median "
          f"{np.median(times):.3f} s, max {np.max(times):.3f} s")
    if n_exact:
        print(f"exact (max_time {args.exact_time:g} s): certified {n_cert} of {n_exact}; "
              f"bounds below a certified value: {below}")


if __name__ == "__main__":
    main()
