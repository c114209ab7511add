"""Raw documents from files, streamed in record batches with bounded memory.

Formats (by name, after an optional ``.gz``/``.zst``/``.bz2``): ``.csv`` and ``.tsv``
(a header row; RFC 4180 quoting, newlines inside quotes included), ``.jsonl``/``.ndjson``
/``.json`` (one JSON object per line), ``.parquet``, a directory (every file below it is
one document, hidden ones excepted), and any other file: one document per line.

pyarrow's readers parse CSV and JSON in C++ on several threads, block by block, and read
Parquet column chunks; documents come out as pyarrow string arrays that the tokenizer
reads without copying. Each reader yields ``(texts, ids)`` batches: ``texts`` a string
array (nulls for missing values), ``ids`` the document names (the ``id_column``, the
line number, or the file's path below the directory).
"""
from __future__ import annotations

import codecs
import os

import numpy as np

from .._validation import InvalidParameterError

__all__ = ["TEXT_SUFFIXES", "detect_format", "split_compression", "iter_document_batches",
           "scan_files", "list_files"]

_COMPRESSIONS = {".gz": "gzip", ".zst": "zstd", ".bz2": "bz2"}
TEXT_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
                 ".json": "jsonl", ".parquet": "parquet", ".pq": "parquet"}
#: bytes per block read by a line reader
BLOCK_BYTES = 1 << 23
#: bytes per block of pyarrow's CSV and JSON readers: they read several blocks ahead, so
#: memory grows with the block (1 MB: about 100 MB in all, whatever the file's size)
PARSE_BLOCK_BYTES = 1 << 20
_DIR_BATCH_BYTES = 1 << 23


def split_compression(path: str):
    """``(path without the compression suffix, codec name or None)``."""
    low = path.lower()
    for suffix, codec in _COMPRESSIONS.items():
        if low.endswith(suffix):
            return path[:-len(suffix)], codec
    return path, None


def detect_format(path: str) -> str:
    """``"dir"``, ``"csv"``, ``"tsv"``, ``"jsonl"``, ``"parquet"`` or ``"lines"``.

    Examples
    --------
    >>> from eigensparse.io._text_readers import detect_format
    >>> detect_format("reviews.csv.gz"), detect_format("notes.jsonl"), detect_format("a.txt")
    ('csv', 'jsonl', 'lines')
    """
    if os.path.isdir(path):
        return "dir"
    base, _ = split_compression(path)
    return TEXT_SUFFIXES.get(os.path.splitext(base)[1].lower(), "lines")


def _stream(path, codec):
    import pyarrow as pa

    if codec == "gzip":
        try:
            from isal import igzip_threaded  # ISA-L: inflate several times faster than zlib

            return pa.PythonFile(igzip_threaded.open(path, "rb"), mode="r")
        except ImportError:  # pragma: no cover - isal is a dependency
            pass
    return pa.input_stream(path, compression=codec)


def _raw_bytes(path, codec):
    """A binary file object of the decompressed bytes."""
    if codec is None:
        return open(path, "rb")
    import pyarrow as pa

    return pa.input_stream(path, compression=codec)


def _columns_error(path, what, name, columns):
    shown = ", ".join(map(repr, columns[:50])) + (" …" if len(columns) > 50 else "")
    if name is None:
        return InvalidParameterError(
            f"{path}: give the {what} that holds the documents (--text-column / text_column=); "
            f"the {what}s are: {shown}.")
    return InvalidParameterError(f"{path}: no {what} {name!r}; the {what}s are: {shown}.")


def _pick_text(path, what, text_column, columns):
    if text_column is None:
        if len(columns) == 1:
            return columns[0]
        if "text" in columns:
            return "text"
    if text_column not in columns:
        raise _columns_error(path, what, text_column, columns)
    return text_column


def _check_id(path, what, id_column, columns):
    if id_column is not None and id_column not in columns:
        raise _columns_error(path, what, id_column, columns)


def locate_bad_bytes(path, codec, encoding: str):
    """``(line, byte value)`` of the first bytes that are not valid ``encoding``."""
    dec = codecs.getincrementaldecoder(encoding)()
    line, pos = 1, 0
    with _raw_bytes(path, codec) as f:
        while True:
            block = f.read(1 << 22)
            final = not block
            try:
                dec.decode(block, final)
            except UnicodeDecodeError as exc:
                buf = exc.object
                line += buf.count(b"\n", 0, exc.start)
                return line, buf[exc.start]
            if final:
                return None
            line += block.count(b"\n")
            pos += len(block)


