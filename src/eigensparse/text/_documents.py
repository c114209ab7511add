"""Raw documents in the topic pipeline: opening them, the raw-text pruning default,
and each topic's most representative documents.

A source of raw documents (a CSV/TSV, JSON Lines or Parquet file with ``text_column``,
a directory, a text file with one document per line, strings in memory) becomes a
:class:`eigensparse.io.documents.TextCorpus` whose counts live in the corpus cache;
the pipeline then runs as on any corpus. On raw text, ``stop_words="auto"`` (the
default) means scikit-learn's English list: measured on 6,311 real docstrings, the
document-frequency limits alone left function words in the topics (see
``docs/user_guide/topics_documents.rst``); on a count matrix it means none.
"""
from __future__ import annotations

import json

import numpy as np

__all__ = ["is_text_source", "open_text_corpus", "resolve_stop_words",
           "representative_documents"]


def is_text_source(docword, vocab, cfg) -> bool:
    from ..io.documents import is_text_source as _is

    return _is(docword, vocab, cfg.text_column)


def open_text_corpus(docword, cfg):
    from ..io.documents import TextCorpus

    return TextCorpus(docword, text_column=cfg.text_column, id_column=cfg.id_column,
                      lowercase=cfg.lowercase, token_pattern=cfg.token_pattern,
                      ngram_range=cfg.ngram_range, strip_accents=cfg.strip_accents,
                      encoding=cfg.encoding, decode_error=cfg.decode_error, cache=cfg.cache,
                      cache_dir=cfg.cache_dir, verify=cfg.verify,
                      progress=cfg.progress is True, name=cfg.name)


def resolve_stop_words(stop_words, corpus):
    """``"auto"``: English stop words for raw documents, none for a count matrix;
    ``"none"``: none."""
    from ..io.documents import TextCorpus

    if isinstance(stop_words, str) and stop_words == "auto":
        return "english" if isinstance(corpus, TextCorpus) else None
    if isinstance(stop_words, str) and stop_words == "none":
        return None
    return stop_words


def representative_documents(res, corpus, n: int, chunk_nnz: int, memo=None) -> list:
    """For each topic, its ``n`` documents of largest score (the topic's loadings times
    the document's scaled word values, as the passes scale them): a list per topic of
    ``{"row", "id", "score", "text"}`` (``text``: the first characters). Only the
    documents holding a topic word are scored (the others score 0). ``memo``
    (:meth:`._passes.CorpusPasses.memo`) keeps them with the corpus cache, keyed by the
    loadings: a second run with the same topics reads no documents."""
    comp = np.asarray(res.components, dtype=np.float64)  # topics × words

    def compute():
        rows, scores = _best_documents(res, comp, corpus, n, chunk_nnz)
        out = []
        for j in range(comp.shape[0]):
            pairs = [(int(r), float(s)) for r, s in zip(rows[:, j], scores[:, j]) if s > 0]
            rows_j = [r for r, _ in pairs]
            names = corpus.document_names(rows_j)
            texts = corpus.document_snippets(rows_j)
            out.append([{"row": r, "id": i, "score": s, "text": t}
                        for (r, s), i, t in zip(pairs, names, texts)])
        return {"documents": np.array(json.dumps(out))}

    if memo is None:
        return json.loads(str(compute()["documents"]))
    got, _ = memo("documents", [comp, int(n), res.scaling, corpus.n_docs], compute)
    return json.loads(str(got["documents"]))


def _best_documents(res, comp, corpus, n: int, chunk_nnz: int):
    """``(rows, scores)``, each ``n`` × topics: the best documents of each topic."""
    from ._kernels import topic_scores
    from ._passes import _MODES, _idf

    k = comp.shape[0]
    used = np.flatnonzero(np.any(comp != 0, axis=0))
    col_map = np.full(corpus.n_words, -1, dtype=np.int64)
    col_map[used] = np.arange(used.size)
    V = np.ascontiguousarray(comp[:, used].T)  # topic words × topics
    scaling = "count" if res.scaling == "unit" else res.scaling
    idf = _idf(np.asarray(res.word_df, dtype=np.float64), corpus.n_docs) \
        if scaling == "tfidf" else np.ones(1)
    best_s = np.full((0, k), -np.inf)
    best_r = np.zeros((0, k), dtype=np.int64)
    for ch in corpus.iter_chunks(chunk_nnz=chunk_nnz):
        rows = np.empty(ch.n_docs, dtype=np.int64)
        S = np.empty((ch.n_docs, k))
        m = topic_scores(ch.indptr, ch.indices, ch.data, _MODES[scaling], idf, col_map, V,
                         rows, S)
        if m == 0:
            continue
        S, rows = S[:m], rows[:m] + ch.doc_start
        top = min(n, m)
        part = np.argpartition(-S, top - 1, axis=0)[:top] if top < m else \
            np.tile(np.arange(m)[:, None], (1, k))
        best_s = np.vstack([best_s, np.take_along_axis(S, part, axis=0)])
        best_r = np.vstack([best_r, rows[part]])
        keep = np.argsort(-best_s, axis=0, kind="stable")[:n]
        best_s = np.take_along_axis(best_s, keep, axis=0)
        best_r = np.take_along_axis(best_r, keep, axis=0)
    return best_r, best_s
