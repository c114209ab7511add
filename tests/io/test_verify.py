"""The checks of a cache's array files (``io/_verify.py``): CRC-32 and structure, each
problem named."""
import os

import numpy as np
import pytest

from eigensparse.io import UCICorpus
from eigensparse.io._verify import verify_cache_arrays


def _cache(tmp_path, bow):
    X = bow.random(np.random.default_rng(5), D=30, W=12)
    f = bow.write(tmp_path / "docword.v.txt", bow.uci_text(X))
    c = UCICorpus(f, cache_dir=tmp_path / "c")
    c.ensure_cache()
    return c.cache


@pytest.mark.parametrize("fname, dtype, pos, value, problem", [
    ("indices.i32", "<i4", 3, 99, "word id 99 outside [0, W=12)"),
    ("data.u32", "<u4", 0, 0, "a count is 0"),
    ("indptr.i64", "<i8", 0, 1, "offsets start at 1, not 0"),
    ("indptr.i64", "<i8", 5, 0, "offsets decrease"),
    ("data.u32", "<u4", 2, 7777, "does not match its CRC-32"),
])
def test_each_damage_is_named(tmp_path, bow, fname, dtype, pos, value, problem):
    cache = _cache(tmp_path, bow)
    assert verify_cache_arrays(cache.directory, cache.meta) is None
    path = os.path.join(cache.directory, fname)
    a = np.fromfile(path, dtype=dtype)
    a[pos] = value
    a.tofile(path)
    assert problem in verify_cache_arrays(cache.directory, cache.meta)
