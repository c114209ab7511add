"""UCI "Bag of Words" format: ``docword.*.txt[.gz]`` and ``vocab.*.txt``.

docword: three header lines D (documents), W (words), NNZ, then NNZ lines
``docID wordID count`` with 1-based ids. vocab: one word per line, line i is word i.

Two readers share one compiled, validating parser (:mod:`eigensparse.io._parse`):

- :func:`iter_uci_chunks` streams the entries in chunks of about ``chunk_nnz``
  entries with bounded memory; decompression runs in a background thread while
  the parser (which releases the GIL) works on the previous block;
- :func:`read_uci_bow` reads the whole file into a CSR matrix.

Every problem in the input raises :class:`~eigensparse.InvalidParameterError` whose
message starts with ``FILE: line N:``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator

import numpy as np
import scipy.sparse as sp

from .._validation import IntInterval, validate_params
from . import _parse
from ._source import TextSource
from ._vocab import _check_exists, _err, read_vocabulary

__all__ = ["UCIHeader", "UCIChunk", "read_uci_header", "iter_uci_chunks", "read_uci_bow",
           "read_vocabulary", "DEFAULT_CHUNK_NNZ"]

#: default number of entries per streamed chunk (about 32 MB of parsed arrays)
DEFAULT_CHUNK_NNZ = 2_000_000

#: shortest entry line ("1 1 1\n"): a file of B body bytes holds at most B // 6 + 1 entries
_MIN_ENTRY_BYTES = 6
#: largest expansion of DEFLATE (gzip): 1032 decompressed bytes per compressed byte
_MAX_GZIP_RATIO = 1032
#: D and W up to this are accepted whatever the file size (their arrays are small)
_SIZE_FLOOR = 1 << 20


@dataclass(frozen=True)
class UCIHeader:
    """The three header lines of a docword file.

    Examples
    --------
    >>> from importlib.resources import files
    >>> from eigensparse.io import read_uci_header
    >>> h = read_uci_header(files("eigensparse.datasets") / "data" / "docword.kos.txt.gz")
    >>> h.n_docs, h.n_words, h.nnz
    (3430, 6906, 353160)
    """

    n_docs: int
    n_words: int
    nnz: int
    path: str


@dataclass(frozen=True)
class UCIChunk:
    """A run of consecutive entries of a docword file.

    ``doc`` and ``word`` are 0-based (int32), ``count`` int64. When the file is
    grouped by document (the UCI convention, required by default) every chunk holds
    whole documents: ``doc`` is non-decreasing and no document spans two chunks.
    ``first_line`` is the 1-based line number of the first entry (exact unless the
    file has blank lines); ``canonical`` is
    True when (doc, word) strictly increases inside the chunk (sorted, no
    duplicates).

    Examples
    --------
    >>> import os, tempfile
    >>> from eigensparse.io import iter_uci_chunks
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "docword.toy.txt")
    >>> with open(path, "w") as f:  # D, W, NNZ, then "doc word count" lines (1-based)
    ...     _ = f.write("2\\n3\\n3\\n1 1 2\\n1 3 1\\n2 2 5\\n")
    >>> [(c.doc.tolist(), c.word.tolist(), c.count.tolist(), c.nnz) for c in iter_uci_chunks(path)]
    [([0, 0, 1], [0, 2, 1], [2, 1, 5], 3)]
    >>> tmp.cleanup()
    """

    doc: np.ndarray
    word: np.ndarray
    count: np.ndarray
    first_line: int
    canonical: bool

    @property
    def nnz(self) -> int:
        return int(self.doc.size)


def _line_text(block: np.ndarray, rel_line: int, limit: int = 60) -> str:
    """The text of line ``rel_line`` (0-based) of ``block`` for error messages."""
    b = block.tobytes() if isinstance(block, np.ndarray) else bytes(block)
    start = 0
    for _ in range(rel_line):
        start = b.index(b"\n", start) + 1
    end = b.find(b"\n", start)
    s = b[start:] if end < 0 else b[start:end]
    t = s.decode("utf-8", "replace").strip()
    return t if len(t) <= limit else t[:limit] + "…"


class _UCIStream:
    """Header + validated entries of one docword file (single use)."""

    def __init__(self, path, *, chunk_nnz=DEFAULT_CHUNK_NNZ, require_sorted=True,
                 checksum=False, progress=None, decoder=None):
        self.path = os.fspath(path)
        _check_exists(self.path)
        self.chunk_nnz = int(chunk_nnz)
        self.require_sorted = bool(require_sorted)
        self.progress = progress
        self.src = TextSource(self.path, checksum=checksum, progress=progress,
                              decoder_name=decoder)
        self._pieces = iter(self.src)
        self._pending = b""
        self._eof = False
        try:
            self.header = self._read_header()
        except BaseException:
            self.src.close()
            raise

    def _next_piece(self):
        """Next decompressed piece, or None at the end; raises on truncation/corruption."""
        try:
            p = next(self._pieces)
        except StopIteration:
            return None
        if isinstance(p, tuple):
            kind, why = p
            raise self._stream_error(kind, why)
        return p

    def _stream_error(self, kind, why):
        line = getattr(self, "_line", 1)
        if kind == "truncated":
            return _err(self.path, line,
                        "truncated gzip file: the compressed stream ends before its end marker "
                        f"(the data stop inside line {line}); the file is incomplete.")
        return _err(self.path, line, f"{why}; the file is corrupt.")

    def _read_header(self) -> UCIHeader:
        buf = b""
        while buf.count(b"\n") < 3:
            p = self._next_piece()
            if p is None:
                self._eof = True
                break
            buf += p
        if not buf.strip():
            raise _err(self.path, 1, "empty file: expected the header lines D (documents), "
                       "W (words), NNZ (entries).")
        lines = buf.split(b"\n", 3)
        names = ("D (number of documents)", "W (number of words)", "NNZ (number of entries)")
        vals = []
        for i, name in enumerate(names):
            if i >= len(lines) or (i == len(lines) - 1 and i < 3 and self._eof and not lines[i].strip()):
                raise _err(self.path, i + 1, f"file ends in the header: expected {name}.")
            s = lines[i].strip()
            try:
                v = int(s.decode("ascii"))
            except (ValueError, UnicodeDecodeError):
                raise _err(self.path, i + 1, f"header lines 1-3 must hold the integers D, W, NNZ; "
                           f"expected {name}, got {s[:40].decode('utf-8', 'replace')!r}.") from None
            lo = 0 if i == 2 else 1
            if v < lo:
                raise _err(self.path, i + 1, f"header {name} must be >= {lo}; got {v}.")
            vals.append(v)
        self._pending = lines[3] if len(lines) > 3 else b""
        self._check_header_size(vals, len(buf) - len(self._pending))
        self._line = 4
        self._seen = 0
        self._max_doc = 0  # largest 1-based docID seen
        self._prev_doc = -1
        self._prev_word = -1
        return UCIHeader(vals[0], vals[1], vals[2], self.path)

    def _check_header_size(self, vals, header_bytes):
        """Refuse D, W, NNZ that the file's size cannot hold, before anything is
        allocated from them: memory follows what is read, never what is claimed."""
        if self.src.gz:
            room = self.src.raw_size * _MAX_GZIP_RATIO
            where = f"a {self.src.raw_size}-byte gzip file (at most {_MAX_GZIP_RATIO}x expansion)"
        else:
            room = max(self.src.raw_size - header_bytes, 0)
            where = f"the {room} bytes after the header"
        cap = room // _MIN_ENTRY_BYTES + 1
        if vals[2] > cap:
            raise _err(self.path, 3, f"header NNZ={vals[2]} cannot be right: {where} hold at most "
                       f"{cap} entries; the header disagrees with the file.")
        for i, what in ((0, "D (documents)"), (1, "W (words)")):
            if vals[i] > max(cap, _SIZE_FLOOR):
                raise _err(self.path, i + 1, f"header {what}={vals[i]} cannot be right for a file of "
                           f"at most {cap} entries (more than {max(cap, _SIZE_FLOOR)} is refused); "
                           "the header disagrees with the file.")

    def _check_documents(self):
        """After the body: D may exceed the largest docID (trailing empty documents) by
        at most max(NNZ, largest docID), so that arrays of length D stay sized by the
        body and a header claiming mostly absent documents is refused."""
        h = self.header
        extra = h.n_docs - self._max_doc
        if extra > max(h.nnz, self._max_doc):
            raise _err(self.path, 1, f"header D={h.n_docs} documents but the largest docID in the "
                       f"body is {self._max_doc} ({extra} trailing empty documents, more than "
                       f"max(NNZ, largest docID)); the header disagrees with the body.")

    def _parse(self, text: bytes, final: bool):
        """Parse whole lines ``text``; returns (doc, word, cnt, first_line, canonical)."""
        h = self.header
        block = np.frombuffer(text, dtype=np.uint8)
        # every entry line has at least 6 bytes ("1 1 1\n"): an upper bound on the
        # entries without a scan (np.empty does not touch the memory it reserves)
        n_lines = block.size // 6 + 1
        doc = np.empty(n_lines, dtype=np.int32)
        word = np.empty(n_lines, dtype=np.int32)
        cnt = np.empty(n_lines, dtype=np.int64)
        first = self._line
        k, nl, err, eline, efield, canon, pd, pw = _parse.parse_block(
            block, h.n_docs, h.n_words, doc, word, cnt, h.nnz - self._seen,
            self._prev_doc, self._prev_word, self.require_sorted)
        self._advance(block, first, err, eline, efield, nl, k, pd, pw,
                      int(doc[:k].max()) + 1 if k else 0)
        # copies: the reserved arrays are about twice as long as needed
        return doc[:k].copy(), word[:k].copy(), cnt[:k].copy(), first, bool(canon)

    def _advance(self, block, first, err, eline, efield, n_lines, k, last_doc, last_word,
                 max_doc):
        """After a parsed block (``first``: its first line): raise its error, or move the
        line, entry and order state past it (``max_doc``: its largest docID)."""
        if err:
            self._raise_parse(err, block, eline, efield, first + eline)
        self._line += n_lines
        self._seen += k
        self._prev_doc, self._prev_word = last_doc, last_word
        if k:
            self._max_doc = max(self._max_doc, max_doc)

    def _raise_parse(self, err, block, eline, efield, line):
        h = self.header
        text = _line_text(block, eline)
        toks = text.split()
        tok = toks[efield] if 0 <= efield < len(toks) else ""
        fname = _parse._FIELD_NAMES[efield] if 0 <= efield < 3 else "field"
        if err == _parse.ERR_DOC_RANGE:
            msg = f"document index {tok} outside [1, D={h.n_docs}] (header line 1)"
        elif err == _parse.ERR_WORD_RANGE:
            msg = f"word index {tok} outside [1, W={h.n_words}] (header line 2)"
        elif err == _parse.ERR_NOT_INTEGER:
            msg = f"{fname} {tok!r} is not an integer (ids and counts must be non-negative integers)"
        elif err == _parse.ERR_NEGATIVE:
            what = "negative count" if efield == 2 else f"negative {fname}"
            msg = f"{what} {tok}"
        elif err == _parse.ERR_TOO_MANY_ENTRIES:
            msg = (f"more entries than the header's NNZ={h.nnz} (header line 3): this is "
                   f"entry {h.nnz + 1}")
        elif err == _parse.ERR_UNSORTED:
            msg = ("entries are not grouped by document (docID decreases here); streaming "
                   "needs the UCI order: sort the file by docID (e.g. `sort -n -k1,1 -k2,2`) "
                   "or read it in memory with read_uci_bow")
        else:
            msg = _parse.ERR_MESSAGES[err]
        raise _err(self.path, line, f"{msg}: {text!r}.")

    def texts(self):
        """Yield the body as blocks of whole lines (memoryviews; the last block may lack
        its final newline). A piece's lines are handed over without a copy: only the line
        cut at each piece boundary is joined."""
        while True:
            p = None if self._eof else self._next_piece()
            if p is None:
                self._eof = True
                text, self._pending = self._pending, b""
                if text:
                    yield memoryview(text)
                return
            if self._pending:
                first = p.find(b"\n")
                if first < 0:
                    self._pending += p
                    continue
                yield memoryview(self._pending + p[:first + 1])
                start = first + 1
            else:
                start = 0
            cut = p.rfind(b"\n")
            if cut < start:
                self._pending = p[start:]
                continue
            self._pending = p[cut + 1:]
            if cut + 1 > start:
                yield memoryview(p)[start:cut + 1]

    def finish(self):
        """After the body: the entry count must be the header's NNZ, and D plausible."""
        if self._seen != self.header.nnz:
            last = self._line - 1
            raise _err(self.path, max(last + 1, 4),
                       f"the header says NNZ={self.header.nnz} (line 3) but the file ends after "
                       f"{self._seen} entries (last line {last}).")
        self._check_documents()

    def _blocks(self):
        """Yield parsed blocks (arrays) until the end; checks the NNZ count."""
        for text in self.texts():
            yield self._parse(text, False)
        self.finish()

    def chunks(self) -> Iterator[UCIChunk]:
        docs, words, cnts = [], [], []
        first_line, canon_all, n_acc = None, True, 0
        for d, w, c, fl, canon in self._blocks():
            if first_line is None:
                first_line = fl
            if canon and docs and d.size and docs[-1].size:
                pd, pw = docs[-1][-1], words[-1][-1]  # order across the block boundary
                if d[0] < pd or (d[0] == pd and w[0] <= pw):
                    canon = False
            docs.append(d)
            words.append(w)
            cnts.append(c)
            canon_all = canon_all and canon
            n_acc += d.size
            if n_acc < self.chunk_nnz:
                continue
            d, w, c = (np.concatenate(a) if len(a) > 1 else a[0] for a in (docs, words, cnts))
            start = 0
            while d.size - start >= self.chunk_nnz:
                pos = start + self.chunk_nnz
                if pos >= d.size:
                    pos = d.size - 1
                if self.require_sorted:
                    # cut at a document boundary; the last document may continue in the next block
                    cut = int(np.searchsorted(d, d[pos], side="left"))
                    if cut <= start:
                        cut = int(np.searchsorted(d, d[pos], side="right"))
                        if cut >= d.size:
                            break
                else:
                    cut = pos
                yield UCIChunk(d[start:cut], w[start:cut], c[start:cut], first_line, canon_all)
                first_line += cut - start
                start = cut
            if start < d.size:
                docs, words, cnts = [d[start:].copy()], [w[start:].copy()], [c[start:].copy()]
                n_acc = d.size - start
            else:
                docs, words, cnts, first_line, n_acc, canon_all = [], [], [], None, 0, True
        if n_acc:
            d, w, c = (np.concatenate(a) if len(a) > 1 else a[0] for a in (docs, words, cnts))
            yield UCIChunk(d, w, c, first_line, canon_all)

    def close(self):
        self.src.close()


