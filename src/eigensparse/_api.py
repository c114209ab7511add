"""The functional front door: :func:`sparse_pca` (a thin layer over the dispatcher)."""
from __future__ import annotations

import inspect

from ._dispatch import (COMPONENT_CONSTRAINTS, DEFAULT_CARDINALITY, DEFAULT_DEFLATION,
                        DEFAULT_ORDER, adjusted_variance, fit_plan, plan_fit)
from ._result import SparsePCAResult
from ._validation import validate_params
from .registry import DEFAULT_METHOD, method_names

__all__ = ["sparse_pca", "adjusted_variance", "available_methods", "DEFAULT_METHOD",
           "DEFAULT_DEFLATION", "DEFAULT_CARDINALITY"]


def available_methods() -> list[str]:
    """Names accepted by ``method=`` (single-component solvers and joint methods).

    Examples
    --------
    >>> import eigensparse as es
    >>> {"auto", "exact", "greedy", "bipartite"} <= set(es.available_methods())
    True
    """
    return method_names()


@validate_params(COMPONENT_CONSTRAINTS)
def sparse_pca(data, *, n_components=None, cardinality=None, method=DEFAULT_METHOD,
               deflation=DEFAULT_DEFLATION, penalty=None, center=True, scale=False,
               random_state=None, progress=False, client=None, device=None,
               order=DEFAULT_ORDER, refine="auto", cardinality_rule="fraction",
               cardinality_fraction=0.9, stability=None, n_jobs=None,
               **method_options) -> SparsePCAResult:
    """Sparse principal components of ``data``.

    Parameters
    ----------
    data : array-like (n_samples, n_features), scipy.sparse matrix, pandas DataFrame, dask.array, device array or Operator
        The data, or an operator such as ``eigensparse.Covariance(S)`` for a precomputed
        covariance. Sparse input is centered implicitly, never densified. A
        ``dask.array`` (NumPy or scipy.sparse chunks) is computed on its Dask cluster; a
        CuPy / PyTorch (array-API) array stays on its device (float32 allowed).
    n_components : int, default=None
        Number of components; None means ``min(5, n_features)``.
    cardinality : int, list of int or "auto", default=None
        Exact number of nonzero loadings per component (one int for all, or one per
        component); None means ``min(10, n_features)`` unless ``penalty`` is given to a
        penalized method. ``"auto"``: each component's cardinality is chosen by
        ``cardinality_rule`` (:mod:`eigensparse.selection`), on the operator deflated by
        the components before it; the choices (path, bounds, reason) are in
        ``info["cardinality_choices"]``.
    cardinality_rule : {"fraction", "knee", "cv", "topics"}, default="fraction"
        The rule of ``cardinality="auto"``: the smallest s reaching
        ``cardinality_fraction`` of the dense component's variance (proven minimal by
        the bounds when they can), the knee of the variance–cardinality path,
        cross-validated held-out explained variance (needs data rows), or ``"topics"``:
        a reader's size, the knee of the solver's variances on the grid s = 1, 2, 3, 5,
        7, 10, 14, 20, 30, kept within [5, 30] (the ``topics`` command's rule).
    cardinality_fraction : float in (0, 1], default=0.9
        The fraction of the ``"fraction"`` rule.
    stability : int, optional
        Refit on this many bootstrap resamples of the rows and put the support stability
        (:class:`eigensparse.stability.StabilityResult`, at the cardinalities found) in
        ``info["stability"]`` (:func:`eigensparse.stability.support_stability`).
    n_jobs : int, optional
        Parallel refits of ``stability`` (None: 1; -1: all cores).
    method : str, default=eigensparse.registry.DEFAULT_METHOD
        A single-component solver (``eigensparse.available_methods()``), used with
        ``deflation``, or a joint method (e.g. ``"bipartite"``) that finds all
        components at once.
    deflation : {"schur", "projection", "orthogonal", "hotelling", "disjoint"}, default="schur"
        How the covariance is updated between single-component solves.
    penalty : float, optional
        Penalty for penalized methods (passed to the solver).
    center, scale : bool
        Centering and scaling of data input. An operator (e.g. ``Covariance(S)``) is
        used as given: ``center`` is ignored, and ``scale=True`` is an error (pass
        ``Covariance(S, scale=True)`` for correlation PCA of a precomputed covariance).
    random_state : None, int or numpy Generator
        Seeds every randomised step; the same value gives the same output.
    progress : bool
        Show a tqdm progress bar over components.
    client : dask.distributed.Client or str, optional
        Run on this Dask cluster (a client or a scheduler address, e.g.
        ``"tcp://10.0.0.1:8786"``; unreachable addresses fail within seconds).
        In-memory data are sent to the workers in row blocks. With ``method="exact"``
        and ``backend="dask"`` the branch and bound's subtrees run there too.
    device : str, optional
        Move in-memory data to this device (``"cuda"``; PyTorch or CuPy) and run there.
    order : {"variance", "deflation"}, default="variance"
        Order of the components: by decreasing variance xᵢᵀΣxᵢ on the original Σ (as
        scikit-learn's PCA; ties keep the order found), or as the deflation (or joint
        method) found them. The adjusted variances are computed in the returned order;
        ``info["found_at"]`` holds each row's position in the deflation. With a list of
        cardinalities, row i always has ``cardinality[i]`` nonzeros: the variance sort
        only exchanges components given the same cardinality (distinct cardinalities
        keep the order given).
    refine : {"auto", True, False}, default="auto"
        After the deflation chain, re-solve each component against the Schur deflation
        of Σ by all the others and keep it when the total adjusted variance rises
        (never lowers it; exact cardinalities kept; disjoint supports stay disjoint; at
        most 2 sweeps of k solves): see :mod:`eigensparse.multi._refine`. ``"auto"``:
        on for several components of a single-component method with exact
        cardinalities and ``"schur"`` or ``"disjoint"`` deflation.
    **method_options
        Passed to the solver (e.g. ``n_starts=``, ``formulation=`` for ``"am"``).

    Returns
    -------
    SparsePCAResult
        ``components`` (k × p, unit rows, sign rule: largest-|.| entry positive),
        ``variances`` (xᵢᵀΣxᵢ on the original Σ), ``explained_variance`` (adjusted,
        see :func:`adjusted_variance`), ``supports``, per-component ``results``.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance, sparse_pca
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 8)) * [3, 3, 3, 1, 1, 1, 1, 1]
    >>> res = sparse_pca(X, n_components=2, cardinality=3, method="greedy")
    >>> bool(res.variances[0] >= res.variances[1])   # decreasing variance
    True
    >>> res2 = sparse_pca(Covariance(np.cov(X.T)), n_components=2, cardinality=3,
    ...                   method="greedy", order="deflation")
    >>> res2.info["found_at"]
    [0, 1]
    """
    if stability is not None:
        from .stability import check_resamplable

        check_resamplable(data, "data")  # before the fit
    from .text._wide import solve_wide  # the working-set route for wide operators

    method_options = dict(method_options)
    names = _feature_names_of(data)  # blank or repeated names refused before the fit
    op, plan = plan_fit(data, n_components=n_components, cardinality=cardinality, method=method,
                        deflation=deflation, penalty=penalty, center=center, scale=scale,
                        random_state=random_state, client=client, device=device, order=order,
                        refine=refine, cardinality_rule=cardinality_rule,
                        cardinality_fraction=cardinality_fraction, method_options=method_options,
                        parameters=_PARAMETERS, wide_route=solve_wide)
    res = fit_plan(data, plan, op=op, progress=progress)
    if res.feature_names is None:
        if names is not None and len(names) == res.components.shape[1]:
            from dataclasses import replace

            res = replace(res, feature_names=names)
    if stability is not None:
        from .stability import support_stability

        res.info["stability"] = support_stability(data, n_resamples=stability, n_jobs=n_jobs,
                                                  reference=res, random_state=random_state)
    return res


def _feature_names_of(data):
    """The variable names ``data`` carries: a DataFrame's columns, or the
    ``feature_names`` of an operator such as :class:`eigensparse.Covariance` (else None)."""
    from .operators import Operator

    names = getattr(data, "feature_names", None) if isinstance(data, Operator) else None
    if names is None and hasattr(data, "iloc") and hasattr(data, "columns"):  # pandas
        names = data.columns
    if names is None:
        return None
    from .io._vocab import check_vocabulary

    if isinstance(data, Operator):
        return check_vocabulary(names, "feature_names")
    return check_vocabulary(names, "data", entry="column")


#: the parameters of :func:`sparse_pca` (an unknown option close to one is named)
_PARAMETERS = tuple(inspect.signature(sparse_pca).parameters)
