"""Atomic file writes: a temporary file in the target directory, then os.replace.

Readers see either the old file or the whole new one, never a partial write; an
exception while writing leaves no temporary file behind. Temporary names carry the
writer's PID (``.tmp-<pid>-…-<name>``); one left by a killed process (``kill -9``) is
removed by the next write of the same target.

What is at the path decides what happens:

* nothing, or a regular file: the new file replaces it. A new file gets the
  permissions ``0o666`` less the process umask (as ``open(path, "w")`` would); an
  existing file keeps its mode.
* a symbolic link (any chain of them, even one whose target does not exist yet):
  it is followed deliberately; the resolved target is written atomically (the
  temporary file lives in the target's directory) and the link stays a link.
* anything else (a directory, a character or block device such as ``/dev/null``, a
  FIFO, a socket): refused with one line naming the path, before anything is
  written — the writer never replaces such a node by a regular file.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import stat

__all__ = ["atomic_open", "atomic_write_bytes", "atomic_write_text", "pid_is_dead",
           "resolve_output_path", "NotARegularFileError"]


class NotARegularFileError(OSError):
    """The output path names something other than a regular file (or a link to one)."""


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


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"))


def resolve_output_path(path) -> tuple[str, os.stat_result | None]:
    """The file an atomic write of ``path`` replaces, and its current ``stat`` (None if absent).

    Symbolic links are resolved (the write goes to their target). Raises
    :class:`NotARegularFileError` (an ``OSError``) with one line naming ``path`` when it is
    a directory, a device, a FIFO or a socket, or a link to one.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     target = os.path.join(d, "real.json")
    ...     os.symlink("real.json", os.path.join(d, "link.json"))
    ...     resolve_output_path(os.path.join(d, "link.json"))[0] == os.path.realpath(target)
    True
    >>> try:
    ...     resolve_output_path("/dev/null")
    ... except OSError as exc:
    ...     print(exc)
    /dev/null: is a character device, not a regular file; give a file name
    """
    path = os.fspath(path)
    real = os.path.realpath(path)  # follows every link in the chain, dangling or not
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real, None
    except NotADirectoryError:  # a parent on the way is a file
        raise NotARegularFileError(
            f"{path}: a parent of it is not a directory; give a file name in a directory") from None
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
        via = f" (a link to {real})" if real != os.path.abspath(path) else ""
        raise NotARegularFileError(
            f"{path}{via}: is {kind}, not a regular file; give a file name")
    return real, st


def _create_temp(d: str, base: str, mode: int) -> tuple[int, str]:
    """Create a new temporary file in ``d``; ``mode`` is filtered by the umask (by the kernel)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(d, f".tmp-{os.getpid()}-{secrets.token_hex(4)}-{base}")
        try:
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{d}: could not create a temporary file for {base}")


@contextlib.contextmanager
def atomic_open(path, mode: str = "wb", encoding: str | None = None):
    """Open a temporary file beside the (link-resolved) target; a clean exit replaces it.

    See the module docstring for what happens to links, devices, FIFOs and permissions.
    """
    real, st = resolve_output_path(path)
    d, base = os.path.dirname(real), os.path.basename(real)
    _remove_dead_temps(d, base)
    fd, tmp = _create_temp(d, base, 0o666)  # umask applies, as for open(path, "w")
    try:
        if st is not None:  # an existing file keeps its permissions
            with contextlib.suppress(OSError):
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
        with os.fdopen(fd, mode, encoding=encoding) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, real)
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
