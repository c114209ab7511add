"""Plots: the variance–cardinality path, support stability, sorted loadings.

Every function takes what the user holds — a fitted :class:`eigensparse.SparsePCA`, a
:class:`eigensparse.SparsePCAResult` (or a topics result), and, where it makes sense, the
components array, a :class:`~eigensparse.stability.StabilityResult` or a cardinality
choice — and one keyword for the output, ``path=``: the file of one figure, the folder of
:func:`plot_result`'s (``outdir=`` is its deprecated spelling). Feature names come with
what is given (a DataFrame's columns, a vocabulary) unless ``feature_names=`` says
otherwise.

Matplotlib is optional (``pip install eigensparse[plot]``); every function raises an
ImportError saying so when it is missing. Each returns the matplotlib Axes (or Figure)
and, given ``path=``, saves the figure atomically (:func:`eigensparse.io._atomic.atomic_open`),
its labels and titles inside the image.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["plot_cardinality_path", "plot_stability", "plot_loadings", "plot_result", "save_figure",
           "set_wrapped_title"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "eigensparse.plotting needs matplotlib: pip install matplotlib "
            "(or eigensparse[plot])") from exc
    return plt


def save_figure(fig, path, *, dpi=120):
    """Write ``fig`` to ``path`` atomically; the format follows the suffix (png, pdf, svg).

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from eigensparse.plotting import save_figure
    >>> fig, ax = plt.subplots()
    >>> _ = save_figure(fig, os.path.join(d, "f.png"))
    >>> os.listdir(d)
    ['f.png']
    """
    import warnings

    from .io._atomic import atomic_open

    path = Path(path)
    fmt = path.suffix.lstrip(".") or "png"
    with warnings.catch_warnings():  # a layout that cannot be tightened stays as it is
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()
    with atomic_open(path, "wb") as fh:  # "tight": no label or title clipped
        fig.savefig(fh, format=fmt, dpi=dpi, bbox_inches="tight")
    return path


def _result_of(obj):
    """The :class:`~eigensparse.SparsePCAResult` of ``obj`` (itself, or a fitted
    estimator's ``result_``), None when ``obj`` is neither."""
    if hasattr(obj, "components") and hasattr(obj, "supports") and hasattr(obj, "results"):
        return obj
    if hasattr(obj, "get_params") and hasattr(obj, "fit"):  # an estimator
        res = getattr(obj, "result_", None)
        if res is None:
            from ._validation import InvalidParameterError

            raise InvalidParameterError(
                f"{type(obj).__name__} is not fitted yet; call fit before plotting it.")
        return res
    return None


def _names(res, feature_names):
    if feature_names is not None:
        return [str(n) for n in feature_names]
    return None if res is None or res.feature_names is None else list(res.feature_names)


def _components_of(obj, parameter: str):
    """(components k × p, result or None) of what the user holds: a fitted estimator, a
    result, a :class:`~eigensparse.ComponentResult`, or an array of loadings."""
    from ._validation import InvalidParameterError

    res = _result_of(obj)
    if res is not None:
        return np.atleast_2d(np.asarray(res.components, dtype=float)), res
    if hasattr(obj, "loadings") and hasattr(obj, "support"):  # one ComponentResult
        return np.atleast_2d(np.asarray(obj.loadings, dtype=float)), None
    try:
        C = np.atleast_2d(np.asarray(obj, dtype=float))
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"parameter '{parameter}' must be a fitted SparsePCA, a SparsePCAResult, a "
            f"ComponentResult or an array of loadings; got {type(obj).__name__}.") from None
    if C.ndim != 2:
        raise InvalidParameterError(
            f"parameter '{parameter}' must be a (n_components, n_features) array of loadings; "
            f"got shape {C.shape}.")
    return C, None


def _choices_of(obj):
    """The cardinality choices of ``obj``: a result or estimator fitted with
    ``cardinality="auto"``, or one choice itself."""
    from ._validation import InvalidParameterError

    if hasattr(obj, "cardinalities") and hasattr(obj, "solver_variances"):
        return [obj]
    res = _result_of(obj)
    choices = None if res is None else res.cardinality_choices
    if not choices:
        raise InvalidParameterError(
            "parameter 'choice' must be a CardinalityChoice, or a result or estimator fitted "
            f"with cardinality='auto'; got {type(obj).__name__} without cardinality choices.")
    return list(choices)


