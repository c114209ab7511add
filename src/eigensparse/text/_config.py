"""The options of one topic extraction, in one object (:class:`TopicConfig`).

:func:`eigensparse.text.extract_topics` takes them as keyword arguments (the README's
``extract_topics(docword, vocab, n_topics=5, cardinality=5)``) or as ``config=``; the
command line builds one. Every option is checked once, here
(:meth:`TopicConfig.validate`); the engine (:mod:`eigensparse.text._pipeline`) trusts
a validated config.
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from numbers import Real

from .._dispatch import COMPONENT_CONSTRAINTS
from .._validation import (Interval, IntInterval, InvalidParameterError, StrOptions,
                           check_params, closest, renamed)
from ..io.uci import DEFAULT_CHUNK_NNZ
from ._vocabulary import PRUNING_CONSTRAINTS

__all__ = ["TopicConfig", "TOPIC_CONSTRAINTS", "PARAMETERS", "SCALINGS", "PASS_SCALINGS", "DEFAULT_TOPIC_CARDINALITY",
           "DEFAULT_TOPIC_DEFLATION", "DEFAULT_TOPIC_SCALING", "DEFAULT_MIN_DF", "DEFAULT_MAX_DF",
           "DEFAULT_MAX_TIME", "DEFAULT_WORKING_SET"]

#: value transforms of the passes: raw counts, 0/1 occurrence, log(1 + count), tf-idf
#: (smooth idf, rows normalised to unit ℓ2 norm, as scikit-learn's TfidfTransformer)
PASS_SCALINGS = ("count", "binary", "log", "tfidf")
#: every scaling: those of the passes, and ``"unit"`` (counts, each word divided by its
#: standard deviation: correlation PCA), a scaling of the pass-2 covariance
SCALINGS = PASS_SCALINGS + ("unit",)
#: words per topic when none is given
DEFAULT_TOPIC_CARDINALITY = 5
#: distinct topics: no word in two topics
DEFAULT_TOPIC_DEFLATION = "disjoint"
#: the value scaling (centered: ``center=True``): tf-idf finds planted mid-frequency
#: topics (precision 0.96 on a 300k × 102k Zipf corpus) where counts find none
DEFAULT_TOPIC_SCALING = "tfidf"
#: vocabulary pruning (scikit-learn's meaning): words in fewer than 5 documents or in
#: more than half of them cannot enter a topic
DEFAULT_MIN_DF = 5
DEFAULT_MAX_DF = 0.5
#: seconds per topic (every solve of a topic, the working set's growth included)
DEFAULT_MAX_TIME = 2.0
#: initial working-set size: max(DEFAULT_WORKING_SET, 10·k·s) words
DEFAULT_WORKING_SET = 1000

#: scikit-learn constraints of the options of :func:`eigensparse.text.extract_topics`
#: (:meth:`TopicConfig.validate`): those it shares with :func:`eigensparse.sparse_pca`
#: are :data:`eigensparse._dispatch.COMPONENT_CONSTRAINTS`'s, the vocabulary pruning's
#: (``min_df``, ``max_df``, ``max_features``) :data:`eigensparse.text._vocabulary.PRUNING_CONSTRAINTS`
#: (``stop_words`` by :func:`~eigensparse.text._vocabulary.stop_word_set`), ``method_options``
#: against the method's :class:`~eigensparse.registry.MethodSpec`
TOPIC_CONSTRAINTS = {
    **{k: COMPONENT_CONSTRAINTS[k] for k in (
        "cardinality", "cardinality_rule", "cardinality_fraction", "method", "deflation",
        "penalty", "center", "random_state", "refine", "stability")},
    **PRUNING_CONSTRAINTS,
    "n_topics": [IntInterval(1, None, closed="left")],
    "cardinality_tolerance": [IntInterval(0, None, closed="left")],
    "scaling": [StrOptions(set(SCALINGS))],
    "max_time": [Interval(Real, 0, None, closed="neither")],
    "working_set": [IntInterval(1, None, closed="left"), None],
    "max_working_set": [IntInterval(1, None, closed="left")],
    "working_set_rule": [StrOptions({"partner", "variance"})],
    "cache": ["boolean"],
    "verify": [StrOptions({"hash", "stat"})],
    "chunk_nnz": [IntInterval(1, None, closed="left")],
    "n_jobs": [IntInterval(1, 64, closed="both")],
    "progress": ["boolean", None],
    "device": [str, None],
    "name": [str, None],
    "text_column": [str, None],
    "id_column": [str, None],
    "lowercase": ["boolean"],
    "token_pattern": [str],
    "strip_accents": [StrOptions({"ascii", "unicode"}), None],
    "encoding": [str],
    "decode_error": [StrOptions({"strict", "replace", "ignore"})],
    "show_docs": [IntInterval(0, None, closed="left")],
}


@dataclass(frozen=True)
class TopicConfig:
    """Every option of :func:`eigensparse.text.extract_topics` (see its parameters).

    Examples
    --------
    >>> from eigensparse.text import TopicConfig
    >>> cfg = TopicConfig(n_topics=3, cardinality=5, max_time=10.0).validate()
    >>> cfg.n_topics, cfg.refine, cfg.pass_scaling
    (3, 'auto', 'tfidf')
    >>> TopicConfig(scaling="unit").pass_scaling  # counts, then unit variance per word
    'count'
    """

    n_topics: int = 5
    cardinality: object = None
    method: str | None = None
    deflation: str = DEFAULT_TOPIC_DEFLATION
    penalty: float | None = None
    cardinality_tolerance: int = 0
    center: bool = True
    scaling: str = DEFAULT_TOPIC_SCALING
    min_df: object = DEFAULT_MIN_DF
    max_df: object = DEFAULT_MAX_DF
    stop_words: object = "auto"
    max_features: int | None = None
    max_time: float = DEFAULT_MAX_TIME
    refine: object = "auto"
    working_set: int | None = None
    max_working_set: int = 4000
    working_set_rule: str = "partner"
    cache: bool = True
    cache_dir: object = None
    verify: str = "hash"
    chunk_nnz: int = DEFAULT_CHUNK_NNZ
    n_jobs: int = 2
    random_state: object = 0
    progress: bool | None = None
    method_options: dict | None = None
    device: str | None = None
    client: object = None
    name: str | None = None
    cardinality_rule: str = "topics"
    cardinality_fraction: float = 0.9
    stability: int | None = None
    text_column: str | None = None
    id_column: str | None = None
    lowercase: bool = True
    token_pattern: str = r"(?u)\b\w\w+\b"
    ngram_range: tuple = (1, 1)
    strip_accents: str | None = None
    encoding: str = "utf-8"
    decode_error: str = "strict"
    show_docs: int = 3

    @classmethod
    def from_options(cls, config: "TopicConfig | None" = None, **options) -> "TopicConfig":
        """``config`` (or the defaults) with ``options`` replacing its fields; an unknown
        option is a clear error. ``time_budget`` is the deprecated name of ``max_time``
        (a FutureWarning)."""
        if "time_budget" in options:
            value = renamed(options.pop("max_time", None), options.pop("time_budget"),
                            new="max_time", old="time_budget", caller="extract_topics",
                            stacklevel=4)  # the caller of extract_topics
            if value is not None:
                options["max_time"] = value
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - names)
        if unknown:
            near = closest(unknown[0], names)
            hint = f" (did you mean {near!r}?)" if near else ""
            raise InvalidParameterError(
                f"extract_topics got unknown option(s) {unknown}{hint}; valid options: "
                f"{sorted(names)}.")
        base = cls() if config is None else config
        if not isinstance(base, cls):
            raise InvalidParameterError(
                f"parameter 'config' must be a TopicConfig; got {type(config).__name__}.")
        return cls(**{**{n: getattr(base, n) for n in names}, **options})

    @property
    def pass_scaling(self) -> str:
        """The scaling the passes apply to the values (``"unit"`` reads counts)."""
        return "count" if self.scaling == "unit" else self.scaling

    def validate(self) -> "TopicConfig":
        """This config, every option checked (a clear error naming the first bad one)."""
        check_params({k: getattr(self, k) for k in TOPIC_CONSTRAINTS}, TOPIC_CONSTRAINTS,
                     "extract_topics")
        if self.device is not None and self.client is not None:
            raise InvalidParameterError("extract_topics: give 'device' or 'client', not both.")
        return self


#: the parameters of :func:`eigensparse.text.extract_topics` (a misspelt one given as a
#: method option is named)
PARAMETERS = ("docword", "vocab", "config", "time_budget",
              *(f.name for f in fields(TopicConfig)))
