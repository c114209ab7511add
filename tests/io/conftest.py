"""Small bag-of-words files shared by the reader tests (as a fixture: the test modules
are imported by path, not as a package)."""
import gzip
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp


def _write(path, text, gz=False):
    data = text.encode() if isinstance(text, str) else text
    if gz:
        data = gzip.compress(data)
    path.write_bytes(data)
    return str(path)


def _random_bow(rng, D=40, W=25, density=0.3):
    X = sp.random(D, W, density=density, random_state=np.random.RandomState(rng.integers(1 << 30)),
                  data_rvs=lambda k: rng.integers(1, 6, k)).tocsr()
    X.sort_indices()
    return X


def _uci_text(X):
    C = X.tocoo()
    o = np.lexsort((C.col, C.row))
    lines = [f"{X.shape[0]}", f"{X.shape[1]}", f"{X.nnz}"]
    lines += [f"{r + 1} {c + 1} {int(v)}" for r, c, v in zip(C.row[o], C.col[o], C.data[o])]
    return "\n".join(lines) + "\n"


def _consume(corpus):
    parts = [sp.csr_matrix((ch.data.astype(float), ch.indices, ch.indptr),
                           shape=(ch.n_docs, corpus.n_words)) for ch in corpus.iter_chunks(chunk_nnz=50)]
    return parts


@pytest.fixture
def bow():
    """``bow.write(path, text, gz=False)``, ``bow.random(rng, D, W, density)`` (a random
    count matrix), ``bow.uci_text(X)`` (its UCI docword text), ``bow.consume(corpus)``
    (its chunks as CSR matrices)."""
    return SimpleNamespace(write=_write, random=_random_bow, uci_text=_uci_text,
                           consume=_consume)
