"""Readable results (issue 10, item 7): short reprs, summary() and the notebook HTML."""
import re

import numpy as np
import pytest

from eigensparse import ComponentResult, InvalidParameterError, SparsePCA, sparse_pca


@pytest.fixture(scope="module")
def X():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 200))
    X[:, :4] += 3 * rng.standard_normal((200, 1)) * np.array([1, -1, 1, -1])
    return X


@pytest.fixture(scope="module")
def res(X):
    return sparse_pca(X, n_components=3, cardinality=4, method="greedy")


def test_reprs_are_short_and_hold_no_arrays(res):
    text = repr(res)
    assert text.startswith("SparsePCAResult(n_components=3, n_features=200, method='greedy'")
    assert "cardinalities=[4, 4, 4]" in text and "array" not in text and len(text) < 200
    one = repr(res.results[0])
    assert one.startswith("ComponentResult(method='greedy', cardinality=4, n_features=200")
    assert "array" not in one and "upper_bound" not in one and len(one) < 200
    r = ComponentResult(np.array([0.6, 0.8]), np.array([0, 1]), 2.5, "exhaustive",
                        upper_bound=2.5, gap=0.0)
    assert "upper_bound=2.5, gap=0" in repr(r)


def _rows(text):
    """The component rows of a summary, as cells (2+ spaces apart), and the heads."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("--"))
    heads = re.split(r"\s{2,}", lines[i - 1].strip())
    rows = [line for line in lines[i + 1:] if re.match(r"\s*\d+\s", line)]
    return heads, [dict(zip(heads, re.split(r"\s{2,}", r.strip()))) for r in rows], rows


def test_summary_numbers_signs_and_names(res):
    text = res.summary(n_loadings=3)
    lines = text.splitlines()
    assert lines[0].startswith("SparsePCAResult: 3 components, 200 features, method 'greedy'")
    assert f"explained {100 * res.explained_variance_ratio.sum():.2f}%" in lines[1]
    heads, cells, rows = _rows(text)
    assert heads == ["PC", "card", "variance", "explained %", "cum. %", "bound", "rel. gap",
                     "certified", "top loadings"]  # no penalty, no stability: not measured
    assert len(rows) == 3
    cum = np.cumsum(100 * res.explained_variance_ratio)
    for j, c in enumerate(cells):
        assert c["PC"] == str(j + 1) and c["card"] == "4"
        assert float(c["variance"]) == pytest.approx(res.variances[j], rel=1e-3)
        assert float(c["explained %"]) == pytest.approx(100 * res.explained_variance_ratio[j], abs=0.006)
        assert float(c["cum. %"]) == pytest.approx(cum[j], abs=0.006)
        assert c["bound"] == c["rel. gap"] == c["certified"] == "-"  # greedy: no bound
        assert rows[j].endswith("… (+1)")  # 4 nonzeros, 3 shown
    # the first component is the planted one: signs alternate with the features
    comp = res.components[0]
    for i in range(3):
        f = res.ordered_support(0)[i]
        assert f"{'+' if comp[f] > 0 else '−'}x{f} {abs(comp[f]):.3f}" in rows[0]
    assert {int(f) for f in re.findall(r"[+−]x(\d+) ", rows[0])} <= {0, 1, 2, 3}
    signs = re.findall(r"([+−])x\d+ ", rows[0])
    assert "−" in signs and "+" in signs
    with pytest.raises(InvalidParameterError, match="n_loadings"):
        res.summary(n_loadings=-1)


def test_summary_shows_bounds_and_feature_names(X):
    pd = pytest.importorskip("pandas")
    cols = [f"gene<{i}>" for i in range(12)]
    est = SparsePCA(2, cardinality=3, method="exhaustive").fit(pd.DataFrame(X[:, :12], columns=cols))
    text = est.summary()
    assert text.startswith("SparsePCA: 2 components, 12 features, method 'exhaustive'")
    _, cells, rows = _rows(text)
    for j, (c, row) in enumerate(zip(cells, rows)):
        assert float(c["bound"]) == pytest.approx(est.result_.results[j].upper_bound, rel=1e-3)
        assert c["rel. gap"] in ("0%", "<0.01%") and c["certified"] == "yes"
        assert est.topics()[j][0][0] in row  # the largest loading, by name
    assert "bound: the solver's upper bound" in text and "rel. gap: (bound - " in text
    html = est.result_._repr_html_()
    assert html.count("<tr>") == 3 and "gene&lt;" in html and "gene<" not in html


def test_estimator_summary_needs_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        SparsePCA().summary()


def test_summary_rows_are_the_component_dicts_laid_out(res):
    from eigensparse._summary import SUMMARY_COLUMNS, _fmt, format_summary, summary_rows

    heads, rows = summary_rows(res, n_loadings=2)
    # no penalty, no stability: those columns are left out
    assert heads == [h for h in SUMMARY_COLUMNS if h not in ("penalty", "stability", "deflated var.")]
    assert len(rows) == 3 and all(len(r) == len(heads) for r in rows)
    cum = np.cumsum(100 * res.explained_variance_ratio)
    col = {h: i for i, h in enumerate(heads)}
    for j, row in enumerate(rows):
        d = res.component_dict(j)
        assert row[:4] == [str(j + 1), "4", _fmt(d["variance"]),
                           f"{100 * d['explained_variance_ratio']:.2f}"]
        assert row[col["cum. %"]] == f"{cum[j]:.2f}"
        # greedy: no bound, no gap, not certified
        assert [row[col[h]] for h in ("bound", "rel. gap", "certified")] == ["-", "-", "-"]
        first = d["features"][0]
        sign = "+" if d["loadings"][0] > 0 else "−"
        assert row[col["top loadings"]].startswith(f"{sign}{first} {abs(d['loadings'][0]):.3f}, ")
        assert row[col["top loadings"]].endswith(", … (+2)")
    header = format_summary(res, title="Mine").splitlines()[0]
    assert header.startswith("Mine: 3 components, 200 features, method 'greedy'")
    # numbers: 4 significant digits, scientific form outside [1e-3, 1e5)
    assert [_fmt(v) for v in (1234.5678, 0.5, 0.0, 1e-4, -2.5e6)] == \
        ["1235", "0.5", "0", "1.000e-04", "-2.500e+06"]
