"""Let docstrings keep plain-text notation that reStructuredText would misread.

The package's docstrings write mathematics in plain text (``|U_ij| <= ρ``, ``‖x‖₁``) and
name fitted attributes scikit-learn style (``components_``). In reStructuredText a pair of
bars is a substitution reference and a trailing underscore a hyperlink reference, both errors
in a ``-W`` build. This extension escapes them in prose only: literal blocks, directives'
bodies (``.. math::``), doctest blocks and ````literal```` / ``:role:`...``` spans are left
untouched.
"""
import re

_SPAN = re.compile(r"(``.+?``|:[\w:.-]+:`[^`]*`|`[^`]*`_{0,2})")
_TRAILING_UNDERSCORE = re.compile(r"(?<=\w)_(?![\w`])")
_GRID_ROW = re.compile(r"^(\+[-=+]+\+|\|.*\|)$")


def _escape_prose(text: str) -> str:
    parts = _SPAN.split(text)
    for i in range(0, len(parts), 2):  # even indices: outside literal/role/reference spans
        parts[i] = _TRAILING_UNDERSCORE.sub(r"\\_", parts[i].replace("|", r"\|"))
    return "".join(parts)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def escape_lines(lines: list) -> list:
    """The docstring ``lines`` with bars and trailing underscores escaped in prose."""
    out, block_indent, in_doctest = [], None, False
    for line in lines:
        stripped = line.strip()
        if block_indent is not None:
            if not stripped or _indent(line) > block_indent:
                out.append(line)
                continue
            block_indent = None
        if in_doctest:
            if stripped:
                out.append(line)
                continue
            in_doctest = False
        if stripped.startswith(">>>"):
            in_doctest = True
            out.append(line)
            continue
        if _GRID_ROW.match(stripped):  # a row or border of a grid table
            out.append(line)
            continue
        if stripped.startswith(".. ") or stripped.endswith("::"):
            block_indent = _indent(line)
            out.append(line if stripped.startswith(".. ") else _escape_prose(line))
            continue
        out.append(_escape_prose(line))
    return out


def _process(app, what, name, obj, options, lines):
    lines[:] = escape_lines(lines)


def setup(app):
    # priority below numpydoc's (500) so the raw docstring is escaped before numpydoc parses it
    app.connect("autodoc-process-docstring", _process, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
