"""``fit --plot DIR``: diagnostic figures of a :class:`~eigensparse.SparsePCAResult`
(matplotlib, optional dependency; files written atomically)."""
from __future__ import annotations

import os

import numpy as np

__all__ = ["plot_fit_diagnostics"]

#: features named per component in the figures
SHOWN_FEATURES = 12


def plot_fit_diagnostics(res, data, args, *, name: str) -> list[str]:
    """Write into ``args.plot`` and return the paths of

    - ``components.png``: variance explained by each component (% of the total, adjusted),
      labelled by its leading features;
    - ``loadings.png``: the loadings of each component, features by decreasing |loading|;
    - ``variance_vs_cardinality.png``: variance of the first component that the same method
      finds at each cardinality, against the leading eigenvalue (plain PCA).

    ``data`` is what the result was computed from (matrix or Covariance), read again as an
    operator with the command's centering and scaling for the third figure.
    """
    from ..text._plot import pyplot

    plt = pyplot("eigensparse fit --plot")
    os.makedirs(os.path.realpath(args.plot), exist_ok=True)  # a dangling link: its target
    return [_components(plt, res, args.plot, name), _loadings(plt, res, args.plot),
            _cardinality_curve(plt, res, data, args)]


def _labels(res, j, n):
    order = res.ordered_support(j)
    more = "…" if order.size > n else ""
    return ", ".join(res.feature_label(i) for i in order[:n]) + more


def _write(plt, fig, folder, filename):
    from ..text._plot import _save

    fig.tight_layout()
    path = os.path.join(folder, filename)
    _save(fig, path)
    plt.close(fig)
    return path


def _components(plt, res, folder, name):
    k = res.components.shape[0]
    fig, ax = plt.subplots(figsize=(7, 0.8 + 0.55 * k))
    y = np.arange(k)[::-1]
    ax.barh(y, 100 * res.explained_variance_ratio, color="C0")
    ax.set_yticks(y)
    ax.set_yticklabels([f"PC{j + 1}: {_labels(res, j, 5)}" for j in range(k)], fontsize=8)
    ax.set_xlabel("variance explained (% of total, adjusted)")
    ax.set_title(f"{k} sparse components — {name} ({res.method})", wrap=True)
    return _write(plt, fig, folder, "components.png")


def _loadings(plt, res, folder):
    k = res.components.shape[0]
    rows = min(SHOWN_FEATURES, max(s.size for s in res.supports))
    fig, axes = plt.subplots(1, k, figsize=(2.6 * k + 1, 1.2 + 0.3 * rows),
                             squeeze=False)
    for j, ax in enumerate(axes[0]):
        order = res.ordered_support(j)[:SHOWN_FEATURES]
        y = np.arange(order.size)[::-1]
        vals = res.components[j, order]
        ax.barh(y, vals, color=np.where(vals >= 0, "C0", "C3"))
        ax.set_yticks(y)
        ax.set_yticklabels([res.feature_label(i) for i in order], fontsize=7)
        ax.axvline(0, color="k", lw=0.6)
        ax.set_title(f"PC{j + 1} ({res.supports[j].size})", fontsize=9)
    return _write(plt, fig, folder, "loadings.png")


def _cardinality_curve(plt, res, data, args):
    from ..operators import as_operator
    from ..text._plot import (draw_variance_curve, first_component_variances,
                              upper_bounds_by_cardinality)

    op = as_operator(data, center=args.center, scale=args.scaling == "unit")
    s0 = int(res.supports[0].size)
    cards = list(range(1, min(max(10, 3 * s0), op.n_features) + 1))
    vals = first_component_variances(op, res.method, cards, random_state=args.random_state)
    lam = _leading_eigenvalue(op)
    fig, ax = plt.subplots(figsize=(6, 4))
    draw_variance_curve(ax, cards, vals, lam, method=res.method, chosen=(s0, res.variances[0]),
                        upper=upper_bounds_by_cardinality(op, cards))
    return _write(plt, fig, args.plot, "variance_vs_cardinality.png")


def _leading_eigenvalue(op) -> float:
    """The largest eigenvalue of the operator (Lanczos; dense below 3 features)."""
    from scipy.sparse.linalg import LinearOperator, eigsh

    p = op.n_features
    if p < 3:
        return float(np.linalg.eigvalsh(op.to_dense())[-1])
    lin = LinearOperator((p, p), matvec=lambda v: op.matvec(np.ravel(v)), dtype=np.float64)
    return float(eigsh(lin, k=1, which="LA", return_eigenvectors=False, v0=np.ones(p))[0])
