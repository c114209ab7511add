"""The compiled docword parser (``io/_parse.py``) against a plain Python reading of the
same bytes: entries, line counts, the canonical flag, and each error code at its line and
field."""
import numpy as np
import pytest

from eigensparse.io import _parse as parse_module
from eigensparse.io._parse import ERR_MESSAGES, OK, count_lines, parse_block


def _run(text, n_docs=3, n_words=4, max_entries=100, prev=(-1, -1), require_sorted=False):
    buf = np.frombuffer(text.encode(), dtype=np.uint8)
    doc = np.zeros(max_entries, np.int32)
    word = np.zeros(max_entries, np.int32)
    cnt = np.zeros(max_entries, np.int64)
    out = parse_block(buf, n_docs, n_words, doc, word, cnt, max_entries, prev[0], prev[1],
                      require_sorted)
    k = out[0]
    return out, list(zip(doc[:k].tolist(), word[:k].tolist(), cnt[:k].tolist()))


def _python_reference(text):
    rows = [ln.split() for ln in text.split("\n")]
    return [(int(d) - 1, int(w) - 1, int(c)) for d, w, c in (r for r in rows if r)]


@pytest.mark.parametrize("text", [
    "1 1 3\n1 4 1\n2 2 7\n3 1 1\n",
    "1 1 3\r\n\n  1 4 1 \t\n2 2 7",     # CRLF, a blank line, spaces and tabs, no last newline
    "2 2 1\n1 3 2\n",                    # unsorted documents: accepted, not canonical
    "1 2 1\n1 2 5\n",                    # a duplicate: accepted, not canonical
])
def test_entries_equal_a_python_reading(text):
    (k, n_lines, err, err_line, _, canonical, last_doc, last_word), got = _run(text)
    assert err == OK and err_line == -1
    ref = _python_reference(text)
    assert got == ref and k == len(ref)
    assert n_lines == text.count("\n") + (not text.endswith("\n"))
    increasing = all(a[:2] < b[:2] for a, b in zip(ref, ref[1:]))
    assert canonical == int(increasing)
    assert (last_doc, last_word) == ref[-1][:2]


@pytest.mark.parametrize("line, code, field", [
    ("1 1", "ERR_FIELDS_FEW", 2),
    ("1 1 1 1", "ERR_FIELDS_MANY", 3),
    ("1 x 1", "ERR_NOT_INTEGER", 1),
    ("1 1 -2", "ERR_NEGATIVE", 2),
    ("4 1 1", "ERR_DOC_RANGE", 0),
    ("1 5 1", "ERR_WORD_RANGE", 1),
    ("1 1 0", "ERR_ZERO_COUNT", 2),
    ("1 1 99999999999999999999", "ERR_TOO_LARGE", 2),
])
def test_each_error_at_its_line_and_field(line, code, field):
    text = "1 1 1\n\n" + line + "\n3 1 1\n"
    (k, _, err, err_line, err_field, *_), got = _run(text)
    assert err == getattr(parse_module, code) and err in ERR_MESSAGES
    assert err_line == 2 and err_field == field
    assert got == [(0, 0, 1)]  # the entries before the error are kept


def test_order_and_entry_limits_carry_across_blocks():
    (_, _, err, err_line, *_), _ = _run("2 1 1\n1 1 1\n", require_sorted=True)
    assert err == parse_module.ERR_UNSORTED and err_line == 1
    # the previous block ended at document 3: document 2 now is out of order
    (_, _, err, err_line, *_), _ = _run("2 1 1\n", prev=(2, 0), require_sorted=True)
    assert err == parse_module.ERR_UNSORTED and err_line == 0
    (k, _, err, err_line, *_), _ = _run("1 1 1\n1 2 1\n1 3 1\n", max_entries=2)
    assert err == parse_module.ERR_TOO_MANY_ENTRIES and err_line == 2 and k == 2


def test_count_lines():
    for text in ("", "a", "a\n", "a\r\nb\n\nc"):
        assert count_lines(np.frombuffer(text.encode(), dtype=np.uint8)) == text.count("\n")


def test_fast_and_general_paths_agree_on_random_lines():
    """Lines of the usual form take the 8-bytes-at-a-time path; numbers of 9 or more
    digits, leading zeros, tabs, CR and a last line without newline the general one."""
    rng = np.random.default_rng(0)
    lines, ref = [], []
    for i in range(3000):
        d, w, c = (int(v) for v in rng.integers(1, [10**8, 10**8, 10**12]))
        nd = int(rng.integers(0, 3))  # leading zeros
        sep = " " if rng.random() < 0.9 else "\t"
        end = "\n" if rng.random() < 0.95 else "\r\n"
        lines.append(f"{'0' * nd}{d}{sep}{w} {c}{end}")
        ref.append((d - 1, w - 1, c))
    text = "".join(lines).rstrip("\n")
    (k, n_lines, err, *_), got = _run(text, n_docs=10**8, n_words=10**8, max_entries=4000)
    assert err == OK and k == 3000 and n_lines == 3000 and got == ref
