"""Downloadable data sets: cache folder, local copies, checksums, atomic downloads; no network."""
import gzip
import hashlib
import os

import numpy as np
import pytest
import scipy.io

from eigensparse import InvalidParameterError
from eigensparse.datasets import (ChecksumError, DataUnavailableError, fetch_leukemia, fetch_mnist,
                                  fetch_nytimes, fetch_senate, get_data_home)
from eigensparse.datasets import _remote
from eigensparse.datasets._remote import RemoteFile, fetch_file


def _sha(b):
    return hashlib.sha256(b).hexdigest()


def _no_network(url, *a, **k):
    raise AssertionError(f"the test tried the network: {url}")


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setattr("urllib.request.urlopen", _no_network)


def fake_download(monkeypatch, payloads, calls=None):
    """Replace the network read by ``payloads[url]`` (bytes), through the real atomic path."""

    class Resp:
        def __init__(self, data):
            self.data, self.pos = data, 0

        def read(self, n):
            out = self.data[self.pos:self.pos + n]
            self.pos += n
            return out

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def urlopen(req, timeout=None):
        url = req.full_url
        if calls is not None:
            calls.append(url)
        if url not in payloads:
            raise OSError("unreachable")
        return Resp(payloads[url])

    monkeypatch.setattr("urllib.request.urlopen", urlopen)


def test_data_home_selection(monkeypatch, tmp_path):
    monkeypatch.setenv("EIGENSPARSE_DATA", str(tmp_path / "env"))
    assert get_data_home() == tmp_path / "env"
    assert get_data_home(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv("EIGENSPARSE_DATA")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert get_data_home() == tmp_path / "home" / ".cache" / "eigensparse"


def test_download_verified_cached_and_reused(monkeypatch, tmp_path):
    body = b"hello data"
    remote = RemoteFile("x.bin", ("https://a.example/x.bin", "https://b.example/x.bin"),
                        sha256=_sha(body))
    calls = []
    fake_download(monkeypatch, {"https://b.example/x.bin": body}, calls)
    p = fetch_file("toy", remote, data_home=tmp_path)
    assert p == tmp_path / "toy" / "x.bin" and p.read_bytes() == body
    assert calls == ["https://a.example/x.bin", "https://b.example/x.bin"]  # first mirror failed
    assert not [f for f in os.listdir(p.parent) if f.startswith(".tmp")]
    fetch_file("toy", remote, data_home=tmp_path)  # cached: no second download
    assert len(calls) == 2


def test_download_checksum_mismatch_leaves_nothing(monkeypatch, tmp_path):
    remote = RemoteFile("x.bin", ("https://a.example/x.bin",), sha256=_sha(b"expected"))
    fake_download(monkeypatch, {"https://a.example/x.bin": b"tampered"})
    with pytest.raises(ChecksumError, match="does not match the expected") as e:
        fetch_file("toy", remote, data_home=tmp_path)
    assert isinstance(e.value, InvalidParameterError)
    assert os.listdir(tmp_path / "toy") == []  # neither the file nor a temporary file


def test_local_file_accepted_and_checked(tmp_path):
    body = b"local copy"
    f = tmp_path / "mine.bin"
    f.write_bytes(body)
    remote = RemoteFile("x.bin", ("https://a.example/x.bin",), sha256=_sha(body))
    assert fetch_file("toy", remote, data_home=tmp_path / "home", path=f) == f
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "x.bin").write_bytes(body)
    assert fetch_file("toy", remote, data_home=tmp_path / "home", path=tmp_path / "dir").parent \
        == tmp_path / "dir"
    f.write_bytes(b"other version")
    with pytest.raises(ChecksumError, match="sha256='"):
        fetch_file("toy", remote, data_home=tmp_path / "home", path=f)
    # the override accepts another version on purpose
    assert fetch_file("toy", remote, path=f, sha256=_sha(b"other version")) == f


def test_unavailable_message_names_url_file_and_remedy(tmp_path):
    with pytest.raises(DataUnavailableError) as e:
        fetch_senate(data_home=tmp_path)  # the network is "down" (autouse fixture)
    msg = str(e.value)
    assert "senateVoting.mat" in msg and "https://raw.githubusercontent.com/probml/pmtkdata" in msg
    assert str(tmp_path / "senate109") in msg and "path=" in msg and "EIGENSPARSE_DATA" in msg
    assert isinstance(e.value, FileNotFoundError)
    with pytest.raises(DataUnavailableError, match="download=False"):
        fetch_senate(data_home=tmp_path, download=False)


def test_unknown_checksum_gzip_check_and_trust_on_first_use(monkeypatch, tmp_path):
    dw = gzip.compress(b"2\n3\n3\n1 1 2\n1 3 1\n2 2 5\n")
    vocab = b"alpha\nbeta\ngamma\n"
    base = _remote._UCI_BOW
    fake_download(monkeypatch, {f"{base}/docword.nytimes.txt.gz": dw[:-5],
                                f"{base}/vocab.nytimes.txt": vocab})
    with pytest.raises(ChecksumError, match="gzip"):
        fetch_nytimes(data_home=tmp_path)
    assert not (tmp_path / "nytimes" / "docword.nytimes.txt.gz").exists()
    fake_download(monkeypatch, {f"{base}/docword.nytimes.txt.gz": dw,
                                f"{base}/vocab.nytimes.txt": vocab})
    b = fetch_nytimes(data_home=tmp_path)
    assert b.data.shape == (2, 3) and b.data.toarray().tolist() == [[2, 0, 1], [0, 5, 0]]
    assert b.feature_names == ["alpha", "beta", "gamma"]
    rec = tmp_path / "nytimes" / "docword.nytimes.txt.gz.sha256"
    assert rec.read_text().split()[0] == _sha(dw)
    (tmp_path / "nytimes" / "docword.nytimes.txt.gz").write_bytes(gzip.compress(b"2\n3\n0\n"))
    with pytest.raises(ChecksumError, match="does not match"):
        fetch_nytimes(data_home=tmp_path, load=False)


