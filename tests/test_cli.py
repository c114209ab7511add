"""The command line."""
import json
import subprocess
import sys

import numpy as np
import pytest

from eigensparse.cli import main


def test_topics_on_bundled_kos(tmp_path, capsys):
    out = tmp_path / "t.json"
    for method, tol in (("tpower", 0), ("bca", 1)):  # bca: the paper's coarse penalty search
        assert main(["topics", "--dataset", "kos", "-k", "2", "-s", "5", "--method", method,
                     "--cardinality-tolerance", str(tol), "--json", str(out)]) == 0
        text = capsys.readouterr().out
        assert "kos: 3430 documents x 6906 words" in text
        doc = json.loads(out.read_text())
        assert len(doc["components"]) == 2
        for c in doc["components"]:
            assert abs(c["cardinality"] - 5) <= tol
            assert c["cardinality"] == len(c["words"]) == len(c["loadings"])
            assert c["variance"] > 0
            assert c["words"][0] in text
    assert main(["topics", "--dataset", "kos", "-k", "2", "-s", "5", "--cardinality-tolerance", "0",
                 "--method", "bca", "--json", str(out)]) == 0
    assert [c["cardinality"] for c in json.loads(out.read_text())["components"]] == [5, 5]


def test_topics_from_files(tmp_path, capsys):
    dw = tmp_path / "docword.t.txt"
    rng = np.random.default_rng(0)
    lines = []
    for d in range(1, 41):
        for w in rng.choice(12, 4, replace=False) + 1:
            lines.append(f"{d} {w} {rng.integers(1, 4)}")
    dw.write_text(f"40\n12\n{len(lines)}\n" + "\n".join(lines) + "\n")
    vb = tmp_path / "vocab.t.txt"
    vb.write_text("\n".join(f"word{i}" for i in range(12)) + "\n")
    assert main(["topics", str(dw), str(vb), "-k", "2", "-s", "3", "--method", "greedy"]) == 0
    assert "word" in capsys.readouterr().out


@pytest.mark.parametrize("argv, match", [
    (["topics"], "needs DOCWORD and VOCAB"),
    (["topics", "--dataset", "kos", "-s", "99999"], "cardinality"),
    (["topics", "--dataset", "kos", "--method", "nope"], "method"),
    (["topics", "/nonexistent/docword.txt", "/nonexistent/vocab.txt"], "does not exist"),
])
def test_cli_errors_are_one_line(argv, match, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("eigensparse: error:") and "\n" not in err
    assert __import__("re").search(match, err)


def test_help_on_every_command():
    for argv in (["--help"], ["topics", "--help"], ["methods", "--help"]):
        r = subprocess.run([sys.executable, "-m", "eigensparse", *argv], capture_output=True, text=True)
        assert r.returncode == 0 and "usage:" in r.stdout


def test_bad_option_value_exits_nonzero():
    r = subprocess.run([sys.executable, "-m", "eigensparse", "topics", "--dataset", "kos", "-k", "0"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "positive integer" in r.stderr


def test_methods_lists(capsys):
    assert main(["methods"]) == 0
    assert "greedy" in capsys.readouterr().out
