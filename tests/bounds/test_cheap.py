"""Bounds are valid against exhaustive search; bad input is refused at the boundary."""
import numpy as np
import pytest

from eigensparse import Covariance, InvalidParameterError
from eigensparse.bounds import (cardinality_upper_bounds, certify_support, dspca_dual_bound,
                                monotone_upper_bounds, penalized_scaling_bound)
from eigensparse.diagnostics import variance_cardinality_path
from eigensparse.solvers import get_solver
from eigensparse.relaxation import bca_relaxation


def test_every_bound_is_above_the_exhaustive_optimum(instances, exhaustive):
    for S in instances:
        op = Covariance(S)
        for s in (1, 2, 3, 5):
            v, I = exhaustive(S, s)
            b = cardinality_upper_bounds(op, s)
            for name, val in b.items():
                assert val >= v - 1e-9 * v, (name, s, val, v)
            c = certify_support(op, I)
            if c.bound is not None:
                assert c.bound >= v - 1e-9 * v
            rho = 0.3 * np.diag(S).min()
            sol = bca_relaxation(S, rho, tol=1e-4)
            assert dspca_dual_bound(S, sol.U, rho) + rho * s >= v - 1e-9 * v


def test_solver_upper_bounds_are_valid(instances, exhaustive):
    for S in instances[:4]:
        for s in (2, 3):
            v, _ = exhaustive(S, s)
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


def test_variance_cardinality_path(instances, exhaustive):
    S = instances[1]
    path = variance_cardinality_path(Covariance(S), 6, method="greedy")
    assert path.variances.shape == (6,) and path.upper_bounds.shape == (6,)
    for k in range(1, 7):
        v, _ = exhaustive(S, k)
        assert path.upper_bounds[k - 1] >= v - 1e-9 * v
        assert path.variances[k - 1] <= v + 1e-9 * v
        if path.certified[k - 1]:
            assert path.variances[k - 1] >= v * (1 - 1e-9)
    assert np.all(np.diff(path.variances) >= -1e-12)
    assert "dspca" in path.bounds and "certificate" in path.bounds


def test_monotone_upper_bounds_is_the_suffix_minimum():
    b = np.array([3.0, 2.5, 4.0, 3.5, 5.0])
    np.testing.assert_array_equal(monotone_upper_bounds(b), [2.5, 2.5, 3.5, 3.5, 5.0])


# --------------------------------------------------------------------------------------
# bad input at the boundary: every public function of the module names the parameter
# --------------------------------------------------------------------------------------
from eigensparse.bounds import (dspca_cardinality_bound, full_problem_bound,  # noqa: E402
                                gershgorin_bounds, lambda_max_upper_bound, partner_sums)

_S = np.cov(np.random.default_rng(0).standard_normal((40, 6)).T)
_C = Covariance(_S)


@pytest.mark.parametrize("support, why", [
    ([], "nonempty"), ([0, 9], "index 9 is out of range"), ([-1, 2], "index -1 is out of range"),
    ([1, 1, 2], "index 1 is repeated"), ([0.5, 1.7], "distinct feature indices"),
    ([0.0, 1.0], "distinct feature indices"), ([True, False, True, False, False, False],
                                               "boolean mask"),
    ("01", "1-D sequence"), ([[0, 1]], "1-D sequence"), (2, "1-D sequence"), (None, "1-D sequence"),
])
def test_a_support_is_distinct_indices_in_range(support, why):
    """A float was truncated ([0.5, 1.7] certified {0, 1}), a mask read as indices
    ([True, False, True] as {0, 1}), a string as digits, a repeat dropped: all refused."""
    with pytest.raises(InvalidParameterError, match=rf"parameter 'support' .*{why}"):
        certify_support(_C, support)


