"""The default method beyond 256 features, against 2,000 random starts of ``am``.

Problems (the acceptance grid of issue #17):

- random column subsets of real data, p = 300, 600, 1000 (where the data has them),
  covariance and correlation matrices, s = 5, 10, 20: leukemia (Golub; 72 × 7129),
  MNIST test images (10,000 × 717 non-constant pixels) and the 109th US Senate's votes
  (``eigensparse.datasets.fetch_*``: a cached download or a local copy in the data home;
  a data set that is not available is skipped with the way to supply it);
- a planted spike: 10 unit-variance features with pairwise correlation 0.12 among
  1000, 300 of them louder (variance 1.7) and independent (covariance and correlation);
- correlation matrices of overlapping factor groups (p = 320 and 640);
- wide data, where Σ is not formed (a data operator): leukemia's 7,129 genes from 72
  samples (covariance and correlation), and a correlated group of 10 among 3,000
  features of mixed scales from 100 samples (correlation; its variances tie and, with
  p/n = 30, Σ's leading eigenvectors are noise).

Per problem: the default's value and time (median of ``--repeats`` runs), ``am`` with
2,000 starts (value, time; the same run, one thread each), the default's relative
difference, and its bound's relative gap. The summary counts the problems where the
default reaches am's value (to 1e-9, relative), the worst shortfall, and the median of
am's time over the default's.

Usage: ``PYTHONPATH=src python benchmarks/bench_global.py [--quick] [--repeats R]
[--data-home DIR] [--threads N]``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import limit_threads, set_thread_env, unavailable_note  # noqa: E402

N_THREADS = set_thread_env(default=1)

import time  # noqa: E402

import numpy as np  # noqa: E402

import eigensparse as es  # noqa: E402
from eigensparse.datasets import DataUnavailableError  # noqa: E402
from eigensparse.solvers import get_solver  # noqa: E402

SIZES = (300, 600, 1000)
CARDS = (5, 10, 20)
AM_STARTS = 2000


def _real(data_home, quick):
    from eigensparse.datasets import fetch_leukemia, fetch_mnist, fetch_senate

    out = []
    for name, fetch in (("leukemia", fetch_leukemia), ("mnist", fetch_mnist),
                        ("senate", fetch_senate)):
        try:
            X = np.asarray(fetch(data_home=data_home).data, dtype=float)
        except (DataUnavailableError, OSError) as exc:
            print(f"{name}: {unavailable_note(exc).splitlines()[0]}")
            continue
        X = X[:, X.std(axis=0) > 0]
        out.append((name, X))
    rng = np.random.default_rng(0)
    for name, X in out:
        for size in SIZES[:1] if quick else SIZES:
            if size > X.shape[1]:
                continue
            Y = X[:, np.sort(rng.choice(X.shape[1], size, replace=False))]
            Y = Y[:, Y.std(axis=0) > 0]
            C = np.cov(Y, rowvar=False)
            d = np.sqrt(np.diag(C))
            yield f"{name} {size} cov", C
            yield f"{name} {size} corr", C / np.outer(d, d)


def hidden_spike(seed, p=1000, k=10, loud=300, n=5000, rho=0.12, loud_var=1.7):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    X[:, :loud] *= np.sqrt(loud_var)
    support = np.sort(rng.choice(np.arange(loud, p), k, replace=False))
    f = rng.standard_normal(n)
    X[:, support] = np.sqrt(1 - rho) * X[:, support] + np.sqrt(rho) * f[:, None]
    return np.cov(X, rowvar=False), support


def factor_correlation(seed, p, n_groups=12, n=400):
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((n, n_groups))
    L = np.zeros((n_groups, p))
    for g in range(n_groups):
        members = rng.choice(p, rng.integers(6, 25), replace=False)
        L[g, members] = rng.uniform(0.3, 1.0, members.size) * rng.choice([-1, 1], members.size)
    return np.corrcoef(F @ L + rng.standard_normal((n, p)), rowvar=False)


def _wide(data_home, quick):
    from eigensparse.datasets import fetch_leukemia, make_correlated_group

    try:
        X = np.asarray(fetch_leukemia(data_home=data_home).data, dtype=float)
    except (DataUnavailableError, OSError) as exc:
        print(f"leukemia: {unavailable_note(exc).splitlines()[0]}")
    else:
        X = X[:, X.std(axis=0) > 0]
        for scale in (False, True):
            for s in CARDS:
                yield (f"leukemia {X.shape[1]} {'corr' if scale else 'cov'} (data)",
                       es.as_operator(X, scale=scale), s, None)
    for seed in range(1 if quick else 3):
        X, support = make_correlated_group(random_state=seed)
        yield f"wide group {seed} corr (data)", es.as_operator(X, scale=True), 10, support


def problems(data_home, quick):
    for name, S in _real(data_home, quick):
        for s in CARDS:
            yield name, S, s, None
    for seed in range(1 if quick else 3):
        C, support = hidden_spike(seed)
        d = np.sqrt(np.diag(C))
        yield f"planted spike {seed} cov", C, 10, support
        yield f"planted spike {seed} corr", C / np.outer(d, d), 10, support
    for p in (320,) if quick else (320, 640):
        for s in (5, 10, 20):
            yield f"factor corr {p}", factor_correlation(p, p), s, None
    yield from _wide(data_home, quick)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smallest sizes only")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs of the default")
    ap.add_argument("--data-home", default=None, help="the data home of the fetch_* loaders")
    ap.add_argument("--threads", type=int, default=N_THREADS)
    args = ap.parse_args()
    auto, am = get_solver("auto").func, get_solver("am").func
    print(f"threads: {N_THREADS}; am: {AM_STARTS} starts")
    print(f"{'problem':<26} {'p':>5} {'s':>3} {'default':>13} {'t (s)':>7} {'am':>13} "
          f"{'t (s)':>7} {'diff %':>8} {'gap %':>6} {'planted':>7}")
    reached, total, worst, ratios = 0, 0, 0.0, []
    with limit_threads(N_THREADS):
        for name, S, s, planted in problems(args.data_home, args.quick):
            op = S if isinstance(S, es.Operator) else es.Covariance(S)
            auto(op, s, random_state=0)  # compiled kernels loaded, caches warm
            times = []
            for _ in range(max(1, args.repeats)):
                t0 = time.perf_counter()
                r = auto(op, s, random_state=0)
                times.append(time.perf_counter() - t0)
            t_auto = float(np.median(times))
            t0 = time.perf_counter()
            a = am(op, s, n_starts=AM_STARTS, random_state=0)
            t_am = time.perf_counter() - t0
            diff = (r.variance / a.variance - 1) * 100
            gap = (r.upper_bound - r.variance) / r.upper_bound * 100
            found = "" if planted is None else str(bool(np.array_equal(r.support, planted)))
            total += 1
            reached += r.variance >= a.variance * (1 - 1e-9)
            worst = min(worst, diff)
            ratios.append(t_am / t_auto)
            print(f"{name:<26} {op.n_features:>5} {s:>3} {r.variance:>13.6g} {t_auto:>7.3f} "
                  f"{a.variance:>13.6g} {t_am:>7.2f} {diff:>+8.3f} {gap:>6.1f} {found:>7}",
                  flush=True)
    print(f"\ndefault >= am ({AM_STARTS} starts) on {reached} of {total}; worst {worst:+.3f}%; "
          f"am's time / the default's: median {np.median(ratios):.0f}x "
          f"(min {np.min(ratios):.0f}x, max {np.max(ratios):.0f}x)")


if __name__ == "__main__":
    main()
