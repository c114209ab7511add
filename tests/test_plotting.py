"""Figures (``plotting.py``): the cardinality-path plot draws what the solver reached,
long titles are wrapped inside the figure, and ``plot_result`` writes every figure."""
import numpy as np
import pytest

import eigensparse as es
from eigensparse.datasets import load_pitprops, make_spiked_covariance
from eigensparse.plotting import plot_cardinality_path, plot_result, set_wrapped_title
from eigensparse.selection import choose_cardinality
from eigensparse.solvers import get_solver


def test_path_plot_draws_the_solvers_values_not_greedys():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.datasets import load_wine

    from eigensparse.registry import DEFAULT_METHOD

    X = load_wine().data
    X = (X - X.mean(0)) / X.std(0)  # standardized: greedy's first pick is arbitrary
    op = es.Covariance(np.cov(X.T, bias=True))
    ch = choose_cardinality(op, fraction=0.9)
    ax = plot_cardinality_path(ch)
    line = ax.lines[0]
    k, y = line.get_xdata(), line.get_ydata() * ch.dense_variance
    solver = get_solver(DEFAULT_METHOD).func
    for s, v in zip(k, y):
        best = max(solver(op, int(s), random_state=None).variance, ch.variances[int(s) - 1])
        assert v == pytest.approx(best, rel=1e-6)
    assert np.any(y[: ch.cardinality] > ch.variances[: ch.cardinality] * 1.05)  # greedy is weaker
    ub = ax.lines[1].get_ydata() * ch.dense_variance
    assert np.all(y <= ub * (1 + 1e-9))  # the bound is above what is reached
    exact = [get_solver("exhaustive").func(op, s).variance for s in range(1, 5)]
    assert np.allclose(y[:4], exact, rtol=1e-6)  # the solver is optimal on these small s
    plt.close(ax.figure)


def test_long_titles_are_wrapped_inside_the_figure(tmp_path):
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    import matplotlib.pyplot as plt


    res = es.sparse_pca(es.Covariance(load_pitprops().data), n_components=1,
                        cardinality="auto")
    fig_paths = plot_result(res, tmp_path, loadings=False)
    assert [p.split("/")[-1] for p in fig_paths] == ["cardinality_path_pc1.png"]
    ax = res.cardinality_choices[0].plot()
    set_wrapped_title(ax, "PC1: " + res.cardinality_choices[0].line() + " and more words " * 5)
    fig = ax.figure
    fig.tight_layout()
    fig.canvas.draw()
    box = ax.title.get_window_extent(fig.canvas.get_renderer())
    W, H = fig.canvas.get_width_height()
    assert box.x0 >= 0 and box.x1 <= W and box.y1 <= H
    plt.close(fig)


def test_plot_result_writes_every_figure(tmp_path):
    import eigensparse as es

    X, v, support = make_spiked_covariance(300, 30, 5, 10.0, random_state=1)
    res = es.sparse_pca(X, n_components=2, cardinality="auto", stability=3, random_state=0)
    paths = plot_result(res, tmp_path / "plots")
    names = sorted(p.rsplit("/", 1)[-1] for p in paths)
    assert names == ["cardinality_path_pc1.png", "cardinality_path_pc2.png", "loadings.png",
                     "stability.png"]
    assert all((tmp_path / "plots" / n).stat().st_size > 1000 for n in names)
    assert not [p for p in (tmp_path / "plots").iterdir() if p.name not in names]  # atomic
