"""Vocabulary files of the UCI bag-of-words format: one word per line, line i is word i."""
from __future__ import annotations

import os
import zlib

from .._validation import InvalidParameterError

__all__ = ["read_vocabulary"]


def _err(path, line, msg) -> InvalidParameterError:
    return InvalidParameterError(f"{path}: line {line}: {msg}")


def _is_gzip(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def _check_exists(path: str):
    if not os.path.exists(path):
        raise InvalidParameterError(f"{path}: line 1: file does not exist.")
    if os.path.isdir(path):
        raise InvalidParameterError(f"{path}: line 1: is a directory, expected a file.")


def read_vocabulary(path, n_words: int | None = None) -> list[str]:
    """Read a vocabulary file: one word per line, UTF-8 (``.gz`` allowed).

    If ``n_words`` is given the file must have exactly that many lines (a final
    newline is optional). Errors name the file and the line.

    Examples
    --------
    >>> from importlib.resources import files
    >>> from eigensparse.io import read_vocabulary
    >>> words = read_vocabulary(files("eigensparse.datasets") / "data" / "vocab.kos.txt", 6906)
    >>> len(words), words[:3]
    (6906, ['aarp', 'abandon', 'abandoned'])
    """
    path = os.fspath(path)
    _check_exists(path)
    try:
        if _is_gzip(path):
            import gzip

            with gzip.open(path, "rb") as f:
                raw = f.read()
        else:
            with open(path, "rb") as f:
                raw = f.read()
    except (EOFError, OSError, zlib.error) as exc:
        raise _err(path, 1, f"cannot read the vocabulary ({type(exc).__name__}: {exc}); "
                   "the file is truncated or corrupt.") from exc
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise _err(path, line, f"vocabulary is not valid UTF-8 (byte {raw[exc.start]:#04x} at "
                   f"column {col}).") from None
    if not text:
        raise _err(path, 1, "empty vocabulary file.")
    words = text.split("\n")
    if words[-1] == "":
        words.pop()
    words = [w.rstrip("\r") for w in words]
    _check_unique_words(path, words)
    if n_words is not None and len(words) != n_words:
        if len(words) < n_words:
            raise _err(path, len(words) + 1,
                       f"vocabulary ends after {len(words)} words but the docword header says "
                       f"W={n_words}: it is shorter than W.")
        raise _err(path, n_words + 1,
                   f"vocabulary has {len(words)} words but the docword header says W={n_words}: "
                   f"it is longer than W (line {n_words + 1} is {words[n_words][:40]!r}).")
    return words


def _check_unique_words(path, words):
    """Refuse a vocabulary that names a word twice (topics would be ambiguous)."""
    if len(set(words)) == len(words):
        return
    first = {}
    for i, w in enumerate(words):
        if w in first:
            raise _err(path, i + 1, f"duplicate word {w[:40]!r} (first on line {first[w] + 1}); "
                       "every vocabulary line must be a distinct word.")
        first[w] = i
