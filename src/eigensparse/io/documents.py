"""Raw documents as a corpus: one streamed pass of tokenizing into the binary cache.

:class:`TextCorpus` reads documents (a CSV/TSV column, a JSON Lines field, a Parquet
column, a directory of files, a text file with one document per line, each optionally
``.gz``/``.zst``/``.bz2``; or, in memory, strings, a pandas Series or a pyarrow array)
in record batches (:mod:`eigensparse.io._text_readers`), counts their tokens with
scikit-learn's ``CountVectorizer`` tokens (:mod:`eigensparse.io._tokenize`) and writes
the counts into the corpus cache of :mod:`eigensparse.io.cache`, words sorted as
scikit-learn sorts them. One pass over the text gives the vocabulary, the document
frequencies and the counts (rows with first-appearance word ids are kept in memory up to
a budget, in a scratch file beyond, then renumbered into the cache on both cores, see
:mod:`eigensparse.io._rows`); memory holds a few batches, the vocabulary, those rows and a
short prefix of each document. A second run with the same options reads only the
cache. Documents that are missing or blank are skipped and counted
(``n_skipped``); documents whose text has no token are kept as empty rows, as
scikit-learn keeps them.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
import weakref
import zlib

import numpy as np

from .._validation import InvalidParameterError
from ._text_readers import detect_format, iter_document_batches, scan_files
from ._rows import RowStore, write_sorted_rows
from ._tokenize import DEFAULT_TOKEN_PATTERN, OWNER_SHIFT, ParallelCounter
from .cache import BowCache, BowCacheWriter, _arrays_crc, default_cache_dir, file_digest
from .corpus import Corpus, _tqdm
from .uci import DEFAULT_CHUNK_NNZ

__all__ = ["TextCorpus", "is_text_source", "SNIPPET_CHARS"]

#: characters of each document kept to show representative documents
SNIPPET_CHARS = 100
_TEXT_FILE = "text.npz"
_TEXT_VERSION = 4
#: documents per batch of a source in memory
_MEMORY_BATCH = 1 << 16


def is_text_source(docword, vocab=None, text_column=None) -> bool:
    """True when ``docword`` holds raw documents rather than a count matrix.

    Raw documents: a directory, a CSV/TSV/JSON Lines/Parquet file, a text file that is not
    a UCI ``docword`` file (those start with three integer lines), ``text_column`` given,
    or strings in memory (a list, a pandas Series, a pyarrow array).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from eigensparse.io.documents import is_text_source
    >>> is_text_source("reviews.csv.gz"), is_text_source(["a text"]), is_text_source(sp.eye(2))
    (True, True, False)
    """
    if isinstance(docword, (str, os.PathLike)):
        path = os.fspath(docword)
        if text_column is not None or os.path.isdir(path):
            return True
        fmt = detect_format(path)
        if fmt != "lines":
            return True
        low = path.lower()
        if low.endswith((".mtx", ".mtx.gz", ".npz")) or vocab is not None:
            return False
        return not _looks_uci(path)
    if isinstance(docword, (list, tuple)):
        return all(isinstance(d, str) for d in docword[:100]) and len(docword) > 0
    mod = type(docword).__module__
    return mod.startswith("pyarrow") or (mod.startswith("pandas") and hasattr(docword, "str"))


def _looks_uci(path) -> bool:
    """A UCI docword file starts with three lines of one integer each (D, W, NNZ)."""
    from ._text_readers import _raw_bytes, split_compression

    try:
        with _raw_bytes(path, split_compression(path)[1]) as f:
            head = f.read(256)
    except OSError:
        return True  # let the UCI reader report it
    lines = head.split(b"\n")
    return len(lines) >= 3 and all(ln.strip().isdigit() for ln in lines[:3])


def _blob(strings):
    """(UTF-8 bytes as uint8, int64 offsets) of a list or pyarrow array of strings."""
    import pyarrow as pa

    arr = strings if isinstance(strings, pa.Array) else pa.array(strings, type=pa.large_string())
    arr = arr.cast(pa.large_string())
    from ._tokenize import _string_buffers

    data, off = _string_buffers(arr)
    return data[int(off[0]):int(off[-1])], off - off[0]


def _unblob(data, off):
    import pyarrow as pa

    arr = pa.Array.from_buffers(pa.large_string(), off.size - 1,
                                [None, pa.py_buffer(np.ascontiguousarray(off, dtype=np.int64)),
                                 pa.py_buffer(np.ascontiguousarray(data, dtype=np.uint8))])
    return arr.to_pylist()


class TextCorpus(Corpus):
    """Raw documents as a documents × words count matrix (see the module docstring).

    Parameters
    ----------
    source : path-like, iterable of str, pandas Series or pyarrow array
    text_column : str, optional
        The CSV/TSV column, JSON field or Parquet column holding the documents (needed
        when the file has several and none is named ``text``).
    id_column : str, optional
        The column naming each document (default: the line or row number; a
        directory's documents are named by their paths).
    lowercase, token_pattern, ngram_range, strip_accents
        scikit-learn's ``CountVectorizer`` meaning. The defaults give its default
        tokens, read by the compiled tokenizer; other values use its analyzer.
    encoding, decode_error : str
        How bytes are decoded (``decode_error`` in strict, replace, ignore).
    cache, cache_dir, verify
        As :class:`eigensparse.io.UCICorpus`: the counts (and the words, document names
        and first characters) are cached per source and options.

    Examples
    --------
    >>> from eigensparse.io.documents import TextCorpus
    >>> corpus = TextCorpus(["Sparse PCA finds topics.", "", "Topics of sparse text"])
    >>> corpus.describe(), corpus.words, corpus.n_skipped
    ('documents: 2 documents x 6 words, 8 nonzeros (cache: off)', ['finds', 'of', 'pca', 'sparse', 'text', 'topics'], 1)
    >>> next(corpus.iter_chunks()).indices.tolist()
    [0, 2, 3, 5, 1, 3, 4, 5]
    """

    def __init__(self, source, *, text_column=None, id_column=None, lowercase: bool = True,
                 token_pattern: str = DEFAULT_TOKEN_PATTERN, ngram_range=(1, 1),
                 strip_accents=None, encoding: str = "utf-8", decode_error: str = "strict",
                 cache: bool = True, cache_dir=None, verify: str = "hash", progress=False,
                 name: str | None = None):
        self.options = _check_options(lowercase, token_pattern, ngram_range, strip_accents)
        self.is_file = isinstance(source, (str, os.PathLike))
        self.path = os.fspath(source) if self.is_file else None
        if self.is_file and not os.path.exists(self.path):
            raise InvalidParameterError(f"{self.path}: line 1: file does not exist.")
        self.format = detect_format(self.path) if self.is_file else "memory"
        self.name = name or (os.path.basename(os.path.normpath(self.path)) if self.is_file
                             else "documents")
        self.read = dict(text_column=text_column, id_column=id_column, encoding=encoding,
                         decode_error=decode_error)
        self.integer_counts = True
        self.cache_status = "off"
        self.cache = None
        self._scratch = None
        self._digest = None
        self._files = None
        key = {**self.options, **self.read, "format": self.format, "version": _TEXT_VERSION}
        self._root = os.path.join(os.fspath(cache_dir) if cache_dir is not None else
                                  default_cache_dir(), "text-" + hashlib.sha1(
                                      json.dumps(key, sort_keys=True).encode()).hexdigest()[:12])
        use_cache = bool(cache) and self.is_file
        if use_cache:
            self.cache = self._open_cache(verify)
            self.cache_status = "hit" if self.cache is not None else "miss"
        if self.cache is None:
            self._build(source, use_cache, progress)
        self.n_docs, self.n_words, self.nnz = self.cache.n_docs, self.cache.n_words, self.cache.nnz
        self.last_source = "text" if self.cache_status in ("written", "off") else "cache"

    # -- the cache -----------------------------------------------------------------------
    def _manifest(self) -> str:
        """A digest of a directory's file names, sizes and modification times (as
        scanned once: the files then read are those)."""
        if self._files is None:
            self._files = scan_files(self.path)
        h = hashlib.sha256()
        for name, size, mtime in self._files:
            h.update(f"{name}\0{size}\0{mtime}\n".encode("utf-8", "surrogateescape"))
        return h.hexdigest()

    def _open_cache(self, verify):
        """The cache when it matches the source; its count arrays are checked before
        they are first read (:meth:`iter_chunks`: a run served by the cached statistics
        reads none), the document names and first characters when first shown."""
        is_dir = self.format == "dir"
        cache = BowCache.open(self.path, self._root, verify="stat" if is_dir else verify,
                              check_arrays=False)
        if cache is None:
            return None
        text = self._load_text(cache.directory)
        if text is None or (is_dir and str(text["manifest"]) != self._manifest()):
            return None
        self._text = text
        return cache

    def _rebuild(self) -> None:
        """The cache again from the source (its arrays were found damaged)."""
        self.cache, self.cache_status = None, "damaged"
        self.__dict__.pop("_docs", None)
        self._build(self.path, True, False)
        self.cache_status = "rebuilt"

    @property
    def _docs(self) -> "DocumentStore":
        """The document names and first characters (checked when first read)."""
        docs = self.__dict__.get("_docs")
        if docs is None:
            docs = DocumentStore(self.cache.directory, crcs=self._text["documents_crc32"])
            if not docs.intact(self.n_docs):
                import warnings

                from .cache import CacheWarning

                warnings.warn(f"{self.cache.directory}: the document names or first characters "
                              f"do not match their CRC-32: the cache is rebuilt from "
                              f"{self.path}.", CacheWarning, stacklevel=3)
                self._rebuild()
                docs = DocumentStore(self.cache.directory, crcs=self._text["documents_crc32"])
            self.__dict__["_docs"] = docs
        return docs

    @staticmethod
    def _load_text(directory):
        try:
            with np.load(os.path.join(directory, _TEXT_FILE), allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files if k != "crc32"}
                if int(z["crc32"]) != _arrays_crc(arrays):
                    return None
                return arrays
        except (OSError, ValueError, KeyError, EOFError, zlib.error):
            return None

    # -- building ---------------------------------------------------------------------------
    def _batches(self, source):
        import pyarrow as pa

        if self.is_file:
            if self.format == "dir" and self._files is None:
                self._files = scan_files(self.path)
            files = self._files if self.format == "dir" else None
            yield from iter_document_batches(self.path, self.format, files=files, **self.read)
            return
        arr = _memory_array(source)
        step = _MEMORY_BATCH
        for a in range(0, len(arr), step):
            yield arr.slice(a, step), pa.array(np.arange(a, min(a + step, len(arr))), type=pa.int64())

    def _build(self, source, use_cache, progress):
        hasher = _Digest(self.path) if self.is_file and self.format != "dir" and use_cache else None
        scratch = tempfile.mkdtemp(prefix=f".tmp-{os.getpid()}-text-",
                                   dir=_scratch_root(self._root if use_cache else None))
        counter = ParallelCounter(_threads(), **self.options)
        rows = RowStore(scratch)
        docs = DocumentStore(scratch, write=True)
        try:
            kept = self._tokenize(source, counter, rows, docs, progress)
            crcs = docs.finish()
            words, ranks, df = counter.vocabulary()
            what = self.path or self.name
            if rows.n_docs == 0:
                raise InvalidParameterError(
                    f"{what}: no documents ({kept['skipped']} empty or missing were skipped).")
            if not words:
                raise InvalidParameterError(
                    f"{what}: no token in {rows.n_docs} documents (token_pattern "
                    f"{self.options['token_pattern']!r}); nothing to find topics in.")
            data, off = _blob(words)
            text = dict(words_data=data, words_offsets=off, n_skipped=np.int64(kept["skipped"]),
                        df=df, documents_crc32=crcs,
                        manifest=np.array(self._manifest() if self.format == "dir" else ""))
            digest = hasher.result() if hasher is not None else "none"
            self._write_cache(rows, docs, ranks, len(words), text, digest, use_cache)
        finally:
            counter.close()
            rows.close()
            docs.close()
            shutil.rmtree(scratch, ignore_errors=True)

    def _tokenize(self, source, counter, rows, docs, progress) -> dict:
        """Count every batch (the next batch is read while the threads count this one)
        into ``rows``, the names and first characters of its documents into ``docs``."""
        import pyarrow as pa
        import pyarrow.compute as pc

        kept = {"skipped": 0}
        bar = _tqdm(None, "doc", f"tokenize ({self.name})", progress)

        def finish(pending):
            texts, names, result = pending
            pieces = result()
            blank = np.concatenate([p[3] for p in pieces]) if len(pieces) > 1 else pieces[0][3]
            kept["skipped"] += int(blank.sum())
            for ptr, idx, cnt, b in pieces:
                if b.any():
                    keep = np.flatnonzero(~b)
                    ptr = np.r_[0, ptr[1:][keep]]  # blank rows are empty: drop their ends
                rows.add(ptr, idx, cnt)
            if blank.any():
                mask = pa.array(~blank)
                texts, names = texts.filter(mask), names.filter(mask)
            docs.add(names, pc.utf8_slice_codeunits(texts, 0, SNIPPET_CHARS))
            if bar is not None:
                bar.update(len(texts))

        pending = None
        try:
            for texts, names in self._batches(source):
                if texts.null_count:
                    valid = texts.is_valid()
                    kept["skipped"] += texts.null_count
                    texts, names = texts.filter(valid), names.filter(valid)
                started = (texts, names, counter.submit(texts))
                if pending is not None:
                    finish(pending)
                pending = started
            if pending is not None:
                finish(pending)
                pending = None
        finally:
            if pending is not None:  # an error while reading: let the threads finish
                try:
                    pending[2]()
                except Exception:  # noqa: BLE001 - the reading error is the one to report
                    pass
            if bar is not None:
                bar.close()
        return kept

    def _write_cache(self, rows, docs, ranks, n_words, text, digest, use_cache):
        """The rows with sorted word ids (sorted within rows) into the cache."""
        from concurrent.futures import ThreadPoolExecutor

        root = self._root if use_cache else tempfile.mkdtemp(
            prefix="eigensparse-text-", dir=_scratch_root(None))
        if not use_cache:
            self._scratch = root
            weakref.finalize(self, shutil.rmtree, root, True)
        source = self.path if self.is_file else os.path.join(root, "documents")
        if not self.is_file:
            open(source, "wb").close()
        rank = np.concatenate(ranks).astype(np.int32)
        base = np.cumsum([0] + [r.size for r in ranks[:-1]]).astype(np.int64)
        threads = _threads()
        with BowCacheWriter(source, rows.n_docs, n_words, root) as w:
            if threads > 1:
                with ThreadPoolExecutor(threads, thread_name_prefix="renumber") as pool:
                    write_sorted_rows(rows, w, rank, base, OWNER_SHIFT, pool)
            else:
                write_sorted_rows(rows, w, rank, base, OWNER_SHIFT)
            docs.move_to(w.tmp)
            with open(os.path.join(w.tmp, _TEXT_FILE), "wb") as f:
                np.savez(f, crc32=np.int64(_arrays_crc(text)), **text)
            self.cache = w.commit(digest)
        # the document frequencies of the tokenizing pass (the pipeline's tf-idf needs
        # no pass of its own for them)
        self.cache.save_stats("df", {"df": np.asarray(text["df"], dtype=np.int64)})
        self.cache_status = "written" if use_cache else "off"
        self._text = text
        self.__dict__.pop("_docs", None)

    # -- what the pipeline reads ----------------------------------------------------------------
    @property
    def words(self):
        if not hasattr(self, "_words"):
            self._words = _unblob(self._text["words_data"], self._text["words_offsets"])
        return self._words

    @words.setter
    def words(self, value):
        self._words = value

    @property
    def n_skipped(self) -> int:
        return int(self._text["n_skipped"])

    @property
    def cache_directory(self):
        return None if self.cache is None or self._scratch else self.cache.directory

    def document_names(self, rows) -> list:
        """The names (ids) of documents ``rows``."""
        return self._docs.pick("ids", rows)

    def document_snippets(self, rows) -> list:
        """The first characters of documents ``rows``."""
        return self._docs.pick("snippets", rows)

    def iter_chunks(self, *, chunk_nnz: int = DEFAULT_CHUNK_NNZ, progress: bool = False,
                    desc: str = "pass"):
        if not self.cache.verify_arrays(self.path):
            self._rebuild()
        bar = _tqdm(self.nnz, "nz", f"{desc} (cache)", progress)
        try:
            yield from self.cache.iter_chunks(chunk_nnz, progress=bar)
        finally:
            if bar is not None:
                bar.close()
        self.last_source = "cache"

    def describe(self) -> str:
        return super().describe() + f" (cache: {self.cache_status})"


def _threads() -> int:
    """Tokenizing threads: the cores this process may use (at most 4)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(4, n))


