"""Read a data matrix (or a precomputed covariance) from a file, whatever its format.

:func:`load_data` is the reader behind ``eigensparse fit DATA``:

- ``.csv``, ``.tsv``, ``.txt`` (optionally ``.gz``): a numeric table; a first row that is not
  numeric is the header (feature names), a first column that is not numeric holds row labels;
- ``.npy``: a 2-D numeric NumPy array (``numpy.save``; no pickled objects);
- ``.npz``: a scipy sparse matrix (``scipy.sparse.save_npz``);
- ``.mtx``, ``.mtx.gz``: Matrix Market.

With ``covariance=True`` the matrix is a precomputed covariance: it must be square and
symmetric, and comes back as an :class:`eigensparse.Covariance`.

Every problem raises :class:`~eigensparse.InvalidParameterError` with a one-line message
``FILE: line N: what is wrong``.
"""
from __future__ import annotations

import csv
import gzip
import io
import os
import re

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError, real_dtype_problem

__all__ = ["load_data", "read_table", "TABLE_SUFFIXES"]

#: file suffixes read as delimited text tables
TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".dat")
_DELIMITERS = {".csv": ",", ".tsv": "\t"}


def _err(path, line, msg) -> InvalidParameterError:
    return InvalidParameterError(f"{path}: line {line}: {msg}")


def _suffixes(path) -> tuple[str, str]:
    """(format suffix, stem) of ``path``, looking through a final ``.gz``."""
    base = os.path.basename(path).lower()
    if base.endswith(".gz"):
        base = base[:-3]
    stem, ext = os.path.splitext(base)
    return ext, stem


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _open_text(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise _err(path, 1, f"not a valid gzip file ({exc}).") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise _err(path, line, f"not valid UTF-8 text (byte {raw[exc.start]:#04x}).") from None


def _sniff_delimiter(lines, ext: str):
    """The delimiter of a table by its suffix, else the first of tab, comma, semicolon
    outside the quoted cells of the first record (which may span lines), else None: runs
    of white space."""
    if ext in _DELIMITERS:
        return _DELIMITERS[ext]
    first = next(i for i, ln in enumerate(lines) if ln.strip())
    record, n = lines[first], first + 1
    while record.count('"') % 2 and n < len(lines):  # a quoted cell goes on
        record, n = record + "\n" + lines[n], n + 1
    record = re.sub(r'"(?:[^"]|"")*"', "", record)
    for d in ("\t", ",", ";"):
        if d in record:
            return d
    return None


def _records(text: str, delimiter, limit=None):
    """(first line, last line, cells) of every non-blank record (at most ``limit``): a line
    of white-space separated cells, or an RFC 4180 record of ``delimiter`` (quoted cells may
    hold the delimiter, doubled quotes and line breaks, so a record may span lines)."""
    out = []
    if delimiter is None:
        for n, ln in enumerate(text.splitlines(), 1):
            if ln.strip():
                out.append((n, n, ln.split()))
                if limit is not None and len(out) == limit:
                    break
        return out
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"',
                        doublequote=True, strict=False)
    end = 0
    for cells in reader:
        start, end = end + 1, reader.line_num
        if any(c.strip() for c in cells):
            out.append((start, end, [c.strip() for c in cells]))
            if limit is not None and len(out) == limit:
                break
    return out


def _rows(text: str, delimiter):
    """(first line, cells) of every non-blank record (see :func:`_records`)."""
    try:
        return [(n, cells) for n, _, cells in _records(text, delimiter)]
    except csv.Error as exc:  # e.g. a NUL byte
        raise InvalidParameterError(f"cannot read the table ({exc}).") from None


def _parse_row(path, n, cells, width, labels, names):
    """One data row as floats; errors name the line, the column and the cell."""
    values = cells[1:] if labels else cells
    if len(values) != width:
        raise _err(path, n, f"{len(values)} numeric columns where the first row has {width}.")
    try:
        row = np.array(values, dtype=np.float64)
    except ValueError:
        j = next(j for j, c in enumerate(values) if not _is_number(c))
        what = "empty cell" if values[j] == "" else f"cannot read {values[j]!r} as a number"
        raise _err(path, n, f"column {j + 1 + labels} ({names[j]!r}): {what}.") from None
    if not np.all(np.isfinite(row)):
        j = int(np.flatnonzero(~np.isfinite(row))[0])
        raise _err(path, n, f"column {j + 1 + labels} ({names[j]!r}): {values[j]} is not a "
                            f"finite number.")
    return row


