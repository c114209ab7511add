import os

os.environ.setdefault("OMP_NUM_THREADS", "2")


import pytest


@pytest.fixture(scope="module")
def kos():
    """The KOS bag-of-words matrix (3430 documents × 6906 words, scipy.sparse CSR).

    Shared by the operator, Dask and front-door tests; ``tests/text`` overrides it with
    the whole dataset (matrix and vocabulary)."""
    from eigensparse.datasets import load_kos

    return load_kos().data


@pytest.fixture(autouse=True)
def _private_cache_dir(tmp_path_factory, monkeypatch):
    """Never write the user's ~/.cache from tests (nor read data sets fetched there)."""
    monkeypatch.setenv("EIGENSPARSE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("EIGENSPARSE_DATA", str(tmp_path_factory.mktemp("data")))


@pytest.fixture
def run_cli(capsys, monkeypatch):
    """``run_cli(argv, cwd=None, warnings_as_errors=False)`` -> ``(exit status, stdout,
    stderr)``: the command line's ``main`` run in this process, as ``python -m eigensparse
    ARGV`` would run it (a usage error's ``SystemExit`` gives its status; an uncaught
    exception fails the test, as a traceback would). ``warnings_as_errors`` is ``python -W
    error``. ``tests/cli/test_cli.py`` keeps real subprocesses for the entry point itself."""
    import warnings

    from eigensparse.cli import main

    def run(argv, cwd=None, warnings_as_errors=False):
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        with warnings.catch_warnings():
            if warnings_as_errors:
                warnings.simplefilter("error")
            try:
                status = main([str(a) for a in argv])
            except SystemExit as exc:
                status = exc.code
        out, err = capsys.readouterr()
        return status, out, err

    return run
