"""The method registry: adding a method takes one function and one MethodSpec, and every
front door (sparse_pca, SparsePCA, extract_topics, `eigensparse methods`,
`eigensparse topics --method`) finds it, with its options read from its signature."""
import json

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

import eigensparse
import eigensparse as es
from eigensparse import InvalidParameterError, SparsePCA, sparse_pca
from eigensparse.cli import main
from eigensparse.datasets import load_kos
from eigensparse.registry import DEFAULT_METHOD, MethodSpec, get_method, method_names, register_method
from eigensparse.solvers import polish

# the pipeline before pruning and tf-idf became the defaults (counts, every word)
OLD_DEFAULTS = {"scaling": "count", "min_df": 1, "max_df": 1.0}
NO_PRUNING = {"min_df": 1, "max_df": 1.0}


def toy_stride(op, cardinality, *, random_state=None, stride: int = 2):
    """Toy: features 0, stride, 2·stride, … (the first s of them), polished."""
    return polish(op, np.arange(cardinality) * stride, method="toy_stride", info={"stride": stride})


@pytest.fixture
def toy():
    from eigensparse import registry

    spec = register_method(MethodSpec("toy_stride", toy_stride, cost="O(s³)"))
    yield spec
    del registry._METHODS["toy_stride"]


def test_spec_reads_options_and_description(toy):
    assert toy.options == ("stride",) and toy.kind == "single" and not toy.takes_penalty
    assert toy.description.startswith("Toy: features 0")
    assert get_method("toy_stride") is toy and "toy_stride" in eigensparse.available_methods()


def test_toy_method_in_every_front_door(toy, tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 12))
    res = sparse_pca(X, n_components=1, cardinality=3, method="toy_stride", stride=3)
    assert res.method == "toy_stride" and res.supports[0].tolist() == [0, 3, 6]
    with pytest.raises(InvalidParameterError, match="unknown option"):
        sparse_pca(X, n_components=1, cardinality=3, method="toy_stride", n_starts=2)
    est = SparsePCA(1, cardinality=2, method="toy_stride", method_options={"stride": 5}).fit(X)
    assert est.supports_[0].tolist() == [0, 5]
    # the topic pipeline and the command line
    topics = eigensparse.text.extract_topics(load_kos().data, n_topics=2, cardinality=4,
                                             method="toy_stride", progress=False, **OLD_DEFAULTS)
    assert topics.method == "toy_stride" and [t.cardinality for t in topics.topics] == [4, 4]
    assert main(["methods"]) == 0
    listed = capsys.readouterr().out
    assert any(line.split()[0] == "toy_stride" and "O(s³)" in line for line in listed.splitlines())
    out = tmp_path / "toy.json"
    assert main(["topics", "--dataset", "kos", "-k", "2", "-s", "4", "--method", "toy_stride",
                 "--stride", "7", "--no-progress", "--json", str(out)]) == 0
    assert "method=toy_stride" in capsys.readouterr().out
    doc = json.loads(out.read_text())
    assert doc["method"] == "toy_stride" and [c["cardinality"] for c in doc["components"]] == [4, 4]


def test_removed_method_is_gone_everywhere(capsys):
    assert "toy_stride" not in method_names()
    with pytest.raises(InvalidParameterError, match="method"):
        SparsePCA(method="toy_stride").fit(np.random.default_rng(0).standard_normal((20, 5)))
    assert main(["topics", "--dataset", "kos", "--method", "toy_stride"]) == 2
    assert "toy_stride" not in capsys.readouterr().out


def test_one_default_and_the_kinds():
    from eigensparse import _api, estimator
    from eigensparse.multi import JOINT_METHODS
    from eigensparse.solvers import SOLVERS

    assert _api.DEFAULT_METHOD == DEFAULT_METHOD
    assert estimator.SparsePCA().method == DEFAULT_METHOD
    assert set(method_names()) == set(SOLVERS) | set(JOINT_METHODS)
    assert "bipartite" in JOINT_METHODS and "bipartite" not in SOLVERS
    with pytest.raises(InvalidParameterError, match="kind"):
        MethodSpec("bad", toy_stride, kind="pairs")
    with pytest.raises(InvalidParameterError, match="neither"):
        MethodSpec("bad", toy_stride, takes_cardinality=False)


