"""Raw documents as a corpus: every format gives CountVectorizer's matrix, the cache is
complete or absent, and bad input is one clear line."""
from __future__ import annotations

import csv
import gzip
import json
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from eigensparse._validation import InvalidParameterError
from eigensparse.io.cache import CacheWarning
from eigensparse.io.documents import TextCorpus, is_text_source

DOCS = ["Sparse PCA finds topics, in Sparse text.", "Café naïve — ΣΊΣΥΦΟΣ İstanbul",
        "line one\nline two, \"quoted\"", "numbers 12 345 and x_y", "only!", "topics of text"]


def _matrix(corpus):
    rows = [sp.csr_matrix((ch.data.astype(float), ch.indices, ch.indptr),
                          shape=(ch.n_docs, corpus.n_words)) for ch in corpus.iter_chunks()]
    return sp.vstack(rows).tocsr()


def _same_as_sklearn(corpus, docs):
    cv = CountVectorizer()
    Y = cv.fit_transform(docs)
    assert corpus.words == list(cv.get_feature_names_out())
    assert (_matrix(corpus) != Y).nnz == 0


def _write(tmp_path, fmt, docs, ids=None):
    ids = ids or [f"d{i}" for i in range(len(docs))]
    path = tmp_path / f"docs.{fmt}"
    if fmt in ("csv", "tsv"):
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, delimiter="\t" if fmt == "tsv" else ",")
            w.writerow(["id", "body"])
            w.writerows(zip(ids, docs))
    elif fmt == "jsonl":
        with open(path, "w", encoding="utf-8") as f:
            for i, d in zip(ids, docs):
                f.write(json.dumps({"id": i, "body": d, "other": 1}) + "\n")
    elif fmt == "parquet":
        pq.write_table(pa.table({"id": ids, "body": docs}), path)
    return path


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "parquet"])
def test_tables_give_count_vectorizer_counts(tmp_path, fmt):
    path = _write(tmp_path, fmt, DOCS)
    corpus = TextCorpus(path, text_column="body", id_column="id", cache_dir=tmp_path / "c")
    _same_as_sklearn(corpus, DOCS)
    assert corpus.document_names([0, 5]) == ["d0", "d5"]
    assert corpus.document_snippets([4]) == ["only!"]


def test_compressed_lines_and_directories(tmp_path):
    lines = [d.replace("\n", " ") for d in DOCS]
    gz = tmp_path / "docs.txt.gz"
    gz.write_bytes(gzip.compress(("\r\n".join(lines) + "\n\n").encode()))
    corpus = TextCorpus(gz, cache_dir=tmp_path / "c")
    _same_as_sklearn(corpus, lines)
    assert corpus.n_skipped == 1 and corpus.document_names([1]) == ["2"]  # line numbers
    folder = tmp_path / "folder"
    (folder / "sub").mkdir(parents=True)
    for i, d in enumerate(DOCS):
        (folder / ("sub" if i % 2 else "") / f"{i}.txt").write_text(d, encoding="utf-8")
    (folder / ".hidden").write_text("ignored words", encoding="utf-8")
    corpus = TextCorpus(folder, cache_dir=tmp_path / "c")
    order = sorted(range(len(DOCS)), key=lambda i: os.path.join(folder, "sub" if i % 2 else "",
                                                                  f"{i}.txt"))
    _same_as_sklearn(corpus, [DOCS[i] for i in order])


