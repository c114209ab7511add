"""The compiled pieces of the synthetic corpus: per-document counting and UCI lines."""
from __future__ import annotations

import gzip

import numpy as np

from eigensparse.datasets._corpus_kernels import CorpusLaw, _count_docs, chunk_entries, gzip_member


def test_count_docs_merges_tokens_and_extra_counts():
    rng = np.random.default_rng(0)
    nd, n_words = 30, 17
    tok_ptr = np.concatenate([[0], np.cumsum(rng.integers(0, 12, nd))]).astype(np.int64)
    tokens = rng.integers(0, n_words, tok_ptr[-1]).astype(np.int64)
    ed = np.sort(rng.integers(0, nd, 25)).astype(np.int64)
    ew = rng.integers(0, n_words, 25).astype(np.int64)
    ec = rng.integers(1, 4, 25).astype(np.int64)
    ext_ptr = np.concatenate([[0], np.cumsum(np.bincount(ed, minlength=nd))]).astype(np.int64)
    cap = tokens.size + ec.size
    ow, oc, op = (np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(nd + 1, np.int64))
    k = _count_docs(tok_ptr, tokens, ext_ptr, ew, ec, n_words, ow, oc, op)
    for d in range(nd):
        ref = np.bincount(tokens[tok_ptr[d]:tok_ptr[d + 1]], minlength=n_words)
        np.add.at(ref, ew[ed == d], ec[ed == d])
        got = np.zeros(n_words, np.int64)
        got[ow[op[d]:op[d + 1]]] = oc[op[d]:op[d + 1]]
        assert np.array_equal(got, ref)
        assert np.all(np.diff(ow[op[d]:op[d + 1]]) > 0)  # sorted, unique words
    assert k == op[-1] == np.count_nonzero([np.bincount(tokens[tok_ptr[d]:tok_ptr[d + 1]], minlength=n_words)
                                            + np.bincount(ew[ed == d], minlength=n_words)
                                            for d in range(nd)])


def test_chunk_entries_are_uci_lines_of_the_chunk():
    n_words = 50
    p = np.full(n_words, 1.0 / n_words)
    law = CorpusLaw(prob=np.ones(n_words), alias=np.arange(n_words), prev=np.array([1.0]),
                    rate=np.array([3.0]), word_rate=[np.full(3, 3.0)],
                    topics=[np.array([4, 9, 30], dtype=np.int64)], median_len=20.0,
                    mean_len=20.0, length_sigma=0.3)
    data, k = chunk_entries(np.random.default_rng(1), law, 100, 8, 1000, n_words)
    rows = np.array([list(map(int, ln.split())) for ln in data.decode().splitlines()])
    assert rows.shape == (k, 3) and p.size == n_words
    assert rows[:, 0].min() >= 101 and rows[:, 0].max() <= 108  # 1-based ids after `start`
    assert rows[:, 1].min() >= 1 and rows[:, 1].max() <= n_words and rows[:, 2].min() >= 1
    assert gzip.decompress(gzip_member(data, 1)) == data
