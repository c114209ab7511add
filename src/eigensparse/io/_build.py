"""Pass 1a at disk speed: a UCI file's binary cache and its count statistics in one
streamed pass.

The text is decoded in a background thread (:class:`~eigensparse.io._source.TextSource`)
while parse threads run one compiled loop (:func:`parse_into_cache`, ``nogil``) that
parses a block of lines straight into the cache's layout — word ids (int32) and counts
(uint32), the end offset of every finished document — and counts every word's document
frequency, with the same line checks as :func:`eigensparse.io._parse.parse_block`. Each
block is parsed on its own (the documents before it unknown); this thread joins the
blocks in file order (:func:`_join`: the order across the boundary, the entry count,
the ends of the documents that end where a block starts) and writes them to the cache
files as they come (CRC-32 on the way): the same cache, byte for byte, as one parse in
order. No chunk of (doc, word, count) triples is formed.

A file whose entries are not canonical (a word repeated or out of order inside a
document) or whose counts do not fit the cache's uint32 is handed back to the general
route (:meth:`eigensparse.io.UCICorpus.iter_chunks`, which sorts and sums each chunk).
"""
from __future__ import annotations

import numba
import numpy as np

from ._parse import (BLANK_LINE, ERR_TOO_MANY_ENTRIES, ERR_UNSORTED, OK, _fast_line, _load8,
                     _swar_field, general_entry, range_error)

__all__ = ["parse_into_cache", "build_uci_cache", "NOT_CACHEABLE"]

#: returned by :func:`parse_into_cache` for an entry the fused route does not take (a
#: repeated or unsorted word inside a document, a count beyond uint32)
NOT_CACHEABLE = 100

_U32_MAX = 0xFFFFFFFF


@numba.njit(cache=True, nogil=True, inline="always")
def _same_doc_line(buf, i, n, key, mask, skip):
    """The line at ``i`` when it starts with the bytes ``key`` (under ``mask``: the
    previous line's docID and the space after it, ``skip`` bytes) and goes on as
    ``W C\n`` in the usual form: (True, end, w, c), the docID being the previous
    line's. (False, …) otherwise, for :func:`_fast_line` (the same bounds: at least 28
    bytes left)."""
    if mask == 0 or i + 28 > n or (_load8(buf, i) & mask) != key:
        return False, i, np.int64(-1), np.int64(-1)
    w, j = _swar_field(buf, i + skip)
    if w < 0 or buf[j] != 32:
        return False, i, w, w
    c, j = _swar_field(buf, j + 1)
    if c < 0 or buf[j] != 10:
        return False, i, c, c
    return True, j, w, c


@numba.njit(cache=True, nogil=True, inline="always")
def _doc_key(buf, i, n):
    """(key, mask, skip) of the docID field of the line at ``i`` (digits then a space,
    at most 8 bytes together), or a zero mask."""
    j = i
    while j < i + 8 and j < n and buf[j] != 32:
        j += 1
    if j >= i + 8 or j >= n or i + 8 > n:
        return np.uint64(0), np.uint64(0), 0
    skip = j - i + 1
    mask = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(8 * (8 - skip))
    return _load8(buf, i) & mask, mask, skip