def _decode_error(path, codec, encoding, exc=None):
    where = locate_bad_bytes(path, codec, encoding)
    if where is None:
        why = str(exc).splitlines()[0] if exc is not None else "unreadable"
        return InvalidParameterError(f"{path}: line 1: cannot read the documents ({why}).")
    line, byte = where
    return InvalidParameterError(
        f"{path}: line {line}: not valid {encoding} (byte {byte:#04x}); give the file's "
        f"encoding (--encoding / encoding=) or decode_error='replace'.")


def _decode_column(col, encoding, decode_error):
    """A binary column decoded in Python (a non-default encoding or error handler)."""
    import pyarrow as pa

    vals = col.to_pylist()
    return pa.array([None if v is None else v.decode(encoding, decode_error) for v in vals],
                    type=pa.large_string())


def _is_utf8_strict(encoding, decode_error):
    return codecs.lookup(encoding).name == "utf-8" and decode_error == "strict"


# -- CSV / TSV ---------------------------------------------------------------------------
def _csv_batches(path, codec, fmt, text_column, id_column, encoding, decode_error):
    import pyarrow as pa
    import pyarrow.csv as pcsv

    delim = "\t" if fmt == "tsv" else ","
    parse = pcsv.ParseOptions(delimiter=delim, newlines_in_values=True)
    strict = _is_utf8_strict(encoding, decode_error)
    ropts = dict(block_size=PARSE_BLOCK_BYTES, use_threads=True)
    if not strict and decode_error == "strict":
        ropts["encoding"] = encoding  # pyarrow transcodes to UTF-8 (strict)
    def problem(exc, line):
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "UTF8" in msg or isinstance(exc, UnicodeDecodeError):
            return _decode_error(path, codec, encoding, exc)
        return InvalidParameterError(f"{path}: after line {line}: not a readable "
                                     f"{fmt.upper()} file ({msg}).")

    try:
        head = pcsv.open_csv(_stream(path, codec), read_options=pcsv.ReadOptions(**ropts),
                             parse_options=parse,
                             convert_options=pcsv.ConvertOptions(column_types={}))
        columns = list(head.schema.names)
        head.close()
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        raise problem(exc, 1) from None
    text = _pick_text(path, "column", text_column, columns)
    _check_id(path, "column", id_column, columns)
    keep = [text] + ([id_column] if id_column not in (None, text) else [])
    ttype = pa.large_string() if "encoding" in ropts or strict else pa.large_binary()
    conv = pcsv.ConvertOptions(include_columns=keep, column_types={text: ttype, **(
        {id_column: pa.string()} if id_column not in (None, text) else {})},
        strings_can_be_null=False, quoted_strings_can_be_null=False)
    line = 1
    try:
        reader = pcsv.open_csv(_stream(path, codec), read_options=pcsv.ReadOptions(**ropts),
                               parse_options=parse, convert_options=conv)
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        raise problem(exc, line) from None
    try:
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
                raise problem(exc, line) from None
            col = batch.column(text)
            if ttype == pa.large_binary():
                col = _decode_column(col, encoding, decode_error)
            ids = batch.column(id_column) if id_column is not None else None
            if ids is None:
                ids = pa.array(np.arange(line, line + batch.num_rows), type=pa.int64())
            line += batch.num_rows
            yield col, ids
    finally:
        reader.close()


# -- JSON Lines ----------------------------------------------------------------------------
def _json_batches(path, codec, text_column, id_column, encoding, decode_error):
    import pyarrow as pa
    import pyarrow.json as pjson

    def stream():
        s = _stream(path, codec)
        if codecs.lookup(encoding).name != "utf-8":
            s = pa.transcoding_input_stream(s, encoding, "utf-8")
        return s

    ropts = pjson.ReadOptions(block_size=PARSE_BLOCK_BYTES, use_threads=True)
    try:
        head = pjson.open_json(stream(), read_options=ropts)
        columns = list(head.schema.names)
        head.close()
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        raise _json_error(path, codec, encoding, exc) from None
    text = _pick_text(path, "field", text_column, columns)
    _check_id(path, "field", id_column, columns)
    fields = [pa.field(text, pa.large_string())]
    if id_column not in (None, text):
        fields.append(pa.field(id_column, pa.string()))
    popts = pjson.ParseOptions(explicit_schema=pa.schema(fields), unexpected_field_behavior="ignore")
    line = 1
    try:
        reader = pjson.open_json(stream(), read_options=ropts, parse_options=popts)
    except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
        raise _json_error(path, codec, encoding, exc) from None
    try:
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except (pa.ArrowInvalid, UnicodeDecodeError) as exc:
                raise _json_error(path, codec, encoding, exc, line) from None
            ids = batch.column(id_column) if id_column is not None else \
                pa.array(np.arange(line, line + batch.num_rows), type=pa.int64())
            line += batch.num_rows
            yield batch.column(text), ids
    finally:
        reader.close()


