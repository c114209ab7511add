"""UCI "Bag of Words" format: ``docword.*.txt[.gz]`` and ``vocab.*.txt``.

docword: three header lines D (documents), W (words), NNZ, then NNZ lines
``docID wordID count`` with 1-based ids. vocab: one word per line, line i is word i.
"""
from __future__ import annotations

import gzip
import io
import os
import re
import warnings

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError

__all__ = ["read_uci_bow", "read_vocabulary"]


def _open_text(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise InvalidParameterError(f"file {path!r} does not exist.")
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def read_vocabulary(path, n_words: int | None = None) -> list[str]:
    """Read a vocabulary file (one word per line, UTF-8).

    If ``n_words`` is given the file must have exactly that many (non-empty trailing
    lines are an error), except that the file may not end with a newline."""
    try:
        with _open_text(path) as f:
            text = f.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(
            f"{os.fspath(path)}: vocabulary is not valid UTF-8 (byte {exc.start}).") from exc
    words = text.split("\n")
    if words and words[-1] == "":
        words.pop()
    words = [w.rstrip("\r") for w in words]
    if n_words is not None and len(words) != n_words:
        raise InvalidParameterError(
            f"{os.fspath(path)}: vocabulary has {len(words)} lines but the docword header says "
            f"W={n_words} words.")
    return words


def _parse_body(body: bytes, name: str) -> np.ndarray:
    """Parse ``docID wordID count`` lines at C speed; on any irregularity fall back to
    the line-by-line parser, which names the offending line."""
    if not body.strip():
        return np.zeros((0, 3))
    n_lines = body.count(b"\n") + (0 if body.endswith(b"\n") else 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            flat = np.fromstring(body, dtype=np.float64, sep=" ")
        if flat.size == 3 * n_lines:
            return flat.reshape(-1, 3)
    except ValueError:
        pass
    try:
        return np.loadtxt(io.BytesIO(body), dtype=np.float64, ndmin=2)
    except ValueError as exc:
        msg = str(exc)
        m = re.search(r"row (\d+)", msg) or re.search(r"line (\d+)", msg)
        where = f"line {int(m.group(1)) + 4}" if m else "after the header"
        raise InvalidParameterError(f"{name}: {where}: malformed entry, expected 'docID wordID count' "
                                    f"({msg.splitlines()[0]}).") from None


def read_uci_bow(docword, vocab=None) -> tuple[sp.csr_matrix, list[str] | None]:
    """Read a UCI bag-of-words file into a CSR matrix (documents × words) in memory.

    Parameters
    ----------
    docword : path-like
        ``docword.NAME.txt`` or ``.txt.gz``.
    vocab : path-like, optional
        ``vocab.NAME.txt``; must have exactly W lines.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (D, W), float64 counts
    words : list of str or None
    """
    name = os.fspath(docword)
    try:
        with _open_text(docword) as f:
            header = [f.readline() for _ in range(3)]
            try:
                D, W, NNZ = (int(h) for h in header)
            except ValueError:
                raise InvalidParameterError(
                    f"{name}: line 1-3 must hold the integers D, W, NNZ; got {[h.strip()[:20] for h in header]}."
                ) from None
            body = f.read()
    except (EOFError, OSError, gzip.BadGzipFile) as exc:
        raise InvalidParameterError(f"{name}: cannot read ({type(exc).__name__}: {exc}); "
                                    "the file is truncated or corrupt.") from exc
    a = _parse_body(body, name)
    if a.shape[1] != 3:
        raise InvalidParameterError(f"{name}: expected 3 columns 'docID wordID count'; got {a.shape[1]}.")
    if a.shape[0] != NNZ:
        raise InvalidParameterError(
            f"{name}: header says NNZ={NNZ} but the body has {a.shape[0]} entries.")
    if not np.all(a == np.round(a)):
        bad = int(np.flatnonzero(np.any(a != np.round(a), axis=1))[0])
        raise InvalidParameterError(f"{name}: line {bad + 4}: ids and counts must be integers.")
    d, w, c = a[:, 0].astype(np.int64), a[:, 1].astype(np.int64), a[:, 2]
    for arr, lim, what in ((d, D, "document"), (w, W, "word")):
        badm = (arr < 1) | (arr > lim)
        if badm.any():
            bad = int(np.flatnonzero(badm)[0])
            raise InvalidParameterError(
                f"{name}: line {bad + 4}: {what} index {arr[bad]} outside [1, {lim}].")
    if np.any(c < 0):
        bad = int(np.flatnonzero(c < 0)[0])
        raise InvalidParameterError(f"{name}: line {bad + 4}: negative count {c[bad]:g}.")
    X = sp.csr_matrix((c, (d - 1, w - 1)), shape=(D, W))
    words = read_vocabulary(vocab, W) if vocab is not None else None
    return X, words
