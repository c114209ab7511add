"""The first-order DSPCA engine (``relaxation/first_order.py``) against block coordinate
ascent: weak duality, agreement of the optimal values, a feasible primal Z."""
import numpy as np
import pytest

from eigensparse.relaxation.bca import bca_relaxation
from eigensparse.relaxation.first_order import first_order_relaxation
from eigensparse.relaxation.problem import primal_value


def _wishart(p, seed, m=None):
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((m or 2 * p, p))
    return F.T @ F / (m or 2 * p)


@pytest.mark.parametrize("seed", [0, 1])
def test_bca_and_first_order_agree(seed):
    S = _wishart(6, seed)
    rho = 0.5 * np.diag(S).min()
    a = bca_relaxation(S, rho, tol=1e-6, max_sweeps=3000)
    b = first_order_relaxation(S, rho, tol=1e-4, max_iter=60000)
    assert b.converged
    # weak duality, then agreement to 1e-4 relative
    assert a.primal <= b.dual + 1e-9
    assert b.primal <= a.primal + 1e-9 * abs(a.primal)
    assert abs(a.primal - b.dual) <= 1e-4 * abs(b.dual)
    assert abs(a.primal - b.primal) <= 1e-4 * abs(b.dual)
    for sol in (a, b):
        w = np.linalg.eigvalsh(sol.Z)
        assert w.min() >= -1e-10
        assert np.trace(sol.Z) == pytest.approx(1.0, abs=1e-10)
        assert np.abs(sol.U).max() <= rho * (1 + 1e-12)
        assert sol.primal == pytest.approx(primal_value(S, sol.Z, rho), rel=1e-12)
