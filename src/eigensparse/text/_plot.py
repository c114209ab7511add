"""Diagnostic figures of a topic extraction (matplotlib, optional dependency)."""
from __future__ import annotations

import os

import numpy as np

from .._validation import InvalidParameterError
from ..plotting import set_wrapped_title

__all__ = ["plot_topics_diagnostics", "variance_by_cardinality"]


def _save(fig, path):
    from ..io._atomic import atomic_open

    with atomic_open(path, "wb") as f:  # "tight": titles and labels are never clipped
        fig.savefig(f, dpi=110, format="png", bbox_inches="tight")


def variance_by_cardinality(result, cardinalities=None, *, method=None, random_state=0):
    """Variance of the first component found by ``method`` for each cardinality, on the
    working-set covariance of ``result`` (no pass over the data).

    Returns (cardinalities, variances, leading eigenvalue of the working set).
    

    Examples
    --------
    >>> from eigensparse.datasets import load_kos
    >>> from eigensparse.text import extract_topics
    >>> kos = load_kos()
    >>> res = extract_topics(kos.data, kos.feature_names, n_topics=2, cardinality=3, progress=False)
    >>> from eigensparse.text import variance_by_cardinality
    >>> cards, variances, lam = variance_by_cardinality(res, [1, 3, 5])
    >>> cards, bool(all(v <= lam * (1 + 1e-9) for v in variances))
    ([1, 3, 5], True)
    """
    from ..operators import Covariance

    S = result.covariance
    m = S.shape[0]
    if cardinalities is None:
        top = max(10, 3 * int(np.max(np.atleast_1d(result.cardinality))))
        cardinalities = list(range(1, min(top, m) + 1))
    op = Covariance(S, n_samples=result.n_docs, check_psd=False)
    vals = first_component_variances(op, method or result.method, cardinalities,
                                     random_state=random_state)
    lam = float(np.linalg.eigvalsh(S)[-1])
    return list(cardinalities), vals, lam


def first_component_variances(op, method, cardinalities, *, random_state=0) -> np.ndarray:
    """Variance of the first component that ``method`` finds on the operator ``op`` for
    each cardinality (NaN where the method cannot reach that cardinality)."""
    from .._dispatch import plan_components, solve_components

    vals = []
    for s in cardinalities:
        try:
            plan = plan_components(method, n_features=op.n_features, n_components=1,
                                   cardinality=int(s), random_state=random_state)
            vals.append(float(solve_components(op, plan)[0].variance))
        except Exception:  # a method that cannot do this cardinality: leave a gap
            vals.append(np.nan)
    return np.array(vals)


def upper_bounds_by_cardinality(op, cardinalities) -> np.ndarray:
    """Upper bounds on the best variance v(s) of a support of each size s (the smallest of
    λmax, the sum of the s largest variances and Gershgorin's; nondecreasing in s)."""
    from .._linalg import lambda_max_op
    from ..bounds import _gershgorin_bounds, monotone_upper_bounds

    cards = np.asarray(list(cardinalities), dtype=int)
    K = int(cards.max())
    d = np.sort(np.asarray(op.diag(), dtype=float))[::-1]
    ub = np.minimum(np.full(K, lambda_max_op(op)), np.cumsum(d[:K]))
    if op.n_features <= 3000:
        ub = np.minimum(ub, _gershgorin_bounds(op, K))
    return monotone_upper_bounds(ub)[cards - 1]


