"""Upper bounds and optimality certificates for sparse PCA.

Problems (Σ = AᵀA ⪰ 0, columns a_i; ρ >= 0; s a cardinality):

- cardinality-constrained:  v(s) = max { xᵀΣx : ‖x‖₂ = 1, ‖x‖₀ <= s };
- ℓ0-penalized:             ψ(ρ) = max_{‖x‖₂=1} xᵀΣx − ρ‖x‖₀ = max_{‖ξ‖=1} Σ_i ((a_iᵀξ)² − ρ)₊;
- DSPCA relaxation:         φ(ρ) = max { Tr ΣZ − ρ‖Z‖₁ : Tr Z = 1, Z ⪰ 0 } = min_{|U|<=ρ} λmax(Σ+U).

Every bound here rests on weak duality, v(s) <= ψ(ρ) + ρs for every ρ >= 0, together with
one of these upper bounds on ψ(ρ):

- **DSPCA dual**: ψ(ρ) <= φ(ρ) <= λmax(Σ + U) for any |U_ij| <= ρ (a rank-one Z = xxᵀ has
  ‖Z‖₁ = ‖x‖₁² <= ‖x‖₀); by safe elimination Σ may be restricted to {i : Σ_ii > ρ}.
- **ℓ0 semidefinite dual** (d'Aspremont, Bach & El Ghaoui 2008; handbook Prop. 1):
  ψ(ρ) <= λmax(Σ_i Y_i) for any Y_i ⪰ 0, Y_i ⪰ B_i = a_ia_iᵀ − ρI. Two choices are used:
  Y_i = (1 − ρ/Σ_ii)₊ a_ia_iᵀ, giving λmax(C^½ΣC^½) with C = diag((1 − ρ/Σ_ii)₊) (cheap,
  needs only Σ; see :func:`penalized_scaling_bound`), and the dual variables of handbook
  Prop. 2 built from a candidate support (:func:`certify_support`), which *certify* the
  support optimal when they close the gap.

Trivial bounds on v(s) are also provided: λmax(Σ), the sum of the s largest variances
(λmax(Σ_II) <= Tr Σ_II), s·max Σ_ii, and a Gershgorin bound.

The bounds live in :mod:`._cheap` (trace, Gershgorin, λmax, the working-set split),
:mod:`._dual` (DSPCA's dual, the ℓ0 dual, handbook Proposition 2) and :mod:`._threshold`
(DSPCA's dual at the soft-thresholded matrix with safe elimination, for one component and
for the total of several disjoint ones), with :mod:`._kyfan` (the row-shift dual summed by
Ky Fan, for that total).
"""
from __future__ import annotations

from ._cheap import (BOUND_DENSE, BOUND_GERSHGORIN, BOUND_SPLIT, _full_problem_bound,
                     _gershgorin_bounds, _lambda_max_upper_bound, _partner_sums, _small_bounds,
                     cardinality_upper_bounds, full_problem_bound, gershgorin_bounds,
                     lambda_max_upper_bound, monotone_upper_bounds, partner_sums)
from ._common import CERT_RTOL, _as_op, _check_card
from ._dual import (Certificate, certify_support, dspca_cardinality_bound, dspca_dual_bound,
                    penalized_scaling_bound)
from ._threshold import BOUND_THRESHOLD, BOUND_TOTAL, threshold_bound, total_upper_bound

__all__ = [
    "Certificate",
    "certify_support",
    "dspca_dual_bound",
    "dspca_cardinality_bound",
    "penalized_scaling_bound",
    "cardinality_upper_bounds",
    "full_problem_bound",
    "lambda_max_upper_bound",
    "partner_sums",
    "gershgorin_bounds",
    "monotone_upper_bounds",
    "threshold_bound",
    "total_upper_bound",
]