def _output_path(path, outdir, caller: str):
    """``path``, or the deprecated ``outdir`` with a FutureWarning; one of them needed."""
    if outdir is not None:
        import warnings

        from ._validation import InvalidParameterError

        if path is not None:
            raise InvalidParameterError(f"{caller}: give path= only (outdir= is its "
                                        "deprecated spelling), not both.")
        warnings.warn(f"{caller}: outdir= is deprecated and will be removed; use path=",
                      FutureWarning, stacklevel=3)
        path = outdir
    if path is None:
        from ._validation import InvalidParameterError

        raise InvalidParameterError(f"{caller}: parameter 'path' (the folder of the figures) "
                                    "is required.")
    return path


def _axes(ax, figsize):
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_cardinality_path(choice, ax=None, *, component: int = 0, normalize=True, path=None):
    """Variance reached and upper bound per cardinality, with the threshold and chosen s.

    Parameters
    ----------
    choice : CardinalityChoice, SparsePCAResult or SparsePCA
        From :func:`eigensparse.selection.choose_cardinality`, or a result (or a fitted
        estimator) of ``cardinality="auto"``: the choice of its component ``component``.
    ax : matplotlib Axes, optional
    component : int, default=0
        Which component's choice, for a result or an estimator.
    normalize : bool, default=True
        Divide by λmax (the dense component's variance).
    path : str or Path, optional
        Save the figure there.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> import eigensparse as es
    >>> P = es.Covariance(es.datasets.load_pitprops().data)
    >>> from eigensparse.plotting import plot_cardinality_path
    >>> from eigensparse.selection import choose_cardinality
    >>> _ = plot_cardinality_path(choose_cardinality(P, fraction=0.8), path=os.path.join(d, "path.png"))
    >>> _ = plot_cardinality_path(es.sparse_pca(P, n_components=1, cardinality="auto"))
    >>> os.listdir(d)
    ['path.png']
    """
    choices = _choices_of(choice)
    if not 0 <= int(component) < len(choices):
        from ._validation import InvalidParameterError

        raise InvalidParameterError(f"parameter 'component' must be in [0, {len(choices) - 1}]; "
                                    f"got {component}.")
    choice = choices[int(component)]
    ax = _axes(ax, (6, 4))
    f = 1.0 / choice.dense_variance if normalize else 1.0
    s = choice.cardinality
    K = min(len(choice.cardinalities), max(2 * s, 10))
    k = np.asarray(choice.cardinalities[:K])
    # what the request's solver reaches at each s (never a weaker path: the rule's own path
    # may be greedy's, whose first pick on standardized data is arbitrary)
    reached = choice.solver_variances(K)
    ok = np.isfinite(reached)
    ax.plot(k[ok], reached[ok] * f, "k.-", label="variance reached (solver)")
    ub = np.asarray(choice.upper_bounds[:K], dtype=float) * f
    if np.any(np.isfinite(ub)):
        ax.plot(k, ub, "r--", label="upper bound")
        both = ok & np.isfinite(ub)
        ax.fill_between(k[both], reached[both] * f, ub[both], color="r", alpha=0.08)
    ax.axhline(choice.dense_variance * f, color="0.5", lw=0.8, label="dense component")
    if choice.fraction is not None:
        ax.axhline(choice.fraction * choice.dense_variance * f, color="b", ls=":",
                   label=f"{choice.fraction:g} of dense")
    ax.plot([s], [reached[s - 1] * f], "o", color="b", ms=8, mfc="none",
            label=f"chosen s = {s}"
            + ("" if choice.proven in (None, True) else " (not proven minimal)"))
    ax.set_xlabel("cardinality s")
    ax.set_ylabel("variance / λmax" if normalize else "variance")
    set_wrapped_title(ax, f"rule: {choice.rule}")
    ax.legend(fontsize=8, loc="lower right")
    ax.figure.tight_layout()
    if path is not None:
        save_figure(ax.figure, path)
    return ax


