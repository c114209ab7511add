"""
Topics of a blog corpus
=======================

The KOS blog entries (3430 posts from dailykos.com, 6906 words; bundled with the package,
:func:`eigensparse.datasets.load_kos`). Each sparse principal component of the word counts
uses a handful of words that occur together: a topic. The script prints the topics, the
variance each explains (adjusted, so that shared words are not counted twice), and draws the
variance of the first topic against its number of words, with upper bounds on what any
choice of that many words could reach.

Why these topics differ from ``eigensparse topics --dataset kos``: this script fits the
scikit-learn estimator to the raw counts, where frequent words weigh most; the command (and
:func:`eigensparse.text.extract_topics`, which gives exactly its topics) uses centered tf-idf
with a pruned vocabulary (``min_df=5, max_df=0.5``) by default, where words specific to a
subject weigh most. Both are sparse PCA; the scaling decides what "variance" means.

    python examples/topics_kos.py [OUT_DIR]
"""
import argparse
from pathlib import Path

import numpy as np

import eigensparse as es
import eigensparse.plotting
from eigensparse.diagnostics import variance_cardinality_path
from eigensparse.datasets import load_kos


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
    a = parse_args("Topics of a blog corpus", argv)
    kos = load_kos()
    est = es.SparsePCA(n_components=5, cardinality=5, random_state=0).fit(kos.data)
    labels = []
    for j, words in enumerate(est.topics(kos.feature_names)):
        share = est.explained_variance_ratio_[j]
        print(f"topic {j + 1} ({share:.2%} of the variance): {', '.join(w for w, _ in words)}")
        labels.append("\n".join(w for w, _ in words[:3]))
    print(f"all five topics (25 words of {kos.data.shape[1]}): "
          f"{est.explained_variance_ratio_.sum():.2%} of the total variance")
    path = variance_cardinality_path(kos.data, 30, method="greedy", certificate=False,
                                     relaxation=False)
    lam1 = path.bounds["lambda_max"][0]
    k5 = path.variances[4] / lam1
    print(f"first topic: 5 words reach {k5:.1%} of the first principal component's variance")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axs = plt.subplots(1, 2, figsize=(11, 4))
        axs[0].bar(np.arange(1, 6), 100 * est.explained_variance_ratio_)
        axs[0].set_xticks(np.arange(1, 6), labels, fontsize=8)
        axs[0].set_ylabel("adjusted variance explained (%)")
        axs[0].set_title("five topics of five words")
        path.plot(axs[1], normalize=True)
        axs[1].set_title("first topic: variance against its number of words")
        fig.tight_layout()
        save_figure(fig, a.out, "topics_kos.png")
    except ImportError:
        print("matplotlib not installed: no plot")


if __name__ == "__main__":
    main()
