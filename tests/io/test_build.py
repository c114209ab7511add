"""Pass 1a at disk speed (``io/_build.py``): the file parsed straight into its binary
cache gives the same cache, byte for byte, as the general route, the same errors, and
hands the files it cannot take back to the general route."""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse import InvalidParameterError
from eigensparse.io import UCICorpus, iter_uci_chunks
from eigensparse.io import _source
from eigensparse.io.cache import BowCache


def _general(path, cache_dir):
    """The cache of the general route (chunks sorted and summed), and the count df."""
    c = UCICorpus(path, cache_dir=cache_dir)
    for _ in c.iter_chunks(chunk_nnz=37):
        pass
    return BowCache.open(path, cache_dir)


def _with_empty_documents(bow, rng):
    X = bow.random(rng, D=90, W=40, density=0.2).tolil()
    for d in (0, 1, 17, 18, 19, 88, 89):  # leading, inner and trailing empty documents
        X[d, :] = 0
    return X.tocsr()


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("piece", [None, 7])
def test_fused_build_equals_the_general_route(tmp_path, bow, monkeypatch, gz, piece):
    """Same arrays and CRCs as the general route, the document frequencies of the
    matrix, also when the text arrives in pieces of 7 bytes (lines cut anywhere)."""
    if piece is not None:
        monkeypatch.setattr(_source, "_TEXT_PIECE", piece)
        monkeypatch.setattr(_source, "_RAW_BLOCK", piece)
    X = _with_empty_documents(bow, np.random.default_rng(11))
    f = bow.write(tmp_path / "docword.f.txt", bow.uci_text(X), gz=gz)
    c = UCICorpus(f, cache_dir=tmp_path / "fused")
    out = c.ensure_cache()
    assert out is not None and c.cache_status == "written"
    assert np.array_equal(out["df"], np.diff(X.tocsc().indptr))
    ref = _general(f, tmp_path / "general")
    fused = BowCache.open(f, tmp_path / "fused")
    assert fused.meta["arrays"] == ref.meta["arrays"]  # lengths and CRC-32 of every file
    assert (fused.to_csr() != X).nnz == 0
    assert np.array_equal(fused.load_stats("df")["df"], out["df"])
    assert UCICorpus(f, cache_dir=tmp_path / "fused").ensure_cache() is None  # a hit: no pass


@pytest.mark.parametrize("body, why", [
    ("1 2 1\n1 2 3\n2 1 1\n", "a word repeated in a document"),
    ("1 3 1\n1 2 3\n2 1 1\n", "words unsorted in a document"),
    (f"1 2 {1 << 32}\n2 1 1\n", "a count beyond uint32"),
])
@pytest.mark.parametrize("piece", [None, 7])
def test_files_the_fused_route_cannot_take_go_the_general_way(tmp_path, bow, monkeypatch, body,
                                                              why, piece):
    """Also when every line is a block of its own, parsed on its own by a parse thread
    (the problem then lies across two blocks)."""
    if piece is not None:
        monkeypatch.setattr(_source, "_TEXT_PIECE", piece)
        monkeypatch.setattr(_source, "_RAW_BLOCK", piece)
    f = bow.write(tmp_path / "docword.n.txt", f"2\n3\n{body.count(chr(10))}\n" + body)
    c = UCICorpus(f, cache_dir=tmp_path / "c")
    assert c.ensure_cache() is None, why
    assert c.cache is None and BowCache.open(f, tmp_path / "c") is None  # nothing half-written
    X = sp.vstack([sp.csr_matrix((ch.data.astype(float), ch.indices, ch.indptr),
                                 shape=(ch.n_docs, 3)) for ch in c.iter_chunks()])
    pairs = {tuple(line.split()[:2]) for line in body.splitlines()}
    assert X.nnz == len(pairs)  # repeats summed by the general route


@pytest.mark.parametrize("body", [
    "1 1 1\n1 9 1\n2 1 1\n",      # word index out of range
    "1 1 1\n2 1 0\n2 2 1\n",      # a zero count
    "2 1 1\n1 2 1\n2 2 1\n",      # documents out of order
    "1 1 1\n1 2 x\n2 1 1\n",      # not an integer
    "1 1 1\n2 2 1\n",             # fewer entries than NNZ
    "1 1 1\n1 2 1\n2 1 1\n2 3 1\n",  # more entries than NNZ
    "1 1 1\n1 2 1\n2 1 1\n\n1 3 1\n",  # documents out of order after a blank line
])
@pytest.mark.parametrize("piece", [None, 7])
def test_fused_build_raises_the_readers_errors(tmp_path, bow, monkeypatch, body, piece):
    """The same message (file, line) as the reader, also when the lines arrive as blocks
    parsed on their own by the parse threads (the error then found where two meet)."""
    if piece is not None:
        monkeypatch.setattr(_source, "_TEXT_PIECE", piece)
        monkeypatch.setattr(_source, "_RAW_BLOCK", piece)
    f = bow.write(tmp_path / "docword.e.txt", "2\n3\n3\n" + body)
    with pytest.raises(InvalidParameterError) as general:
        for _ in iter_uci_chunks(f):
            pass
    c = UCICorpus(f, cache_dir=tmp_path / "c")
    with pytest.raises(InvalidParameterError) as fused:
        c.ensure_cache()
    assert str(fused.value) == str(general.value)
    assert BowCache.open(f, tmp_path / "c") is None  # the partial cache was removed


@pytest.mark.parametrize("bad, why", [
    ("2 7 x", "a count that is not an integer"),
    ("2 99 1", "a word out of range"),
    ("2 7 0", "a zero count"),
    ("2 7  1", "two spaces"),
    ("2 3 1", "a word out of order (the general route)"),
    ("02 7 1", "a docID with a leading zero (the same document)"),
    ("1 7 1", "a docID that goes back"),
])
def test_lines_of_the_same_document_read_as_the_reader_reads_them(tmp_path, bow, bad, why):
    """Lines of the document of the line before them (long enough blocks that the parser
    compares their docID bytes with that line's): the same cache or the same error as
    the general reader."""
    lines = [f"1 {w} 1" for w in range(1, 30)] + [f"2 {w} 2" for w in range(1, 7)]
    lines += [bad] + [f"2 {w} 1" for w in range(8, 30)] + [f"3 {w} 3" for w in range(1, 30)]
    f = bow.write(tmp_path / "docword.s.txt", f"3\n40\n{len(lines)}\n" + "\n".join(lines) + "\n")
    c = UCICorpus(f, cache_dir=tmp_path / "c")
    try:
        general = sp.vstack([sp.csr_matrix((ch.data.astype(float), ch.indices, ch.indptr),
                                           shape=(ch.n_docs, 40))
                             for ch in UCICorpus(f, cache=False).iter_chunks()])
    except InvalidParameterError as e:
        with pytest.raises(InvalidParameterError) as fused:
            c.ensure_cache()
        assert str(fused.value) == str(e), why
        return
    out = c.ensure_cache()
    if out is None:  # the general route: what it reads equals the reader's matrix
        X = sp.vstack([sp.csr_matrix((ch.data.astype(float), ch.indices, ch.indptr),
                                     shape=(ch.n_docs, 40)) for ch in c.iter_chunks()])
    else:
        X = BowCache.open(f, tmp_path / "c").to_csr()
    assert (X != general).nnz == 0, why
