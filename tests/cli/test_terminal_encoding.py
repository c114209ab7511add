"""Every path, file name and word prints on any terminal encoding (issue #33): a file name
that is not valid UTF-8 on a strict UTF-8 terminal, words outside an ASCII terminal's
alphabet, a file name with a line break in an error: the table and the JSON are written,
the error is one line naming the file whole."""
import json
import os
import subprocess
import sys

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "src"))
DATA = "a,café,c\n1,2,3\n4,5,7\n2,2,1\n3,1,4\n"


def _run(args, encoding, cwd):
    env = dict(os.environ, PYTHONPATH=SRC, PYTHONIOENCODING=encoding)
    return subprocess.run([sys.executable, "-m", "eigensparse", *args], env=env, cwd=cwd,
                          capture_output=True)


def test_undecodable_file_name_on_a_strict_utf8_terminal(tmp_path):
    name = os.fsencode(tmp_path) + b"/d\xff.csv"
    with open(name, "w", encoding="utf-8") as f:
        f.write(DATA)
    p = _run(["fit", name, "-k", "1", "-s", "2", "--json", "out.json", "-v"], "utf-8:strict", tmp_path)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode("utf-8")
    assert out.startswith("d\\udcff: 4 samples x 3 features") and "+café" in out
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["data"] == "d\udcff.csv" and doc["components"][0]["cardinality"] == 2


def test_words_on_an_ascii_terminal(tmp_path):
    (tmp_path / "d.csv").write_text(DATA, encoding="utf-8")
    p = _run(["fit", "d.csv", "-k", "1", "-s", "3", "--json", "o.json"], "ascii:strict", tmp_path)
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode("ascii")
    assert "caf\\xe9" in out and "\\u" not in out.split("\n\n")[0].split("\n", 1)[0]
    assert json.loads((tmp_path / "o.json").read_text(encoding="utf-8"))["components"][0]["features"]


def test_a_line_break_in_a_file_name_stays_on_the_error_line(tmp_path):
    p = _run(["fit", "no\nsuch.csv", "-k", "1"], "utf-8", tmp_path)
    err = p.stderr.decode()
    assert p.returncode == 2 and err.count("\n") == 1
    assert err.startswith("eigensparse: error: no\\nsuch.csv: line 1: no such file")


def test_usage_errors_are_one_line_too(tmp_path):
    p = _run(["fit", "a.csv", "--no-such\nflag"], "utf-8", tmp_path)
    err = p.stderr.decode()
    assert p.returncode == 2 and err.count("\n") == 1 and "--no-such\\nflag" in err
