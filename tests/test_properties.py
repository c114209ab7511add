"""Property-based tests (hypothesis) of the invariants every answer must satisfy:
exact cardinality, unit norm, the sign rule, bound >= variance, same seed -> same
output, and streaming = in memory. Example counts are small so the module stays fast."""
import os

import numpy as np
import pytest
import scipy.sparse as sp

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from eigensparse import DenseData, sparse_pca  # noqa: E402
from eigensparse.io import MatrixCorpus, open_corpus, read_uci_bow  # noqa: E402
from eigensparse.solvers import get_solver  # noqa: E402

FAST = settings(max_examples=15, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
METHODS = ["greedy", "tpower", "am", "scol", "threshold"]


@st.composite
def data_and_card(draw, max_n=12, max_p=7):
    n = draw(st.integers(3, max_n))
    p = draw(st.integers(2, max_p))
    elems = st.floats(-10, 10, allow_nan=False, allow_infinity=False, width=32)
    X = draw(hnp.arrays(np.float64, (n, p), elements=elems))
    # keep the problem non-degenerate: a random full-rank perturbation
    X = X + 1e-3 * np.random.default_rng(n * 31 + p).normal(size=(n, p))
    s = draw(st.integers(1, p))
    return X, s


def _check_component(x, s, var, S):
    assert np.count_nonzero(x) == s  # exact cardinality
    assert np.isclose(np.linalg.norm(x), 1.0, atol=1e-9)  # unit norm
    i = int(np.argmax(np.abs(x)))
    assert x[i] > 0  # sign rule: the largest |loading| is positive
    assert np.isclose(var, x @ S @ x, rtol=1e-6, atol=1e-9 * max(1.0, np.trace(S)))
    assert var <= np.linalg.eigvalsh(S)[-1] * (1 + 1e-9) + 1e-12  # below the unrestricted PCA


@pytest.mark.parametrize("method", METHODS)
@FAST
@given(case=data_and_card())
def test_component_invariants(method, case):
    X, s = case
    res = sparse_pca(X, n_components=1, cardinality=s, method=method, random_state=0)
    S = DenseData(X).to_dense()  # the covariance the solvers see
    _check_component(res.components[0], s, res.results[0].variance, S)
    assert np.all(np.isfinite(res.explained_variance_ratio))


@FAST
@given(case=data_and_card(max_p=6))
def test_upper_bounds_dominate_variance_and_exhaustive_optimum(case):
    X, s = case
    op = DenseData(X)
    best = get_solver("exhaustive").func(op, s)
    for method in ("greedy", "bca"):
        r = get_solver(method).func(op, s)
        assert r.variance <= best.variance * (1 + 1e-8) + 1e-12  # exhaustive is optimal
        if r.upper_bound is not None:
            assert r.upper_bound >= best.variance * (1 - 1e-6) - 1e-9  # a bound holds
            assert r.upper_bound >= r.variance * (1 - 1e-9) - 1e-12


@pytest.mark.parametrize("method", ["tpower", "am", "greedy"])
@FAST
@given(case=data_and_card(), seed=st.integers(0, 2**31 - 1))
def test_same_seed_same_output(method, case, seed):
    X, s = case
    a = sparse_pca(X, n_components=2 if X.shape[1] > s else 1, cardinality=s, method=method,
                   random_state=seed)
    b = sparse_pca(X, n_components=a.components.shape[0], cardinality=s, method=method,
                   random_state=seed)
    assert np.array_equal(a.components, b.components)
    assert np.array_equal(a.variances, b.variances)


@st.composite
def count_matrices(draw):
    D = draw(st.integers(1, 25))
    W = draw(st.integers(1, 12))
    dense = draw(hnp.arrays(np.int64, (D, W), elements=st.integers(0, 4)))
    dense[-1, draw(st.integers(0, W - 1))] += 1  # the last document is never empty
    return sp.csr_matrix(dense)


def _uci_text(X):
    C = X.tocoo()
    o = np.lexsort((C.col, C.row))
    lines = [str(X.shape[0]), str(X.shape[1]), str(X.nnz)]
    lines += [f"{r + 1} {c + 1} {int(v)}" for r, c, v in zip(C.row[o], C.col[o], C.data[o])]
    return "\n".join(lines) + "\n"


def _stack(corpus, chunk_nnz):
    """The corpus as one CSR matrix, each chunk placed at its ``doc_start``."""
    rows, cols, vals = [], [], []
    for ch in corpus.iter_chunks(chunk_nnz=chunk_nnz):
        rows.append(ch.doc_start + np.repeat(np.arange(ch.n_docs), np.diff(ch.indptr)))
        cols.append(ch.indices)
        vals.append(ch.data.astype(float))
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                         shape=(corpus.n_docs, corpus.n_words))


def _same(A, B):
    return A.shape == B.shape and np.array_equal(A.toarray(), B.toarray())


@FAST
@given(X=count_matrices(), chunk_nnz=st.integers(1, 40))
def test_streaming_equals_in_memory(tmp_path_factory, X, chunk_nnz):
    d = tmp_path_factory.mktemp("stream")
    path = os.path.join(d, "docword.h.txt")
    with open(path, "w") as f:
        f.write(_uci_text(X))
    mem, _ = read_uci_bow(path)
    assert _same(mem, X)
    for cache in (False, True):  # text, then the cache it wrote, then the cache again
        c = open_corpus(path, cache=cache, cache_dir=os.path.join(d, "cache"))
        for _ in range(2 if cache else 1):
            assert _same(_stack(c, chunk_nnz), X)
    assert _same(_stack(MatrixCorpus(X), chunk_nnz), X)


@FAST
@given(X=count_matrices())
def test_topics_streamed_equal_in_memory(tmp_path_factory, X):
    from eigensparse.text import extract_topics

    if X.shape[1] < 3 or X.shape[0] < 3:
        return
    d = tmp_path_factory.mktemp("topics")
    path = os.path.join(d, "docword.t.txt")
    with open(path, "w") as f:
        f.write(_uci_text(X))
    kw = dict(n_topics=1, cardinality=2, method="greedy", cache_dir=os.path.join(d, "cache"))
    try:
        a = extract_topics(path, None, **kw)
    except ValueError as exc:  # a degenerate draw must be refused the same way in memory
        with pytest.raises(ValueError, match=str(exc).split(":")[-1][:20].strip() or "."):
            extract_topics(X.astype(float), None, **kw)
        return
    b = extract_topics(X.astype(float), None, **kw)
    assert [sorted(t.word_ids) for t in a.topics] == [sorted(t.word_ids) for t in b.topics]
    assert np.allclose([t.variance for t in a.topics], [t.variance for t in b.topics])
