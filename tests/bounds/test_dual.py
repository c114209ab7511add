"""The dual bounds and handbook Proposition 2's certificate against brute force."""
from itertools import combinations

import numpy as np
import pytest

import eigensparse as es
from eigensparse import Covariance, InvalidParameterError
from eigensparse.bounds import certify_support, dspca_dual_bound, penalized_scaling_bound


def test_certified_supports_are_optimal_and_optimal_ones_get_certified(instances, exhaustive):
    n_cert = 0
    for S in instances:
        op = Covariance(S)
        for s in (2, 3):
            v, I_opt = exhaustive(S, s)
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


def test_penalized_scaling_bound_endpoints(instances):
    S = instances[0]
    r, h = penalized_scaling_bound(Covariance(S), [0.0])
    assert h[0] == pytest.approx(np.linalg.eigvalsh(S)[-1])


def test_dual_bound_checks_feasibility(instances):
    S = instances[0]
    with pytest.raises(InvalidParameterError):
        dspca_dual_bound(S, np.ones_like(S), 0.5)
