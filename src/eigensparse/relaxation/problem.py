"""The DSPCA relaxation on a dense Σ: its solution record and its two objective values.

    φ(ρ) = max { Tr ΣZ − ρ·1ᵀ|Z|1 : Tr Z = 1, Z ⪰ 0 } = min { λmax(Σ + U) : |U_ij| <= ρ }

(d'Aspremont, El Ghaoui, Jordan & Lanckriet 2007; handbook §2.1). Both engines
(:mod:`.first_order`, :mod:`.bca`) return a :class:`RelaxationSolution`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._linalg import lambda_max_symmetric

__all__ = ["RelaxationSolution", "primal_value", "dual_value"]


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
