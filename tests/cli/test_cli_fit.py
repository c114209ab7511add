"""``eigensparse fit DATA``: every input format against the Python API, the table, the
JSON, the plots and the one-line errors."""
import json
import re
import sys
from dataclasses import replace

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import eigensparse as es
from eigensparse._result import jsonable
from eigensparse.cli import main

NAMES = [f"g{j}_{'abcdefghijkl'[j]}" for j in range(12)]


@pytest.fixture(scope="module")
def data():
    """60 samples x 12 features: two planted blocks ({0,1,2,3} strong, {6,7,8} weaker) plus
    noise, about half the entries zeroed so that the sparse files are really sparse."""
    rng = np.random.default_rng(7)
    X = 0.5 * rng.standard_normal((60, 12))
    X[:, :4] += 3.0 * rng.standard_normal((60, 1))
    X[:, 6:9] += 1.5 * rng.standard_normal((60, 1))
    X[rng.random(X.shape) < 0.5] = 0.0
    return X


def _csv(path, rows, header, labels=None):
    lines = [",".join(([] if labels is None else ["id"]) + header)]
    for i, row in enumerate(rows):
        lines.append(",".join(([] if labels is None else [labels[i]]) + [repr(float(v)) for v in row]))
    path.write_text("\n".join(lines) + "\n")
    return path


def _strict(path):
    return json.loads(path.read_text(),
                      parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))


def _dense(doc, p):
    """The components of a JSON result as a k x p array."""
    C = np.zeros((len(doc["components"]), p))
    for j, c in enumerate(doc["components"]):
        C[j, c["feature_ids"]] = c["loadings"]
    return C


def _assert_same(a, b, where="doc"):
    """Equal JSON content, floats to 1e-10."""
    if isinstance(a, dict):
        assert set(a) == set(b), where
        for k in a:
            _assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and not isinstance(b, bool):
        assert b == pytest.approx(a, rel=1e-10, abs=1e-10), where
    else:
        assert a == b, where


def _run_fit(argv, out, capsys):
    assert main(["fit", *argv, "--json", str(out)]) == 0
    return capsys.readouterr().out, _strict(out)


def _check_against_api(doc, text, ref, names):
    """The CLI's JSON equals the API's result (with the feature names) in content, and the
    table names the features of every component."""
    ref = replace(ref, feature_names=list(names))
    p = ref.components.shape[1]
    assert np.abs(_dense(doc, p) - ref.components).max() <= 1e-10
    expected = json.loads(json.dumps(jsonable(ref.to_dict())))
    _assert_same(expected, {k: doc[k] for k in expected})
    cols = [[names[i] for i in ref.ordered_support(j)] for j in range(len(doc["components"]))]
    assert [c["features"] for c in doc["components"]] == cols
    table = text.splitlines()  # header line, column heads, rule, then one feature per column
    assert table[1].split()[::3] == [f"PC{j + 1}" for j in range(len(cols))]
    for r in range(len(cols[0])):  # (every component has the same cardinality here)
        signed = []  # signed loadings in every table: the sign on the name, then |loading|
        for j, c in enumerate(cols):
            v = ref.components[j, ref.ordered_support(j)[r]]
            signed += [("+" if v > 0 else "−") + c[r], f"{abs(v):.3f}"]
        assert table[3 + r].split() == signed


