"""Readers: streamed UCI bag of words, validation (file + line in every message),
binary cache (atomic, trusted only when it matches its source), other formats."""
import gzip
import json
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from eigensparse import InvalidParameterError
from eigensparse.datasets import load_kos
from eigensparse.io import (BowCache, BowCacheWriter, MatrixCorpus, UCICorpus, cache_dir_for,
                            iter_uci_chunks, open_corpus, read_matrix_market, read_npz,
                            read_text_documents, read_uci_bow, read_uci_header, read_vocabulary,
                            vectorize_documents)
from eigensparse.io import cache as cache_mod
from importlib import resources

KOS_DIR = resources.files("eigensparse.datasets").joinpath("data")
KOS_DOCWORD = str(KOS_DIR.joinpath("docword.kos.txt.gz"))
KOS_VOCAB = str(KOS_DIR.joinpath("vocab.kos.txt"))


def _write(path, text, gz=False):
    data = text.encode() if isinstance(text, str) else text
    if gz:
        data = gzip.compress(data)
    path.write_bytes(data)
    return str(path)


def _random_bow(rng, D=40, W=25, density=0.3):
    X = sp.random(D, W, density=density, random_state=np.random.RandomState(rng.integers(1 << 30)),
                  data_rvs=lambda k: rng.integers(1, 6, k)).tocsr()
    X.sort_indices()
    return X


def _uci_text(X):
    C = X.tocoo()
    o = np.lexsort((C.col, C.row))
    lines = [f"{X.shape[0]}", f"{X.shape[1]}", f"{X.nnz}"]
    lines += [f"{r + 1} {c + 1} {int(v)}" for r, c, v in zip(C.row[o], C.col[o], C.data[o])]
    return "\n".join(lines) + "\n"


# --- streaming equals in memory ------------------------------------------------------

def test_kos_chunks_equal_in_memory():
    X = load_kos().data
    parts, n = [], 0
    last_doc = -1
    for ch in iter_uci_chunks(KOS_DOCWORD, chunk_nnz=40_000):
        assert ch.doc[0] > last_doc  # whole documents, in order
        last_doc = ch.doc[-1]
        assert ch.canonical and ch.nnz <= 40_000 + 2000
        parts.append(sp.csr_matrix((ch.count.astype(float), (ch.doc, ch.word)), shape=X.shape))
        n += ch.nnz
    assert n == X.nnz
    assert abs(sum(parts) - X).max() == 0


@pytest.mark.parametrize("gz", [False, True])
def test_random_files_roundtrip(tmp_path, gz):
    rng = np.random.default_rng(0)
    X = _random_bow(rng)
    f = _write(tmp_path / ("d.txt.gz" if gz else "d.txt"), _uci_text(X), gz)
    Y, _ = read_uci_bow(f)
    assert abs(Y - X).max() == 0
    h = read_uci_header(f)
    assert (h.n_docs, h.n_words, h.nnz) == (X.shape[0], X.shape[1], X.nnz)
    for k in (1, 7, 1000):
        got = sum(sp.csr_matrix((c.count.astype(float), (c.doc, c.word)), shape=X.shape)
                  for c in iter_uci_chunks(f, chunk_nnz=k))
        assert abs(got - X).max() == 0


def test_multi_member_gzip_and_crlf_and_unsorted_words(tmp_path):
    body = "1 3 2\r\n1 1 1\r\n2 2 5\r\n"
    data = gzip.compress(b"2\n3\n3\n") + gzip.compress(body.encode())
    f = tmp_path / "m.txt.gz"
    f.write_bytes(data)
    X, _ = read_uci_bow(str(f))
    assert X.toarray().tolist() == [[1, 0, 2], [0, 5, 0]]
    chunks = list(iter_uci_chunks(str(f)))
    assert not chunks[0].canonical  # words not increasing inside document 1
    c = UCICorpus(str(f), cache=False)
    got = [ch for ch in c.iter_chunks()]
    assert got[0].indices.tolist() == [0, 2, 1]  # sorted within each document


def test_duplicates_are_summed(tmp_path):
    f = _write(tmp_path / "d.txt", "1\n2\n3\n1 2 1\n1 2 4\n1 1 1\n")
    X, _ = read_uci_bow(f)
    assert X.toarray().tolist() == [[1, 5]]
    ch = next(iter(UCICorpus(f, cache=False).iter_chunks()))
    assert ch.indices.tolist() == [0, 1] and ch.data.tolist() == [1, 5]


# --- every bad input: file and line in the message ------------------------------------

