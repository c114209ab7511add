"""Result objects returned by every solver and by :func:`eigensparse.sparse_pca`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["ComponentResult", "SparsePCAResult"]


@dataclass(frozen=True)
class ComponentResult:
    """One sparse principal component found by a single-component solver.

    Attributes
    ----------
    loadings : ndarray of shape (n_features,)
        Unit-norm loading vector, zero outside ``support``; sign fixed by
        :func:`eigensparse._linalg.fix_sign` (largest-|.| entry positive).
    support : ndarray of int, shape (cardinality,)
        Sorted indices of the nonzero loadings.
    variance : float
        ``loadings @ Σ @ loadings`` on the operator the solver saw.
    method : str
        Registry name of the solver.
    n_iter : int
        Iterations (or greedy steps) performed.
    converged : bool
        Whether the solver's own stopping rule was met.
    upper_bound : float or None
        An upper bound on the optimal value of the problem solved, if known.
    gap : float or None
        ``upper_bound - variance`` (or a duality gap), if known.
    message : str
        Human-readable termination message.
    info : dict
        Solver-specific extras (paths, objectives, penalties, timings).
    """

    loadings: np.ndarray
    support: np.ndarray
    variance: float
    method: str
    n_iter: int = 0
    converged: bool = True
    upper_bound: float | None = None
    gap: float | None = None
    message: str = ""
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def cardinality(self) -> int:
        return int(self.support.size)


@dataclass(frozen=True)
class SparsePCAResult:
    """Several sparse components, as returned by :func:`eigensparse.sparse_pca`.

    Attributes
    ----------
    components : ndarray of shape (n_components, n_features)
        Unit-norm rows.
    variances : ndarray of shape (n_components,)
        Per-component ``xᵢᵀ Σ xᵢ`` on the *original* (undeflated) covariance.
    explained_variance : ndarray of shape (n_components,)
        Adjusted variance (Zou, Hastie & Tibshirani 2006): with ``Σ^{1/2} Xᵀ = Q R``
        (QR of the component scores), ``R[i, i]**2``. Correlated components are not
        double counted; the sum equals the variance of the projection of the data
        onto the span of the components when the components are orthogonal.
    supports : list of ndarray
        Sorted support of each component.
    results : list of ComponentResult
        The per-component solver results (variances there are on the deflated operator).
    total_variance : float
        ``Tr Σ`` of the original operator.
    method, deflation : str
    """

    components: np.ndarray
    variances: np.ndarray
    explained_variance: np.ndarray
    supports: list
    results: list
    total_variance: float
    method: str
    deflation: str
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def explained_variance_ratio(self) -> np.ndarray:
        """``explained_variance / total_variance``; all zeros (with a RuntimeWarning) when
        the total variance is 0 (constant data), never NaN."""
        if not self.total_variance > 0:
            import warnings

            warnings.warn("total variance is 0 (constant data): explained_variance_ratio is "
                          "set to 0.", RuntimeWarning, stacklevel=2)
            return np.zeros_like(np.asarray(self.explained_variance, dtype=float))
        return self.explained_variance / self.total_variance
