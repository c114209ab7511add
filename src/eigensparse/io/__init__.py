"""Readers for real data formats."""
from .uci import read_uci_bow, read_vocabulary

__all__ = ["read_uci_bow", "read_vocabulary"]
