"""Bounds and certificates are valid against exhaustive search."""
from itertools import combinations

import numpy as np
import pytest

import eigensparse as es
from eigensparse import Covariance, InvalidParameterError
from eigensparse.bounds import (cardinality_upper_bounds, certify_support, dspca_dual_bound,
                                monotone_upper_bounds, penalized_scaling_bound)
from eigensparse.diagnostics import variance_cardinality_path
from eigensparse.solvers import get_solver
from eigensparse.relaxation import bca_relaxation


def _exhaustive(S, s):
    best, arg = -np.inf, None
    for I in combinations(range(S.shape[0]), s):
        v = np.linalg.eigvalsh(S[np.ix_(I, I)])[-1]
        if v > best:
            best, arg = v, I
    return best, np.array(arg)


def _instances():
    out = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        p = 9
        F = rng.standard_normal((p, p))
        out.append(F.T @ F / p)  # Gaussian (hard)
        u = 1.0 / np.arange(1, p + 1)
        V = rng.uniform(size=(p, p))
        out.append(np.outer(u, u) / (u @ u) + 0.05 * V.T @ V)  # rank one plus noise
    return out


def test_every_bound_is_above_the_exhaustive_optimum():
    for S in _instances():
        op = Covariance(S)
        for s in (1, 2, 3, 5):
            v, I = _exhaustive(S, s)
            b = cardinality_upper_bounds(op, s)
            for name, val in b.items():
                assert val >= v - 1e-9 * v, (name, s, val, v)
            c = certify_support(op, I)
            if c.bound is not None:
                assert c.bound >= v - 1e-9 * v
            rho = 0.3 * np.diag(S).min()
            sol = bca_relaxation(S, rho, tol=1e-4)
            assert dspca_dual_bound(S, sol.U, rho) + rho * s >= v - 1e-9 * v


def test_solver_upper_bounds_are_valid():
    for S in _instances()[:4]:
        for s in (2, 3):
            v, _ = _exhaustive(S, s)
            for m in ("bca", "dspca"):
                try:
                    kw = {"max_iter": 3000} if m == "dspca" else {}
                    r = get_solver(m).func(Covariance(S), s, **kw)
                except InvalidParameterError:
                    continue
                assert r.upper_bound >= v - 1e-9 * v
                assert r.variance <= v + 1e-9 * v
                if r.info["certified"]:
                    assert r.variance >= v * (1 - 1e-7)


def test_certified_supports_are_optimal_and_optimal_ones_get_certified():
    n_cert = 0
    for S in _instances():
        op = Covariance(S)
        for s in (2, 3):
            v, I_opt = _exhaustive(S, s)
            supports = [tuple(I_opt)] + list(combinations(range(9), s))[::7]
            for I in supports:
                c = certify_support(op, I)
                if c.certified:
                    n_cert += 1
                    lam = np.linalg.eigvalsh(S[np.ix_(I, I)])[-1]
                    assert lam >= v * (1 - 1e-9), (I, lam, v)
                    assert c.rho_interval[0] < c.penalty < c.rho_interval[1]
    assert n_cert >= 3  # the rank-one-plus-noise instances are certifiable


def test_certificate_with_data_operator_matches_covariance():
    rng = np.random.default_rng(4)
    u = np.zeros(10)
    u[:3] = 1
    X = rng.standard_normal((80, 10)) + 3 * rng.standard_normal((80, 1)) * u
    op = es.as_operator(X)
    c1 = certify_support(op, [0, 1, 2])
    c2 = certify_support(Covariance(op.to_dense()), [0, 1, 2])
    assert c1.certified == c2.certified
    if c1.bound is not None:
        assert c1.bound == pytest.approx(c2.bound, rel=1e-6)


def test_penalized_scaling_bound_endpoints():
    S = _instances()[0]
    r, h = penalized_scaling_bound(Covariance(S), [0.0])
    assert h[0] == pytest.approx(np.linalg.eigvalsh(S)[-1])


def test_dual_bound_checks_feasibility():
    S = _instances()[0]
    with pytest.raises(InvalidParameterError):
        dspca_dual_bound(S, np.ones_like(S), 0.5)


def test_variance_cardinality_path():
    S = _instances()[1]
    path = variance_cardinality_path(Covariance(S), 6, method="greedy")
    assert path.variances.shape == (6,) and path.upper_bounds.shape == (6,)
    for k in range(1, 7):
        v, _ = _exhaustive(S, k)
        assert path.upper_bounds[k - 1] >= v - 1e-9 * v
        assert path.variances[k - 1] <= v + 1e-9 * v
        if path.certified[k - 1]:
            assert path.variances[k - 1] >= v * (1 - 1e-9)
    assert np.all(np.diff(path.variances) >= -1e-12)
    assert "dspca" in path.bounds and "certificate" in path.bounds


def test_monotone_upper_bounds_is_the_suffix_minimum():
    b = np.array([3.0, 2.5, 4.0, 3.5, 5.0])
    np.testing.assert_array_equal(monotone_upper_bounds(b), [2.5, 2.5, 3.5, 3.5, 5.0])