def _json_error(path, codec, encoding, exc, line=1):
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "UTF8" in msg or "UTF-8" in msg or isinstance(exc, UnicodeDecodeError):
        return _decode_error(path, codec, encoding, exc)
    return InvalidParameterError(f"{path}: after line {line}: not JSON Lines ({msg}).")


# -- Parquet -----------------------------------------------------------------------------------
def _parquet_batches(path, codec, text_column, id_column, encoding, decode_error):
    import pyarrow as pa
    import pyarrow.parquet as pq

    if codec is not None:
        raise InvalidParameterError(f"{path}: a Parquet file compresses its own columns; "
                                    "give the .parquet file itself.")
    try:
        pf = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InvalidParameterError(f"{path}: line 1: not a Parquet file "
                                    f"({str(exc).splitlines()[0]}).") from None
    columns = list(pf.schema_arrow.names)
    text = _pick_text(path, "column", text_column, columns)
    _check_id(path, "column", id_column, columns)
    keep = [text] + ([id_column] if id_column not in (None, text) else [])
    row = 0
    for batch in pf.iter_batches(batch_size=1 << 16, columns=keep):
        col = batch.column(text)
        if pa.types.is_binary(col.type) or pa.types.is_large_binary(col.type):
            col = _decode_column(col, encoding, decode_error)
        elif not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            col = col.cast(pa.large_string())
        ids = batch.column(id_column) if id_column is not None else \
            pa.array(np.arange(row + 1, row + 1 + batch.num_rows), type=pa.int64())
        row += batch.num_rows
        yield col, ids


# -- one document per line ------------------------------------------------------------------
def _as_strings(path, chunks_bytes: bytes, offsets, encoding, decode_error, first_line):
    """A string array of the byte ranges ``offsets`` of ``chunks_bytes`` (checked UTF-8)."""
    import pyarrow as pa

    n = offsets.size - 1
    arr = pa.Array.from_buffers(pa.large_binary(), n, [None, pa.py_buffer(offsets),
                                                        pa.py_buffer(chunks_bytes)])
    if _is_utf8_strict(encoding, decode_error):
        try:
            return arr.cast(pa.large_string())
        except pa.ArrowInvalid:
            for k, v in enumerate(arr.to_pylist()):
                try:
                    v.decode("utf-8")
                except UnicodeDecodeError as exc:
                    bad = v[exc.start]
                    where = f"line {first_line + k}" if first_line is not None else "line 1"
                    raise InvalidParameterError(
                        f"{path}: {where}: not valid utf-8 (byte {bad:#04x}); give the file's "
                        "encoding (--encoding / encoding=) or decode_error='replace'.") from None
            raise  # pragma: no cover
    try:
        return _decode_column(arr, encoding, decode_error)
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(f"{path}: not valid {encoding} ({exc.reason}).") from None


def _line_batches(path, codec, encoding, decode_error):
    import pyarrow as pa

    line = 1
    rest = b""
    with _raw_bytes(path, codec) as f:
        while True:
            block = f.read(BLOCK_BYTES)
            data = rest + block if rest else block
            if not data:
                return
            buf = np.frombuffer(data, dtype=np.uint8)
            nl = np.flatnonzero(buf == 10)
            if block and nl.size == 0:
                rest = data
                continue
            end = int(nl[-1]) + 1 if block else buf.size
            starts = np.r_[0, nl + 1]
            stops = np.r_[nl, buf.size]
            m = int(np.searchsorted(starts, end, side="left")) if block else starts.size
            starts, stops = starts[:m], stops[:m]
            if not block and starts.size and starts[-1] == buf.size:
                starts, stops = starts[:-1], stops[:-1]
            cr = (stops > starts) & (buf[np.maximum(stops - 1, 0)] == 13)
            stops = stops - cr
            # a compact copy of the lines (without the newlines) for one string array
            lens = stops - starts
            offsets = np.zeros(starts.size + 1, dtype=np.int64)
            np.cumsum(lens, out=offsets[1:])
            idx = np.repeat(starts - offsets[:-1], lens) + np.arange(int(offsets[-1]))
            payload = buf[idx].tobytes()
            texts = _as_strings(path, payload, offsets, encoding, decode_error, line)
            yield texts, pa.array(np.arange(line, line + starts.size), type=pa.int64())
            line += starts.size
            rest = data[end:] if block else b""
            if not block:
                return


