"""Topics of raw documents: the same topics as through CountVectorizer's matrix, English
stop words by default on raw text, representative documents that carry the topic."""
from __future__ import annotations

import os

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from eigensparse.datasets import topic_precision
from eigensparse.datasets.synthetic_text import make_text_documents, write_text_corpus
from eigensparse.io.cache import CacheWarning
from eigensparse.io.documents import TextCorpus
from eigensparse.text import extract_topics
from eigensparse.text._documents import resolve_stop_words

OPTS = dict(n_topics=3, cardinality=4, progress=False, random_state=0)


@pytest.fixture(scope="module")
def planted():
    return make_text_documents(1500, n_topics=3, topic_size=4, prevalence=0.08, random_state=3)


def test_same_topics_as_count_vectorizer_matrix(planted):
    docs, topics = planted
    res = extract_topics(docs, **OPTS)
    cv = CountVectorizer()
    ref = extract_topics(cv.fit_transform(docs), list(cv.get_feature_names_out()),
                         stop_words="english", **OPTS)
    assert [t.words for t in res.topics] == [t.words for t in ref.topics]
    assert res.pruning["stop_words"] == "english"
    words = list(res.feature_names)
    found = [[words.index(w) for w in t.words] for t in res.topics]
    truth = [[words.index(w) for w in t] for t in topics]
    assert topic_precision(found, truth)["mean_precision"] >= 0.75


def test_representative_documents_hold_the_topic(planted, tmp_path):
    docs, _ = planted
    path = tmp_path / "docs.csv.gz"
    write_text_corpus(path, 1500, n_topics=3, topic_size=4, prevalence=0.08, random_state=3)
    res = extract_topics(str(path), text_column="text", id_column="id", show_docs=2,
                         cache_dir=tmp_path / "c", **OPTS)
    assert [t.words for t in res.topics] == [t.words for t in extract_topics(docs, **OPTS).topics]
    for topic, best in zip(res.topics, res.documents):
        assert len(best) == 2 and best[0]["score"] >= best[1]["score"] > 0
        text = docs[int(best[0]["id"])].lower()
        assert sum(w in text for w in topic.words) >= 2 and best[0]["text"] == docs[
            int(best[0]["id"])][:100]
    assert "documents" in res.to_dict()["components"][0]
    # a second run reads neither the counts nor the documents: they are spoiled (same
    # sizes) and the result is the same, from the cached statistics and documents
    spoiled = [os.path.join(res.cache["directory"], n) for n in ("indices.i32", "snippets.u8")]
    for name in spoiled:
        with open(name, "r+b") as f:
            f.write(b"\xff" * os.path.getsize(name))
    again = extract_topics(str(path), text_column="text", id_column="id", show_docs=2,
                           cache_dir=tmp_path / "c", **OPTS)
    assert again.cache["status"] == "hit" and again.passes == []
    assert again.documents == res.documents
    for name in spoiled:  # not read, hence not found damaged nor rebuilt
        with open(name, "rb") as f:
            assert set(f.read()) == {0xFF}
    # more documents need a pass: the damaged counts are found then, and rebuilt
    with pytest.warns(CacheWarning, match="indices"):
        third = extract_topics(str(path), text_column="text", id_column="id", show_docs=3,
                               cache_dir=tmp_path / "c", **OPTS)
    assert [d[:2] for d in third.documents] == res.documents


def test_stop_words_resolution():
    corpus = TextCorpus(["some words here"], cache=False)
    assert resolve_stop_words("auto", corpus) == "english"
    assert resolve_stop_words("auto", np.eye(2)) is None
    assert resolve_stop_words("none", corpus) is None
    assert resolve_stop_words(["x"], corpus) == ["x"]


def test_raw_documents_are_not_sent_to_a_cluster():
    from eigensparse._validation import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="raw documents are tokenized here"):
        extract_topics(["some text", "more text"], client="tcp://127.0.0.1:1", progress=False)
