"""The simple solvers (``solvers/_simple.py``): ``variance`` (largest diagonal entries)
and ``threshold`` (the leading eigenvector truncated)."""
from __future__ import annotations

import numpy as np
import pytest

from eigensparse.operators import Covariance, DenseData
from eigensparse.solvers._simple import threshold, variance

RUN = {"variance": variance, "threshold": threshold}


def run(method, op, s, **kw):
    return RUN[method](op, s, **kw)


def test_threshold_large_p_uses_lanczos_and_is_deterministic():
    rng = np.random.default_rng(0)
    p = 700
    v = np.zeros(p)
    v[:10] = 1 / np.sqrt(10)
    X = rng.standard_normal((150, p)) + 3.0 * rng.standard_normal((150, 1)) * v
    op = DenseData(X)
    a, b = run("threshold", op, 10), run("threshold", op, 10)
    assert "eigsh" in a.message
    np.testing.assert_array_equal(a.loadings, b.loadings)
    np.testing.assert_array_equal(a.support, np.arange(10))
    lam = np.linalg.eigvalsh(op.to_dense())[-1]
    assert a.upper_bound == pytest.approx(lam, rel=1e-9)
    assert a.gap == pytest.approx(lam - a.variance)


def test_variance_picks_largest_diagonal_with_ties_to_lower_index():
    op = Covariance(np.diag([1.0, 3.0, 2.0, 3.0, 0.5]) + 0.1)
    np.testing.assert_array_equal(run("variance", op, 2).support, [1, 3])
    np.testing.assert_array_equal(run("variance", op, 1).support, [1])
    # on a degenerate block the loadings may be sparser than the chosen support
    res = run("variance", Covariance(np.diag([1.0, 3.0, 2.0, 3.0, 0.5])), 2)
    np.testing.assert_array_equal(res.info["selected_support"], [1, 3])
    assert res.variance == 3.0
