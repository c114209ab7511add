"""Vocabulary files of the UCI bag-of-words format (one word per line, line i is word i),
and the one check of every vocabulary, whatever its route (:func:`check_vocabulary`)."""
from __future__ import annotations

import numbers
import os
import re
import unicodedata
import zlib

from .._validation import InvalidParameterError

__all__ = ["read_vocabulary", "check_vocabulary"]


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
    if "\r" in text:
        words = [w.rstrip("\r") for w in words]
    check_vocabulary(words, "vocab", path=path)
    if n_words is not None and len(words) != n_words:
        if len(words) < n_words:
            raise _err(path, len(words) + 1,
                       f"vocabulary ends after {len(words)} words but the docword header says "
                       f"W={n_words}: it is shorter than W.")
        raise _err(path, n_words + 1,
                   f"vocabulary has {len(words)} words but the docword header says W={n_words}: "
                   f"it is longer than W (line {n_words + 1} is {words[n_words][:40]!r}).")
    return words


#: characters that show nothing: white space, controls, format characters (zero width)
_INVISIBLE = ("Cc", "Cf", "Zs", "Zl", "Zp")

#: the ASCII characters that show nothing (white space and controls)
_ASCII_INVISIBLE = "".join(map(chr, range(33))) + "\x7f"


def _blank(w: str) -> bool:
    if w.isascii():
        return not w.strip(_ASCII_INVISIBLE)
    return all(c.isspace() or unicodedata.category(c) in _INVISIBLE for c in w)


#: white space and controls (U+001F, the separator of the joined words, aside): an ASCII
#: vocabulary without any needs no entry-by-entry check
_SPACE_OR_CONTROL = re.compile(r"[\x00-\x1e\x20\x7f]")


def _all_str(words) -> bool:
    return set(map(type, words)) <= {str}


def _plainly_fine(words) -> bool:
    """A fast yes for the common vocabulary (a list of ``str``): distinct ASCII strings,
    none empty, without white space or controls (no entry-by-entry check then)."""
    if len(set(words)) != len(words):
        return False
    joined = "\x1f".join(words)
    return (joined.isascii() and _SPACE_OR_CONTROL.search(joined) is None and joined != ""
            and "\x1f\x1f" not in joined and joined[0] != "\x1f" and joined[-1] != "\x1f")


def _vocabulary_problem(words):
    """(index, what is wrong, index of the first occurrence or None, how it is the same) of
    the first entry of ``words`` that is not a string, is blank (shows nothing: white
    space, control or zero-width characters), or repeats an earlier entry (the same word
    up to surrounding white space and Unicode normalization: it would print the same);
    None when all are distinct non-blank strings."""
    first = {}
    for i, w in enumerate(words):
        if not isinstance(w, str):
            return i, f"{type(w).__name__} {w!r} is not a string", None, ""
        w = str(w)
        if _blank(w):
            return i, f"blank word {w!r}", None, ""
        key = w.strip() if w.isascii() else unicodedata.normalize("NFC", w.strip())
        if key in first:
            j = first[key]
            same = "" if words[j] == w else f": {words[j][:40]!r} up to white space or Unicode " \
                                            "normalization"
            return i, f"duplicate word {w[:40]!r}", j, same
        first[key] = i
    return None


def check_vocabulary(words, parameter: str = "vocab", *, path=None, line=None, first: int = 1,
                     entry: str = "entry") -> list:
    """Refuse a vocabulary (a list of words, or the lines of a vocabulary file) with an
    entry that is not a string, is blank (shows nothing: empty, white space, control or
    zero-width characters) or repeats an earlier entry (up to surrounding white space and
    Unicode normalization). Every route to words (a vocabulary file, a list, array or
    Series given to :func:`~eigensparse.text.extract_topics`, a table header, a
    DataFrame's columns, the ``feature_names`` of a :class:`~eigensparse.Covariance`, the
    estimator's ``topics(vocabulary=...)``) gives the same one-line message naming the
    parameter, the first offending entry and its position: ``FILE: line N:`` for a file,
    ``FILE: line N: column J:`` for the names of one line of a file (``line=``; its first
    name in column ``first``), else the 0-based ``entry`` (e.g. ``"column"`` for a
    DataFrame). Integer entries (a DataFrame's default columns) count as their text.
    Returns the words as a list of ``str``.

    >>> from eigensparse.io._vocab import check_vocabulary
    >>> check_vocabulary(["a", "b"])
    ['a', 'b']
    >>> check_vocabulary(["a", "b", "a"])
    Traceback (most recent call last):
    ...
    eigensparse._constraints.InvalidParameterError: parameter 'vocab': entry 2: duplicate word 'a' (first at entry 0); every word (feature name) must be a distinct, non-blank string.
    """
    words = list(words)
    strings = _all_str(words)
    if not strings:  # integer names (a DataFrame's columns) as text
        words = [str(w) if isinstance(w, (str, numbers.Integral)) and not isinstance(w, bool)
                 else w for w in words]
        strings = _all_str(words)
    problem = None if strings and _plainly_fine(words) else _vocabulary_problem(words)
    if problem is None:
        return words
    i, what, j, same = problem
    rule = "every word (feature name) must be a distinct, non-blank string"
    if path is not None and line is not None:  # the names of one line (a table's header)
        where = "" if j is None else f" (first in column {j + first}{same})"
        raise _err(path, line, f"column {i + first}: {what}{where}; {rule}.")
    if path is not None:
        where = "" if j is None else f" (first on line {j + 1}{same})"
        raise _err(path, i + 1, f"{what}{where}; {rule} (parameter '{parameter}').")
    where = "" if j is None else f" (first at {entry} {j}{same})"
    raise InvalidParameterError(f"parameter '{parameter}': {entry} {i}: {what}{where}; {rule}.")
