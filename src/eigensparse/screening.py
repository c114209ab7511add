"""Safe feature elimination and penalty grids for the ℓ0 / ℓ1 penalized problems.

Zhang & El Ghaoui (NIPS 2011, Theorem 2.1), after d'Aspremont, Bach & El Ghaoui (2008):
with Σ = AᵀA (columns a_i), the ℓ0-penalized problem

    ψ(ρ) = max_{‖x‖₂=1} xᵀΣx − ρ‖x‖₀ = max_{‖ξ‖₂=1} Σ_i ((a_iᵀξ)² − ρ)₊

has its optimal support inside ``{i : (a_iᵀξ)² > ρ}``. Since (a_iᵀξ)² <= ‖a_i‖² = Σ_ii,
every feature with **Σ_ii <= ρ** is absent from every optimal support, whatever ξ: the
test is exact (never removes a feature of an optimal support) and costs only the
diagonal. The 2011 paper then solves the DSPCA relaxation on the kept features only;
that reduced relaxation still bounds ψ(ρ) from above (see :mod:`eigensparse.bounds`).

Features are kept when Σ_ii > ρ, so ``ρ = d_(k)`` (the k-th largest variance) keeps
fewer than k features: the sorted variances are the natural breakpoints of a penalty
search for a target cardinality (:func:`penalty_breakpoints`).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ._validation import InvalidParameterError
from .operators import Operator, as_operator

__all__ = ["Screening", "safe_elimination", "penalty_breakpoints", "penalty_for_working_set",
           "max_useful_penalty"]


@dataclass(frozen=True)
class Screening:
    """Outcome of :func:`safe_elimination`.

    Attributes
    ----------
    kept : ndarray of int
        Sorted indices of the features that survive (Σ_ii > ρ).
    eliminated : ndarray of int
        Sorted indices of the features removed (Σ_ii <= ρ).
    penalty : float
        The ρ used.
    n_features : int
        p, the number of features before elimination.
    """

    kept: np.ndarray
    eliminated: np.ndarray
    penalty: float
    n_features: int

    @property
    def working_set_size(self) -> int:
        """Number of kept features: the order of the matrix a solver has to handle."""
        return int(self.kept.size)

    @property
    def reduction(self) -> float:
        """p / working-set size (inf when nothing is kept)."""
        return float("inf") if self.kept.size == 0 else self.n_features / self.kept.size


def _diag_of(data_or_op_or_diag) -> np.ndarray:
    if isinstance(data_or_op_or_diag, Operator):
        return np.asarray(data_or_op_or_diag.diag(), dtype=float)
    arr = np.asarray(data_or_op_or_diag)
    if arr.ndim == 1:
        return arr.astype(float)
    return as_operator(data_or_op_or_diag).diag()


def _check_penalty(penalty, where: str) -> float:
    if (isinstance(penalty, bool) or not isinstance(penalty, numbers.Real)
            or not np.isfinite(penalty) or penalty < 0):
        raise InvalidParameterError(
            f"{where}: parameter 'penalty' must be a finite real number >= 0; got {penalty!r}.")
    return float(penalty)


def safe_elimination(op, penalty: float) -> Screening:
    """Features that can be dropped before solving at penalty ``ρ``.

    Parameters
    ----------
    op : Operator, data matrix or 1-D array of variances
        The covariance (only its diagonal is read).
    penalty : float >= 0
        The penalty ρ.

    Returns
    -------
    Screening
        ``kept`` = {i : Σ_ii > ρ}; ``working_set_size``; the rest is ``eliminated``.
        Exact for the ℓ0-penalized problem: no feature of an optimal support is removed.
    """
    rho = _check_penalty(penalty, "safe_elimination")
    d = _diag_of(op)
    kept = np.flatnonzero(d > rho)
    elim = np.flatnonzero(~(d > rho))
    return Screening(kept=kept, eliminated=elim, penalty=rho, n_features=int(d.size))


def penalty_breakpoints(op) -> np.ndarray:
    """The sorted variances d_(1) >= d_(2) >= … >= d_(p) (the ρ breakpoints).

    With ρ in [d_(k+1), d_(k)) exactly k features survive elimination (ties aside), so a
    search for a target cardinality s only has to look at ρ < d_(s) and can bisect over
    these values before refining between two consecutive ones.
    """
    d = _diag_of(op)
    return np.sort(d)[::-1]


def penalty_for_working_set(op, size: int) -> float:
    """The largest ρ (a sorted variance) that keeps at least ``size`` features.

    Returns d_(size+1) (so features 1..size, and ties of d_(size+1) excluded, survive), or
    0 when ``size >= p``.
    """
    d = penalty_breakpoints(op)
    if not isinstance(size, numbers.Integral) or size < 1:
        raise InvalidParameterError(
            f"penalty_for_working_set: parameter 'size' must be an int >= 1; got {size!r}.")
    if size >= d.size:
        return 0.0
    return float(max(d[size], 0.0))


def max_useful_penalty(op) -> float:
    """max_i Σ_ii: at or above it every feature is eliminated (the solution is empty)."""
    d = _diag_of(op)
    return float(d.max()) if d.size else 0.0
