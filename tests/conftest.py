import os

os.environ.setdefault("OMP_NUM_THREADS", "2")


import pytest


@pytest.fixture(scope="module")
def kos():
    """The KOS bag-of-words matrix (3430 documents × 6906 words, scipy.sparse CSR).

    Shared by the operator, Dask and front-door tests; ``tests/text`` overrides it with
    the whole dataset (matrix and vocabulary)."""
    from eigensparse.datasets import load_kos

    return load_kos().data


@pytest.fixture(autouse=True)
def _private_cache_dir(tmp_path_factory, monkeypatch):
    """Never write the user's ~/.cache from tests (nor read data sets fetched there)."""
    monkeypatch.setenv("EIGENSPARSE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("EIGENSPARSE_DATA", str(tmp_path_factory.mktemp("data")))
