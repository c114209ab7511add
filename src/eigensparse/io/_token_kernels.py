"""Compiled kernels of the text tokenizer (:mod:`eigensparse.io._tokenize`).

One pass over the UTF-8 bytes of a batch of documents finds the tokens of
scikit-learn's default ``token_pattern`` ``(?u)\\b\\w\\w+\\b`` (maximal runs of at least
two word characters), lowercases them with per-code-point tables, and counts them per
document through an open-addressing hash table of the vocabulary (ids in order of first
appearance). The tables say, for each code point, whether its lowercase form is a word
character (``\\w`` of Python's ``re``), what that form is, and whether the code point
needs Python itself (``İ`` lowercases to two code points; ``Σ``'s lowercase depends on
its context; the tables stop at U+1FFFF): a document holding one is flagged and
tokenized by the regular expression.
ASCII bytes use a 128-entry table (the lowered byte, or 0 for a non-word byte).

State (grown by the caller when a kernel stops early, see :func:`tokenize_batch`):
``table`` (:data:`SLOT` int64 per slot, a power of two of slots, at most half of them
used: the word's hash, its id (-1: an empty slot), the document it was last counted in,
where, its document frequency, its length in bytes and its first 16 bytes, so that
counting a word touches one cache line), ``arena`` (the words' bytes, in id order),
``rec`` (2 int64 per word: start in the arena | length << 40, its slot),
``state`` = [n_words, arena bytes used].
"""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["tokenize_batch", "count_token_lists", "rehash", "remap_rows", "SLOT"]

_LEN_SHIFT = 40
_START_MASK = (1 << _LEN_SHIFT) - 1
#: int64 fields of a hash-table slot (64 bytes: one cache line)
SLOT = 8


@numba.njit(cache=True, nogil=True, inline="always")
def _mix(h):
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(29)
    return h


@numba.njit(cache=True, nogil=True, inline="always")
def _step(h, b):
    return ((h << np.uint64(5)) | (h >> np.uint64(59))) ^ np.uint64(b)


@numba.njit(cache=True, nogil=True, inline="always")
def _prefix(arena, a, n):
    """Bytes ``arena[a:a+n]`` (n <= 8) as one little-endian integer."""
    p = np.int64(0)
    for k in range(n):
        p |= np.int64(arena[a + k]) << (8 * k)
    return p


@numba.njit(cache=True, nogil=True, inline="always")
def _find_or_add(h0, tok0, toklen, arena, table, rec, state):
    """The slot (its first field's index) of the word whose bytes are
    ``arena[tok0:tok0 + toklen]`` (just written past the used part of the arena); a new
    word keeps those bytes."""
    h = _mix(h0)
    hs = np.int64(h)
    p0 = _prefix(arena, tok0, min(toklen, 8))
    p1 = _prefix(arena, tok0 + 8, min(max(toklen - 8, 0), 8))
    mask = table.size // SLOT - 1
    s = np.int64(h & np.uint64(mask))
    while True:
        b = s * SLOT
        w = table[b + 1]
        if w < 0:
            break
        if table[b] == hs and table[b + 5] == toklen and table[b + 6] == p0 \
                and table[b + 7] == p1:
            if toklen <= 16:
                return b
            a = rec[2 * w] & _START_MASK
            same = True
            for k in range(16, toklen):
                if arena[a + k] != arena[tok0 + k]:
                    same = False
                    break
            if same:
                return b
        s = (s + 1) & mask
    w = state[0]
    table[b] = hs
    table[b + 1] = w
    table[b + 2] = -1
    table[b + 3] = 0
    table[b + 4] = 0
    table[b + 5] = toklen
    table[b + 6] = p0
    table[b + 7] = p1
    rec[2 * w] = tok0 | (np.int64(toklen) << _LEN_SHIFT)
    rec[2 * w + 1] = b
    state[0] = w + 1
    state[1] = tok0 + toklen
    return b


