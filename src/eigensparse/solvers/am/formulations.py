"""The table of the 8 formulations: variance piece (L2 / L1) × sparsity piece (ℓ0 / ℓ1,
constraint / penalty). One AM iteration is ``V = variance.step(products, X)`` then
``T = sparsity.xstep(V, level)``; the loop in :mod:`.engine` reads nothing else.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .steps import (_l0, _l1, hard_threshold, l0_penalty_threshold, l1_penalty_threshold,
                    namespace_of, soft_threshold_l1_ball)

__all__ = ["FORMULATIONS", "Formulation", "VariancePiece", "SparsityPiece", "STRATEGIES",
           "INITS"]


def _l2_step(products, X):
    """L2 variance: ``y = Ax/‖Ax‖₂``, ``v = Aᵀy = Σx/√(xᵀΣx)`` (Σ suffices)."""
    W = products.sigma(X)
    if not isinstance(W, np.ndarray):  # on a device
        xp = namespace_of(W)
        f = xp.sqrt(xp.clip(xp.sum(X * W, axis=0), min=0.0))
        return W / xp.where(f > 0, f, xp.ones_like(f)), f
    f = np.sqrt(np.clip(np.einsum("ij,ij->j", X, W), 0.0, None))
    return W / np.where(f > 0, f, 1.0), f


def _l1_step(products, X):
    """L1 variance: ``y = sign(Ax)``, ``v = Aᵀy`` (needs A)."""
    U = products.dot(X)
    if not isinstance(U, np.ndarray):  # on a device
        xp = namespace_of(U)
        return products.rdot(xp.sign(U)), xp.sum(xp.abs(U), axis=0)
    return products.rdot(np.sign(U)), np.abs(U).sum(axis=0)


@dataclass(frozen=True)
class VariancePiece:
    """How variance is measured: ``‖Ax‖₂`` (``"l2"``) or ``‖Ax‖₁`` (``"l1"``).

    Examples
    --------
    >>> from eigensparse.solvers.am import FORMULATIONS
    >>> l2, l1 = FORMULATIONS["l2_l0_con"].variance, FORMULATIONS["l1_l0_con"].variance
    >>> (l2.name, l2.needs_data), (l1.name, l1.needs_data)  # ‖Ax‖₁ needs the data A
    (('l2', False), ('l1', True))
    """

    name: str
    #: the y-step and the product back: (products, X) -> (V = Aᵀy, f = ‖Ax‖ per column)
    step: Callable
    #: needs the data square root A (``op.dot``/``op.rdot``), not only Σ
    needs_data: bool
    #: ‖y‖₂ = 1, so |v_i| <= √Σ_ii: working sets and their certificates apply
    screenable: bool


@dataclass(frozen=True)
class SparsityPiece:
    """How sparsity is induced: the x-step operator and, for penalties, the measure.

    Examples
    --------
    >>> from eigensparse.solvers.am import FORMULATIONS
    >>> piece = FORMULATIONS["l2_l0_pen"].sparsity
    >>> piece.name, piece.usage, piece.constrained, piece.xstep.__name__
    ('l0', 'pen', False, 'l0_penalty_threshold')
    """

    name: str  # "l0" or "l1"
    usage: str  # "con" (constraint, level = s) or "pen" (penalty, level = γ)
    #: x-step: (V, level) -> (T(V) unnormalised, threshold per column)
    xstep: Callable[[np.ndarray, float], tuple[np.ndarray, np.ndarray]]
    #: penalty measure ‖x‖₀ or ‖x‖₁ per column (unused for constraints)
    measure: Callable[[np.ndarray], np.ndarray]
    #: the penalized objective squares the variance norm (the L0 penalties)
    squared: bool = False

    @property
    def constrained(self) -> bool:
        return self.usage == "con"


@dataclass(frozen=True)
class Formulation:
    """One of the 8 formulations: a variance piece and a sparsity piece.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.solvers.am import FORMULATIONS
    >>> sorted(FORMULATIONS)[:4]
    ['l1_l0_con', 'l1_l0_pen', 'l1_l1_con', 'l1_l1_pen']
    >>> FORMULATIONS["l2_l0_con"].description
    'max ‖Ax‖₂ subject to ‖x‖₀ <= s, ‖x‖₂ <= 1'
    >>> FORMULATIONS["l2_l1_pen"].objective(np.array([2.0]), np.array([[0.6], [0.8]]), 0.5)
    array([1.3])
    """

    name: str
    variance: VariancePiece
    sparsity: SparsityPiece
    description: str

    def objective(self, f: np.ndarray, X: np.ndarray, level: float) -> np.ndarray:
        """The formulation's objective at the columns of X, given ``f = ‖AX‖``."""
        sp = self.sparsity
        if sp.constrained:
            return f
        g = f * f if sp.squared else f
        return g - level * sp.measure(X)


L2 = VariancePiece("l2", _l2_step, needs_data=False, screenable=True)
L1 = VariancePiece("l1", _l1_step, needs_data=True, screenable=False)
_SPARSITY = {
    ("l0", "con"): SparsityPiece("l0", "con", hard_threshold, _l0),
    ("l1", "con"): SparsityPiece("l1", "con", soft_threshold_l1_ball, _l1),
    ("l0", "pen"): SparsityPiece("l0", "pen", l0_penalty_threshold, _l0, squared=True),
    ("l1", "pen"): SparsityPiece("l1", "pen", l1_penalty_threshold, _l1),
}
_DESCR = {
    ("l0", "con"): "subject to ‖x‖₀ <= s",
    ("l1", "con"): "subject to ‖x‖₁ <= √s",
    ("l0", "pen"): "− γ‖x‖₀",
    ("l1", "pen"): "− γ‖x‖₁",
}

#: the 8 formulations of 24am, by name ``<variance>_<sparsity>_<con|pen>``
FORMULATIONS: dict[str, Formulation] = {}
for _v in (L2, L1):
    for (_s, _u), _piece in _SPARSITY.items():
        _norm = f"‖Ax‖{'₂' if _v.name == 'l2' else '₁'}"
        _obj = (f"max {_norm}{'²' if _piece.squared else ''} {_DESCR[_s, _u]}"
                if _u == "pen" else f"max {_norm} {_DESCR[_s, _u]}")
        FORMULATIONS[f"{_v.name}_{_s}_{_u}"] = Formulation(
            f"{_v.name}_{_s}_{_u}", _v, _piece, _obj + ", ‖x‖₂ <= 1")
del _v, _s, _u, _piece, _norm, _obj

STRATEGIES = ("sequential", "batch", "all", "otf")
INITS = ("auto", "coordinates", "variance", "random")
