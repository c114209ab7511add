"""Repository-wide pytest set-up.

Docstring examples (``--doctest-modules`` over ``src/eigensparse``, see ``pyproject.toml``):

- A module that imports an optional dependency (Dask, matplotlib, CuPy, ...) at top level is
  not collected when that dependency is missing, and an example that imports one is
  skipped, so a minimal installation still runs.
- ``__main__`` modules are never imported.
- Docstring examples never touch the user's caches or data folder.

Test time (``docs/developer/contributing.rst``, "Test time"):

- Tests marked ``slow`` run last, while the time budget lasts: a slow test starts only if
  the seconds since the session started, plus its expected seconds
  (``@pytest.mark.slow(seconds=20)``, 0 when not given), fit in ``EIGENSPARSE_TEST_BUDGET``
  (default 180). ``EIGENSPARSE_SLOW=1`` runs every slow test, ``EIGENSPARSE_SLOW=0`` none.
  A slow test not run is reported as skipped with its reason, and the terminal summary
  lists every one.
- ``tests/numba_warmup.py`` compiles the numba kernels into their cache: in a separate
  process while the session collects and runs its first tests; with pytest-xdist, in the
  workers before their first test, each step by one worker while the others take the next
  steps (a file lock per step), so that no kernel is compiled twice
  (``EIGENSPARSE_NUMBA_WARMUP=0`` turns it off).
"""
import importlib.util
import os
import re
import time
from pathlib import Path

import pytest

_SRC = Path(__file__).resolve().parent / "src"
_TOP_IMPORT = re.compile(r"^(?:import|from)\s+([A-Za-z_]\w*)", re.M)


def _missing_top_level_import(path: Path) -> bool:
    for name in set(_TOP_IMPORT.findall(path.read_text(encoding="utf-8", errors="replace"))):
        if name in ("eigensparse", "__future__"):
            continue
        if importlib.util.find_spec(name) is None:
            return True
    return False


def pytest_ignore_collect(collection_path, config):
    path = Path(collection_path)
    if path.suffix != ".py" or _SRC not in path.parents:
        return None
    if path.name == "__main__.py" or _missing_top_level_import(path):
        return True
    return None


#: expected seconds of the longest test files (clean clone, idle 2-core machine, both
#: workers busy): they run first, longest first, so that with pytest-xdist no worker is
#: left with a long file at the end while the other is idle (a file not listed is short)
LONG_FILES = {
    "tests/text/test_topics_wiring.py": 45, "tests/test_standalone.py": 35,
    "tests/cli/test_topics.py": 32, "tests/text/test_pipeline.py": 20,
    "tests/test_registry.py": 18, "tests/test_selection.py": 17,
    "tests/solvers/test_against_exhaustive.py": 14, "tests/solvers/_exact/test_exact_dask.py": 11,
    "tests/test_method_input_matrix.py": 11, "tests/operators/test_dask.py": 10,
    "tests/multi/test_bipartite.py": 8, "tests/text/test_documents.py": 8,
    "tests/text/test_text_pruned_topics.py": 8, "tests/text/test_screen.py": 7,
    "tests/test_result.py": 7, "tests/solvers/test_exact.py": 7,
}


def _file_of(nodeid):
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config, items):
    """Skip a docstring example that imports an optional dependency which is missing
    (e.g. ``import dask.array as da`` without the ``dask`` extra); run the long files
    first (``LONG_FILES``, each file's tests together) and the slow tests last (in their
    collected order)."""
    normal = [i for i in items if i.get_closest_marker("slow") is None]
    normal.sort(key=lambda i: -LONG_FILES.get(_file_of(i.nodeid), 0))  # stable: files stay whole
    items[:] = normal + [i for i in items if i.get_closest_marker("slow") is not None]
    for item in items:
        test = getattr(item, "dtest", None)
        if test is None:
            continue
        source = "\n".join(example.source for example in test.examples)
        missing = sorted(name for name in set(_TOP_IMPORT.findall(source))
                         if name not in ("eigensparse", "__future__")
                         and importlib.util.find_spec(name) is None)
        if missing:
            item.add_marker(pytest.mark.skip(reason=f"example needs {', '.join(missing)}"))


