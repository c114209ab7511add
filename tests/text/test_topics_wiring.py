"""The default topic pipeline (issue 11): pruning after pass 1, tf-idf, the bounded
per-topic solve, progress only on a terminal, one table for every back-end."""
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.cli import main
from eigensparse.datasets import load_kos
from eigensparse.registry import DEFAULT_METHOD
from eigensparse.text import extract_topics
from eigensparse.text._bounded import TopicBudgetWarning


@pytest.fixture(scope="module")
def kos():
    return load_kos()


@pytest.fixture(scope="module")
def kos_default(kos):
    return extract_topics(kos.data, kos.feature_names, progress=False)


def _strict(text):
    return json.loads(text, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))


def test_defaults_give_five_distinct_five_word_topics(kos, kos_default):
    res = kos_default
    assert res.scaling == "tfidf" and res.center and res.method == DEFAULT_METHOD
    words = [w for t in res.topics for w in t.words]
    assert [t.cardinality for t in res.topics] == [5] * 5
    assert len(set(words)) == 25  # no word in two topics
    # pruning: every topic word is in >= 5 documents and in at most half of them
    df = np.diff((kos.data.tocsc() != 0).astype(np.int8).tocsc().indptr)
    ids = np.concatenate([t.word_ids for t in res.topics])
    assert df[ids].min() >= 5 and df[ids].max() <= 0.5 * kos.data.shape[0]
    assert res.pruning["kept"] == np.count_nonzero((df >= 5) & (df <= 0.5 * kos.data.shape[0]))
    assert all(t.info.get("timed_out") is False for t in res.topics)


def test_default_topics_gaps_and_one_certificate_search_per_topic_kept(kos_default):
    # every topic's gap <= 5% (issue 31); a chain topic the refinement replaces costs no
    # branch-and-bound search: the searches are exactly those of the topics kept
    res = kos_default
    assert all(t.result.relative_gap <= 0.05 for t in res.topics)
    searched = [t for t in res.topics if t.info.get("certificate_search")]
    assert res.info["certificate_searches"] == len(searched) <= len(res.topics)


def test_pruning_options_are_applied_and_validated(kos):
    stops = ["bush", "kerry", "dean", "iraq", "poll", "november"]
    res = extract_topics(kos.data, kos.feature_names, n_topics=3, cardinality=5, stop_words=stops,
                         max_features=2000, progress=False)
    words = {w for t in res.topics for w in t.words}
    assert not words & set(stops) and 1 <= res.pruning["removed"]["stop_words"] <= len(stops)
    assert res.pruning["kept"] == 2000
    for kwargs, match in [({"min_df": -1}, "min_df"), ({"max_df": 1.5}, "max_df"),
                          ({"min_df": 100, "max_df": 10}, "max_df"),
                          ({"stop_words": "french"}, "stop_words"),
                          ({"max_features": 0}, "max_features"),
                          ({"max_time": 0}, "max_time"),
                          ({"time_budget": 0}, "max_time"),  # the alias
                          ({"min_df": 0.4, "max_df": 0.45}, "cardinality|zero variance")]:
        with pytest.raises(InvalidParameterError, match=match):
            extract_topics(kos.data, kos.feature_names, progress=False, **kwargs)
    with pytest.raises(InvalidParameterError, match="stop_words"):
        extract_topics(kos.data, progress=False, stop_words="english")  # no vocabulary


def test_time_budget_is_honoured_with_a_warning(kos):
    with pytest.warns(TopicBudgetWarning, match="time budget"):
        # the variance rule grows the solve set (the partner rule solves the whole
        # working set at once: no growth to stop)
        res = extract_topics(kos.data, kos.feature_names, n_topics=2, cardinality=5,
                             max_time=1e-4, progress=False, working_set_rule="variance")
    assert [t.cardinality for t in res.topics] == [5, 5]  # the best answer so far
    assert all(t.info["timed_out"] for t in res.topics)
    assert any("time budget" in m for m in res.messages)
    # the first solve always completes, nothing after it: a single solve-set size
    assert all(len(r.info["solve_set_sizes"]) == 1 for r in res.results)


def test_bca_through_the_dispatcher_and_the_bounded_solve(kos):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TopicBudgetWarning)
        res = extract_topics(kos.data, kos.feature_names, n_topics=2, cardinality=4, method="bca",
                             progress=False)
    assert res.method == "bca" and [t.cardinality for t in res.topics] == [4, 4]
    assert not set(res.topics[0].words) & set(res.topics[1].words)


def test_no_progress_bar_in_non_terminal_stderr(tmp_path, run_cli):
    out = tmp_path / "t.json"
    status, _, err = run_cli(["topics", "--dataset", "kos", "-k", "2", "-s", "5", "--json", out])
    assert status == 0, err
    for bar in ("\r", "it/s", "nz/s", "█", "%|", "\x1b["):
        assert bar not in err
    # one line per phase instead
    assert "eigensparse: pass 1: word statistics" in err and "eigensparse: topic 2:" in err
    doc = _strict(out.read_text())
    assert doc["corpus"] == "kos" and doc["scaling"] == "tfidf" and doc["pruning"]["min_df"] == 5
    status, _, err = run_cli(["topics", "--dataset", "kos", "-k", "1", "-s", "3", "--no-progress"])
    assert status == 0 and err == ""


