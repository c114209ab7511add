"""Pruning + tf-idf + the bounded solve recover planted mid-frequency topics that count
variance misses: :func:`eigensparse.text.extract_topics` on a synthetic Zipf corpus with
planted topics."""
import warnings

import numpy as np
import pytest

from eigensparse.datasets.synthetic_corpus import make_zipf_corpus, topic_precision
from eigensparse.text import extract_topics

MIN_DF, MAX_DF = 5, 0.5


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make_zipf_corpus(tmp_path_factory.mktemp("zipf"), scale=0.03, n_words=8000,
                            random_state=1)


def _run(c, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return extract_topics(c.docword, c.vocab, n_topics=5, cardinality=5, center=True,
                              working_set=400, max_working_set=400, cache=False,
                              random_state=0, progress=False, **kw)


def test_pruned_tfidf_recovers_planted_topics(corpus):
    r = _run(corpus, scaling="tfidf", min_df=MIN_DF, max_df=MAX_DF)
    found = [t.word_ids for t in r.topics]
    assert all(len(f) == 5 for f in found)
    assert len(set(np.concatenate(found).tolist())) == 25  # no word repeated
    P = topic_precision(found, corpus.topics)
    assert P["mean_precision"] >= 0.8 and P["n_distinct_matched"] == 5
    # the pruning removed words at both ends, and no topic word lies outside its window
    df = r.word_df
    assert (df < MIN_DF).any() and (df > MAX_DF * r.n_docs).any()
    for f in found:
        assert np.all((df[f] >= MIN_DF) & (df[f] <= MAX_DF * r.n_docs))


def test_count_variance_finds_frequent_words_instead(corpus):
    r = _run(corpus, scaling="count", min_df=1, max_df=1.0)
    found = np.concatenate([t.word_ids for t in r.topics])
    P = topic_precision([t.word_ids for t in r.topics], corpus.topics)
    assert P["mean_precision"] == 0.0
    # raw counts rank words by frequency: every topic word is one that max_df would prune,
    # far more frequent than any planted topic word
    df = r.word_df
    planted = np.concatenate([np.asarray(t) for t in corpus.topics])
    assert np.all(df[found] > MAX_DF * r.n_docs)
    assert df[found].min() > 10 * df[planted].max()