@pytest.fixture(autouse=True)
def _doctest_private_folders(request, tmp_path_factory, monkeypatch):
    if type(request.node).__name__ == "DoctestItem":
        monkeypatch.setenv("EIGENSPARSE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        monkeypatch.setenv("EIGENSPARSE_DATA", str(tmp_path_factory.mktemp("data")))


# ------------------------------------------------------------------ test time
class _SlowTests:
    """The budget for the tests marked ``slow`` (see the module docstring)."""

    def __init__(self):
        slow = os.environ.get("EIGENSPARSE_SLOW", "")
        if slow not in ("", "0", "1"):
            raise pytest.UsageError(
                f"EIGENSPARSE_SLOW must be 1 (run every slow test), 0 (run none) or unset "
                f"(run them while EIGENSPARSE_TEST_BUDGET lasts); got {slow!r}.")
        raw = os.environ.get("EIGENSPARSE_TEST_BUDGET", "180")
        try:
            budget = float(raw)
        except ValueError:
            budget = -1.0
        if not budget >= 0:
            raise pytest.UsageError(f"EIGENSPARSE_TEST_BUDGET must be a number of seconds "
                                    f">= 0; got {raw!r}.")
        self.mode, self.budget = slow, budget
        self.start = time.monotonic()
        self.ran = {}  # nodeid -> seconds of its call
        self.not_run = {}  # nodeid -> reason

    def reason_to_skip(self, item):
        marker = item.get_closest_marker("slow")
        if marker is None or self.mode == "1":
            return None
        if self.mode == "0":
            return "slow test not run: EIGENSPARSE_SLOW=0"
        expected = float(marker.kwargs.get("seconds", 0))
        elapsed = time.monotonic() - self.start
        if elapsed + expected <= self.budget:
            return None
        return (f"slow test deferred: {elapsed:.0f} s since the session started + {expected:.0f} s "
                f"expected > EIGENSPARSE_TEST_BUDGET={self.budget:g} s (EIGENSPARSE_SLOW=1 runs it)")


_SLOW = []


_WARMUP = []


def pytest_configure(config):
    _SLOW[:] = [_SlowTests()]
    warmup = os.environ.get("EIGENSPARSE_NUMBA_WARMUP", "1")
    if warmup not in ("0", "1"):
        raise pytest.UsageError(f"EIGENSPARSE_NUMBA_WARMUP must be 1 (compile the numba kernels "
                                f"in a separate process, the default) or 0; got {warmup!r}.")
    # with pytest-xdist (``-n``) the workers compile on both cores themselves: no warm-up
    parallel = hasattr(config, "workerinput") or bool(getattr(config.option, "numprocesses", 0))
    if warmup == "1" and not config.option.collectonly and not parallel:
        _WARMUP[:] = [_start_numba_warmup()]


#: a worker's session of at least this many tests shares the warm-up (not a few files)
_SHARED_WARMUP_MIN_TESTS = 500


def pytest_collection_finish(session):
    """With pytest-xdist: the warm-up's steps, shared by the workers (see the docstring)."""
    config = session.config
    if (not hasattr(config, "workerinput") or len(session.items) < _SHARED_WARMUP_MIN_TESTS
            or os.environ.get("EIGENSPARSE_NUMBA_WARMUP", "1") != "1"):
        return
    try:
        import fcntl
    except ImportError:  # no POSIX file locks: each worker compiles what it needs
        return
    folder = config._tmp_path_factory.getbasetemp().parent / "numba-warmup"
    folder.mkdir(exist_ok=True)
    spec = importlib.util.spec_from_file_location(
        "numba_warmup", Path(__file__).resolve().parent / "tests" / "numba_warmup.py")
    warmup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(warmup)
    waiting = []
    with warmup.private_folders(folder / config.workerinput["workerid"]):
        for i, step in enumerate(warmup.steps()):
            lock = open(folder / f"step{i}.lock", "a")
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # another worker compiles it
                waiting.append(lock)
                continue
            done = folder / f"step{i}.done"
            if not done.exists() and getattr(step, "after_first", False):
                with open(folder / "step0.lock", "a") as first:  # its kernels cached first
                    fcntl.flock(first, fcntl.LOCK_EX)
            if not done.exists():
                warmup.run(step)
                done.touch()
            lock.close()
    for lock in waiting:  # its kernels are in the cache once the other worker is done
        fcntl.flock(lock, fcntl.LOCK_EX)
        lock.close()


try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # no pytest-xdist: one process
    LoadScopeScheduling = object


class FileRunScheduling(LoadScopeScheduling):
    """pytest-xdist's ``-n``: the tests in the collected order (``pytest_collection_modifyitems``:
    long files first, slow tests last), each run of consecutive tests of one file a unit of
    work that the first free worker takes whole (a file's module fixtures built once); a
    test apart from its file's run (a slow test moved to the end) is a unit alone."""

    _units = None

    def _split_scope(self, nodeid):
        if self._units is None:
            self._units, seen, previous = {}, set(), None
            for n in self.collection:
                file = _file_of(n)
                if file != previous and file in seen:
                    self._units[n] = n
                    continue
                seen.add(file)
                previous = file
                self._units[n] = file
        return self._units[nodeid]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``-n`` without ``--dist`` (or with ``--dist load``): :class:`FileRunScheduling`."""
    if config.getvalue("dist") != "load" or LoadScopeScheduling is object:
        return None
    config.option.loadscopereorder = False  # the collected order is the order of the units
    return FileRunScheduling(config, log)


def _start_numba_warmup():
    """The warm-up process (``tests/numba_warmup.py``), run on the package the tests import."""
    import subprocess
    import sys

    spec = importlib.util.find_spec("eigensparse")
    script = Path(__file__).resolve().parent / "tests" / "numba_warmup.py"
    if spec is None or spec.origin is None or not script.is_file():
        return None
    package_root = str(Path(spec.origin).resolve().parents[1])
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    return subprocess.Popen([sys.executable, str(script)], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pytest_unconfigure(config):
    for proc in _WARMUP:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            proc.wait()
    _WARMUP.clear()


def pytest_sessionstart(session):
    _SLOW[0].start = time.monotonic()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    reason = _SLOW[0].reason_to_skip(item)
    if reason is not None:
        _SLOW[0].not_run[item.nodeid] = reason
        pytest.skip(reason)


def pytest_runtest_logreport(report):
    if report.when == "call" and "slow" in report.keywords:
        _SLOW[0].ran[report.nodeid] = report.duration


def pytest_terminal_summary(terminalreporter):
    slow = _SLOW[0]
    if not (slow.ran or slow.not_run):
        return
    tr = terminalreporter
    tr.write_sep("-", "slow tests")
    tr.write_line(f"{len(slow.ran)} slow tests ran ({sum(slow.ran.values()):.0f} s), "
                  f"{len(slow.not_run)} not run; budget {slow.budget:g} s from the session start "
                  f"(EIGENSPARSE_TEST_BUDGET), EIGENSPARSE_SLOW={slow.mode or 'unset'}")
    for nodeid, reason in slow.not_run.items():
        tr.write_line(f"NOT RUN {nodeid}: {reason}", yellow=True)
