"""printable(): what a terminal cannot show as itself is escaped, the rest kept."""
import pytest

from eigensparse._printable import printable


@pytest.mark.parametrize("text, kw, expected", [
    ("plain", {}, "plain"),
    ("café", {}, "café"),
    ("a\nb\tc", {}, "a\\nb\\tc"),
    ("\x1b[31mred", {}, "\\x1b[31mred"),
    ("d\udcff.csv", {}, "d\\udcff.csv"),
    ("line\u2028sep", {}, "line\\u2028sep"),
    ("café −x", {"ascii": True}, "caf\\xe9 \\u2212x"),
    ("café −x", {"encoding": "latin-1"}, "café \\u2212x"),
    (3, {}, "3"),
])
def test_printable(text, kw, expected):
    out = printable(text, **kw)
    assert out == expected and out.isprintable()
    out.encode(kw.get("encoding", "ascii" if kw.get("ascii") else "utf-8"))
