"""
Topics of 20 newsgroups with DSPCA
==================================

20 newsgroups, 100 words, 16242 postings (handbook §4.1, Table 1 and Figs. 1-2), bundled with
the package (:func:`eigensparse.datasets.load_20news`).

For each of the first three components: the smallest cardinality whose DSPCA sparse PC explains
at least 90% of the variance of the corresponding PC (the paper finds about 30, 26 and 10
words), the word lists, and the 3-D projection of the postings on the sparse PCs.

    python examples/dspca_20newsgroups.py [OUT_DIR]
"""
import argparse
from pathlib import Path

import numpy as np

import eigensparse as es
import eigensparse.plotting
from eigensparse.solvers import get_solver
from eigensparse.datasets import load_20news
from eigensparse.multi import deflate


def parse_args(description, argv=None):
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


def save_figure(fig, out, name):
    """Save ``fig`` as ``out/name`` (atomically) when an output folder was given."""
    if out is not None:
        print(f"saved {eigensparse.plotting.save_figure(fig, out / name)}")


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


def main(argv=None):
    a = parse_args("Topics of 20 newsgroups with DSPCA", argv)
    news = load_20news()
    X = news.data  # postings × words, binary
    words, labels, groups = news.feature_names, news.target, news.target_names
    op = es.as_operator(X)  # centered implicitly
    S = op.to_dense()
    cur = es.Covariance(S)
    comps, curves = [], []
    for t in range(3):
        s, r, lam1, path = smallest_cardinality_reaching(cur, 0.9)
        comps.append(r.loadings)
        curves.append((lam1, path))
        top = r.support[np.argsort(-np.abs(r.loadings[r.support]))]
        print(f"sparse PC {t + 1}: {s} words reach {r.variance / lam1:.1%} of PC {t + 1}'s "
              f"variance {lam1:.4g} (ρ={r.info['penalty']:.4g}, working set "
              f"{r.info['working_set_size']}, certified={r.info['certified']})")
        print("   ", ", ".join(words[i] for i in top))
        cur = es.Covariance(deflate(cur, r.loadings, "schur").to_dense())
    C = np.vstack(comps)
    scores = op.dot(C.T)  # projections of the centered, scaled data
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=(11, 4))
        ax = fig.add_subplot(1, 2, 1)
        for t, (lam1, path) in enumerate(curves):
            cards = [c for _, c, v, _ in path if c > 0]
            vars_ = [v / lam1 for _, c, v, _ in path if c > 0]
            ax.plot(cards, vars_, "o-", ms=3, label=f"sparse PC {t + 1}")
        ax.axhline(0.9, color="k", ls=":")
        ax.set_xlabel("cardinality")
        ax.set_ylabel("variance / variance of the PC")
        ax.legend()
        ax3 = fig.add_subplot(1, 2, 2, projection="3d")
        rng = np.random.default_rng(0)
        idx = rng.choice(scores.shape[0], 3000, replace=False)
        for g in np.unique(labels):
            m = idx[labels[idx] == g]
            ax3.scatter(scores[m, 0], scores[m, 1], scores[m, 2], s=3, label=groups[g - 1])
        ax3.set_xlabel("SPC1")
        ax3.set_ylabel("SPC2")
        ax3.set_zlabel("SPC3")
        ax3.legend(fontsize=7)
        fig.tight_layout()
        save_figure(fig, a.out, "20newsgroups_dspca.png")
    except ImportError:
        print("matplotlib not installed: no plot")


if __name__ == "__main__":
    main()
