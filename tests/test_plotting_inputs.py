"""The plotting functions take what the user holds — a fitted estimator, a result, one
component, the components array, a stability result — with one output keyword ``path=``
(issue #33); names come with the fit (a DataFrame's columns); labels are inside the image."""
import warnings

import numpy as np
import pytest

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import eigensparse as es  # noqa: E402
from eigensparse import InvalidParameterError  # noqa: E402
from eigensparse.plotting import (plot_cardinality_path, plot_loadings, plot_result,  # noqa: E402
                                  plot_stability)

COLS = [f"gene_{c}" for c in "abcdefghij"]


@pytest.fixture(scope="module")
def frame():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 10))
    X[:, 2:5] += 2.5 * rng.standard_normal((150, 1))  # a planted block
    X[:, 6:8] += 1.5 * rng.standard_normal((150, 1))
    return pd.DataFrame(X, columns=COLS)


@pytest.fixture(scope="module")
def est(frame):
    return es.SparsePCA(n_components=2, cardinality=3, stability=3, random_state=0).fit(frame)


def _labels(ax):
    return [t.get_text() for t in ax.get_yticklabels()]


def test_plot_loadings_of_everything_the_user_holds(est):
    res = est.result_
    for held in (est, res, res.components, res.results[0]):
        fig = plot_loadings(held)
        k = 1 if held is res.results[0] else 2
        assert len(fig.axes) == k
        if held is est or held is res:  # named by the DataFrame's columns
            assert set(_labels(fig.axes[0])) == {COLS[i] for i in res.supports[0]}
        plt.close(fig)
    with pytest.raises(InvalidParameterError, match="not fitted"):
        plot_loadings(es.SparsePCA())
    with pytest.raises(InvalidParameterError, match="parameter 'components'"):
        plot_loadings("abc")


def test_stability_heat_map_rows_are_column_names(est, tmp_path):
    for held in (est.stability_, est, est.result_):
        ax = plot_stability(held)
        labels = _labels(ax)
        assert labels and set(labels) <= set(COLS)
        plt.close(ax.figure)
    ax = plot_stability(est.stability_, path=tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 1000
    plt.close(ax.figure)


def test_plot_result_path_and_deprecated_outdir(est, tmp_path):
    paths = plot_result(est, path=tmp_path / "a")
    assert sorted(p.rsplit("/", 1)[-1] for p in paths) == ["loadings.png", "stability.png"]
    with pytest.warns(FutureWarning, match="outdir= is deprecated"):
        plot_result(est.result_, outdir=tmp_path / "b")
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["loadings.png", "stability.png"]
    with pytest.raises(InvalidParameterError, match="path"):
        plot_result(est.result_)
    plt.close("all")


@pytest.mark.parametrize("normalize", [True, False])
def test_cardinality_path_from_a_result_labels_inside(frame, tmp_path, normalize):
    res = es.sparse_pca(frame * 1e4, n_components=2, cardinality="auto", random_state=0)
    ax = plot_cardinality_path(res, component=1, normalize=normalize, path=tmp_path / "p.png")
    assert ax.get_ylabel() in ("variance / λmax", "variance")
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    W, H = fig.canvas.get_width_height()
    for artist in (ax.yaxis.label, ax.xaxis.label, ax.title):
        box = artist.get_window_extent(renderer)
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= W and box.y1 <= H
    for t in ax.get_yticklabels():
        assert t.get_window_extent(renderer).x0 >= 0
    plt.close(fig)
    with pytest.raises(InvalidParameterError, match="cardinality choices"):
        with warnings.catch_warnings():
            plot_cardinality_path(es.sparse_pca(frame, n_components=1, cardinality=2))
