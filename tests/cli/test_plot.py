"""``fit --plot DIR`` (``cli/_plot.py``): the three figures of a fit, their artists
checked on the Agg back-end."""
import os
from types import SimpleNamespace

import numpy as np
import pytest

from eigensparse import sparse_pca
from eigensparse.cli._plot import SHOWN_FEATURES, _leading_eigenvalue, plot_fit_diagnostics
from eigensparse.operators import as_operator
from eigensparse.text import _plot

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def fit():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 20))
    X[:, :4] += 3 * rng.standard_normal((150, 1)) * np.array([1, -1, 1, -1])
    res = sparse_pca(X, n_components=2, cardinality=4, method="greedy")
    return X, res


def test_fit_figures(fit, tmp_path, monkeypatch):
    X, res = fit
    figs, save = {}, _plot._save

    def keep(fig, path):
        figs[os.path.basename(path)] = fig
        save(fig, path)

    monkeypatch.setattr(_plot, "_save", keep)
    args = SimpleNamespace(plot=str(tmp_path / "plots"), center=True, scaling="none",
                           random_state=0)
    paths = plot_fit_diagnostics(res, X, args, name="demo")
    assert [os.path.basename(p) for p in paths] == ["components.png", "loadings.png",
                                                    "variance_vs_cardinality.png"]
    for p in paths:
        assert open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    ax = figs["components.png"].axes[0]
    assert len(ax.patches) == 2
    assert sorted(b.get_width() for b in ax.patches) == \
        pytest.approx(sorted(100 * res.explained_variance_ratio))
    assert ax.get_title() == "2 sparse components — demo (greedy)"
    assert ax.get_xlabel() == "variance explained (% of total, adjusted)"
    first = [t.get_text() for t in ax.get_yticklabels()][0]
    assert first.startswith("PC1: ") and set(first[5:].split(", ")) == {"x0", "x1", "x2", "x3"}
    # one panel per component, one bar per nonzero loading, negative ones in another colour
    axes = figs["loadings.png"].axes
    assert [a.get_title() for a in axes] == ["PC1 (4)", "PC2 (4)"]
    bars = axes[0].patches
    assert len(bars) == 4 <= SHOWN_FEATURES
    assert sorted(b.get_width() for b in bars) == pytest.approx(sorted(res.components[0, :4]))
    assert len({b.get_facecolor() for b in bars}) == 2  # signs alternate: two colours
    ax = figs["variance_vs_cardinality.png"].axes[0]
    curve = ax.get_lines()[0]
    assert curve.get_xdata().tolist() == list(range(1, 13))  # max(10, 3·4) features
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False, bias=True))[-1]
    assert ax.get_lines()[2].get_label() == f"leading eigenvalue {lam:.3g} (PCA)"
    assert np.all(curve.get_ydata() <= lam * (1 + 1e-9))
    assert curve.get_ydata()[3] == pytest.approx(res.variances[0])


def test_leading_eigenvalue_is_numpys():
    rng = np.random.default_rng(2)
    for p in (2, 7):  # dense below 3 features, Lanczos above
        X = rng.standard_normal((40, p))
        op = as_operator(X, center=True)
        want = np.linalg.eigvalsh(np.cov(X, rowvar=False, bias=True))[-1]
        assert _leading_eigenvalue(op) == pytest.approx(want, rel=1e-9)