@pytest.mark.parametrize("fmt", ["csv", "tsv", "npy", "npz", "mtx"])
def test_fit_data_files_match_the_api(fmt, data, tmp_path, capsys):
    X = data
    if fmt == "csv":
        path = _csv(tmp_path / "x.csv", X, NAMES, labels=[f"r{i}" for i in range(len(X))])
        names = NAMES
    elif fmt == "tsv":
        path = tmp_path / "x.tsv"
        path.write_text("\t".join(NAMES) + "\n" + "\n".join(
            "\t".join(repr(float(v)) for v in row) for row in X) + "\n")
        names = NAMES
    elif fmt == "npy":
        np.save(tmp_path / "x.npy", X)
        path, names = tmp_path / "x.npy", [f"x{j}" for j in range(12)]
    elif fmt == "npz":
        sp.save_npz(tmp_path / "x.npz", sp.csr_matrix(X))
        path, names = tmp_path / "x.npz", [f"x{j}" for j in range(12)]
    else:
        scipy.io.mmwrite(tmp_path / "x.mtx", sp.coo_matrix(X))
        path, names = tmp_path / "x.mtx", [f"x{j}" for j in range(12)]
    text, doc = _run_fit([str(path), "-k", "2", "-s", "4"], tmp_path / "out.json", capsys)
    data_in = sp.csr_matrix(X) if fmt in ("npz", "mtx") else X
    ref = es.sparse_pca(data_in, n_components=2, cardinality=4, random_state=0)
    _check_against_api(doc, text, ref, names)
    assert text.splitlines()[0].startswith(f"x: 60 samples x 12 features, method={ref.method}")
    assert doc["data"] == path.name and doc["n_samples"] == 60 and doc["covariance"] is False
    # the planted block is found (a check on the numbers, not only on agreement)
    assert set(doc["components"][0]["feature_ids"]) == {0, 1, 2, 3}
    if fmt in ("npz", "mtx"):  # sparse input is centered implicitly, never densified
        assert doc["operator"] == ref.info["operator"] and "sparse" in doc["operator"]


def test_fit_covariance_file_matches_the_api(data, tmp_path, capsys):
    S = np.cov(data, rowvar=False)
    path = _csv(tmp_path / "cov.csv", S, NAMES)
    text, doc = _run_fit([str(path), "--covariance", "-k", "3", "-s", "3",
                          "--deflation", "projection"], tmp_path / "c.json", capsys)
    ref = es.sparse_pca(es.Covariance(S), n_components=3, cardinality=3,
                        deflation="projection", random_state=0)
    _check_against_api(doc, text, ref, NAMES)
    assert text.splitlines()[0] == (f"cov: covariance of 12 features, method={ref.method}, "
                                    "deflation=projection")
    assert doc["covariance"] is True and doc["n_samples"] is None
    # the Matrix Market form of the same covariance gives the same components
    scipy.io.mmwrite(tmp_path / "cov.mtx", S)
    _, doc2 = _run_fit([str(tmp_path / "cov.mtx"), "--covariance", "-k", "3", "-s", "3",
                        "--deflation", "projection"], tmp_path / "c2.json", capsys)
    assert np.abs(_dense(doc2, 12) - ref.components).max() <= 1e-10


def test_fit_options_reach_the_solver(data, tmp_path, capsys):
    """Method, its registry-generated options, deflation, centering, scaling and the seed
    are the API's keyword arguments."""
    np.save(tmp_path / "x.npy", data)
    argv = [str(tmp_path / "x.npy"), "-k", "2", "-s", "3", "--method", "am", "--n-starts", "6",
            "--formulation", "l2_l0_con", "--deflation", "orthogonal", "--no-center", "--scaling", "unit",
            "--random-state", "5"]
    text, doc = _run_fit(argv, tmp_path / "o.json", capsys)
    ref = es.sparse_pca(data, n_components=2, cardinality=3, method="am", n_starts=6,
                        formulation="l2_l0_con", deflation="orthogonal", center=False,
                        scale=True, random_state=5)
    _check_against_api(doc, text, ref, [f"x{j}" for j in range(12)])
    assert doc["center"] is False and doc["scaling"] == "unit" and doc["method"] == "am"
    # default k and s are sparse_pca's (min(5, p) components of min(10, p) features)
    _, doc = _run_fit([str(tmp_path / "x.npy"), "--method", "greedy"], tmp_path / "d.json", capsys)
    assert [c["cardinality"] for c in doc["components"]] == [10] * 5


def test_fit_delimiter(data, tmp_path, capsys):
    path = tmp_path / "x.txt"
    path.write_text("|".join(NAMES) + "\n" + "\n".join(
        "|".join(repr(float(v)) for v in row) for row in data) + "\n")
    text, doc = _run_fit([str(path), "-k", "2", "-s", "4", "--delimiter", "|"],
                         tmp_path / "o.json", capsys)
    _check_against_api(doc, text, es.sparse_pca(data, n_components=2, cardinality=4,
                                                random_state=0), NAMES)
    np.save(tmp_path / "x.npy", data)
    assert "--delimiter applies to text tables" in _one_line_error(
        [str(tmp_path / "x.npy"), "--delimiter", ";"], capsys)


