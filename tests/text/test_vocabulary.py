"""Vocabulary pruning agrees with scikit-learn's CountVectorizer."""
import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from eigensparse import InvalidParameterError
from eigensparse.text._vocabulary import prune_vocabulary, stop_word_set

WORDS = ["the", "and", "bush", "kerry", "poll", "iraq", "war", "vote", "senate", "house",
         "economy", "jobs"]


def _docs(seed=0, n=60):
    rng = np.random.default_rng(seed)
    p = np.linspace(1.0, 0.05, len(WORDS))
    return [" ".join(w for w, q in zip(WORDS, p) if rng.random() < q) or "jobs" for _ in range(n)]


@pytest.mark.parametrize("min_df,max_df,stop", [(1, 1.0, None), (5, 0.8, None), (0.1, 40, "english"),
                                                 (3, 0.95, ["bush", "vote"]), (0.0, 1.0, "english")])
def test_matches_countvectorizer(min_df, max_df, stop):
    docs = _docs()
    full = CountVectorizer(token_pattern=r"\S+")
    X = full.fit_transform(docs)
    vocab = full.get_feature_names_out().tolist()
    df = np.asarray((X > 0).sum(axis=0)).ravel()
    ref = CountVectorizer(token_pattern=r"\S+", min_df=min_df, max_df=max_df,
                          stop_words=stop).fit(docs)
    out = prune_vocabulary(df, len(docs), min_df=min_df, max_df=max_df, stop_words=stop,
                           words=vocab)
    assert sorted(np.array(vocab)[out.keep].tolist()) == sorted(ref.vocabulary_)
    assert sum(out.removed.values()) == len(vocab) - out.n_kept


def test_max_features_keeps_largest_counts():
    df = np.array([5, 9, 1, 7, 3])
    counts = np.array([10.0, 50.0, 2.0, 30.0, 40.0])
    out = prune_vocabulary(df, 10, max_features=2, counts=counts, max_df=8)
    # word 1 (df 9 > 8) goes first, then the two largest counts of the rest: 4 and 3
    assert np.flatnonzero(out.keep).tolist() == [3, 4]
    assert out.removed == {"min_df": 0, "max_df": 1, "stop_words": 0, "max_features": 2}


def test_english_stop_words_are_sklearns():
    import subprocess
    import sys

    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    assert stop_word_set("english") == ENGLISH_STOP_WORDS
    assert stop_word_set(None) == frozenset()
    # read from scikit-learn's file: the package itself (about a second) is not imported
    code = ("import sys; from eigensparse.text._vocabulary import stop_word_set; "
            "w = stop_word_set('english'); print(len(w), 'the' in w, 'sklearn' in sys.modules)")
    import os

    import eigensparse

    src = os.path.dirname(os.path.dirname(eigensparse.__file__))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=src))
    assert out.stdout.split() == [str(len(ENGLISH_STOP_WORDS)), "True", "False"]


@pytest.mark.parametrize("kwargs,name", [
    ({"min_df": -1}, "min_df"), ({"max_df": 1.5}, "max_df"), ({"min_df": "x"}, "min_df"),
    ({"min_df": 8, "max_df": 0.5}, "max_df"), ({"stop_words": "french", "words": WORDS[:4]}, "stop_words"),
    ({"stop_words": "english"}, "words"), ({"max_features": 0}, "max_features"),
    ({"max_features": 2}, "counts"), ({"stop_words": [1, 2], "words": WORDS[:4]}, "stop_words"),
])
def test_errors_name_the_parameter(kwargs, name):
    with pytest.raises(InvalidParameterError, match=name):
        prune_vocabulary(np.array([1, 5, 9, 10]), 10, **kwargs)


def test_bad_df_and_n_docs():
    with pytest.raises(InvalidParameterError, match="'df'"):
        prune_vocabulary(np.array([[1, 2]]), 10)
    with pytest.raises(InvalidParameterError, match="n_docs"):
        prune_vocabulary(np.array([1, 2]), 0)
