"""The binary cache of a bag of words (``io/cache.py``): written once, reused, invalidated
when its source changes, never trusted after an interrupted write."""
import gzip
import json
import os

import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse.io import UCICorpus
from eigensparse.io.cache import BowCache, BowCacheWriter, CacheWarning, cache_dir_for
from eigensparse.io import cache as cache_mod


def test_cache_written_reused_and_invalidated(tmp_path, bow):
    rng = np.random.default_rng(3)
    X = bow.random(rng, D=60, W=30)
    f = bow.write(tmp_path / "docword.c.txt.gz", bow.uci_text(X), gz=True)
    cd = tmp_path / "cache"
    c = UCICorpus(f, cache_dir=cd)
    assert c.cache_status == "miss"
    bow.consume(c)
    assert c.cache_status == "written" and c.last_source == "text"
    c2 = UCICorpus(f, cache_dir=cd)
    assert c2.cache_status == "hit"
    bow.consume(c2)
    assert c2.last_source == "cache"
    assert abs(c2.cache.to_csr() - X).max() == 0
    # same size and mtime but different bytes: the hash catches it
    st = os.stat(f)
    X2 = X.copy()
    X2.data[0] = 5 if X2.data[0] != 5 else 4
    raw = gzip.compress(bow.uci_text(X2).encode())
    if len(raw) == st.st_size:
        with open(f, "wb") as fh:
            fh.write(raw)
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert BowCache.open(f, cd) is None
        assert BowCache.open(f, cd, verify="stat") is not None
    # a touched source is not trusted
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert BowCache.open(f, cd, verify="stat") is None



def test_a_source_whose_inode_changed_is_checksummed_once(tmp_path, bow, monkeypatch):
    rng = np.random.default_rng(4)
    X = bow.random(rng, D=30, W=20)
    f = bow.write(tmp_path / "docword.i.txt.gz", bow.uci_text(X), gz=True)
    cd = tmp_path / "cache"
    bow.consume(UCICorpus(f, cache_dir=cd))
    calls = []
    digest = cache_mod.file_digest
    monkeypatch.setattr(cache_mod, "file_digest", lambda p: (calls.append(p), digest(p))[1])
    assert BowCache.open(f, cd) is not None and calls == []  # the very file: no checksum
    # the same bytes under a new inode and change time (a copy moved over it, mtime kept)
    st = os.stat(f)
    copy = tmp_path / "copy.gz"
    copy.write_bytes(open(f, "rb").read())
    os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(copy, f)
    assert BowCache.open(f, cd) is not None and len(calls) == 1  # checked by its CRC-32...
    assert BowCache.open(f, cd) is not None and len(calls) == 1  # ...once: recorded
    with open(os.path.join(cache_dir_for(f, cd), "meta.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    assert meta["source"]["inode"][1] == os.stat(f).st_ino


def test_interrupted_cache_write_leaves_no_trusted_cache(tmp_path, monkeypatch, bow):
    rng = np.random.default_rng(4)
    X = bow.random(rng, D=200, W=40)
    f = bow.write(tmp_path / "docword.i.txt", bow.uci_text(X))
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
        bow.consume(c)
    assert BowCache.open(f, cd) is None
    assert not os.path.exists(cache_dir_for(f, cd))
    monkeypatch.undo()

    # 3. a cache whose files were damaged afterwards is not trusted
    c = UCICorpus(f, cache_dir=cd)
    bow.consume(c)
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
    parts = bow.consume(c)
    assert c.cache_status == "written"
    assert abs(sp.vstack(parts) - X[: sum(p.shape[0] for p in parts)]).max() == 0


def test_stats_tagged_with_their_cache(tmp_path, bow):
    rng = np.random.default_rng(5)
    f = bow.write(tmp_path / "d.txt", bow.uci_text(bow.random(rng)))
    c = UCICorpus(f, cache_dir=tmp_path)
    bow.consume(c)
    c.cache.save_stats("x", {"a": np.arange(3)})
    assert c.cache.load_stats("x")["a"].tolist() == [0, 1, 2]
    # a rebuilt cache (new token) does not trust stats of the old one
    w = BowCacheWriter(f, c.n_docs, c.n_words, tmp_path)
    for ch in c.iter_chunks():
        w.add(ch)
    new = w.commit("deadbeef")
    assert new.load_stats("x") is None


def test_cache_chunks_stream_offsets_with_empty_documents(tmp_path, bow):
    rng = np.random.default_rng(7)
    X = bow.random(rng, D=120, W=30, density=0.15).tolil()
    X[0, :] = 0
    X[50:60, :] = 0
    X[-3:, :] = 0  # empty documents at the start, inside and at the end
    X = X.tocsr()
    X.eliminate_zeros()
    f = bow.write(tmp_path / "d.txt", bow.uci_text(X))
    c = UCICorpus(f, cache_dir=tmp_path / "c")
    bow.consume(c)
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


def test_arrays_checked_before_the_first_pass_reads_them(tmp_path, bow):
    """Opening a corpus reads no array; its first pass checks them, and a cache damaged
    in place (same sizes, one count altered) is reported, discarded and rebuilt."""
    rng = np.random.default_rng(11)
    X = bow.random(rng)
    f = bow.write(tmp_path / "d.txt", bow.uci_text(X))
    bow.consume(UCICorpus(f, cache_dir=tmp_path))
    d = cache_dir_for(f, tmp_path)
    with open(os.path.join(d, "data.u32"), "r+b") as fh:
        fh.seek(4)
        fh.write(np.array([77], dtype="<u4").tobytes())
    c = UCICorpus(f, cache_dir=tmp_path)
    assert c.cache_status == "hit" and not c.cache.verified
    with pytest.warns(CacheWarning, match="does not match its CRC-32"):
        parts = bow.consume(c)
    assert c.cache_status == "written" and c.last_source == "text"
    assert abs(sp.vstack(parts) - X[: sum(p.shape[0] for p in parts)]).max() == 0
    again = UCICorpus(f, cache_dir=tmp_path)
    bow.consume(again)
    assert again.cache.verified and again.last_source == "cache"