# -- a directory ------------------------------------------------------------------------------
def scan_files(root):
    """``(name below root, size, mtime_ns)`` of every file below ``root`` (hidden files
    and directories, and linked directories, excepted), sorted by name; one ``stat``
    per file (from the directory scan)."""
    out = []
    stack = [("", os.fspath(root))]
    while stack:
        rel, folder = stack.pop()
        with os.scandir(folder) as it:
            for e in it:
                if e.name.startswith("."):
                    continue
                if e.is_dir():
                    if not e.is_symlink():
                        stack.append((rel + e.name + os.sep, e.path))
                    continue
                try:
                    st = e.stat()
                except OSError:  # a broken link: reading it will say so
                    out.append((rel + e.name, 0, 0))
                    continue
                out.append((rel + e.name, st.st_size, st.st_mtime_ns))
    out.sort()
    return out


def list_files(root):
    """Every file below ``root`` (hidden files and directories excepted), sorted."""
    return [os.path.join(root, name) for name, _, _ in scan_files(root)]


def _read_file(fn):
    base, codec = split_compression(fn)
    if codec is None:
        with open(fn, "rb", buffering=0) as f:
            return f.readall()
    with _raw_bytes(fn, codec) as f:
        return f.read()


#: threads reading the files of a directory (waiting on the disk, not the CPU)
_READ_THREADS = 8


def _dir_groups(files):
    """Consecutive files of about ``_DIR_BATCH_BYTES`` together."""
    group, size = [], 0
    for name, nbytes, _ in files:
        group.append(name)
        size += nbytes
        if size >= _DIR_BATCH_BYTES:
            yield group
            group, size = [], 0
    if group:
        yield group


def _dir_texts(path, names, parts, encoding, decode_error):
    import pyarrow as pa

    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    try:
        texts = _as_strings(path, b"".join(parts), offsets, encoding, decode_error, None)
    except InvalidParameterError:
        for fn_rel, raw in zip(names, parts):  # name the file and its line
            try:
                raw.decode(encoding, decode_error)
            except UnicodeDecodeError as exc:
                line = raw.count(b"\n", 0, exc.start) + 1
                raise InvalidParameterError(
                    f"{os.path.join(path, fn_rel)}: line {line}: not valid {encoding} "
                    f"(byte {raw[exc.start]:#04x}); give the files' encoding (--encoding / "
                    "encoding=) or decode_error='replace'.") from None
        raise
    return texts, pa.array(names, type=pa.string())


def _dir_batches(path, encoding, decode_error, files=None):
    from concurrent.futures import ThreadPoolExecutor

    files = scan_files(path) if files is None else files
    if not files:
        raise InvalidParameterError(f"{path}: the directory holds no files.")

    def read(names):
        out = []
        for n in names:
            fn = os.path.join(path, n)
            try:
                out.append(_read_file(fn))
            except OSError as exc:
                raise InvalidParameterError(
                    f"{fn}: cannot read ({exc.strerror or exc}).") from None
        return out

    def start(group):
        k = _READ_THREADS
        cuts = [len(group) * t // k for t in range(k + 1)]
        return group, [pool.submit(read, group[cuts[t]:cuts[t + 1]]) for t in range(k)]

    with ThreadPoolExecutor(_READ_THREADS, thread_name_prefix="read") as pool:
        groups = _dir_groups(files)
        pending = start(next(groups))
        try:
            while pending is not None:
                names, futs = pending
                following = next(groups, None)
                pending = start(following) if following is not None else None
                parts = [raw for f in futs for raw in f.result()]
                yield _dir_texts(path, names, parts, encoding, decode_error)
        finally:
            if pending is not None:
                for f in pending[1]:
                    f.cancel()


def iter_document_batches(path, fmt, *, text_column=None, id_column=None, encoding="utf-8",
                          decode_error="strict", files=None):
    """``(texts, ids)`` batches of the documents of ``path`` (format ``fmt``); a
    directory's ``files`` may be given (as :func:`scan_files` gives them)."""
    if decode_error not in ("strict", "replace", "ignore"):
        raise InvalidParameterError(f"parameter 'decode_error' must be 'strict', 'replace' or "
                                    f"'ignore'; got {decode_error!r}.")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InvalidParameterError(f"parameter 'encoding': unknown encoding {encoding!r}.") from None
    if fmt == "dir":
        return _dir_batches(path, encoding, decode_error, files)
    _, codec = split_compression(path)
    if fmt in ("csv", "tsv"):
        return _csv_batches(path, codec, fmt, text_column, id_column, encoding, decode_error)
    if fmt == "jsonl":
        return _json_batches(path, codec, text_column, id_column, encoding, decode_error)
    if fmt == "parquet":
        return _parquet_batches(path, codec, text_column, id_column, encoding, decode_error)
    return _line_batches(path, codec, encoding, decode_error)
