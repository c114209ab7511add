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


@numba.njit(cache=True, nogil=True)
def parse_block(buf, n_docs, n_words, doc, word, cnt, max_entries, prev_doc, prev_word,
                require_sorted):
    """Parse ``buf`` (uint8, whole lines; the last may lack its newline).

    Writes 0-based ``doc``/``word`` and ``cnt`` for up to ``max_entries`` entries.
    ``prev_doc``/``prev_word`` (0-based, -1 at the start) carry the order check
    across blocks.

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
        # one line
        nf = 0
        while True:
            # skip blanks
            while i < n and (buf[i] == 32 or buf[i] == 9 or buf[i] == 13):
                i += 1
            if i >= n or buf[i] == 10:
                break
            # a token
            if nf >= 3:
                return k, line, ERR_FIELDS_MANY, line, 3, canonical, pd, pw
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
                return k, line, ERR_NOT_INTEGER, line, nf, canonical, pd, pw
            if neg and v != 0:
                return k, line, ERR_NEGATIVE, line, nf, canonical, pd, pw
            if big:
                return k, line, ERR_TOO_LARGE, line, nf, canonical, pd, pw
            vals[nf] = v
            nf += 1
        # end of line (or of buffer)
        if nf > 0:
            if nf < 3:
                return k, line, ERR_FIELDS_FEW, line, nf, canonical, pd, pw
            d = vals[0]
            w = vals[1]
            if d < 1 or d > n_docs:
                return k, line, ERR_DOC_RANGE, line, 0, canonical, pd, pw
            if w < 1 or w > n_words:
                return k, line, ERR_WORD_RANGE, line, 1, canonical, pd, pw
            if vals[2] == 0:
                return k, line, ERR_ZERO_COUNT, line, 2, canonical, pd, pw
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
            cnt[k] = vals[2]
            pd = d
            pw = w
            k += 1
        line += 1
        i += 1  # past the newline
    return k, line, OK, -1, -1, canonical, pd, pw


@numba.njit(cache=True, nogil=True)
def count_lines(buf):
    """Number of newline bytes in ``buf``."""
    c = 0
    for i in range(buf.size):
        if buf[i] == 10:
            c += 1
    return c
