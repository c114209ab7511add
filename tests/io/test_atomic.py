"""eigensparse.io._atomic: a target holds the old file or the whole new one, never a
part; no temporary is left behind; a dead writer's temporaries are collected."""
import os
import subprocess
import sys

import pytest

from eigensparse.io._atomic import atomic_open, atomic_write_bytes, atomic_write_text, pid_is_dead


def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_write_replaces_the_whole_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.bin"
    atomic_write_bytes(target, b"old contents")
    atomic_write_text(target, "new ünïcode")
    assert target.read_bytes() == "new ünïcode".encode("utf-8")
    assert sorted(os.listdir(tmp_path)) == ["out.bin"]


def test_an_exception_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_open(target, "w", encoding="utf-8") as f:
            f.write("half of the new")
            seen = sorted(os.listdir(tmp_path))  # the temporary sits beside the target
            raise RuntimeError("boom")
    assert len(seen) == 2 and seen[0].startswith(f".tmp-{os.getpid()}-") and seen[0].endswith("-out.txt")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_stale_temporaries_of_dead_writers_only_are_removed(tmp_path):
    dead = _dead_pid()
    assert pid_is_dead(dead)
    assert not pid_is_dead(os.getpid()) and not pid_is_dead(0) and not pid_is_dead(-3)
    stale = tmp_path / f".tmp-{dead}-abc-out.txt"
    live = tmp_path / f".tmp-{os.getppid()}-abc-out.txt"  # a running process
    other = tmp_path / f".tmp-{dead}-abc-other.txt"  # another target's temporary
    for p in (stale, live, other):
        p.write_text("x")
    atomic_write_text(tmp_path / "out.txt", "done")
    assert not stale.exists() and live.exists() and other.exists()
    assert (tmp_path / "out.txt").read_text() == "done"
