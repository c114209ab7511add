"""The pieces of the cardinality rules (eigensparse._cardinality_rules) on small known inputs."""
import numpy as np
from types import SimpleNamespace

from eigensparse._cardinality_rules import (_cv_select, _first_reaching, _knee_index,
                                            _proven_lower, _running_best)


def test_knee_is_the_largest_distance_above_the_chord():
    y = np.array([0.0, 0.6, 0.8, 0.9, 1.0])  # chord 0, .25, .5, .75, 1: distances 0,.35,.3,.15,0
    assert _knee_index(y) == 1
    assert _knee_index(np.array([0.2, 0.5])) == 1  # two points: the last


def test_first_reaching_and_the_proven_lower_limit():
    v = np.array([1.0, 2.0, 3.0, 4.0])
    assert _first_reaching(v, 3.0) == 3 and _first_reaching(v, 5.0) is None
    ub = np.array([1.5, 2.5, 3.5, 4.5])
    # threshold 3: v(1), v(2) bounded below it, v(3) not: no s below 3 reaches it
    assert _proven_lower(ub, 4, 3.0) == 3
    assert _proven_lower(np.array([9.0, 9.0, 9.0]), 4, 3.0) == 1


def test_running_best_makes_the_path_monotone_with_its_supports():
    path = SimpleNamespace(variances=np.array([1.0, 3.0, 2.0, 4.0]),
                           supports=[np.array([0]), np.array([1, 2]), np.array([0, 3, 4]),
                                     np.array([0, 1, 2, 3])])
    _running_best(path)
    assert path.variances.tolist() == [1.0, 3.0, 3.0, 4.0]
    assert path.supports[2].tolist() == [1, 2]  # the size-2 support, feasible at size 3


def test_cv_select_one_standard_error_or_the_best():
    mean = np.array([0.50, 0.58, 0.60, 0.59])
    se = np.array([0.01, 0.01, 0.03, 0.01])
    assert _cv_select(mean, se, "max") == 2
    assert _cv_select(mean, se, "one_se") == 1  # 0.58 >= 0.60 - 0.03
