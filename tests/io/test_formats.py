"""Other corpus formats (``io/formats.py``): Matrix Market, ``.npz`` and plain text
documents read into the same matrix."""
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from eigensparse import InvalidParameterError
from eigensparse.io import MatrixCorpus, open_corpus
from eigensparse.io.formats import (read_matrix_market, read_npz, read_text_documents,
                                   vectorize_documents)


def test_matrix_market_npz_and_text(tmp_path, bow):
    rng = np.random.default_rng(6)
    X = bow.random(rng)
    scipy.io.mmwrite(str(tmp_path / "m.mtx"), X)
    assert abs(read_matrix_market(tmp_path / "m.mtx") - X).max() == 0
    assert abs(read_matrix_market(tmp_path / "m.mtx", transpose=True) - X.T).max() == 0
    sp.save_npz(tmp_path / "m.npz", X)
    assert abs(read_npz(tmp_path / "m.npz") - X).max() == 0
    c = open_corpus(str(tmp_path / "m.npz"))
    assert isinstance(c, MatrixCorpus) and c.n_docs == X.shape[0]
    (tmp_path / "bad.mtx").write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n")
    with pytest.raises(InvalidParameterError, match=r"bad.mtx: line \d+: not a valid Matrix Market"):
        read_matrix_market(tmp_path / "bad.mtx")
    (tmp_path / "bad.npz").write_bytes(b"nope")
    with pytest.raises(InvalidParameterError, match=r"bad.npz: line 1: not a scipy.sparse .npz"):
        read_npz(tmp_path / "bad.npz")

    docs = ["the cat sat", "the dog sat down", "a cat and a dog"]
    Xc, words = vectorize_documents(docs)
    assert Xc.shape == (3, len(words)) and "cat" in words
    Xt, _ = vectorize_documents(docs, vectorizer="tfidf")
    assert np.allclose(sp.linalg.norm(Xt, axis=1), 1)
    (tmp_path / "docs").mkdir()
    for i, d in enumerate(docs):
        (tmp_path / "docs" / f"{i}.txt").write_text(d)
    Xd, wd = read_text_documents(tmp_path / "docs")
    assert abs(Xd - Xc).max() == 0 and wd == words
    (tmp_path / "lines.txt").write_bytes(b"the cat\n\xff\xfe dog\n")
    with pytest.raises(InvalidParameterError, match=r"lines.txt: line 2: not valid utf-8"):
        read_text_documents(tmp_path / "lines.txt")
