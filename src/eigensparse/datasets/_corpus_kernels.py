"""The compiled pieces of :func:`eigensparse.datasets.make_synthetic_corpus`: one chunk of
documents drawn from the corpus law (background tokens by the alias method, planted
topic occurrences, rare groups), counted per document and formatted as UCI lines."""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numba
import numpy as np

__all__ = ["CorpusLaw", "chunk_entries", "gzip_member"]


@dataclass
class CorpusLaw:
    """What every chunk of a synthetic corpus is drawn from (word ids, not ranks)."""

    prob: np.ndarray  # alias table: keep probability
    alias: np.ndarray  # alias table: the other word
    prev: np.ndarray  # π_k, probability that a document is about topic k
    rate: np.ndarray  # μ_k
    word_rate: list  # per topic, each word's rate in a topic document of mean length
    topics: list  # per topic, its word ids (int64)
    median_len: float
    mean_len: float
    length_sigma: float
    n_groups: int = 0
    group_words: np.ndarray | None = None  # (n_groups, group size) word ids
    rare: bool = False


def _alias_table(p: np.ndarray):
    """Walker's alias method: (prob, alias) for sampling index i with probability p[i]."""
    n = p.size
    q = p * n
    prob = np.ones(n)
    alias = np.arange(n)
    small = list(np.flatnonzero(q < 1.0))
    large = list(np.flatnonzero(q >= 1.0))
    q = q.copy()
    # O(n) Python loop over the vocabulary (not over tokens)
    while small and large:
        s, l_ = small.pop(), large.pop()
        prob[s] = q[s]
        alias[s] = l_
        q[l_] = q[l_] + q[s] - 1.0
        (small if q[l_] < 1.0 else large).append(l_)
    return prob, alias


@numba.njit(cache=True, nogil=True)
def _count_docs(tok_ptr, tokens, ext_ptr, ext_word, ext_cnt, n_words, out_word, out_cnt, out_ptr):
    """Per document: merge background tokens and extra (word, count) pairs into sorted
    unique words with counts. Returns the number of entries written."""
    scratch = np.zeros(n_words, dtype=np.int64)
    touched = np.empty(n_words, dtype=np.int64)
    k = 0
    nd = tok_ptr.size - 1
    out_ptr[0] = 0
    for d in range(nd):
        nt = 0
        for t in range(tok_ptr[d], tok_ptr[d + 1]):
            w = tokens[t]
            if scratch[w] == 0:
                touched[nt] = w
                nt += 1
            scratch[w] += 1
        for t in range(ext_ptr[d], ext_ptr[d + 1]):
            w = ext_word[t]
            if scratch[w] == 0:
                touched[nt] = w
                nt += 1
            scratch[w] += ext_cnt[t]
        tw = np.sort(touched[:nt])
        for j in range(nt):
            w = tw[j]
            out_word[k] = w
            out_cnt[k] = scratch[w]
            scratch[w] = 0
            k += 1
        out_ptr[d + 1] = k
    return k


@numba.njit(cache=True, nogil=True)
def _write_int(buf, pos, v):
    if v == 0:
        buf[pos] = 48
        return pos + 1
    n = 0
    x = v
    while x > 0:
        n += 1
        x //= 10
    end = pos + n
    x = v
    for i in range(n):
        buf[end - 1 - i] = 48 + x % 10
        x //= 10
    return end


@numba.njit(cache=True, nogil=True)
def _format_entries(doc_offset, ptr, word, cnt, buf):
    """ASCII ``doc word count\\n`` lines (1-based ids) into ``buf``; returns bytes used."""
    pos = 0
    for d in range(ptr.size - 1):
        for t in range(ptr[d], ptr[d + 1]):
            pos = _write_int(buf, pos, doc_offset + d + 1)
            buf[pos] = 32
            pos = _write_int(buf, pos + 1, word[t] + 1)
            buf[pos] = 32
            pos = _write_int(buf, pos + 1, cnt[t])
            buf[pos] = 10
            pos += 1
    return pos


def gzip_member(data, level: int) -> bytes:
    """``data`` as one gzip member (members concatenate into a valid ``.gz``)."""
    c = zlib.compressobj(level, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def _rare_groups(g, nd, pool, ed, ew, ec):
    """Append (doc, word, count) triples for the word groups ``pool`` (one row of words
    per group): each group in the same 2–3 documents of the chunk, one count per
    document shared by its words."""
    if nd < 2:
        return
    for words in pool:
        docs = g.choice(nd, size=int(g.integers(2, 4)), replace=False)
        cnt = 1 + g.poisson(0.5, size=docs.size)
        ed.append(np.repeat(docs, words.size))
        ew.append(np.tile(words, docs.size))
        ec.append(np.repeat(cnt, words.size))


def chunk_entries(g, law: CorpusLaw, start: int, nd: int, n_docs: int, n_words: int):
    """Documents ``start .. start + nd`` (random generator ``g``) as UCI lines: (bytes,
    number of entries)."""
    L = np.maximum(np.rint(law.median_len * np.exp(law.length_sigma * g.standard_normal(nd))), 5)
    L = L.astype(np.int64)
    tok_ptr = np.zeros(nd + 1, dtype=np.int64)
    np.cumsum(L, out=tok_ptr[1:])
    T = int(tok_ptr[-1])
    j = (g.random(T) * n_words).astype(np.int64)
    np.minimum(j, n_words - 1, out=j)
    tokens = np.where(g.random(T) < law.prob[j], j, law.alias[j])
    # topic occurrences
    ed, ew, ec = [], [], []
    for k, tw in enumerate(law.topics):
        members = np.flatnonzero(g.random(nd) < law.prev[k])
        if members.size == 0:
            continue
        lam = np.outer(L[members] / law.mean_len, law.word_rate[k]).ravel()
        c = g.poisson(lam)
        dd = np.repeat(members, tw.size)
        ww = np.tile(tw, members.size)
        keep = c > 0
        ed.append(dd[keep]); ew.append(ww[keep]); ec.append(c[keep])
    if law.rare:
        g_lo, g_hi = (int(round(law.n_groups * x / n_docs)) for x in (start, start + nd))
        _rare_groups(g, nd, law.group_words[g_lo:g_hi], ed, ew, ec)
    if ed:
        ed, ew, ec = np.concatenate(ed), np.concatenate(ew), np.concatenate(ec)
        o = np.argsort(ed, kind="stable")
        ed, ew, ec = ed[o], ew[o], ec[o]
    else:
        ed = ew = ec = np.zeros(0, dtype=np.int64)
    ext_ptr = np.zeros(nd + 1, dtype=np.int64)
    np.cumsum(np.bincount(ed, minlength=nd), out=ext_ptr[1:])
    cap = T + ec.size
    out_word = np.empty(cap, dtype=np.int64)
    out_cnt = np.empty(cap, dtype=np.int64)
    out_ptr = np.empty(nd + 1, dtype=np.int64)
    k_ = _count_docs(tok_ptr, tokens, ext_ptr, ew, ec, n_words, out_word, out_cnt, out_ptr)
    maxc = int(out_cnt[:k_].max()) if k_ else 0
    buf = np.empty(k_ * (len(str(n_docs)) + len(str(n_words)) + len(str(maxc)) + 3),
                   dtype=np.uint8)
    used = _format_entries(start, out_ptr, out_word[:k_], out_cnt[:k_], buf)
    return buf[:used].tobytes(), k_
