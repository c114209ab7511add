"""Ctrl-C at any moment of the command line, its imports included, prints one line and
exits 130 with no output file left (issue #33); ``import eigensparse`` is light."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

SRC = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "src")

# SIGINT sent by the process to itself when the named module is first imported: the
# KeyboardInterrupt then rises inside the import machinery, deterministically
CHILD = """
import os, runpy, signal, sys

signal.signal(signal.SIGINT, signal.default_int_handler)  # as on a terminal, even if the
# test runner ignores SIGINT (a background job)
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["eigensparse", "fit", {data!r}, "-k", "1", "-s", "2", "--json", {out!r}]
runpy.run_module("eigensparse", run_name="__main__", alter_sys=True)
"""


def _terminal_sigint():
    """SIGINT as on a terminal in the child, even if the test runner ignores it (a
    background job without job control), as an ignored signal stays ignored across exec."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _env():
    return dict(os.environ, PYTHONPATH=os.path.abspath(SRC))


def test_ctrl_c_during_imports_is_one_line_and_130(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("a,b,c\n1,2,3\n4,5,7\n2,2,1\n")
    modules = ["eigensparse.cli", "eigensparse.cli._fit", "numba"]
    procs = []
    for m in modules:
        out = tmp_path / f"{m}.json"
        code = textwrap.dedent(CHILD.format(module=m, data=str(data), out=str(out)))
        procs.append((m, out, subprocess.Popen([sys.executable, "-c", code], env=_env(),
                                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                               text=True)))
    for m, out, p in procs:
        _, err = p.communicate(timeout=120)
        assert (p.returncode, err) == (130, "eigensparse: interrupted\n"), m
        assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["d.csv"]  # no temporary file either


def test_ctrl_c_from_outside_soon_after_start(tmp_path):
    import numpy as np

    data = tmp_path / "d.csv"  # work that lasts: 400 bootstrap refits
    np.savetxt(data, np.random.default_rng(0).standard_normal((300, 30)), delimiter=",")
    p = subprocess.Popen([sys.executable, "-m", "eigensparse", "fit", str(data), "-k", "3",
                          "-s", "auto", "--stability", "400", "--json", str(tmp_path / "o.json")],
                         env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=_terminal_sigint)
    try:
        p.wait(timeout=1.5)  # the interpreter's own start-up is over by then
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    if p.returncode != 0:  # finished before the signal on a fast machine: nothing to check
        assert p.returncode == 130 and err.endswith("eigensparse: interrupted\n"), err
        assert "Traceback" not in err, err  # (a warning line may come first)
        assert sorted(os.listdir(tmp_path)) == ["d.csv"]


def test_import_eigensparse_is_light():
    code = ("import sys; import eigensparse as es; heavy = [m for m in ('numpy', 'scipy', "
            "'sklearn', 'eigensparse._api') if m in sys.modules]; print(heavy); "
            "print(sorted(set(es.__all__) - set(dir(es)))); "
            "from eigensparse import *; print(SparsePCA.__name__, sparse_pca.__name__)")
    out = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True,
                         text=True, check=True).stdout.split("\n")
    assert out[:3] == ["[]", "[]", "SparsePCA sparse_pca"]


def test_unknown_attribute():
    import eigensparse

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        eigensparse.nope