def set_wrapped_title(ax, title, *, fontsize=9):
    """A title wrapped to the axes' width (never clipped by the figure's edge).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from eigensparse.plotting import set_wrapped_title
    >>> fig, ax = plt.subplots(figsize=(3, 2))
    >>> len(set_wrapped_title(ax, "a long title " * 6).get_text().splitlines()) >= 2
    True
    """
    import textwrap

    width_in = ax.figure.get_figwidth() * ax.get_position().width
    chars = max(20, int(width_in * 72 / (0.6 * fontsize)))
    return ax.set_title(textwrap.fill(title, chars), fontsize=fontsize)


def plot_stability(result, ax=None, *, feature_names=None, max_features=40, path=None):
    """Heat map of selection frequencies: variables (rows) × components (columns).

    Shows the variables selected most often by any component (at most ``max_features``),
    ordered by component then frequency; column titles give each component's stability.
    Rows are labelled by the feature names of the fit (a DataFrame's columns), else by
    the feature indices.

    Parameters
    ----------
    result : StabilityResult, SparsePCAResult or SparsePCA
        A support stability, or a result (or fitted estimator) that has one
        (``stability=B``, :meth:`eigensparse.SparsePCA.support_stability`).
    ax : matplotlib Axes, optional
    feature_names : sequence of str, optional
        Replace the fit's names.
    max_features : int, default=40
    path : str or Path, optional
        Save the figure there.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 12))
    >>> X[:, :3] += 2 * rng.standard_normal((300, 1))  # a planted block
    >>> from eigensparse.plotting import plot_stability
    >>> from eigensparse.stability import support_stability
    >>> st = support_stability(X, 1, 3, n_resamples=3, random_state=0)
    >>> _ = plot_stability(st, path=os.path.join(d, "stability.png"))
    >>> os.listdir(d)
    ['stability.png']
    """
    result, names_of = _stability_of(result)
    feature_names = _names(names_of, feature_names)
    ax = _axes(ax, None)
    F = result.frequencies  # k × p
    k = F.shape[0]
    rows = []
    for j in range(k):
        order, freq = result.top_variables(j)
        rows.extend(i for i in order if i not in rows)
    rows = np.asarray(rows[:max_features], dtype=int)
    if ax.figure.get_figheight() < 0.2 * rows.size:
        ax.figure.set_size_inches(max(4, 1.2 * k + 2), 0.22 * rows.size + 1.5)
    im = ax.imshow(F[:, rows].T, aspect="auto", cmap="viridis", vmin=0, vmax=1)
    names = [str(feature_names[i]) if feature_names is not None else str(i) for i in rows]
    ax.set_yticks(range(rows.size), names, fontsize=7)
    ax.set_xticks(range(k), [f"{j + 1}\n{result.stability[j]:.2f}" for j in range(k)], fontsize=8)
    ax.set_xlabel("component (stability)")
    ax.figure.colorbar(im, ax=ax, label="selection frequency")
    ax.set_title(f"{result.n_resamples} {result.resampling} refits")
    if path is not None:
        save_figure(ax.figure, path)
    return ax


def _stability_of(obj):
    """(StabilityResult, the result whose feature names label it) of what is given."""
    from ._validation import InvalidParameterError

    if hasattr(obj, "frequencies") and hasattr(obj, "reference"):
        ref = obj.reference
        return obj, ref if getattr(ref, "feature_names", None) is not None else None
    res = _result_of(obj)
    st = getattr(obj, "stability_", None) if res is not None and res is not obj else None
    st = st if st is not None else (None if res is None else res.stability)
    if st is None:
        raise InvalidParameterError(
            "parameter 'result' must be a StabilityResult, or a result or estimator with a "
            f"support stability (stability=B); got {type(obj).__name__} without one.")
    return st, res


