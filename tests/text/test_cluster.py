"""The topic passes on a Dask cluster (``text/_cluster.py``): the workers read the
corpus, each its own documents, and only the block sums reach the client."""
import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.text._cluster import ClusterCorpus, cluster_corpus

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster, set_as_default=False) as c:
        yield c


def _column_sums(chunk, n_words):
    """Per-block word sums (pass 1's kind of reduction)."""
    return np.bincount(chunk.indices, weights=chunk.data, minlength=n_words)


def _gram(chunk, n_words):
    """Per-block Gram matrix (pass 2's kind of reduction)."""
    import scipy.sparse as sp

    B = sp.csr_matrix((chunk.data, chunk.indices, chunk.indptr), shape=(chunk.n_docs, n_words))
    return (B.T @ B).toarray()


def test_workers_read_the_file_and_hold_the_blocks(corpus, client):
    X, path = corpus
    c = cluster_corpus(path, client=client, n_blocks=3)
    assert isinstance(c, ClusterCorpus)
    # the client holds no block: futures on the workers, which read the file
    assert not hasattr(c, "X") and len(c.blocks.futures) == 3
    assert all(f.status == "finished" for f in c.blocks.futures)
    assert (c.n_docs, c.n_words, c.nnz) == (*X.shape, X.nnz)
    held = client.who_has(c.blocks.futures)
    assert all(held[f.key] for f in c.blocks.futures)
    assert c.name == "docword.planted.txt.gz"


@pytest.mark.parametrize("source", ["file", "matrix"])
def test_block_reductions_equal_numpy(corpus, client, source):
    X, path = corpus
    c = cluster_corpus(path if source == "file" else X, client=client, n_blocks=4,
                       name="planted")
    W = X.shape[1]
    A = X.toarray()
    assert np.allclose(c.reduce_blocks(_column_sums, W), A.sum(axis=0))
    assert np.allclose(c.reduce_blocks(_gram, W), A.T @ A)
    assert c.last_source == "dask" and c.name == "planted"
    with pytest.raises(NotImplementedError, match="reduce_blocks"):
        next(iter(c.iter_chunks()))


def test_a_vocabulary_of_the_wrong_length_is_named(corpus, client):
    _, path = corpus
    words = [f"w{i}" for i in range(29)]
    with pytest.raises(InvalidParameterError, match="'vocab' has 29 words.*has 30"):
        cluster_corpus(path, words, client=client)
    c = cluster_corpus(path, words + ["w29"], client=client, n_blocks=2)
    assert c.words[-1] == "w29" and len(c.words) == 30


def test_a_file_is_cached_once_and_read_by_row_ranges(corpus, client, tmp_path):
    """One worker builds the binary cache; the blocks are row ranges of it, read chunk
    by chunk at each pass (a chunk of a few entries here), whose sums equal NumPy's."""
    from eigensparse.io import BowCache

    X, path = corpus
    c = cluster_corpus(path, client=client, n_blocks=3, cache_dir=tmp_path, chunk_nnz=50)
    cache = BowCache.open(path, tmp_path)
    assert cache is not None and cache.nnz == X.nnz
    assert np.allclose(c.reduce_blocks(_column_sums, X.shape[1]), X.toarray().sum(axis=0))
    A = X.toarray()
    assert np.allclose(c.reduce_blocks(_gram, X.shape[1]), A.T @ A)
    again = cluster_corpus(path, client=client, n_blocks=2, cache_dir=tmp_path)
    assert again.nnz == X.nnz and BowCache.open(path, tmp_path).token == cache.token


def test_topics_on_the_cluster_keep_their_statistics_with_the_cache(corpus, client, tmp_path):
    """The building worker keeps the count statistics of its pass; the client, which sees
    the same cache here, keeps the passes' statistics and Gram matrix there: a second run
    makes no pass and finds the same topics."""
    from eigensparse.text import extract_topics

    X, path = corpus
    kw = dict(n_topics=2, cardinality=3, client=client, cache_dir=tmp_path, progress=False,
              min_df=1, max_df=1.0)
    first = extract_topics(path, **kw)
    assert [p["name"] for p in first.passes] == ["pass 1: word statistics",
                                                         "pass 2: covariance"]
    second = extract_topics(path, **kw)
    assert second.passes == []
    assert [t.words for t in second.topics] == [t.words for t in first.topics]


@pytest.mark.parametrize("source", ["file", "matrix"])
def test_partner_screening_on_the_cluster_equals_the_local_one(corpus, client, source, tmp_path):
    """The working set's partner ranking: the worker holding the first block measures the
    pool on the first documents, as a local run does, and returns the same order."""
    from types import SimpleNamespace

    from eigensparse.io import open_corpus
    from eigensparse.text._screen import rank_by_partners

    X, path = corpus
    A = X.toarray().astype(float)
    var = A.var(axis=0)
    local = open_corpus(X)
    remote = cluster_corpus(path if source == "file" else X, client=client, n_blocks=2,
                            cache_dir=tmp_path, chunk_nnz=64)
    got = []
    for c in (local, remote):
        passes = SimpleNamespace(corpus=c, scaling="count", idf=None, chunk_nnz=64)
        got.append(rank_by_partners(passes, var, 6, 3, pool_size=15, sample_docs=150))
    assert got[0].info["rule"] == got[1].info["rule"] == "partner"
    assert got[0].sample_docs == got[1].sample_docs == 150
    assert np.array_equal(got[0].order, got[1].order)
    assert np.allclose(got[0].score, got[1].score, equal_nan=True)


def test_word_statistics_with_known_document_frequencies_on_the_cluster(corpus, client,
                                                                         tmp_path):
    """Pass 1 on the workers with the document frequencies already known: the workers
    do not count them, the sums equal the local pass's and the known df comes back."""
    from eigensparse.text import word_statistics

    X, path = corpus
    c = cluster_corpus(path, client=client, n_blocks=2, cache_dir=tmp_path, chunk_nnz=64)
    local = word_statistics(X, "log")
    got = word_statistics(c, "log", df=local["df"])
    assert np.array_equal(got["df"], local["df"])
    assert np.allclose(got["s1"], local["s1"]) and np.allclose(got["s2"], local["s2"])
    assert np.array_equal(word_statistics(c, "log")["df"], local["df"])
