"""Atomic file writes: a temporary file in the target directory, then os.replace.

Readers see either the old file or the whole new one, never a partial write; an
exception while writing leaves no temporary file behind. Temporary names carry the
writer's PID (``.tmp-<pid>-…-<name>``); one left by a killed process (``kill -9``) is
removed by the next write of the same target.
"""
from __future__ import annotations

import contextlib
import os
import tempfile

__all__ = ["atomic_open", "atomic_write_bytes", "atomic_write_text", "pid_is_dead"]


def pid_is_dead(pid: int) -> bool:
    """True when no process ``pid`` exists on this machine (its temporaries are stale)."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):  # exists (another user's) or cannot tell
        return False
    return False


def _remove_dead_temps(d: str, base: str) -> None:
    """Remove ``.tmp-<pid>-…-<base>`` files beside a target whose writer is gone."""
    suffix = "-" + base
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        if n.startswith(".tmp-") and n.endswith(suffix):
            pid = n.split("-")[1]
            if pid.isdigit() and pid_is_dead(int(pid)):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(d, n))


@contextlib.contextmanager
def atomic_open(path, mode: str = "wb", encoding: str | None = None):
    """Open a temporary file beside ``path``; on a clean exit it replaces ``path``."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    _remove_dead_temps(d, os.path.basename(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=f".tmp-{os.getpid()}-", suffix="-" + os.path.basename(path))
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