def read_table(path, *, delimiter=None):
    """Read a delimited numeric table.

    Parameters
    ----------
    path : path-like
        A ``.csv`` (comma), ``.tsv`` (tab) or other text file, optionally gzip-compressed.
    delimiter : str, optional
        Cell separator; by default from the suffix, else the first of tab, comma, semicolon
        found in the first line, else runs of white space.

    Returns
    -------
    X : ndarray of shape (n_rows, n_columns)
    feature_names : list of str
        The header, or ``x0``, ``x1``, … when the first row is numeric.

    Examples
    --------
    >>> import os, tempfile
    >>> from eigensparse.io.tabular import read_table
    >>> path = os.path.join(tempfile.mkdtemp(), "returns.csv")
    >>> _ = open(path, "w").write("date,AAA,BBB\\n2024-01-02,0.5,-1\\n2024-01-03,1.5,2\\n")
    >>> X, names = read_table(path)
    >>> X.tolist(), names
    ([[0.5, -1.0], [1.5, 2.0]], ['AAA', 'BBB'])
    """
    X, names, _ = _read_table(os.fspath(path), delimiter)
    return X, names


def _read_table(path, delimiter):
    """:func:`read_table` plus the line number of each row."""
    text = _open_text(path)
    ext, _ = _suffixes(path)
    lines = text.splitlines()
    if not any(ln.strip() for ln in lines):
        raise _err(path, 1, "the file is empty.")
    delimiter = delimiter if delimiter is not None else _sniff_delimiter(lines, ext)
    try:
        head = _records(text, delimiter, limit=2)
    except csv.Error as exc:  # e.g. a NUL byte
        raise _err(path, 1, f"cannot read the table ({exc}).") from None
    layout = _layout(path, [(n, cells) for n, _, cells in head])
    body_start = head[1][0] if layout[1] else head[0][0]  # the first data record's line
    X = _fast_table(lines[body_start - 1:], delimiter, layout)
    if X is not None:
        return X, layout[3], [n for n in range(body_start, len(lines) + 1)
                              if lines[n - 1].strip()]
    try:
        data = _rows(text, delimiter)[1 if layout[1] else 0:]
    except InvalidParameterError as exc:
        raise _err(path, body_start, str(exc)) from None
    _, _, labels, names = layout
    width = len(names)
    X = np.vstack([_parse_row(path, n, cells, width, labels, names) for n, cells in data])
    return X, names, [n for n, _ in data]


def _layout(path, head):
    """(first data line, has header, has row labels, feature names) from the first rows."""
    header = not all(_is_number(c) for c in head[0][1] if c != "")
    if header and len(head) < 2:
        raise _err(path, head[0][0], "a header but no data rows.")
    first_line, cells = head[1] if header else head[0]
    labels = not _is_number(cells[0])  # a first column of row labels (dates, ids)
    width = len(cells) - labels
    if width < 1:
        raise _err(path, first_line, "no numeric column.")
    if header:
        if len(head[0][1]) not in (width, width + 1):
            raise _err(path, head[0][0], f"the header has {len(head[0][1])} names for "
                                         f"{width} numeric columns.")
        from ._vocab import check_vocabulary

        offset = len(head[0][1]) - width  # 1: the header names the row labels' column too
        names = check_vocabulary(head[0][1][offset:], "data", path=path, line=head[0][0],
                                 first=offset + 1)
    else:
        names = [f"x{j}" for j in range(width)]
    return first_line, header, labels, names


def _fast_table(lines, delimiter, layout):
    """The numeric block (``lines``: from the first data record on) by NumPy's C parser, or
    None when anything is irregular, quoted cells included (the RFC 4180 record parser then
    reads the rows, or finds and reports the problem)."""
    _, _, labels, names = layout
    body = [ln for ln in lines if ln.strip()]
    count = (lambda ln: len(ln.split())) if delimiter is None else (lambda ln: ln.count(delimiter))
    if len({count(ln) for ln in body}) != 1 or any('"' in ln for ln in body):
        return None
    try:
        X = np.loadtxt(io.StringIO("\n".join(body)), delimiter=delimiter, ndmin=2,
                       usecols=range(labels, labels + len(names)), comments=None,
                       quotechar=None if delimiter is None else '"', dtype=np.float64)
    except ValueError:
        return None
    return X if X.shape == (len(body), len(names)) and np.all(np.isfinite(X)) else None


