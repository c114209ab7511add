"""The compiled inner loops of the default method against plain NumPy references."""
import numpy as np
import pytest

import eigensparse as es
from eigensparse.solvers import get_solver
from eigensparse.solvers._auto import two_start_tpower
from eigensparse.solvers._auto_kernels import _top_eigpair, approx_greedy_order, tpower_from_supports
from eigensparse.solvers._greedy import _path


def _wishart(p, n, seed):
    A = np.random.default_rng(seed).standard_normal((n, p))
    return np.ascontiguousarray(A.T @ A / n)


def _random_starts(p, s, seed, n=6):
    """A Wishart B (p×p) and n random s-sparse starts on it: sorted supports, values."""
    B = _wishart(p, p + 3, seed)
    rng = np.random.default_rng(seed)
    sup = np.sort(np.array([rng.choice(p, s, replace=False) for _ in range(n)]), axis=1)
    return B, sup, rng.standard_normal((n, s))


def _reference_tpower(B, x, s, max_iter, tol):
    """The same iteration in NumPy, one start (ties to the lower index)."""
    f_prev = -np.inf
    for _ in range(max_iter):
        w = B @ x
        f = x @ w
        new = np.sort(np.lexsort((np.arange(w.size), -np.abs(w)))[:s])
        same = np.array_equal(new, np.flatnonzero(x))
        x = np.zeros_like(x)
        x[new] = w[new] / np.linalg.norm(w[new])
        if same and f - f_prev <= tol * abs(f):
            break
        f_prev = f
    return np.flatnonzero(x), x @ B @ x


@pytest.mark.parametrize("p,s,seed", [(12, 3, 0), (30, 5, 1), (80, 12, 2)])
def test_tpower_kernel_matches_a_numpy_reference(p, s, seed):
    B, sup, val = _random_starts(p, s, seed)
    N = sup.shape[0]
    out_sup, out_val, f, n_iter = tpower_from_supports(B, sup, val, 300, 1e-6, B)
    for c in range(N):
        x = np.zeros(p)
        x[sup[c]] = val[c] / np.linalg.norm(val[c])
        ref_sup, ref_f = _reference_tpower(B, x, s, 300, 1e-6)
        assert out_sup[c].tolist() == ref_sup.tolist()
        assert f[c] == pytest.approx(ref_f, rel=1e-10)
        assert np.linalg.norm(out_val[c]) == pytest.approx(1.0)
        assert 1 <= n_iter[c] <= 300


@pytest.mark.parametrize("p,s,seed", [(30, 5, 1), (80, 12, 2), (300, 40, 3)])
def test_tpower_kernel_with_single_precision_products_reaches_the_same_supports(p, s, seed):
    # the products in float32: the same final supports here (no near ties), and the
    # objectives of the final iterates computed in double precision on B
    B, sup, val = _random_starts(p, s, seed)
    N = sup.shape[0]
    ref_sup, _, ref_f, _ = tpower_from_supports(B, sup, val, 300, 1e-6, B)
    out_sup, out_val, f, _ = tpower_from_supports(B, sup, val, 300, 1e-6, B.astype(np.float32))
    assert out_sup.tolist() == ref_sup.tolist()
    assert np.allclose(f, ref_f, rtol=1e-5)
    for c in range(N):  # f is xᵀBx of the returned (float32-rounded) iterate, in float64
        x = out_val[c].astype(float)
        assert f[c] == pytest.approx(x @ B[np.ix_(out_sup[c], out_sup[c])] @ x, rel=1e-12)


@pytest.mark.parametrize("k", [5, 30, 60])
def test_lanczos_top_eigenpair_equals_eigh(k):
    A = _wishart(k, k + 2, k)
    w, Z = np.linalg.eigh(A)
    guess = Z[:, -1] + 0.3 * np.random.default_rng(k).standard_normal(k)
    theta, z = _top_eigpair(A, guess, 1e-10)
    assert theta == pytest.approx(w[-1], rel=1e-9)
    assert abs(z @ Z[:, -1]) == pytest.approx(1.0, abs=1e-8)


@pytest.mark.parametrize("p,s,seed", [(20, 8, 0), (120, 45, 1), (300, 60, 2)])
def test_compiled_approximate_greedy_path_equals_the_operator_path(p, s, seed):
    B = _wishart(p, 2 * p, seed)
    order = approx_greedy_order(B, s)
    assert order.tolist() == _path(es.Covariance(B), s, "approx")[0].tolist()


def test_two_start_tpower_reaches_tpowers_fixed_points():
    for seed in range(5):
        S = es.Covariance(_wishart(25, 30, seed))
        for s in (3, 6):
            ours = two_start_tpower(S, s)
            ref = get_solver("tpower").func(S, s, random_state=0)
            assert ours.variance >= ref.variance * (1 - 1e-9)
            assert ours.support.size == s


