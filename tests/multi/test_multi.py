"""The joint-method registry (``multi/__init__.py``): a method registered with
``register_joint`` is found by ``get_joint`` and runs through ``sparse_pca``; single
methods are not joint ones."""
import numpy as np
import pytest

from eigensparse import registry, sparse_pca
from eigensparse.multi import JOINT_METHODS, get_joint, register_joint
from eigensparse.operators import Covariance
from eigensparse.solvers import polish


@pytest.fixture
def consecutive():
    @register_joint("toy_consecutive", summary="Consecutive blocks of features (a toy).")
    def func(op, cardinalities, *, random_state=None):
        starts = np.cumsum([0, *cardinalities])
        return [polish(op, np.arange(a, b), "toy_consecutive") for a, b in zip(starts, starts[1:])]

    yield func
    del registry._METHODS["toy_consecutive"]


def test_a_registered_joint_method_is_found_and_runs_through_sparse_pca(consecutive):
    spec = get_joint("toy_consecutive")
    assert spec is not None and spec.kind == "joint" and "toy_consecutive" in JOINT_METHODS
    rng = np.random.default_rng(0)
    A = rng.standard_normal((8, 8))
    S = A @ A.T
    res = sparse_pca(Covariance(S), n_components=2, cardinality=[3, 2], method="toy_consecutive",
                     order="deflation")
    assert [s.tolist() for s in res.supports] == [[0, 1, 2], [3, 4]]
    for s, v in zip(res.supports, res.variances):  # each block's loadings are polished
        assert v == pytest.approx(np.linalg.eigvalsh(S[np.ix_(s, s)])[-1], rel=1e-10)


def test_single_methods_are_not_joint_and_bipartite_is():
    assert get_joint("greedy") is None and get_joint("no_such_method") is None
    assert get_joint("bipartite").kind == "joint"
    assert "greedy" not in JOINT_METHODS
