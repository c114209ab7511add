"""
Senate votes: a few bills separate the parties
==============================================

Roll calls of the 109th US Senate (handbook §4.2, Figs. 3-4), downloaded once by
:func:`eigensparse.datasets.fetch_senate` (without network: put ``senateVoting.mat`` in the
data home, see the message printed when it is missing).

Senators are points, bills are features (votes coded +1 yea, -1 nay, 0 other). The first two
sparse principal components of small cardinality (5 and 2 in the paper) still separate the
parties; the script prints the bills they use, the variance against cardinality of the first
sparse PC, and saves the 2-D projections (PCA and sparse PCA) as a PNG.

    python examples/dspca_senate.py [OUT_DIR] [--data-home DIR] [--cards 5,2]
"""
import argparse
import sys
from pathlib import Path

import numpy as np

import eigensparse as es
import eigensparse.plotting
from eigensparse.datasets import fetch_senate
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
    argv = list(sys.argv[1:] if argv is None else argv)
    cards = (5, 2)
    if "--cards" in argv:
        i = argv.index("--cards")
        cards = tuple(int(c) for c in argv[i + 1].split(","))
        del argv[i:i + 2]
    a = parse_args("Senate votes: a few bills separate the parties", argv)
    senate = fetch_or_none(fetch_senate, data_home=a.data_home)
    if senate is None:  # no network and no copy in the data home: nothing to show
        return
    X = senate.data  # senators × bills
    party = np.array(["d", "r", "i"])[senate.target]
    bills = senate.feature_names
    op = es.as_operator(X)
    res = es.sparse_pca(X, method="bca", n_components=2, cardinality=list(cards))
    for t, (c, r) in enumerate(zip(res.components, res.results)):
        print(f"sparse PC {t + 1} (cardinality {r.cardinality}, ρ={r.info['penalty']:.4g}, "
              f"working set {r.info['working_set_size']} of {X.shape[1]} bills, "
              f"{r.info['n_penalties_tried']} penalties, certified={r.info['certified']}):")
        for i in r.support:
            print(f"    {c[i]:+.3f}  {bills[i]}")
    Z = op.dot(res.components.T)
    w, V = np.linalg.eigh(op.to_dense())
    P = op.dot(V[:, ::-1][:, :2])
    # separation: nearest party centroid along the 2-D projection
    for name, Y in (("PCA", P), ("sparse PCA", Z)):
        cd, cr = Y[party == "d"].mean(0), Y[party == "r"].mean(0)
        pred = np.where(np.linalg.norm(Y - cd, axis=1) < np.linalg.norm(Y - cr, axis=1), "d", "r")
        m = party != "i"
        print(f"{name}: {np.mean(pred[m] == party[m]):.1%} of senators on their party's side")
    lam1 = w[-1]
    path = variance_cardinality_path(op, 60, method="greedy", certificate=False,
                                     relaxation=False)
    print("variance of the first sparse PC vs cardinality (fraction of PC 1; greedy path, "
          "with the best upper bound):")
    for k in (1, 2, 5, 10, 19, 30, 45, 60):
        print(f"    card={k:3d}  {path.variances[k - 1] / lam1:6.1%}  "
              f"(bound {path.upper_bounds[k - 1] / lam1:6.1%})")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axs = plt.subplots(1, 3, figsize=(14, 4))
        col = {"d": "tab:blue", "r": "tab:red", "i": "tab:green"}
        # sparse scores take few distinct values (votes on a handful of bills): a small
        # deterministic jitter shows how many senators share each point
        rng = np.random.default_rng(0)
        span = np.ptp(Z, axis=0) + 1e-12
        Zj = Z + 0.02 * span * rng.standard_normal(Z.shape)
        for ax, Y, title in ((axs[0], P, "PCA (all bills)"),
                             (axs[1], Zj, f"sparse PCA (cardinalities {cards[0]}, {cards[1]}), jittered")):
            for pty in ("d", "r", "i"):
                m = party == pty
                ax.scatter(Y[m, 0], Y[m, 1], c=col[pty], s=14, label=pty, alpha=0.6)
            ax.set_title(title)
            ax.set_xlabel("component 1")
            ax.set_ylabel("component 2")
            ax.legend()
        axs[2].plot(path.cardinalities, path.variances / lam1, "-", label="variance (greedy)")
        axs[2].plot(path.cardinalities, np.minimum(path.upper_bounds / lam1, 1.0), "r--",
                    label="upper bound")
        axs[2].legend()
        axs[2].set_xlabel("cardinality")
        axs[2].set_ylabel("variance / variance of PC 1")
        axs[2].set_title("first sparse PC")
        fig.tight_layout()
        save_figure(fig, a.out, "senate109_dspca.png")
    except ImportError:
        print("matplotlib not installed: no plot")


if __name__ == "__main__":
    main()
