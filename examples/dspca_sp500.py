"""
S&P 500 returns: sectors as sparse components
=============================================

Daily log returns, June 2005 - June 2010 (handbook §4.3, Figs. 5-6).

Variance of the first sparse PC against its cardinality (the paper needs about 300 of 472 stocks
for 90% of PC 1's variance: no natural kink), the first two sparse PCs (cardinalities 32 and 26
in the paper, mostly Financials, then Energy/Materials) and the 2-D projections of the daily
returns on the top 2 PCs and on the top 2 sparse PCs.

Data: :func:`eigensparse.datasets.fetch_sp500` (downloads ``sp500.rda`` once; reading it
needs the ``pyreadr`` package: ``pip install pyreadr``). It is a superset of the paper's file;
stocks with missing values or constant prices in the window are dropped.

    python examples/dspca_sp500.py [OUT_DIR] [--data-home DIR]
"""
import argparse
from pathlib import Path

import numpy as np

import eigensparse as es
import eigensparse.plotting
from eigensparse.datasets import fetch_sp500
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


def fetch_or_none(fetch, **kwargs):
    """``fetch(**kwargs)``, or None (after printing how to supply the data) when the data set
    is neither cached nor downloadable (e.g. a machine without network)."""
    from eigensparse.datasets import DataUnavailableError

    try:
        return fetch(**kwargs)
    except (DataUnavailableError, ImportError) as exc:  # ImportError: an optional reader
        print(f"skipped: {exc}")
        return None


def main(argv=None):
    a = parse_args("S&P 500 returns: sectors as sparse components", argv)
    sp500 = fetch_or_none(fetch_sp500, start="2005-06-01", end="2010-06-01",
                          data_home=a.data_home)
    if sp500 is None:  # no network and no copy in the data home: nothing to show
        return
    names, X = sp500.feature_names, sp500.data
    print(f"{X.shape[0]} trading days x {X.shape[1]} stocks")
    op = es.as_operator(X)
    S = op.to_dense()
    w, V = np.linalg.eigh(S)
    lam1 = w[-1]
    path = variance_cardinality_path(op, min(300, X.shape[1]), method="approx_greedy",
                                     certificate=False, relaxation=False, penalized=False)
    k90 = int(np.argmax(path.variances >= 0.9 * lam1)) + 1 if np.any(path.variances >= 0.9 * lam1) \
        else None
    print(f"first sparse PC: cardinality needed for 90% of PC 1's variance: {k90} "
          f"(approximate greedy path)")
    res = es.sparse_pca(X, method="bca", n_components=2, cardinality=[32, 26],
                        deflation="schur")
    for t, (c, r) in enumerate(zip(res.components, res.results)):
        top = r.support[np.argsort(-np.abs(c[r.support]))]
        print(f"sparse PC {t + 1}: {r.cardinality} stocks, {r.variance / lam1:.1%} of PC 1's "
              f"variance (ρ={r.info['penalty']:.3g}, working set {r.info['working_set_size']}, "
              f"{r.info['n_penalties_tried']} penalties)")
        print("    " + ", ".join(names[i] for i in top))
    overlap = np.intersect1d(res.supports[0], res.supports[1]).size
    print(f"stocks shared by the two sparse PCs: {overlap}")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        P = op.dot(V[:, ::-1][:, :2])
        Z = op.dot(res.components.T)
        fig, axs = plt.subplots(1, 3, figsize=(14, 4))
        axs[0].plot(path.cardinalities, path.variances / lam1)
        axs[0].axhline(0.9, color="k", ls=":")
        axs[0].set_xlabel("cardinality")
        axs[0].set_ylabel("variance / variance of PC 1")
        axs[1].scatter(P[:, 0], P[:, 1], s=4)
        axs[1].set_title("PCA")
        axs[2].scatter(Z[:, 0], Z[:, 1], s=4)
        axs[2].set_title("sparse PCA (32 and 26 stocks)")
        fig.tight_layout()
        save_figure(fig, a.out, "sp500_dspca.png")
    except ImportError:
        print("matplotlib not installed: no plot")


if __name__ == "__main__":
    main()
