"""The tokenizer's kernels: hash-table growth and the renumbering of rows."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from eigensparse.io import _token_kernels as K
from eigensparse.io._tokenize import TokenCounter


def test_rehash_keeps_every_word_findable():
    tc = TokenCounter()
    docs = [" ".join(f"w{i}x{j}" for j in range(50)) for i in range(400)]
    tc.count(pa.array(docs))  # 20,000 words: the table grows several times
    before = tc.n_words
    _, idx, _, _ = tc.count(pa.array(docs[:3]))
    assert tc.n_words == before and idx.max() < 150  # seen words keep their ids


def test_remap_rows_renumbers_and_sorts_each_row():
    rng = np.random.default_rng(1)
    lengths = [0, 3, 60, 1]
    indptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    idx = np.concatenate([rng.permutation(100)[:n] for n in lengths]).astype(np.int32)
    cnt = rng.integers(1, 9, idx.size).astype(np.uint32)
    rank = rng.permutation(100).astype(np.int32)
    oi, oc = np.empty_like(idx), np.empty_like(cnt)
    K.remap_rows(indptr, idx, cnt, rank, np.zeros(1, np.int64), 27, oi, oc)
    for d in range(len(lengths)):
        a, b = indptr[d], indptr[d + 1]
        assert np.all(np.diff(oi[a:b]) > 0)
        assert dict(zip(oi[a:b], oc[a:b])) == dict(zip(rank[idx[a:b]], cnt[a:b]))


def test_words_sharing_their_first_16_bytes_stay_apart():
    from sklearn.feature_extraction.text import CountVectorizer

    stem = "internationalisation"  # 20 bytes: the slot holds the first 16
    words = [stem[:n] for n in range(2, 21)] + [stem + s for s in ("a", "b", "ab", "ba")] + \
        ["é" * 9 + "x", "é" * 9 + "y", "é" * 8 + "xy"]
    docs = [" ".join(words[i:] + words[:i]) for i in range(len(words))] + [words[3]]
    tc = TokenCounter()
    ptr, idx, cnt, _ = tc.count(pa.array(docs))
    vocab, rank, df = tc.vocabulary()
    cv = CountVectorizer()
    Y = cv.fit_transform(docs)
    assert vocab == list(cv.get_feature_names_out())
    assert df.tolist() == np.asarray((Y > 0).sum(axis=0)).ravel().tolist()
    import scipy.sparse as sp
    X = sp.csr_matrix((cnt, rank[idx], ptr), shape=Y.shape)
    assert (X != Y).nnz == 0
