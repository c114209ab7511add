"""Malformed inputs and faults, as a hostile or unlucky user would produce them.

Every case asserts its exact outcome: the error class and a message substring (naming
the parameter, or ``FILE: line N``), the CLI's exit code 2 with one line and no
traceback, a damaged cache reported, discarded and rebuilt with the right answer,
nothing written or left behind, no NaN in any output.
"""
import gzip
import json
import math
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import eigensparse
from eigensparse import Covariance, InvalidParameterError, SparsePCA, sparse_pca
from eigensparse.io import UCICorpus, open_corpus
from eigensparse.io.cache import CacheWarning
from eigensparse.solvers import get_solver

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def _rng_data(n=30, p=8, seed=0):
    return np.random.default_rng(seed).normal(size=(n, p))


def _sparse_bad(kind):
    X = sp.random(20, 6, density=0.4, format="csr", random_state=0)
    if kind == "index_big":
        X.indices[2] = 2**31 - 1
    elif kind == "index_neg":
        X.indices[2] = -1
    elif kind == "indptr":
        X.indptr[3] = X.indptr[4] + 1
    return X


# ----------------------------------------------------------------------------------------
# 1. numeric arrays and parameters: a clear InvalidParameterError naming the parameter
# ----------------------------------------------------------------------------------------

def _cov_not_psd_large():
    p = 80
    S = np.full((p, p), -0.5)
    np.fill_diagonal(S, 1.0)  # every 2x2 minor is fine, λmin = 1 - 0.5 (p - 1) < 0
    return S


ARRAY_CASES = {
    "nan": (lambda: np.where(np.eye(10, 4) > 0, np.nan, 1.0) + _rng_data(10, 4), {}, "NaN"),
    "inf": (lambda: np.where(np.eye(10, 4) > 0, np.inf, 1.0), {}, "infinite"),
    "empty": (lambda: np.zeros((0, 5)), {}, "is empty"),
    "one_d": (lambda: np.arange(6.0), {}, "2-D"),
    "three_d": (lambda: np.zeros((3, 4, 5)), {}, "2-D"),
    "one_sample": (lambda: np.ones((1, 5)), {}, "1 sample"),
    "object_dtype": (lambda: np.array([[1, "a"], [2, None]], dtype=object), {}, "not a real number at \\[0, 1\\]"),
    "string_dtype": (lambda: np.array([["1", "2"], ["3", "4"]]), {}, "real numbers"),
    "complex_dtype": (lambda: np.ones((4, 3), dtype=complex), {}, "complex numbers"),
    "sparse_nan": (lambda: sp.csr_matrix(np.where(np.eye(10, 4) > 0, np.nan, 0.0)), {}, "NaN"),
    "sparse_index_2_31": (lambda: _sparse_bad("index_big"), {}, "malformed sparse matrix"),
    "sparse_index_neg": (lambda: _sparse_bad("index_neg"), {}, "malformed sparse matrix"),
    "sparse_indptr": (lambda: _sparse_bad("indptr"), {}, "malformed sparse matrix"),
    "cardinality_0": (_rng_data, {"cardinality": 0}, "'cardinality'"),
    "cardinality_gt_p": (_rng_data, {"cardinality": 9}, "'cardinality'"),
    "cardinality_str": (_rng_data, {"cardinality": "a"}, "'cardinality'"),
    "cardinality_bool": (_rng_data, {"cardinality": True}, "'cardinality'"),
    "n_components_0": (_rng_data, {"n_components": 0, "cardinality": 2}, "'n_components'"),
    "method_unknown": (_rng_data, {"cardinality": 2, "method": "nope"}, "'method'"),
    "deflation_unknown": (_rng_data, {"cardinality": 2, "deflation": "nope"}, "'deflation'"),
    "random_state_str": (_rng_data, {"cardinality": 2, "random_state": "x"}, "'random_state'"),
    "random_state_neg": (_rng_data, {"cardinality": 2, "random_state": -1}, "'random_state'"),
    "random_state_float": (_rng_data, {"cardinality": 2, "random_state": 1.5}, "'random_state'"),
    "exhaustive_cost": (lambda: _rng_data(10, 400), {"cardinality": 399, "method": "exhaustive"},
                        "estimated cost"),
    "exhaustive_supports": (lambda: _rng_data(10, 60), {"cardinality": 12, "method": "exhaustive"},
                            "max_supports"),
    "exhaustive_max_time_neg": (_rng_data, {"cardinality": 2, "method": "exhaustive",
                                            "max_time": -1.0}, "'max_time'"),
    "bca_max_time_zero": (_rng_data, {"cardinality": 2, "method": "bca", "max_time": 0},
                          "'max_time'"),
    "cov_not_square": (lambda: Covariance(np.ones((3, 4))), {}, "square"),
    "cov_not_symmetric": (lambda: Covariance(np.array([[1.0, 0.5], [0.0, 1.0]])), {}, "symmetric"),
    "cov_minor": (lambda: Covariance(np.array([[1.0, 2.0], [2.0, 1.0]])), {}, "positive semidefinite"),
    "cov_eigen": (lambda: Covariance(_cov_not_psd_large()), {}, "positive semidefinite"),
    "cov_neg_diag": (lambda: Covariance(np.diag([1.0, -1.0])), {}, "negative diagonal"),
    "cov_nan": (lambda: Covariance(np.array([[1.0, np.nan], [np.nan, 1.0]])), {}, "NaN"),
    # values whose squares leave float64: a crash in LAPACK or silent zero variances
    "huge_values": (lambda: _rng_data() * 1e300, {}, r"up to \|x\| = .*e\+300.*rescale it"),
    "large_values": (lambda: _rng_data() * 1e80, {}, "rescale it"),
    "tiny_values": (lambda: _rng_data() * 1e-300, {}, "rescale it"),
    "small_values_scaled": (lambda: _rng_data() * 1e-160, {"scale": True}, "rescale it"),
    "sparse_huge_values": (lambda: sp.csr_matrix(_rng_data() * 1e200), {}, "rescale it"),
    "cov_huge": (lambda: Covariance(np.cov(_rng_data().T) * 1e300), {}, "parameter 'S'.*rescale it"),
    "cov_tiny": (lambda: Covariance(np.cov(_rng_data().T) * 1e-300), {}, "parameter 'S'.*rescale it"),
}


