"""The functional front door: :func:`sparse_pca`."""
from __future__ import annotations


import numpy as np

from ._linalg import fix_sign
from ._result import SparsePCAResult
from ._validation import InvalidParameterError, Interval, Options, check_cardinalities, validate_params
from .multi import DEFLATIONS, get_joint, run_deflation
from .multi import _load_all as _load_joint
from .multi import JOINT_METHODS
from .operators import Operator, as_operator
from .solvers import SOLVERS, check_random_state, get_solver
from .solvers import _load_all as _load_solvers

__all__ = ["sparse_pca", "adjusted_variance", "available_methods", "DEFAULT_METHOD",
           "DEFAULT_DEFLATION", "DEFAULT_CARDINALITY"]

DEFAULT_METHOD = "auto"
DEFAULT_DEFLATION = "schur"
#: cardinality used when none is given: min(n_features, 10)
DEFAULT_CARDINALITY = 10


def available_methods() -> list[str]:
    """Names accepted by ``method=`` (single-component solvers and joint methods)."""
    _load_solvers()
    _load_joint()
    return sorted(set(SOLVERS) | set(JOINT_METHODS))


def adjusted_variance(op: Operator, components: np.ndarray) -> np.ndarray:
    """Zou–Hastie–Tibshirani adjusted variance of the rows of ``components``.

    With scores Z = A Cᵀ and Z = QR, the adjusted variance of component j is R_jj²:
    the variance it explains beyond the components before it. Computed from the Gram
    matrix G = C Σ Cᵀ = RᵀR by a (semi-definite tolerant) Cholesky, so it needs only
    Σ products. Sums to at most Tr Σ; equals the plain variances when the scores are
    uncorrelated.
    """
    C = np.atleast_2d(np.asarray(components, dtype=float))
    G = C @ op.matmat(C.T)
    G = 0.5 * (G + G.T)
    k = G.shape[0]
    R = np.zeros((k, k))
    for j in range(k):
        r2 = G[j, j] - R[:j, j] @ R[:j, j]
        if r2 <= 1e-14 * max(G[j, j], 1e-300):
            R[j, j] = 0.0
            continue
        R[j, j] = np.sqrt(r2)
        if j + 1 < k:
            R[j, j + 1:] = (G[j, j + 1:] - R[:j, j] @ R[:j, j + 1:]) / R[j, j]
    return np.diag(R) ** 2


