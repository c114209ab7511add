"""
Pitprops: sparse components of a correlation matrix
===================================================

Jeffers' pitprops (1967): the correlation matrix of 13 properties of 180 pitprops, bundled
with the package (:func:`eigensparse.datasets.load_pitprops`).

The classic sparse-PCA benchmark: six sparse components by DSPCA (block coordinate ascent with a
penalty search for each target cardinality), their loadings, variances, upper bounds and
optimality certificates, and the variance-versus-cardinality curve of the first component with
the upper bounds of handbook Fig. 7 (exhaustive search is cheap at p = 13, so the true optimum is
drawn too).

    python examples/dspca_pitprops.py [OUT_DIR]
"""
from itertools import combinations

import argparse
from pathlib import Path

import numpy as np

import eigensparse as es
import eigensparse.plotting
from eigensparse.datasets import load_pitprops
from eigensparse.diagnostics import variance_cardinality_path


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


def main(argv=None):
    a = parse_args("Pitprops: sparse components of a correlation matrix", argv)
    pitprops = load_pitprops()
    C, NAMES = pitprops.data, pitprops.feature_names
    op = es.Covariance(C, n_samples=pitprops.n_samples)
    cards = [7, 2, 3, 1, 1, 1]  # the SPCA cardinalities of Zou, Hastie & Tibshirani (2006)
    res = es.sparse_pca(op, method="bca", n_components=6, cardinality=cards)
    print("(variance on Σ; the upper bound and certificate concern the deflated matrix each "
          "solve saw)")
    print("component  card  variance  adj.var.  upper bound  certified  support")
    for t, r in enumerate(res.results):
        sup = ", ".join(NAMES[i] for i in r.support)
        print(f"{t + 1:9d} {r.cardinality:5d} {res.variances[t]:9.3f} "
              f"{res.explained_variance[t]:9.3f} {r.upper_bound:12.3f} {str(r.info['certified']):>10}"
              f"  {sup}")
    print(f"cumulative adjusted variance: {res.explained_variance.sum() / 13:.1%} of the total")
    path = variance_cardinality_path(op, 13, method="greedy")
    exact = [max(np.linalg.eigvalsh(C[np.ix_(I, I)])[-1] for I in combinations(range(13), k))
             for k in range(1, 14)]
    print(" k  greedy  exhaustive  best bound  certified")
    for k in range(13):
        print(f"{k + 1:2d} {path.variances[k]:7.3f} {exact[k]:11.3f} {path.upper_bounds[k]:11.3f}"
              f"  {path.certified[k]}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        ax = path.plot()
        ax.plot(path.cardinalities, exact, "g:", label="exhaustive")
        ax.legend(fontsize=8)
        ax.set_title("pitprops: first sparse PC")
        ax.figure.tight_layout()
        save_figure(ax.figure, a.out, "pitprops_path.png")
    except ImportError:
        print("matplotlib not installed: no plot")


if __name__ == "__main__":
    main()
