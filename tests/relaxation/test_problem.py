"""The DSPCA problem (``relaxation/problem.py``): the primal and dual values of
max Tr(ΣZ) − ρ‖Z‖₁ over Tr Z = 1, Z ⪰ 0, weak duality, and the closed-form feasible pair
of the threshold point."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from eigensparse.relaxation.problem import dual_value, primal_value, threshold_point


def _correlation():
    X = load_breast_cancer().data
    Xs = (X - X.mean(0)) / X.std(0)
    return Xs.T @ Xs / X.shape[0]


def test_threshold_point_is_a_feasible_pair():
    S = _correlation()
    for rho in (0.3, 0.9, 0.999):
        Z, U, primal, dual = threshold_point(S, rho)
        assert abs(np.trace(Z) - 1) < 1e-12 and np.linalg.eigvalsh(Z).min() > -1e-12
        assert np.abs(U).max() <= rho + 1e-15
        assert primal <= dual + 1e-12  # weak duality


def test_weak_duality_on_random_feasible_pairs():
    """For every Z (Tr Z = 1, Z ⪰ 0) and every U with |U_ij| <= ρ:
    Tr ΣZ − ρ‖Z‖₁ <= λmax(Σ + U)."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((12, 6))
    S = A.T @ A / 12
    rho = 0.2
    for _ in range(50):
        B = rng.standard_normal((6, 3))
        Z = B @ B.T
        Z /= np.trace(Z)
        U = rng.uniform(-rho, rho, (6, 6))
        U = 0.5 * (U + U.T)
        assert primal_value(S, Z, rho) <= dual_value(S, U) + 1e-12
    # the values themselves, against their formulas
    assert primal_value(S, Z, rho) == pytest.approx(np.trace(S @ Z) - rho * np.abs(Z).sum())
    assert dual_value(S, U) == pytest.approx(np.linalg.eigvalsh(S + U)[-1], rel=1e-12)


def test_threshold_point_is_optimal_when_the_penalty_exceeds_every_covariance():
    """ρ >= every |Σ_ij|, i != j: the optimum is max Σ_ii − ρ on one feature, and the
    closed-form pair proves it (primal = dual)."""
    S = np.array([[3.0, 0.4, -0.2], [0.4, 2.0, 0.1], [-0.2, 0.1, 1.0]])
    Z, U, primal, dual = threshold_point(S, 0.5)
    assert primal == pytest.approx(2.5, abs=1e-12) and dual == pytest.approx(2.5, abs=1e-12)
    np.testing.assert_allclose(Z, np.diag([1.0, 0.0, 0.0]), atol=1e-12)
