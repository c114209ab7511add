"""Shared helpers for the benchmark scripts.

Import order matters for thread limits: call :func:`set_thread_env` *before*
numpy (or anything that imports it) is imported, so that OpenBLAS/MKL/OpenMP/numba
size their thread pools from the environment; :func:`limit_threads` then applies
threadpoolctl on top (for libraries already loaded).

Nothing here imports numpy at module level.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

#: environment variables read by the usual native thread pools
THREAD_ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                   "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
                   "NUMBA_NUM_THREADS")
#: marker so that child processes inherit the parent's choice instead of re-parsing argv
_MARKER = "EIGENSPARSE_BENCH_THREADS"

REPO_ROOT = Path(__file__).resolve().parents[1]


def set_thread_env(argv=None, default: int = 2) -> int:
    """Read ``--threads N`` from ``argv`` and export it to every native thread pool.

    Must run before numpy is imported. Child processes (which inherit the
    environment) reuse the parent's value.
    """
    if _MARKER in os.environ:
        n = int(os.environ[_MARKER])
    else:
        argv = sys.argv[1:] if argv is None else argv
        n = default
        for i, a in enumerate(argv):
            if a == "--threads" and i + 1 < len(argv):
                n = int(argv[i + 1])
            elif a.startswith("--threads="):
                n = int(a.split("=", 1)[1])
        if n < 1:
            raise SystemExit(f"--threads must be >= 1; got {n}")
    os.environ[_MARKER] = str(n)
    for var in THREAD_ENV_VARS:
        os.environ[var] = str(n)
    return n


def limit_threads(n: int):
    """threadpoolctl limit for BLAS and OpenMP pools already loaded (kept alive by the caller)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=n)


def thread_info() -> list[dict]:
    from threadpoolctl import threadpool_info

    return [{k: d.get(k) for k in ("user_api", "internal_api", "num_threads", "version")}
            for d in threadpool_info()]


def load_mnist(n_images: int = 5000):
    """First ``n_images`` MNIST test images as a float64 (n, 784) array in [0, 1]
    (:func:`eigensparse.datasets.fetch_mnist`: cached download, or a local copy in the data
    home; raises ``DataUnavailableError`` with the way to supply the files)."""
    from eigensparse.datasets import fetch_mnist

    return fetch_mnist().data[:n_images]


def unavailable_note(exc) -> str:
    """One paragraph for a data set a benchmark skips (the fetch message)."""
    return f"skipped (data not available): {exc}"


def data_with_correlation(C, n_samples: int, random_state=0):
    """Data X (n × p) whose sample correlation (and covariance XᵀX/(n-1)) is exactly C.

    Z is Gaussian, column-centered and orthonormalized (QR), so X = √(n-1)·Q·Lᵀ with
    C = LLᵀ has zero column means and XᵀX/(n-1) = C to rounding.
    """
    import numpy as np

    C = np.asarray(C, dtype=float)
    p = C.shape[0]
    rng = np.random.default_rng(random_state)
    Z = rng.standard_normal((n_samples, p))
    Z -= Z.mean(axis=0)
    Q, _ = np.linalg.qr(Z)
    L = np.linalg.cholesky(0.5 * (C + C.T))
    return np.sqrt(n_samples - 1) * Q @ L.T


def timed(fn, *, repeat_under: float = 30.0, budget: float = 3.0, max_runs: int = 5):
    """Run ``fn`` and return ``(result, best_seconds, all_seconds)``.

    A second run happens when the first took less than ``repeat_under`` seconds (the
    first may pay one-off costs such as JIT compilation); further runs while the total
    stays within ``budget`` seconds, up to ``max_runs``. The minimum is reported.
    """
    out, best, times, _ = timed_cpu(fn, repeat_under=repeat_under, budget=budget, max_runs=max_runs)
    return out, best, times