def test_sha256_parameter_checked():
    with pytest.raises(InvalidParameterError, match="sha256"):
        fetch_senate(sha256=42)


def _idx(magic, arr):
    head = magic.to_bytes(4, "big") + b"".join(int(n).to_bytes(4, "big") for n in arr.shape)
    return head + arr.astype(np.uint8).tobytes()


def test_mnist_verifies_decompressed_content(monkeypatch, tmp_path):
    imgs = np.arange(2 * 28 * 28).reshape(2, 28, 28) % 256
    raw_i, raw_l = _idx(2051, imgs), _idx(2049, np.array([3, 7]))
    files = _remote.REMOTE_FILES["mnist_t10k"]
    fake = tuple(RemoteFile(r.name, r.urls, content_sha256=_sha(raw))
                 for r, raw in zip(files, (raw_i, raw_l)))
    monkeypatch.setitem(_remote.REMOTE_FILES, "mnist_t10k", fake)
    d = tmp_path / "copy"
    d.mkdir()
    # any gzip wrapping of the right content is accepted (mirrors re-compress)
    (d / files[0].name).write_bytes(gzip.compress(raw_i, mtime=0))
    (d / files[1].name).write_bytes(gzip.compress(raw_l, compresslevel=1, mtime=123))
    b = fetch_mnist(path=d)
    assert b.data.shape == (2, 784) and b.target.tolist() == [3, 7]
    assert b.data.max() <= 1.0 and np.isclose(b.data[0, 1], 1 / 255)
    (d / files[1].name).write_bytes(gzip.compress(_idx(2049, np.array([3, 8]))))
    with pytest.raises(ChecksumError, match="decompressed"):
        fetch_mnist(path=d)


def test_senate_and_leukemia_loaders_on_local_files(monkeypatch, tmp_path):
    rec = np.array([[1, -1, 0], [1, 1, -1]])  # 2 bills x 3 senators
    scipy.io.savemat(tmp_path / "senateVoting.mat", {
        "records": rec, "party": np.array([["d"], ["r"], ["i"]], dtype=object),
        "senators": np.array([["A", "B", "C"]], dtype=object),
        "bills": np.array([["b1"], ["b2"]], dtype=object)})
    scipy.io.savemat(tmp_path / "amlAll.mat", {
        "Xtrain": np.ones((2, 4)), "ytrain": np.array([[-1], [1]]),
        "Xtest": np.zeros((1, 4)), "ytest": np.array([[1]])})
    for name in ("senate109", "leukemia_golub"):
        (r,) = _remote.REMOTE_FILES[name]
        monkeypatch.setitem(_remote.REMOTE_FILES, name, (RemoteFile(
            r.name, r.urls, sha256=_sha((tmp_path / r.name).read_bytes())),))
    s = fetch_senate(path=tmp_path)
    assert s.data.tolist() == rec.T.tolist() and s.feature_names == ["b1", "b2"]
    assert s.sample_names == ["A", "B", "C"] and s.target.tolist() == [0, 1, 2]
    g = fetch_leukemia(path=tmp_path / "amlAll.mat")
    assert g.data.shape == (3, 4) and g.target.tolist() == [0, 1, 1]


def test_files_placed_in_cache_folder_are_used(monkeypatch, tmp_path):
    monkeypatch.setenv("EIGENSPARSE_DATA", str(tmp_path))
    (tmp_path / "leukemia_golub").mkdir()
    scipy.io.savemat(tmp_path / "leukemia_golub" / "amlAll.mat", {
        "Xtrain": np.ones((1, 2)), "ytrain": np.array([[1]]),
        "Xtest": np.ones((1, 2)), "ytest": np.array([[-1]])})
    with pytest.raises(ChecksumError, match="amlAll.mat"):  # not the published file
        fetch_leukemia()
    sha = _sha((tmp_path / "leukemia_golub" / "amlAll.mat").read_bytes())
    assert fetch_leukemia(sha256=sha).target.tolist() == [1, 0]


@pytest.mark.parametrize("name", ["nytimes", "pubmed"])
def test_bag_of_words_loaders_read_local_copies_alike(name, tmp_path):
    """Every UCI bag-of-words loader reads a local copy (``path=``) the same way: counts,
    vocabulary, size in the description; ``load=False`` keeps only the vocabulary."""
    from eigensparse.datasets import fetch_pubmed

    fetch = {"nytimes": fetch_nytimes, "pubmed": fetch_pubmed}[name]
    (tmp_path / f"docword.{name}.txt.gz").write_bytes(gzip.compress(b"2\n3\n3\n1 1 2\n1 3 1\n2 2 5\n"))
    (tmp_path / f"vocab.{name}.txt").write_bytes(b"alpha\nbeta\ngamma\n")
    b = fetch(path=tmp_path)
    assert b.data.toarray().tolist() == [[2, 0, 1], [0, 5, 0]] and b.n_samples == 2
    assert b.feature_names == ["alpha", "beta", "gamma"] and "(D=2, W=3, NNZ=3)" in b.description
    assert fetch(path=tmp_path, load=False).data is None
    assert fetch.__name__ == f"fetch_{name}" and fetch.__module__ == "eigensparse.datasets._fetch"
    assert f"fetch_{name}(download=False, load=False)" in fetch.__doc__