def test_cache_hit_reads_no_text_and_follows_options(tmp_path):
    path = _write(tmp_path, "csv", DOCS)
    first = TextCorpus(path, text_column="body", cache_dir=tmp_path / "c")
    again = TextCorpus(path, text_column="body", cache_dir=tmp_path / "c")
    assert (first.cache_status, again.cache_status) == ("written", "hit")
    assert again.words == first.words and (_matrix(again) != _matrix(first)).nnz == 0
    # the tokenizing pass's document frequencies are kept with the cache (no pass for them)
    df = np.diff(_matrix(first).tocsc().indptr)
    assert np.array_equal(again.cache.load_stats("df")["df"], df)
    assert again.document_names([1]) == ["2"] and again.document_snippets([4]) == ["only!"]
    snippets = os.path.join(again.cache.directory, "snippets.u8")
    with open(snippets, "r+b") as f:
        f.write(b"\xff")
    third = TextCorpus(path, text_column="body", cache_dir=tmp_path / "c")
    with pytest.warns(CacheWarning, match="first characters"):
        assert third.document_snippets([0, 4]) == [DOCS[0], "only!"]
    assert third.cache_status == "rebuilt" and (_matrix(third) != _matrix(first)).nnz == 0
    other = TextCorpus(path, text_column="body", ngram_range=(1, 2), cache_dir=tmp_path / "c")
    assert other.cache_status == "written" and other.n_words > first.n_words
    with open(path, "a", encoding="utf-8") as f:
        f.write("d9,new words here\n")
    assert TextCorpus(path, text_column="body", cache_dir=tmp_path / "c").cache_status == "written"


def test_bad_input_is_one_line_and_leaves_no_cache(tmp_path):
    path = _write(tmp_path, "csv", DOCS)
    with pytest.raises(InvalidParameterError, match=r"no column 'text'; the columns are: 'id', 'body'"):
        TextCorpus(path, text_column="text", cache_dir=tmp_path / "c")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"id,body\n1,fine text\n2,bad \xff byte\n")
    with pytest.raises(InvalidParameterError, match=r"bad.csv: line 3: not valid utf-8 \(byte 0xff\)"):
        TextCorpus(bad, text_column="body", cache_dir=tmp_path / "c")
    assert TextCorpus(bad, text_column="body", decode_error="replace",
                      cache=False).words == ["bad", "byte", "fine", "text"]
    jl = tmp_path / "bad.jsonl"
    jl.write_text('{"body": "x"}\n', encoding="utf-8")
    with pytest.raises(InvalidParameterError, match=r"no field 'text'; the fields are: 'body'"):
        TextCorpus(jl, text_column="text", cache_dir=tmp_path / "c")
    with pytest.raises(InvalidParameterError, match="no token in 1 documents"):
        TextCorpus(["a b ! ?"], cache=False)
    with pytest.raises(InvalidParameterError, match="no documents"):
        TextCorpus(["", "  "], cache=False)
    leftovers = [n for root, dirs, files in os.walk(tmp_path / "c") for n in dirs + files
                 if n.startswith(".tmp")] if (tmp_path / "c").exists() else []
    assert leftovers == [] and not any(
        (tmp_path / "c").rglob("meta.json")) if (tmp_path / "c").exists() else True


def test_memory_sources_and_detection(tmp_path):
    import pandas as pd

    for src in (DOCS, pd.Series(DOCS), pa.array(DOCS), pa.chunked_array([DOCS[:2], DOCS[2:]])):
        assert is_text_source(src)
        _same_as_sklearn(TextCorpus(src), DOCS)
    uci = tmp_path / "docword.x.txt"
    uci.write_text("2\n3\n2\n1 1 1\n2 3 4\n", encoding="utf-8")
    plain = tmp_path / "notes.txt"
    plain.write_text("first note\nsecond note\n", encoding="utf-8")
    assert not is_text_source(str(uci)) and is_text_source(str(plain))


def test_threads_and_many_batches_give_the_same_counts(monkeypatch):
    from eigensparse.datasets.synthetic_text import make_text_documents
    from eigensparse.io import _rows, documents

    docs, _ = make_text_documents(3000, random_state=5)
    docs[7] = "İSTANBUL ΣΟΦΟΣ " + docs[7]  # a document for the regular expression
    monkeypatch.setattr(documents, "_MEMORY_BATCH", 300)  # 10 batches, 2 threads each
    monkeypatch.setattr(documents, "_threads", lambda: 2)
    monkeypatch.setattr(_rows, "MEMORY_ENTRIES", 5000)  # spill most rows to the scratch file
    _same_as_sklearn(TextCorpus(docs), docs)
