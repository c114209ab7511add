"""eigensparse.io.tabular.load_data: every format, and a one-line error for every bad file."""
import gzip

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import eigensparse as es
from eigensparse import InvalidParameterError
from eigensparse.io.tabular import load_data, read_table

RNG = np.random.default_rng(0)
X = RNG.standard_normal((6, 4))


def write(path, text):
    path.write_text(text)
    return path


def csv_text(X, names=None, sep=",", labels=None):
    lines = [sep.join((["id"] if labels else []) + names)] if names else []
    for i, row in enumerate(X):
        cells = ([labels[i]] if labels else []) + [repr(float(v)) for v in row]
        lines.append(sep.join(cells))
    return "\n".join(lines) + "\n"


def test_csv_with_header(tmp_path):
    f = write(tmp_path / "returns.csv", csv_text(X, ["a", "b", "c", "d"]))
    data, names, name = load_data(f)
    assert np.array_equal(data, X) and names == ["a", "b", "c", "d"] and name == "returns"


def test_tsv_row_labels_and_gzip(tmp_path):
    f = tmp_path / "t.tsv.gz"
    f.write_bytes(gzip.compress(csv_text(X, list("abcd"), "\t", [f"r{i}" for i in range(6)]).encode()))
    data, names, name = load_data(f)
    assert np.array_equal(data, X) and names == list("abcd") and name == "t"


def test_headerless_whitespace_table_and_delimiter(tmp_path):
    f = write(tmp_path / "m.txt", "1 2 3\n4 5 6\n\n")
    data, names, _ = load_data(f)
    assert data.tolist() == [[1, 2, 3], [4, 5, 6]] and names == ["x0", "x1", "x2"]
    g = write(tmp_path / "m.dat", "x|y\n1|2\n3|4\n")
    assert load_data(g, delimiter="|")[0].tolist() == [[1, 2], [3, 4]]


def test_npy_npz_mtx(tmp_path):
    np.save(tmp_path / "a.npy", X)
    assert np.array_equal(load_data(tmp_path / "a.npy")[0], X)
    S = sp.random(7, 5, density=0.4, random_state=1, format="csr")
    sp.save_npz(tmp_path / "s.npz", S)
    got, names, name = load_data(tmp_path / "s.npz")
    assert sp.issparse(got) and np.allclose(got.toarray(), S.toarray()) and name == "s"
    assert names == [f"x{j}" for j in range(5)]
    scipy.io.mmwrite(tmp_path / "m.mtx", S)
    assert np.allclose(load_data(tmp_path / "m.mtx")[0].toarray(), S.toarray())


def test_covariance_file_same_components_as_api(tmp_path):
    C = np.cov(X, rowvar=False)
    f = write(tmp_path / "cov.csv", csv_text(C, list("abcd")))
    op, names, _ = load_data(f, covariance=True)
    assert isinstance(op, es.Covariance) and names == list("abcd")
    a = es.sparse_pca(op, n_components=2, cardinality=2, method="exhaustive")
    b = es.sparse_pca(es.Covariance(C), n_components=2, cardinality=2, method="exhaustive")
    assert np.allclose(a.components, b.components)
    np.save(tmp_path / "cov.npy", C)
    assert np.allclose(load_data(tmp_path / "cov.npy", covariance=True)[0].to_dense(), C)


@pytest.mark.parametrize("name, body, match", [
    ("a.csv", "a,b\n1,2\n3,x\n", r"a\.csv: line 3: column 2 \('b'\): cannot read 'x'"),
    ("a.csv", "a,b\n1,2\n3,\n", r"line 3: column 2 \('b'\): empty cell"),
    ("a.csv", "a,b\n1,2\n3,4,5\n", r"line 3: 3 numeric columns where the first row has 2"),
    ("a.csv", "a,b\n1,nan\n", r"line 2: column 2 \('b'\): nan is not a finite number"),
    ("a.csv", "", r"line 1: the file is empty"),
    ("a.csv", "a,b\n", r"line 1: a header but no data rows"),
    ("a.csv", "a,b,c,d\n1,2\n", r"line 1: the header has 4 names for 2 numeric columns"),
    ("a.xlsx", "1,2\n", r"line 1: unknown format '.xlsx'"),
])
def test_bad_tables(tmp_path, name, body, match):
    f = write(tmp_path / name, body)
    with pytest.raises(InvalidParameterError, match=match) as e:
        load_data(f)
    assert "\n" not in str(e.value)


def test_bad_binary_files(tmp_path):
    cases = []
    np.save(tmp_path / "v.npy", np.arange(3.0))
    cases.append(("v.npy", r"v\.npy: line 1: .*2-D matrix; got shape \(3,\)"))
    np.save(tmp_path / "o.npy", np.array([[{"a": 1}]], dtype=object))
    cases.append(("o.npy", r"o\.npy: line 1: not a numeric \.npy array"))
    np.save(tmp_path / "n.npy", np.array([[1.0, np.inf]]))
    cases.append(("n.npy", r"entry \(0, 1\) is inf"))
    (tmp_path / "j.npy").write_bytes(b"junk")
    cases.append(("j.npy", r"j\.npy: line 1:"))
    np.savez(tmp_path / "d.npz", x=np.eye(2))
    cases.append(("d.npz", r"d\.npz: line 1: not a scipy\.sparse \.npz"))
    (tmp_path / "b.mtx").write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n")
    cases.append(("b.mtx", r"b\.mtx: line \d+: not a valid Matrix Market"))
    cases.append(("missing.csv", r"missing\.csv: line 1: no such file"))
    for name, match in cases:
        with pytest.raises(InvalidParameterError, match=match) as e:
            load_data(tmp_path / name)
        assert "\n" not in str(e.value), name


def test_bad_covariance_files(tmp_path):
    f = write(tmp_path / "r.csv", "a,b,c\n1,2,3\n4,5,6\n")
    with pytest.raises(InvalidParameterError, match=r"r\.csv: line 1: .*square; got shape \(2, 3\)"):
        load_data(f, covariance=True)
    g = write(tmp_path / "s.csv", "a,b\n1,0.5\n0.4,1\n")
    with pytest.raises(InvalidParameterError, match=r"s\.csv: line 2: .*symmetric; entry \(0, 1\)"):
        load_data(g, covariance=True)
    h = write(tmp_path / "neg.csv", "a,b\n-1,0\n0,1\n")
    with pytest.raises(InvalidParameterError, match=r"neg\.csv: line 1: .*negative diagonal"):
        load_data(h, covariance=True)


def test_read_table_names_and_values(tmp_path):
    f = write(tmp_path / "x.csv", '"name, with comma",b\n1,2\n')
    data, names = read_table(f)
    assert names == ["name, with comma", "b"] and data.tolist() == [[1, 2]]