@numba.njit(cache=True, nogil=True)
def parse_into_cache(buf, n_docs, n_words, indices, data, ends, max_entries, prev_doc,
                     prev_word, base, df):
    """Parse ``buf`` (uint8, whole lines; the last may lack its newline) into the cache
    layout: word ids in ``indices`` (int32), counts in ``data`` (uint32), and in ``ends``
    the end offset (``base`` + entries before it) of every document finished in this
    block, empty documents included; adds 1 to ``df[w]`` for each entry of word w (the
    document frequencies: an int32 array of W small enough to stay in the core's cache).

    ``prev_doc``/``prev_word`` (0-based, -1 at the start) carry the order across blocks;
    ``prev_doc = -2``: a block parsed on its own, whose earlier documents are not known
    (the ends of those before its first document are left to the caller).
    Returns (n_entries, n_lines, err, err_line, err_field, last_doc, last_word, n_ends,
    first_doc); ``err`` is a code of :mod:`eigensparse.io._parse`, or
    :data:`NOT_CACHEABLE`; ``first_doc`` the 0-based docID of the first entry (-1 if
    none).
    """
    n = buf.size
    i = 0
    line = 0
    k = 0
    ne = 0
    pd = prev_doc
    pw = prev_word
    first = -1
    vals = np.zeros(3, dtype=np.int64)
    key = mask = np.uint64(0)  # the docID bytes of the last line read by _fast_line
    skip = 0
    kd = np.int64(-1)  # ... and its value
    while i < n:
        ok, end, w, c = _same_doc_line(buf, i, n, key, mask, skip)
        if ok:
            d = kd
        else:
            ok, end, d, w, c = _fast_line(buf, i, n)
            if ok and d != kd:
                key, mask, skip = _doc_key(buf, i, n)
                kd = d
        if not ok:
            err, end, d, w, c, efield = general_entry(buf, i, n, vals)
            if err == BLANK_LINE:
                line += 1
                i = end + 1
                continue
            if err != OK:
                return k, line, err, line, efield, pd, pw, ne, first
        if d < 1 or d > n_docs or w < 1 or w > n_words or c == 0:
            err, efield = range_error(d, w, c, n_docs, n_words)
            return k, line, err, line, efield, pd, pw, ne, first
        if k >= max_entries:
            return k, line, ERR_TOO_MANY_ENTRIES, line, 0, pd, pw, ne, first
        d -= 1
        w -= 1
        if d < pd:
            return k, line, ERR_UNSORTED, line, 0, pd, pw, ne, first
        if first < 0:
            first = d
        if d == pd:
            if w <= pw:
                return k, line, NOT_CACHEABLE, line, 1, pd, pw, ne, first
        elif pd == -2:  # the first document of a block parsed on its own
            pass
        else:
            j = max(pd, 0)
            while j < d:  # documents pd … d-1 end here
                ends[ne] = base + k
                ne += 1
                j += 1
        if c > _U32_MAX:
            return k, line, NOT_CACHEABLE, line, 2, pd, pw, ne, first
        indices[k] = w
        data[k] = c
        df[w] += 1
        pd = d
        pw = w
        k += 1
        line += 1
        i = end + 1  # past the newline
    return k, line, OK, -1, -1, pd, pw, ne, first


class _NotCacheable(Exception):
    """The file needs the general route (see the module docstring)."""


#: threads that parse blocks of lines (beside the one that decodes and this one, which
#: checks the order across blocks and writes the cache)
_PARSE_THREADS = 2


def _buffers(h) -> dict:
    """Buffers of one block being parsed, with its own document-frequency counts. ends:
    one per document, so never more than D (+ 1) in a block (pages never touched take
    no memory)."""
    return {"indices": np.empty(0, np.int32), "data": np.empty(0, np.uint32),
            "ends": np.empty(h.n_docs + 1, dtype=np.int64),
            "df": np.zeros(h.n_words, dtype=np.int32)}  # D < 2**31 (the header bounds it)


def _grow(bufs, block) -> None:
    cap = block.size // 6 + 1  # every entry line has at least 6 bytes
    if bufs["indices"].size < cap:
        bufs["indices"] = np.empty(cap, dtype=np.int32)
        bufs["data"] = np.empty(cap, dtype=np.uint32)


def _parse_alone(h, text, bufs):
    """One block of lines parsed on its own (on a parse thread: the documents before it
    are not known), into ``bufs``; returns the kernel's results (its ends relative to
    the block's first entry)."""
    block = np.frombuffer(text, dtype=np.uint8)
    _grow(bufs, block)
    return parse_into_cache(block, h.n_docs, h.n_words, bufs["indices"], bufs["data"],
                            bufs["ends"], block.size, -2, -1, 0, bufs["df"])


