"""The topics table: signed words, title, legend."""
import re

import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.text._format import LEGEND, format_topics, signed_words

# the pipeline before pruning and tf-idf became the defaults (counts, every word)
OLD_DEFAULTS = {"scaling": "count", "min_df": 1, "max_df": 1.0}
NO_PRUNING = {"min_df": 1, "max_df": 1.0}

TOPICS = [
    {"words": ["kerry", "bush", "poll"], "loadings": [-0.5, 0.8, 0.33], "variance": 12.5,
     "explained_variance_ratio": 0.0123, "penalty": 0.7},
    {"words": ["iraq", "war"], "loadings": [0.6, 0.8], "variance": 3.25,
     "explained_variance_ratio": 0.004, "penalty": None},
]


def test_signed_words_sorted_by_magnitude():
    assert signed_words(["a", "b", "c"], [0.1, -0.9, 0.5]) == ["−b", "+c", "+a"]
    assert signed_words(["a", "b"], [0.1, -0.9], minus="-", max_words=1) == ["-b"]
    with pytest.raises(InvalidParameterError, match="loadings"):
        signed_words(["a"], [1.0, 2.0])


def test_table_has_signs_title_footer_and_legend():
    txt = format_topics(TOPICS, corpus="kos", n_docs=3430, n_words=6906, scaling="log")
    lines = txt.splitlines()
    assert lines[0].startswith("Topics of kos (3,430 documents × 6,906 words)")
    assert "scaling log" in lines[0]
    row1 = lines[2].split()
    assert row1 == ["topic", "1", "topic", "2"]
    assert lines[4].split() == ["+bush", "0.800", "+war", "0.800"]
    assert lines[5].split() == ["−kerry", "0.500", "+iraq", "0.600"]
    assert lines[6].split() == ["+poll", "0.330"]
    foot = {ln.split("  ")[0].strip(): ln for ln in lines if ln[:1].isalpha() and not ln.startswith("Topics")}
    assert foot["words"].split()[1:] == ["3", "2"]
    assert foot["variance"].split()[1:] == ["12.5", "3.25"]
    assert foot["explained %"].split()[2:] == ["1.23", "0.40"]
    assert foot["penalty"].split()[1:] == ["0.7", "-"]
    # no bound given: the bound, its relative gap and certified say "-" (unknown)
    assert foot["bound"].split()[1:] == foot["certified"].split()[1:] == ["-", "-"]
    legend = txt.split("\n\n")[-1].splitlines()
    for key, _ in LEGEND:  # the deflated var. row only where some topic has one
        assert any(ln.startswith("  " + key) for ln in legend) == (key != "deflated var.")
    assert max(len(ln) for ln in legend) <= 100
    assert "Zou" in txt and "unadjusted" in txt


def test_ascii_and_no_legend_and_objects():
    class T:
        def __init__(self, d):
            self.__dict__.update(d)

    txt = format_topics([T(d) for d in TOPICS], ascii=True, legend=False, max_words=2)
    txt.encode("ascii")
    assert "-kerry" in txt and "poll" not in txt.split("words")[0].split("topic 2")[1]
    assert "Zou" not in txt
    assert format_topics([], corpus="x").endswith("(no topics)")


def test_topics_table_shows_bound_gap_and_certified():
    topics = [dict(TOPICS[0], upper_bound=13.0, relative_gap=0.5 / 13.0, certified=False),
              dict(TOPICS[1], upper_bound=3.25, relative_gap=0.0, certified=True)]
    txt = format_topics(topics, legend=True)
    rows = {re.split(r"\s{2,}", ln)[0]: re.split(r"\s{2,}", ln.strip())[1:]
            for ln in txt.splitlines() if re.match(r"[a-z]", ln)}
    assert rows["bound"] == ["13", "3.25"]
    assert rows["rel. gap"] == ["3.85%", "0%"]
    assert rows["certified"] == ["no (gap 3.85%)", "yes"]
    assert any(ln.strip().startswith("certified") and "proven" in ln for ln in txt.splitlines())


def test_missing_fields_raise():
    with pytest.raises(InvalidParameterError, match="topic 1"):
        format_topics([{"words": ["a"]}])


def test_topic_objects_from_the_pipeline():
    from eigensparse.datasets import load_kos
    from eigensparse.text import extract_topics

    b = load_kos()
    r = extract_topics(b.data, b.feature_names, n_topics=2, cardinality=3, method="tpower",
                       deflation="disjoint", cache=False, progress=False, **OLD_DEFAULTS)
    txt = format_topics(r.topics, corpus=r.name, n_docs=r.n_docs, n_words=r.n_words)
    for t in r.topics:
        lead = t.words[int(np.argmax(np.abs(t.loadings)))]
        assert f"+{lead}" in txt
    # the Topic views and the component entries give the same table
    from eigensparse.text._result import topics_table

    assert txt == topics_table(r, corpus=r.name, n_docs=r.n_docs, n_words=r.n_words).replace(
        " — method tpower", "")
