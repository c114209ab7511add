"""One multi-component result and one JSON schema for every front door (strict JSON)."""
import json

import numpy as np
import pytest

from eigensparse import SparsePCA, SparsePCAResult, sparse_pca
from eigensparse._result import JSON_SCHEMA, write_json
from eigensparse.datasets import load_kos
from eigensparse.text import TopicsResult, extract_topics

# the pipeline before pruning and tf-idf became the defaults (counts, every word)
OLD_DEFAULTS = {"scaling": "count", "min_df": 1, "max_df": 1.0}
NO_PRUNING = {"min_df": 1, "max_df": 1.0}


def _strict(path):
    return json.loads(open(path).read(), parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))


def test_sparse_pca_estimator_and_topics_share_the_schema(tmp_path):
    X = load_kos().data
    res = sparse_pca(X[:, :300], n_components=2, cardinality=4, random_state=0)
    est = SparsePCA(2, cardinality=4, random_state=0).fit(X[:, :300])
    top = extract_topics(X, n_topics=2, cardinality=4, progress=False, **OLD_DEFAULTS)
    assert isinstance(est.result_, SparsePCAResult) and isinstance(top, SparsePCAResult)
    assert isinstance(top, TopicsResult) and top.components.shape == (2, X.shape[1])
    docs = [_strict(write_json(tmp_path / f"{i}.json", r)) for i, r in enumerate((res, est.result_, top))]
    base = set(docs[0])
    for d in docs:
        assert d["schema"] == JSON_SCHEMA and base <= set(d)
        assert set(d["components"][0]) >= set(docs[0]["components"][0])
        assert [c["cardinality"] for c in d["components"]] == [4, 4]
    c = docs[2]["components"][0]
    assert c["features"] == c["words"] == top.topics[0].words
    assert np.allclose(c["loadings"], top.topics[0].loadings)
    # a non-finite value is written as null, never NaN
    d = res.to_dict()
    d["components"][0]["upper_bound"] = float("nan")
    assert _strict(write_json(tmp_path / "nan.json", d))["components"][0]["upper_bound"] is None


def test_table_printer_is_shared():
    kos = load_kos()
    X, words = kos.data, kos.feature_names
    top = extract_topics(X, words, n_topics=2, cardinality=3, progress=False, **OLD_DEFAULTS)
    res = sparse_pca(X, n_components=2, cardinality=3, deflation="disjoint")  # as topics
    from dataclasses import replace

    res = replace(res, feature_names=list(words))
    # the topics table is one printer over any result on words (topics_table)
    from eigensparse.text._result import topics_table

    # one engine: the topics (working set of 1,000 words, refined by the same policy) are
    # the components sparse_pca finds on the whole matrix
    assert [s.tolist() for s in top.supports] == [s.tolist() for s in res.supports]
    assert np.allclose(top.variances, res.variances, rtol=1e-9)
    assert top.format_table() == topics_table(top, corpus="matrix", n_docs=X.shape[0],
                                              n_words=X.shape[1], scaling="count")
    other = topics_table(res, corpus="matrix", n_docs=X.shape[0], n_words=X.shape[1],
                         scaling="count")
    head = "Topics of matrix (3,430 documents × 6,906 words) — scaling count, method"
    assert top.format_table().startswith(head) and other.startswith(head)
    for r, text in ((top, top.format_table()), (res, other)):
        for j in range(2):
            for i in r.ordered_support(j):
                assert ("+" if r.components[j, i] > 0 else "−") + words[i] in text
        assert text.count("+word / −word") == 1
