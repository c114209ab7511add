"""Topics of large text corpora, out of core (Zhang & El Ghaoui 2011, §4).

:func:`extract_topics` streams a bag-of-words corpus twice — exact per-word
statistics (centered tf-idf by default), vocabulary pruning as scikit-learn's
vectorizers (``min_df=5, max_df=0.5``), then the covariance of a working set of the
kept words chosen by safe elimination — and finds each topic on that small matrix in
bounded time, through the same dispatcher as :func:`eigensparse.sparse_pca`:

>>> from eigensparse.text import extract_topics           # doctest: +SKIP
>>> res = extract_topics("docword.nytimes.txt.gz", "vocab.nytimes.txt",
...                      n_topics=5, cardinality=5)        # doctest: +SKIP
>>> print(res.format_table()); print(res.phase_table())  # doctest: +SKIP

:func:`plot_topics_diagnostics` draws the sorted word variances (the paper's Fig. 2)
and variance against cardinality; :func:`write_json` saves a result atomically.
"""
from ._config import (DEFAULT_MAX_DF, DEFAULT_MAX_TIME, DEFAULT_MIN_DF, DEFAULT_TOPIC_CARDINALITY,
                      DEFAULT_TOPIC_DEFLATION, DEFAULT_TOPIC_SCALING, SCALINGS, TopicConfig)
from ._passes import word_statistics, working_set_covariance
from ._pipeline import extract_topics
from ._plot import plot_topics_diagnostics, variance_by_cardinality
from ._result import Topic, TopicsResult, write_json

__all__ = ["extract_topics", "TopicConfig", "TopicsResult", "Topic", "plot_topics_diagnostics", "write_json",
           "word_statistics", "working_set_covariance", "variance_by_cardinality", "SCALINGS",
           "DEFAULT_TOPIC_CARDINALITY", "DEFAULT_TOPIC_DEFLATION", "DEFAULT_TOPIC_SCALING",
           "DEFAULT_MIN_DF", "DEFAULT_MAX_DF", "DEFAULT_MAX_TIME"]