class DocumentStore:
    """Each document's name and first characters in four files of the cache (UTF-8 bytes
    and int64 offsets of each), written batch by batch while the text is read (memory
    holds one batch of them) and read by rows through memory maps.

    Examples
    --------
    >>> import tempfile, pyarrow as pa
    >>> from eigensparse.io.documents import DocumentStore
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     w = DocumentStore(tmp, write=True)
    ...     w.add(pa.array([1, 2]), pa.array(["first", "second"]))
    ...     w.add(pa.array(["x"]), pa.array(["café"]))
    ...     crcs = w.finish()
    ...     r = DocumentStore(tmp, crcs=crcs)
    ...     print(r.intact(3), r.pick("ids", [2, 0]), r.pick("snippets", [2]))
    True ['x', '1'] ['café']
    """

    FILES = {"ids": ("ids.u8", "ids.i64"), "snippets": ("snippets.u8", "snippets.i64")}

    def __init__(self, directory, *, write: bool = False, crcs=None):
        self.directory = directory
        self.crcs = None if crcs is None else [int(c) for c in crcs]
        self._files, self._maps = {}, {}
        if write:
            self._ends = {k: 0 for k in self.FILES}
            self._crc = {name: 0 for pair in self.FILES.values() for name in pair}
            for pair in self.FILES.values():
                for name in pair:
                    self._files[name] = open(os.path.join(directory, name), "wb")
            for key in self.FILES:
                self._put(self.FILES[key][1], np.zeros(1, dtype="<i8"))

    def _put(self, name, array) -> None:
        from ._source import crc32

        buf = memoryview(np.ascontiguousarray(array)).cast("B")
        self._files[name].write(buf)
        self._crc[name] = crc32(buf, self._crc[name])

    def add(self, names, snippets) -> None:
        """The names (any pyarrow array, as strings) and first characters of one batch."""
        import pyarrow as pa

        for key, arr in (("ids", names.cast(pa.large_string())), ("snippets", snippets)):
            data, off = _blob(arr)
            self._put(self.FILES[key][0], data)
            self._put(self.FILES[key][1], (off[1:] + self._ends[key]).astype("<i8"))
            self._ends[key] += int(off[-1])

    def finish(self) -> np.ndarray:
        """Close the files; their CRC-32 (in :data:`FILES` order)."""
        self.close()
        return np.array([self._crc[n] for pair in self.FILES.values() for n in pair],
                        dtype=np.int64)

    def move_to(self, directory) -> None:
        for pair in self.FILES.values():
            for name in pair:
                shutil.move(os.path.join(self.directory, name), os.path.join(directory, name))
        self.directory = directory

    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files = {}

    def intact(self, n_docs: int) -> bool:
        """The files are there, hold ``n_docs`` offsets each and match their CRC-32."""
        from ._source import crc32

        try:
            names = [n for pair in self.FILES.values() for n in pair]
            for name, want in zip(names, self.crcs):
                crc = 0
                with open(os.path.join(self.directory, name), "rb") as f:
                    while block := f.read(1 << 24):
                        crc = crc32(block, crc)
                if crc != want:
                    return False
            return all(os.path.getsize(os.path.join(self.directory, off)) == 8 * (n_docs + 1)
                       for _, off in self.FILES.values())
        except (OSError, TypeError):
            return False

    def pick(self, key: str, rows) -> list:
        """The strings of documents ``rows`` (``key``: ``"ids"`` or ``"snippets"``)."""
        if key not in self._maps:
            data, off = (os.path.join(self.directory, n) for n in self.FILES[key])
            size = os.path.getsize(data)
            self._maps[key] = (np.memmap(data, dtype=np.uint8, mode="r") if size else
                               np.zeros(0, np.uint8), np.memmap(off, dtype="<i8", mode="r"))
        data, off = self._maps[key]
        rows = np.asarray(rows, dtype=np.int64)
        return [bytes(data[off[r]:off[r + 1]]).decode("utf-8", "replace") for r in rows]


