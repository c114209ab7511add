"""The generated raw-text corpus: planted topics co-occur, files stream in chunks."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from eigensparse._validation import InvalidParameterError
from eigensparse.datasets.synthetic_text import make_text_documents, write_text_corpus


def test_planted_words_co_occur():
    docs, topics = make_text_documents(3000, n_topics=2, topic_size=4, prevalence=0.1,
                                       random_state=0)
    cv = CountVectorizer(binary=True)
    X = cv.fit_transform(docs).tocsc()
    col = {w: i for i, w in enumerate(cv.get_feature_names_out())}
    a, b = (np.asarray(X[:, col[w]].todense()).ravel() for w in topics[0][:2])
    c = np.asarray(X[:, col[topics[1][0]]].todense()).ravel()
    assert np.corrcoef(a, b)[0, 1] > 0.3 > abs(np.corrcoef(a, c)[0, 1])
    assert "the" in col and docs == make_text_documents(3000, n_topics=2, topic_size=4,
                                                        prevalence=0.1, random_state=0)[0]


def test_files_in_chunks(tmp_path):
    t1 = write_text_corpus(tmp_path / "a.jsonl.gz", 250, chunk_docs=100, random_state=4)
    with gzip.open(tmp_path / "a.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    assert [r["id"] for r in rows] == list(range(250))
    t2 = write_text_corpus(tmp_path / "a.txt", 10, random_state=4)
    assert t1 == t2 and len((tmp_path / "a.txt").read_text(encoding="utf-8").splitlines()) == 10
    with pytest.raises(InvalidParameterError, match="unknown option"):
        write_text_corpus(tmp_path / "b.csv", 10, colour="red")