def test_fit_plot_and_verbose(data, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    _csv(tmp_path / "x.csv", data, NAMES)
    assert main(["fit", str(tmp_path / "x.csv"), "-k", "2", "-s", "3", "--plot",
                 str(tmp_path / "figs"), "-v"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"timings: load \d+\.\d\ds, solve \d+\.\d\ds", err)
    for name in ("components.png", "loadings.png", "variance_vs_cardinality.png"):
        png = (tmp_path / "figs" / name).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and name in err


def _one_line_error(argv, capsys):
    assert main(["fit", *argv]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.startswith("eigensparse: error:") and "\n" not in err, err
    assert "Traceback" not in captured.err and captured.out == ""
    return err


def test_fit_bad_files(data, tmp_path, capsys):
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b,c\n1,2,3\n4,5,6\n7,8\n9,10,11\n")
    err = _one_line_error([str(ragged)], capsys)
    assert f"{ragged}: line 4:" in err
    cell = tmp_path / "cell.csv"
    cell.write_text("a,b,c\n1,2,3\n4,5,6\n7,oops,9\n")
    err = _one_line_error([str(cell)], capsys)
    assert f"{cell}: line 4:" in err and "'oops'" in err and "'b'" in err
    rect = _csv(tmp_path / "rect.csv", data[:5], NAMES)
    err = _one_line_error([str(rect), "--covariance"], capsys)
    assert f"{rect}: line 1:" in err and "square" in err
    err = _one_line_error([str(tmp_path / "missing.csv")], capsys)
    assert f"{tmp_path / 'missing.csv'}: line 1: no such file" in err
    asym = tmp_path / "asym.csv"
    asym.write_text("a,b\n1,0.5\n0.2,1\n")
    err = _one_line_error([str(asym), "--covariance"], capsys)
    assert f"{asym}: line 2:" in err and "symmetric" in err
    odd = tmp_path / "x.xlsx"
    odd.write_text("not a table")
    assert "unknown format" in _one_line_error([str(odd)], capsys)


def test_fit_bad_options(data, tmp_path, capsys, run_cli):
    np.save(tmp_path / "x.npy", data)
    x = str(tmp_path / "x.npy")
    assert "method" in _one_line_error([x, "--method", "nope"], capsys)
    assert "cardinality" in _one_line_error([x, "-s", "13"], capsys)
    cov = str(_csv(tmp_path / "c.csv", np.eye(3), ["a", "b", "c"]))
    for flags in (["--scaling", "unit"], ["--no-center"]):
        assert f"{' '.join(flags)} does not apply to --covariance" in _one_line_error(
            [cov, "--covariance", *flags], capsys)
    assert "n_starts" in _one_line_error([x, "--method", "greedy", "--n-starts", "3"], capsys)
    # usage errors from the parser: one line naming the option, exit status 2, no traceback
    for argv, match in ((["-k", "0"], "-k/--n-components: expected an int in the range [1, inf)"),
                        (["--bogus"], "unrecognized arguments: --bogus"),
                        (["--deflation", "nope"], "--deflation: invalid choice"),
                        (["--scaling", "log"], "--scaling: invalid choice"),
                        (["--delimiter", "ab"], "--delimiter")):
        status, out, err = run_cli(["fit", x, *argv])
        assert status == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("eigensparse fit: error:")
        assert match in err


def test_fit_help_documents_the_formats(run_cli):
    status, out, _ = run_cli(["fit", "--help"])
    assert status == 0 and out.startswith("usage: eigensparse fit")
    for word in (".csv", ".tsv", ".npy", ".npz", "Matrix Market", "--covariance", "header",
                 "--method", "--deflation", "--scaling", "--no-center", "--json", "--plot",
                 "--n-starts", "line N"):
        assert word in out, word
