"""read_text_documents reads what a file holds (issue #33): a CSV is a table (its text
column, RFC 4180 quoting), never one document per line; a JSON Lines file is decoded;
and extract_topics refuses to weight already-weighted values again."""
import gzip
import json

import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.io import read_text_documents
from eigensparse.text import extract_topics


def test_csv_needs_its_text_column_and_reads_quoted_cells(tmp_path):
    path = tmp_path / "docs.csv"
    path.write_text('id,body\n1,"sparse pca, exact"\n2,"multi\nline sparse"\n3,plain text\n')
    with pytest.raises(InvalidParameterError, match=r"docs.csv: give the column that holds the "
                                                    r"documents .*text_column=.*'id', 'body'"):
        read_text_documents(path)
    with pytest.raises(InvalidParameterError, match=r"no column 'text'; the columns are: 'id', 'body'"):
        read_text_documents(path, text_column="text")
    X, words = read_text_documents(path, text_column="body")
    assert X.shape[0] == 3 and "id" not in words and "body" not in words
    assert X[:, words.index("sparse")].toarray().ravel().tolist() == [1, 1, 0]
    tsv = tmp_path / "docs.tsv"
    tsv.write_text("body\tid\nalpha beta\t1\nbeta gamma\t2\n")
    X, words = read_text_documents(tsv, text_column="body")
    assert words == ["alpha", "beta", "gamma"] and X.shape == (2, 3)


def test_jsonl_is_decoded(tmp_path):
    path = tmp_path / "docs.jsonl"
    rows = [{"id": 1, "body": "first line\nexample here"}, {"id": 2, "body": "caf\u00e9 example"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    X, words = read_text_documents(path, text_column="body")
    assert "nexample" not in words and "example" in words and "café" in words
    assert X.shape[0] == 2
    with pytest.raises(InvalidParameterError, match=r"docs.jsonl: give the field that holds the "
                                                    r"documents .*'id', 'body'"):
        read_text_documents(path)
    gz = tmp_path / "docs.jsonl.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert read_text_documents(gz, text_column="body")[1] == words
    with pytest.raises(InvalidParameterError, match="text_column"):
        (tmp_path / "t.txt").write_text("a b\nc d\n")
        read_text_documents(tmp_path / "t.txt", text_column="x")


def test_already_weighted_input_is_not_weighted_twice():
    docs = [f"alpha beta gamma w{i % 7} w{i % 5} w{i % 3}" for i in range(40)]
    X, words = read_text_documents(docs, vectorizer="tfidf")
    for scaling in ("tfidf", "log"):
        with pytest.raises(InvalidParameterError, match=rf"scaling='{scaling}' weights word "
                                                        r"counts.*weighted twice.*scaling='count'"):
            extract_topics(X, words, n_topics=1, cardinality=2, min_df=1, max_df=1.0,
                           scaling=scaling, progress=False)
    res = extract_topics(X, words, n_topics=1, cardinality=2, min_df=1, max_df=1.0,
                         scaling="count", progress=False)
    assert res.topics[0].cardinality == 2 and np.isfinite(res.topics[0].variance)
    counts, words = read_text_documents(docs)  # integer counts: the default tf-idf applies
    assert extract_topics(counts, words, n_topics=1, cardinality=2, min_df=1, max_df=1.0,
                          progress=False).topics[0].cardinality == 2
