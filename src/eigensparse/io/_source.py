"""Decompressed bytes of a (possibly gzipped) file, produced by a background thread.

The gzip decoder is ISA-L's (``isal.isal_zlib``, several times faster than zlib's
inflate) when the ``isal`` package is installed, else the standard library's ``zlib``;
both decode the same streams (concatenated gzip members included) to the same bytes.
The raw bytes are checksummed on the way (CRC-32, the key that matches a cache to its
source; :func:`file_crc32` computes the same value for a file at rest).
"""
from __future__ import annotations

import os
import queue
import threading
import zlib

__all__ = ["TextSource", "decoder", "crc32", "file_crc32", "DECODERS"]

try:  # ISA-L: same API and results as zlib, faster inflate and CRC-32
    from isal import isal_zlib as _isal
except ImportError:  # pragma: no cover - isal is a dependency, zlib the fallback
    _isal = None

#: the decoders that may be used: name -> module with ``decompressobj``/``crc32``/``error``
DECODERS = {"zlib": zlib, **({"isal": _isal} if _isal is not None else {})}

_RAW_BLOCK = 1 << 20  # compressed bytes read at a time
_TEXT_PIECE = 1 << 23  # at most this many decompressed bytes handed over at a time
_QUEUE_DEPTH = 4


def decoder(name: str | None = None):
    """The module that inflates gzip (``"isal"`` when installed, else ``"zlib"``)."""
    if name is None:
        return _isal if _isal is not None else zlib
    try:
        return DECODERS[name]
    except KeyError:
        from .._validation import InvalidParameterError

        raise InvalidParameterError(f"parameter 'decoder' must be one of {sorted(DECODERS)}; "
                                    f"got {name!r}.") from None


def crc32(data, value: int = 0) -> int:
    """CRC-32 of ``data`` continuing ``value`` (zlib's polynomial; ISA-L's when installed)."""
    return (_isal or zlib).crc32(data, value)


def file_crc32(path, block: int = 1 << 24) -> str:
    """CRC-32 and size of a file's bytes as ``"crc32:<8 hex digits>"``.

    Examples
    --------
    >>> import os, tempfile, zlib
    >>> from eigensparse.io._source import file_crc32
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = os.path.join(tmp, "a.txt")
    ...     with open(p, "wb") as f:
    ...         _ = f.write(b"1 1 1\\n")
    ...     file_crc32(p) == f"crc32:{zlib.crc32(b'1 1 1' + bytes([10])):08x}"
    True
    """
    c = 0
    with open(path, "rb") as f:
        while True:
            b = f.read(block)
            if not b:
                return f"crc32:{c:08x}"
            c = crc32(b, c)


class _Checksum:
    def __init__(self):
        self.value = 0

    def update(self, data):
        self.value = crc32(data, self.value)

    def hexdigest(self) -> str:
        return f"crc32:{self.value:08x}"


class TextSource:
    """Iterate the decompressed bytes of ``path`` (pieces of at most 8 MB), decoded in a
    background thread (which releases the GIL while inflating) so that the consumer
    parses one piece while the next is decoded. ``checksum=True`` also computes
    :func:`file_crc32` of the raw bytes (:meth:`digest`). Problems are yielded as
    ``(kind, why)`` tuples (``"truncated"`` or ``"corrupt"``) and end the iteration."""

    _END = object()

    def __init__(self, path: str, *, checksum: bool = False, progress=None, decoder_name=None):
        self.path = path
        with open(path, "rb") as f:
            self.gz = f.read(2) == b"\x1f\x8b"
        self.zmod = decoder(decoder_name)
        self.hasher = _Checksum() if checksum else None
        self.progress = progress
        self.raw_size = os.path.getsize(path)
        self._q: queue.Queue = queue.Queue(maxsize=_QUEUE_DEPTH)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._produce, name="eigensparse-read", daemon=True)
        self._thread.start()

    # -- producer (background thread) ---------------------------------------
    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self):
        errors = tuple({zlib.error, getattr(self.zmod, "error", zlib.error)})
        try:
            with open(self.path, "rb") as f:
                if self.gz:
                    self._inflate(f)
                else:
                    self._plain(f)
        except errors as exc:
            self._put(("corrupt", f"corrupt gzip data ({exc})", 0))
        except OSError as exc:
            self._put(("corrupt", f"cannot read ({type(exc).__name__}: {exc})", 0))
        except BaseException as exc:  # pragma: no cover - unexpected
            self._put(("corrupt", f"{type(exc).__name__}: {exc}", 0))

    def _plain(self, f):
        while True:
            raw = f.read(_TEXT_PIECE)
            if not raw:
                break
            if self.hasher is not None:
                self.hasher.update(raw)
            if not self._put(("data", raw, len(raw))):
                return
        self._put(("end", None, 0))

    def _inflate(self, f):
        new = lambda: self.zmod.decompressobj(wbits=31)  # noqa: E731
        d = new()
        started = False
        while True:
            raw = f.read(_RAW_BLOCK)
            if not raw:
                break
            if self.hasher is not None:
                self.hasher.update(raw)
            nraw = len(raw)
            buf = raw
            while buf:
                if d is None:  # between gzip members (concatenated members are valid)
                    if buf[:2] == b"\x1f\x8b" or buf == b"\x1f":
                        d = new()
                    elif not buf.strip(b"\x00"):  # zero padding after the stream
                        break
                    else:
                        self._put(("corrupt", "trailing data after the end of the gzip stream", 0))
                        return
                out = d.decompress(buf, _TEXT_PIECE)
                started = True
                if (out or nraw) and not self._put(("data", out, nraw)):
                    return
                nraw = 0
                if d.eof:
                    buf = d.unused_data
                    d = None
                else:
                    buf = d.unconsumed_tail
            if nraw and not self._put(("data", b"", nraw)):
                return
        if d is not None:
            out = d.flush()
            if out and not self._put(("data", out, 0)):
                return
            if not d.eof:
                self._put(("truncated" if started else "corrupt",
                           None if started else "empty gzip stream", 0))
                return
        self._put(("end", None, 0))

    # -- consumer ---------------------------------------------------------------
    def __iter__(self):
        """Yield bytes pieces, then end; a problem is yielded as ``(kind, why)``."""
        try:
            while True:
                kind, payload, nraw = self._q.get()
                if nraw and self.progress is not None:
                    self.progress.update(nraw)
                if kind == "data":
                    if payload:
                        yield payload
                    continue
                if kind == "end":
                    return
                yield (kind, payload)
                return
        finally:
            self.close()

    def close(self):
        self._stop.set()
        # drain so that a blocked producer can exit
        try:
            while True:
                self._q.get_nowait()
        except queue.Empty:
            pass

    def digest(self) -> str | None:
        return None if self.hasher is None else self.hasher.hexdigest()
