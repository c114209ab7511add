"""The record-batch readers: formats by name, RFC 4180 quoting, compression, bad bytes."""
from __future__ import annotations

import bz2
import os
import gzip

import pyarrow as pa
import pytest

from eigensparse._validation import InvalidParameterError
from eigensparse.io._text_readers import (detect_format, iter_document_batches, list_files,
                                          locate_bad_bytes, split_compression)


def _texts(path, fmt=None, **kw):
    fmt = fmt or detect_format(str(path))
    out = []
    for texts, _ in iter_document_batches(str(path), fmt, **kw):
        out += texts.to_pylist()
    return out


def test_formats_by_name(tmp_path):
    assert split_compression("a.CSV.gz") == ("a.CSV", "gzip")
    assert [detect_format(n) for n in ("x.tsv.zst", "x.ndjson", "x.parquet", "x.md.bz2")] == \
        ["tsv", "jsonl", "parquet", "lines"]
    assert detect_format(str(tmp_path)) == "dir"


def test_csv_quoting_newlines_in_header_and_values(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('a,"b\nheader",c\n1,"two\nlines, ""quoted""",x\n2,plain,y\n', encoding="utf-8")
    assert _texts(path, text_column="b\nheader") == ['two\nlines, "quoted"', "plain"]


@pytest.mark.parametrize("suffix,compress", [(".gz", gzip.compress), (".bz2", bz2.compress),
                                             (".zst", None)])
def test_compressed_lines(tmp_path, suffix, compress):
    raw = "α first\nsecond\r\n\nthird".encode()
    path = tmp_path / f"l.txt{suffix}"
    if compress is None:
        with pa.CompressedOutputStream(str(path), "zstd") as f:
            f.write(raw)
    else:
        path.write_bytes(compress(raw))
    assert _texts(path) == ["α first", "second", "", "third"]


def test_bad_bytes_located_and_decoded_on_request(tmp_path):
    path = tmp_path / "l.txt"
    path.write_bytes(b"ok\nfine\nbad \xe9 here\n")
    assert locate_bad_bytes(str(path), None, "utf-8") == (3, 0xE9)
    with pytest.raises(InvalidParameterError, match=r"l.txt: line 3: not valid utf-8 \(byte 0xe9\)"):
        _texts(path)
    assert _texts(path, encoding="latin-1")[2] == "bad é here"
    assert _texts(path, decode_error="ignore")[2] == "bad  here"
    with pytest.raises(InvalidParameterError, match="unknown encoding"):
        _texts(path, encoding="no-such-codec")


def test_directory_walk_skips_hidden_and_names_bad_file(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.txt").write_text("one", encoding="utf-8")
    (tmp_path / "b" / "c.md.gz").write_bytes(gzip.compress(b"two"))
    (tmp_path / ".git" / "x").write_text("hidden", encoding="utf-8")
    assert [p[len(str(tmp_path)) + 1:] for p in list_files(str(tmp_path))] == ["a.txt", "b/c.md.gz"]
    assert _texts(tmp_path) == ["one", "two"]
    (tmp_path / "b" / "d.txt").write_bytes(b"x\n\xff")
    with pytest.raises(InvalidParameterError, match=r"d.txt: line 2: not valid utf-8"):
        _texts(tmp_path)


def test_directory_files_read_in_order_by_threads(tmp_path, monkeypatch):
    from eigensparse.io import _text_readers

    monkeypatch.setattr(_text_readers, "_DIR_BATCH_BYTES", 40)  # many batches, 8 readers each
    for i in range(50):
        (tmp_path / f"f{i:02d}.txt").write_text(f"doc {i} " * (i % 4 + 1), encoding="utf-8")
    assert _texts(tmp_path) == [f"doc {i} " * (i % 4 + 1) for i in range(50)]
    os.symlink(tmp_path / "missing", tmp_path / "g.txt")
    with pytest.raises(InvalidParameterError, match=r"g.txt: cannot read"):
        _texts(tmp_path)
