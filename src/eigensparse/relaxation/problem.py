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
    """Approximate primal–dual solution of DSPCA on a dense Σ (one penalty)."""

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
    """DSPCA objective Tr ΣZ − ρ·1ᵀ|Z|1."""
    return float(np.einsum("ij,ij->", S, Z) - rho * np.abs(Z).sum())


def dual_value(S, U) -> float:
    """DSPCA dual objective λmax(Σ + U)."""
    return lambda_max_symmetric(S + U)