def _scratch_root(root):
    if root is None:
        return None
    os.makedirs(root, exist_ok=True)
    return root


def _check_options(lowercase, token_pattern, ngram_range, strip_accents) -> dict:
    import re

    try:
        ngram = tuple(int(n) for n in ngram_range)
    except (TypeError, ValueError):
        ngram = ()
    if len(ngram) != 2 or not 1 <= ngram[0] <= ngram[1]:
        raise InvalidParameterError(f"parameter 'ngram_range' must be (min_n, max_n) with "
                                    f"1 <= min_n <= max_n; got {ngram_range!r}.")
    if strip_accents not in (None, "ascii", "unicode"):
        raise InvalidParameterError(f"parameter 'strip_accents' must be None, 'ascii' or "
                                    f"'unicode'; got {strip_accents!r}.")
    try:
        if re.compile(token_pattern).groups > 1:
            raise InvalidParameterError(f"parameter 'token_pattern' has more than one group: "
                                        f"{token_pattern!r}.")
    except (re.error, TypeError) as exc:
        raise InvalidParameterError(f"parameter 'token_pattern' is not a regular expression "
                                    f"({exc}): {token_pattern!r}.") from None
    return dict(lowercase=bool(lowercase), token_pattern=token_pattern, ngram_range=list(ngram),
                strip_accents=strip_accents)


