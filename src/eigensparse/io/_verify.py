"""Checks of a binary cache's array files against its ``meta.json`` (CRC-32 and
structure), read in blocks so that memory does not grow with the cache."""
from __future__ import annotations

import os

import numpy as np

from ._source import crc32

__all__ = ["verify_cache_arrays"]

#: bytes read at a time when verifying a cache
_VERIFY_BLOCK = 1 << 24
#: the array files of a cache: key -> (file name, dtype)
_ARRAYS = {"indptr": ("indptr.i64", "<i8"), "indices": ("indices.i32", "<i4"),
           "data": ("data.u32", "<u4")}


def _scan_array(path, dtype, check_block, block_bytes=_VERIFY_BLOCK):
    """CRC-32 of the file ``path`` read as ``dtype`` in blocks; ``check_block(a, pos)``
    returns a problem (str) or None for each block ``a`` starting at element ``pos``."""
    crc, pos = 0, 0
    count = max(1, block_bytes // np.dtype(dtype).itemsize)
    with open(path, "rb") as f:
        while True:
            a = np.fromfile(f, dtype=dtype, count=count)
            if a.size == 0:
                return crc, None
            crc = crc32(a, crc)
            problem = check_block(a, pos)
            if problem is not None:
                return crc, problem
            pos += a.size


def verify_cache_arrays(directory, meta: dict) -> str | None:
    """Check a cache's array files against ``meta``: CRC-32 of each file, offsets that
    start at 0, never decrease and end at NNZ, word ids in [0, W), positive counts.

    Reads each file once in blocks of 16 MB (memory does not grow with the cache).
    Returns a one-phrase description of the first problem, or None when intact.

    Examples
    --------
    >>> import tempfile
    >>> from importlib.resources import files
    >>> from eigensparse.io import BowCache, UCICorpus
    >>> from eigensparse.io.cache import verify_cache_arrays
    >>> kos = files("eigensparse.datasets") / "data" / "docword.kos.txt.gz"
    >>> caches = tempfile.TemporaryDirectory()
    >>> _ = sum(ch.nnz for ch in UCICorpus(kos, cache_dir=caches.name).iter_chunks())
    >>> cache = BowCache.open(kos, caches.name)
    >>> verify_cache_arrays(cache.directory, cache.meta) is None  # intact
    True
    >>> caches.cleanup()
    """
    n_words, nnz = int(meta["n_words"]), int(meta["nnz"])
    last = [np.int64(0)]

    def offsets(a, pos):
        if pos == 0 and a[0] != 0:
            return f"offsets start at {int(a[0])}, not 0"
        prev = last[0] if pos else a[0]
        if a[0] < prev or (a.size > 1 and np.any(a[1:] < a[:-1])):
            return "offsets decrease"
        last[0] = a[-1]
        return None

    def word_ids(a, pos):
        lo, hi = int(a.min()), int(a.max())
        if lo < 0 or hi >= n_words:
            bad = lo if lo < 0 else hi
            return f"word id {bad} outside [0, W={n_words})"
        return None

    def counts(a, pos):
        return "a count is 0" if int(a.min()) == 0 else None

    for key, check in (("indptr", offsets), ("indices", word_ids), ("data", counts)):
        fname, dtype = _ARRAYS[key]
        try:
            crc, problem = _scan_array(os.path.join(directory, fname), dtype, check)
        except OSError as exc:
            return f"cannot read {fname} ({type(exc).__name__})"
        if problem is not None:
            return f"{fname}: {problem}"
        if crc != meta["arrays"][key]["crc32"]:
            return f"{fname} does not match its CRC-32 (the file was altered)"
    if int(last[0]) != nnz:
        return f"offsets end at {int(last[0])}, not NNZ={nnz}"
    return None
