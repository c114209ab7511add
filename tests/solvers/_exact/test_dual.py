"""The root's optimized U of ``method="exact"`` (eigensparse.solvers._exact._dual): the node
bound λmax(Σ − U + diag r) against brute force for any symmetric U, the clipped U giving
the clipped block, the steps lowering the root bound, and the search certifying the
brute-force optimum with U at every node."""
import itertools

import numpy as np
import pytest

import eigensparse.solvers._exact as ex
from eigensparse.operators import Covariance
from eigensparse.solvers._exact._bounds import block_lmax, shifted_block
from eigensparse.solvers._exact._dual import clipped_u, dual_block, optimize_u, root_dual
from eigensparse.solvers._exhaustive import exhaustive


def _cov(p, seed, n=None):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n or 2 * p, p)) @ (np.eye(p) + 0.5 * rng.standard_normal((p, p)))
    return np.cov(X, rowvar=False)


def _node_value(S, sups, vals, F, A):
    ok = [set(F.tolist()) <= set(sup.tolist()) <= set(A.tolist()) for sup in sups]
    return vals[np.array(ok)].max()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dual_block_bounds_every_node_for_any_symmetric_u(seed):
    p, s = 11, 4
    S = _cov(p, seed)
    rng = np.random.default_rng(100 + seed)
    sups = np.array(list(itertools.combinations(range(p), s)))
    vals = block_lmax(S, sups)
    for trial in range(4):
        W = rng.standard_normal((p, p)) * (0.3 * trial) * np.abs(S).mean()
        U = W + W.T
        np.fill_diagonal(U, 0.0)
        for F in (np.zeros(0, dtype=np.intp), np.array([3]), np.array([0, 7])):
            A = np.setdiff1d(np.arange(p), [5]) if trial % 2 else np.arange(p)
            R = np.setdiff1d(A, F)
            B = dual_block(S, U, F, R, s - F.size)
            assert np.allclose(B, B.T)
            bound = np.linalg.eigvalsh(B)[-1]
            assert bound >= _node_value(S, sups, vals, F, A) * (1 - 1e-12)


def test_the_clipped_u_gives_the_clipped_block():
    p, s = 14, 5
    S = _cov(p, 3)
    w = np.sqrt(np.diag(S))
    F, R = np.array([2, 9]), np.setdiff1d(np.arange(p), [2, 9, 4])
    for rho, scale in ((0.3, None), (0.1, w)):
        U = clipped_u(S, rho, scale)
        assert np.allclose(dual_block(S, U, F, R, s - 2), shifted_block(S, F, R, s - 2, rho, scale))
        assert np.allclose(shifted_block(S, F, R, s - 2, rho, scale, U=U),
                           shifted_block(S, F, R, s - 2, rho, scale))


def test_the_steps_lower_the_root_bound_and_it_stays_valid():
    p, s = 40, 6
    S = _cov(p, 4, n=30)
    A = np.arange(p)
    rho = 0.3 * np.abs(S - np.diag(np.diag(S))).max()
    U0 = clipped_u(S, rho, None)
    none = np.zeros(0, dtype=np.intp)
    before = np.linalg.eigvalsh(dual_block(S, U0, none, A, s))[-1]
    value = exhaustive(Covariance(S), s, max_supports=1e7).variance
    U, improved = optimize_u(S, A, s, U0, value, deadline=np.inf, max_steps=300)
    after = np.linalg.eigvalsh(dual_block(S, U, none, A, s))[-1]
    assert improved and after < before
    assert after >= value * (1 - 1e-12)
    assert np.array_equal(U, U.T) and not np.diag(U).any()
    b, U2 = root_dual(S, A, s, rho, None, value, deadline=np.inf, max_steps=300)
    assert U2 is not None and value * (1 - 1e-12) <= b <= after * (1 + 1e-12)


@pytest.mark.parametrize("p,s,seed", [(18, 5, 5), (22, 6, 6), (26, 4, 7)])
def test_the_search_with_the_root_u_certifies_the_brute_force_optimum(p, s, seed, monkeypatch):
    S = _cov(p, seed, n=p // 2)
    op = Covariance(S)
    e = exhaustive(op, s, max_supports=1e7)
    seen = {}
    setup = ex._root_setup

    def spy(search, *args, **kw):
        out = setup(search, *args, **kw)
        seen["U"] = search.U
        return out

    monkeypatch.setattr(ex, "_root_setup", spy)
    # a poor incumbent (one start, no screening): the tree, with U at its nodes, does the work
    r = ex.exact(op, s, n_jobs=1, n_starts=1, screen=False, progress=False, random_state=0)
    assert seen["U"] is not None
    assert r.info["certified"]
    assert abs(r.variance - e.variance) <= 1e-9 * e.variance


def test_dual_block_with_the_rows_order_is_the_same_matrix():
    """dual_block with u_order(U) (row shifts read from each row's largest entries) builds
    the matrix of the full scan (up to the order of the sums), with variables fixed in or not."""
    from eigensparse.solvers._exact._dual import dual_block, u_order

    rng = np.random.default_rng(4)
    p = 30
    S = np.cov(rng.standard_normal((60, p)), rowvar=False)
    U = rng.standard_normal((p, p)) * 0.1
    U = U + U.T
    np.fill_diagonal(U, 0.0)
    order = u_order(U)
    for F, k in ((np.zeros(0, dtype=np.intp), 6), (np.array([3, 17]), 4)):
        R = np.setdiff1d(np.arange(p), np.r_[F, 5, 9])  # two variables excluded
        np.testing.assert_allclose(dual_block(S, U, F, R, k, order),
                                   dual_block(S, U, F, R, k), rtol=1e-14, atol=0)
