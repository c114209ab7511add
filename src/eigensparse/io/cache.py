"""Binary cache of a bag-of-words file: CSR arrays on disk, trusted only when complete
and matching its source.

Layout of one cache (a directory ``<cache_dir>/<file name>-<hash of its path>/``)::

    meta.json          format, version, the source's path/size/mtime/CRC-32, D, W, NNZ,
                       array files with dtype and length, a random token
    indptr.i64         D + 1 offsets (int64)
    indices.i32        NNZ word ids (int32, 0-based, sorted within each document)
    data.u32           NNZ counts (uint32)
    stats-*.npz        optional per-word statistics computed from the cache (tagged with
                       the token of the cache they belong to)

Atomicity: a cache is built in a temporary sibling directory ``.tmp-…`` and renamed
into place only after every file, ``meta.json`` last, is written and flushed. A write
interrupted at any point leaves either no cache directory or only a ``.tmp-…`` one,
which is never read (and is removed by the next build). A cache is trusted only when
``meta.json`` parses, names the same format and version, its source size, mtime and
(by default) CRC-32 (:func:`~eigensparse.io._source.file_crc32`) match the file as it is
now, and every array file has the recorded size. The source's signature is taken when
the build starts; the CRC-32 is not computed again while the file keeps the device,
inode and change time (ctime) recorded then (any write updates the ctime, and no
program can set it back); when they changed but the CRC-32 still matches, the new ones
are recorded. Anything else is treated as absent.

Verification: ``meta.json`` also records a CRC-32 of each array file (computed while
writing, at no extra cost). Before its arrays are first read in a process
(:meth:`BowCache.verify_arrays`; :meth:`BowCache.open` by default, or the first pass of
a :class:`~eigensparse.io.UCICorpus`, so that a run served by the cached statistics
reads no array), they are read once and the CRCs and the structure checked (offsets
start at 0, never decrease and end at NNZ; word ids in [0, W); counts positive), so
that no damaged cache reaches a compiled kernel. A cache that fails is reported in one
line (a :class:`CacheWarning`), deleted and rebuilt from the source by the next pass.

Temporary directories carry the PID of the process writing them
(``.tmp-<pid>-…``); a build removes those whose process is gone (an interrupted run,
even ``kill -9``), whatever their age.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import uuid
import warnings
import zipfile
import zlib
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ._atomic import atomic_open, pid_is_dead
from ._source import crc32, file_crc32
from ._verify import _ARRAYS, verify_cache_arrays
from .._validation import InvalidParameterError

__all__ = ["default_cache_dir", "cache_dir_for", "source_signature", "BowCache", "BowCacheWriter",
           "CSRChunk", "CACHE_FORMAT", "CACHE_VERSION", "CacheWarning", "verify_cache_arrays"]

CACHE_FORMAT = "eigensparse-bow-cache"
CACHE_VERSION = 3  # 2: CRC-32 of every array file in meta.json; 3: the source keyed by CRC-32
_HASH = "crc32"
_STALE_TMP_SECONDS = 6 * 3600


class CacheWarning(UserWarning):
    """A cache was found damaged (and discarded) or could not be used.

    Examples
    --------
    >>> import warnings
    >>> from eigensparse.io.cache import CacheWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("cache: damaged offsets; rebuilt", CacheWarning)
    >>> caught[0].category is CacheWarning, issubclass(CacheWarning, UserWarning)
    (True, True)
    """


@dataclass(frozen=True)
class CSRChunk:
    """Whole documents ``doc_start … doc_start + n_docs - 1`` as local CSR arrays.

    ``indptr`` (int64, starts at 0), ``indices`` (int32 word ids, sorted and unique
    within each document), ``data`` (counts or values).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.io import CSRChunk
    >>> ch = CSRChunk(doc_start=5, indptr=np.array([0, 2, 3]), indices=np.array([0, 2, 1]),
    ...               data=np.array([2, 1, 5]))  # documents 5 and 6
    >>> ch.n_docs, ch.nnz
    (2, 3)
    """

    doc_start: int
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray

    @property
    def n_docs(self) -> int:
        return int(self.indptr.size - 1)

    @property
    def nnz(self) -> int:
        return int(self.indices.size)


def default_cache_dir() -> str:
    """``$EIGENSPARSE_CACHE_DIR``, else ``$XDG_CACHE_HOME/eigensparse``, else
    ``~/.cache/eigensparse``.

    Examples
    --------
    >>> import os
    >>> from eigensparse.io import default_cache_dir
    >>> default_cache_dir() == os.environ.get("EIGENSPARSE_CACHE_DIR", default_cache_dir())
    True
    """
    d = os.environ.get("EIGENSPARSE_CACHE_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "eigensparse")


def cache_dir_for(source, cache_dir=None) -> str:
    """The cache directory of ``source`` under ``cache_dir`` (default: :func:`default_cache_dir`).

    Examples
    --------
    >>> import os
    >>> from eigensparse.io import cache_dir_for
    >>> d = cache_dir_for("docword.nytimes.txt.gz", cache_dir="caches")
    >>> os.path.dirname(d), os.path.basename(d).startswith("docword.nytimes.txt.gz-")
    ('caches', True)
    """
    src = os.path.abspath(os.fspath(source))
    root = os.fspath(cache_dir) if cache_dir is not None else default_cache_dir()
    key = hashlib.sha1(src.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return os.path.join(root, f"{os.path.basename(src)}-{key}")


def file_digest(path) -> str:
    """The content key of a source file (:func:`eigensparse.io._source.file_crc32`)."""
    return file_crc32(path)


def source_signature(path, digest: str | None = None) -> dict:
    """Path, size and mtime of ``path`` (and its CRC-32 key when ``digest`` is given).

    Examples
    --------
    >>> import os, tempfile
    >>> from eigensparse.io.cache import source_signature
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "docword.toy.txt")
    ...     with open(path, "w") as f:
    ...         _ = f.write("1\\n1\\n1\\n1 1 3\\n")
    ...     sig = source_signature(path, digest="abc")
    >>> sorted(sig), sig["size"]
    (['crc32', 'ctime_ns', 'inode', 'mtime_ns', 'path', 'size'], 12)
    """
    path = os.path.abspath(os.fspath(path))
    st = os.stat(path)
    sig = {"path": path, "size": int(st.st_size), "mtime_ns": int(st.st_mtime_ns),
           "ctime_ns": int(st.st_ctime_ns), "inode": [int(st.st_dev), int(st.st_ino)]}
    if digest is not None:
        sig[_HASH] = digest
    return sig


def _unchanged(recorded: dict, now: dict) -> bool:
    """The source is the very file the cache was built from, untouched since: same
    device and inode, same change time (ctime, which the system updates on every write
    and no program can set back, unlike the modification time). Then its CRC-32 need
    not be computed again."""
    return all(recorded.get(k) is not None and recorded.get(k) == now[k]
               for k in ("ctime_ns", "inode"))


def _record_signature(directory: str, meta: dict, sig: dict) -> dict:
    """``meta`` with the source's device, inode and ctime of now (its bytes were just
    found to have the recorded CRC-32: a link, a copy back or a ``chmod`` changes them
    without changing the bytes), written back atomically so that the next run need not
    checksum the source again; an unwritable cache directory keeps the old record."""
    new = {**meta, "source": {**meta["source"], "ctime_ns": sig["ctime_ns"],
                              "inode": sig["inode"]}}
    new["meta_crc32"] = _meta_crc(new)
    try:
        _write_json_atomic(os.path.join(directory, "meta.json"), new)
    except OSError:
        pass
    return new


def _fsync_dir(path):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _write_json_atomic(path, obj):
    with atomic_open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True, allow_nan=False)


def _meta_crc(meta: dict) -> int:
    body = {k: v for k, v in meta.items() if k != "meta_crc32"}
    return zlib.crc32(json.dumps(body, sort_keys=True).encode("utf-8"))


def _arrays_crc(arrays: dict) -> int:
    crc = 0
    for k in sorted(arrays):
        a = np.ascontiguousarray(arrays[k])
        crc = zlib.crc32(f"{k}:{a.dtype.str}:{a.shape}".encode(), crc)
        crc = zlib.crc32(a.view(np.uint8).reshape(-1) if a.size else b"", crc)
    return crc


def discard_cache(directory, problem: str, source: str | None = None) -> None:
    """Report a damaged cache in one line (:class:`CacheWarning`) and delete it."""
    what = f"; rebuilding it from {source}" if source else "; it will be rebuilt"
    warnings.warn(f"{directory}: damaged cache ({problem}): discarded{what}.", CacheWarning,
                  stacklevel=3)
    root = os.path.dirname(directory)
    trash = os.path.join(root, f".old-{os.getpid()}-{uuid.uuid4().hex}")
    try:
        os.replace(directory, trash)
    except OSError:
        trash = directory
    shutil.rmtree(trash, ignore_errors=True)


class BowCache:
    """A trusted cache opened for reading (see :meth:`open`).

    Examples
    --------
    >>> import tempfile
    >>> from importlib.resources import files
    >>> from eigensparse.io import BowCache, UCICorpus
    >>> kos = files("eigensparse.datasets") / "data" / "docword.kos.txt.gz"
    >>> caches = tempfile.TemporaryDirectory()
    >>> BowCache.open(kos, caches.name) is None  # nothing cached yet
    True
    >>> _ = sum(ch.nnz for ch in UCICorpus(kos, cache_dir=caches.name).iter_chunks())  # builds it
    >>> cache = BowCache.open(kos, caches.name)
    >>> cache.n_docs, cache.nnz, cache.to_csr().shape
    (3430, 353160, (3430, 6906))
    >>> caches.cleanup()
    """

    def __init__(self, directory: str, meta: dict, *, verified: bool = False):
        self.directory = directory
        #: the arrays were checked (or written) by this process
        self.verified = bool(verified)
        self.meta = meta
        self.n_docs = int(meta["n_docs"])
        self.n_words = int(meta["n_words"])
        self.nnz = int(meta["nnz"])
        self.token = meta["token"]
        self._indptr = None

    # -- opening --------------------------------------------------------------
    @classmethod
    def open(cls, source, cache_dir=None, *, verify: str = "hash",
             check_arrays: bool = True) -> "BowCache | None":
        """The cache of ``source`` if it exists, matches it and is intact, else None.

        ``verify="hash"`` (default) also compares the CRC-32 of the source's bytes;
        ``"stat"`` trusts size and mtime. ``check_arrays`` (default) verifies the
        arrays' CRC-32 and structure now (:meth:`verify_arrays`); a damaged cache is
        reported with a :class:`CacheWarning`, deleted, and None is returned so that
        the caller rebuilds it. With ``check_arrays=False`` the caller calls
        :meth:`verify_arrays` before reading the arrays.
        """
        if verify not in ("hash", "stat"):
            raise InvalidParameterError(f"parameter 'verify' must be 'hash' or 'stat'; got {verify!r}.")
        d = cache_dir_for(source, cache_dir)
        meta = cls._read_meta(d)
        if meta is None:
            return None
        try:
            sig = source_signature(source)
        except OSError:
            return None
        src = meta.get("source", {})
        if src.get("size") != sig["size"] or src.get("mtime_ns") != sig["mtime_ns"]:
            return None
        if verify == "hash" and not _unchanged(src, sig):
            if src.get(_HASH) != file_digest(source):
                return None
            meta = _record_signature(d, meta, sig)
        cache = cls(d, meta)
        if check_arrays and not cache.verify_arrays(source):
            return None
        return cache

    def verify_arrays(self, source=None) -> bool:
        """Check the arrays once (:func:`verify_cache_arrays`); a damaged cache is
        reported (:class:`CacheWarning`) and deleted, and False returned."""
        if self.verified:
            return True
        problem = verify_cache_arrays(self.directory, self.meta)
        if problem is not None:
            discard_cache(self.directory, problem, None if source is None else os.fspath(source))
            return False
        self.verified = True
        return True

    @staticmethod
    def _read_meta(d: str) -> dict | None:
        try:
            with open(os.path.join(d, "meta.json"), encoding="utf-8") as f:
                meta = json.load(f)
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        if not isinstance(meta, dict) or meta.get("format") != CACHE_FORMAT \
                or meta.get("version") != CACHE_VERSION:
            return None
        if meta.get("meta_crc32") != _meta_crc(meta):
            discard_cache(d, "meta.json does not match its checksum")
            return None
        try:
            lengths = {"indptr": int(meta["n_docs"]) + 1, "indices": int(meta["nnz"]),
                       "data": int(meta["nnz"])}
            for key, (fname, dtype) in _ARRAYS.items():
                info = meta["arrays"][key]
                if info["file"] != fname or info["dtype"] != dtype or info["length"] != lengths[key] \
                        or not isinstance(info["crc32"], int):
                    return None
                size = os.path.getsize(os.path.join(d, fname))
                if size != lengths[key] * np.dtype(dtype).itemsize:
                    return None
            str(meta["token"])
        except (KeyError, TypeError, ValueError, OSError):
            return None
        return meta

    # -- reading --------------------------------------------------------------
    def _path(self, key):
        return os.path.join(self.directory, _ARRAYS[key][0])

    @property
    def indptr(self) -> np.ndarray:
        """All D + 1 offsets (loaded on demand; :meth:`iter_chunks` does not need them)."""
        if self._indptr is None:
            ip = np.fromfile(self._path("indptr"), dtype=_ARRAYS["indptr"][1])
            if ip.size != self.n_docs + 1 or ip[0] != 0 or ip[-1] != self.nnz or np.any(np.diff(ip) < 0):
                raise self._corrupt("offsets")
            self._indptr = ip
        return self._indptr

    def _corrupt(self, what):
        return InvalidParameterError(f"{self.directory}: line 1: corrupt cache ({what}); delete "
                                     "the directory to rebuild it.")

    def iter_chunks(self, chunk_nnz: int, progress=None, *, offsets_block: int = 1 << 16
                    ) -> Iterator[CSRChunk]:
        """Whole-document CSR chunks of about ``chunk_nnz`` entries.

        Memory is bounded by the chunk (and ``offsets_block`` offsets), whatever the
        number of documents: the offsets are streamed too.
        """
        D = self.n_docs
        with open(self._path("indptr"), "rb") as fp, open(self._path("indices"), "rb") as fi, \
                open(self._path("data"), "rb") as fd:
            buf = np.fromfile(fp, dtype="<i8", count=min(offsets_block, D + 1))
            if buf.size == 0 or buf[0] != 0:
                raise self._corrupt("offsets")
            base = 0  # document index of buf[0]
            loaded = buf.size  # offsets read so far
            d0 = 0
            while d0 < D:
                target = buf[d0 - base] + chunk_nnz
                # extend the window until it holds the end of this chunk (or all offsets)
                while buf[-1] < target and loaded < D + 1:
                    more = np.fromfile(fp, dtype="<i8", count=min(offsets_block, D + 1 - loaded))
                    if more.size == 0:
                        raise self._corrupt("offsets are shorter than recorded")
                    keep = d0 - base
                    buf = np.concatenate([buf[keep:], more])
                    base, loaded = d0, loaded + more.size
                rel = buf[d0 - base:]
                k = int(np.searchsorted(rel, target, side="right")) - 1
                k = min(max(k, 1), rel.size - 1)
                ip = rel[:k + 1]
                if np.any(np.diff(ip) < 0):
                    raise self._corrupt("offsets decrease")
                a, b = int(ip[0]), int(ip[-1])
                fi.seek(a * 4)
                fd.seek(a * 4)
                idx = np.fromfile(fi, dtype="<i4", count=b - a)
                dat = np.fromfile(fd, dtype="<u4", count=b - a)
                if idx.size != b - a or dat.size != b - a:
                    raise self._corrupt("arrays are shorter than recorded")
                yield CSRChunk(d0, ip - a, idx, dat)
                if progress is not None:
                    progress.update(b - a)
                d0 += k
                if d0 - base > offsets_block and d0 < D:  # drop consumed offsets
                    buf = buf[d0 - base:]
                    base = d0
            if int(buf[-1]) != self.nnz:
                raise self._corrupt("offsets do not end at NNZ")

    def to_csr(self):
        import scipy.sparse as sp

        idx = np.fromfile(self._path("indices"), dtype="<i4")
        dat = np.fromfile(self._path("data"), dtype="<u4").astype(np.float64)
        return sp.csr_matrix((dat, idx, self.indptr.copy()), shape=(self.n_docs, self.n_words))

    # -- small derived arrays ---------------------------------------------------
    def load_stats(self, name: str) -> dict | None:
        """Arrays saved by :meth:`save_stats` for this cache, or None."""
        path = os.path.join(self.directory, f"stats-{name}.npz")
        if not os.path.exists(path):
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                if str(z["__token__"]) != self.token:
                    return None
                arrays = {k: z[k] for k in z.files if k not in ("__token__", "__crc32__")}
                if int(z["__crc32__"]) != _arrays_crc(arrays):
                    raise ValueError("the arrays do not match their CRC-32")
                return arrays
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            warnings.warn(f"{path}: damaged cached statistics ({why}): discarded; recomputing them.",
                          CacheWarning, stacklevel=2)
            try:
                os.unlink(path)
            except OSError:
                pass
            return None

    def save_stats(self, name: str, arrays: dict) -> None:
        """Store small arrays with this cache (atomically; failures are ignored)."""
        path = os.path.join(self.directory, f"stats-{name}.npz")
        try:
            with atomic_open(path, "wb") as f:
                np.savez(f, __token__=np.array(self.token),
                         __crc32__=np.array(_arrays_crc(arrays), dtype=np.int64), **arrays)
        except OSError:
            pass


class BowCacheWriter:
    """Builds the cache of ``source`` from whole-document chunks, atomically.

    Use as a context manager: :meth:`add` chunks in document order, then
    :meth:`commit` with the source's digest; leaving the block without committing (an
    exception, an interrupt) removes the partial files.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from eigensparse.io import BowCache, BowCacheWriter, CSRChunk
    >>> from eigensparse.io.cache import file_digest
    >>> tmp = tempfile.TemporaryDirectory()
    >>> src = os.path.join(tmp.name, "docword.toy.txt")
    >>> with open(src, "w") as f:
    ...     _ = f.write("2\\n3\\n3\\n1 1 2\\n1 3 1\\n2 2 5\\n")
    >>> with BowCacheWriter(src, n_docs=2, n_words=3, cache_dir=tmp.name) as w:
    ...     w.add(CSRChunk(0, np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([2, 1, 5])))
    ...     cache = w.commit(file_digest(src))
    >>> BowCache.open(src, tmp.name).to_csr().toarray().tolist()
    [[2.0, 0.0, 1.0], [0.0, 5.0, 0.0]]
    >>> tmp.cleanup()
    """

    def __init__(self, source, n_docs: int, n_words: int, cache_dir=None):
        self.source = os.fspath(source)
        self._signature = source_signature(self.source)  # before the source is read
        self.final = cache_dir_for(source, cache_dir)
        root = os.path.dirname(self.final)
        os.makedirs(root, exist_ok=True)
        self._clean_stale(root)
        self.tmp = tempfile.mkdtemp(dir=root, prefix=f".tmp-{os.getpid()}-{os.path.basename(self.final)}-")
        self.n_docs, self.n_words = int(n_docs), int(n_words)
        self.nnz = 0
        self._next_doc = 0  # offsets of documents < _next_doc are written (streamed: no O(D) memory)
        self._ends_at = 0  # the last offset written
        self._fi = open(os.path.join(self.tmp, _ARRAYS["indices"][0]), "wb")
        self._fd = open(os.path.join(self.tmp, _ARRAYS["data"][0]), "wb")
        self._fp = open(os.path.join(self.tmp, _ARRAYS["indptr"][0]), "wb")
        self._crc = {key: 0 for key in _ARRAYS}
        self._write("indptr", np.zeros(1, dtype="<i8"))
        self.committed = False

    def _write(self, key, arr: np.ndarray) -> None:
        f = {"indptr": self._fp, "indices": self._fi, "data": self._fd}[key]
        b = np.ascontiguousarray(arr, dtype=_ARRAYS[key][1])
        self._crc[key] = crc32(b, self._crc[key])
        f.write(memoryview(b).cast("B"))

    @staticmethod
    def _clean_stale(root):
        """Remove leftovers of other builds: ``.old-*`` (always), and ``.tmp-<pid>-*``
        whose process is gone (or, for names without a PID, older than 6 hours)."""
        now = time.time()
        try:
            names = os.listdir(root)
        except OSError:
            return
        for n in names:
            if not (n.startswith(".tmp-") or n.startswith(".old-")):
                continue
            p = os.path.join(root, n)
            pid = n.split("-")[1]
            try:
                if n.startswith(".old-") or (pid_is_dead(int(pid)) if pid.isdigit()
                                             else now - os.path.getmtime(p) > _STALE_TMP_SECONDS):
                    shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else os.unlink(p)
            except OSError:
                pass

    def add(self, chunk: CSRChunk) -> None:
        if chunk.doc_start < self._next_doc:
            raise InvalidParameterError("cache: chunks must come in document order.")
        data = chunk.data
        if data.size and (data.dtype.kind == "f" or data.min() < 0 or data.max() > 0xFFFFFFFF):
            raise InvalidParameterError("cache: counts must be integers in [0, 2**32).")
        if chunk.doc_start + chunk.n_docs > self.n_docs:
            raise InvalidParameterError("cache: chunk beyond the last document.")
        self._fill_offsets(chunk.doc_start)  # empty documents before this chunk
        self._write("indices", chunk.indices)
        self._write("data", data)
        self._write("indptr", self.nnz + np.asarray(chunk.indptr[1:], dtype=np.int64))
        self.nnz += chunk.nnz
        self._next_doc = chunk.doc_start + chunk.n_docs

    def append(self, indices: np.ndarray, data: np.ndarray, ends: np.ndarray) -> None:
        """Entries in file order (int32 word ids, uint32 counts, already checked) and the
        end offsets of the documents they finish (from the next unwritten document on):
        the fused pass 1a (:mod:`eigensparse.io._build`) writes blocks that may end
        inside a document."""
        if ends.size and (ends[0] < self._ends_at or ends[-1] > self.nnz + indices.size
                          or self._next_doc + ends.size > self.n_docs):
            raise InvalidParameterError("cache: offsets out of order.")
        self._write("indices", indices)
        self._write("data", data)
        if ends.size:
            self._write("indptr", ends)
            self._ends_at = int(ends[-1])
        self.nnz += int(indices.size)
        self._next_doc += int(ends.size)

    def _fill_offsets(self, upto: int):
        gap = upto - self._next_doc
        while gap > 0:
            k = min(gap, 1 << 20)
            self._write("indptr", np.full(k, self.nnz, dtype="<i8"))
            gap -= k
        self._next_doc = max(self._next_doc, upto)

    def commit(self, digest: str) -> "BowCache":
        """Finish: write offsets and meta.json, flush, and rename into place."""
        self._fill_offsets(self.n_docs)
        for f in (self._fi, self._fd, self._fp):
            f.flush()
            os.fsync(f.fileno())
            f.close()
        lengths = {"indptr": self.n_docs + 1, "indices": self.nnz, "data": self.nnz}
        meta = {
            "format": CACHE_FORMAT, "version": CACHE_VERSION, "token": uuid.uuid4().hex,
            "source": {**self._signature, _HASH: digest},
            "n_docs": self.n_docs, "n_words": self.n_words, "nnz": self.nnz,
            "arrays": {k: {"file": fn, "dtype": dt, "length": lengths[k], "crc32": self._crc[k]}
                       for k, (fn, dt) in _ARRAYS.items()},
            "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        meta["meta_crc32"] = _meta_crc(meta)
        _write_json_atomic(os.path.join(self.tmp, "meta.json"), meta)
        _fsync_dir(self.tmp)
        root = os.path.dirname(self.final)
        old = None
        if os.path.exists(self.final):
            old = os.path.join(root, f".old-{os.getpid()}-{uuid.uuid4().hex}")
            os.replace(self.final, old)
        os.replace(self.tmp, self.final)
        _fsync_dir(root)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        self.committed = True
        return BowCache(self.final, meta, verified=True)

    def abort(self) -> None:
        for f in (self._fi, self._fd, self._fp):
            try:
                f.close()
            except OSError:
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if not self.committed:
            self.abort()
        return False