def draw_variance_curve(ax, cardinalities, variances, leading, *, method, chosen=None,
                        unit="features", upper=None):
    """Draw the variance-cardinality curve of the first component on ``ax``: ``variances``
    (what ``method``, the fit's solver, reaches) against ``cardinalities``, the ``upper``
    bounds when given, the ``leading`` eigenvalue (plain PCA) and, when given, the
    ``chosen`` point ``(cardinality, variance)``."""
    ax.plot(cardinalities, variances, "o-", color="C0", label=f"sparse PC 1 ({method})")
    if upper is not None:
        ax.plot(cardinalities, upper, "r--", lw=1, label="upper bound")
    ax.axhline(leading, color="C2", ls="--", lw=1, label=f"leading eigenvalue {leading:.3g} (PCA)")
    if chosen is not None:
        ax.plot([chosen[0]], [chosen[1]], "s", ms=9, mfc="none", color="C3",
                label=f"chosen: {chosen[0]} {unit}")
    ax.set_xlabel(f"cardinality ({unit})")
    ax.set_ylabel("variance")
    ax.set_title("Variance vs cardinality (first component)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)


def pyplot(caller: str):
    """matplotlib.pyplot with the Agg back-end, or a one-line error naming ``caller``."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise InvalidParameterError(
            f"{caller} needs matplotlib (pip install 'eigensparse[plot]').") from exc
    return plt


def plot_topics_diagnostics(result, path=None, *, max_cardinality: int | None = None,
                            outdir=None) -> list[str]:
    """Write PNG diagnostics of ``result`` into the folder ``path`` and return their paths
    (``outdir=`` is the deprecated spelling of ``path``, with a FutureWarning).

    - ``word_variances.png``: the sorted word variances (log scale; Zhang & El Ghaoui
      2011, Fig. 2), with the working set, the elimination threshold and the topic
      words marked;
    - ``variance_vs_cardinality.png``: variance of the first component against its
      cardinality (same method, on the working-set covariance), with the leading
      eigenvalue (plain PCA) for reference;
    - ``topics.png``: variance explained by each topic, labelled by its top words.

    Files are written atomically (temporary file, then rename).
    

    Examples
    --------
    >>> from eigensparse.datasets import load_kos
    >>> from eigensparse.text import extract_topics
    >>> kos = load_kos()
    >>> res = extract_topics(kos.data, kos.feature_names, n_topics=2, cardinality=3, progress=False)
    >>> import os, tempfile
    >>> from eigensparse.text import plot_topics_diagnostics
    >>> with tempfile.TemporaryDirectory() as d:
    ...     paths = plot_topics_diagnostics(res, path=d, max_cardinality=4)
    ...     print(sorted(os.path.basename(p) for p in paths))
    ['topics.png', 'variance_vs_cardinality.png', 'word_variances.png']
    """
    from ..plotting import _output_path

    plt = pyplot("plot_topics_diagnostics")
    outdir = os.fspath(_output_path(path, outdir, "plot_topics_diagnostics"))
    os.makedirs(os.path.realpath(outdir), exist_ok=True)  # a dangling link: its target
    paths = []

    # 1. sorted variances
    v = np.sort(np.asarray(result.word_variance))[::-1]
    vpos = v[v > 0]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.semilogy(np.arange(1, vpos.size + 1), vpos, lw=1.4, color="C0", label="word variance")
    m = int(result.working_set.size)
    ax.axvline(m, color="C1", ls="--", lw=1, label=f"working set: {m} words")
    if result.threshold > 0:
        ax.axhline(result.threshold, color="C3", ls=":", lw=1,
                   label=f"elimination threshold {result.threshold:.3g}")
    rank = np.empty(result.word_variance.size, dtype=np.int64)
    rank[np.argsort(-result.word_variance, kind="stable")] = np.arange(result.word_variance.size)
    for i, t in enumerate(result.topics):
        r = rank[t.word_ids] + 1
        ax.plot(r, result.word_variance[t.word_ids], "o", ms=4, color=f"C{(i + 4) % 10}",
                label=f"PC{t.rank}: " + ", ".join(t.words[:3]) + ("…" if t.cardinality > 3 else ""))
    ax.set_xscale("log")
    ax.set_xlabel("word rank (by variance)")
    ax.set_ylabel("variance")
    set_wrapped_title(ax, f"Sorted variances of {result.n_words} words — {result.name}")
    ax.legend(fontsize=7, loc="lower left")
    ax.grid(True, which="both", alpha=0.25)
    fig.tight_layout()
    p = os.path.join(outdir, "word_variances.png")
    _save(fig, p)
    plt.close(fig)
    paths.append(p)

    # 2. variance vs cardinality
    cards = None
    if max_cardinality is not None:
        cards = list(range(1, min(max_cardinality, result.covariance.shape[0]) + 1))
    ks, vals, lam = variance_by_cardinality(result, cards)
    from ..operators import Covariance

    upper = upper_bounds_by_cardinality(
        Covariance(result.covariance, n_samples=result.n_docs, check_psd=False), ks)
    fig, ax = plt.subplots(figsize=(6, 4))
    t0 = result.topics[0] if result.topics else None
    draw_variance_curve(ax, ks, vals, lam, method=result.method, unit="words", upper=upper,
                        chosen=None if t0 is None else (t0.cardinality, t0.variance))
    fig.tight_layout()
    p = os.path.join(outdir, "variance_vs_cardinality.png")
    _save(fig, p)
    plt.close(fig)
    paths.append(p)

    # 3. topics
    if result.topics:
        fig, ax = plt.subplots(figsize=(7, 0.6 + 0.55 * len(result.topics)))
        y = np.arange(len(result.topics))[::-1]
        ax.barh(y, [100 * t.explained_variance_ratio for t in result.topics], color="C0")
        ax.set_yticks(y)
        ax.set_yticklabels([f"PC{t.rank}: " + ", ".join(t.words[:5]) for t in result.topics], fontsize=8)
        ax.set_xlabel("variance explained (% of total)")
        set_wrapped_title(ax, f"{len(result.topics)} topics — {result.name}")
        fig.tight_layout()
        p = os.path.join(outdir, "topics.png")
        _save(fig, p)
        plt.close(fig)
        paths.append(p)
    return paths