@pytest.mark.parametrize("call, match", [
    (lambda: certify_support(_C, [0, 1], n_grid=-3), "'n_grid'"),
    (lambda: certify_support(_C, [0, 1], n_grid=2.5), "'n_grid'"),
    (lambda: certify_support(_C, [0, 1], n_refine=-1), "'n_refine'"),
    (lambda: certify_support(_C, [0, 1], max_working_set=0), "'max_working_set'"),
    (lambda: dspca_dual_bound(_S, np.full_like(_S, np.nan)), "'U' contains 36 NaN"),
    (lambda: dspca_dual_bound(np.ones((2, 3)), np.zeros((2, 3))), r"'S' must be a square"),
    (lambda: dspca_dual_bound(_S, np.zeros((3, 3))), "'U' must be a square matrix of order 6"),
    (lambda: dspca_cardinality_bound(1.0, 0.1, 0), "'cardinality'"),
    (lambda: dspca_cardinality_bound(1.0, 0.1, 2.7), "'cardinality'"),
    (lambda: dspca_cardinality_bound(np.nan, 0.1, 2), "'dual_value'"),
    (lambda: penalized_scaling_bound(_C, [-1.0]), "'penalties'"),
    (lambda: penalized_scaling_bound(_C, [np.nan]), "'penalties'"),
    (lambda: penalized_scaling_bound(_C, [[0.1, 0.2]]), "'penalties'"),
    (lambda: penalized_scaling_bound(_C, max_working_set=0), "'max_working_set'"),
    (lambda: cardinality_upper_bounds(_C, 2, gershgorin="yes"), "'gershgorin'"),
    (lambda: gershgorin_bounds(_C, 0), "'max_cardinality'"),
    (lambda: gershgorin_bounds(_C, 7), r"'max_cardinality' must be an int in \[1, n_features=6\]"),
    (lambda: gershgorin_bounds(np.ones((40, 6)), 2), r"'op' must be a square symmetric .*\(40, 6\)"),
    (lambda: full_problem_bound(_C, -1), "'cardinality'"),
    (lambda: full_problem_bound(_C, 9), r"'cardinality' must be an int in \[1, n_features=6\]"),
    (lambda: full_problem_bound(_C, 2, working_set=[0, 10]), "'working_set' .*index 10"),
    (lambda: full_problem_bound(_C, 2, working_set=[0, 0, 1]), "'working_set' .*repeated"),
    (lambda: full_problem_bound(_C, 2, working_set=[0, 1], block=np.eye(3)), "'block' .*order 2"),
    (lambda: full_problem_bound(_C, 2, diag=np.ones(2)), "'diag' must be a 1-D array of 6"),
    (lambda: full_problem_bound(_C, 2, psd="no"), "'psd'"),
    (lambda: lambda_max_upper_bound(np.zeros((0, 0))), "'S' is empty"),
    (lambda: lambda_max_upper_bound(np.full((2, 2), np.nan)), "'S' contains 4 NaN"),
    (lambda: lambda_max_upper_bound(np.array([[0.0, 1.0], [0.0, 0.0]])), "'S' must be symmetric"),
    (lambda: lambda_max_upper_bound(_S, exact_below=-1), "'exact_below'"),
    (lambda: partner_sums(_S, 0), "'max_cardinality'"),
    (lambda: partner_sums(np.ones(3), 2), "'S' must be a square"),
    (lambda: monotone_upper_bounds([[1, 2], [3, 4]]), "'bounds' must be a 1-D"),
    (lambda: monotone_upper_bounds(3.0), "'bounds' must be a 1-D"),
])
def test_bad_input_is_refused_at_the_boundary(call, match):
    """Each was a traceback from numpy/LAPACK, a NaN, or a silent answer (n_grid=-3, a
    negative penalty's 'bound', a 2-D bounds array, the lower triangle of an asymmetric S)."""
    with pytest.raises(InvalidParameterError, match=match):
        call()


def test_operators_and_arrays_give_the_same_bounds():
    """Every bound takes the covariance as an operator or as a matrix, with one answer."""
    assert lambda_max_upper_bound(_C) == pytest.approx(np.linalg.eigvalsh(_S)[-1])
    np.testing.assert_allclose(partner_sums(_C, 3)[1], partner_sums(_S, 3)[1])
    np.testing.assert_allclose(gershgorin_bounds(_C, 3), gershgorin_bounds(_S, 3))
    assert full_problem_bound(_C, 3) == full_problem_bound(_S, 3)
    # cardinalities beyond p add nothing to a partner sum (documented)
    assert partner_sums(np.array([[2.0]]), 3)[1].tolist() == [[0.0, 0.0]]


def test_monotone_bounds_read_nan_as_no_bound():
    """A NaN (a bound not computed) no longer hides the bounds of larger k."""
    b = monotone_upper_bounds([1.0, np.nan, 2.0])
    assert b.tolist() == [1.0, 2.0, 2.0]
    assert np.isnan(monotone_upper_bounds([np.nan])).all()