@pytest.mark.parametrize("case", sorted(ARRAY_CASES))
def test_bad_arrays_and_parameters(case):
    make, kwargs, match = ARRAY_CASES[case]
    kwargs = dict({"cardinality": 2}, **kwargs)
    with pytest.raises(InvalidParameterError, match=match) as exc:
        sparse_pca(make(), **kwargs)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("params, name", [({"n_components": -1}, "n_components"),
                                          ({"random_state": "x"}, "random_state"),
                                          ({"cardinality": 0}, "cardinality")])
def test_estimator_errors_are_one_family(params, name):
    with pytest.raises(InvalidParameterError, match=name) as exc:
        SparsePCA(**params).fit(_rng_data())
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, TypeError)
    assert exc.value.__class__ is eigensparse.InvalidParameterError


# ----------------------------------------------------------------------------------------
# 2. degenerate data: a defined answer, never NaN
# ----------------------------------------------------------------------------------------

def _identical_docs():
    return sp.csr_matrix(np.tile([1.0, 0.0, 2.0, 0.0, 1.0], (6, 1)))


def _constant_column():
    X = _rng_data(30, 6)
    X[:, 2] = 3.0
    return X


DEGENERATE = {
    "constant_data": (lambda: np.ones((10, 4)), {}, True),
    "all_zero": (lambda: np.zeros((10, 4)), {}, True),
    "constant_scaled": (lambda: np.ones((10, 4)), {"scale": True}, True),
    "identical_docs_scaled": (_identical_docs, {"scale": True}, True),
    "constant_column_scaled": (_constant_column, {"scale": True, "n_components": 3}, False),
    "duplicate_columns": (lambda: np.repeat(_rng_data(20, 3), 2, axis=1), {}, False),
    "one_feature": (lambda: _rng_data(10, 1), {"cardinality": 1}, False),
    "two_samples": (lambda: _rng_data(2, 5), {}, False),
}


@pytest.mark.parametrize("case", sorted(DEGENERATE))
def test_degenerate_data_never_nan(case):
    make, kwargs, zero_total = DEGENERATE[case]
    kwargs = dict({"cardinality": 2}, **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = sparse_pca(make(), **kwargs)
        ratio = res.explained_variance_ratio
    for arr in (res.components, res.variances, res.explained_variance, ratio):
        assert np.all(np.isfinite(arr))
    assert np.allclose(np.linalg.norm(res.components, axis=1), 1.0)
    if zero_total:
        assert np.all(ratio == 0)
        assert any("total variance is 0" in str(w.message) for w in caught)
    else:
        assert np.all(ratio >= 0) and ratio.sum() <= 1 + 1e-9


@pytest.mark.parametrize("fmt", ["lil_matrix", "dok_matrix", "lil_array", "dok_array"])
def test_every_scipy_sparse_format_is_accepted(fmt):
    """sparse_pca refused a lil matrix as 'Python objects' (its values are lists) and
    crashed on a dok matrix (no ``data``); the estimator accepted both."""
    X = _rng_data(20, 5)
    ref = sparse_pca(sp.csr_matrix(X), n_components=2, cardinality=2)
    res = sparse_pca(getattr(sp, fmt)(X), n_components=2, cardinality=2)
    np.testing.assert_allclose(res.components, ref.components)
    with pytest.raises(InvalidParameterError, match="complex numbers"):
        sparse_pca(getattr(sp, fmt)(X * 1j), cardinality=2)


@pytest.mark.parametrize("factor", [1e-45, 1e45])
def test_data_far_from_unit_scale_gives_the_same_components(factor):
    """Within the accepted range every scale gives the components of the unscaled data."""
    X = _rng_data(40, 8)
    X[:, 0] += 2 * X[:, 1]
    ref = sparse_pca(X, n_components=2, cardinality=3)
    res = sparse_pca(X * factor, n_components=2, cardinality=3)
    assert [s.tolist() for s in res.supports] == [s.tolist() for s in ref.supports]
    np.testing.assert_allclose(res.variances / factor**2, ref.variances, rtol=1e-9)


def test_non_psd_covariance_accepted_only_when_vouched():
    S = np.array([[1.0, 2.0], [2.0, 3.0]])  # |S01| > sqrt(S00·S11): not PSD
    with pytest.raises(InvalidParameterError, match=r"'S'.*not positive semidefinite.*check_psd=False"):
        Covariance(S)
    with pytest.raises(InvalidParameterError, match="not positive semidefinite"):
        sparse_pca(Covariance(S), cardinality=1)
    res = sparse_pca(Covariance(S, check_psd=False), n_components=1, cardinality=1)  # vouched
    # one feature: the largest diagonal entry, exactly
    np.testing.assert_array_equal(res.components, [[0.0, 1.0]])
    assert res.variances.tolist() == [3.0]


# ----------------------------------------------------------------------------------------
# 3. files: UCI docword / vocabulary, .npz, .mtx — "FILE: line N: ..." before allocation
# ----------------------------------------------------------------------------------------

GOOD_BODY = "1 1 2\n1 3 1\n2 2 4\n3 1 1\n3 3 5\n"


def _docword(tmp_path, text, name="docword.t.txt", gz=False):
    path = tmp_path / (name + (".gz" if gz else ""))
    data = text.encode() if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if gz else data)
    return str(path)


