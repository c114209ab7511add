"""The low-rank bound of ``method="exact"`` (eigensparse.solvers._exact._lowrank) against
brute force: never below the best support's value, with variables fixed in or not."""
import itertools

import numpy as np
import pytest

from eigensparse.solvers._exact._bounds import block_lmax, shifted_block
from eigensparse.solvers._exact._lowrank import lowrank_bound, lowrank_node, lowrank_screen


def _matrix(kind, p, seed):
    rng = np.random.default_rng(seed)
    if kind == "spike":  # a nearly sparse top eigenvector: where the bound is tight
        u = np.zeros(p)
        u[:4] = rng.uniform(0.5, 1.0, 4)
        X = rng.standard_normal((3 * p, p)) * 0.3 + np.outer(rng.standard_normal(3 * p), u)
        return np.cov(X, rowvar=False)
    X = rng.standard_normal((2 * p, p)) @ (np.eye(p) + 0.4 * rng.standard_normal((p, p)))
    return np.cov(X, rowvar=False)


@pytest.mark.parametrize("kind,seed", [("spike", 0), ("spike", 1), ("wishart", 2)])
def test_lowrank_bound_vs_brute_force(kind, seed):
    p, s = 13, 4
    S = _matrix(kind, p, seed)
    sups = np.array(list(itertools.combinations(range(p), s)))
    vals = block_lmax(S, sups)
    # nothing fixed: the bound is valid, and below λmax on the spike
    u = lowrank_bound(S, 0, s)
    assert u >= vals.max() * (1 - 1e-12)
    assert u <= np.linalg.eigvalsh(S)[-1] * (1 + 1e-9)
    if kind == "spike":
        assert u < np.linalg.eigvalsh(S)[-1]
    # variables fixed in (positions first) on a soft-threshold block that dominates Σ
    F, R = np.array([1, 5]), np.array([j for j in range(p) if j not in (1, 5)])
    for rho in (0.0, 0.05, 0.2):
        B = shifted_block(S, F, R, s - F.size, rho)
        best = max(v for sup, v in zip(sups, vals) if {1, 5} <= set(sup.tolist()))
        assert lowrank_bound(B, F.size, s - F.size) >= best * (1 - 1e-12)
    # every variable at once: the best support containing it
    per = lowrank_screen(S, s)
    for j in range(p):
        assert per[j] >= vals[(sups == j).any(axis=1)].max() * (1 - 1e-12)
    assert per.max() <= u * (1 + 1e-12)


def test_lowrank_node_per_variable_bounds_vs_brute_force():
    """With variables fixed in, each free variable's bound covers every support of the
    node that contains it."""
    p, s = 13, 5
    S = _matrix("spike", p, 3)
    sups = np.array(list(itertools.combinations(range(p), s)))
    vals = block_lmax(S, sups)
    F = np.array([2])
    R = np.array([j for j in range(p) if j != 2])
    for rho in (0.0, 0.1):
        B = shifted_block(S, F, R, s - 1, rho)
        bound, per = lowrank_node(B, 1, s - 1)
        node = (sups == 2).any(axis=1)
        assert bound >= vals[node].max() * (1 - 1e-12)
        for a, j in enumerate(R):
            mine = node & (sups == j).any(axis=1)
            assert per[a] >= vals[mine].max() * (1 - 1e-12)
            assert per[a] <= bound * (1 + 1e-12)


@pytest.mark.parametrize("steps,seed", [(3, 0), (5, 1), (48, 2)])
def test_ritz_split_bound_vs_brute_force(steps, seed):
    """The Lanczos split is valid whatever the quality of its Ritz vectors (few steps, a
    poor start), with variables fixed in or not, and so are its per-variable bounds."""
    from eigensparse.solvers._exact._lowrank import ritz_split

    p, s = 13, 4
    S = _matrix("spike" if seed != 1 else "wishart", p, seed)
    sups = np.array(list(itertools.combinations(range(p), s)))
    vals = block_lmax(S, sups)
    v0 = np.random.default_rng(seed).random(p)
    split = ritz_split(S, v0, steps)
    assert lowrank_node(S, 0, s, pairs=split)[0] >= vals.max() * (1 - 1e-12)
    F, R = np.array([3]), np.array([j for j in range(p) if j != 3])
    B = shifted_block(S, F, R, s - 1, 0.05)
    bound, per = lowrank_node(B, 1, s - 1, pairs=ritz_split(B, v0, steps))
    node = (sups == 3).any(axis=1)
    assert bound >= vals[node].max() * (1 - 1e-12)
    for a, j in enumerate(R):
        assert per[a] >= vals[node & (sups == j).any(axis=1)].max() * (1 - 1e-12)


def test_ritz_split_large_block_matches_dense():
    """On a block large enough for the Cholesky-proven Lanczos path: valid against every
    support of two (exhaustive), and as tight as the dense eigensolve's bound."""
    from eigensparse.solvers._exact._lowrank import ritz_split, top_pairs

    p = 200
    S = _matrix("spike", p, 4)
    sups = np.array(list(itertools.combinations(range(p), 2)))
    best = block_lmax(S, sups).max()
    v0 = np.abs(np.linalg.eigh(S)[1][:, -1]) + 0.05
    split = ritz_split(S, v0)
    b = lowrank_node(S, 0, 2, pairs=split)[0]
    dense = lowrank_node(S, 0, 2, pairs=top_pairs(S))[0]
    assert b >= best * (1 - 1e-12)
    assert b <= dense * (1 + 1e-5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lowrank_below_vs_brute_force(seed):
    """lowrank_below(limit) is True only when every support of the node is below limit
    (one Cholesky factor at the u the limit leaves), and it decides clear cases."""
    from eigensparse.solvers._exact._lowrank import lowrank_below

    p, s = 13, 4
    S = _matrix("spike", p, seed)
    sups = np.array(list(itertools.combinations(range(p), s)))
    vals = block_lmax(S, sups)
    v0 = np.random.default_rng(seed).random(p)
    F, R = np.array([0]), np.arange(1, p)
    node = vals[(sups == 0).any(axis=1)].max()
    B = shifted_block(S, F, R, s - 1, 0.0)
    for limit, whole in ((vals.max() * 0.99, S), (vals.max(), S), (node, B)):
        assert not lowrank_below(whole, 0 if whole is S else 1, s if whole is S else s - 1,
                                 v0, limit)
    assert lowrank_below(S, 0, s, v0, 1.5 * vals.max())
    assert lowrank_below(B, 1, s - 1, v0, 1.5 * node)