def read_uci_header(path) -> UCIHeader:
    """Read and validate the three header lines of a docword file.

    Examples
    --------
    >>> from importlib.resources import files
    >>> from eigensparse.io import read_uci_header
    >>> kos = files("eigensparse.datasets") / "data" / "docword.kos.txt.gz"
    >>> h = read_uci_header(kos)  # reads three lines only
    >>> h.n_docs, h.n_words, h.nnz
    (3430, 6906, 353160)
    """
    s = _UCIStream(path)
    try:
        return s.header
    finally:
        s.close()


@validate_params({"chunk_nnz": [IntInterval(1, None, closed="left")]})
def iter_uci_chunks(path, chunk_nnz: int = DEFAULT_CHUNK_NNZ, *, require_sorted: bool = True,
                    progress: bool = False) -> Iterator[UCIChunk]:
    """Stream the entries of a UCI docword file in validated chunks.

    Memory is bounded by ``chunk_nnz`` (plus one document), whatever the file size.

    Parameters
    ----------
    path : path-like
        ``docword.NAME.txt`` or a gzipped ``.txt.gz`` (detected from the content).
    chunk_nnz : int, default=2_000_000
        Target number of entries per chunk.
    require_sorted : bool, default=True
        Require the UCI order (entries grouped by non-decreasing docID), so that every
        chunk holds whole documents.
    progress : bool, default=False
        Show a tqdm bar over the bytes of the file.

    Yields
    ------
    UCIChunk
        0-based ``doc``/``word`` (int32), ``count`` (int64), ``first_line``.

    Raises
    ------
    InvalidParameterError
        ``FILE: line N: ...`` for a missing, empty, truncated or corrupt file, a bad
        header, a malformed line, an index out of range, a negative, zero or
        non-integer count, entries out of document order, or an entry count that
        disagrees with the header's NNZ.

    Examples
    --------
    >>> from importlib.resources import files
    >>> from eigensparse.io import iter_uci_chunks
    >>> kos = files("eigensparse.datasets") / "data" / "docword.kos.txt.gz"
    >>> first = next(iter_uci_chunks(kos, chunk_nnz=1000))  # whole documents, ~1000 entries
    >>> first.first_line, int(first.doc[0]), int(first.doc[-1]), first.nnz
    (4, 0, 10, 816)
    """
    bar = _bar(path, progress, "read")
    s = _UCIStream(path, chunk_nnz=chunk_nnz, require_sorted=require_sorted, progress=bar)
    try:
        yield from s.chunks()
    finally:
        s.close()
        if bar is not None:
            bar.close()


