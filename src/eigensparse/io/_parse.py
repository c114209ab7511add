"""Compiled parser for the body of a UCI ``docword`` file.

One pass over a byte block of whole lines, at C speed (numba, ``nogil`` so that a
decompression thread runs beside it), that both parses and validates: every line
must hold three unsigned decimal integers ``docID wordID count`` with ids in range
and a positive count. The first irregularity stops the scan and is reported as an
error code with the line (relative to the block) and the field, so that the caller
can name the file and the line.
"""
from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

__all__ = ["parse_block", "ERR_MESSAGES", "OK"]

OK = 0
ERR_FIELDS_FEW = 1
ERR_FIELDS_MANY = 2
ERR_NOT_INTEGER = 3
ERR_NEGATIVE = 4
ERR_DOC_RANGE = 5
ERR_WORD_RANGE = 6
ERR_ZERO_COUNT = 7
ERR_TOO_LARGE = 8
ERR_UNSORTED = 9
ERR_TOO_MANY_ENTRIES = 10

ERR_MESSAGES = {
    ERR_FIELDS_FEW: "expected 3 integers 'docID wordID count', found fewer",
    ERR_FIELDS_MANY: "expected 3 integers 'docID wordID count', found more",
    ERR_NOT_INTEGER: "is not a non-negative integer",
    ERR_NEGATIVE: "is negative",
    ERR_DOC_RANGE: "document index out of range",
    ERR_WORD_RANGE: "word index out of range",
    ERR_ZERO_COUNT: "count is 0 (counts must be positive integers)",
    ERR_TOO_LARGE: "number too large",
    ERR_UNSORTED: "entries are not grouped by document",
    ERR_TOO_MANY_ENTRIES: "more entries than the header's NNZ",
}

_FIELD_NAMES = ("docID", "wordID", "count")

#: largest value accepted in any field (keeps int64 arithmetic exact)
_MAX_VALUE = 1 << 53


_ONES = np.uint64(0x0101010101010101)
_HIGH = np.uint64(0x8080808080808080)
_ZEROS = np.uint64(0x3030303030303030)
_NIBBLE_HI = np.uint64(0xF0F0F0F0F0F0F0F0)
_SIXES = np.uint64(0x0606060606060606)
_LOW_PAIR = np.uint64(0x000000FF000000FF)
_MUL1 = np.uint64(100 + (1000000 << 32))
_MUL2 = np.uint64(1 + (10000 << 32))
_U8 = np.uint64(8)
_U10 = np.uint64(10)
_U16 = np.uint64(16)
_U32 = np.uint64(32)
_U64 = np.uint64(64)


@intrinsic
def _load8(typingctx, arr, idx):
    """The 8 bytes at ``arr[idx:idx + 8]`` as one unaligned uint64 load (the first byte
    lowest on the little-endian machines numba targets); the caller keeps it in bounds."""
    sig = types.uint64(arr, idx)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        return builder.load(builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)

    return sig, codegen


@numba.njit(cache=True, nogil=True, inline="always")
def _swar_field(buf, i):
    """The field at ``buf[i:]`` when it is 1 to 8 decimal digits followed by a byte
    <= 32 (read 8 bytes at a time, no branch per digit; needs ``i + 8 < buf.size``).
    Returns (value, end) with ``end`` the index of the delimiter, or (-1, i)."""
    x = _load8(buf, i)
    below = (x - np.uint64(0x2121212121212121)) & ~x & _HIGH  # bytes <= 32 (first exact)
    if below == 0:  # 8 digits or more: the delimiter is further
        a = x
        length = np.int64(8)
    else:
        length = np.int64(trailing_zeros(below)) >> 3
        if length == 0:
            return np.int64(-1), i
        shift = np.uint64(8 * (8 - length))
        # the digits in the high bytes, '0' below them (leading zeros keep the value)
        a = (x << shift) | (_ZEROS >> (_U64 - shift))
    if (a & _NIBBLE_HI) != _ZEROS or ((a + _SIXES) & _NIBBLE_HI) != _ZEROS:
        return np.int64(-1), i
    if below == 0:
        if buf[i + 8] > 32:
            return np.int64(-1), i
    v = a - _ZEROS
    v = v * _U10 + (v >> _U8)
    v = ((v & _LOW_PAIR) * _MUL1 + ((v >> _U16) & _LOW_PAIR) * _MUL2) >> _U32
    return np.int64(v), i + length


@numba.njit(cache=True, nogil=True, inline="always")
def _fast_line(buf, i, n):
    """One line in its usual form ``D W C\n`` (single spaces, 1 to 8 plain digits
    each) with at least 9 bytes after each field start. Returns (ok, end, d, w, c) with
    ``end`` the index of the newline; ok is False for any other form (or near the end
    of the block), which the general scanner reads."""
    bad = np.int64(-1)
    if i + 28 > n:  # three fields of up to 8 digits and their delimiters: stay in bounds
        return False, i, bad, bad, bad
    d, j = _swar_field(buf, i)
    if d < 0 or buf[j] != 32:
        return False, i, bad, bad, bad
    w, j = _swar_field(buf, j + 1)
    if w < 0 or buf[j] != 32:
        return False, i, bad, bad, bad
    c, j = _swar_field(buf, j + 1)
    if c < 0 or buf[j] != 10:
        return False, i, bad, bad, bad
    return True, j, d, w, c