def plot_loadings(components, *, feature_names=None, max_features=20, path=None):
    """Sorted loadings of each component (one panel per component).

    Parameters
    ----------
    components : SparsePCA, SparsePCAResult, ComponentResult or ndarray (k, p)
        A fitted estimator, a result (its feature names label the bars), one component,
        or the loadings themselves.
    feature_names : sequence of str, optional
        Replace the fit's names (default: the fit's, else the feature indices).
    max_features : int, default=20
    path : str or Path, optional
        Save the figure there.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> import eigensparse as es
    >>> P = es.Covariance(es.datasets.load_pitprops().data)
    >>> from eigensparse.plotting import plot_loadings
    >>> res = es.sparse_pca(P, n_components=2, cardinality=3)
    >>> _ = plot_loadings(res.components, path=os.path.join(d, "loadings.png"))
    >>> fig = plot_loadings(es.SparsePCA(n_components=2, cardinality=3).fit(P))
    >>> os.listdir(d), len(fig.axes)
    (['loadings.png'], 2)
    """
    plt = _pyplot()
    C, res = _components_of(components, "components")
    feature_names = _names(res, feature_names)
    k = C.shape[0]
    fig, axes = plt.subplots(1, k, figsize=(2.6 * k + 1, 4), squeeze=False)
    for j, ax in enumerate(axes[0]):
        nz = np.flatnonzero(C[j])
        order = nz[np.argsort(-np.abs(C[j, nz]), kind="stable")][:max_features][::-1]
        ax.barh(range(order.size), C[j, order], color=np.where(C[j, order] > 0, "C0", "C3"))
        ax.set_yticks(range(order.size), [str(feature_names[i]) if feature_names is not None
                                          else str(i) for i in order], fontsize=7)
        ax.axvline(0, color="k", lw=0.5)
        ax.set_title(f"component {j + 1} ({nz.size} nonzero)", fontsize=9)
    fig.tight_layout()
    if path is not None:
        save_figure(fig, path)
    return fig


def plot_result(result, path=None, *, max_features=20, loadings=True, outdir=None) -> list:
    """Write the figures of a result into the folder ``path`` (atomically) and return
    their paths: ``loadings.png`` (the sorted loadings of each component),
    ``cardinality_path_pc{j}.png`` per component chosen by ``cardinality="auto"`` (the
    path with bounds and the chosen s), ``stability.png`` (the heat map, when the result
    has a support stability).

    Parameters
    ----------
    result : SparsePCAResult or SparsePCA
        A result, or a fitted estimator.
    path : str or Path
        The folder (created if needed).
    max_features : int, default=20
    loadings : bool, default=True
        Write ``loadings.png`` (the command line leaves it to each command's own
        diagnostics).
    outdir : str or Path, optional
        Deprecated spelling of ``path`` (FutureWarning).

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> import eigensparse as es
    >>> P = es.Covariance(es.datasets.load_pitprops().data)
    >>> from eigensparse.plotting import plot_result
    >>> res = es.sparse_pca(P, n_components=2, cardinality=3)
    >>> [os.path.basename(f) for f in plot_result(res, path=d)]
    ['loadings.png']
    """
    plt = _pyplot()
    outdir = Path(_output_path(path, outdir, "plot_result"))
    res = _result_of(result)
    if res is None:
        from ._validation import InvalidParameterError

        raise InvalidParameterError("parameter 'result' must be a SparsePCAResult or a fitted "
                                    f"SparsePCA; got {type(result).__name__}.")
    result = res
    outdir.resolve().mkdir(parents=True, exist_ok=True)  # a dangling link: its target
    names = result.feature_names
    paths = []
    if loadings:
        fig = plot_loadings(result, feature_names=names, max_features=max_features)
        paths.append(save_figure(fig, outdir / "loadings.png"))
        plt.close(fig)
    for j, choice in enumerate(result.info.get("cardinality_choices") or []):
        ax = plot_cardinality_path(choice)
        set_wrapped_title(ax, f"PC{j + 1}: {choice.line()}", fontsize=8)
        ax.figure.tight_layout()
        paths.append(save_figure(ax.figure, outdir / f"cardinality_path_pc{j + 1}.png"))
        plt.close(ax.figure)
    stability = result.info.get("stability")
    if stability is not None:
        ax = plot_stability(stability, feature_names=names)  # (names: the result's)
        paths.append(save_figure(ax.figure, outdir / "stability.png"))
        plt.close(ax.figure)
    return [str(p) for p in paths]
