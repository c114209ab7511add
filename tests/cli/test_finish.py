"""How the program ends (``eigensparse.cli.finish``): without the interpreter's teardown,
but with its output flushed, its ``atexit`` functions run and its exit status; a
normal exit while another (non-daemon) thread still runs."""
import os
import subprocess
import sys

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")

PROGRAM = """
import atexit, sys, threading
atexit.register(lambda: print("atexit ran", flush=True))
done = threading.Event()
if sys.argv[1] == "thread":  # runs until main has returned
    threading.Thread(target=lambda: (done.wait(), print("thread done", flush=True))).start()
sys.stdout.write("buffered, not flushed\\n")
from eigensparse.cli import main
sys.argv = ["eigensparse", *sys.argv[2:]]
main()
print("after main", flush=True)
done.set()
"""


def _run(*args):
    env = {**os.environ, "PYTHONPATH": os.path.abspath(SRC)}
    return subprocess.run([sys.executable, "-c", PROGRAM, *args], capture_output=True,
                          text=True, env=env, timeout=120)


def test_the_program_ends_with_its_output_atexit_functions_and_status():
    out = _run("plain", "methods")
    assert out.returncode == 0
    assert out.stdout.startswith("buffered, not flushed\n")
    assert "auto" in out.stdout and out.stdout.rstrip().endswith("atexit ran")
    assert "after main" not in out.stdout  # ended in main, as sys.exit would
    bad = _run("plain", "fit", "no-such-file.csv", "-k", "1", "-s", "1")
    assert bad.returncode == 2 and "no-such-file.csv" in bad.stderr
    assert bad.stdout.rstrip().endswith("atexit ran")


def test_a_thread_still_running_gets_a_normal_exit():
    out = _run("thread", "methods")
    assert out.returncode == 0
    # main returned: the interpreter ends as usual (the thread joined, then atexit)
    assert out.stdout.rstrip().endswith("after main\nthread done\natexit ran")
