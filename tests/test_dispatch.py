"""The dispatcher (``_dispatch.py``): the plan it makes of the front doors' options."""
import numpy as np
import pytest

import eigensparse as es
from eigensparse._dispatch import plan_components
from eigensparse.datasets import make_spiked_covariance


@pytest.fixture(scope="module")
def spiked():
    # I + 10·vvᵀ, v uniform on 10 variables: the 0.95 rule picks exactly the planted support
    return make_spiked_covariance(500, 60, 10, 10.0, random_state=0)


def test_auto_with_order_and_refine(spiked):
    """cardinality="auto" beside main's order= and refine=: refinement is off under auto
    (the components are those the rule chose, whatever ``refine``), and the choices and
    cardinalities follow the rows when they are put in variance order."""
    from eigensparse._dispatch import plan_components

    X, v, support = spiked
    kw = dict(n_components=3, cardinality="auto", cardinality_fraction=0.95, random_state=0)
    plan = plan_components("auto", n_features=X.shape[1], cardinality="auto", n_components=3,
                           refine=True)
    assert plan.auto is not None and plan.refine is False
    base = es.sparse_pca(X, refine=False, **kw)
    for refine in ("auto", True):
        np.testing.assert_array_equal(es.sparse_pca(X, refine=refine, **kw).components,
                                      base.components)
    assert np.all(np.diff(base.variances) <= 0)
    choices = base.info["cardinality_choices"]
    assert [c.cardinality for c in choices] == base.info["cardinalities"] \
        == [s.size for s in base.supports]
    found = es.sparse_pca(X, refine=False, order="deflation", **kw)
    assert found.info["found_at"] == [0, 1, 2]
    perm = base.info["found_at"]
    np.testing.assert_allclose(base.components, found.components[perm])
    assert [found.info["cardinalities"][i] for i in perm] == base.info["cardinalities"]
