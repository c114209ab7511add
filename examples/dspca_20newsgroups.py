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
from _dspca_common import parse_args  # noqa: I001  (sets single-threaded BLAS first)

import numpy as np

import eigensparse as es
from eigensparse.datasets import load_20news
from eigensparse.multi import deflate

from _dspca_common import save_figure, smallest_cardinality_reaching


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
