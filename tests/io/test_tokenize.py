"""The compiled tokenizer gives exactly CountVectorizer's vocabulary and counts."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from eigensparse.io._tokenize import TokenCounter, unicode_tables

#: real-text oddities: accents, ligatures, digits of other scripts, CJK, final sigma,
#: dotted capital I (two code points when lowered), emoji, underscores, titlecase
DOCS = [
    "İstanbul ΣΊΣΥΦΟΣ straße Ⅻ ½ ௮௯ x² naïve café ﬁle 𝐀𝐁 日本語テキスト ǅungla ΑΣ.",
    "Ω_ab ab__ _x 12 3 a b cc DD Ee",
    "Σ σ ΑΣ ΑΣΑ ὈΔΥΣΣΕΎΣ",
    "",
    "  \t\n ",
    "émoji 😀😀 ab\u00a0cd\u2003ef",
    "The quick brown fox; the QUICK fox's tail -- 3.14 and 2,000 dollars.",
    "!!",
    "Ünïcödé ÀÉÎÕÜ ÆØÅ æøå ŒœŸ Ǆǅǆ ﬀ ﬃ",
    "CJK extension B 𠀀𠀁 beyond the tables, Ab",
]


def _counter_matrix(docs, **options):
    tc = TokenCounter(**options)
    ptr, idx, cnt, blank = tc.count(pa.array(docs))
    words, rank, _ = tc.vocabulary()
    X = sp.csr_matrix((cnt.astype(float), rank[idx], ptr), shape=(len(docs), len(words)))
    return X, words, blank


def _sklearn(docs, **options):
    cv = CountVectorizer(**options)
    return cv.fit_transform(docs), list(cv.get_feature_names_out())


def test_unicode_tables_agree_with_python():
    isw_low, low, special, isw, ascii_low, _ = unicode_tables()
    for ch in "aZ_9éÉİΣẞǅ²½日😀 -":
        cp = ord(ch)
        if not special[cp]:
            assert chr(low[cp]) == ch.lower()
            assert bool(isw_low[cp]) == (ch.lower().isalnum() or ch.lower() == "_")
    assert special[ord("İ")] and special[ord("Σ")]
    assert ascii_low[ord("A")] == ord("a") and ascii_low[ord("-")] == 0


@pytest.mark.parametrize("docs", [DOCS, DOCS * 3 + [d.upper() for d in DOCS]])
def test_default_tokens_identical_to_count_vectorizer(docs):
    X, words, blank = _counter_matrix(docs)
    Y, ref = _sklearn(docs)
    assert words == ref
    assert (X != Y).nnz == 0
    assert blank.tolist() == [not d.strip() for d in docs]


def test_batches_share_one_vocabulary():
    tc = TokenCounter()
    rows = [tc.count(pa.array(DOCS[i:i + 2])) for i in range(0, len(DOCS), 2)]
    words, rank, df = tc.vocabulary()
    mats = [sp.csr_matrix((c.astype(float), rank[i], p), shape=(p.size - 1, len(words)))
            for p, i, c, _ in rows]
    Y, ref = _sklearn(DOCS)
    assert words == ref and (sp.vstack(mats) != Y).nnz == 0
    assert df.tolist() == np.asarray((Y > 0).sum(axis=0)).ravel().tolist()


@pytest.mark.parametrize("options", [dict(lowercase=False), dict(ngram_range=(1, 2)),
                                     dict(strip_accents="unicode"),
                                     dict(token_pattern=r"(?u)\b\w+\b")])
def test_other_options_as_count_vectorizer(options):
    X, words, _ = _counter_matrix(DOCS, **options)
    Y, ref = _sklearn(DOCS, **options)
    assert words == ref and (X != Y).nnz == 0


def test_growth_of_every_state_array():
    rng = np.random.default_rng(0)
    vocab = ["w" + "".join(rng.choice(list("abcdéfgh"), size=int(rng.integers(2, 9))))
             for _ in range(40000)]
    pick = rng.integers(0, len(vocab), size=(3000, 30))
    docs = [" ".join(vocab[i] for i in row) for row in pick] + [" ".join(vocab)]
    X, words, _ = _counter_matrix(docs)
    Y, ref = _sklearn(docs)
    assert words == ref and (X != Y).nnz == 0