FILE_CASES = {
    "empty": ("", "line 1: empty file"),
    "header_text": ("three\n3\n5\n" + GOOD_BODY, "line 1: header lines 1-3 must hold"),
    "header_short": ("3\n3\n", "line 3: file ends in the header"),
    "header_negative": ("-3\n3\n5\n" + GOOD_BODY, "line 1: header D (number of documents) must be >= 1"),
    "nnz_lie_huge": ("3\n3\n1000000000000000\n" + GOOD_BODY, "line 3: header NNZ=1000000000000000 cannot be right"),
    "d_lie_huge": ("1000000000000000\n3\n5\n" + GOOD_BODY, "line 1: header D (documents)=1000000000000000 cannot be right"),
    "w_lie_huge": ("3\n1000000000000000\n5\n" + GOOD_BODY, "line 2: header W (words)=1000000000000000 cannot be right"),
    "d_lie_moderate": ("500000\n3\n5\n" + GOOD_BODY, "line 1: header D=500000 documents but the largest docID"),
    "nnz_too_small": ("3\n3\n4\n" + GOOD_BODY, "line 8: more entries than the header's NNZ=4"),
    "nnz_too_large": ("3\n3\n6\n" + GOOD_BODY, "the header says NNZ=6 (line 3) but the file ends after 5"),
    "nnz_beyond_size": ("3\n3\n9\n" + GOOD_BODY, "line 3: header NNZ=9 cannot be right: the 30 bytes"),
    "doc_out_of_range": ("2\n3\n5\n" + GOOD_BODY, "line 7: document index 3 outside [1, D=2]"),
    "word_out_of_range": ("3\n2\n5\n" + GOOD_BODY, "line 5: word index 3 outside [1, W=2]"),
    "zero_count": ("3\n3\n5\n" + GOOD_BODY.replace("1 3 1", "1 3 0"), "line 5: count is 0"),
    "float_count": ("3\n3\n5\n" + GOOD_BODY.replace("1 3 1", "1 3 1.5"), "line 5: count '1.5' is not an integer"),
    "negative_count": ("3\n3\n5\n" + GOOD_BODY.replace("1 3 1", "1 3 -1"), "line 5: negative count -1"),
    "few_fields": ("3\n3\n5\n" + GOOD_BODY.replace("1 3 1", "1 3"), "line 5: expected 3 integers"),
    "many_fields": ("3\n3\n5\n" + GOOD_BODY.replace("1 3 1", "1 3 1 7"), "line 5: expected 3 integers"),
    "unsorted": ("3\n3\n5\n3 1 1\n1 1 2\n1 3 1\n2 2 4\n3 3 5\n", "line 5: entries are not grouped by document"),
    "huge_number": ("3\n3\n5\n" + GOOD_BODY.replace("1 3 1", "1 3 99999999999999999999"), "line 5: number too large"),
    "binary_garbage": (b"\x00\xff\xfe" * 50, "header lines 1-3 must hold"),
}


@pytest.mark.parametrize("case", sorted(FILE_CASES))
@pytest.mark.parametrize("cache", [True, False])
def test_bad_docword_files(tmp_path, case, cache):
    text, match = FILE_CASES[case]
    path = _docword(tmp_path, text)
    with pytest.raises(InvalidParameterError) as exc:
        c = open_corpus(path, cache=cache, cache_dir=tmp_path / "cache")
        for _ in c.iter_chunks():
            pass
    msg = str(exc.value)
    assert msg.startswith(f"{path}: line ") and match in msg and "\n" not in msg
    assert not any(n.startswith(".tmp-") for n in os.listdir(tmp_path / "cache")) \
        if (tmp_path / "cache").exists() else True
    assert not (tmp_path / "cache").exists() or not any(
        os.path.isdir(tmp_path / "cache" / n) and not n.startswith(".") for n in os.listdir(tmp_path / "cache"))


def test_truncated_and_corrupt_gzip(tmp_path):
    body = "3\n3\n5\n" + GOOD_BODY * 1
    data = gzip.compress(body.encode())
    trunc = tmp_path / "docword.trunc.txt.gz"
    trunc.write_bytes(data[: len(data) - 12])
    with pytest.raises(InvalidParameterError, match=r"docword.trunc.txt.gz: line \d+: truncated gzip"):
        list(UCICorpus(str(trunc), cache=False).iter_chunks())
    bad = bytearray(data)
    bad[12:20] = b"\xff" * 8
    corrupt = tmp_path / "docword.corrupt.txt.gz"
    corrupt.write_bytes(bytes(bad))
    with pytest.raises(InvalidParameterError, match=r"docword.corrupt.txt.gz: line \d+: .*corrupt"):
        list(UCICorpus(str(corrupt), cache=False).iter_chunks())