def timed_cpu(fn, *, repeat_under: float = 30.0, budget: float = 3.0, max_runs: int = 5):
    """:func:`timed` that also returns the CPU seconds of each run (this process, all threads):
    ``(result, best_seconds, all_seconds, all_cpu_seconds)``."""
    times, cpus = [], []

    def once():
        c0, t0 = time.process_time(), time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        return out

    out = once()
    if times[0] < repeat_under:
        while len(times) < max_runs:
            out = once()
            if sum(times) + min(times) > budget:
                break
    return out, min(times), times, cpus


def timed_interleaved(slow, fast, *, rounds: int = 3, fast_runs: int = 10):
    """Time a slow and a fast function in alternation (``rounds`` × (one ``slow`` run, then
    ``fast_runs`` ``fast`` runs)), so that both see the same machine state: a shared or
    throttled machine drifts by tens of percent over seconds, and a ratio of times taken
    minutes apart carries that drift. Returns, for each function, what :func:`timed_cpu`
    returns: ``(result, best_seconds, all_seconds, all_cpu_seconds)``."""
    acc = {"slow": ([], []), "fast": ([], [])}
    out = {}

    def once(name, fn):
        c0, t0 = time.process_time(), time.perf_counter()
        out[name] = fn()
        acc[name][0].append(time.perf_counter() - t0)
        acc[name][1].append(time.process_time() - c0)

    fast()  # warm-up (imports, compiled kernels), not timed
    for _ in range(rounds):
        once("slow", slow)
        for _ in range(fast_runs):
            once("fast", fast)
    return tuple((out[n], min(acc[n][0]), acc[n][0], acc[n][1]) for n in ("slow", "fast"))


def fmt_seconds(t) -> str:
    if t is None:
        return "-"
    if t >= 100:
        return f"{t:.0f}"
    if t >= 1:
        return f"{t:.2f}"
    if t >= 1e-3:
        return f"{t * 1e3:.1f}ms"
    return f"{t * 1e6:.0f}us"


def print_table(rows: list[dict], columns: list[tuple[str, str]], file=None) -> None:
    """Print ``rows`` (dicts) as a plain-text table; ``columns`` = [(key, header), ...]."""
    file = file or sys.stdout
    cells = [[str(r.get(k, "")) for k, _ in columns] for r in rows]
    heads = [h for _, h in columns]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, h in enumerate(heads)]
    line = "  ".join(h.ljust(w) for h, w in zip(heads, widths))
    print(line, file=file)
    print("  ".join("-" * w for w in widths), file=file)
    prev = None
    for r, c in zip(rows, cells):
        group = r.get(columns[0][0])
        if prev is not None and group != prev:
            print("", file=file)
        prev = group
        print("  ".join(v.ljust(w) for v, w in zip(c, widths)).rstrip(), file=file)


def atomic_write_json(path, obj) -> None:
    """Write ``obj`` as JSON to ``path`` via a temporary file and ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    from eigensparse.io._atomic import atomic_write_text

    atomic_write_text(path, json.dumps(obj, indent=2, default=_json_default, allow_nan=False) + "\n")


def _json_default(o):
    import numpy as np

    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"not JSON serializable: {type(o).__name__}")


def environment(threads: int) -> dict:
    """Versions and machine facts worth recording next to timings."""
    import importlib

    versions = {}
    for mod in ("numpy", "scipy", "sklearn", "abess", "numba", "threadpoolctl", "eigensparse"):
        try:
            versions[mod] = importlib.import_module(mod).__version__
        except Exception:  # noqa: BLE001 - optional
            versions[mod] = None
    import subprocess

    try:
        head = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = bool(subprocess.run(["git", "-C", str(REPO_ROOT), "status", "--porcelain",
                                     "--", "src"],
                                    capture_output=True, text=True, timeout=10).stdout.strip())
        git = f"{head}{'+dirty' if dirty else ''}" if head else None
    except (OSError, subprocess.SubprocessError):
        git = None
    return {
        "git": git,
        "threads": threads,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "versions": versions,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