def _bar(path, progress, desc):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=os.path.getsize(os.fspath(path)), unit="B", unit_scale=True,
                desc=f"{desc} {os.path.basename(os.fspath(path))}")


def read_uci_bow(docword, vocab=None, *, chunk_nnz: int = DEFAULT_CHUNK_NNZ,
                 progress: bool = False) -> tuple[sp.csr_matrix, list[str] | None]:
    """Read a UCI bag-of-words file into a CSR matrix (documents × words) in memory.

    Parameters
    ----------
    docword : path-like
        ``docword.NAME.txt`` or ``.txt.gz``. Entries may come in any order; repeated
        (doc, word) pairs are summed.
    vocab : path-like, optional
        ``vocab.NAME.txt``; must have exactly W lines.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (D, W), float64 counts
    words : list of str or None

    Examples
    --------
    >>> import os, tempfile
    >>> from eigensparse.io import read_uci_bow
    >>> tmp = tempfile.TemporaryDirectory()
    >>> path = os.path.join(tmp.name, "docword.toy.txt")
    >>> with open(path, "w") as f:  # D, W, NNZ, then "doc word count" lines (1-based)
    ...     _ = f.write("2\\n3\\n3\\n1 1 2\\n1 3 1\\n2 2 5\\n")
    >>> X, words = read_uci_bow(path)
    >>> X.toarray().tolist(), words
    ([[2.0, 0.0, 1.0], [0.0, 5.0, 0.0]], None)
    >>> tmp.cleanup()
    """
    name = os.fspath(docword)
    docs, words_, cnts = [], [], []
    header = None
    canonical = True
    bar = _bar(name, progress, "read")
    s = _UCIStream(name, chunk_nnz=chunk_nnz, require_sorted=False, progress=bar)
    try:
        header = s.header
        for ch in s.chunks():
            docs.append(ch.doc)
            words_.append(ch.word)
            cnts.append(ch.count)
            canonical = canonical and ch.canonical
    finally:
        s.close()
        if bar is not None:
            bar.close()
    D, W = header.n_docs, header.n_words
    d = np.concatenate(docs) if docs else np.zeros(0, np.int32)
    w = np.concatenate(words_) if words_ else np.zeros(0, np.int32)
    c = np.concatenate(cnts).astype(np.float64) if cnts else np.zeros(0)
    if canonical:
        indptr = np.zeros(D + 1, dtype=np.int64)
        np.cumsum(np.bincount(d, minlength=D), out=indptr[1:])
        X = sp.csr_matrix((c, w, indptr), shape=(D, W))
    else:
        X = sp.csr_matrix((c, (d, w)), shape=(D, W))
        X.sum_duplicates()
    voc = read_vocabulary(vocab, W) if vocab is not None else None
    return X, voc
