"""The two simplest heuristics of the handbook (§3.2, "Sorting and thresholding").

- ``variance``: keep the ``s`` features of largest variance Σ_ii (O(p log p)).
- ``threshold``: keep the ``s`` largest |entries| of the leading eigenvector of Σ.

Both then polish: the loadings are the leading eigenvector of Σ[I, I] on the
chosen support I, so the reported variance is λmax(Σ[I, I]).
"""
from __future__ import annotations

from numbers import Integral, Real


import numpy as np
from scipy import linalg as sla
from scipy.sparse import linalg as spla

from .._validation import Interval, InvalidParameterError
from ..operators import Operator
from . import register
from ._common import check_random_state, make_result, polish, polish_loadings

__all__ = ["variance", "threshold"]

#: up to this many features, ``threshold`` uses a dense eigendecomposition
DENSE_EIGH_MAX_FEATURES = 500


def _check_problem(op, cardinality, method: str) -> int:
    """The cardinality as an int, at most ``n_features`` (the types of ``op`` and
    ``cardinality`` are the solvers' :data:`~eigensparse.solvers.PROBLEM_CONSTRAINTS`)."""
    p = int(op.n_features)
    if not 1 <= int(cardinality) <= p:
        raise InvalidParameterError(
            f"{method}: parameter 'cardinality' must be an int in [1, n_features={p}]; "
            f"got {cardinality!r}."
        )
    return int(cardinality)


def _top_s(scores: np.ndarray, s: int) -> np.ndarray:
    """Indices of the ``s`` largest scores, ties broken by the lowest index; sorted."""
    order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")
    return np.sort(order[:s])


@register("variance", cost="O(p + s³)", summary="Keep the s features of largest variance, then polish.")
def variance(op: Operator, cardinality: int, *, random_state=None):
    """Keep the ``s`` features of largest variance Σ_ii, then polish.

    Parameters
    ----------
    op : Operator
        Represents the p×p covariance Σ.
    cardinality : int
        Target support size s, 1 <= s <= p.
    random_state : ignored
        Accepted for the common solver signature; the method is deterministic.

    Returns
    -------
    ComponentResult
        ``loadings`` of shape (p,) is the leading eigenvector of Σ[I, I] on the chosen
        support I (shape (s,)), ``variance`` = λmax(Σ[I, I]). ``info["scores"]`` holds
        the diagonal Σ_ii, shape (p,); ``info["selected_support"]`` the chosen I (the
        loadings' support can be smaller when Σ[I, I] has a repeated top eigenvalue).
        Ties in Σ_ii go to the lower index.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("variance").func(S, 3)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 2], 2.145)
    """
    s = _check_problem(op, cardinality, "variance")
    d = op.diag()
    support = _top_s(d, s)
    return polish(op, support, "variance", n_iter=1, converged=True,
                  message=f"kept the {s} features of largest variance",
                  info={"scores": d, "selected_support": support})


def _leading_eigenvector(op: Operator, rng: np.random.Generator, tol: float, maxiter):
    """Leading eigenpair of Σ: dense ``eigh`` for small p, Lanczos (``eigsh``) otherwise.

    Returns ``(lam, v, converged, how)`` with ``v`` of shape (p,), unit norm.
    """
    p = op.n_features
    if p <= DENSE_EIGH_MAX_FEATURES:
        S = op.to_dense()
        if p == 1:
            return float(S[0, 0]), np.ones(1), True, "dense eigh"
        w, V = sla.eigh(S, subset_by_index=[p - 1, p - 1], driver="evr")
        return float(w[0]), V[:, 0], True, "dense eigh"
    lin = spla.LinearOperator((p, p), matvec=op.matvec, matmat=op.matmat, dtype=float)
    v0 = rng.standard_normal(p)  # fixed by random_state (seed 0 when None)
    try:
        w, V = spla.eigsh(lin, k=1, which="LA", v0=v0, tol=tol, maxiter=maxiter)
        return float(w[0]), V[:, 0], True, "eigsh"
    except spla.ArpackNoConvergence as exc:  # pragma: no cover - hard spectra only
        if exc.eigenvalues.size:
            return float(exc.eigenvalues[0]), exc.eigenvectors[:, 0], False, "eigsh (not converged)"
        raise


@register("threshold", cost="O(p·n) per power iteration (leading eigenvector)", summary="Threshold the leading eigenvector of Σ, then polish.",
          constraints={"tol": [Interval(Real, 0, None, closed="left")],
                       "maxiter": [None, Interval(Integral, 1, None, closed="left")]})
def threshold(op: Operator, cardinality: int, *, random_state=None, tol: float = 0.0,
              maxiter: int | None = None):
    """Keep the ``s`` largest |entries| of the leading eigenvector of Σ, then polish.

    Parameters
    ----------
    op : Operator
        Represents the p×p covariance Σ.
    cardinality : int
        Target support size s, 1 <= s <= p.
    random_state : None, int or Generator
        Seeds the Lanczos starting vector ``v0`` (p > 500 only); None means seed 0, so
        the result is always reproducible.
    tol : float, default=0.0
        Relative accuracy of ``eigsh`` (0 means machine precision).
    maxiter : int, optional
        Maximum Arnoldi update iterations of ``eigsh`` (its default when None).

    Returns
    -------
    ComponentResult
        ``loadings`` of shape (p,): the leading eigenvector of Σ[I, I] on the support I
        (shape (s,)) of the s largest |v_i| of the leading eigenvector v of Σ (ties go to
        the lower index). ``info["eigenvalue"]`` is λmax(Σ) (an upper bound on the
        variance of any component, reported as ``upper_bound``),
        ``info["eigenvector"]`` the unthresholded v, shape (p,);
        ``info["selected_support"]`` the chosen I.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("threshold").func(S, 3)
    >>> res.support.tolist(), round(res.variance, 3), round(res.upper_bound, 3)
    ([0, 1, 6], 2.329, 4.219)
    """
    s = _check_problem(op, cardinality, "threshold")
    rng = check_random_state(0 if random_state is None else random_state)
    lam, v, ok, how = _leading_eigenvector(op, rng, tol, maxiter)
    support = _top_s(np.abs(v), s)
    x, var = polish_loadings(op, support)
    return make_result(op, x, "threshold", variance=var, n_iter=1, converged=ok,
                       upper_bound=lam if ok else None,
                       gap=max(lam - var, 0.0) if ok else None,
                       message=f"thresholded the leading eigenvector ({how})",
                       info={"eigenvalue": lam, "eigenvector": v,
                             "selected_support": support})
