"""Diagnostics that run solvers: the variance–cardinality path with its bounds.

Above :mod:`eigensparse.solvers` (it runs one) and :mod:`eigensparse.bounds` (it
bounds every cardinality of the path with them).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from ._linalg import lambda_max_op
from .bounds import (_as_op, _check_card, certify_support, _gershgorin_bounds,
                     monotone_upper_bounds,
                     penalized_scaling_bound)
from ._validation import (IntInterval, InvalidParameterError, check_square_matrix,
                          validate_params)
from .operators import Operator
from .screening import Breakpoints
from .relaxation import bca_relaxation
from .solvers import get_solver

__all__ = ["VarianceCardinalityPath", "variance_cardinality_path", "adjusted_variance",
           "adjusted_variance_of_gram"]


@dataclass
class VarianceCardinalityPath:
    """Per cardinality k = 1..K: variance reached, best upper bound, certification.

    Attributes
    ----------
    cardinalities : ndarray (K,)
    variances : ndarray (K,)
        λmax(Σ_II) of the method's support of each cardinality (a lower bound on v(k)).
    upper_bounds : ndarray (K,)
        The smallest valid upper bound on v(k) found, also over the bounds on v(k'),
        k' >= k (the optimum is nondecreasing in k): a nondecreasing array.
    certified : ndarray of bool (K,)
        Support proven optimal (Prop. 2 certificate, or a bound equal to the variance).
    supports : list of ndarray
    bounds : dict name -> ndarray (K,)
        Every bound computed ("lambda_max", "sum_top_variances", "gershgorin",
        "penalized", "certificate", "dspca").
    method : str
    total_variance : float

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.diagnostics import variance_cardinality_path
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> path = variance_cardinality_path(S, 3, relaxation=False)
    >>> path.cardinalities.tolist(), path.variances.round(3).tolist(), path.certified.tolist()
    ([1, 2, 3], [1.0, 1.954, 2.475], [True, True, False])
    >>> bool(path.relative_gap[-1] > 0), sorted(path.bounds)[:2]
    (True, ['certificate', 'gershgorin'])
    """

    cardinalities: np.ndarray
    variances: np.ndarray
    upper_bounds: np.ndarray
    certified: np.ndarray
    supports: list
    bounds: dict
    method: str
    total_variance: float
    info: dict = field(default_factory=dict)

    @property
    def relative_gap(self) -> np.ndarray:
        return (self.upper_bounds - self.variances) / np.maximum(self.upper_bounds, 1e-300)

    def plot(self, ax=None, *, normalize=False):
        """Variance (line) and upper bounds (markers) against cardinality (matplotlib)."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 4))
        f = 1.0 / self.bounds["lambda_max"][0] if normalize else 1.0
        ax.plot(self.cardinalities, self.variances * f, "k-", label=f"{self.method} (variance)")
        markers = {"penalized": "s", "certificate": "o", "dspca": "D", "gershgorin": "^"}
        for name, mk in markers.items():
            if name in self.bounds:
                ax.plot(self.cardinalities, self.bounds[name] * f, mk, mfc="none",
                        label=f"bound: {name}")
        ax.plot(self.cardinalities, self.upper_bounds * f, "r--", label="best upper bound")
        ax.set_xlabel("cardinality")
        ax.set_ylabel("variance" + (" / λmax(Σ)" if normalize else ""))
        ax.legend(fontsize=8)
        return ax


@validate_params({"max_cardinality": [IntInterval(1, None, closed="left")],
                  "certificate": ["boolean"], "relaxation": [None, "boolean"],
                  "penalized": ["boolean"],
                  "relaxation_penalties": [IntInterval(1, None, closed="left")],
                  "center": ["boolean"], "scale": ["boolean"],
                  "random_state": ["random_state", np.random.Generator]})
def variance_cardinality_path(data_or_op, max_cardinality, method="greedy", *,
                              certificate=True, relaxation=None, penalized=True,
                              relaxation_penalties=12, center=True, scale=False,
                              random_state=None) -> VarianceCardinalityPath:
    """Variance reached and best upper bound for each cardinality 1..max_cardinality.

    Parameters
    ----------
    data_or_op : data matrix, scipy.sparse matrix or Operator
    max_cardinality : int
    method : str, default="greedy"
        A solver name. Methods that return a path (``info["path_supports"]`` and
        ``info["path_variances"]``, as ``greedy`` and ``approx_greedy`` do) are called
        once; others once per cardinality.
    certificate : bool
        Test each support with :func:`certify_support` (bound and certification).
    relaxation : bool or None
        Also bound with the DSPCA dual solved by block coordinate ascent at
        ``relaxation_penalties`` penalties (default: when p <= 300).
    penalized : bool
        The cheap ℓ0 dual bound of :func:`penalized_scaling_bound`.

    Returns
    -------
    VarianceCardinalityPath

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.diagnostics import variance_cardinality_path
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> path = variance_cardinality_path(S, 4, method="greedy", relaxation=False)
    >>> path.variances.round(3).tolist()  # greedy: lower bounds on v(k)
    [1.0, 1.954, 2.475, 2.937]
    >>> path.upper_bounds.round(3).tolist()  # v(k) lies in between
    [1.0, 1.954, 2.602, 3.171]
    """
    op = _as_op(data_or_op, center=center, scale=scale)
    p = op.n_features
    K = _check_card(max_cardinality, p, "max_cardinality")
    spec = get_solver(method)
    res = spec.trusted(op, K, random_state=random_state)
    ks = np.arange(1, K + 1)
    if "path_supports" in res.info and "path_variances" in res.info:
        supports = [np.sort(np.asarray(S_, dtype=np.intp)) for S_ in res.info["path_supports"]][:K]
        variances = np.asarray(res.info["path_variances"], dtype=float)[:K]
    else:
        supports, variances = [], []
        for k in ks:
            r = res if k == K else spec.trusted(op, int(k), random_state=random_state)
            supports.append(np.asarray(r.support))
            variances.append(r.variance)
        variances = np.asarray(variances, dtype=float)
    d = np.asarray(op.diag(), dtype=float)
    bp = Breakpoints.of(d)
    ds = bp.sorted_variances
    bounds = {"lambda_max": np.full(K, lambda_max_op(op)),
              "sum_top_variances": np.cumsum(ds[:K])}
    if p <= 3000:
        bounds["gershgorin"] = _gershgorin_bounds(op, K)
    if penalized:
        r, h = penalized_scaling_bound(op)
        if r.size:
            bounds["penalized"] = np.array([float(np.nanmin(h + r * k)) for k in ks])
    certified = np.zeros(K, dtype=bool)
    if certificate:
        cb = np.full(K, np.inf)
        for j, S_ in enumerate(supports):
            c = certify_support(op, S_)
            certified[j] = c.certified
            if c.bound is not None:
                cb[j] = c.bound
        bounds["certificate"] = cb
    if relaxation is None:
        relaxation = p <= 300
    if relaxation:
        pos = ds[ds > 0]
        rhos = np.unique(np.geomspace(pos[min(K, pos.size - 1)] * 0.05, pos[0], relaxation_penalties
                                      + 1)[:-1]) if pos.size > 1 else np.zeros(0)
        best = np.full(K, np.inf)
        for rho in rhos:
            kept = bp.kept(rho)
            if kept.size == 0:
                continue
            Sb = op.block(kept)
            sol = bca_relaxation(Sb, rho, tol=1e-4)
            best = np.minimum(best, sol.dual + rho * ks)
        bounds["dspca"] = best
    allb = np.vstack([np.asarray(v, dtype=float) for v in bounds.values()])
    ub = np.maximum(monotone_upper_bounds(np.nanmin(allb, axis=0)), variances)
    certified |= (ub - variances) <= 1e-9 * np.maximum(variances, 1e-300)
    return VarianceCardinalityPath(cardinalities=ks, variances=variances, upper_bounds=ub,
                                   certified=certified, supports=supports, bounds=bounds,
                                   method=method, total_variance=float(d.sum()),
                                   info={"result": res})


def adjusted_variance(op, components: np.ndarray) -> np.ndarray:
    """Zou–Hastie–Tibshirani adjusted variance of the rows of ``components``.

    With scores Z = A Cᵀ and Z = QR, the adjusted variance of component j is R_jj²:
    the variance it explains beyond the components before it. Computed from the Gram
    matrix G = C Σ Cᵀ = RᵀR by a (semi-definite tolerant) Cholesky, so it needs only
    Σ products. Sums to at most Tr Σ; equals the plain variances when the scores are
    uncorrelated.

    Parameters
    ----------
    op : Operator
        The (undeflated) covariance Σ, p × p.
    components : ndarray of shape (k, p)

    Returns
    -------
    ndarray of shape (k,)

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.diagnostics import adjusted_variance
    >>> S = np.array([[4.0, 2.0], [2.0, 2.0]])
    >>> adjusted_variance(Covariance(S), np.eye(2)).tolist()
    [4.0, 1.0]
    """
    op = _as_op(op)
    p = op.n_features
    try:
        C = np.asarray(components, dtype=float)
    except (TypeError, ValueError):
        C = None
    if C is None or C.ndim not in (1, 2) or C.shape[-1] != p:
        raise InvalidParameterError(
            f"parameter 'components' must be an array (n_components, n_features={p}) (or one "
            f"component, shape ({p},)); got "
            f"{'shape ' + str(C.shape) if C is not None else type(components).__name__}.")
    if not np.all(np.isfinite(C)):
        raise InvalidParameterError("parameter 'components' contains NaN or infinite values.")
    return _adjusted_variance(op, C)


def _adjusted_variance(op, components) -> np.ndarray:
    """:func:`adjusted_variance` without its checks (an operator and checked components)."""
    C = np.atleast_2d(np.asarray(components, dtype=float))
    return _adjusted_variance_of_gram(C @ op.matmat(C.T))


def adjusted_variance_of_gram(G) -> np.ndarray:
    """Adjusted variances R_jj² from the Gram matrix G = C Σ Cᵀ (= ZᵀZ/n of the scores Z)
    of k components, in their order (see :func:`adjusted_variance`).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.diagnostics import adjusted_variance_of_gram
    >>> adjusted_variance_of_gram(np.array([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [4.0, 1.0]
    """
    return _adjusted_variance_of_gram(check_square_matrix(np.atleast_2d(G), "G", symmetric=False,
                                                          allow_empty=True))


def _adjusted_variance_of_gram(G) -> np.ndarray:
    """:func:`adjusted_variance_of_gram` without its checks."""
    G = np.atleast_2d(np.asarray(G, dtype=float))
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
