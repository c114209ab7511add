"""Pass 1a at disk speed: a UCI file's binary cache and its count statistics in one
streamed pass.

The text is decoded in a background thread (:class:`~eigensparse.io._source.TextSource`)
while one compiled loop (:func:`parse_into_cache`, ``nogil``) parses each block of lines
straight into the cache's layout — word ids (int32) and counts (uint32), the end offset
of every finished document — and adds every word's Σcount, Σcount² and document
frequency, with the same line checks as :func:`eigensparse.io._parse.parse_block`. The
blocks are written to the cache files as they come (CRC-32 on the way); no chunk of
(doc, word, count) triples is formed.

A file whose entries are not canonical (a word repeated or out of order inside a
document) or whose counts do not fit the cache's uint32 is handed back to the general
route (:meth:`eigensparse.io.UCICorpus.iter_chunks`, which sorts and sums each chunk).
"""
from __future__ import annotations

import numba
import numpy as np

from ._parse import (BLANK_LINE, ERR_TOO_MANY_ENTRIES, ERR_UNSORTED, OK, _fast_line,
                     general_entry, range_error)

__all__ = ["parse_into_cache", "build_uci_cache", "NOT_CACHEABLE"]

#: returned by :func:`parse_into_cache` for an entry the fused route does not take (a
#: repeated or unsorted word inside a document, a count beyond uint32)
NOT_CACHEABLE = 100

_U32_MAX = 0xFFFFFFFF


@numba.njit(cache=True, nogil=True)
def parse_into_cache(buf, n_docs, n_words, indices, data, ends, max_entries, prev_doc,
                     prev_word, base, df):
    """Parse ``buf`` (uint8, whole lines; the last may lack its newline) into the cache
    layout: word ids in ``indices`` (int32), counts in ``data`` (uint32), and in ``ends``
    the end offset (``base`` + entries before it) of every document finished in this
    block, empty documents included; adds 1 to ``df[w]`` for each entry of word w (the
    document frequencies: an int32 array of W small enough to stay in the core's cache).

    ``prev_doc``/``prev_word`` (0-based, -1 at the start) carry the order across blocks.
    Returns (n_entries, n_lines, err, err_line, err_field, last_doc, last_word, n_ends);
    ``err`` is a code of :mod:`eigensparse.io._parse`, or :data:`NOT_CACHEABLE`.
    """
    n = buf.size
    i = 0
    line = 0
    k = 0
    ne = 0
    pd = prev_doc
    pw = prev_word
    vals = np.zeros(3, dtype=np.int64)
    while i < n:
        ok, end, d, w, c = _fast_line(buf, i, n)
        if not ok:
            err, end, d, w, c, efield = general_entry(buf, i, n, vals)
            if err == BLANK_LINE:
                line += 1
                i = end + 1
                continue
            if err != OK:
                return k, line, err, line, efield, pd, pw, ne
        if d < 1 or d > n_docs or w < 1 or w > n_words or c == 0:
            err, efield = range_error(d, w, c, n_docs, n_words)
            return k, line, err, line, efield, pd, pw, ne
        if k >= max_entries:
            return k, line, ERR_TOO_MANY_ENTRIES, line, 0, pd, pw, ne
        d -= 1
        w -= 1
        if d < pd:
            return k, line, ERR_UNSORTED, line, 0, pd, pw, ne
        if d == pd:
            if w <= pw:
                return k, line, NOT_CACHEABLE, line, 1, pd, pw, ne
        else:
            j = max(pd, 0)
            while j < d:  # documents pd … d-1 end here
                ends[ne] = base + k
                ne += 1
                j += 1
        if c > _U32_MAX:
            return k, line, NOT_CACHEABLE, line, 2, pd, pw, ne
        indices[k] = w
        data[k] = c
        df[w] += 1
        pd = d
        pw = w
        k += 1
        line += 1
        i = end + 1  # past the newline
    return k, line, OK, -1, -1, pd, pw, ne


class _NotCacheable(Exception):
    """The file needs the general route (see the module docstring)."""


def _parse_text(stream, text, bufs, df, base):
    """One block of lines of ``stream`` into ``bufs``; returns (k, n_ends)."""
    h = stream.header
    block = np.frombuffer(text, dtype=np.uint8)
    cap = block.size // 6 + 1  # every entry line has at least 6 bytes
    if bufs["indices"].size < cap:
        bufs["indices"] = np.empty(cap, dtype=np.int32)
        bufs["data"] = np.empty(cap, dtype=np.uint32)
    # documents that can end in this block: at most one per entry plus the gap that a
    # docID jump skips (bounded by D)
    first = stream._line
    k, nl, err, eline, efield, pd, pw, ne = parse_into_cache(
        block, h.n_docs, h.n_words, bufs["indices"], bufs["data"], bufs["ends"],
        h.nnz - stream._seen, stream._prev_doc, stream._prev_word, base, df)
    if err == NOT_CACHEABLE:
        raise _NotCacheable()
    stream._advance(block, first, err, eline, efield, nl, k, pd, pw, pd + 1)
    return k, ne


def build_uci_cache(path, cache_dir=None, *, progress=None):
    """Stream the UCI file ``path`` once into its binary cache (:class:`BowCacheWriter`)
    and count statistics. Returns ``(cache, {"s1", "s2", "df"})``, or None when the file
    needs the general route (non-canonical entries, counts beyond uint32). Raises the
    reader's ``FILE: line N:`` errors; the partial cache is removed on any failure."""
    from .cache import BowCacheWriter
    from .uci import _UCIStream

    stream = _UCIStream(path, require_sorted=True, checksum=True, progress=progress)
    writer = None
    try:
        h = stream.header
        writer = BowCacheWriter(path, h.n_docs, h.n_words, cache_dir)
        df = np.zeros(h.n_words, dtype=np.int32)  # D < 2**31 (the header check bounds it)
        # ends: one per document, so never more than D (+ 1) in a block
        bufs = {"indices": np.empty(0, np.int32), "data": np.empty(0, np.uint32),
                "ends": np.empty(h.n_docs + 1, dtype=np.int64)}
        base = 0
        try:
            for text in stream.texts():
                k, ne = _parse_text(stream, text, bufs, df, base)
                writer.append(bufs["indices"][:k], bufs["data"][:k], bufs["ends"][:ne])
                base += k
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
