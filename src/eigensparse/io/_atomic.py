"""Atomic file writes: a temporary file in the target directory, then os.replace.

Readers see either the old file or the whole new one, never a partial write; an
exception while writing leaves no temporary file behind.
"""
from __future__ import annotations

import contextlib
import os
import tempfile

__all__ = ["atomic_open", "atomic_write_bytes", "atomic_write_text"]


@contextlib.contextmanager
def atomic_open(path, mode: str = "wb", encoding: str | None = None):
    """Open a temporary file beside ``path``; on a clean exit it replaces ``path``."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix="-" + os.path.basename(path))
    try:
        with os.fdopen(fd, mode, encoding=encoding) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_open(path, "wb") as f:
        f.write(data)


def atomic_write_text(path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