def test_data_need_from_options_is_checked_once():
    S = np.cov(np.random.default_rng(1).standard_normal((50, 8)).T)
    spec = get_method("am")
    assert spec.requires_data({"formulation": "l1_l0_con"}) and not spec.requires_data({})
    with pytest.raises(InvalidParameterError, match="data matrix"):
        sparse_pca(eigensparse.Covariance(S), n_components=1, cardinality=3, method="am",
                   formulation="l1_l0_con")
    ok = sparse_pca(eigensparse.Covariance(S), n_components=1, cardinality=3, method="am")
    assert ok.supports[0].size == 3


def test_capabilities_and_constraints_declared_on_the_spec():
    """A method's option constraints and capabilities are fields of its one MethodSpec:
    the constraints are checked for a direct call and once per request by the dispatcher;
    ``warm_start`` makes the refinement re-solve from the current component."""
    from numbers import Integral

    from eigensparse import registry
    from eigensparse._validation import Interval
    from eigensparse.registry import checked

    starts = []

    def warm_stride(op, cardinality, *, random_state=None, stride: int = 1, init=None):
        """Toy: features 0, stride, ... ; records the start it was given."""
        starts.append(init)
        return polish(op, np.arange(cardinality) * stride, method="warm_stride")

    constraints = {"stride": [Interval(Integral, 1, None, closed="left")]}
    spec = register_method(MethodSpec("warm_stride", checked(warm_stride, constraints),
                                      trusted=warm_stride, constraints=constraints,
                                      warm_start=True))
    try:
        assert spec.warm_start and not spec.bounded and spec.alternatives == ()
        assert spec.trusted is warm_stride  # the dispatcher's unchecked call
        X = np.random.default_rng(0).standard_normal((80, 12))
        with pytest.raises(InvalidParameterError, match="'stride' parameter of sparse_pca.*Got 0"):
            sparse_pca(X, n_components=2, cardinality=2, method="warm_stride", stride=0)
        from eigensparse import Covariance

        with pytest.raises(InvalidParameterError, match="'stride' parameter of .*warm_stride must be an int"):
            spec.func(Covariance(np.eye(4)), 2, stride=0)
        res = sparse_pca(X, n_components=3, cardinality=2, method="warm_stride", refine=True)
        assert res.supports[0].size == 2
        # the chain's solves start cold; the refinement's re-solves start from a component
        warm = [s for s in starts if s is not None]
        assert starts[0] is None and warm and all(w.shape == (12,) for w in warm)
        with pytest.raises(InvalidParameterError, match="constraints for \\['strid'\\]"):
            MethodSpec("bad", warm_stride, constraints={"strid": []})
    finally:
        del registry._METHODS["warm_stride"]


def test_omitted_method_runs_the_registry_default():
    """Leaving ``method`` out runs the registry's default solver: the same components and
    the same recorded method as naming it, in the function and in the estimator."""
    X = load_breast_cancer().data[:, :12]
    assert DEFAULT_METHOD in es.available_methods()
    implicit = es.sparse_pca(X, n_components=2, cardinality=4, scale=True, random_state=0)
    named = es.sparse_pca(X, n_components=2, cardinality=4, scale=True, random_state=0,
                          method=DEFAULT_METHOD)
    assert implicit.method == named.method == DEFAULT_METHOD
    np.testing.assert_array_equal(implicit.components, named.components)
    est = es.SparsePCA(n_components=2, cardinality=4, scale=True, random_state=0).fit(X)
    assert est.method == DEFAULT_METHOD
    np.testing.assert_allclose(est.components_, named.components, atol=1e-12)