def test_lying_header_in_gzip_is_refused_before_allocation(tmp_path):
    path = _docword(tmp_path, "100000000\n3\n5\n" + GOOD_BODY, gz=True)
    with pytest.raises(InvalidParameterError, match="line 1: header D \\(documents\\)=100000000 cannot be right"):
        open_corpus(path, cache=False)


VOCAB_CASES = {
    "duplicate": ("a\nb\na\n", "line 3: duplicate word 'a' (first on line 1)"),
    "short": ("a\nb\n", "line 3: vocabulary ends after 2 words"),
    "long": ("a\nb\nc\nd\n", "line 4: vocabulary has 4 words"),
    "utf8": (b"a\n\xff\nc\n", "line 2: vocabulary is not valid UTF-8"),
    "empty": ("", "line 1: empty vocabulary file"),
}


@pytest.mark.parametrize("case", sorted(VOCAB_CASES))
def test_bad_vocabularies(tmp_path, case):
    text, match = VOCAB_CASES[case]
    dw = _docword(tmp_path, "3\n3\n5\n" + GOOD_BODY)
    vocab = tmp_path / "vocab.t.txt"
    vocab.write_bytes(text.encode() if isinstance(text, str) else text)
    with pytest.raises(InvalidParameterError, match=match.replace("(", r"\(").replace(")", r"\)")):
        open_corpus(dw, str(vocab), cache=False)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InvalidParameterError, match="line 1: file does not exist"):
        open_corpus(str(tmp_path / "nope.txt"))
    with pytest.raises(InvalidParameterError, match="line 1: is a directory"):
        open_corpus(str(tmp_path))


def test_corrupt_npz_and_mtx(tmp_path):
    X = sp.random(20, 6, density=0.4, format="csr", random_state=0)
    good = tmp_path / "m.npz"
    sp.save_npz(good, X, compressed=False)
    raw = bytearray(good.read_bytes())
    raw[40:60] = b"\x00" * 20
    flipped = tmp_path / "flipped.npz"
    flipped.write_bytes(bytes(raw))
    with pytest.raises(InvalidParameterError, match="flipped.npz: line 1: not a scipy.sparse .npz"):
        open_corpus(str(flipped))
    Y = X.copy()
    Y.indices[0] = 10**6
    np.savez(tmp_path / "bad_idx.npz", format=b"csr", shape=Y.shape, data=Y.data,
             indices=Y.indices, indptr=Y.indptr)
    with pytest.raises(InvalidParameterError, match="bad_idx.npz: line 1: "):
        open_corpus(str(tmp_path / "bad_idx.npz"))
    mtx = tmp_path / "bad.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n")
    with pytest.raises(InvalidParameterError, match="bad.mtx: line"):
        open_corpus(str(mtx))


# ----------------------------------------------------------------------------------------
# 4. caches: every corruption is detected, reported in one line, discarded and rebuilt
# ----------------------------------------------------------------------------------------

def _corpus_file(tmp_path, D=120, W=30, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(D, W, density=0.3, format="csr", random_state=np.random.RandomState(seed),
                  data_rvs=lambda k: rng.integers(1, 6, k))
    X.sort_indices()
    C = X.tocoo()
    o = np.lexsort((C.col, C.row))
    lines = [str(D), str(W), str(X.nnz)] + [f"{r + 1} {c + 1} {int(v)}" for r, c, v in
                                             zip(C.row[o], C.col[o], C.data[o])]
    path = tmp_path / "docword.c.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path), X


def _poke(directory, fname, dtype, pos, value):
    a = np.memmap(os.path.join(directory, fname), dtype=dtype, mode="r+")
    a[pos] = value
    a.flush()
    del a


CACHE_CORRUPTIONS = {
    "index_2_31": ("indices.i32", "<i4", 3, 2**31 - 1, "word id 2147483647 outside"),
    "index_minus_1": ("indices.i32", "<i4", 3, -1, "word id -1 outside"),
    "index_out_of_range": ("indices.i32", "<i4", 3, 30, "word id 30 outside"),
    "index_altered": ("indices.i32", "<i4", 3, None, "does not match its CRC-32"),
    "count_flipped": ("data.u32", "<u4", 5, None, "does not match its CRC-32"),
    "count_zero": ("data.u32", "<u4", 5, 0, "a count is 0"),
    "offset_decrease": ("indptr.i64", "<i8", 4, 0, "offsets decrease"),
    "offset_huge": ("indptr.i64", "<i8", 4, 10**15, "offsets decrease"),
    "offset_first": ("indptr.i64", "<i8", 0, 1, "offsets start at 1"),
}


def _build_cache(tmp_path):
    path, X = _corpus_file(tmp_path)
    c = open_corpus(path, cache_dir=tmp_path / "cache")
    list(c.iter_chunks())
    assert c.cache_status == "written"
    return path, X, c.cache_directory


def _read_all(c):
    """The corpus as one CSR matrix (each chunk placed at its ``doc_start``)."""
    rows, cols, vals = [], [], []
    for ch in c.iter_chunks(chunk_nnz=100):
        rows.append(ch.doc_start + np.repeat(np.arange(ch.n_docs), np.diff(ch.indptr)))
        cols.append(ch.indices)
        vals.append(ch.data.astype(float))
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                         shape=(c.n_docs, c.n_words))


