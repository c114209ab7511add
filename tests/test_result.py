"""One multi-component result and one JSON schema for every front door (strict JSON)."""
import json
import re

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


def _columns(text):
    """A column table (fit or topics) as {row label: cells} and the loading rows' cells."""
    lines = text.splitlines()
    rule = next(i for i, ln in enumerate(lines) if set(ln.strip()) == {"-", " "} or set(ln.strip()) == {"-"})
    blank = next(i for i in range(rule, len(lines)) if not lines[i].strip())
    split = lambda ln: re.split(r"\s{2,}", ln.strip())
    loadings = [split(ln) for ln in lines[rule + 1:blank]]
    foot = {}
    for ln in lines[blank + 1:]:
        if not ln.strip():
            break
        foot[split(ln)[0]] = split(ln)[1:]
    return loadings, foot


def test_fit_summary_and_topics_tables_print_the_same_cells():
    """One renderer: the fit table, summary() and the topics table print the same cells
    for the same component — signed loadings, variance, explained %, penalty, bound,
    relative gap and certified — and those are the JSON's numbers."""
    from eigensparse import Covariance
    from eigensparse._summary import component_cells
    from eigensparse.datasets import load_pitprops
    from eigensparse.text._result import topics_table

    res = sparse_pca(Covariance(load_pitprops().data), n_components=3, cardinality=4, method="bca")
    assert (res.components < 0).any() and not all(r.certified for r in res.results)
    cells = [component_cells(res.component_dict(j)) for j in range(3)]
    assert any(c["certified"].startswith("no (gap ") for c in cells)
    fit_load, fit_foot = _columns(res.format_table())
    top_load, top_foot = _columns(topics_table(res, corpus="pitprops", legend=False))
    assert fit_load == top_load == [[c["loadings"][r] for c in cells] for r in range(4)]
    fit_foot["words"] = fit_foot.pop("cardinality")
    assert fit_foot == top_foot
    for key in ("variance", "explained %", "penalty", "bound", "rel. gap", "certified"):
        assert top_foot[key] == [c[key] for c in cells]
    lines = res.summary(n_loadings=4).splitlines()
    heads = re.split(r"\s{2,}", lines[2].strip())
    rows = [dict(zip(heads, re.split(r"\s{2,}", ln.strip()))) for ln in lines[4:7]]
    for c, row in zip(cells, rows):
        assert row["top loadings"] == ", ".join(c["loadings"])
        for key in ("variance", "explained %", "penalty", "bound", "rel. gap", "certified"):
            assert row[key] == c[key]
    doc = res.to_dict()
    for c, comp in zip(cells, doc["components"]):
        assert float(c["bound"]) == pytest.approx(comp["upper_bound"], rel=1e-3)
        assert c["certified"] == ("yes" if comp["certified"] else
                                  f"no (gap {100 * comp['relative_gap']:.3g}%)")


def test_fit_and_topics_json_carry_the_certificate(tmp_path):
    """fit --json and topics --json: upper_bound, gap, relative_gap and certified per
    component, equal to the ComponentResult's."""
    from eigensparse.cli import main

    X = np.random.default_rng(0).standard_normal((60, 8))
    np.save(tmp_path / "x.npy", X)
    assert main(["fit", str(tmp_path / "x.npy"), "-k", "2", "-s", "3", "--method", "exhaustive",
                 "--json", str(tmp_path / "fit.json")]) == 0
    assert main(["topics", "--dataset", "kos", "-k", "2", "-s", "3", "--no-progress",
                 "--json", str(tmp_path / "top.json")]) == 0
    fit = _strict(tmp_path / "fit.json")
    for c in fit["components"]:
        assert c["certified"] is True and c["relative_gap"] <= 1e-9
        assert c["upper_bound"] == pytest.approx(c["gap"] + c["upper_bound"] - c["gap"])
    top = _strict(tmp_path / "top.json")
    ref = extract_topics(load_kos().data, load_kos().feature_names, n_topics=2, cardinality=3,
                         progress=False)
    for c, r in zip(top["components"], ref.results):
        assert {"upper_bound", "gap", "relative_gap", "certified"} <= set(c)
        assert c["upper_bound"] == pytest.approx(r.upper_bound)
        assert c["relative_gap"] == pytest.approx(r.relative_gap)
        assert c["certified"] is r.certified


def test_disjoint_components_carry_a_bound_on_their_total():
    import eigensparse as es

    from itertools import combinations

    S = np.cov(np.random.default_rng(3).standard_normal((60, 8)) @ np.triu(np.ones((8, 8))),
               rowvar=False)
    best = max(np.linalg.eigvalsh(S[np.ix_(A, A)])[-1] + np.linalg.eigvalsh(S[np.ix_(B, B)])[-1]
               for A in combinations(range(8), 2)
               for B in combinations([i for i in range(8) if i not in A], 2))
    for kw in ({"deflation": "disjoint"}, {"method": "bipartite"}):
        res = es.sparse_pca(es.Covariance(S), n_components=2, cardinality=2, random_state=0, **kw)
        assert res.total_found == pytest.approx(res.variances.sum())
        assert res.total_upper_bound >= best * (1 - 1e-12) >= res.total_found * (1 - 1e-9)
        doc = res.to_dict()
        assert doc["total_upper_bound"] == res.total_upper_bound
        assert doc["total_found"] == res.total_found
        assert "bound on any 2 disjoint components" in res.summary()
    res = es.sparse_pca(es.Covariance(S), n_components=2, cardinality=2, deflation="schur")
    assert res.total_upper_bound is None and res.to_dict()["total_upper_bound"] is None


def test_a_pending_bound_is_computed_once_on_first_read_and_survives_copies():
    import copy

    from eigensparse import ComponentResult
    from eigensparse._result import defer_bound, info_entry, with_info

    calls = []

    def compute():
        calls.append(1)
        return 2.75, {"bound": "tight"}

    r = defer_bound(ComponentResult(np.array([0.6, 0.8, 0.0]), np.array([0, 1]), 2.5, "m",
                                    upper_bound=3.0, gap=0.5, info={"bound": "cheap", "k": 1}),
                    compute)
    moved = with_info(r, {"support": np.array([1, 2])}, refine="x")  # still pending
    assert info_entry(moved, "refine") == "x" and info_entry(r, "k") == 1 and not calls
    assert (r.upper_bound, r.gap, r.info["bound"], r.certified) == (2.75, 0.25, "tight", False)
    assert (moved.gap, moved.info["refine"], moved.info["bound"]) == (0.25, "x", "tight")
    assert len(calls) == 1 and copy.deepcopy(r).upper_bound == 2.75
    # a result pickled with its fields in __dict__ (before a bound could be pending)
    old = object.__new__(ComponentResult)
    old.__setstate__({**{k: v for k, v in r.__dict__.items() if not k.startswith("_")},
                      "upper_bound": 1.0, "gap": 0.0, "info": {}})
    assert (old.upper_bound, old.gap, old.info) == (1.0, 0.0, {})