BAD = [
    ("", "line 1: empty file"),
    ("3\n", "line 2: file ends in the header"),
    ("x\n3\n1\n1 1 1\n", "line 1: header lines 1-3 must hold the integers D, W, NNZ"),
    ("2\n-3\n1\n1 1 1\n", "line 2: header W"),
    ("2\n3\n2\n1 1 1\n", r"line 5: the header says NNZ=2 \(line 3\) but the file ends after 1 entries"),
    ("2\n3\n1\n1 1 1\n2 2 2\n", "line 5: more entries than the header's NNZ=1"),
    ("2\n3\n1\n0 1 1\n", "line 4: document index 0 outside"),
    ("2\n3\n1\n3 1 1\n", r"line 4: document index 3 outside \[1, D=2\]"),
    ("2\n3\n2\n1 1 1\n1 0 1\n", "line 5: word index 0 outside"),
    ("2\n3\n1\n1 4 1\n", r"line 4: word index 4 outside \[1, W=3\]"),
    ("2\n3\n1\n1 1 -1\n", "line 4: negative count -1"),
    ("2\n3\n1\n1 1 1.5\n", "line 4: count '1.5' is not an integer"),
    ("2\n3\n1\n1 1 abc\n", "line 4: count 'abc' is not an integer"),
    ("2\n3\n1\n1 1 0\n", "line 4: count is 0"),
    ("2\n3\n1\n1 1\n", "line 4: expected 3 integers"),
    ("2\n3\n1\n1 1 1 1\n", "line 4: expected 3 integers"),
    ("2\n3\n2\n2 1 1\n1 1 1\n", "line 5: entries are not grouped by document"),
    ("2\n3\n1\n1 1 99999999999999999999\n", "line 4: number too large"),
]


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("text, match", BAD)
def test_bad_docword_names_file_and_line(tmp_path, text, match, gz):
    f = _write(tmp_path / ("docword.bad.txt.gz" if gz else "docword.bad.txt"), text, gz)
    with pytest.raises(InvalidParameterError, match=match) as e:
        for _ in iter_uci_chunks(f):
            pass
    assert str(e.value).startswith(f"{f}: line ")


def test_unsorted_documents_are_fine_in_memory(tmp_path):
    f = _write(tmp_path / "d.txt", "2\n3\n2\n2 1 1\n1 1 1\n")
    X, _ = read_uci_bow(f)
    assert X.toarray().tolist() == [[1, 0, 0], [1, 0, 0]]


def test_error_line_numbers_far_into_a_big_file(tmp_path):
    rng = np.random.default_rng(1)
    X = _random_bow(rng, D=3000, W=50, density=0.2)
    lines = _uci_text(X).split("\n")
    bad = 4 + X.nnz - 7
    lines[bad - 1] = lines[bad - 1].rsplit(" ", 1)[0] + " -2"
    f = _write(tmp_path / "big.txt.gz", "\n".join(lines), gz=True)
    with pytest.raises(InvalidParameterError, match=f"line {bad}: negative count -2"):
        for _ in iter_uci_chunks(f, chunk_nnz=500):
            pass


