"""What a penalty search over relaxations needs (``relaxation/working_set.py``): blocks
of the features of largest variance, cached, grown and checked for positive
semidefiniteness; warm starts carried between working sets; the component read off Z."""
import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.operators import Covariance, DenseData
from eigensparse.relaxation.working_set import PrefixBlocks, embed_warm_start, leading_support


def test_prefix_blocks_are_the_blocks_of_the_largest_variances():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 9)) * rng.uniform(0.5, 3.0, 9)
    op = DenseData(X)
    S = op.to_dense()
    blocks = PrefixBlocks(op)
    order = np.argsort(-np.diag(S), kind="stable")
    np.testing.assert_array_equal(blocks.order, order)
    for k in (1, 3, 2, 9, 5):  # grown, then read back from the cache
        np.testing.assert_allclose(blocks.block(k), S[np.ix_(order[:k], order[:k])], atol=1e-12)
    d = np.sort(np.diag(S))[::-1]
    assert blocks.n_kept(d[3]) == 3 and blocks.n_kept(0.0) == 9 and blocks.n_kept(d[0]) == 0


def test_prefix_blocks_refuse_a_covariance_that_is_not_psd():
    # the 2x2 minors are fine, the 3x3 block is not: detected when it is first needed
    B = np.array([[1.0, 0.9, 0.9], [0.9, 1.0, -0.9], [0.9, -0.9, 1.0]])
    blocks = PrefixBlocks(Covariance(B, check_psd=False))
    blocks.block(2)
    with pytest.raises(InvalidParameterError, match="not positive semidefinite.*3 features"):
        blocks.block(3)
    assert not PrefixBlocks(DenseData(np.eye(4))).check_psd  # data: PSD by construction


@pytest.mark.parametrize("engine", ["bca", "first_order"])
def test_warm_starts_keep_the_old_block_and_shrink_back(engine):
    rng = np.random.default_rng(1)
    X, V = rng.standard_normal((2, 3, 3))
    state = (X, V) if engine == "bca" else X
    grown = embed_warm_start(state, 3, 5)
    back = embed_warm_start(grown, 5, 3)
    if engine == "bca":
        np.testing.assert_array_equal(grown[0][:3, :3], X)
        np.testing.assert_array_equal(grown[1][:3, :3], V)
        assert np.all(np.diag(grown[0])[3:] > 0)  # new features start strictly feasible
        np.testing.assert_array_equal(back[0], X)
    else:
        np.testing.assert_array_equal(grown[:3, :3], X)
        assert np.all(grown[3:] == 0) and np.all(grown[:, 3:] == 0)
        np.testing.assert_array_equal(back, X)
    assert embed_warm_start(None, 3, 5) is None


def test_leading_support_of_a_rank_one_z():
    z = np.array([0.0, -0.6, 0.0, -0.8, 0.004])
    v, support = leading_support(np.outer(z, z), 1e-2)
    np.testing.assert_allclose(v, -z / np.linalg.norm(z), atol=1e-12)  # largest entry positive
    np.testing.assert_array_equal(support, [1, 3])
    _, wider = leading_support(np.outer(z, z), 1e-3)
    np.testing.assert_array_equal(wider, [1, 3, 4])
