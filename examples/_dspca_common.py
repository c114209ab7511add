"""Helpers shared by the DSPCA application scripts (handbook §4): the command line, data sets
that may need a download, a penalty path and the "cardinality reaching 90% of the PC's
variance" rule."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

from eigensparse.solvers import get_solver  # noqa: E402


def parse_args(description: str, argv=None):
    """``OUT_DIR`` (optional: where figures are saved) and ``--data-home`` (the folder of
    downloaded data sets, default ``$EIGENSPARSE_DATA`` or ``~/.cache/eigensparse``)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("out", nargs="?", default=None, help="folder for the figures (default: none)")
    ap.add_argument("--data-home", default=None,
                    help="folder of downloaded data sets (see eigensparse.datasets.get_data_home)")
    a = ap.parse_args(argv)
    if a.out is not None:
        a.out = Path(a.out)
        a.out.mkdir(parents=True, exist_ok=True)
    return a


def fetch_or_exit(fetch, **kwargs):
    """``fetch(**kwargs)``, or print how to supply the data and exit with status 0 when the
    data set is neither cached nor downloadable (e.g. a machine without network)."""
    from eigensparse.datasets import DataUnavailableError

    try:
        return fetch(**kwargs)
    except DataUnavailableError as exc:
        print(f"skipped: {exc}")
        sys.exit(0)
    except ImportError as exc:  # an optional reader (pyreadr, ...) is missing
        print(f"skipped: {exc}")
        sys.exit(0)


def save_figure(fig, out, name):
    """Save ``fig`` as ``out/name`` when an output folder was given."""
    if out is not None:
        fig.savefig(out / name, dpi=120)
        print(f"saved {out / name}")


def penalty_path(op, n=30, lo_frac=1e-3, method="bca"):
    """(penalty, cardinality, variance, result) for a geometric grid of ρ, largest first."""
    d = op.diag()
    rhos = np.geomspace(0.98 * d.max(), lo_frac * d.max(), n)
    solve = get_solver(method).func
    out = []
    for rho in rhos:
        r = solve(op, None, penalty=float(rho), certify=False)
        out.append((float(rho), r.cardinality, r.variance, r))
    return out


def smallest_cardinality_reaching(op, fraction=0.9, method="bca"):
    """Smallest cardinality s whose DSPCA component (penalty search, polished) explains at least
    ``fraction`` of λmax(Σ). Scans the penalty path for a bracket, then runs the search at the
    cardinalities in it. Returns (s, result, lam1, path)."""
    lam1 = float(np.linalg.eigvalsh(op.to_dense())[-1])
    path = penalty_path(op, method=method)
    cands = sorted({c for _, c, v, _ in path if c > 0 and v >= fraction * lam1})
    hi = cands[0] if cands else op.n_features
    lower = [c for _, c, v, _ in path if 0 < c < hi and v < fraction * lam1]
    lo = max(lower) + 1 if lower else 1
    solve = get_solver(method).func
    for s in range(lo, hi + 1):
        try:
            r = solve(op, s)
        except Exception:  # noqa: BLE001 - unreachable cardinality: skip
            continue
        if r.variance >= fraction * lam1:
            return s, r, lam1, path
    r = solve(op, hi)
    return hi, r, lam1, path
