"""The UCI bag-of-words reader (``io/uci.py``): streamed chunks equal the matrix read in
memory, gzip in every shape (multi-member, truncated, corrupt), and errors that name the
file and the line. The cache, the vocabulary and the other formats have their mirrors
(``test_cache.py``, ``test_vocab.py``, ``test_formats.py``); the files come from
``conftest.py``."""
import gzip
from importlib import resources

import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse import InvalidParameterError
from eigensparse.datasets import load_kos
from eigensparse.io.corpus import UCICorpus
from eigensparse.io.uci import iter_uci_chunks, read_uci_bow, read_uci_header

KOS_DIR = resources.files("eigensparse.datasets").joinpath("data")
KOS_DOCWORD = str(KOS_DIR.joinpath("docword.kos.txt.gz"))
KOS_VOCAB = str(KOS_DIR.joinpath("vocab.kos.txt"))


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
def test_random_files_roundtrip(tmp_path, gz, bow):
    rng = np.random.default_rng(0)
    X = bow.random(rng)
    f = bow.write(tmp_path / ("d.txt.gz" if gz else "d.txt"), bow.uci_text(X), gz)
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


def test_duplicates_are_summed(tmp_path, bow):
    f = bow.write(tmp_path / "d.txt", "1\n2\n3\n1 2 1\n1 2 4\n1 1 1\n")
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
def test_bad_docword_names_file_and_line(tmp_path, text, match, gz, bow):
    f = bow.write(tmp_path / ("docword.bad.txt.gz" if gz else "docword.bad.txt"), text, gz)
    with pytest.raises(InvalidParameterError, match=match) as e:
        for _ in iter_uci_chunks(f):
            pass
    assert str(e.value).startswith(f"{f}: line ")


def test_unsorted_documents_are_fine_in_memory(tmp_path, bow):
    f = bow.write(tmp_path / "d.txt", "2\n3\n2\n2 1 1\n1 1 1\n")
    X, _ = read_uci_bow(f)
    assert X.toarray().tolist() == [[1, 0, 0], [1, 0, 0]]


def test_error_line_numbers_far_into_a_big_file(tmp_path, bow):
    rng = np.random.default_rng(1)
    X = bow.random(rng, D=3000, W=50, density=0.2)
    lines = bow.uci_text(X).split("\n")
    bad = 4 + X.nnz - 7
    lines[bad - 1] = lines[bad - 1].rsplit(" ", 1)[0] + " -2"
    f = bow.write(tmp_path / "big.txt.gz", "\n".join(lines), gz=True)
    with pytest.raises(InvalidParameterError, match=f"line {bad}: negative count -2"):
        for _ in iter_uci_chunks(f, chunk_nnz=500):
            pass


def test_truncated_gzip(tmp_path, bow):
    rng = np.random.default_rng(2)
    X = bow.random(rng, D=2000, W=60, density=0.3)
    full = gzip.compress(bow.uci_text(X).encode())
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


# --- cache ---------------------------------------------------------------------------

# --- other formats -------------------------------------------------------------------
