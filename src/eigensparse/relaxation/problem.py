"""The DSPCA relaxation on a dense Σ: its solution record and its two objective values.

    φ(ρ) = max { Tr ΣZ − ρ·1ᵀ|Z|1 : Tr Z = 1, Z ⪰ 0 } = min { λmax(Σ + U) : |U_ij| <= ρ }

(d'Aspremont, El Ghaoui, Jordan & Lanckriet 2007; handbook §2.1). Both engines
(:mod:`.first_order`, :mod:`.bca`) return a :class:`RelaxationSolution`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._linalg import lambda_max_symmetric, top_eigh

__all__ = ["RelaxationSolution", "primal_value", "dual_value", "threshold_point"]


@dataclass
class RelaxationSolution:
    """Approximate primal–dual solution of DSPCA on a dense Σ (one penalty).

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.relaxation import first_order_relaxation
    >>> S = es.datasets.load_pitprops().data[:6, :6]
    >>> sol = first_order_relaxation(S, 0.3)
    >>> sol.Z.shape, bool(sol.primal <= sol.dual), bool(sol.relative_gap < 1e-2)
    ((6, 6), True, True)
    """

    Z: np.ndarray  # primal: Tr Z = 1, Z ⪰ 0
    U: np.ndarray  # dual: |U_ij| <= ρ
    primal: float  # Tr ΣZ − ρ‖Z‖₁  (a lower bound on φ)
    dual: float  # λmax(Σ + U)     (an upper bound on φ)
    n_iter: int
    converged: bool
    seconds: float
    state: object = None  # engine-specific warm-start state
    info: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        return self.dual - self.primal

    @property
    def relative_gap(self) -> float:
        return self.gap / max(abs(self.dual), 1e-300)


def primal_value(S, Z, rho) -> float:
    """DSPCA objective Tr ΣZ − ρ·1ᵀ|Z|1.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.relaxation import primal_value
    >>> S = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> primal_value(S, np.full((2, 2), 0.5), rho=0.5)  # Tr ΣZ − ρ·1ᵀ|Z|1 = 3 − 1
    2.0
    """
    return float(np.einsum("ij,ij->", S, Z) - rho * np.abs(Z).sum())


def dual_value(S, U) -> float:
    """DSPCA dual objective λmax(Σ + U).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.relaxation import dual_value
    >>> S = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> round(dual_value(S, np.zeros((2, 2))), 6), round(dual_value(S, -0.5 * np.ones((2, 2))), 6)
    (3.0, 2.0)
    """
    return lambda_max_symmetric(S + U)


def threshold_point(S, rho):
    """(Z, U, primal, dual): the closed-form primal–dual pair of the thresholded covariance.

    U = clip(−Σ, −ρ, ρ) off the diagonal and −ρ on it is dual feasible, and Σ + U is Σ
    soft-thresholded by ρ (diagonal Σ_ii − ρ); Z = vvᵀ, v its leading unit eigenvector,
    is primal feasible. The pair is optimal whenever the signs of v agree with the
    thresholded entries: in particular at a penalty that leaves every off-diagonal
    |Σ_ij| <= ρ (Z = e_i e_iᵀ, value max Σ_ii − ρ), and on groups of duplicated
    features. These are the penalties where tied variances (standardized data,
    correlation matrices, duplicated columns) put φ(ρ) at rounding level beside Σ's
    entries, where an iterative engine loses its accuracy; both engines start from
    this pair and stop at once when it closes the gap.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.relaxation import threshold_point
    >>> S = np.array([[1.0, 0.3], [0.3, 0.8]])  # ρ = 0.5 > |Σ_12|: Σ + U is diagonal
    >>> Z, U, primal, dual = threshold_point(S, 0.5)
    >>> round(primal, 12), round(dual, 12), np.diag(Z).round(6).tolist()
    (0.5, 0.5, [1.0, 0.0])
    """
    S = np.asarray(S, dtype=float)
    S = 0.5 * (S + S.T)
    rho = float(rho)
    U = np.clip(-S, -rho, rho)
    np.fill_diagonal(U, -rho)
    dual, v = top_eigh(S + U)
    Z = np.outer(v, v)
    # the best single feature is primal feasible too (value max Σ_ii − ρ)
    i = int(np.argmax(np.diag(S)))
    primal = primal_value(S, Z, rho)
    if not primal >= float(S[i, i]) - rho:
        Z = np.zeros_like(S)
        Z[i, i] = 1.0
        primal = float(S[i, i]) - rho
    return Z, U, float(primal), float(dual)
