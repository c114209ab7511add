"""Column-selection solvers Scol/Mcol (``solvers/_colpca.py``): the selection order
against a direct evaluation of the paper's criterion, and the power stage's options."""
from __future__ import annotations

import numpy as np
import pytest

from eigensparse._validation import InvalidParameterError
from eigensparse.operators import DenseData
from eigensparse.solvers._colpca import mcol, scol

RUN = {"scol": scol, "mcol": mcol}


def run(method, op, s, **kw):
    return RUN[method](op, s, **kw)


def _reference_scol_order(S, s, c):
    """Direct evaluation of the paper's criterion ‖V(x + αe_j)‖² (with VᵀV = S)."""
    p = S.shape[0]
    x = np.zeros(p)
    J = []
    while len(J) < s:
        gains = {}
        for j in range(p):
            if j in J:
                continue
            best = -np.inf
            for a in (1.0, -1.0):
                y = x.copy()
                y[j] += a
                best = max(best, y @ S @ y)
            gains[j] = best
        new = sorted(gains, key=lambda j: (-gains[j], j))[: min(c, s - len(J))]
        g = S @ x
        for j in new:
            x[j] = 1.0 if g[j] >= 0 else -1.0
        J += new
    return J


@pytest.mark.parametrize("seed", range(8))
def test_scol_selection_matches_paper_criterion(seed, low_rank_noise):
    rng = np.random.default_rng(seed)
    p = 14
    X = low_rank_noise(rng, 30, p)
    op = DenseData(X)
    S = op.to_dense()
    for c in (1, 3):
        ref = _reference_scol_order(S, 9, c)
        res = run("mcol", op, 9, n_per_step=c)
        assert list(res.info["selection_order"]) == ref
        assert res.info["n_selection_loops"] == -(-9 // c)


def test_power_stage_options():
    rng = np.random.default_rng(11)
    op = DenseData(rng.standard_normal((50, 20)))
    raw = run("scol", op, 6, power_iter=0)
    J = raw.support
    assert np.allclose(np.abs(raw.loadings[J]), 1 / np.sqrt(6))
    full = run("scol", op, 6, power_iter=5000, tol=1e-13)
    assert full.converged
    assert full.variance == pytest.approx(np.linalg.eigvalsh(op.block(full.support))[-1],
                                          rel=1e-10)
    assert full.variance >= raw.variance
    short = run("scol", op, 6, power_iter=1, tol=0.0)
    assert not short.converged and short.n_iter == 1
    assert run("mcol", op, 20).info["n_per_step"] == 2
    with pytest.raises(InvalidParameterError, match="n_per_step"):
        run("mcol", op, 6, n_per_step=0)
    with pytest.raises(InvalidParameterError, match="power_iter"):
        run("scol", op, 6, power_iter=-1)
