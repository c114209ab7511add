"""Every table shows a bound and a variance of the same matrix (issue #33): a later
component of a deflation shows its variance on the deflated matrix its bound is about
(``deflated var.``), the JSON carries it (``solved_variance``), and the legend's formula
for the relative gap holds on the printed numbers."""
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from eigensparse import sparse_pca
from eigensparse.text._format import format_topics


@pytest.fixture(scope="module")
def res():
    return sparse_pca(load_breast_cancer().data, n_components=3, cardinality=4, scale=True)


def _row(table, label):
    line = next(ln for ln in table.splitlines() if ln.startswith(label + " "))
    return line[len(label):].split()


def _pct(cell):
    return float(cell.rstrip("%")) / 100


def test_fit_table_gap_formula_holds_on_printed_numbers(res):
    table = res.format_table()
    defl = [float(v) for v in _row(table, "deflated var.")]
    bound = [float(v) for v in _row(table, "bound")]
    gaps = [_pct(c) for c in _row(table, "rel. gap")]
    for d, b, g in zip(defl, bound, gaps):
        assert abs((b - d) / b - g) < 2e-3  # up to the cells' rounding
    var = [float(v) for v in _row(table, "variance")]
    assert var[1] > bound[1]  # the case of the issue: the original variance exceeds the bound
    assert "(bound - deflated var.) / bound" in " ".join(table.split())
    comps = res.to_dict()["components"]
    assert [c["solved_variance"] for c in comps] == [r.variance for r in res.results]
    assert comps[0]["solved_variance"] == pytest.approx(comps[0]["variance"])


def test_summary_has_the_column_and_the_formula(res):
    text = res.summary()
    head = next(ln for ln in text.splitlines() if ln.startswith("PC "))
    assert "deflated var." in head
    assert "(bound - deflated var.) / bound" in " ".join(text.split())


def test_single_component_keeps_the_plain_formula():
    X = np.random.default_rng(0).standard_normal((60, 8))
    one = sparse_pca(X, n_components=1, cardinality=3, method="exhaustive")
    table = one.format_table()
    assert "deflated var." not in table and "(bound - variance) / bound" in table
    assert "deflated var." not in one.summary()


def test_topics_legend_follows_the_rows(res):
    comps = res.to_dict()["components"]
    text = format_topics(comps)
    assert "deflated var." in text and "(bound - deflated var.) / bound" in " ".join(text.split())
    text = format_topics(comps[:1])
    assert "deflated var." not in text and "(bound - variance) / bound" in text
