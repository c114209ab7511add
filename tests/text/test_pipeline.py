"""The out-of-core topic pipeline (``text/_pipeline.py``, ``extract_topics``): streaming
equals in memory, scalings, re-reads, planted-topic recovery, results, plots."""
import json
import os
from importlib import resources

import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse import InvalidParameterError, SparseData, sparse_pca
from eigensparse.datasets import load_kos
from eigensparse.datasets.synthetic_corpus import make_synthetic_corpus, topic_precision
from eigensparse.io import read_uci_bow
from eigensparse.text import extract_topics, plot_topics_diagnostics, write_json

# the pipeline before pruning and tf-idf became the defaults (counts, every word)
OLD_DEFAULTS = {"scaling": "count", "min_df": 1, "max_df": 1.0}
NO_PRUNING = {"min_df": 1, "max_df": 1.0}

KOS_DIR = resources.files("eigensparse.datasets").joinpath("data")
KOS_DOCWORD = str(KOS_DIR.joinpath("docword.kos.txt.gz"))
KOS_VOCAB = str(KOS_DIR.joinpath("vocab.kos.txt"))


@pytest.fixture(scope="module")
def kos():
    return load_kos()


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("synthetic")
    return make_synthetic_corpus(d, n_docs=6000, n_words=4000, nnz_per_doc=120, random_state=1,
                                 chunk_docs=2500)


@pytest.fixture(scope="module")
def kos_greedy(tmp_path_factory):
    cd = tmp_path_factory.mktemp("cache")
    return extract_topics(KOS_DOCWORD, KOS_VOCAB, n_topics=5, cardinality=5, method="greedy", deflation="schur",
                          cache_dir=cd, progress=False, **OLD_DEFAULTS), cd


def _rel(a, b):
    return np.max(np.abs(np.asarray(a) - np.asarray(b))) / max(np.max(np.abs(b)), 1e-300)


def test_streaming_equals_in_memory_on_kos(kos, kos_greedy):
    res, cd = kos_greedy
    X = kos.data
    op = SparseData(X)
    # exact statistics of every word, and the working-set covariance
    assert _rel(res.word_variance, op.diag()) < 1e-10
    assert _rel(res.covariance, op.block(res.working_set)) < 1e-10
    assert np.isclose(res.total_variance, op.trace(), rtol=1e-10)
    # same components as sparse_pca on the whole matrix in memory
    # (both refine by the same default policy, refine="auto")
    ref = sparse_pca(X, n_components=5, cardinality=5, method="greedy", deflation="schur")
    for t, supp, v in zip(res.topics, ref.supports, ref.variances):
        assert sorted(t.word_ids.tolist()) == supp.tolist()
        assert abs(t.variance - v) <= 1e-10 * v
        assert t.cardinality == 5 and t.words == [kos.feature_names[i] for i in t.word_ids]
    assert np.allclose([t.explained_variance for t in res.topics], ref.explained_variance, rtol=1e-10)
    assert res.passes[0]["source"] == "text" and res.cache["status"] == "written"
    # a rerun reads the cache (statistics included) and finds the same
    again = extract_topics(KOS_DOCWORD, KOS_VOCAB, n_topics=5, cardinality=5, method="greedy", deflation="schur",
                           cache_dir=cd, progress=False, **OLD_DEFAULTS)
    assert again.cache["status"] == "hit"
    # statistics and the working-set Gram matrix are cached too: no pass over the data
    assert again.passes == [] and any("cached Gram" in m for m in again.messages)
    assert [t.word_ids.tolist() for t in again.topics] == [t.word_ids.tolist() for t in res.topics]
    assert np.array_equal(again.covariance, res.covariance)
    # and the in-memory matrix through the same pipeline, in small chunks
    mem = extract_topics(X, kos.feature_names, n_topics=5, cardinality=5, method="greedy", deflation="schur",
                         chunk_nnz=7000, progress=False, **OLD_DEFAULTS)
    assert [t.word_ids.tolist() for t in mem.topics] == [t.word_ids.tolist() for t in res.topics]
    assert _rel(mem.covariance, res.covariance) < 1e-12


@pytest.mark.parametrize("scaling", ["binary", "log", "tfidf"])
def test_scalings_equal_in_memory_transforms(kos, scaling):
    from sklearn.feature_extraction.text import TfidfTransformer

    X = kos.data
    if scaling == "binary":
        Xt = X.sign()
    elif scaling == "log":
        Xt = X.copy()
        Xt.data = np.log1p(Xt.data)
    else:
        Xt = TfidfTransformer().fit_transform(X)
    res = extract_topics(X, n_topics=2, cardinality=4, method="greedy", deflation="schur", scaling=scaling,
                         progress=False, working_set=100, **NO_PRUNING)
    op = SparseData(sp.csr_matrix(Xt))
    assert _rel(res.word_variance, op.diag()) < 1e-10
    assert _rel(res.covariance, op.block(res.working_set)) < 1e-10


