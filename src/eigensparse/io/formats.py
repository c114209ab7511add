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
      document (needed unless the table has one column or a column ``text``: a table is
      never one document per line);
    - ``.jsonl`` / ``.ndjson`` / ``.json``: one JSON object per line, decoded (escapes
      such as ``\\n`` are characters, not words), its field ``text_column`` (or ``text``);
    - ``.parquet``: the column ``text_column``;
    - any other file: one document per line;

    each optionally compressed (``.gz``, ``.zst``, ``.bz2``), read by the readers of the
    ``topics`` command (:mod:`eigensparse.io._text_readers`).

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
        docs = _file_documents(path, encoding, text_column)
    return vectorize_documents(docs, vectorizer=vectorizer, **options)


def _file_documents(path: str, encoding: str, text_column) -> list:
    """The documents of one file by its format (:mod:`eigensparse.io._text_readers`, the
    readers of the ``topics`` command: pyarrow's CSV, JSON and Parquet readers, .gz/.zst/
    .bz2 looked through); a missing value is an empty document (rows stay aligned)."""
    from ._text_readers import detect_format, iter_document_batches, split_compression

    fmt = detect_format(path)
    if fmt != "lines":
        return [t if t is not None else "" for texts, _ in
                iter_document_batches(path, fmt, text_column=text_column, encoding=encoding)
                for t in texts.to_pylist()]
    if text_column is not None:
        raise InvalidParameterError(
            f"parameter 'text_column' applies to .csv, .tsv, .jsonl and .parquet files; "
            f"{path} is read as one document per line.")
    if split_compression(path)[1] is not None:
        return [t for texts, _ in iter_document_batches(path, fmt, encoding=encoding)
                for t in texts.to_pylist()]
    return _decode(open(path, "rb").read(), path, encoding).splitlines()


def _decode(raw: bytes, path, encoding):
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InvalidParameterError(f"{path}: line {line}: not valid {encoding} "
                                    f"(byte {raw[exc.start]:#04x}).") from None
