"""eigensparse.io._atomic, the one atomic writer (JSON, plots, caches): a target holds the
old file or the whole new one, never a part; no temporary is left behind; a dead writer's
temporaries are collected; regular files only, links followed, umask honoured."""
import os
import stat
import subprocess
import sys

import pytest

from eigensparse._result import write_json
from eigensparse.io._atomic import (NotARegularFileError, atomic_open, atomic_write_bytes,
                                    atomic_write_text, pid_is_dead, resolve_output_path)


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


def _listing(d):
    return sorted(os.listdir(d))


def test_fifo_is_refused_and_left_in_place(tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    with pytest.raises(NotARegularFileError, match=r"out\.json.*FIFO"):
        write_json(fifo, {"a": 1})
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert _listing(tmp_path) == ["out.json"]  # no temporary left behind


def test_directory_is_refused(tmp_path):
    (tmp_path / "d.json").mkdir()
    with pytest.raises(OSError, match=r"d\.json: is a directory"):
        atomic_write_text(tmp_path / "d.json", "{}")
    assert (tmp_path / "d.json").is_dir()


def test_character_device_is_refused_before_anything_is_written():
    # /dev/null is a character device; the check must refuse it without touching it
    # (the writer stops at resolve_output_path, before creating any temporary file).
    st = os.stat("/dev/null")
    assert stat.S_ISCHR(st.st_mode)
    with pytest.raises(NotARegularFileError, match="character device"):
        resolve_output_path("/dev/null")


def test_link_to_a_device_is_refused(tmp_path):
    link = tmp_path / "null.json"
    os.symlink("/dev/null", link)
    with pytest.raises(NotARegularFileError, match=r"null\.json \(a link to /dev/null\).*character device"):
        write_json(link, {"a": 1})
    assert os.path.islink(link) and _listing(tmp_path) == ["null.json"]


def test_symlink_is_followed_and_stays_a_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "r.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    os.symlink(os.path.join("real", "r.json"), link)
    write_json(link, {"a": 1})
    assert os.path.islink(link)
    assert os.readlink(link) == os.path.join("real", "r.json")
    assert '"a": 1' in target.read_text()
    assert _listing(tmp_path) == ["link.json", "real"]
    assert _listing(tmp_path / "real") == ["r.json"]  # the temporary lived beside the target


def test_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.json"
    os.symlink("new.json", link)
    atomic_write_text(link, "{}")
    assert os.path.islink(link) and (tmp_path / "new.json").read_text() == "{}"


@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_new_file_gets_the_umask_permissions(tmp_path, umask, expected):
    old = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "o.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "o.json").st_mode) == expected


def test_existing_file_keeps_its_mode(tmp_path):
    p = tmp_path / "o.json"
    p.write_text("old")
    os.chmod(p, 0o640)
    old = os.umask(0o077)
    try:
        atomic_write_text(p, "new")
    finally:
        os.umask(old)
    assert p.read_text() == "new" and stat.S_IMODE(os.stat(p).st_mode) == 0o640


def test_plot_writer_refuses_a_fifo(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from eigensparse.plotting import save_figure

    fifo = tmp_path / "p.png"
    os.mkfifo(fifo)
    fig, _ = plt.subplots()
    with pytest.raises(NotARegularFileError, match="FIFO"):
        save_figure(fig, fifo)
    plt.close(fig)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and _listing(tmp_path) == ["p.png"]


def test_cli_refuses_a_fifo_json_before_any_work(tmp_path, capsys):
    from eigensparse.cli import main

    import numpy as np

    data = tmp_path / "x.csv"
    np.savetxt(data, np.random.default_rng(0).normal(size=(20, 4)), delimiter=",")
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    rc = main(["fit", str(data), "-s", "2", "--json", str(fifo)])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "out.json" in err[0] and "FIFO" in err[0]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