def test_uncentered_and_tfidf_from_file(tmp_path, kos):
    res = extract_topics(KOS_DOCWORD, n_topics=1, cardinality=3, method="greedy", deflation="schur", center=False,
                         cache_dir=tmp_path, progress=False, working_set=50, **OLD_DEFAULTS)
    X = kos.data
    G = (X[:, res.working_set].T @ X[:, res.working_set]).toarray() / X.shape[0]
    assert _rel(res.covariance, G) < 1e-12
    assert res.topics[0].words[0] == "word" + str(res.topics[0].word_ids[0] + 1)  # no vocabulary
    # tf-idf from the file: document frequencies come from the cached statistics
    t1 = extract_topics(KOS_DOCWORD, n_topics=1, cardinality=3, method="greedy", deflation="schur", scaling="tfidf",
                        cache_dir=tmp_path, progress=False, working_set=50, **NO_PRUNING)
    t2 = extract_topics(X, n_topics=1, cardinality=3, method="greedy", deflation="schur", scaling="tfidf",
                        progress=False, working_set=50, **NO_PRUNING)
    assert _rel(t1.covariance, t2.covariance) < 1e-12
    assert t1.topics[0].word_ids.tolist() == t2.topics[0].word_ids.tolist()


def test_too_small_working_set_is_re_read(kos):
    X = kos.data
    big = extract_topics(X, n_topics=3, cardinality=5, method="greedy", deflation="schur", progress=False,
                         working_set=1000, **OLD_DEFAULTS)
    small = extract_topics(X, n_topics=3, cardinality=5, method="greedy", deflation="schur", progress=False,
                           working_set=6, **OLD_DEFAULTS)
    assert small.rereads and "re-reading the data" in small.rereads[0]
    assert len(small.working_set_sizes) > 1 and small.working_set_sizes[-1] > 10
    assert [t.word_ids.tolist() for t in small.topics] == [t.word_ids.tolist() for t in big.topics]


def test_penalized_method_is_safe_and_explicit_penalty(kos):
    X = kos.data
    res = extract_topics(X, n_topics=1, cardinality=4, method="bca", progress=False,
                         working_set=40, cardinality_tolerance=1, deflation="schur", **OLD_DEFAULTS)
    t = res.topics[0]
    assert t.penalty is not None and t.working_set_safe is True
    assert abs(t.cardinality - 4) <= 1
    # the penalty is at least the variance of every word left out of what was solved
    assert t.penalty >= np.sort(res.word_variance)[::-1][res.working_set.size]
    r2 = extract_topics(X, n_topics=1, penalty=2.0, method="bca", progress=False, deflation="schur", **OLD_DEFAULTS)
    assert r2.working_set.size == np.count_nonzero(res.word_variance > 2.0)
    assert r2.topics[0].penalty == 2.0 and r2.topics[0].working_set_safe is True


def test_planted_topics_recovered(small_corpus):
    c = small_corpus
    assert c.nnz > 0.8 * 120 * c.n_docs
    X, words = read_uci_bow(c.docword, c.vocab)
    assert X.shape == (c.n_docs, c.n_words) and X.nnz == c.nnz
    for method in ("tpower", "bca"):
        res = extract_topics(c.docword, c.vocab, n_topics=5, cardinality=5, method=method,
                             cache=False, progress=False, deflation="schur",
                             cardinality_tolerance=1 if method == "bca" else 0, **OLD_DEFAULTS)
        prec = topic_precision([t.word_ids for t in res.topics], c.topics)
        assert prec["n_distinct_matched"] == 5, (method, prec)
        assert prec["mean_recall"] >= 0.95, (method, prec)  # topic 1 has 6 words
        assert prec["mean_precision"] >= (0.9 if method == "bca" else 0.8), (method, prec)
        assert all(words[i] in sum(c.topic_words, []) for i in res.topics[0].word_ids)


def test_synthetic_corpus_is_reproducible(tmp_path):
    a = make_synthetic_corpus(tmp_path / "a", n_docs=300, n_words=500, nnz_per_doc=40, random_state=3)
    b = make_synthetic_corpus(tmp_path / "b", n_docs=300, n_words=500, nnz_per_doc=40, random_state=3)
    Xa, wa = read_uci_bow(a.docword, a.vocab)
    Xb, wb = read_uci_bow(b.docword, b.vocab)
    assert abs(Xa - Xb).max() == 0 and wa == wb and len(set(wa)) == 500
    assert [t.tolist() for t in a.topics] == [t.tolist() for t in b.topics]
    lengths = np.asarray(Xa.sum(axis=1)).ravel()
    assert lengths.min() >= 5 and 25 < Xa.nnz / 300 < 60
    with pytest.raises(InvalidParameterError, match="n_words"):
        make_synthetic_corpus(tmp_path / "c", n_docs=10, n_words=40)


