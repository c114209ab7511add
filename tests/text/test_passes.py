"""The passes over a corpus (``text/_passes.py``): word statistics and the working-set
covariance streamed in chunks equal the in-memory operator."""
import numpy as np
import pytest

from eigensparse import InvalidParameterError, SparseData
from eigensparse.datasets import load_kos
from eigensparse.text._passes import word_statistics, working_set_covariance


@pytest.fixture(scope="module")
def kos():
    return load_kos()


def _rel(a, b):
    return np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(np.max(np.abs(b)), 1e-300)


def test_low_level_passes(kos):
    st = word_statistics(kos.data)
    assert np.array_equal(st["df"], np.diff(kos.data.tocsc().indptr))
    ws = np.array([3, 10, 99])
    S = working_set_covariance(kos.data, ws, mean=st["s1"] / kos.data.shape[0], n_jobs=2,
                               chunk_nnz=5000)
    assert _rel(S, SparseData(kos.data).block(ws)) < 1e-12
    with pytest.raises(InvalidParameterError, match="working_set"):
        working_set_covariance(kos.data, [5, 3], mean=st["s1"])


@pytest.mark.parametrize("scaling", ["count", "binary", "log", "tfidf"])
def test_statistics_of_every_scaling_equal_the_scaled_matrix(kos, tmp_path, scaling):
    """The fused kernel (values computed entry by entry) against the scaled matrix, from
    memory (float counts) and from the binary cache (uint32 counts)."""
    from eigensparse.io import UCICorpus
    from eigensparse.text._passes import _idf, scale_matrix

    from .conftest import _write_uci

    X = kos.data[:700].tocsr()
    path = tmp_path / "docword.k.txt.gz"
    _write_uci(X, path)
    idf = _idf(np.diff(X.tocsc().indptr), X.shape[0]) if scaling == "tfidf" else None
    Y = scale_matrix(X, scaling)
    ref = {"s1": np.asarray(Y.sum(axis=0)).ravel(),
           "s2": np.asarray(Y.multiply(Y).sum(axis=0)).ravel(), "df": np.diff(Y.tocsc().indptr)}
    corpus = UCICorpus(path, cache_dir=tmp_path)
    word_statistics(corpus, "count")  # builds the cache
    for src in (X, corpus):
        st = word_statistics(src, scaling, idf=idf, chunk_nnz=3000)
        assert np.array_equal(st["df"], ref["df"])
        assert _rel(st["s1"], ref["s1"]) < 1e-12 and _rel(st["s2"], ref["s2"]) < 1e-12
    assert corpus.last_source == "cache"


@pytest.mark.parametrize("scaling", ["count", "binary", "log", "tfidf"])
def test_passes_on_two_threads_equal_the_scaled_matrix(kos, scaling):
    """Both passes split every chunk between two threads (each with its own sums) and
    compute the scaled values entry by entry: the same numbers as the scaled matrix."""
    from eigensparse.text._passes import _idf, scale_matrix

    X = kos.data[:900].tocsr()
    df = np.diff(X.tocsc().indptr)
    idf = _idf(df, X.shape[0]) if scaling == "tfidf" else None
    Y = scale_matrix(X, scaling)
    ws = np.sort(np.argsort(-df, kind="stable")[:80])  # frequent words: many pairs per document
    mean = np.asarray(Y.mean(axis=0)).ravel()
    ref = SparseData(Y).block(ws)
    one = word_statistics(X, scaling, idf=idf, chunk_nnz=4000)
    for n_jobs in (1, 2):
        st = word_statistics(X, scaling, idf=idf, chunk_nnz=4000, n_jobs=n_jobs)
        assert np.array_equal(st["df"], df)
        assert _rel(st["s1"], one["s1"]) < 1e-12 and _rel(st["s2"], one["s2"]) < 1e-12
        # known document frequencies (pass 1a's): returned, not counted again; same sums
        known = word_statistics(X, scaling, idf=idf, chunk_nnz=4000, n_jobs=n_jobs, df=df)
        assert np.array_equal(known["df"], df) and known["df"] is not df
        assert np.array_equal(known["s1"], st["s1"]) and np.array_equal(known["s2"], st["s2"])
        S = working_set_covariance(X, ws, scaling=scaling, idf=idf, mean=mean, n_jobs=n_jobs,
                                   chunk_nnz=4000)
        assert _rel(S, ref) < 1e-12


def test_document_norms_of_pass_1_serve_pass_2(kos):
    """tf-idf: pass 1 keeps every document's ℓ2 norm; pass 2 given them computes the
    very same covariance (bit for bit) without computing them again; a wrong array is
    refused by name."""
    from eigensparse.text._passes import _idf, scale_matrix

    X = kos.data[:900].tocsr()
    df = np.diff(X.tocsc().indptr)
    idf = _idf(df, X.shape[0])
    norms = np.full(X.shape[0], np.nan)
    word_statistics(X, "tfidf", idf=idf, chunk_nnz=4000, n_jobs=2, norms=norms)
    Xs = X.multiply(idf[None, :]).tocsr()
    ref = np.sqrt(np.asarray(Xs.multiply(Xs).sum(axis=1)).ravel())
    ref[ref == 0] = 1.0
    assert np.allclose(norms, ref, rtol=1e-14, atol=0)
    ws = np.sort(np.argsort(-df, kind="stable")[:60])
    for n_jobs in (1, 2):
        plain = working_set_covariance(X, ws, scaling="tfidf", idf=idf, center=False,
                                       n_jobs=n_jobs, chunk_nnz=3000)
        fast = working_set_covariance(X, ws, scaling="tfidf", idf=idf, center=False,
                                      n_jobs=n_jobs, chunk_nnz=3000, norms=norms)
        assert np.array_equal(plain, fast)
    Y = scale_matrix(X, "tfidf")
    assert _rel(fast, (Y[:, ws].T @ Y[:, ws]).toarray() / X.shape[0]) < 1e-12
    with pytest.raises(InvalidParameterError, match="'norms'.*900"):
        working_set_covariance(X, ws, scaling="tfidf", idf=idf, norms=norms[:10])
