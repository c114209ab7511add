"""Raw-text documents with planted topics, for tests and benchmarks of the text readers.

Each document is a sentence-like string: a log-normal number of tokens drawn from a
Zipf law over a vocabulary whose most frequent words are English function words
(``the``, ``of``, ``and`` …) followed by generated pseudo-words, with a capital letter at
its start, commas and a full stop. Document d is about planted topic k with probability
``prevalence``; it then carries Poisson(``topic_rate``) extra occurrences of each of the
topic's words (pseudo-words of middle Zipf rank), so that they co-occur.
:func:`write_text_corpus` streams a CSV, JSON Lines or one-document-per-line file
(optionally ``.gz``) of any size in chunks; the documents are joined by pyarrow kernels.
"""
from __future__ import annotations

import gzip
import json
import os

import numpy as np

from .._validation import InvalidParameterError

__all__ = ["make_text_documents", "write_text_corpus", "FUNCTION_WORDS"]

#: frequent English function words at the top of the generated vocabulary
FUNCTION_WORDS = ("the of and to a in is that for it as with was on be by this are or at from "
                  "his an which but not have has had they you were their one all we can her "
                  "there been if more when will would who so no").split()
_SYLLABLES = ("ka", "lo", "mi", "ren", "to", "sa", "vu", "der", "pi", "an", "ko", "ly", "ce",
              "ra", "ne", "gor", "te", "zu", "bo", "pe", "sil", "da", "fa", "qui")


def _vocabulary(n_words: int, rng) -> list[str]:
    words, seen = list(FUNCTION_WORDS), set(FUNCTION_WORDS)
    while len(words) < n_words:
        w = "".join(rng.choice(_SYLLABLES, size=int(rng.integers(2, 5))))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


class _Model:
    def __init__(self, n_words, n_topics, topic_size, topic_ranks, random_state):
        if not 0 < topic_ranks[0] < topic_ranks[1] <= n_words or \
                n_topics * topic_size > topic_ranks[1] - topic_ranks[0]:
            raise InvalidParameterError(
                f"parameter 'topic_ranks' {topic_ranks} must hold {n_topics} x {topic_size} "
                f"words within [1, n_words={n_words}].")
        self.rng = np.random.default_rng(random_state)
        self.words = _vocabulary(n_words, self.rng)
        p = 1.0 / (np.arange(n_words) + 2.7) ** 1.05
        self.cdf = np.cumsum(p / p.sum())
        ids = self.rng.choice(np.arange(*topic_ranks), size=n_topics * topic_size, replace=False)
        self.topics = ids.reshape(n_topics, topic_size)

    def chunk(self, n, doc_length, prevalence, topic_rate):
        """(token lists as a pyarrow ListArray of word ids, per-document topic flags)."""
        rng = self.rng
        lengths = np.maximum(2, rng.lognormal(np.log(doc_length), 0.5, n).astype(np.int64))
        about = rng.random((n, self.topics.shape[0])) < prevalence
        extra = rng.poisson(topic_rate, (n, self.topics.shape[0], self.topics.shape[1]))
        extra *= about[:, :, None]
        n_extra = extra.reshape(n, -1).sum(axis=1)
        total = lengths + n_extra
        tokens = np.searchsorted(self.cdf, rng.random(int(total.sum())))
        tokens = np.minimum(tokens, len(self.words) - 1)
        start = np.r_[0, np.cumsum(total)[:-1]]
        flat = extra.reshape(n, -1)
        topic_ids = np.tile(self.topics.ravel(), n)
        ins = np.repeat(topic_ids, flat.ravel())  # topic words, document by document
        pos = np.repeat(start + lengths, n_extra) + (np.arange(ins.size) -
                                                       np.repeat(np.cumsum(n_extra) - n_extra,
                                                                 n_extra))
        tokens[pos] = ins
        # shuffle within documents: sort by (document, random key)
        key = np.repeat(np.arange(n), total) + rng.random(tokens.size)
        tokens = tokens[np.argsort(key, kind="stable")]
        return tokens, total, about

    def texts(self, tokens, total):
        import pyarrow as pa
        import pyarrow.compute as pc

        n = total.size
        vocab = pa.array(self.words)
        caps = pa.array([w.capitalize() for w in self.words])
        is_first = np.zeros(tokens.size, dtype=bool)
        is_first[np.r_[0, np.cumsum(total)[:-1]]] = True
        ids = pa.array(tokens)
        body = pc.if_else(pa.array(is_first), caps.take(ids), vocab.take(ids))
        comma = self.rng.random(tokens.size) < 0.06
        body = pc.if_else(pa.array(comma), pc.binary_join_element_wise(body, ",", ""), body)
        offsets = pa.array(np.r_[0, np.cumsum(total)].astype(np.int32))
        docs = pc.binary_join(pa.ListArray.from_arrays(offsets, body), " ")
        return pc.binary_join_element_wise(docs, ".", "").cast(pa.large_string()) \
            if n else pa.array([], pa.large_string())


