"""Pieces every single-component solver shares."""
from __future__ import annotations

import numpy as np

from .._linalg import fix_sign, top_eigh
from .._result import ComponentResult
from .._validation import check_random_state  # noqa: F401  (re-exported)
from ..operators import Operator

__all__ = ["make_result", "polish", "polish_loadings", "check_random_state"]


def polish_loadings(op: Operator, support) -> tuple[np.ndarray, float]:
    """Optimal loadings on a fixed support: the leading eigenvector of Σ[I, I].

    Returns the full-length unit vector (zeros off the support, sign fixed) and its
    variance λmax(Σ[I, I]).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.solvers import polish_loadings
    >>> S = Covariance(np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]]))
    >>> x, lam = polish_loadings(S, [1, 0])
    >>> np.round(x, 4).tolist(), round(lam, 4)  # λmax of [[2, 1], [1, 2]]
    ([0.7071, 0.7071, 0.0], 3.0)
    """
    support = np.sort(np.asarray(support, dtype=np.intp))
    B = op.block(support)
    lam, z = top_eigh(B)
    if support.size > 1 and np.min(np.abs(z)) < 1e-10:
        # A repeated top eigenvalue (e.g. Σ[I, I] = I) lets the solver return a vector
        # sparser than I; project the all-ones vector onto the top eigenspace instead,
        # which keeps the same variance and, generically, every index of I.
        w, Z = np.linalg.eigh(B)
        top = Z[:, w >= w[-1] - 1e-10 * max(abs(w[-1]), 1.0)]
        if top.shape[1] > 1:
            y = top @ (top.T @ np.ones(support.size))
            if np.linalg.norm(y) > 1e-8:
                z = y / np.linalg.norm(y)
    x = np.zeros(op.n_features)
    x[support] = z
    return fix_sign(x), lam


def make_result(op: Operator, x: np.ndarray, method: str, *, variance: float | None = None,
                **fields) -> ComponentResult:
    """Build a :class:`ComponentResult` from a loading vector: normalise, fix the sign,
    read the support, compute the variance on ``op`` unless given.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.solvers import make_result
    >>> S = Covariance(np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]]))
    >>> res = make_result(S, [0.0, 3.0, 4.0], "manual")  # normalised
    >>> res.loadings.round(4).tolist(), res.support.tolist(), round(res.variance, 4)
    ([0.0, 0.6, 0.8], [1, 2], 2.96)
    """
    x = np.asarray(x, dtype=float)
    nrm = np.linalg.norm(x)
    if nrm > 0:
        x = x / nrm
    x = fix_sign(x)
    support = np.flatnonzero(x)
    if variance is None:
        variance = float(op.quad(x))
    return ComponentResult(loadings=x, support=support, variance=float(variance),
                           method=method, **fields)


def polish(op: Operator, support, method: str = "polish", **fields) -> ComponentResult:
    """Result whose loadings are optimal for ``support`` (see :func:`polish_loadings`).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.solvers import polish
    >>> S = Covariance(np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]]))
    >>> res = polish(S, [1, 2], "mine", n_iter=1)
    >>> res.method, res.support.tolist(), round(res.variance, 4)
    ('mine', [1, 2], 3.0)
    """
    x, lam = polish_loadings(op, support)
    return make_result(op, x, method, variance=lam, **fields)
