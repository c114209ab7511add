"""eigensparse's parameter constraints (:mod:`eigensparse._constraints`): scikit-learn's
vocabulary and messages, without importing scikit-learn."""
from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.utils._param_validation as skv

import eigensparse as es
from eigensparse._constraints import (HasMethods, Interval, InvalidParameterError, Options,
                                      StrOptions, check_constraints, make_constraint)
from eigensparse.registry import methods


def _as_sklearns(constraint):
    """scikit-learn's constraint declaring what ``constraint`` (eigensparse's) declares."""
    if isinstance(constraint, Interval):
        return skv.Interval(constraint.type, constraint.left, constraint.right,
                            closed=constraint.closed)
    if isinstance(constraint, StrOptions):
        return skv.StrOptions(constraint.options)
    if isinstance(constraint, Options):
        return skv.Options(constraint.type, constraint.options)
    if isinstance(constraint, HasMethods):
        return skv.HasMethods(constraint.methods)
    return constraint  # a type, None, callable or a name ("boolean", ...)


def _declared():
    """Every parameter constraint declared in the package: {(owner, name): [constraint]}."""
    from eigensparse._dispatch import COMPONENT_CONSTRAINTS

    found = {("front doors", k): v for k, v in COMPONENT_CONSTRAINTS.items()}
    found.update({("SparsePCA", k): v for k, v in es.SparsePCA._parameter_constraints.items()})
    for spec in methods():
        found.update({(spec.name, k): v for k, v in spec.constraints.items()})
    return found


_PROBES = [0, 1, -1, 3, 2**33, 0.0, 0.5, 1.0, 1.5, -0.5, np.nan, np.inf, True, np.bool_(False),
           np.int64(3), np.float32(0.25), None, "auto", "x", "english", [1, 2], (1,),
           np.ones(2), {}, {"a": 1}, print, object(), np.random.RandomState(0)]


def test_the_constraints_read_and_judge_as_sklearns():
    """eigensparse's constraint layer (which imports no scikit-learn) accepts the values
    scikit-learn's accepts and refuses the others with scikit-learn's message, for every
    declared parameter (an int interval of ours also refuses True/False)."""
    from eigensparse._validation import IntInterval, check_params

    declared = _declared()
    assert len(declared) > 30
    for (owner, name), rules in declared.items():
        theirs = {name: [_as_sklearns(c) for c in rules]}
        for value in _PROBES:
            ours_error = theirs_error = None
            try:
                check_params({name: value}, {name: rules}, owner)
            except es.InvalidParameterError as exc:
                ours_error = str(exc)
            try:
                skv.validate_parameter_constraints(theirs, {name: value}, caller_name=owner)
            except skv.InvalidParameterError as exc:
                theirs_error = str(exc)
            if isinstance(value, (bool, np.bool_)) and any(isinstance(c, IntInterval) for c in rules):
                assert ours_error is not None or theirs_error is None, (owner, name, value)
                continue
            assert ours_error == theirs_error, (owner, name, value)
    assert issubclass(es.InvalidParameterError, ValueError)
    assert issubclass(es.InvalidParameterError, TypeError)


@pytest.mark.parametrize("rule, value, ok", [
    (Interval(Real, 0, None, closed="left"), np.inf, False),  # an open end excludes inf
    (Interval(Real, None, 0, closed="right"), -np.inf, False),
    (Interval(Real, None, None, closed="both"), np.nan, False),
    (Interval(Real, 0, 1, closed="neither"), 1, False),
    (Interval(Real, 0, 1, closed="both"), 1, True),
    (Interval(Integral, 1, 3, closed="both"), 2.0, False),  # a float is not an int
    (Interval(Integral, 1, 3, closed="both"), np.int32(3), True),
    (Options(int, {1, 2}), 2, True),
    (StrOptions({"a"}), "b", False),
    (HasMethods(["fit", "transform"]), es.SparsePCA(), True),
    (HasMethods("fit"), object(), False),
    (make_constraint("sparse matrix"), sp.eye(2, format="csr"), True),
    (make_constraint("array-like"), 3.0, False),
    (make_constraint("array-like"), [1.0], True),
    (make_constraint("random_state"), 2**32, False),
    (make_constraint("nan"), float("nan"), True),
    (make_constraint(callable), len, True),
])
def test_what_a_constraint_accepts(rule, value, ok):
    assert rule.is_satisfied_by(value) is ok


def test_bad_declarations_are_refused():
    with pytest.raises(ValueError, match="Unknown constraint"):
        make_constraint("nonsense")
    with pytest.raises(ValueError, match="closed"):
        Interval(Real, 0, 1, closed="up")
    with pytest.raises(ValueError, match="less than left"):
        Interval(Real, 1, 0, closed="both")
    with pytest.raises(TypeError, match="bound"):
        Interval(Integral, 0.5, None, closed="left")
    with pytest.raises(InvalidParameterError, match="The 'k' parameter of f must be an int in "
                       r"the range \[1, inf\) or None\. Got 0 instead\."):
        check_constraints({"k": [Interval(Integral, 1, None, closed="left"), None]}, {"k": 0}, "f")
