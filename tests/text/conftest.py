"""Fixtures shared by the topic-engine tests (``tests/text``)."""
import gzip

import numpy as np
import pytest
import scipy.sparse as sp


def _planted_counts(n_docs=400, n_words=30, seed=0):
    """Counts with three planted groups of co-occurring words (0-4, 8-12, 16-20)."""
    rng = np.random.default_rng(seed)
    rate = rng.uniform(0.2, 1.5, size=(n_docs, n_words))
    for g, words in enumerate([range(0, 5), range(8, 13), range(16, 21)]):
        on = rng.random(n_docs) < 0.3
        rate[np.ix_(on, list(words))] += 2.0 + g
    X = sp.csr_matrix(rng.poisson(rate).astype(float))
    X.eliminate_zeros()
    return X


def _write_uci(X, path):
    """``X`` as a UCI bag-of-words file (gzip, 1-based ids, sorted by document)."""
    C = X.tocoo()
    order = np.lexsort((C.col, C.row))
    with gzip.open(path, "wt") as f:
        f.write(f"{X.shape[0]}\n{X.shape[1]}\n{X.nnz}\n")
        for i, j, v in zip(C.row[order], C.col[order], C.data[order]):
            f.write(f"{i + 1} {j + 1} {int(v)}\n")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """``(X, path)``: 400 documents × 30 words of counts with three planted word groups
    (0-4, 8-12, 16-20), in memory (CSR) and as a UCI file."""
    X = _planted_counts()
    path = tmp_path_factory.mktemp("uci") / "docword.planted.txt.gz"
    _write_uci(X, path)
    return X, str(path)
