"""Block coordinate ascent for the DSPCA relaxation (``relaxation/bca.py``): a feasible
primal below its dual bound, and a better support than thresholded PCA on the spiked
model. Its agreement with the first-order engine is in ``test_first_order.py``."""
import numpy as np
import pytest

from eigensparse.relaxation.bca import bca_relaxation


def _wishart(p, seed, m=None):
    rng = np.random.default_rng(seed)
    F = rng.standard_normal((m or 2 * p, p))
    return F.T @ F / (m or 2 * p)


def test_bca_primal_feasible_and_dual_bound_on_larger_instance():
    S = _wishart(40, 3)
    rho = 0.3 * np.diag(S).min()
    sol = bca_relaxation(S, rho, tol=1e-3)
    assert np.linalg.eigvalsh(sol.Z).min() >= -1e-10
    assert np.trace(sol.Z) == pytest.approx(1.0)
    assert sol.dual >= sol.primal - 1e-9


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
