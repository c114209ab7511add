"""Tables are read with RFC 4180 quoting (issue #33): quoted cells may hold the delimiter,
doubled quotes and line breaks, in the header and in the data; line numbers in errors
count the physical lines."""
import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.io.tabular import load_data, read_table


def test_quoted_header_with_a_newline(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('a,b,"c\nnewline",d\n1,2,3,4\n5,6,7,9\n2,2,1,1\n')
    X, names = read_table(path)
    assert names == ["a", "b", "c\nnewline", "d"]
    np.testing.assert_array_equal(X, [[1, 2, 3, 4], [5, 6, 7, 9], [2, 2, 1, 1]])


@pytest.mark.parametrize("suffix, sep", [(".csv", ","), (".tsv", "\t")])
def test_quoted_labels_and_doubled_quotes(tmp_path, suffix, sep):
    path = tmp_path / f"q{suffix}"
    rows = [['id', '"x ""q"""', "y"], ['"r\n1"', "1", "2"], [f'"r{sep}2"', "3", "5"], ["r3", '"3"', "3"]]
    path.write_text("\n".join(sep.join(r) for r in rows) + "\n")
    X, names = read_table(path)
    assert names == ['x "q"', "y"]
    np.testing.assert_array_equal(X, [[1, 2], [3, 5], [3, 3]])


def test_errors_after_a_multiline_record_name_the_physical_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text('"a\nb",c\n1,2\n3,oops\n')
    with pytest.raises(InvalidParameterError, match=r"bad.csv: line 4: column 2 \('c'\): cannot read 'oops'"):
        read_table(path)
    cov = tmp_path / "cov.csv"
    cov.write_text('"x\ny",z\n1,0.5\n0.4,1\n')
    with pytest.raises(InvalidParameterError, match=r"cov.csv: line 3: a covariance must be symmetric"):
        load_data(cov, covariance=True)


@pytest.mark.parametrize("text, names", [
    ('"a,b";c;d\n1;2;3\n4;5;7\n', ["a,b", "c", "d"]),
    ('"x\ny"\t"p;q"\n1\t2\n3\t5\n', ["x\ny", "p;q"]),
])
def test_delimiter_of_a_txt_is_found_outside_quoted_cells(tmp_path, text, names):
    path = tmp_path / "t.txt"
    path.write_text(text)
    X, got = read_table(path)
    assert got == names and X.shape == (2, len(names))