def _table(text):
    """The printed table: between the header line and the total line."""
    lines = text.splitlines()
    return "\n".join(lines[1:-1])


def test_same_table_streaming_in_memory_and_dask(kos, tmp_path, capsys):
    from importlib import resources

    data = resources.files("eigensparse.datasets").joinpath("data")
    # the 1,500 most frequent words: half the work of each run, the working set still grows
    args = ["-k", "3", "-s", "5", "--max-features", "1500", "--no-progress"]
    assert main(["topics", "--dataset", "kos", *args, "--json", str(tmp_path / "m.json")]) == 0
    bundled = capsys.readouterr().out  # the bundled files, streamed
    assert main(["topics", str(data.joinpath("docword.kos.txt.gz")), str(data.joinpath("vocab.kos.txt")),
                 *args, "--cache-dir", str(tmp_path / "c"), "--json", str(tmp_path / "s.json")]) == 0
    streamed = capsys.readouterr().out
    assert _table(bundled) == _table(streamed).replace("docword.kos.txt.gz", "kos")
    assert "+word / −word" in bundled and "Topics of kos (3,430 documents × 6,906 words)" in bundled
    # the matrix in memory: the same table
    mem = extract_topics(kos.data, kos.feature_names, n_topics=3, cardinality=5, progress=False,
                         max_features=1500, name="kos")
    assert mem.format_table() == _table(bundled) and mem.to_dict()["corpus"] == "kos"
    a, b = _strict((tmp_path / "m.json").read_text()), _strict((tmp_path / "s.json").read_text())
    assert [c["words"] for c in a["components"]] == [c["words"] for c in b["components"]]
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  protocol="tcp://", host="127.0.0.1",
                                  dashboard_address=":0") as cluster:
        # a fresh cache: the passes run on the workers (a cached run would make none)
        assert main(["topics", "--dataset", "kos", *args, "--scheduler", cluster.scheduler_address,
                     "--cache-dir", str(tmp_path / "dc"), "--json", str(tmp_path / "d.json")]) == 0
    dask_out = capsys.readouterr().out
    assert "scheduler=" in dask_out.splitlines()[0]
    # the same topics; on a Dask corpus the working set is ranked by variance (no sample
    # pass on the workers), so the bounds (which cover the words left out) may differ
    bound_rows = ("bound", "rel. gap", "certified", "total:")
    assert [ln for ln in _table(dask_out).splitlines() if not ln.startswith(bound_rows)] == \
        [ln for ln in _table(bundled).splitlines() if not ln.startswith(bound_rows)]
    d = _strict((tmp_path / "d.json").read_text())
    assert all(c["upper_bound"] >= c["solved_variance"] for c in d["components"])
    assert [c["words"] for c in d["components"]] == [c["words"] for c in a["components"]]
    assert d["passes"][0]["source"] == "dask" and d["corpus"] == "kos"


@pytest.mark.slow(seconds=25)  # three topics through array_api_strict
def test_device_is_an_operator_with_the_same_checks(kos, monkeypatch):
    """The device path is the same engine: the working-set covariance is an operator on
    the device (never the documents × words matrix), checked and grown as on the host."""
    xps = pytest.importorskip("array_api_strict")
    from eigensparse.operators import _xp

    shapes = []

    def fake_to_device(X, device, dtype=None):
        shapes.append(np.shape(X))
        return xps.asarray(np.asarray(X, dtype=np.float64))

    monkeypatch.setattr(_xp, "to_device", fake_to_device)
    kw = dict(n_topics=3, cardinality=5, method="greedy", working_set=400, progress=False)
    host = extract_topics(kos.data, kos.feature_names, **kw)
    dev = extract_topics(kos.data, kos.feature_names, device="fake", **kw)
    # one working-set covariance per size used, the same sizes as on the host
    assert shapes == [(m, m) for m in host.working_set_sizes] and shapes[0] == (400, 400)
    assert dev.working_set_sizes == host.working_set_sizes
    assert [t.words for t in dev.topics] == [t.words for t in host.topics]
    assert [t.working_set_safe for t in dev.topics] == [t.working_set_safe for t in host.topics]
    assert np.allclose(dev.variances, host.variances, rtol=1e-8)
    assert dev.format_table() == host.format_table() and dev.device == "fake"


@pytest.mark.slow(seconds=4)  # a new interpreter on a terminal
def test_progress_bars_on_a_terminal(tmp_path):
    """On a terminal: tqdm bars per pass and over the topics (solve-set size postfix)."""
    pty = pytest.importorskip("pty")
    import os

    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    # a terminal of 120 columns (a bare pty has none: tqdm would draw zero-width bars)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    try:
        p = subprocess.Popen([sys.executable, "-m", "eigensparse", "topics", "--dataset", "kos", "-k", "2",
                              "-s", "5", "--cache-dir", str(tmp_path)],
                             stdout=subprocess.DEVNULL, stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        assert p.wait(timeout=300) == 0
    finally:
        os.close(master)
    err = b"".join(chunks).decode("utf-8", "replace")
    assert "%|" in err and "\r" in err  # bars, redrawn in place
    assert "pass 1a: " in err and "document frequencies" in err  # (with the cache: built too)
    assert f"topics [{DEFAULT_METHOD}]" in err
    assert "solve set" in err  # the topic bar's postfix
