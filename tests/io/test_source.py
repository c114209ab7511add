"""The background text source (``io/_source.py``): ISA-L and zlib decode the same bytes
(concatenated gzip members included) and report a truncated or corrupt stream the same
way; the source's checksum is the CRC-32 of the raw file."""
import gzip
import zlib

import pytest

from eigensparse.io._source import DECODERS, TextSource, decoder, file_crc32
from eigensparse.io.uci import iter_uci_chunks
from eigensparse._validation import InvalidParameterError


def _pieces(path, name):
    src = TextSource(str(path), checksum=True, decoder_name=name)
    out = list(src)
    problems = [p for p in out if isinstance(p, tuple)]
    return b"".join(p for p in out if not isinstance(p, tuple)), problems, src.digest()


@pytest.fixture
def members(tmp_path):
    text = b"".join(f"{d} {w} {1 + (d * w) % 7}\n".encode()
                    for d in range(1, 3001) for w in (d % 50 + 1, d % 50 + 60))
    path = tmp_path / "docword.m.txt.gz"
    # three members, one of them empty, then zero padding
    path.write_bytes(gzip.compress(text[:20000]) + gzip.compress(b"") + gzip.compress(text[20000:])
                     + b"\0" * 16)
    return path, text


@pytest.mark.parametrize("name", sorted(DECODERS))
def test_every_decoder_gives_the_same_bytes_and_checksum(members, name):
    path, text = members
    got, problems, digest = _pieces(path, name)
    assert problems == [] and got == text
    assert digest == file_crc32(path) == f"crc32:{zlib.crc32(path.read_bytes()):08x}"


@pytest.mark.parametrize("name", sorted(DECODERS))
def test_truncated_and_corrupt_streams(members, tmp_path, name):
    path, _ = members
    raw = path.read_bytes()
    cut = tmp_path / "cut.gz"
    cut.write_bytes(raw[: len(raw) // 2])
    assert _pieces(cut, name)[1][0][0] == "truncated"
    bad = tmp_path / "bad.gz"
    bad.write_bytes(raw[:30] + bytes(b ^ 0xFF for b in raw[30:200]) + raw[200:])
    assert _pieces(bad, name)[1][0][0] == "corrupt"
    tail = tmp_path / "tail.gz"
    tail.write_bytes(gzip.compress(b"1\n") + b"garbage")
    assert _pieces(tail, name)[1] == [("corrupt", "trailing data after the end of the gzip stream")]


def test_default_decoder_and_bad_name():
    assert decoder() is DECODERS.get("isal", zlib)
    with pytest.raises(InvalidParameterError, match="parameter 'decoder'"):
        decoder("gzip9")


def test_plain_text_is_passed_through(tmp_path):
    p = tmp_path / "docword.t.txt"
    p.write_bytes(b"2\n3\n3\n1 1 2\n1 3 1\n2 2 5\n")
    assert _pieces(p, None)[0] == p.read_bytes()
    assert [c.count.tolist() for c in iter_uci_chunks(p)] == [[2, 1, 5]]
