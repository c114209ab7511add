"""Readers for real data formats."""
from .uci import (DEFAULT_CHUNK_NNZ, UCIChunk, UCIHeader, iter_uci_chunks, read_uci_bow,
                  read_uci_header, read_vocabulary)

__all__ = ["read_uci_bow", "read_vocabulary", "read_uci_header", "iter_uci_chunks", "UCIHeader",
           "UCIChunk", "DEFAULT_CHUNK_NNZ"]
