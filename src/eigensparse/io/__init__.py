"""Readers for real data formats.

- UCI bag of words: :func:`read_uci_bow` (in memory), :func:`iter_uci_chunks`
  (streamed, validated, bounded memory), :func:`read_uci_header`,
  :func:`read_vocabulary`;
- a binary cache of a docword file (:mod:`eigensparse.io.cache`), built by
  :func:`build_cache`;
- Matrix Market, scipy ``.npz`` and raw text documents (:mod:`eigensparse.io.formats`);
- :func:`open_corpus`: any of these as a :class:`Corpus` of whole-document chunks.
"""
from .cache import BowCache, BowCacheWriter, CSRChunk, cache_dir_for, default_cache_dir
from .corpus import Corpus, MatrixCorpus, UCICorpus, build_cache, open_corpus
from .formats import read_matrix_market, read_npz, read_text_documents, vectorize_documents
from .uci import (DEFAULT_CHUNK_NNZ, UCIChunk, UCIHeader, iter_uci_chunks, read_uci_bow,
                  read_uci_header, read_vocabulary)

__all__ = ["read_uci_bow", "read_vocabulary", "read_uci_header", "iter_uci_chunks", "UCIHeader",
           "UCIChunk", "DEFAULT_CHUNK_NNZ", "BowCache", "BowCacheWriter", "CSRChunk",
           "cache_dir_for", "default_cache_dir", "Corpus", "UCICorpus", "MatrixCorpus",
           "open_corpus", "build_cache", "read_matrix_market", "read_npz", "read_text_documents",
           "vectorize_documents"]
