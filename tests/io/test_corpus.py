"""Corpora (``io/corpus.py``): a matrix in memory and a file stream the same whole-document
chunks, ``open_corpus`` picks the reader from what it is given, and bad input is refused
by name."""
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from eigensparse import InvalidParameterError
from eigensparse.io.corpus import MatrixCorpus, UCICorpus, open_corpus


def _stack(corpus, chunk_nnz):
    rows, next_doc = [], 0
    for ch in corpus.iter_chunks(chunk_nnz=chunk_nnz):
        assert ch.doc_start == next_doc  # whole documents, in order, none skipped
        assert ch.n_docs >= 1
        next_doc += ch.n_docs
        rows.append(sp.csr_matrix((ch.data, ch.indices, ch.indptr), shape=(ch.n_docs, corpus.n_words)))
    assert next_doc == corpus.n_docs
    return sp.vstack(rows).tocsr()


@pytest.mark.parametrize("chunk_nnz", [1, 7, 10**6])
def test_memory_and_file_corpora_stream_the_same_matrix(tmp_path, bow, chunk_nnz):
    X = bow.random(np.random.default_rng(0), D=50, W=20).astype(float)
    f = bow.write(tmp_path / "docword.t.txt", bow.uci_text(X))
    for corpus in (MatrixCorpus(X), UCICorpus(f, cache=False), open_corpus(f, cache_dir=tmp_path)):
        assert (corpus.n_docs, corpus.n_words, corpus.nnz) == (50, 20, X.nnz)
        assert abs(_stack(corpus, chunk_nnz) - X).max() == 0


def test_matrix_corpus_sums_duplicates_and_reads_counts():
    X = sp.coo_matrix(([1.0, 2.0, 4.0], ([0, 0, 1], [1, 1, 0])), shape=(2, 3))
    c = MatrixCorpus(X, ["a", "b", "c"])
    assert c.nnz == 2 and c.integer_counts and c.words == ["a", "b", "c"]
    np.testing.assert_array_equal(_stack(c, 5).toarray(), [[0, 3, 0], [4, 0, 0]])
    assert not MatrixCorpus(np.array([[0.5, 1.0]])).integer_counts  # tf-idf-like values


def test_open_corpus_dispatch(tmp_path, bow):
    X = bow.random(np.random.default_rng(1), D=12, W=6).astype(float)
    scipy.io.mmwrite(str(tmp_path / "m.mtx"), X)
    sp.save_npz(tmp_path / "m.npz", X)
    f = bow.write(tmp_path / "docword.d.txt", bow.uci_text(X))
    c = MatrixCorpus(X)
    assert open_corpus(c) is c
    assert isinstance(open_corpus(X), MatrixCorpus)
    for path in (tmp_path / "m.mtx", tmp_path / "m.npz", f):
        got = open_corpus(path, cache=False)
        assert abs(_stack(got, 10) - X).max() == 0, path
    words = [f"w{i}" for i in range(6)]
    assert open_corpus(f, words, cache=False).words == words


@pytest.mark.parametrize("make, match", [
    (lambda p: open_corpus(3.5), "'docword' must be a path"),
    (lambda p: MatrixCorpus(np.ones(4)), "'docword' must be a 2-D matrix"),
    (lambda p: MatrixCorpus(np.zeros((0, 3))), "'docword' must be a non-empty"),
    (lambda p: MatrixCorpus(np.array([[1.0, np.nan]])), "'docword' has NaN"),
    (lambda p: MatrixCorpus(np.eye(3), ["a", "b"]), "'vocab' has 2 words.*3 columns"),
])
def test_bad_corpora_name_the_parameter(tmp_path, make, match):
    with pytest.raises(InvalidParameterError, match=match):
        make(tmp_path)