def test_result_table_json_and_plots(tmp_path, kos_greedy):
    res, _ = kos_greedy
    table = res.format_table()
    # the topics table: corpus in the title, signed words, footer and legend
    assert table.startswith("Topics of docword.kos.txt.gz (3,430 documents")
    assert "topic 1" in table and "explained %" in table and "certified" in table
    assert "penalty" not in table  # a cardinality method: no penalty row
    assert "+" + res.topics[0].words[0] in table and "+word / −word" in table
    assert "pass 2: covariance" in res.phase_table() and "total" in res.timings
    # every phase timed: the result's bounds on the total too; topic rows below the solve
    keys = list(res.timings)
    assert keys[-2:] == ["result: bounds on the total", "total"]
    assert keys[keys.index("solve") + 1] == "  topic 1"
    assert sum(v for k, v in res.cpu_timings.items() if k != "total") == pytest.approx(
        res.cpu_timings["total"], abs=0.05)
    p = write_json(tmp_path / "out" / "topics.json", res)
    d = json.loads(open(p).read())
    comp = d["components"]
    assert len(comp) == 5 and set(comp[0]) >= {"words", "loadings", "cardinality", "variance"}
    assert comp[0]["words"] == res.topics[0].words
    assert not [f for f in os.listdir(tmp_path / "out") if f.startswith(".tmp")]
    paths = plot_topics_diagnostics(res, tmp_path / "plots", max_cardinality=8)
    assert [os.path.basename(q) for q in paths] == ["word_variances.png",
                                                    "variance_vs_cardinality.png", "topics.png"]
    for q in paths:
        assert open(q, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("kwargs, match", [
    ({"n_topics": 0}, "n_topics"),
    ({"scaling": "idf"}, "scaling"),
    ({"cardinality": 10**6}, "cardinality"),
    ({"cardinality": [5, 5]}, "cardinality"),
    ({"method": "nope"}, "method"),
    ({"method": "tpower", "penalty": 1.0}, "penalized"),
    ({"method": "bca", "penalty": 1e9}, "every word"),
    ({"method_options": {"bogus": 1}, "method": "tpower"}, "unknown option"),
])
def test_bad_parameters(kos, kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        extract_topics(kos.data, progress=False, **{**OLD_DEFAULTS, **kwargs})


def test_bad_file_errors_name_file_and_line(tmp_path):
    f = tmp_path / "docword.bad.txt"
    f.write_text("2\n3\n2\n1 1 1\n2 9 1\n")
    cd = tmp_path / "cache"
    with pytest.raises(InvalidParameterError, match=r"docword.bad.txt: line 5: word index 9"):
        extract_topics(str(f), n_topics=1, cardinality=1, progress=False, cache_dir=cd, method="greedy",
                       deflation="schur", **OLD_DEFAULTS)
    assert not os.path.exists(cd) or not os.listdir(cd)  # no cache, not even a partial one


def test_working_set_grows_for_the_certificate_when_a_pass_is_cheap(corpus, monkeypatch):
    # 6 of 30 words: the words left out set the certificate's floor; a pass over this
    # corpus is cheap, so the working set grows once (x3) and the gap closes
    from itertools import combinations

    from eigensparse.text import _certify

    X, _ = corpus
    kw = dict(n_topics=1, cardinality=3, progress=False, working_set=6, min_df=1, max_df=1.0,
              scaling="log")
    grown = extract_topics(X, **kw)
    assert grown.working_set_sizes == [6, 18] and "certificate" in grown.rereads[0]
    t = grown.topics[0]
    S = np.cov(np.log1p(X.toarray()), rowvar=False, bias=True)
    best = max(np.linalg.eigvalsh(S[np.ix_(T, T)])[-1] for T in map(list, combinations(range(30), 3)))
    assert t.variance <= best * (1 + 1e-9) <= t.upper_bound * (1 + 1e-9)
    assert t.gap <= _certify.CERTIFY_ABOVE * t.upper_bound
    monkeypatch.setattr(_certify, "GROW_MAX_WORK", 0.0)  # the rule: this pass is expensive
    kept = extract_topics(X, **kw)
    assert kept.working_set_sizes == [6] and not kept.rereads
    k = kept.topics[0]
    assert k.variance <= t.variance * (1 + 1e-12) and k.upper_bound >= best * (1 - 1e-9)