def _parse_text(stream, text, bufs, df, base):
    """One block of lines of ``stream`` into ``bufs``, in order (the state of the blocks
    before it known); returns (k, n_ends)."""
    h = stream.header
    block = np.frombuffer(text, dtype=np.uint8)
    _grow(bufs, block)
    first = stream._line
    k, nl, err, eline, efield, pd, pw, ne, _ = parse_into_cache(
        block, h.n_docs, h.n_words, bufs["indices"], bufs["data"], bufs["ends"],
        h.nnz - stream._seen, stream._prev_doc, stream._prev_word, base, df)
    if err == NOT_CACHEABLE:
        raise _NotCacheable()
    stream._advance(block, first, err, eline, efield, nl, k, pd, pw, pd + 1)
    return k, ne


def _join(stream, writer, text, bufs, out, base) -> int:
    """Append a block parsed on its own to the cache, after the blocks before it: the
    order across the boundary, the entry count and the ends of the documents that end
    where it starts. A block with a problem (its own, or at the boundary) is parsed
    again in order, which raises the reader's error at its line (or hands the file to
    the general route). Returns the entries written."""
    k, nl, err, _, _, pd, pw, ne, d0 = out
    prev_doc, prev_word = stream._prev_doc, stream._prev_word
    ok = err == OK and stream._seen + k <= stream.header.nnz
    if ok and k:
        ok = d0 > prev_doc or (d0 == prev_doc and bufs["indices"][0] > prev_word)
    if not ok:
        seq = _buffers(stream.header)
        k, ne = _parse_text(stream, text, seq, seq["df"], base)
        raise AssertionError("a block parsed again in order gave no error")  # pragma: no cover
    ends = bufs["ends"][:ne]
    ends += base
    if k and d0 > max(prev_doc, 0):  # documents prev_doc … d0 - 1 end where this block starts
        ends = np.concatenate([np.full(d0 - max(prev_doc, 0), base, dtype=np.int64), ends])
    writer.append(bufs["indices"][:k], bufs["data"][:k], ends)
    block = np.frombuffer(text, dtype=np.uint8)
    stream._advance(block, stream._line, OK, -1, -1, nl, k, pd if k else prev_doc,
                    pw if k else prev_word, pd + 1)
    return k


def _parse_all(stream, writer, threads: int) -> np.ndarray:
    """Every block of ``stream`` parsed on ``threads`` threads (each block on its own,
    into one of a few rotating sets of buffers) and joined in order into the cache
    here; returns the document frequencies."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    h = stream.header
    sets = [_buffers(h) for _ in range(2 * threads)]
    free, running = list(sets), deque()
    base = 0
    with ThreadPoolExecutor(threads, thread_name_prefix="eigensparse-parse") as pool:
        try:
            for text in stream.texts():
                if not free:
                    fut, t, bufs = running.popleft()
                    base += _join(stream, writer, t, bufs, fut.result(), base)
                    free.append(bufs)
                bufs = free.pop()
                running.append((pool.submit(_parse_alone, h, text, bufs), text, bufs))
            while running:
                fut, t, bufs = running.popleft()
                base += _join(stream, writer, t, bufs, fut.result(), base)
        finally:
            for fut, _, _ in running:
                fut.cancel()
    df = sets[0]["df"]
    for other in sets[1:]:
        df += other["df"]
    return df


def build_uci_cache(path, cache_dir=None, *, progress=None):
    """Stream the UCI file ``path`` once into its binary cache (:class:`BowCacheWriter`)
    and count statistics. Returns ``(cache, {"s1", "s2", "df"})``, or None when the file
    needs the general route (non-canonical entries, counts beyond uint32). Raises the
    reader's ``FILE: line N:`` errors; the partial cache is removed on any failure."""
    import os

    from .cache import BowCacheWriter
    from .uci import _UCIStream

    stream = _UCIStream(path, require_sorted=True, checksum=True, progress=progress)
    writer = None
    try:
        h = stream.header
        writer = BowCacheWriter(path, h.n_docs, h.n_words, cache_dir)
        try:
            df = _parse_all(stream, writer, max(1, min(_PARSE_THREADS, os.cpu_count() or 1)))
        except _NotCacheable:
            return None
        stream.finish()
        cache = writer.commit(stream.src.digest())
        writer = None
        stats = {"df": df.astype(np.int64)}
        cache.save_stats("df", stats)
        return cache, stats
    finally:
        stream.close()
        if writer is not None:
            writer.abort()
