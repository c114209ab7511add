"""Other corpus formats: Matrix Market, scipy ``.npz``, raw text documents.

These are read in memory (a Matrix Market or ``.npz`` document-term matrix of a corpus
that fits in memory, or a list of raw documents turned into counts by scikit-learn's
vectorizers); :mod:`eigensparse.text` then streams over the in-memory matrix exactly as
over a UCI file.
"""
from __future__ import annotations

import glob
import os
import re

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError, real_dtype_problem

__all__ = ["read_matrix_market", "read_npz", "read_text_documents", "vectorize_documents"]


def _exists(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InvalidParameterError(f"{path}: line 1: file does not exist.")
    return path


def _check_matrix(X, path, what):
    problem = real_dtype_problem(X.dtype)
    if problem:
        raise InvalidParameterError(f"{path}: line 1: {what} {problem}.")
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise InvalidParameterError(f"{path}: line 1: {what} must be a non-empty 2-D matrix; got shape {X.shape}.")
    try:
        X = sp.csr_matrix(X, dtype=np.float64)
        X.check_format(full_check=True)
    except (ValueError, TypeError, IndexError) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidParameterError(f"{path}: line 1: {what} is malformed ({why}).") from None
    if X.nnz and not np.all(np.isfinite(X.data)):
        raise InvalidParameterError(f"{path}: line 1: {what} has NaN or infinite entries.")
    X.sum_duplicates()
    X.sort_indices()
    return X


def read_matrix_market(path, *, transpose: bool = False) -> sp.csr_matrix:
    """Read a Matrix Market file (``.mtx``, ``.mtx.gz``) as a CSR documents × words matrix.

    ``transpose=True`` for files stored words × documents.

    Examples
    --------
    >>> import os, tempfile
    >>> import scipy.io, scipy.sparse as sp
    >>> from eigensparse.io import read_matrix_market
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "counts.mtx")
    ...     scipy.io.mmwrite(path, sp.csr_matrix([[2, 0, 1], [0, 5, 0]]))
    ...     X = read_matrix_market(path)
    >>> X.format, X.toarray().tolist()
    ('csr', [[2.0, 0.0, 1.0], [0.0, 5.0, 0.0]])
    """
    import scipy.io

    path = _exists(path)
    try:
        X = scipy.io.mmread(path)
    except Exception as exc:  # scipy raises ValueError, OSError, IndexError, ...
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        m = re.search(r"line (\d+)", msg)
        line = m.group(1) if m else "1"
        raise InvalidParameterError(f"{path}: line {line}: not a valid Matrix Market file ({msg}).") from None
    if not sp.issparse(X):
        X = sp.csr_matrix(np.asarray(X))
    if transpose:
        X = X.T
    return _check_matrix(X, path, "the Matrix Market matrix")


def read_npz(path) -> sp.csr_matrix:
    """Read a scipy sparse ``.npz`` (``scipy.sparse.save_npz``) as a CSR matrix.

    Examples
    --------
    >>> import os, tempfile
    >>> import scipy.sparse as sp
    >>> from eigensparse.io import read_npz
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "counts.npz")
    ...     sp.save_npz(path, sp.csc_matrix([[2, 0, 1], [0, 5, 0]]))
    ...     X = read_npz(path)
    >>> X.format, X.toarray().tolist()
    ('csr', [[2.0, 0.0, 1.0], [0.0, 5.0, 0.0]])
    """
    path = _exists(path)
    try:
        X = sp.load_npz(path)
    except Exception as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidParameterError(
            f"{path}: line 1: not a scipy.sparse .npz file (scipy.sparse.save_npz) ({msg}).") from None
    return _check_matrix(X, path, "the .npz matrix")


def vectorize_documents(documents, *, vectorizer: str = "count", **options):
    """Turn raw documents into a document-term matrix with scikit-learn.

    Parameters
    ----------
    documents : iterable of str
    vectorizer : {"count", "tfidf", "binary"}
        ``CountVectorizer``, ``TfidfVectorizer`` or ``CountVectorizer(binary=True)``.
    **options
        Passed to the vectorizer (e.g. ``stop_words="english"``, ``min_df=5``).

    Returns
    -------
    X : scipy.sparse.csr_matrix (documents × words), float64
    words : list of str

    Examples
    --------
    >>> from eigensparse.io import vectorize_documents
    >>> X, words = vectorize_documents(["sparse pca", "sparse sparse matrix"])
    >>> words, X.toarray().tolist()
    (['matrix', 'pca', 'sparse'], [[0.0, 1.0, 1.0], [1.0, 0.0, 2.0]])
    """
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

    if vectorizer not in ("count", "tfidf", "binary"):
        raise InvalidParameterError(
            f"parameter 'vectorizer' must be 'count', 'tfidf' or 'binary'; got {vectorizer!r}.")
    docs = list(documents)
    if not docs:
        raise InvalidParameterError("parameter 'documents' is empty.")
    if vectorizer == "tfidf":
        v = TfidfVectorizer(**options)
    else:
        if vectorizer == "binary":
            options = {**options, "binary": True}
        v = CountVectorizer(**options)
    try:
        X = v.fit_transform(docs)
    except ValueError as exc:
        raise InvalidParameterError(f"vectorize_documents: {exc}") from None
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    return X, [str(w) for w in v.get_feature_names_out()]


def read_text_documents(source, *, vectorizer: str = "count", encoding: str = "utf-8",
                        text_column: str | None = None, **options):
    """Read raw documents and vectorize them (see :func:`vectorize_documents`).

    ``source`` is a directory (every ``*.txt`` file, in name order, is one document), a
    list of strings, or a file:

    - ``.csv`` / ``.tsv``: a table with a header row (RFC 4180 quoting: a quoted cell may
      hold commas, doubled quotes and line breaks); each row's ``text_column`` is one
      document (required: a table is not one document per line);
    - ``.jsonl`` / ``.ndjson``: one JSON value per line, decoded (escapes such as ``\\n``
      are characters, not words): a string, or an object whose field ``text_column`` is
      the document;
    - any other file: one document per line.

    ``vectorizer="tfidf"`` gives tf-idf weights, which :func:`eigensparse.text.extract_topics`
    refuses to weight again (pass ``scaling="count"`` to use them as they are).

    Examples
    --------
    >>> from eigensparse.io import read_text_documents
    >>> X, words = read_text_documents(["sparse pca", "sparse matrix"], vectorizer="binary")
    >>> words, X.toarray().tolist()
    (['matrix', 'pca', 'sparse'], [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])
    """
    if isinstance(source, (list, tuple)):
        return vectorize_documents(source, vectorizer=vectorizer, **options)
    path = _exists(source)
    docs = []
    if os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(path, "*.txt")))
        if not files:
            raise InvalidParameterError(f"{path}: line 1: directory has no *.txt documents.")
        for fn in files:
            raw = open(fn, "rb").read()
            docs.append(_decode(raw, fn, encoding))
    else:
        raw = open(path, "rb").read()
        docs = _file_documents(_decode(raw, path, encoding), path, text_column)
    return vectorize_documents(docs, vectorizer=vectorizer, **options)