def _memory_array(source):
    """Documents in memory as a pyarrow large_string array (nulls for missing ones)."""
    import pyarrow as pa

    if isinstance(source, pa.ChunkedArray):
        source = source.combine_chunks()
    if isinstance(source, pa.Array):
        if not (pa.types.is_string(source.type) or pa.types.is_large_string(source.type)):
            raise InvalidParameterError(f"parameter 'docword': a pyarrow array of strings is "
                                        f"needed; got {source.type}.")
        return source.cast(pa.large_string())
    if hasattr(source, "to_numpy") and hasattr(source, "str"):  # a pandas Series
        source = source.tolist()
    docs = list(source)
    bad = next((d for d in docs if d is not None and not isinstance(d, str)), None)
    if bad is not None:
        raise InvalidParameterError(f"parameter 'docword': documents must be strings; got "
                                    f"{type(bad).__name__}.")
    return pa.array(docs, type=pa.large_string())


class _Digest:
    """SHA-256 of a file computed on a background thread."""

    def __init__(self, path):
        self._path, self._value, self._stop = path, None, False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        try:
            self._value = file_digest(self._path)
        except OSError:
            self._value = None

    def result(self) -> str:
        self._thread.join()
        if self._value is None:
            raise InvalidParameterError(f"{self._path}: cannot be read to the end.")
        return self._value

