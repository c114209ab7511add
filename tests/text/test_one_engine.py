"""One engine (issue #18): the topics of a corpus in memory, streamed from a file and
read by the workers of a Dask cluster, ``SparsePCA.fit`` and ``sparse_pca`` give the
same components for one method; a method added with one ``MethodSpec`` works in all."""
import gzip
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse import SparsePCA, sparse_pca
from eigensparse.registry import MethodSpec, _METHODS, register_method
from eigensparse.solvers import polish
from eigensparse.text import TopicConfig, extract_topics

N_DOCS, N_WORDS = 400, 30
#: every word enters the working set, no pruning, raw counts: the topics' covariance is
#: the covariance sparse_pca forms from the matrix
WHOLE = dict(scaling="count", center=True, min_df=1, max_df=1.0, working_set=N_WORDS,
             max_working_set=N_WORDS, progress=False, random_state=0)


def _corpus(seed=0):
    """Counts with three planted groups of co-occurring words."""
    rng = np.random.default_rng(seed)
    rate = rng.uniform(0.2, 1.5, size=(N_DOCS, N_WORDS))
    for g, words in enumerate([range(0, 5), range(8, 13), range(16, 21)]):
        on = rng.random(N_DOCS) < 0.3
        rate[np.ix_(on, list(words))] += 2.0 + g
    X = sp.csr_matrix(rng.poisson(rate).astype(float))
    X.eliminate_zeros()
    return X


def _write_uci(X, path):
    C = X.tocoo()
    order = np.lexsort((C.col, C.row))
    with gzip.open(path, "wt") as f:
        f.write(f"{X.shape[0]}\n{X.shape[1]}\n{X.nnz}\n")
        for i, j, v in zip(C.row[order], C.col[order], C.data[order]):
            f.write(f"{i + 1} {j + 1} {int(v)}\n")


def _first(op, cardinality, *, random_state=None):
    """Keep the features of largest variance (a toy method of one MethodSpec)."""
    idx = np.sort(np.argsort(-op.diag(), kind="stable")[:cardinality])
    return polish(op, idx, "toy_first")


@pytest.fixture
def toy_method():
    spec = register_method(MethodSpec("toy_first", _first))
    yield spec.name
    del _METHODS[spec.name]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    X = _corpus()
    path = tmp_path_factory.mktemp("uci") / "docword.planted.txt.gz"
    _write_uci(X, path)
    return X, str(path)


def _paths(X, path, method, deflation, client=None, **kw):
    """The components of every front door, rows in the same order."""
    common = dict(n_components=3, cardinality=4, method=method, deflation=deflation,
                  random_state=0)
    out = {"sparse_pca": sparse_pca(X.toarray(), **common, **kw).components,
           "fit": SparsePCA(**common, **kw).fit(X.toarray()).components_}
    tkw = dict(n_topics=3, cardinality=4, method=method, deflation=deflation, **WHOLE, **kw)
    out["topics (memory)"] = extract_topics(X, **tkw).components
    out["topics (streamed)"] = extract_topics(path, cache=False, **tkw).components
    if client is not None:
        res = extract_topics(path, config=TopicConfig(client=client), **tkw)
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


def test_dask_workers_read_the_corpus_and_give_the_same_components(corpus, toy_method):
    distributed = pytest.importorskip("distributed")
    X, path = corpus
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        for method in ("auto", "toy_first"):
            _assert_same(_paths(X, path, method, "disjoint", client=client))
        from eigensparse.text._cluster import cluster_corpus

        c = cluster_corpus(path, client=client, n_blocks=3)
        # the client holds no block: futures on the workers, which read the file
        assert not hasattr(c, "X") and len(c.blocks.futures) == 3
        assert all(f.status == "finished" for f in c.blocks.futures)
        assert (c.n_docs, c.n_words, c.nnz) == (N_DOCS, N_WORDS, X.nnz)
        held = client.who_has(c.blocks.futures)
        assert all(held[f.key] for f in c.blocks.futures)


def test_max_time_is_passed_down_across_the_growth_of_the_working_set(corpus, monkeypatch):
    """A method that takes ``max_time`` gets the time left of its topic at every solve,
    the solves after a re-read of a larger working set included (issue #19). The
    solver's time is simulated: each solve takes 10 s of a fake clock."""
    import types

    from eigensparse import _dispatch
    from eigensparse.text import _working_set

    X, _ = corpus
    clock, calls = [0.0], []
    fake = types.SimpleNamespace(perf_counter=lambda: clock[0])
    monkeypatch.setattr(_working_set, "time", fake)
    monkeypatch.setattr(_dispatch, "time", fake)  # the per-component budget's clock

    def timed_first(op, cardinality, *, max_time=None, random_state=None):
        """The features of largest variance, recording the time it is given."""
        calls.append(max_time)
        clock[0] += 10.0
        return _first(op, cardinality)

    register_method(MethodSpec("toy_timed", timed_first))
    try:
        res = extract_topics(X, n_topics=2, cardinality=4, method="toy_timed", scaling="count",
                             min_df=1, max_df=1.0, working_set=5, max_time=25.0, refine=False,
                             progress=False)
    finally:
        del _METHODS["toy_timed"]
    assert len(res.working_set_sizes) > 1 and res.rereads  # the working set grew
    # topic 1: 25 s, then what is left after each 10 s solve, across the re-reads
    # topic 1 is accepted on the first working set; topic 2 needs two re-reads: its
    # solves get 25 s, then what is left after each 10 s solve
    assert [r.split(":")[0] for r in res.rereads] == ["topic 2", "topic 2"]
    assert calls == [25.0, 25.0, 15.0, 5.0]
    assert all(v >= _working_set.TopicBudget.FLOOR for v in calls)


def test_topic_config_is_the_options_of_extract_topics(corpus):
    X, _ = corpus
    cfg = TopicConfig(n_topics=2, cardinality=3, scaling="count", min_df=1, max_df=1.0,
                      progress=False)
    a = extract_topics(X, config=cfg)
    b = extract_topics(X, n_topics=2, cardinality=3, scaling="count", min_df=1, max_df=1.0,
                       progress=False)
    assert np.array_equal(a.components, b.components)
    c = extract_topics(X, config=cfg, cardinality=4)  # a keyword replaces the config's field
    assert [t.cardinality for t in c.topics] == [4, 4]
    from eigensparse import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="unknown option.*'n_topic'"):
        extract_topics(X, n_topic=2)
    with pytest.raises(InvalidParameterError, match="max_time.*time_budget"):
        extract_topics(X, max_time=1.0, time_budget=2.0)
    with pytest.raises(InvalidParameterError, match="refine"):
        extract_topics(X, refine="sometimes")
    with pytest.raises(InvalidParameterError, match="config"):
        extract_topics(X, config={"n_topics": 2})