@pytest.mark.parametrize("case", sorted(CACHE_CORRUPTIONS))
def test_damaged_cache_is_discarded_and_rebuilt(tmp_path, case):
    fname, dtype, pos, value, match = CACHE_CORRUPTIONS[case]
    path, X, d = _build_cache(tmp_path)
    if value is None:  # a plausible in-range change only the checksum can see
        a = np.fromfile(os.path.join(d, fname), dtype=dtype)
        value = (int(a[pos]) % 29) + 1 if fname.startswith("indices") else int(a[pos]) + 1
        if fname.startswith("indices") and value in (a[pos - 1], a[pos + 1]):
            value = int(a[pos])  # pragma: no cover - keep sorted rows sorted
    _poke(d, fname, dtype, pos, value)
    c = open_corpus(path, cache_dir=tmp_path / "cache")  # the arrays are checked when read
    assert c.cache_status == "hit"
    with pytest.warns(CacheWarning, match=match) as rec:
        got = _read_all(c)
    assert len(rec) == 1 and "\n" not in str(rec[0].message) and "discarded" in str(rec[0].message)
    assert (got != X).nnz == 0  # the right answer, from the source
    assert c.cache_status == "written" and c.last_source == "text"
    again = open_corpus(path, cache_dir=tmp_path / "cache")
    assert again.cache_status == "hit" and (_read_all(again) != X).nnz == 0


