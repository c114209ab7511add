"""The row-shift dual bound (core block optimized, outside block bounded) against brute
force, at values below, at and above the optimum (the steps aim at the value given)."""
import numpy as np

from eigensparse.bounds import full_problem_bound
from eigensparse.bounds._rowshift import row_shift_bound


def test_row_shift_bound_is_above_the_optimum(instances, exhaustive):
    for S in instances:
        for s in (2, 3, 5):
            v, sup = exhaustive(S, s)
            for core in (4, 9):  # an outside block, and none
                for target in (0.5 * v, v, 1.5 * v):  # the steps' aim never matters
                    ub, rho = row_shift_bound(S, s, target, sup[:1], core=core, steps=30)
                    assert ub >= v * (1 - 1e-12), (s, core, target, ub, v)
                    assert rho >= 0


def test_row_shift_bound_beats_the_cheap_bounds_on_a_planted_problem():
    rng = np.random.default_rng(3)
    n, p, s = 400, 40, 5
    X = rng.standard_normal((n, p))
    X[:, :s] += 1.2 * rng.standard_normal((n, 1))  # a planted group of s features
    S = np.cov(X, rowvar=False)
    v = float(np.linalg.eigvalsh(S[:s, :s])[-1])  # the planted support's variance
    ub, _ = row_shift_bound(S, s, v, np.arange(s), core=24, steps=40)
    cheap, _ = full_problem_bound(S, s)
    assert v * (1 - 1e-12) <= ub < min(cheap, np.linalg.eigvalsh(S)[-1])


def test_outside_block_and_its_proofs_hold_against_brute_force():
    from itertools import combinations

    from eigensparse.bounds._rowshift import _proves_below

    rng = np.random.default_rng(5)
    n, p, s = 60, 36, 3
    X = rng.standard_normal((n, p)) @ (np.eye(p) + 0.3 * rng.standard_normal((p, p)))
    S = np.cov(X, rowvar=False)
    T = np.array(list(combinations(range(p), s)))
    v = float(np.linalg.eigvalsh(S[T[:, :, None], T[:, None, :]])[:, -1].max())
    for core in (6, 12, 36):  # most features outside, some, none
        for slack in (1e-6, 1e-3, 0.5):  # the Cholesky proof, exact λ_O, Gershgorin
            ub, _ = row_shift_bound(S, s, 0.9 * v, None, core=core, steps=20, slack=slack)
            assert ub >= v * (1 - 1e-12), (core, slack, ub, v)
    top = float(np.linalg.eigvalsh(S)[-1])
    assert _proves_below(S.copy(), top * (1 + 1e-9))
    assert not _proves_below(S.copy(), top * (1 - 1e-6))


def test_top_upper_is_a_proven_upper_bound():
    from eigensparse.bounds._rowshift import _top_upper

    rng = np.random.default_rng(7)
    for n in (80, 150):
        X = rng.standard_normal((n + 20, n))
        M = X.T @ X - 3.0 * np.eye(n)  # indefinite too
        top = float(np.linalg.eigvalsh(M)[-1])
        for v0 in (np.ones(n), rng.standard_normal(n)):
            u = _top_upper(M, v0, 10)
            assert top <= u <= top * (1 + 1e-6) + 1e-9, (n, u, top)
