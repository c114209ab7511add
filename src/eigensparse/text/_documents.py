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


def representative_documents(res, corpus, n: int, chunk_nnz: int) -> list:
    """For each topic, its ``n`` documents of largest score (the topic's loadings times
    the document's scaled word values, as the passes scale them): a list per topic of
    ``{"row", "id", "score", "text"}`` (``text``: the first characters)."""
    import scipy.sparse as sp

    from ._passes import _idf, _values

    k = res.components.shape[0]
    V = sp.csr_matrix(np.asarray(res.components, dtype=np.float64).T)  # words × topics
    scaling = "count" if res.scaling == "unit" else res.scaling
    idf = _idf(np.asarray(res.word_df, dtype=np.float64), corpus.n_docs) \
        if scaling == "tfidf" else None
    best_s = np.full((0, k), -np.inf)
    best_r = np.zeros((0, k), dtype=np.int64)
    for ch in corpus.iter_chunks(chunk_nnz=chunk_nnz):
        X = sp.csr_matrix((_values(ch, scaling, idf), ch.indices, ch.indptr),
                          shape=(ch.n_docs, corpus.n_words))
        S = np.asarray((X @ V).todense())
        rows = np.arange(ch.doc_start, ch.doc_start + ch.n_docs)
        top = min(n, ch.n_docs)
        part = np.argpartition(-S, top - 1, axis=0)[:top] if top < ch.n_docs else \
            np.tile(np.arange(ch.n_docs)[:, None], (1, k))
        best_s = np.vstack([best_s, np.take_along_axis(S, part, axis=0)])
        best_r = np.vstack([best_r, rows[part]])
        keep = np.argsort(-best_s, axis=0, kind="stable")[:n]
        best_s = np.take_along_axis(best_s, keep, axis=0)
        best_r = np.take_along_axis(best_r, keep, axis=0)
    out = []
    for j in range(k):
        pairs = [(int(r), float(s)) for r, s in zip(best_r[:, j], best_s[:, j]) if s > 0]
        rows = [r for r, _ in pairs]
        names = corpus.document_names(rows)
        texts = corpus.document_snippets(rows)
        out.append([{"row": r, "id": i, "score": s, "text": t}
                    for (r, s), i, t in zip(pairs, names, texts)])
    return out