@pytest.mark.parametrize("case", ["meta_garbage", "meta_n_words", "array_truncated", "old_version"])
def test_damaged_cache_metadata_is_not_trusted(tmp_path, case):
    path, X, d = _build_cache(tmp_path)
    meta_path = os.path.join(d, "meta.json")
    meta = json.load(open(meta_path))
    if case == "meta_garbage":
        open(meta_path, "w").write("{not json")
    elif case == "meta_n_words":
        meta["n_words"] = 10**9
        json.dump(meta, open(meta_path, "w"))
    elif case == "array_truncated":
        with open(os.path.join(d, "indices.i32"), "r+b") as f:
            f.truncate(8)
    else:
        meta["version"] = 1
        json.dump(meta, open(meta_path, "w"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CacheWarning)
        c = open_corpus(path, cache_dir=tmp_path / "cache")
    assert c.cache_status == "miss" and c.n_words == X.shape[1]
    assert (_read_all(c) != X).nnz == 0 and c.cache_status == "written"


def test_damaged_stats_npz_is_recomputed(tmp_path):
    from eigensparse.text import extract_topics

    path, X, d = _build_cache(tmp_path)
    kw = dict(n_topics=2, cardinality=3, cache_dir=tmp_path / "cache", method="greedy")
    ref = extract_topics(path, None, **kw)
    stats = [n for n in os.listdir(d) if n.startswith("stats-")]
    assert stats
    for n in stats:
        raw = bytearray(open(os.path.join(d, n), "rb").read())
        raw[len(raw) // 2: len(raw) // 2 + 16] = b"\xa5" * 16
        open(os.path.join(d, n), "wb").write(bytes(raw))
    with pytest.warns(CacheWarning, match="damaged cached statistics"):
        res = extract_topics(path, None, **kw)
    assert [t.words for t in res.topics] == [t.words for t in ref.topics]
    assert np.allclose([t.variance for t in res.topics], [t.variance for t in ref.topics])


# ----------------------------------------------------------------------------------------
# 5. interrupts and leftovers
# ----------------------------------------------------------------------------------------

def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _run_py(code, **kw):
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_kill_9_during_cache_write_is_cleaned_by_next_run(tmp_path):
    path, X = _corpus_file(tmp_path, D=400)
    cache_dir = tmp_path / "cache"
    p = _run_py(f"""
        import time
        from eigensparse.io import open_corpus
        c = open_corpus({path!r}, cache_dir={str(cache_dir)!r})
        for ch in c.iter_chunks(chunk_nnz=50):
            print("chunk", flush=True)
            time.sleep(0.2)
        """)
    assert p.stdout.readline().strip() == "chunk"
    tmps = [n for n in os.listdir(cache_dir) if n.startswith(".tmp-")]
    assert tmps and tmps[0].startswith(f".tmp-{p.pid}-")
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    p.stdout.close()
    p.stderr.close()
    assert os.path.isdir(cache_dir / tmps[0])  # left behind by kill -9
    c = open_corpus(path, cache_dir=cache_dir)
    assert (_read_all(c) != X).nnz == 0 and c.cache_status == "written"
    assert not any(n.startswith(".tmp-") for n in os.listdir(cache_dir))


def test_stale_temp_of_dead_process_removed_regardless_of_age(tmp_path):
    path, _ = _corpus_file(tmp_path)
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    dead = _dead_pid()
    stale = cache_dir / f".tmp-{dead}-docword.c.txt-abc"
    stale.mkdir()
    (stale / "indices.i32").write_bytes(b"\0" * 1000)
    alive = cache_dir / f".tmp-{os.getpid()}-other-abc"  # a live writer's: kept
    alive.mkdir()
    c = open_corpus(path, cache_dir=cache_dir)
    list(c.iter_chunks())
    assert not stale.exists() and alive.exists()


def test_atomic_write_temp_of_dead_process_removed(tmp_path):
    from eigensparse.io._atomic import atomic_write_text

    dead = _dead_pid()
    left = tmp_path / f".tmp-{dead}-x1y2-out.json"
    left.write_text("{partial")
    atomic_write_text(tmp_path / "out.json", "{}")
    assert not left.exists() and (tmp_path / "out.json").read_text() == "{}"
    assert sorted(os.listdir(tmp_path)) == ["out.json"]


def test_ctrl_c_in_cli_is_clean(tmp_path):
    path, _ = _corpus_file(tmp_path, D=400)
    vocab = tmp_path / "vocab.c.txt"
    vocab.write_text("\n".join(f"w{i}" for i in range(30)) + "\n")
    p = _run_py(f"""
        import signal, time, sys
        # SIGINT as on a terminal, even when the test runner ignores it (a background job's
        # children inherit the ignored signal, and Python then installs no handler)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import eigensparse.io._build as build
        orig = build._parse_alone
        def slow(*a, **k):
            print("chunk", flush=True)
            time.sleep(0.3)
            return orig(*a, **k)
        build._parse_alone = slow
        from eigensparse.cli import main
        sys.exit(main(["topics", {path!r}, {str(vocab)!r}, "-k", "1", "-s", "2", "--cache-dir",
                       {str(tmp_path / "cache")!r}, "--json", {str(tmp_path / "out.json")!r}]))
        """)
    assert p.stdout.readline().strip() == "chunk"
    os.kill(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "Traceback" not in err and "interrupted" in err
    assert not (tmp_path / "out.json").exists()
    left = [n for n in os.listdir(tmp_path / "cache")] if (tmp_path / "cache").exists() else []
    assert left == []


# ----------------------------------------------------------------------------------------
# 6. bounded work
# ----------------------------------------------------------------------------------------

def test_exhaustive_time_budget_returns_best_so_far():
    X = _rng_data(40, 60)
    op = eigensparse.DenseData(X)
    with pytest.warns(RuntimeWarning, match="stopped by max_time=0.3 s"):
        r = get_solver("exhaustive").func(op, 8, max_time=0.3)
    assert not r.converged and r.info["stopped"] == "max_time" and np.count_nonzero(r.loadings) == 8
    # stopped part-way through the C(60, 8) supports, not after the full scan
    assert r.info["n_supports"] == math.comb(60, 8)
    assert 0 < r.info["n_scanned"] < r.info["n_supports"]
    # the best so far is a genuine 8-sparse eigenvector: its variance is λmax of its block,
    # below the cardinality bound (sum of the 8 largest variances) and λmax of Σ
    S = op.to_dense()
    I = np.flatnonzero(r.loadings)
    assert np.isclose(np.linalg.norm(r.loadings), 1.0)
    assert r.variance == pytest.approx(r.loadings @ S @ r.loadings, rel=1e-10)
    assert r.variance == pytest.approx(np.linalg.eigvalsh(S[np.ix_(I, I)])[-1], rel=1e-9)
    assert r.variance <= min(np.sort(np.diag(S))[-8:].sum(), np.linalg.eigvalsh(S)[-1]) + 1e-12


@pytest.mark.parametrize("method", ["bca", "dspca"])
def test_relaxation_time_budget_returns_best_so_far(method):
    X = _rng_data(200, 300, seed=1)
    op = eigensparse.DenseData(X)
    with pytest.warns(RuntimeWarning, match=f"{method}: stopped by max_time"):
        r = get_solver(method).func(op, 10, max_time=0.2)
    assert not r.converged and r.info["stopped"] == "max_time"
    assert np.count_nonzero(r.loadings) == 10
    S = op.to_dense()
    assert r.variance == pytest.approx(r.loadings @ S @ r.loadings, rel=1e-9)
    # the bound stays a bound when stopped early: above what greedy reaches with 10
    # features, and no worse than the trivial sum of the 10 largest variances
    greedy = get_solver("greedy").func(op, 10)
    assert r.upper_bound >= max(r.variance, greedy.variance) * (1 - 1e-9)
    assert r.upper_bound <= np.sort(np.diag(S))[-10:].sum() * (1 + 1e-9)


# ----------------------------------------------------------------------------------------
# 7. the command line: one line, exit code 2, no traceback, nothing written
# ----------------------------------------------------------------------------------------

def _cli(args, cwd, capsys, monkeypatch):
    """Run the CLI in this process (an uncaught exception would fail the test, as a
    traceback would); returns (exit code, stdout, stderr)."""
    from eigensparse.cli import main

    monkeypatch.chdir(cwd)
    capsys.readouterr()
    try:
        rc = main(list(args))
    except SystemExit as exc:
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    (d / "docword.t.txt").write_text("3\n3\n5\n" + GOOD_BODY)
    (d / "vocab.t.txt").write_text("a\nb\nc\n")
    (d / "vocab.dup.txt").write_text("a\nb\na\n")
    (d / "docword.lie.txt").write_text("1000\n3\n5\n" + GOOD_BODY)
    (d / "docword.huge.txt").write_text("1000000000000000\n3\n5\n" + GOOD_BODY)
    (d / "afile").write_text("x")
    (d / "adir").mkdir()
    return d


CLI_CASES = {
    "json_is_dir": (["docword.t.txt", "vocab.t.txt", "--json", "adir"], "--json adir: is a directory"),
    "plot_is_file": (["docword.t.txt", "vocab.t.txt", "--plot", "afile"], "--plot afile: is a file"),
    "cache_dir_is_file": (["docword.t.txt", "vocab.t.txt", "--cache-dir", "afile"], "--cache-dir afile: is a file"),
    "random_state": (["docword.t.txt", "vocab.t.txt", "--random-state", "x"], "argument --random-state"),
    "k_zero": (["docword.t.txt", "vocab.t.txt", "-k", "0"], "argument -k/--n-components"),
    "missing_file": (["nope.txt", "vocab.t.txt"], "nope.txt: line 1: file does not exist"),
    "dup_vocab": (["docword.t.txt", "vocab.dup.txt"], "vocab.dup.txt: line 3: duplicate word 'a'"),
    "lie_no_cache": (["docword.lie.txt", "vocab.t.txt", "--no-cache"], "docword.lie.txt: line 1: header D=1000 documents"),
    "lie_cache": (["docword.lie.txt", "vocab.t.txt"], "docword.lie.txt: line 1: header D=1000 documents"),
    "huge_header_scale": (["docword.huge.txt", "vocab.t.txt", "--scaling", "unit"], "docword.huge.txt: line 1: header D (documents)="),
    "unknown_option": (["docword.t.txt", "vocab.t.txt", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    "dataset_and_files": (["docword.t.txt", "vocab.t.txt", "--dataset", "kos"], "not both"),
}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_cli_errors_are_one_line(cli_files, case, tmp_path, capsys, monkeypatch):
    args, match = CLI_CASES[case]
    before = set(os.listdir(cli_files))
    rc, out, err = _cli(["topics", *args, "-k", "1", "-s", "1", "--no-progress", "--json",
                         str(tmp_path / "o.json")] if "--json" not in args else
                        ["topics", *args, "-k", "1", "-s", "1"], cli_files, capsys, monkeypatch)
    assert rc == 2, err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and re.match(r"eigensparse( topics)?: error: ", lines[0]), err
    assert match in lines[0], err
    assert set(os.listdir(cli_files)) == before and not (tmp_path / "o.json").exists()


def test_cli_subprocess_has_no_traceback(cli_files):
    env = dict(os.environ, PYTHONPATH=SRC)
    p = subprocess.run([sys.executable, "-m", "eigensparse", "topics", "docword.huge.txt",
                        "vocab.t.txt", "--scaling", "unit"], cwd=cli_files, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.strip().count("\n") == 0 and "cannot be right" in p.stderr


@pytest.mark.parametrize("scale", [["--scaling", "unit"], []])
def test_cli_identical_documents_are_refused_in_one_line(tmp_path, capsys, monkeypatch, scale):
    """Every word of zero variance: one line naming the file, no JSON written (``--scaling
    unit`` runs in the same streamed pipeline as the other scalings)."""
    (tmp_path / "docword.same.txt").write_text("4\n3\n8\n" + "".join(
        f"{d} 1 2\n{d} 3 1\n" for d in range(1, 5)))
    (tmp_path / "vocab.same.txt").write_text("a\nb\nc\n")
    rc, out, err = _cli(["topics", "docword.same.txt", "vocab.same.txt", *scale, "-k", "1", "-s",
                         "1", "--no-progress", "--cache-dir", "cache", "--json", "out.json"],
                        tmp_path, capsys, monkeypatch)
    assert rc == 2 and "\n" not in err.strip() and "Traceback" not in err, err
    assert err.startswith("eigensparse: error: docword.same.txt: every word ")
    assert err.strip().endswith("has zero variance.")
    assert not (tmp_path / "out.json").exists()


def test_bipartite_time_budget_returns_best_so_far():
    X = _rng_data(200, 300, seed=2)
    with pytest.warns(RuntimeWarning, match="bipartite: stopped by the time budget"):
        res = sparse_pca(X, n_components=3, cardinality=5, method="bipartite", max_time=0.05,
                         n_candidates=10**7, refine=False)
    assert all(np.count_nonzero(c) == 5 for c in res.components)
    # the components found before the stop are unit 5-sparse vectors on disjoint supports,
    # each with the variance its loadings give on the sample covariance
    S = np.cov(X, rowvar=False, bias=True)
    supports = [set(np.flatnonzero(c)) for c in res.components]
    assert len(set().union(*supports)) == 15
    for c, r in zip(res.components, res.results):
        assert np.isclose(np.linalg.norm(c), 1.0)
        assert r.variance <= np.sort(np.diag(S))[-5:].sum() * (1 + 1e-9)
        assert c @ S @ c <= np.linalg.eigvalsh(S)[-1] * (1 + 1e-9)
    with pytest.raises(InvalidParameterError, match="not both"):
        sparse_pca(X, n_components=2, cardinality=5, method="bipartite", max_time=1.0,
                   time_budget=1.0)


# ---- values that are not real numbers: refused at the boundary, never cast ----------------------
# (a cast of complex values to float64 discards the imaginary part with only a NumPy warning)

_RNG = np.random.default_rng(7)
_X = _RNG.normal(size=(20, 4))
UNREAL = {
    "complex": _X + 1j * _X,
    "complex-zero-imag": _X.astype(complex),
    "strings": _X.astype(str),
    "dates": np.arange(80).reshape(20, 4).astype("datetime64[D]"),
    "time spans": np.arange(80).reshape(20, 4).astype("timedelta64[s]"),
}
_WHAT = {"complex": "complex numbers", "complex-zero-imag": "complex numbers", "strings": "strings",
         "dates": "dates", "time spans": "time spans"}


@pytest.mark.parametrize("case", sorted(UNREAL))
def test_unreal_npy_is_refused_in_one_line(tmp_path, case, run_cli):
    path = tmp_path / "bad.npy"
    np.save(path, UNREAL[case])
    status, _, err = run_cli(["fit", path, "-s", "2"], warnings_as_errors=True)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1, err
    assert "bad.npy" in lines[0] and _WHAT[case] in lines[0] and "discards" not in lines[0]


@pytest.mark.parametrize("fmt", ["npz", "mtx", "npy-covariance"])
def test_complex_sparse_and_covariance_files_are_refused(tmp_path, fmt, run_cli):
    import scipy.io

    C = _X.T @ _X
    extra = []
    if fmt == "npz":
        path = tmp_path / "bad.npz"
        sp.save_npz(path, sp.csr_matrix(_X + 1j))
    elif fmt == "mtx":
        path = tmp_path / "bad.mtx"
        scipy.io.mmwrite(str(path), sp.coo_matrix(_X + 1j))
    else:
        path = tmp_path / "bad.npy"
        np.save(path, C + 0j)
        extra = ["--covariance"]
    status, _, err = run_cli(["fit", path, "-s", "2", *extra], warnings_as_errors=True)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1, err
    assert path.name in lines[0] and "complex numbers" in lines[0]


@pytest.mark.parametrize("case", sorted(UNREAL))
@pytest.mark.parametrize("entry", ["sparse_pca", "SparsePCA", "Covariance"])
def test_unreal_arrays_are_refused_by_every_entry_point(case, entry):
    A = UNREAL[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "discards the imaginary part" on the way
        with pytest.raises(InvalidParameterError, match=_WHAT[case]):
            if entry == "sparse_pca":
                sparse_pca(A, cardinality=2)
            elif entry == "SparsePCA":
                SparsePCA(cardinality=2).fit(A)
            else:
                Covariance(A[:4] if A.shape[0] > 4 else A)


def test_complex_sparse_matrix_and_init_are_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidParameterError, match="parameter 'X' holds complex numbers"):
            SparsePCA(cardinality=2).fit(sp.csr_matrix(_X + 1j))
        with pytest.raises(InvalidParameterError, match="parameter 'init' holds complex numbers"):
            sparse_pca(_X, cardinality=2, init=np.ones(4) + 1j)
        with pytest.raises(InvalidParameterError, match="parameter 'docword' holds complex"):
            eigensparse.io.MatrixCorpus(sp.csr_matrix(_X + 1j))


@pytest.mark.parametrize("column, what", [(["a"] * 20, "'a'"),
                                          (list(np.arange(20).astype("datetime64[D]")), "dates"),
                                          ([1j] * 20, "complex")])
@pytest.mark.parametrize("entry", ["sparse_pca", "SparsePCA"])
def test_dataframe_column_that_is_not_real_is_named(column, what, entry):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(_X, columns=["w", "x", "y", "z"]).assign(label=column)
    with pytest.raises(InvalidParameterError, match=rf"column 'label' .*{re.escape(what)}"):
        if entry == "sparse_pca":
            sparse_pca(df, cardinality=2)
        else:
            SparsePCA(cardinality=2).fit(df)


def test_real_dtypes_are_still_accepted(tmp_path, run_cli):
    for A in (_X > 0, (_X * 10).astype(np.int16), _X.astype(np.float32), _X.astype(object)):
        SparsePCA(cardinality=2, random_state=0).fit(A)
    np.save(tmp_path / "ok.npy", (_X > 0))
    status, _, err = run_cli(["fit", tmp_path / "ok.npy", "-s", "2"], warnings_as_errors=True)
    assert status == 0, err


@pytest.mark.parametrize("entry", ["sparse_pca", "SparsePCA"])
def test_object_arrays_mean_the_same_to_every_entry_point(entry):
    """Numbers held as objects: sparse_pca refused them ('must be numeric') while the
    estimator took them; a string among them gave scikit-learn's bare 'could not convert'
    in the estimator. Now both take what float() reads and say where the first other is."""
    X = _rng_data(20, 4)
    fit = (lambda A: sparse_pca(A, n_components=1, cardinality=2).components) if entry == "sparse_pca" \
        else (lambda A: SparsePCA(n_components=1, cardinality=2).fit(A).components_)
    np.testing.assert_array_equal(fit(X.astype(object)), fit(X))
    bad = X.astype(object)
    bad[3, 2] = "n/a"
    name = "data" if entry == "sparse_pca" else "X"
    with pytest.raises(InvalidParameterError,
                       match=rf"parameter '{name}' has an entry that is not a real number at \[3, 2\]: .*'n/a'"):
        fit(bad)
    bad[3, 2] = 1j  # a complex number is refused, never cast
    with pytest.raises(InvalidParameterError, match=r"at \[3, 2\]: .*complex"):
        fit(bad)


def test_a_zero_total_variance_is_said_once_per_result(tmp_path, capsys):
    """Constant data: the table and the total line both read the ratio; the warning that
    the total variance is 0 comes once (it came once per reader)."""
    from eigensparse.cli import main

    path = tmp_path / "const.csv"
    path.write_text("a,b,c\n1,1,1\n1,1,1\n1,1,1\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = sparse_pca(np.ones((4, 3)), n_components=1, cardinality=1)
        res.explained_variance_ratio, res.explained_variance_ratio
    assert sum("total variance is 0" in str(w.message) for w in caught) == 1
    main(["fit", str(path), "-k", "1", "-s", "1"])
    assert capsys.readouterr().err.count("total variance is 0") == 1
