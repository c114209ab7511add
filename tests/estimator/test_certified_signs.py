"""One word for certification in the table, the summary and the JSON; signed loadings in
every table, never "-0.000"."""
import json
import re

import numpy as np
import pytest

import eigensparse as es
from eigensparse._summary import loading_cell


def _row(table, label):
    """The cells of the footer row ``label`` of a column table (cells: 2+ spaces apart)."""
    return [re.split(r"\s{2,}", ln.strip())[1:] for ln in table.splitlines()
            if re.match(re.escape(label) + r"\s{2,}", ln)]


@pytest.fixture(scope="module")
def pitprops():
    return es.Covariance(es.datasets.load_pitprops().data)


def test_exact_is_certified_everywhere(pitprops):
    res = es.sparse_pca(pitprops, n_components=2, cardinality=3, method="exact")
    # exhaustive search over all 3-subsets agrees, so the certificate is true
    best = max(np.linalg.eigvalsh(pitprops.to_dense()[np.ix_(s, s)])[-1]
               for s in map(list, __import__("itertools").combinations(range(13), 3)))
    assert res.variances[0] == pytest.approx(best, rel=1e-9)
    assert all(r.certified for r in res.results)
    doc = json.loads(json.dumps(res.to_dict()))
    assert [c["certified"] for c in doc["components"]] == [True, True]
    assert all(c["gap"] is not None and c["gap"] <= 1e-9 for c in doc["components"])
    table = res.format_table()
    assert _row(table, "certified") == [["yes", "yes"]]
    assert _row(table, "rel. gap") == \
        [[f"{100 * c['relative_gap']:.3g}%" if c["relative_gap"] >= 1e-4 else
          ("0%" if c["relative_gap"] == 0 else "<0.01%") for c in doc["components"]]]
    summary = res.summary()
    assert "certified" in summary.splitlines()[2]
    assert all(" yes " in ln for ln in summary.splitlines()[4:6])


def test_uncertified_and_unknown(pitprops):
    greedy = es.sparse_pca(pitprops, n_components=2, cardinality=3, method="greedy")
    assert [c["certified"] for c in greedy.to_dict()["components"]] == [None, None]
    # no bound: every table says so with "-" (null in the JSON), never "no"
    table = greedy.format_table()
    assert [_row(table, k) for k in ("bound", "rel. gap", "certified")] == [[["-", "-"]]] * 3
    bca = es.sparse_pca(pitprops, n_components=1, cardinality=3, method="bca")
    r = bca.results[0]
    assert r.certified == (r.upper_bound - r.variance <= 1e-9 * r.variance)
    assert bca.to_dict()["components"][0]["certified"] is r.certified
    assert r.relative_gap > 1e-3  # bca's bound is not tight here: the cell says by how much
    assert _row(bca.format_table(), "certified") == [[f"no (gap {100 * r.relative_gap:.3g}%)"]]


def test_signed_loadings_in_the_fit_table(pitprops):
    res = es.sparse_pca(pitprops, n_components=3, cardinality=4, method="exact")
    assert (res.components < 0).any()  # pitprops has negative loadings at s=4
    table = res.format_table()
    for j in range(3):
        for i in res.ordered_support(j):
            sign = "+" if res.components[j, i] > 0 else "−"
            assert f"{sign}{res.feature_label(i)} {abs(res.components[j, i]):.3f}" in table
    assert "sign of the loading" in table
    assert "-0.0" not in table and "−0.0" not in table


@pytest.mark.parametrize("v,text", [(-1e-5, "−x 1.0e-05"), (2e-6, "+x 2.0e-06"), (-0.25, "−x 0.250"),
                                    (0.5, "+x 0.500"), (-4e-4, "−x 4.0e-04"), (-0.0004999, "−x 5.0e-04")])
def test_no_minus_zero(v, text):
    assert loading_cell("x", v) == text
    assert loading_cell("x", v, minus="-") == text.replace("−", "-")


def test_tiny_negative_loading_prints_its_sign_in_every_table():
    """A component with a loading that rounds to 0.000: every table shows its sign and its
    magnitude, never '-0.000'/'−0.000' or an unsigned 0."""
    from eigensparse import ComponentResult, SparsePCAResult

    x = np.array([np.sqrt(1 - 0.36 - 1e-8), 0.6, -1e-4, 0.0])
    supp = np.array([0, 1, 2])
    r = ComponentResult(x, supp, 2.0, "exhaustive", upper_bound=2.0, gap=0.0)
    res = SparsePCAResult(x[None, :], np.array([2.0]), np.array([2.0]), [supp], [r], 4.0,
                          "exhaustive", "schur")
    from eigensparse.text._result import topics_table

    for text in (res.format_table(), res.summary(), topics_table(res, corpus="c")):
        assert "−x2 1.0e-04" in text
        assert "0.000" not in text and "-0." not in text and "−0." not in text
