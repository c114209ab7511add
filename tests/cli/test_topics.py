"""``eigensparse topics`` (``cli/_topics.py``): the table and JSON of the topics of a
corpus (bundled, or files), the automatic cardinality, --stability, and one-line errors
naming the option."""
import argparse
import json
import re
import sys

import numpy as np
import pytest

from eigensparse.cli import main
from eigensparse.cli._topics import _df_bound, _stop_words


def test_topics_on_bundled_kos(tmp_path, capsys):
    out = tmp_path / "t.json"
    for method, tol in (("tpower", 0), ("bca", 1)):  # bca: the paper's coarse penalty search
        assert main(["topics", "--dataset", "kos", "-k", "2", "-s", "5", "--method", method,
                     "--cardinality-tolerance", str(tol), "--json", str(out)]) == 0
        text = capsys.readouterr().out
        assert "kos: 3430 documents x 6906 words" in text
        doc = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))
        assert doc["schema"] == "eigensparse.result/1" and doc["corpus"] == "kos"
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
    assert main(["topics", str(dw), str(vb), "-k", "2", "-s", "3", "--method", "greedy",
                 "--no-cache", "--scaling", "count", "--min-df", "1", "--max-df", "1.0",
                 "--json", str(tmp_path / "t.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    # the printed table: the same components as sparse_pca on the matrix in memory (the
    # working set holds all 12 words), signed words by decreasing |loading|, the footer,
    # the legend, then the total
    from eigensparse import sparse_pca
    from eigensparse.io import read_uci_bow

    X, words = read_uci_bow(str(dw), str(vb))
    ref = sparse_pca(X, n_components=2, cardinality=3, method="greedy", deflation="disjoint")
    assert lines[0] == ("docword.t.txt: 40 documents x 12 words, method=greedy, "
                        "deflation=disjoint, center=True, scaling=count")
    assert lines[1] == "Topics of docword.t.txt (40 documents × 12 words) — scaling count, method greedy"
    assert lines[3].split() == ["topic", "1", "topic", "2"]
    assert set(lines[4].replace(" ", "")) == {"-"}
    cols = [[[("+" if c[i] > 0 else "−") + words[i], f"{abs(c[i]):.3f}"]
             for i in s[np.lexsort((s, -np.abs(c[s])))]] for c, s in zip(ref.components, ref.supports)]
    for row in range(3):
        assert lines[5 + row].split() == cols[0][row] + cols[1][row]
    foot = {re.split(r"\s{2,}", ln)[0]: re.split(r"\s{2,}", ln.strip())[1:] for ln in lines[9:lines.index("", 9)]}
    assert foot["words"] == ["3", "3"]
    assert np.allclose([float(v) for v in foot["variance"]], ref.variances, rtol=1e-3)
    assert np.allclose([float(v) for v in lines[11].split()[-2:]],
                       100 * ref.explained_variance_ratio, atol=0.006)
    assert "penalty" not in foot  # a cardinality method: no penalty row
    # the bound, its relative gap and certified: the JSON's, as every table prints them
    from eigensparse._summary import component_cells

    comps = [component_cells(c) for c in json.loads((tmp_path / "t.json").read_text())["components"]]
    # the deflated var. row is shown only where it differs from the variance row
    for key in ("deflated var.", "bound", "rel. gap", "certified")[("deflated var." not in foot):]:
        assert foot[key] == [c[key] for c in comps]
    assert any(ln.strip().startswith("+word / −word") for ln in lines)
    assert lines[-1].startswith(f"total: explained (adjusted) "
                                f"{100 * ref.explained_variance_ratio.sum():.2f}% of")


def test_topics_stability_row_and_json(tmp_path, capsys):
    """--stability B: a 'stability' row with one value per topic in the table, the same
    values in the (strict) JSON, reproducible for a --random-state whatever --n-jobs
    (the 1,500 most frequent words: a third of the refits' work, the working set still grows)."""
    out = tmp_path / "r.json"
    argv = ["topics", "--dataset", "kos", "-k", "3", "-s", "5", "--stability", "3",
            "--max-features", "1500", "--no-progress", "--json", str(out)]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    row = [ln.split() for ln in lines if ln.startswith("stability")]
    assert len(row) == 1 and len(row[0]) == 4
    values = [float(v) for v in row[0][1:]]
    assert all(0 <= v <= 1 for v in values)
    doc = json.loads(out.read_text())
    assert doc["stability"] == {"n_resamples": 3, "resampling": "bootstrap"}
    assert [round(c["stability"], 2) for c in doc["components"]] == values
    assert main(argv[:-2] + ["--n-jobs", "2"]) == 0
    again = [ln.split() for ln in capsys.readouterr().out.splitlines() if ln.startswith("stability")]
    assert again == row


@pytest.mark.parametrize("argv, match", [
    (["-s", "foo"], "positive integer or 'auto'"),
    (["-s", "auto", "--cardinality-fraction", "1.5"], "cardinality-fraction"),
    (["-s", "auto", "--cardinality-rule", "best"], "cardinality-rule"),
    (["--stability", "1"], "--stability"),
])
def test_auto_and_stability_bad_values_name_the_option(argv, match, run_cli):
    status, _, err = run_cli(["topics", "--dataset", "kos", *argv])
    assert status == 2 and match in err


def test_topics_auto_cardinality_prints_the_choice(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["topics", "--dataset", "20news", "-k", "1", "-s", "auto", "--no-progress",
                 "--cardinality-rule", "fraction", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    doc = json.loads(out.read_text())
    choice = doc["components"][0]["cardinality_choice"]
    s = doc["components"][0]["cardinality"]
    assert choice["cardinality"] == s and doc["cardinality_rule"] == "fraction"
    assert f"PC1: s={s} chosen: reaches" in text and choice["line"] in text
    lam = choice["dense_variance"]
    assert choice["variances"][s - 1] >= 0.9 * lam * (1 - 1e-9)
    assert choice["variances"][s - 2] < 0.9 * lam


def test_topics_auto_defaults_to_the_topics_rule(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["topics", "--dataset", "20news", "-k", "2", "-s", "auto", "--no-progress",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    doc = json.loads(out.read_text())
    assert doc["cardinality_rule"] == "topics"
    for comp in doc["components"]:
        choice = comp["cardinality_choice"]
        assert 5 <= comp["cardinality"] == choice["cardinality"] <= 30
        assert choice["rule"] == "topics" and choice["line"] in text


def test_document_frequency_bounds_read_as_scikit_learn_does():
    assert _df_bound("5") == 5 and isinstance(_df_bound("5"), int)  # a count of documents
    assert _df_bound("0.5") == 0.5 and _df_bound("1.0") == 1.0 and isinstance(_df_bound("1.0"), float)
    with pytest.raises(argparse.ArgumentTypeError, match="proportion in \\[0, 1\\].*'half'"):
        _df_bound("half")
    assert _stop_words("english") == "english"
    assert _stop_words("the,a,,of") == ["the", "a", "of"]


def test_pruning_options_reach_the_engine(tmp_path, capsys):
    """--min-df 3 removes the words of fewer than 3 documents: they are in no topic."""
    dw = tmp_path / "docword.df.txt"
    rng = np.random.default_rng(1)
    rows = []
    for d in range(1, 31):
        words = set(rng.choice(np.arange(1, 9), 4, replace=False).tolist())
        if d <= 2:
            words |= {9, 10}  # words 9 and 10: in two documents only
        rows += [f"{d} {w} {rng.integers(1, 4) + (5 if w > 8 else 0)}" for w in sorted(words)]
    dw.write_text(f"30\n10\n{len(rows)}\n" + "\n".join(rows) + "\n")
    vb = tmp_path / "vocab.df.txt"
    vb.write_text("\n".join(f"w{i}" for i in range(1, 11)) + "\n")
    out = tmp_path / "r.json"
    base = ["topics", str(dw), str(vb), "-k", "2", "-s", "3", "--method", "greedy", "--no-cache",
            "--scaling", "count", "--max-df", "1.0", "--no-progress", "--json", str(out)]
    assert main(base + ["--min-df", "1"]) == 0
    words = {w for c in json.loads(out.read_text())["components"] for w in c["words"]}
    assert {"w9", "w10"} & words  # the rare, large counts lead when kept
    assert main(base + ["--min-df", "3"]) == 0
    words = {w for c in json.loads(out.read_text())["components"] for w in c["words"]}
    assert not {"w9", "w10"} & words and len(words) == 6
    capsys.readouterr()


def test_topics_of_a_csv_column_and_missing_column(tmp_path, capsys):
    from eigensparse.cli import main
    from eigensparse.datasets.synthetic_text import write_text_corpus

    path = tmp_path / "docs.csv"
    write_text_corpus(path, 600, n_topics=2, topic_size=4, prevalence=0.1, random_state=2)
    argv = [str(path), "--text-column", "text", "--id-column", "id", "-k", "2", "-s", "4",
            "--show-docs", "1", "--cache-dir", str(tmp_path / "c"), "--no-progress"]
    assert main(["topics", *argv]) == 0
    out = capsys.readouterr().out
    assert "600 documents" in out and "topic 1 (" in out
    assert main(["topics", str(path), "--text-column", "body", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"eigensparse: error: {path}: no column 'body'; the columns are: 'id', 'text'."]


def test_the_topics_command_does_not_load_unused_scipy_modules():
    # the parser lists every registered method (all method modules imported); scipy's
    # optimize package (linear assignment of the bipartite method) loads only when used
    import os
    import subprocess
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "src"
    code = ("import sys; from eigensparse.cli import build_parser; build_parser(); "
            "import eigensparse.text; "
            "print(sorted(m for m in ('scipy.optimize', 'scipy.stats', 'scipy.fft') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(src)})
    assert out.stdout.strip() == "[]"
