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