def _open_text(path):
    """A text file for writing; ``.gz`` by ISA-L's fast deflate where it is installed."""
    if not path.endswith(".gz"):
        return open(path, "w", encoding="utf-8", newline="")
    try:
        from isal import igzip

        return igzip.open(path, "wt", encoding="utf-8", newline="")
    except ImportError:  # pragma: no cover - isal is a dependency
        return gzip.open(path, "wt", compresslevel=6, encoding="utf-8", newline="")


def make_text_documents(n_docs: int = 2000, *, n_topics: int = 4, topic_size: int = 5,
                        n_words: int = 5000, doc_length: float = 40.0,
                        topic_ranks=(300, 1500), prevalence: float = 0.05,
                        topic_rate: float = 1.5, random_state=0):
    """Documents (list of str) and the planted topics (lists of words).

    Examples
    --------
    >>> from eigensparse.datasets.synthetic_text import make_text_documents
    >>> docs, topics = make_text_documents(100, n_topics=2, topic_size=3, random_state=1)
    >>> len(docs), [len(t) for t in topics], docs[0][0].isupper(), docs[0].endswith(".")
    (100, [3, 3], True, True)
    """
    m = _Model(n_words, n_topics, topic_size, topic_ranks, random_state)
    tokens, total, _ = m.chunk(int(n_docs), doc_length, prevalence, topic_rate)
    return m.texts(tokens, total).to_pylist(), [[m.words[i] for i in t] for t in m.topics]


def write_text_corpus(path, n_docs: int, *, fmt: str | None = None, chunk_docs: int = 50_000,
                      **options) -> list[list[str]]:
    """Write ``n_docs`` documents to ``path`` (``.csv``, ``.jsonl`` or ``.txt``, each
    optionally ``.gz``) in chunks; returns the planted topics. A CSV has the columns
    ``id`` and ``text``; JSON Lines the fields ``id`` and ``text``.

    Examples
    --------
    >>> import os, tempfile
    >>> from eigensparse.datasets.synthetic_text import write_text_corpus
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     topics = write_text_corpus(os.path.join(tmp, "docs.csv"), 50, n_topics=2)
    ...     header = open(os.path.join(tmp, "docs.csv"), encoding="utf-8").readline().strip()
    >>> header, len(topics), len(topics[0])
    ('id,text', 2, 5)
    """
    path = os.fspath(path)
    base = path[:-3] if path.endswith(".gz") else path
    fmt = fmt or os.path.splitext(base)[1].lstrip(".")
    if fmt not in ("csv", "jsonl", "txt"):
        raise InvalidParameterError(f"parameter 'fmt' must be csv, jsonl or txt; got {fmt!r}.")
    model = dict(n_words=5000, n_topics=4, topic_size=5, topic_ranks=(300, 1500), random_state=0)
    for k in list(model):
        if k in options:
            model[k] = options.pop(k)
    m = _Model(**model)
    doc_length = options.pop("doc_length", 40.0)
    prevalence = options.pop("prevalence", 0.05)
    topic_rate = options.pop("topic_rate", 1.5)
    if options:
        raise InvalidParameterError(f"write_text_corpus got unknown option(s) {sorted(options)}.")
    with _open_text(path) as f:
        if fmt == "csv":
            f.write("id,text\n")
        done = 0
        while done < n_docs:
            n = min(chunk_docs, n_docs - done)
            tokens, total, _ = m.chunk(n, doc_length, prevalence, topic_rate)
            docs = m.texts(tokens, total).to_pylist()
            if fmt == "csv":
                f.write("".join(f'{done + i},"{d}"\n' for i, d in enumerate(docs)))
            elif fmt == "jsonl":
                f.write("".join(json.dumps({"id": done + i, "text": d}) + "\n"
                                for i, d in enumerate(docs)))
            else:
                f.write("\n".join(docs) + "\n")
            done += n
    return [[m.words[i] for i in t] for t in m.topics]
