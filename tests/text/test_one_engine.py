"""One engine: the topics of a corpus in memory, streamed from a file and
read by the workers of a Dask cluster, ``SparsePCA.fit`` and ``sparse_pca`` give the
same components for one method; a method added with one ``MethodSpec`` works in all."""
import warnings

import numpy as np
import pytest

from eigensparse import SparsePCA, sparse_pca
from eigensparse.registry import MethodSpec, _METHODS, register_method
from eigensparse.solvers import polish
from eigensparse.text import TopicConfig, extract_topics

#: no pruning, raw counts (and, in ``_paths``, every word in the working set): the
#: topics' covariance is the covariance sparse_pca forms from the matrix
WHOLE = dict(scaling="count", center=True, min_df=1, max_df=1.0, progress=False,
             random_state=0)


def _first(op, cardinality, *, random_state=None):
    """Keep the features of largest variance (a toy method of one MethodSpec)."""
    idx = np.sort(np.argsort(-op.diag(), kind="stable")[:cardinality])
    return polish(op, idx, "toy_first")


@pytest.fixture
def toy_method():
    spec = register_method(MethodSpec("toy_first", _first))
    yield spec.name
    del _METHODS[spec.name]


def _paths(X, path, method, deflation, client=None, **kw):
    """The components of every front door, rows in the same order."""
    common = dict(n_components=3, cardinality=4, method=method, deflation=deflation,
                  random_state=0)
    out = {"sparse_pca": sparse_pca(X.toarray(), **common, **kw).components,
           "fit": SparsePCA(**common, **kw).fit(X.toarray()).components_}
    tkw = dict(n_topics=3, cardinality=4, method=method, deflation=deflation, **WHOLE,
               working_set=X.shape[1], max_working_set=X.shape[1], **kw)
    out["topics (memory)"] = extract_topics(X, **tkw).components
    out["topics (streamed)"] = extract_topics(path, cache=False, **tkw).components
    if client is not None:
        import tempfile

        with tempfile.TemporaryDirectory() as fresh:  # the passes run on the workers
            res = extract_topics(path, config=TopicConfig(client=client, cache_dir=fresh), **tkw)
        assert res.passes and all(p["source"] == "dask" for p in res.passes)
        out["topics (dask)"] = res.components
        from eigensparse.operators.dask import scatter_rows

        D = scatter_rows(X.toarray(), client=client, rows_per_block=150)
        out["sparse_pca (dask)"] = sparse_pca(D, **common, **kw).components
    return out


def _assert_same(out):
    ref = out["sparse_pca"]
    for name, C in out.items():
        assert [np.flatnonzero(c).tolist() for c in C] == \
            [np.flatnonzero(c).tolist() for c in ref], name
        assert np.allclose(C, ref, atol=1e-8), name


@pytest.mark.parametrize("method,deflation", [("greedy", "schur"), ("greedy", "disjoint"),
                                              ("auto", "disjoint"), ("auto", "schur"),
                                              ("toy_first", "disjoint")])
def test_topics_fit_and_sparse_pca_give_the_same_components(corpus, toy_method, method, deflation):
    X, path = corpus
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _assert_same(_paths(X, path, method, deflation))


def test_dask_workers_give_the_same_components(corpus, toy_method):
    distributed = pytest.importorskip("distributed")
    X, path = corpus
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        for method in ("auto", "toy_first"):
            _assert_same(_paths(X, path, method, "disjoint", client=client))
