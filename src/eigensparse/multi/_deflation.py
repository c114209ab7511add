"""Deflation: several components from a single-component solver.

Schemes (Mackey, NIPS 2009, as cited in the handbook), for a found component x:

- ``"hotelling"``  Σ ← Σ − (xᵀΣx) xxᵀ
- ``"projection"`` Σ ← (I − xxᵀ) Σ (I − xxᵀ)
- ``"schur"``      Σ ← Σ − Σxxᵀ Σ / xᵀΣx  (scores of later components are
  uncorrelated with earlier ones)
- ``"orthogonal"`` orthogonalized projection: q = (I − QQᵀ)x/‖·‖ over the earlier
  q's, then Σ ← (I − qqᵀ) Σ (I − qqᵀ)
- ``"disjoint"``   variables used by earlier components are removed (Σ ← Σ[R, R])
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._result import with_info
from .._validation import InvalidParameterError
from ..operators import HotellingDeflated, Operator, ProjectionDeflated, SchurDeflated

__all__ = ["DEFLATIONS", "deflate", "run_deflation"]

DEFLATIONS = ("schur", "projection", "orthogonal", "hotelling", "disjoint")


def deflate(op: Operator, x: np.ndarray, scheme: str, Q: list | None = None) -> Operator:
    """One deflation step of ``op`` by the unit vector ``x`` (not for ``"disjoint"``).

    ``Q`` (list of earlier orthonormalised vectors) is used and extended by
    ``"orthogonal"``.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.multi import deflate
    >>> S = Covariance(np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]]))
    >>> x = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)
    >>> D = deflate(S, x, "schur")
    >>> type(D).__name__, np.round(D.matvec(x), 12).tolist()
    ('SchurDeflated', [0.0, 0.0, 0.0])
    """
    if scheme == "hotelling":
        return HotellingDeflated(op, x)
    if scheme == "projection":
        return ProjectionDeflated(op, x)
    if scheme == "schur":
        return SchurDeflated(op, x)
    if scheme == "orthogonal":
        Q = [] if Q is None else Q
        q = np.array(x, dtype=float)
        for qi in Q:  # twice for numerical orthogonality
            q -= qi * (qi @ q)
        for qi in Q:
            q -= qi * (qi @ q)
        nq = np.linalg.norm(q)
        if nq < 1e-12:  # x already in span(Q): nothing new to remove
            return op
        q /= nq
        Q.append(q)
        return ProjectionDeflated(op, q)
    raise InvalidParameterError(f"parameter 'deflation' must be one of {DEFLATIONS}; got {scheme!r}.")


def run_deflation(op: Operator, solve: Callable, cardinalities: list, scheme: str,
                  progress=None, found: list | None = None) -> list:
    """Solve for ``len(cardinalities)`` components, deflating between solves.

    ``solve(operator, s, t)`` returns a ComponentResult for component ``t``. Returned
    results have loadings on ``op``'s features; their ``variance`` is on the operator the
    solver saw (the deflated one), the caller recomputes variances on ``op``.
    ``found`` (optional): results already found for the first components (loadings on
    ``op``'s features), replayed as deflation steps; the list is appended to as
    components are found, so a caller that interrupts ``solve`` keeps them.
    An exception raised by ``solve`` (e.g. the topic pipeline's request for a larger
    working set) leaves ``found`` holding the components found before it.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.multi import run_deflation
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> greedy = get_solver("greedy").func
    >>> solve = lambda op, s, t: greedy(op, s)  # component t of cardinality s
    >>> [c.support.tolist() for c in run_deflation(S, solve, [3, 3], "disjoint")]
    [[0, 1, 8], [2, 3, 5]]
    >>> [c.support.tolist() for c in run_deflation(S, solve, [3, 3], "schur")]
    [[0, 1, 8], [7, 9, 11]]
    """
    if scheme not in DEFLATIONS:
        raise InvalidParameterError(
            f"parameter 'deflation' must be one of {DEFLATIONS}; got {scheme!r}.")
    p = op.n_features
    if scheme == "disjoint" and sum(c for c in cardinalities if c is not None) > p:
        raise InvalidParameterError(
            f"deflation='disjoint' needs sum(cardinality) <= n_features={p}; "
            f"got cardinalities summing to {sum(cardinalities)}.")
    results = [] if found is None else found
    cur, Q = op, []
    remaining = np.arange(p)
    for t, s in enumerate(cardinalities):
        if t < len(results):  # already found: replay its deflation step
            if scheme == "disjoint":
                remaining = np.setdiff1d(remaining, results[t].support, assume_unique=True)
            elif t + 1 < len(cardinalities):
                cur = deflate(cur, results[t].loadings, scheme, Q)
            continue
        if scheme == "disjoint":
            sub = op.restrict(remaining) if remaining.size < p else op
            r = solve(sub, s, t)
            x = np.zeros(p)
            x[remaining] = r.loadings
            supp = remaining[r.support]
            r = with_info(r, {"loadings": x, "support": np.sort(supp)})  # bound kept pending
            remaining = np.setdiff1d(remaining, supp, assume_unique=True)
        else:
            r = solve(cur, s, t)
            if t + 1 < len(cardinalities):
                cur = deflate(cur, r.loadings, scheme, Q)
        results.append(r)
        if progress is not None:
            progress.update(1)
    return results