@numba.njit(cache=True, nogil=True, inline="always")
def _count(b, serial, table, out_idx, out_cnt, nnz):
    """Count the word of slot ``b`` in the document ``serial`` whose entries end at
    ``nnz``; the new end."""
    if table[b + 2] != serial:
        table[b + 2] = serial
        table[b + 3] = nnz
        table[b + 4] += 1
        out_idx[nnz] = table[b + 1]
        out_cnt[nnz] = 1
        return nnz + 1
    out_cnt[table[b + 3]] += 1
    return nnz


@numba.njit(cache=True, nogil=True)
def tokenize_batch(data, offsets, lo, hi, serial0, ascii_low, isw, low, special, lowercase,
                   table, arena, rec, state, out_ptr, out_idx, out_cnt, flags):
    """Tokenize and count documents ``lo … hi-1`` (bytes ``data[offsets[i]:offsets[i+1]]``,
    valid UTF-8), appending their entries after ``out_ptr[lo]``.

    ``flags[i]``: 1 when document i must go to the regular expression (its row is left
    empty), 2 when it is blank (only ASCII white space; its row is empty). Returns the
    first document not done: ``hi``, or earlier when a state array or the output is too
    small for the next document (the caller grows them and calls again from there).
    """
    n_cap = rec.size // 2
    n_slots = table.size // SLOT
    nnz = out_ptr[lo]
    for i in range(lo, hi):
        b0 = offsets[i]
        b1 = offsets[i + 1]
        L = b1 - b0
        bound = L // 3 + 1  # most tokens (hence new words and entries) of L bytes
        if (state[0] + bound > n_cap or 2 * (state[0] + bound) > n_slots
                or state[1] + L + L // 2 + 24 > arena.size or nnz + bound > out_idx.size):
            return i
        serial = serial0 + i
        row0 = nnz
        used = state[1]
        toklen = 0
        ncp = 0
        h = np.uint64(0)
        blank = True
        p = b0
        flag = 0
        while p < b1:
            c = np.int64(data[p])
            if c < 0x80:
                p += 1
                lc = np.int64(ascii_low[c])
                if lc != 0:
                    arena[used + toklen] = lc
                    h = _step(h, lc)
                    toklen += 1
                    ncp += 1
                    blank = False
                    continue
                if c > 32 or c < 9 or 13 < c < 32:
                    blank = False
            else:
                blank = False
                if c < 0xE0:
                    cp = ((c & 0x1F) << 6) | (np.int64(data[p + 1]) & 0x3F)
                    p += 2
                elif c < 0xF0:
                    cp = (((c & 0x0F) << 12) | ((np.int64(data[p + 1]) & 0x3F) << 6)
                          | (np.int64(data[p + 2]) & 0x3F))
                    p += 3
                else:
                    cp = (((c & 0x07) << 18) | ((np.int64(data[p + 1]) & 0x3F) << 12)
                          | ((np.int64(data[p + 2]) & 0x3F) << 6) | (np.int64(data[p + 3]) & 0x3F))
                    p += 4
                if cp >= isw.size or (lowercase and special[cp]):
                    flag = 1  # beyond the tables, or context-dependent lowercase
                    break
                if isw[cp]:
                    lc = np.int64(low[cp]) if lowercase else cp
                    q = used + toklen
                    if lc < 0x80:
                        arena[q] = lc
                        m = 1
                    elif lc < 0x800:
                        arena[q] = 0xC0 | (lc >> 6)
                        arena[q + 1] = 0x80 | (lc & 0x3F)
                        m = 2
                    elif lc < 0x10000:
                        arena[q] = 0xE0 | (lc >> 12)
                        arena[q + 1] = 0x80 | ((lc >> 6) & 0x3F)
                        arena[q + 2] = 0x80 | (lc & 0x3F)
                        m = 3
                    else:
                        arena[q] = 0xF0 | (lc >> 18)
                        arena[q + 1] = 0x80 | ((lc >> 12) & 0x3F)
                        arena[q + 2] = 0x80 | ((lc >> 6) & 0x3F)
                        arena[q + 3] = 0x80 | (lc & 0x3F)
                        m = 4
                    for k in range(m):
                        h = _step(h, arena[q + k])
                    toklen += m
                    ncp += 1
                    continue
            # a non-word character ends the token
            if ncp >= 2:
                b = _find_or_add(h, used, toklen, arena, table, rec, state)
                nnz = _count(b, serial, table, out_idx, out_cnt, nnz)
                used = state[1]
            toklen = 0
            ncp = 0
            h = np.uint64(0)
        if flag == 0 and ncp >= 2:
            b = _find_or_add(h, used, toklen, arena, table, rec, state)
            nnz = _count(b, serial, table, out_idx, out_cnt, nnz)
        if flag == 1:  # undo this row: the regular expression counts the document
            for t in range(row0, nnz):
                table[rec[2 * out_idx[t] + 1] + 4] -= 1
            nnz = row0
        elif blank:
            flag = 2
        flags[i] = flag
        out_ptr[i + 1] = nnz
    return hi


@numba.njit(cache=True, nogil=True)
def count_token_lists(tokdata, tokptr, docptr, serial0, table, arena, rec, state,
                      out_ptr, out_idx, out_cnt):
    """Count tokens given as UTF-8 byte strings: document j has the tokens
    ``docptr[j] … docptr[j+1]-1``, token t the bytes ``tokdata[tokptr[t]:tokptr[t+1]]``.
    The caller makes room for every token first (no early stop)."""
    nnz = out_ptr[0]
    for j in range(docptr.size - 1):
        serial = serial0 + j
        for t in range(docptr[j], docptr[j + 1]):
            a = tokptr[t]
            toklen = tokptr[t + 1] - a
            used = state[1]
            h = np.uint64(0)
            for k in range(toklen):
                b = tokdata[a + k]
                arena[used + k] = b
                h = _step(h, b)
            b = _find_or_add(h, used, toklen, arena, table, rec, state)
            nnz = _count(b, serial, table, out_idx, out_cnt, nnz)
        out_ptr[j + 1] = nnz
    return nnz


@numba.njit(cache=True, nogil=True)
def rehash(table, old, rec, n_words):
    """Move the slots of words ``0 … n_words-1`` from ``old`` into the empty, larger
    ``table`` (each keeps its hash)."""
    mask = table.size // SLOT - 1
    for w in range(n_words):
        a = rec[2 * w + 1]
        s = np.int64(np.uint64(old[a]) & np.uint64(mask))
        while table[s * SLOT + 1] >= 0:
            s = (s + 1) & mask
        for k in range(SLOT):
            table[s * SLOT + k] = old[a + k]
        rec[2 * w + 1] = s * SLOT


@numba.njit(cache=True, nogil=True)
def remap_rows(indptr, indices, counts, rank, base, shift, out_idx, out_cnt):
    """Rows with word ids replaced by their rank and sorted within each row: an id is
    ``owner << shift | local``, its rank ``rank[base[owner] + local]`` (entries packed as
    ``rank << 32 | count`` and sorted as integers)."""
    packed = np.empty(indices.size, dtype=np.int64)
    low = (np.int64(1) << shift) - 1
    for t in range(indices.size):
        i = np.int64(indices[t])
        r = rank[base[i >> shift] + (i & low)]
        packed[t] = (np.int64(r) << 32) | np.int64(counts[t])
    for d in range(indptr.size - 1):
        a = indptr[d]
        b = indptr[d + 1]
        if b - a > 24:
            packed[a:b].sort()
            continue
        for t in range(a + 1, b):  # insertion sort: rows are short
            k = packed[t]
            u = t - 1
            while u >= a and packed[u] > k:
                packed[u + 1] = packed[u]
                u -= 1
            packed[u + 1] = k
    for t in range(indices.size):
        out_idx[t] = packed[t] >> 32
        out_cnt[t] = packed[t] & 0xFFFFFFFF
