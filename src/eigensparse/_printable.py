"""Text that prints safely on any terminal: :func:`printable`, applied to every file
name, path, feature name and word that a table or a message shows."""
from __future__ import annotations

__all__ = ["printable"]


def printable(text, *, ascii: bool = False, encoding: str | None = None) -> str:
    """``text`` with what a terminal cannot show as itself escaped as Python does in a
    ``repr``: control characters (``\\n``, ``\\t``, ``\\x1b``), line separators, and the
    lone surrogates that stand for the undecodable bytes of a file name (``\\udcff``).
    With ``ascii=True`` every non-ASCII character is escaped too (``\\u2212``); with an
    ``encoding``, every character that encoding cannot write.

    Examples
    --------
    >>> from eigensparse._printable import printable
    >>> printable("caf\\u00e9"), printable("a\\nb"), printable("x\\udcffy")
    ('café', 'a\\\\nb', 'x\\\\udcffy')
    >>> printable("caf\\u00e9", ascii=True), printable("\\u2212x", encoding="latin-1")
    ('caf\\\\xe9', '\\\\u2212x')
    """
    text = str(text)
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    if ascii:
        encoding = "ascii"
    if encoding is not None:
        text = text.encode(encoding, "backslashreplace").decode(encoding)
    return text
