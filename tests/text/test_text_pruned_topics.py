"""Pruning + tf-idf + the bounded solve recover planted mid-frequency topics that count
variance misses (the reference wiring of benchmarks/_topics_harness.py)."""
import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest

from eigensparse.datasets.synthetic_corpus import make_zipf_corpus, topic_precision

ROOT = next(p for p in Path(__file__).resolve().parents
            if (p / "benchmarks" / "_topics_harness.py").exists())
_spec = importlib.util.spec_from_file_location("_topics_harness",
                                               ROOT / "benchmarks" / "_topics_harness.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make_zipf_corpus(tmp_path_factory.mktemp("zipf"), scale=0.03, n_words=8000,
                            random_state=1)


def _run(c, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return harness.pruned_topics(c.docword, c.vocab, cache=False, working_set=400, **kw)


def test_pruned_tfidf_recovers_planted_topics(corpus):
    r = _run(corpus, scaling="tfidf", pruning=harness.PRUNINGS["df"])
    found = [t["word_ids"] for t in r["topics"]]
    assert all(len(f) == 5 for f in found)
    assert len(set(np.concatenate(found).tolist())) == 25  # no word repeated
    P = topic_precision(found, corpus.topics)
    assert P["mean_precision"] >= 0.8 and P["n_distinct_matched"] == 5
    assert r["pruning"].removed["min_df"] > 0 and r["pruning"].removed["max_df"] > 0


def test_count_variance_finds_frequent_words_instead(corpus):
    r = _run(corpus, scaling="count")
    P = topic_precision([t["word_ids"] for t in r["topics"]], corpus.topics)
    assert P["mean_precision"] == 0.0
    assert 0.0 <= harness.score_correlation(r) <= 1.0
