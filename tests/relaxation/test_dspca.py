"""DSPCA relaxation: block coordinate ascent vs first-order, elimination, penalty search."""
from itertools import combinations

import numpy as np
import pytest

from eigensparse import Covariance
from eigensparse.screening import penalty_breakpoints, safe_elimination
from eigensparse.relaxation import bca_relaxation, first_order_relaxation, primal_value


def _wishart(p, seed, m=None):
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((m or 2 * p, p))
    return F.T @ F / (m or 2 * p)


def _exhaustive_l0(S, rho):
    """Optimal support of max_x xᵀΣx − ρ‖x‖₀ (the empty set has value 0)."""
    p = S.shape[0]
    best, arg = 0.0, ()
    for k in range(1, p + 1):
        for I in combinations(range(p), k):
            v = np.linalg.eigvalsh(S[np.ix_(I, I)])[-1] - rho * k
            if v > best + 1e-12:
                best, arg = v, I
    return best, set(arg)


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


def test_bca_primal_feasible_and_dual_bound_on_larger_instance():
    S = _wishart(40, 3)
    rho = 0.3 * np.diag(S).min()
    sol = bca_relaxation(S, rho, tol=1e-3)
    assert np.linalg.eigvalsh(sol.Z).min() >= -1e-10
    assert np.trace(sol.Z) == pytest.approx(1.0)
    assert sol.dual >= sol.primal - 1e-9


def test_safe_elimination_keeps_every_optimal_feature():
    for seed in range(3):
        rng = np.random.default_rng(seed)
        p = 8
        A = rng.standard_normal((12, p)) * rng.uniform(0.3, 2.0, p)  # spread variances
        S = A.T @ A / 12
        d = np.diag(S)
        for rho in np.concatenate([np.sort(d)[:-1], np.sort(d)[:-1] * 1.0001, [0.01]]):
            _, I = _exhaustive_l0(S, rho)
            kept = set(safe_elimination(Covariance(S), rho).kept.tolist())
            assert I <= kept, (seed, rho, I, kept)


def test_breakpoints_are_sorted_variances():
    S = _wishart(7, 0)
    bp = penalty_breakpoints(Covariance(S))
    assert np.all(np.diff(bp) <= 0)
    for k in range(1, 7):
        assert safe_elimination(Covariance(S), bp[k]).working_set_size <= k


def _spiked(seed, theta=1.0, p=100, m=200, k=20):
    """Spiked model of Zhang & El Ghaoui (2011): Σ = θuuᵀ + VVᵀ/m, card(u) = k."""
    rng = np.random.default_rng(seed)
    u = np.zeros(p)
    I = rng.choice(p, k, replace=False)
    u[I] = rng.choice([-1.0, 1.0], k) / np.sqrt(k)
    V = rng.standard_normal((p, m))
    return theta * np.outer(u, u) + V @ V.T / m, u != 0


def _auroc(truth, score):
    pos, neg = score[truth], score[~truth]
    return float(np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])))


def test_dspca_beats_thresholded_pca_on_spiked_model():
    pca, dsp = [], []
    for seed in range(4):
        S, truth = _spiked(seed)
        _, V = np.linalg.eigh(S)
        pca.append(_auroc(truth, np.abs(V[:, -1])))
        sol = bca_relaxation(S, 0.5 / np.sqrt(200), tol=1e-3)
        _, Q = np.linalg.eigh(sol.Z)
        dsp.append(_auroc(truth, np.abs(Q[:, -1])))
    assert np.mean(dsp) > np.mean(pca) + 0.02, (np.mean(dsp), np.mean(pca))