def _file_documents(text: str, path: str, text_column) -> list:
    """The documents of one file's text, by its suffix (see :func:`read_text_documents`)."""
    low = path.lower()
    if low.endswith((".csv", ".tsv")):
        return _table_documents(text, path, text_column, "\t" if low.endswith(".tsv") else ",")
    if low.endswith((".jsonl", ".ndjson")):
        return _json_documents(text, path, text_column)
    if text_column is not None:
        raise InvalidParameterError(
            f"parameter 'text_column' applies to .csv, .tsv and .jsonl files; {path} is read "
            "as one document per line.")
    return text.splitlines()


def _columns(names) -> str:
    return ", ".join(repr(c) for c in list(names)[:20]) + (", …" if len(names) > 20 else "")


def _table_documents(text: str, path: str, text_column, delimiter: str) -> list:
    """Each row's ``text_column`` of a table with a header (csv module: RFC 4180)."""
    import csv
    import io

    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader, None)
        if header is None:
            raise InvalidParameterError(f"{path}: line 1: the file is empty.")
        if text_column is None:
            raise InvalidParameterError(
                f"{path}: a table, not one document per line: give text_column= (the column "
                f"of the documents; the columns are {_columns(header)}).")
        if text_column not in header:
            raise InvalidParameterError(
                f"parameter 'text_column': {path} has no column {text_column!r}; its columns "
                f"are {_columns(header)}.")
        j, docs, end = header.index(text_column), [], reader.line_num
        for row in reader:
            start, end = end + 1, reader.line_num
            if not row:
                continue
            if j >= len(row):
                raise InvalidParameterError(
                    f"{path}: line {start}: {len(row)} cells, no {text_column!r} (column {j + 1}).")
            docs.append(row[j])
    except csv.Error as exc:
        raise InvalidParameterError(f"{path}: line {reader.line_num}: {exc}.") from None
    return docs


def _json_documents(text: str, path: str, text_column) -> list:
    """One decoded JSON value per line: a string, or an object's ``text_column``."""
    import json

    docs = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidParameterError(f"{path}: line {n}: not valid JSON ({exc.msg}, column "
                                        f"{exc.colno}).") from None
        if isinstance(value, dict):
            if text_column is None or text_column not in value:
                what = ("an object: give text_column=" if text_column is None else
                        f"no field {text_column!r} (parameter 'text_column')")
                raise InvalidParameterError(f"{path}: line {n}: {what}; its fields are "
                                            f"{_columns(value)}.")
            value = value[text_column]
        if not isinstance(value, str):
            raise InvalidParameterError(f"{path}: line {n}: the document is "
                                        f"{type(value).__name__}, not a string.")
        docs.append(value)
    return docs


def _decode(raw: bytes, path, encoding):
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InvalidParameterError(f"{path}: line {line}: not valid {encoding} "
                                    f"(byte {raw[exc.start]:#04x}).") from None
