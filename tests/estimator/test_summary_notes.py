"""The summary says when PC1 was traded for the total and shows the stability; the
StabilityResult repr is one short line naming columns by feature."""
import numpy as np
import pytest
from sklearn.datasets import load_diabetes

import eigensparse as es


@pytest.fixture(scope="module")
def diabetes():
    return load_diabetes(as_frame=True).data


def test_pc1_trade_is_said(diabetes):
    kept = es.sparse_pca(diabetes, n_components=3, cardinality=4, scale=True, random_state=0)
    single = es.sparse_pca(diabetes, n_components=1, cardinality=4, scale=True, random_state=0)
    assert kept.variances[0] >= single.variances[0] - 1e-9  # PC1 kept by default
    assert "traded" not in kept.summary()
    traded = es.sparse_pca(diabetes, n_components=3, cardinality=4, scale=True, random_state=0,
                           refine="total")
    ref = traded.results[0].info["refine"]
    assert ref["first_traded"] == (ref["first_variance"] < ref["first_variance_single"] * (1 - 1e-12))
    assert ref["first_traded"]  # diabetes, standardized, s=4: the total trades PC1
    assert "PC1 traded for the total" in traded.summary()


def test_summary_shows_stability_and_short_repr(diabetes):
    res = es.sparse_pca(diabetes, n_components=2, cardinality=3, scale=True, stability=3,
                        random_state=0)
    text = res.summary()
    assert "support stability (3 bootstrap resamples)" in text
    st = res.stability
    for j in range(2):
        assert f"PC {j + 1}: stability {st.stability[j]:.2f}" in text
        for i in res.supports[j]:
            assert f"{diabetes.columns[i]} {st.frequencies[j, i]:.2f}" in text
    r = repr(st)
    assert "\n" not in r and "array" not in r and len(r) < 200
    assert r.startswith("StabilityResult(n_components=2, n_features=10, n_resamples=3")