def test_auto_init_is_a_start_and_is_validated():
    S = es.Covariance(_wishart(40, 45, 7))
    best = get_solver("auto").func(S, 6, random_state=0)
    x = best.loadings
    r = get_solver("auto").func(S, 6, init=x, n_starts=1, swap=False, random_state=0)
    assert r.variance >= best.variance * (1 - 1e-12)  # a fixed point stays one
    r2 = get_solver("auto").func(S, 6, init=np.column_stack([x, np.ones(40)]), random_state=0)
    assert r2.variance >= best.variance * (1 - 1e-12)
    for bad in (np.ones(39), np.full(40, np.nan), "greedy"):
        with pytest.raises(es.InvalidParameterError, match="'init'"):
            get_solver("auto").func(S, 6, init=bad)
    with pytest.raises(es.InvalidParameterError, match="'init'"):
        get_solver("auto").func(S, 1, init=np.ones(3))  # checked before the s = 1 shortcut


def test_refinement_re_solves_start_from_the_current_component(monkeypatch):
    from eigensparse.multi import _refine

    seen = []
    orig = _refine._resolve_one

    def spy(op, results, j, s, solve, disjoint, warm):  # warm: the spec's warm_start
        seen.append(warm)
        return orig(op, results, j, s, solve, disjoint, warm)

    monkeypatch.setattr(_refine, "_resolve_one", spy)
    X = np.random.default_rng(0).standard_normal((200, 30)) @ _wishart(30, 40, 1)
    es.sparse_pca(X, n_components=3, cardinality=4, random_state=0)
    assert seen and all(seen)
    seen.clear()
    es.sparse_pca(X, n_components=3, cardinality=4, method="am", random_state=0, refine=True)
    assert seen and not any(seen)  # other methods keep their own starts


def test_neighbourhood_scores_equal_power_steps_in_numpy():
    from eigensparse.solvers._auto_kernels import neighbourhood_scores
    from eigensparse.solvers._auto_select import row_partners

    B = _wishart(60, 80, 7)
    J, _ = row_partners(B, 5)
    rq, V = neighbourhood_scores(B, np.arange(60), J, 2)
    for i in range(60):
        N = np.concatenate([[i], J[i]])
        M = B[np.ix_(N, N)]
        x = M[0].copy()
        for _ in range(2):
            x = M @ x
            x /= np.linalg.norm(x)
        assert rq[i] == pytest.approx(x @ M @ x, rel=1e-12)
        np.testing.assert_allclose(V[i], x, rtol=1e-10, atol=1e-14)
        assert rq[i] <= np.linalg.eigvalsh(M)[-1] * (1 + 1e-12)


@pytest.mark.parametrize("s", [3, 12, 40])
def test_support_values_equal_eigvalsh(s):
    """The candidates' values (Lanczos from a start vector, eigh as fallback) equal a dense
    eigenvalue solve of each block, from good starts and from a poor one (ones)."""
    from eigensparse.solvers._auto_kernels import support_values

    B = _wishart(90, 120, s)
    rng = np.random.default_rng(s)
    sups = np.sort(np.array([rng.choice(90, s, replace=False) for _ in range(6)]), axis=1)
    ref = np.linalg.eigvalsh(B[sups[:, :, None], sups[:, None, :]])[:, -1]
    good = np.array([np.linalg.eigh(B[np.ix_(r, r)])[1][:, -1] + 0.05 for r in sups])
    for starts in (good, np.ones((6, s))):
        np.testing.assert_allclose(support_values(B, sups, starts), ref, rtol=1e-12)


@pytest.mark.parametrize("single", [False, True])
def test_gather_block_single_equals_numpy(single):
    from eigensparse.solvers._auto_kernels import gather_block_single

    B = _wishart(40, 50, 3)
    idx = np.array([0, 3, 4, 17, 39], dtype=np.int64)
    C, C32, energy = gather_block_single(B, idx, single)
    assert np.array_equal(C, B[np.ix_(idx, idx)]) and C.flags.c_contiguous
    assert np.allclose(energy, (C ** 2).sum(axis=1), rtol=1e-14)
    if single:
        assert C32.dtype == np.float32 and np.array_equal(C32, C.astype(np.float32))
    else:
        assert C32.shape == (0, 0)


def test_rows_with_nonzero_finds_every_nonzero_row():
    from eigensparse.solvers._auto_kernels import rows_with_nonzero

    B = np.zeros((6, 6))
    B[2, 5] = 1e-300  # tiny but nonzero
    B[4, 0] = -3.0
    assert rows_with_nonzero(B, np.arange(6, dtype=np.int64)).tolist() == [
        False, False, True, False, True, False]