@numba.njit(cache=True, nogil=True)
def _general_line(buf, i, n, vals):
    """Any line: whitespace-separated fields (blanks, tabs, CR), optional signs, numbers
    of any length. Returns (end, n_fields, err, err_field) with ``end`` the index of the
    newline (or ``n``) and the fields in ``vals``."""
    nf = 0
    while True:
        while i < n and (buf[i] == 32 or buf[i] == 9 or buf[i] == 13):
            i += 1
        if i >= n or buf[i] == 10:
            return i, nf, OK, -1
        if nf >= 3:
            return i, nf, ERR_FIELDS_MANY, 3
        neg = False
        if buf[i] == 45:  # '-'
            neg = True
            i += 1
        elif buf[i] == 43:  # '+'
            i += 1
        v = np.int64(0)
        nd = 0
        bad = False
        big = False
        while i < n:
            c = buf[i]
            if c == 32 or c == 9 or c == 13 or c == 10:
                break
            if 48 <= c <= 57:
                if v > 900719925474099:  # 2**53 / 10: next digit may overflow
                    big = True
                else:
                    v = v * 10 + (c - 48)
                nd += 1
            else:
                bad = True
            i += 1
        if bad or nd == 0:
            return i, nf, ERR_NOT_INTEGER, nf
        if neg and v != 0:
            return i, nf, ERR_NEGATIVE, nf
        if big:
            return i, nf, ERR_TOO_LARGE, nf
        vals[nf] = v
        nf += 1


#: :func:`general_entry`'s code for a blank line (not an error)
BLANK_LINE = -1


@numba.njit(cache=True, nogil=True)
def general_entry(buf, i, n, vals):
    """The line at ``i`` that the fast path does not take, by the general scanner
    (``vals``: its scratch). Returns (err, end, d, w, c, err_field) with ``end`` the
    index of the newline and ``err`` :data:`OK`, :data:`BLANK_LINE` or an error code."""
    end, nf, err, efield = _general_line(buf, i, n, vals)
    if err != OK:
        return err, end, 0, 0, 0, efield
    if nf == 0:
        return BLANK_LINE, end, 0, 0, 0, -1
    if nf < 3:
        return ERR_FIELDS_FEW, end, 0, 0, 0, nf
    return OK, end, vals[0], vals[1], vals[2], -1


@numba.njit(cache=True, nogil=True)
def range_error(d, w, c, n_docs, n_words):
    """(err, field) of an entry whose 1-based ids or count are out of range."""
    if d < 1 or d > n_docs:
        return ERR_DOC_RANGE, 0
    if w < 1 or w > n_words:
        return ERR_WORD_RANGE, 1
    return ERR_ZERO_COUNT, 2


@numba.njit(cache=True, nogil=True)
def parse_block(buf, n_docs, n_words, doc, word, cnt, max_entries, prev_doc, prev_word,
                require_sorted):
    """Parse ``buf`` (uint8, whole lines; the last may lack its newline).

    Writes 0-based ``doc``/``word`` and ``cnt`` for up to ``max_entries`` entries.
    ``prev_doc``/``prev_word`` (0-based, -1 at the start) carry the order check
    across blocks. Lines of the usual form ``D W C`` take a fast path; any other line
    (blanks, tabs, CR, signs, long numbers, errors) the general scanner.

    Returns (n_entries, n_lines, err, err_line, err_field, canonical, last_doc,
    last_word) where ``n_lines`` counts lines scanned (blank lines included),
    ``err_line`` is the 0-based line in the block of the error, ``canonical`` is 1
    when (doc, word) strictly increases over the block (no duplicates, sorted).
    """
    n = buf.size
    i = 0
    line = 0
    k = 0
    canonical = 1
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
                return k, line, err, line, efield, canonical, pd, pw
        if d < 1 or d > n_docs or w < 1 or w > n_words or c == 0:
            err, efield = range_error(d, w, c, n_docs, n_words)
            return k, line, err, line, efield, canonical, pd, pw
        if k >= max_entries:
            return k, line, ERR_TOO_MANY_ENTRIES, line, 0, canonical, pd, pw
        d -= 1
        w -= 1
        if d < pd:
            if require_sorted:
                return k, line, ERR_UNSORTED, line, 0, canonical, pd, pw
            canonical = 0
        elif d == pd and w <= pw:
            canonical = 0
        doc[k] = d
        word[k] = w
        cnt[k] = c
        pd = d
        pw = w
        k += 1
        line += 1
        i = end + 1  # past the newline
    return k, line, OK, -1, -1, canonical, pd, pw


@numba.njit(cache=True, nogil=True)
def count_lines(buf):
    """Number of newline bytes in ``buf``."""
    c = 0
    for i in range(buf.size):
        if buf[i] == 10:
            c += 1
    return c
