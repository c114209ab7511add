"""One word for certification in the table, the summary and the JSON; signed loadings in
every table, never "-0.000" (#20)."""
import json

import numpy as np
import pytest

import eigensparse as es
from eigensparse._summary import _signed


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
    assert [ln.split()[1:] for ln in table.splitlines() if ln.startswith("certified")] == [["yes", "yes"]]
    summary = res.summary()
    assert "certified" in summary.splitlines()[2]
    assert all(" yes " in ln for ln in summary.splitlines()[4:6])


def test_uncertified_and_unknown(pitprops):
    greedy = es.sparse_pca(pitprops, n_components=2, cardinality=3, method="greedy")
    assert [c["certified"] for c in greedy.to_dict()["components"]] == [None, None]
    assert not any(ln.startswith("certified") for ln in greedy.format_table().splitlines())
    bca = es.sparse_pca(pitprops, n_components=1, cardinality=3, method="bca")
    r = bca.results[0]
    assert r.certified == (r.upper_bound - r.variance <= 1e-9 * r.variance)
    assert bca.to_dict()["components"][0]["certified"] is r.certified


def test_signed_loadings_in_the_fit_table(pitprops):
    res = es.sparse_pca(pitprops, n_components=3, cardinality=4, method="exact")
    assert (res.components < 0).any()  # pitprops has negative loadings at s=4
    table = res.format_table()
    for j in range(3):
        for i in res.ordered_support(j):
            sign = "+" if res.components[j, i] > 0 else "−"
            assert sign + res.feature_label(i) in table.split()
    assert "sign of the loading" in table


@pytest.mark.parametrize("v,text", [(-1e-5, "-1.0e-05"), (2e-6, "+2.0e-06"), (-0.25, "-0.250"),
                                    (0.5, "+0.500")])
def test_no_minus_zero(v, text):
    assert _signed(v) == text