def test_truncated_gzip(tmp_path):
    rng = np.random.default_rng(2)
    X = _random_bow(rng, D=2000, W=60, density=0.3)
    full = gzip.compress(_uci_text(X).encode())
    f = tmp_path / "docword.trunc.txt.gz"
    f.write_bytes(full[: len(full) * 2 // 3])
    with pytest.raises(InvalidParameterError, match=r"docword.trunc.txt.gz: line \d+: truncated gzip"):
        for _ in iter_uci_chunks(str(f)):
            pass
    with pytest.raises(InvalidParameterError, match="truncated gzip"):
        read_uci_bow(str(f))
    # a cut inside the gzip trailer (all data present, end marker missing)
    f.write_bytes(full[:-4])
    with pytest.raises(InvalidParameterError, match="truncated gzip"):
        read_uci_bow(str(f))


def test_corrupt_gzip_and_trailing_garbage(tmp_path):
    good = gzip.compress(b"1\n2\n1\n1 1 1\n")
    f = tmp_path / "c.txt.gz"
    f.write_bytes(good[:12] + bytes(b ^ 0xFF for b in good[12:20]) + good[20:])
    with pytest.raises(InvalidParameterError, match=r"c.txt.gz: line \d+: .*(corrupt|truncated)"):
        read_uci_bow(str(f))
    f.write_bytes(good + b"garbage")
    with pytest.raises(InvalidParameterError, match="trailing data"):
        read_uci_bow(str(f))
    f.write_bytes(good + b"\x00" * 16)  # zero padding is tolerated
    assert read_uci_bow(str(f))[0].nnz == 1


def test_missing_file():
    with pytest.raises(InvalidParameterError, match=r"nope.txt: line 1: file does not exist"):
        read_uci_bow("nope.txt")


# --- vocabulary ----------------------------------------------------------------------

def test_vocabulary(tmp_path):
    assert read_vocabulary(_write(tmp_path / "v1", "a\nb\nc\n"), 3) == ["a", "b", "c"]
    assert read_vocabulary(_write(tmp_path / "v2", "a\r\nb\r\nc"), 3) == ["a", "b", "c"]
    assert read_vocabulary(_write(tmp_path / "v3", "\ufeffé\nb\n"), 2) == ["é", "b"]
    with pytest.raises(InvalidParameterError, match=r"v4: line 3: vocabulary ends after 2 words .*shorter than W"):
        read_vocabulary(_write(tmp_path / "v4", "a\nb\n"), 3)
    with pytest.raises(InvalidParameterError, match=r"v5: line 3: .*longer than W .*'c'"):
        read_vocabulary(_write(tmp_path / "v5", "a\nb\nc\nd\n"), 2)
    with pytest.raises(InvalidParameterError, match=r"v6: line 2: vocabulary is not valid UTF-8"):
        read_vocabulary(_write(tmp_path / "v6", b"ok\nbad\xff\xfe\n"), 2)
    with pytest.raises(InvalidParameterError, match=r"v7: line 1: empty vocabulary"):
        read_vocabulary(_write(tmp_path / "v7", ""), 2)


def test_uci_bow_with_wrong_vocabulary(tmp_path):
    d = _write(tmp_path / "d.txt", "1\n3\n1\n1 1 1\n")
    with pytest.raises(InvalidParameterError, match=r"v.txt: line 3: .*shorter than W"):
        read_uci_bow(d, _write(tmp_path / "v.txt", "a\nb\n"))
    with pytest.raises(InvalidParameterError, match=r"v.txt: line 3: .*shorter than W"):
        UCICorpus(d, str(tmp_path / "v.txt"), cache=False)


# --- cache ---------------------------------------------------------------------------

def _consume(corpus):
    parts = [sp.csr_matrix((ch.data.astype(float), ch.indices, ch.indptr),
                           shape=(ch.n_docs, corpus.n_words)) for ch in corpus.iter_chunks(chunk_nnz=50)]
    return parts


def test_cache_written_reused_and_invalidated(tmp_path):
    rng = np.random.default_rng(3)
    X = _random_bow(rng, D=60, W=30)
    f = _write(tmp_path / "docword.c.txt.gz", _uci_text(X), gz=True)
    cd = tmp_path / "cache"
    c = UCICorpus(f, cache_dir=cd)
    assert c.cache_status == "miss"
    _consume(c)
    assert c.cache_status == "written" and c.last_source == "text"
    c2 = UCICorpus(f, cache_dir=cd)
    assert c2.cache_status == "hit"
    _consume(c2)
    assert c2.last_source == "cache"
    assert abs(c2.cache.to_csr() - X).max() == 0
    # same size and mtime but different bytes: the hash catches it
    st = os.stat(f)
    X2 = X.copy()
    X2.data[0] = 5 if X2.data[0] != 5 else 4
    raw = gzip.compress(_uci_text(X2).encode())
    if len(raw) == st.st_size:
        with open(f, "wb") as fh:
            fh.write(raw)
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert BowCache.open(f, cd) is None
        assert BowCache.open(f, cd, verify="stat") is not None
    # a touched source is not trusted
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert BowCache.open(f, cd, verify="stat") is None


def test_interrupted_cache_write_leaves_no_trusted_cache(tmp_path, monkeypatch):
    rng = np.random.default_rng(4)
    X = _random_bow(rng, D=200, W=40)
    f = _write(tmp_path / "docword.i.txt", _uci_text(X))
    cd = tmp_path / "cache"

    # 1. interrupted midway through the chunks (the consumer stops early)
    c = UCICorpus(f, cache_dir=cd)
    it = c.iter_chunks(chunk_nnz=50)
    next(it)
    it.close()
    assert BowCache.open(f, cd) is None
    assert not os.path.exists(cache_dir_for(f, cd))

    # 2. killed while writing meta.json (after the arrays)
    def boom(path, obj):
        with open(path, "w") as fh:
            fh.write(json.dumps(obj)[:20])  # a partial file, then the "crash"
        raise KeyboardInterrupt

    monkeypatch.setattr(cache_mod, "_write_json_atomic", boom)
    c = UCICorpus(f, cache_dir=cd)
    with pytest.raises(KeyboardInterrupt):
        _consume(c)
    assert BowCache.open(f, cd) is None
    assert not os.path.exists(cache_dir_for(f, cd))
    monkeypatch.undo()

    # 3. a cache whose files were damaged afterwards is not trusted
    c = UCICorpus(f, cache_dir=cd)
    _consume(c)
    d = cache_dir_for(f, cd)
    assert BowCache.open(f, cd) is not None
    with open(os.path.join(d, "indices.i32"), "r+b") as fh:
        fh.truncate(8)
    assert BowCache.open(f, cd) is None
    with open(os.path.join(d, "meta.json"), "w") as fh:
        fh.write("{not json")
    assert BowCache.open(f, cd) is None
    # and it is rebuilt on the next run
    c = UCICorpus(f, cache_dir=cd)
    parts = _consume(c)
    assert c.cache_status == "written"
    assert abs(sp.vstack(parts) - X[: sum(p.shape[0] for p in parts)]).max() == 0


def test_stats_tagged_with_their_cache(tmp_path):
    rng = np.random.default_rng(5)
    f = _write(tmp_path / "d.txt", _uci_text(_random_bow(rng)))
    c = UCICorpus(f, cache_dir=tmp_path)
    _consume(c)
    c.cache.save_stats("x", {"a": np.arange(3)})
    assert c.cache.load_stats("x")["a"].tolist() == [0, 1, 2]
    # a rebuilt cache (new token) does not trust stats of the old one
    w = BowCacheWriter(f, c.n_docs, c.n_words, tmp_path)
    for ch in c.iter_chunks():
        w.add(ch)
    new = w.commit("deadbeef")
    assert new.load_stats("x") is None


# --- other formats -------------------------------------------------------------------

def test_matrix_market_npz_and_text(tmp_path):
    rng = np.random.default_rng(6)
    X = _random_bow(rng)
    scipy.io.mmwrite(str(tmp_path / "m.mtx"), X)
    assert abs(read_matrix_market(tmp_path / "m.mtx") - X).max() == 0
    assert abs(read_matrix_market(tmp_path / "m.mtx", transpose=True) - X.T).max() == 0
    sp.save_npz(tmp_path / "m.npz", X)
    assert abs(read_npz(tmp_path / "m.npz") - X).max() == 0
    c = open_corpus(str(tmp_path / "m.npz"))
    assert isinstance(c, MatrixCorpus) and c.n_docs == X.shape[0]
    (tmp_path / "bad.mtx").write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n")
    with pytest.raises(InvalidParameterError, match=r"bad.mtx: line \d+: not a valid Matrix Market"):
        read_matrix_market(tmp_path / "bad.mtx")
    (tmp_path / "bad.npz").write_bytes(b"nope")
    with pytest.raises(InvalidParameterError, match=r"bad.npz: line 1: not a scipy.sparse .npz"):
        read_npz(tmp_path / "bad.npz")

    docs = ["the cat sat", "the dog sat down", "a cat and a dog"]
    Xc, words = vectorize_documents(docs)
    assert Xc.shape == (3, len(words)) and "cat" in words
    Xt, _ = vectorize_documents(docs, vectorizer="tfidf")
    assert np.allclose(sp.linalg.norm(Xt, axis=1), 1)
    (tmp_path / "docs").mkdir()
    for i, d in enumerate(docs):
        (tmp_path / "docs" / f"{i}.txt").write_text(d)
    Xd, wd = read_text_documents(tmp_path / "docs")
    assert abs(Xd - Xc).max() == 0 and wd == words
    (tmp_path / "lines.txt").write_bytes(b"the cat\n\xff\xfe dog\n")
    with pytest.raises(InvalidParameterError, match=r"lines.txt: line 2: not valid utf-8"):
        read_text_documents(tmp_path / "lines.txt")


def test_cache_chunks_stream_offsets_with_empty_documents(tmp_path):
    rng = np.random.default_rng(7)
    X = _random_bow(rng, D=120, W=30, density=0.15).tolil()
    X[0, :] = 0
    X[50:60, :] = 0
    X[-3:, :] = 0  # empty documents at the start, inside and at the end
    X = X.tocsr()
    X.eliminate_zeros()
    f = _write(tmp_path / "d.txt", _uci_text(X))
    c = UCICorpus(f, cache_dir=tmp_path / "c")
    _consume(c)
    cache = BowCache.open(f, tmp_path / "c")
    assert np.array_equal(cache.indptr, X.indptr)
    for chunk_nnz in (1, 5, 37, 10_000):
        for block in (1, 2, 7, 1 << 16):
            rows = np.zeros((X.shape[0], X.shape[1]))
            last = 0
            for ch in cache.iter_chunks(chunk_nnz, offsets_block=block):
                assert ch.doc_start == last and ch.n_docs >= 1
                last = ch.doc_start + ch.n_docs
                rows[ch.doc_start:last] = sp.csr_matrix(
                    (ch.data.astype(float), ch.indices, ch.indptr), shape=(ch.n_docs, X.shape[1])).toarray()
            assert last == X.shape[0] and np.array_equal(rows, X.toarray())
