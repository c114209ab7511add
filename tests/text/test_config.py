"""The options of one topic extraction (``text/_config.py``): :class:`TopicConfig`, its
merge with keyword options and its validation, each error naming the option."""
import dataclasses
import inspect

import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.text import extract_topics
from eigensparse.text._config import (PARAMETERS, PASS_SCALINGS, SCALINGS, TOPIC_CONSTRAINTS,
                                      TopicConfig)


def test_topic_config_is_the_options_of_extract_topics(corpus):
    X, _ = corpus
    cfg = TopicConfig(n_topics=2, cardinality=3, scaling="count", min_df=1, max_df=1.0,
                      progress=False)
    a = extract_topics(X, config=cfg)
    b = extract_topics(X, n_topics=2, cardinality=3, scaling="count", min_df=1, max_df=1.0,
                       progress=False)
    assert np.array_equal(a.components, b.components)
    c = extract_topics(X, config=cfg, cardinality=4)  # a keyword replaces the config's field
    assert [t.cardinality for t in c.topics] == [4, 4]
    from eigensparse import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="unknown option.*'n_topic'"):
        extract_topics(X, n_topic=2)
    with pytest.raises(InvalidParameterError, match="max_time.*time_budget"):
        extract_topics(X, max_time=1.0, time_budget=2.0)
    with pytest.raises(InvalidParameterError, match="refine"):
        extract_topics(X, refine="sometimes")
    with pytest.raises(InvalidParameterError, match="config"):
        extract_topics(X, config={"n_topics": 2})


def test_from_options_replaces_only_the_given_fields():
    base = TopicConfig(n_topics=2, scaling="count", min_df=1)
    cfg = TopicConfig.from_options(base, cardinality=4, scaling="log")
    assert (cfg.n_topics, cfg.cardinality, cfg.scaling, cfg.min_df) == (2, 4, "log", 1)
    assert base.scaling == "count"  # the config given is left as it was (frozen)
    assert TopicConfig.from_options() == TopicConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.n_topics = 3


def test_unknown_option_names_it_and_the_closest_valid_one():
    with pytest.raises(InvalidParameterError,
                       match=r"unknown option\(s\) \['n_topic'\] \(did you mean 'n_topics'\?\)"):
        TopicConfig.from_options(n_topic=3)
    with pytest.raises(InvalidParameterError, match="'config' must be a TopicConfig; got dict"):
        TopicConfig.from_options({"n_topics": 2})


def test_time_budget_is_the_deprecated_name_of_max_time():
    with pytest.warns(FutureWarning, match="time_budget"):
        cfg = TopicConfig.from_options(time_budget=3.0)
    assert cfg.max_time == 3.0


@pytest.mark.parametrize("option, value", [
    ("n_topics", 0), ("scaling", "idf"), ("max_time", 0.0), ("n_jobs", 65),
    ("working_set_rule", "largest"), ("verify", "md5"), ("cardinality_tolerance", -1),
    ("max_working_set", 0), ("chunk_nnz", 0),
])
def test_validate_names_the_bad_option_and_its_value(option, value):
    with pytest.raises(InvalidParameterError, match=rf"'{option}' parameter of extract_topics.*"
                                                    rf"Got {value!r}"):
        TopicConfig(**{option: value}).validate()


def test_validate_accepts_the_boundaries_and_refuses_device_with_client():
    cfg = TopicConfig(n_topics=1, n_jobs=64, cardinality_tolerance=0, max_time=1e-9,
                      max_working_set=1, chunk_nnz=1)
    assert cfg.validate() is cfg
    with pytest.raises(InvalidParameterError, match="'device' or 'client', not both"):
        TopicConfig(device="cpu", client="tcp://scheduler:8786").validate()


def test_scalings_and_what_the_passes_read():
    assert SCALINGS == PASS_SCALINGS + ("unit",)
    assert {s: TopicConfig(scaling=s).pass_scaling for s in SCALINGS} == \
        {"count": "count", "binary": "binary", "log": "log", "tfidf": "tfidf", "unit": "count"}


def test_parameters_are_the_signature_of_extract_topics():
    fields = {f.name for f in dataclasses.fields(TopicConfig)} - {"extra"}
    assert set(TOPIC_CONSTRAINTS) <= fields
    assert set(PARAMETERS) == fields | {"docword", "vocab", "config", "time_budget"}
    sig = inspect.signature(extract_topics).parameters
    # every option extract_topics names is a field; the others come as **options
    assert {n for n, p in sig.items() if p.kind is not p.VAR_KEYWORD} <= set(PARAMETERS)
