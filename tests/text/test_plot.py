"""Diagnostic figures of a topic extraction (``text/_plot.py``): the variance curve
against brute force and its bounds, and the artists of each figure (Agg back-end)."""
import itertools
import os
import sys

import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.operators import Covariance
from eigensparse.text import _plot, extract_topics
from eigensparse.text._plot import (draw_variance_curve, first_component_variances,
                                    plot_topics_diagnostics, pyplot,
                                    upper_bounds_by_cardinality, variance_by_cardinality)

plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(scope="module")
def res(corpus):
    X, _ = corpus
    return extract_topics(X, n_topics=3, cardinality=5, scaling="count", min_df=1, max_df=1.0,
                          method="greedy", progress=False, name="planted")


def _best(S, s):
    """The largest variance of a support of size s (brute force)."""
    return max(np.linalg.eigvalsh(S[np.ix_(c, c)])[-1]
               for c in map(list, itertools.combinations(range(S.shape[0]), s)))


def test_variance_curve_is_below_the_best_and_the_bounds_above_it(res):
    S = res.covariance
    cards, vals, lam = variance_by_cardinality(res, [1, 2, 3])
    assert cards == [1, 2, 3]
    assert lam == pytest.approx(np.linalg.eigvalsh(S)[-1])
    best = np.array([_best(S, s) for s in cards])
    assert vals[0] == pytest.approx(S.diagonal().max())  # one word: the largest variance
    assert np.all(vals <= best * (1 + 1e-9)) and np.all(vals >= 0.95 * best)
    ub = upper_bounds_by_cardinality(Covariance(S, n_samples=res.n_docs, check_psd=False), cards)
    assert np.all(ub >= best * (1 - 1e-9)) and np.all(np.diff(ub) >= 0) and np.all(ub <= lam * (1 + 1e-9))
    assert ub[0] == pytest.approx(S.diagonal().max())
    # default cardinalities: 1 … max(10, 3·s), within the working set
    cards, vals, _ = variance_by_cardinality(res)
    assert cards == list(range(1, 16)) and len(vals) == 15 and np.all(np.diff(vals) > -1e-9 * lam)


def test_a_cardinality_a_method_cannot_reach_is_a_gap():
    S = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    op = Covariance(S, n_samples=10)
    vals = first_component_variances(op, "greedy", [1, 2, 5])
    assert vals[:2] == pytest.approx([2.0, 3.0]) and np.isnan(vals[2])  # 5 > 3 features


def test_variance_curve_artists():
    fig, ax = plt.subplots()
    try:
        draw_variance_curve(ax, [1, 2, 3], [1.0, 1.5, 1.8], 2.0, method="greedy",
                            chosen=(2, 1.5), unit="words", upper=[1.2, 1.7, 1.9])
        labels = [line.get_label() for line in ax.get_lines()]
        assert labels == ["sparse PC 1 (greedy)", "upper bound", "leading eigenvalue 2 (PCA)",
                          "chosen: 2 words"]
        assert ax.get_lines()[0].get_ydata().tolist() == [1.0, 1.5, 1.8]
        assert ax.get_xlabel() == "cardinality (words)" and ax.get_ylabel() == "variance"
        assert ax.get_title() == "Variance vs cardinality (first component)"
        assert [t.get_text() for t in ax.get_legend().get_texts()] == labels
    finally:
        plt.close(fig)


def test_diagnostics_figures(res, tmp_path, monkeypatch):
    figs, save = [], _plot._save

    def keep(fig, path):
        figs.append((os.path.basename(path), fig))
        save(fig, path)

    monkeypatch.setattr(_plot, "_save", keep)
    paths = plot_topics_diagnostics(res, tmp_path / "plots", max_cardinality=4)
    names = ["word_variances.png", "variance_vs_cardinality.png", "topics.png"]
    assert [os.path.basename(p) for p in paths] == names == [n for n, _ in figs]
    for p in paths:
        assert open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    (_, f1), (_, f2), (_, f3) = figs
    ax = f1.axes[0]
    curve = ax.get_lines()[0]
    assert curve.get_ydata().tolist() == sorted(res.word_variance[res.word_variance > 0], reverse=True)
    # the working set's edge, then one marker series per topic
    assert ax.get_lines()[1].get_label() == f"working set: {res.working_set.size} words"
    assert sum(line.get_label().startswith("PC") for line in ax.get_lines()) == 3
    assert ax.get_xscale() == ax.get_yscale() == "log" and "planted" in ax.get_title()
    ax = f2.axes[0]
    assert ax.get_lines()[0].get_xdata().tolist() == [1, 2, 3, 4]
    assert ax.get_lines()[-1].get_label() == f"chosen: {res.topics[0].cardinality} words"
    ax = f3.axes[0]
    assert len(ax.patches) == 3  # one bar per topic
    widths = sorted(p.get_width() for p in ax.patches)
    assert widths == pytest.approx(sorted(100 * t.explained_variance_ratio for t in res.topics))
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks[0].startswith("PC1: ") and ticks[0].split(": ")[1].split(", ") == res.topics[0].words[:5]
    assert ax.get_xlabel() == "variance explained (% of total)" and "3 topics" in ax.get_title()


def test_without_matplotlib_the_error_names_the_caller(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(InvalidParameterError, match="plot_topics_diagnostics needs matplotlib"):
        pyplot("plot_topics_diagnostics")