def _read_npy(path):
    try:
        X = np.load(path, allow_pickle=False)
    except ValueError as exc:  # pickled objects, or not an .npy file
        raise _err(path, 1, f"not a numeric .npy array ({str(exc).splitlines()[0]}).") from None
    except OSError as exc:
        raise _err(path, 1, f"cannot read the .npy file ({exc}).") from None
    if isinstance(X, np.lib.npyio.NpzFile) or not isinstance(X, np.ndarray):
        raise _err(path, 1, "not a .npy array (numpy.save).")
    if X.ndim != 2 or 0 in X.shape:
        raise _err(path, 1, f"the array must be a non-empty 2-D matrix; got shape {X.shape}.")
    problem = real_dtype_problem(X.dtype)
    if problem:
        raise _err(path, 1, f"the array {problem}.")
    X = np.asarray(X, dtype=np.float64)
    if not np.all(np.isfinite(X)):
        i, j = np.argwhere(~np.isfinite(X))[0]
        raise _err(path, 1, f"entry ({i}, {j}) is {X[i, j]}: not a finite number.")
    return X


def _read_matrix(path, ext, delimiter):
    from .formats import read_matrix_market, read_npz

    if ext in TABLE_SUFFIXES:
        return _read_table(path, delimiter)
    if ext == ".npy":
        X = _read_npy(path)
    elif ext == ".npz":
        X = read_npz(path)
    elif ext == ".mtx":
        X = read_matrix_market(path)
    else:
        raise _err(path, 1, f"unknown format {ext or '(no suffix)'!r}; expected one of "
                            f"{', '.join((*TABLE_SUFFIXES, '.npy', '.npz', '.mtx'))} "
                            f"(optionally .gz for text and Matrix Market).")
    return X, [f"x{j}" for j in range(X.shape[1])], None


def _as_covariance(path, X, row_lines):
    from ..operators import Covariance

    if X.shape[0] != X.shape[1]:
        raise _err(path, 1, f"a covariance must be square; got shape {X.shape}.")
    C = X.toarray() if sp.issparse(X) else np.asarray(X)
    scale = max(float(np.max(np.abs(C))), np.finfo(float).tiny)
    bad = np.abs(C - C.T) > 1e-8 * scale
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise _err(path, row_lines[i] if row_lines else 1,
                   f"a covariance must be symmetric; entry ({i}, {j}) = {C[i, j]:.6g} "
                            f"but ({j}, {i}) = {C[j, i]:.6g}.")
    try:
        return Covariance(0.5 * (C + C.T))
    except InvalidParameterError as exc:
        raise _err(path, 1, str(exc)) from None


def load_data(path, *, covariance: bool = False, delimiter=None):
    """Read a data matrix, or a precomputed covariance, from a file.

    Parameters
    ----------
    path : path-like
        ``.csv``/``.tsv``/``.txt`` table (optionally ``.gz``; a non-numeric first row is the
        header), ``.npy`` array, ``.npz`` scipy sparse matrix or ``.mtx`` Matrix Market file.
    covariance : bool, default False
        The file holds a covariance (or correlation) matrix: square and symmetric.
    delimiter : str, optional
        Cell separator of a text table (see :func:`read_table`).

    Returns
    -------
    data : ndarray of shape (n_samples, n_features), scipy.sparse.csr_matrix or Covariance
        The samples × features matrix, or an :class:`eigensparse.Covariance` of shape
        (n_features, n_features) when ``covariance=True``.
    feature_names : list of str
        From the header of a table, else ``x0``, ``x1``, ….
    name : str
        The file name without its suffixes (for titles and output files).

    Raises
    ------
    InvalidParameterError
        One line, ``FILE: line N: what is wrong``, for a missing, unreadable or malformed file.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import eigensparse as es
    >>> from eigensparse.io.tabular import load_data
    >>> folder = tempfile.mkdtemp()
    >>> np.save(os.path.join(folder, "prices.npy"), np.arange(12.0).reshape(4, 3))
    >>> X, names, name = load_data(os.path.join(folder, "prices.npy"))
    >>> X.shape, names, name
    ((4, 3), ['x0', 'x1', 'x2'], 'prices')
    >>> _ = open(os.path.join(folder, "corr.csv"), "w").write("a,b\\n1,0.5\\n0.5,1\\n")
    >>> C, names, _ = load_data(os.path.join(folder, "corr.csv"), covariance=True)
    >>> isinstance(C, es.Covariance), names
    (True, ['a', 'b'])
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise _err(path, 1, "no such file." if not os.path.exists(path) else "not a file.")
    ext, stem = _suffixes(path)
    X, names, row_lines = _read_matrix(path, ext, delimiter)
    if covariance:
        return _as_covariance(path, X, row_lines), names, stem
    return X, names, stem