def sparse_pca(data, *, n_components=None, cardinality=None, method=DEFAULT_METHOD,
               deflation=DEFAULT_DEFLATION, penalty=None, center=True, scale=False,
               random_state=None, progress=False, client=None, device=None,
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
    cardinality : int or list of int, default=None
        Exact number of nonzero loadings per component (one int for all, or one per
        component); None means ``min(10, n_features)`` unless ``penalty`` is given to a
        penalized method.
    method : str, default="auto"
        A single-component solver (``eigensparse.available_methods()``), used with
        ``deflation``, or a joint method (e.g. ``"bipartite"``) that finds all
        components at once.
    deflation : {"schur", "projection", "orthogonal", "hotelling", "disjoint"}, default="schur"
        How the covariance is updated between single-component solves.
    penalty : float, optional
        Penalty for penalized methods (passed to the solver).
    center, scale : bool
        Centering and scaling of data input (ignored for operators).
    random_state : None, int or numpy Generator
        Seeds every randomised step; the same value gives the same output.
    progress : bool
        Show a tqdm progress bar over components.
    client : dask.distributed.Client or str, optional
        Run on this Dask cluster (a client or a scheduler address, e.g.
        ``"tcp://10.0.0.1:8786"``; unreachable addresses fail within seconds).
        In-memory data are sent to the workers in row blocks.
    device : str, optional
        Move in-memory data to this device (``"cuda"``; PyTorch or CuPy) and run there.
    **method_options
        Passed to the solver (e.g. ``n_starts=``, ``formulation=`` for ``"am"``).

    Returns
    -------
    SparsePCAResult
        ``components`` (k × p, unit rows, sign rule: largest-|.| entry positive),
        ``variances`` (xᵢᵀΣxᵢ on the original Σ), ``explained_variance`` (adjusted,
        see :func:`adjusted_variance`), ``supports``, per-component ``results``.
    """
    validate_params(
        {"method": method, "deflation": deflation, "center": center, "scale": scale,
         "progress": progress, "n_components": n_components, "penalty": penalty},
        {"method": [str], "deflation": [Options(DEFLATIONS)], "center": [bool], "scale": [bool],
         "progress": [bool], "n_components": [None, Interval("int", 1, None)],
         "penalty": [None, Interval("real", 0, None)]},
        where="sparse_pca",
    )
    methods = available_methods()
    if method not in methods:
        raise InvalidParameterError(f"parameter 'method' must be one of {methods}; got {method!r}.")
    op = as_operator(data, center=center, scale=scale, client=client, device=device)
    p = op.n_features
    k = min(5, p) if n_components is None else n_components
    if k > p:
        raise InvalidParameterError(
            f"parameter 'n_components' must be <= n_features={p}; got {n_components}.")
    rng = check_random_state(random_state)
    seeds = rng.integers(0, 2**31 - 1, size=k)

    joint = get_joint(method)
    spec = None if joint is not None else get_solver(method)
    allowed = (joint or spec).options
    unknown = sorted(set(method_options) - set(allowed) - {"penalty"})
    if unknown:
        raise InvalidParameterError(
            f"method {method!r} got unknown option(s) {unknown}; valid options: {sorted(allowed)}.")
    if penalty is not None:
        if "penalty" not in allowed:
            raise InvalidParameterError(
                f"parameter 'penalty' is not used by method {method!r}; penalized methods: "
                f"{sorted(n for n, s in SOLVERS.items() if 'penalty' in s.options)}.")
        method_options["penalty"] = penalty

    if cardinality is None and penalty is not None and spec is not None and spec.penalized:
        cards = [None] * k
    else:
        cards = check_cardinalities(min(DEFAULT_CARDINALITY, p) if cardinality is None else cardinality,
                                    k, p)
    if spec is not None and spec.needs_data and not op.has_data:
        raise InvalidParameterError(
            f"method {method!r} needs the data matrix (A·x products); a {op.kind} has none.")

    bar = None
    if progress:
        from tqdm.auto import tqdm
        bar = tqdm(total=k, desc=f"sparse_pca[{method}]", unit="comp")
    try:
        if joint is not None:
            if deflation not in (DEFAULT_DEFLATION, "disjoint"):
                raise InvalidParameterError(
                    f"method {method!r} finds all components jointly with disjoint supports; "
                    f"parameter 'deflation' must be 'disjoint' (or left at its default); got {deflation!r}.")
            deflation = "disjoint"
            results = joint.func(op, cards, random_state=int(seeds[0]), **method_options)
            if bar is not None:
                bar.update(k)
        else:
            def solve(sub, s, t):
                return spec.func(sub, s, random_state=int(seeds[t]), **method_options)

            results = run_deflation(op, solve, cards, deflation, progress=bar)
    finally:
        if bar is not None:
            bar.close()

    C = np.vstack([r.loadings for r in results])
    C = fix_sign(C)
    variances = op.quad(C.T)
    if np.ndim(variances) == 0:
        variances = np.array([variances])
    expl = adjusted_variance(op, C)
    return SparsePCAResult(
        components=C, variances=np.asarray(variances, dtype=float), explained_variance=expl,
        supports=[np.flatnonzero(c) for c in C], results=results,
        total_variance=op.trace(), method=method, deflation=deflation,
        info={"operator": op.kind, "cardinalities": cards,
              "mean": np.zeros(p) if getattr(op, "mean_", None) is None else np.asarray(op.mean_),
              "scale": np.ones(p) if getattr(op, "scale_", None) is None else np.asarray(op.scale_)},
    )
