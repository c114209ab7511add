import os

os.environ.setdefault("OMP_NUM_THREADS", "2")


import pytest


@pytest.fixture(autouse=True)
def _private_cache_dir(tmp_path_factory, monkeypatch):
    """Never write the user's ~/.cache from tests (nor read data sets fetched there)."""
    monkeypatch.setenv("EIGENSPARSE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("EIGENSPARSE_DATA", str(tmp_path_factory.mktemp("data")))
