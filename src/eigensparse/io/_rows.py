"""The token rows of a corpus between tokenizing and the cache.

While the documents are tokenized, each batch's rows carry word ids in order of first
appearance (tagged with the counting thread, see :class:`eigensparse.io._tokenize.ParallelCounter`);
the sorted vocabulary is known only at the end. :class:`RowStore` keeps those rows in
memory up to a budget of entries and writes the rest to a scratch file, so that a corpus
that fits needs no scratch write and a larger one stays within bounded memory.
:func:`write_sorted_rows` then gives every entry its sorted word id (and sorts each row)
on several threads (the kernel releases the GIL) while the cache writer takes the
chunks in document order.
"""
from __future__ import annotations

import collections
import os

import numpy as np

from . import _token_kernels as K

__all__ = ["RowStore", "write_sorted_rows", "MEMORY_ENTRIES"]

#: entries (8 bytes each) kept in memory before the rest goes to the scratch file
MEMORY_ENTRIES = 1 << 25


class RowStore:
    """Rows added batch by batch (``indptr``, tagged ids, counts), read back in order.

    Examples
    --------
    >>> import numpy as np, tempfile
    >>> from eigensparse.io._rows import RowStore
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     rows = RowStore(tmp, memory_entries=3)
    ...     rows.add(np.array([0, 2, 3]), np.array([0, 1, 1], np.int32), np.array([2, 1, 1], np.uint32))
    ...     rows.add(np.array([0, 1]), np.array([2], np.int32), np.array([5], np.uint32))
    ...     parts = [(d0, ip.tolist(), i.tolist(), c.tolist()) for d0, ip, i, c in rows.parts()]
    ...     rows.close()
    >>> rows.spilled, parts
    (1, [(0, [0, 2, 3], [0, 1, 1], [2, 1, 1]), (2, [0, 1], [2], [5])])
    """

    def __init__(self, scratch_dir, memory_entries: int | None = None):
        self.scratch_dir = scratch_dir
        self.memory_entries = int(MEMORY_ENTRIES if memory_entries is None else memory_entries)
        self._parts = []  # (doc_start, indptr, idx, cnt) or (doc_start, indptr, None, None)
        self._held = 0
        self._files = None
        self.n_docs = 0
        self.nnz = 0
        self.spilled = 0  # parts in the scratch file

    def add(self, indptr, idx, cnt) -> None:
        """One batch of rows: ``indptr`` from 0, ``idx`` (int32) and ``cnt`` (uint32)."""
        n = int(idx.size)
        if self._held + n <= self.memory_entries:
            self._parts.append((self.n_docs, indptr, idx, cnt))
            self._held += n
        else:
            if self._files is None:
                self._files = [open(os.path.join(self.scratch_dir, name), "w+b")
                               for name in ("idx", "cnt")]
            self._files[0].write(memoryview(np.ascontiguousarray(idx, np.int32)).cast("B"))
            self._files[1].write(memoryview(np.ascontiguousarray(cnt, np.uint32)).cast("B"))
            self._parts.append((self.n_docs, indptr, None, None))
            self.spilled += 1
        self.n_docs += int(indptr.size) - 1
        self.nnz += n

    def lengths(self) -> np.ndarray:
        """The number of entries of every document."""
        if not self._parts:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([np.diff(p[1]) for p in self._parts])

    def parts(self):
        """``(doc_start, indptr, idx, cnt)`` of every batch in order; the parts held in
        memory are given up as they are read (the caller may overwrite them)."""
        if self._files is not None:
            for f in self._files:
                f.flush()
                f.seek(0)
        for k, (d0, ip, idx, cnt) in enumerate(self._parts):
            if idx is None:
                m = int(ip[-1])
                idx = np.fromfile(self._files[0], dtype=np.int32, count=m)
                cnt = np.fromfile(self._files[1], dtype=np.uint32, count=m)
            self._parts[k] = None
            yield d0, ip, idx, cnt

    def close(self) -> None:
        if self._files is not None:
            for f in self._files:
                f.close()
            self._files = None
        self._parts = []


def write_sorted_rows(rows: RowStore, writer, rank, base, shift: int, pool=None) -> None:
    """Every part of ``rows`` with its sorted word ids (``rank[base[owner] + local]``)
    and each row sorted, added to the cache ``writer`` in document order; the parts are
    renumbered in place on the threads of ``pool`` (an executor, or None)."""
    from .cache import CSRChunk

    def renumber(part):
        d0, ip, idx, cnt = part
        K.remap_rows(ip, idx, cnt, rank, base, shift, idx, cnt)
        return CSRChunk(d0, ip, idx, cnt)

    if pool is None:
        for part in rows.parts():
            writer.add(renumber(part))
        return
    pending = collections.deque()
    depth = 2 * max(1, getattr(pool, "_max_workers", 2))
    for part in rows.parts():
        pending.append(pool.submit(renumber, part))
        if len(pending) > depth:
            writer.add(pending.popleft().result())
    while pending:
        writer.add(pending.popleft().result())
