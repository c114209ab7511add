"""Documents to token counts with scikit-learn's tokens, at the speed of compiled code.

:class:`TokenCounter` turns batches of documents (pyarrow string arrays) into CSR rows
of word counts over a vocabulary it grows as it goes (word ids in order of first
appearance; :meth:`TokenCounter.vocabulary` gives the words in scikit-learn's sorted
order and the id map). With the default options (``token_pattern=r"(?u)\\b\\w\\w+\\b"``,
lowercase, unigrams, no accent stripping) the compiled kernel
(:mod:`eigensparse.io._token_kernels`) reads the UTF-8 bytes directly; it gives exactly
``CountVectorizer()``'s tokens because its tables come from Python's own ``str.lower``
and ``re`` ``\\w`` on every code point, and the rare documents it cannot decide alone
(``İ``, ``Σ``) go to the regular expression. Any other option (a custom pattern,
n-grams, accent stripping) uses scikit-learn's analyzer itself for every document
(exact, at scikit-learn's speed) and the same compiled counting.
"""
from __future__ import annotations

import functools
import re

import numpy as np

from . import _token_kernels as K

__all__ = ["DEFAULT_TOKEN_PATTERN", "TokenCounter", "ParallelCounter", "merge_vocabularies",
           "unicode_tables", "OWNER_SHIFT"]

#: scikit-learn's ``CountVectorizer`` default
DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
#: code points with table entries (planes 0 and 1; a document with a code point beyond
#: them goes to the regular expression)
_N_CODE_POINTS = 0x20000


@functools.lru_cache(maxsize=None)
def unicode_tables():
    """Per code point: ``isw_low`` (its lowercase is a word character), ``low`` (its
    lowercase), ``special`` (lowercasing needs Python: several code points, or final
    sigma), ``isw`` (the code point itself is a word character); from Python's
    ``str.lower`` and ``re``'s ``\\w``."""
    cps = np.arange(_N_CODE_POINTS, dtype=np.uint32)
    cps[0xD800:0xE000] = 0x20  # surrogates are not text
    text = cps.tobytes().decode("utf-32-le")
    lowered = text.lower()
    special = np.zeros(_N_CODE_POINTS, dtype=np.uint8)
    special[[0x3A3]] = 1  # final sigma: σ or ς by context
    if len(lowered) != len(text):  # some code points lower to several: found by blocks
        multi = []
        for b0 in range(0, _N_CODE_POINTS, 4096):
            block = text[b0:b0 + 4096]
            if len(block.lower()) != len(block):
                multi += [b0 + i for i, ch in enumerate(block) if len(ch.lower()) != 1]
        special[multi] = 1
        parts, prev = [], 0
        for i in multi:  # these keep their own code point in the table
            parts += [text[prev:i].lower(), text[i]]
            prev = i + 1
        lowered = "".join(parts) + text[prev:].lower()
    low = np.frombuffer(lowered.encode("utf-32-le"), dtype=np.uint32).astype(np.int32)

    def word_chars(s):
        out = np.zeros(_N_CODE_POINTS, dtype=np.uint8)
        for m in re.finditer(r"(?u)\w+", s):
            out[m.start():m.end()] = 1
        return out

    isw_low, isw = word_chars(lowered), word_chars(text)
    ascii_low = np.where(isw_low[:128] == 1, low[:128], 0).astype(np.uint8)
    ascii_raw = np.where(isw[:128] == 1, np.arange(128), 0).astype(np.uint8)
    return isw_low, low, special, isw, ascii_low, ascii_raw


def _string_buffers(arr):
    """(data bytes as uint8, int64 offsets of the n strings) of a pyarrow string array."""
    import pyarrow as pa

    n = len(arr)
    bufs = arr.buffers()
    large = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    off = np.frombuffer(bufs[1], dtype=np.int64 if large else np.int32)[arr.offset:arr.offset + n + 1]
    off = off.astype(np.int64)
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None and bufs[2].size else \
        np.zeros(1, dtype=np.uint8)
    return data, off


class TokenCounter:
    """Counts the tokens of batches of documents over a growing vocabulary.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from eigensparse.io._tokenize import TokenCounter
    >>> tc = TokenCounter()
    >>> indptr, indices, counts, blank = tc.count(pa.array(["Sparse PCA, sparse!", "  ", "pca x"]))
    >>> indptr.tolist(), indices.tolist(), counts.tolist(), blank.tolist()
    ([0, 2, 2, 3], [0, 1, 1], [2, 1, 1], [False, True, False])
    >>> words, rank, df = tc.vocabulary()
    >>> words, rank.tolist(), df.tolist()
    (['pca', 'sparse'], [1, 0], [2, 1])
    """

    def __init__(self, *, lowercase: bool = True, token_pattern: str = DEFAULT_TOKEN_PATTERN,
                 ngram_range=(1, 1), strip_accents=None):
        self.lowercase = bool(lowercase)
        self.fast = (token_pattern == DEFAULT_TOKEN_PATTERN and tuple(ngram_range) == (1, 1)
                     and strip_accents is None)
        self._options = dict(lowercase=self.lowercase, token_pattern=token_pattern,
                             ngram_range=tuple(ngram_range), strip_accents=strip_accents)
        if self.fast:
            isw_low, low, special, isw, ascii_low, ascii_raw = unicode_tables()
            self._tables = ((ascii_low, isw_low, low, special) if self.lowercase else
                            (ascii_raw, isw, low, special))
        cap = 1 << 14
        self.table = np.full(K.SLOT * 2 * cap, -1, dtype=np.int64)
        self.arena = np.zeros(1 << 20, dtype=np.uint8)
        self.rec = np.zeros(2 * cap, dtype=np.int64)
        self.state = np.zeros(2, dtype=np.int64)
        self.serial = 0
        self._out = None

    @functools.cached_property
    def _analyzer(self):
        """scikit-learn's analyzer (imported when a document needs it)."""
        from sklearn.feature_extraction.text import CountVectorizer

        return CountVectorizer(**self._options).build_analyzer()

    # -- growth ------------------------------------------------------------------
    def _reserve(self, n_new_words: int, n_bytes: int) -> None:
        need = int(self.state[0]) + int(n_new_words)
        cap = self.rec.size // 2
        if need > cap:
            rec = np.zeros(2 * max(2 * cap, need), dtype=np.int64)
            rec[:self.rec.size] = self.rec
            self.rec = rec
        need_bytes = int(self.state[1]) + int(n_bytes) + 24
        if need_bytes > self.arena.size:
            a = np.zeros(max(2 * self.arena.size, need_bytes), dtype=np.uint8)
            a[:self.arena.size] = self.arena
            self.arena = a
        slots = self.table.size // K.SLOT
        if 2 * need > slots:  # at most half of the slots used
            while 2 * need > slots:
                slots *= 2
            old, self.table = self.table, np.full(K.SLOT * slots, -1, dtype=np.int64)
            K.rehash(self.table, old, self.rec, int(self.state[0]))

    # -- counting ------------------------------------------------------------------
    def count(self, texts):
        """CSR rows of the documents ``texts`` (a pyarrow string array without nulls).

        Returns ``indptr`` (int64), ``indices`` (int32 word ids in order of first
        appearance in the corpus), ``counts`` (uint32) and ``blank`` (documents of only
        white space; their rows are empty)."""
        n = len(texts)
        if not self.fast:
            return self._count_python(texts.to_pylist())
        data, off = _string_buffers(texts)
        total = int(off[-1] - off[0])
        out_ptr, out_idx, out_cnt, flags = self._buffers(n, total // 3 + n + 16)
        out_ptr[0] = 0
        ascii_low, isw, low, special = self._tables
        i = 0
        while i < n:
            i = K.tokenize_batch(data, off, i, n, self.serial, ascii_low, isw, low, special,
                                 self.lowercase, self.table, self.arena, self.rec, self.state,
                                 out_ptr, out_idx, out_cnt, flags)
            if i < n:  # room for document i
                L = int(off[i + 1] - off[i])
                self._reserve(L // 3 + 1, L + L // 2 + 8)
                need = int(out_ptr[i]) + L // 3 + 1
                if need > out_idx.size:
                    out_idx, out_cnt = self._grow_output(need, int(out_ptr[i]))
        self.serial += n
        nnz = int(out_ptr[n])
        out_ptr, out_idx, out_cnt = out_ptr[:n + 1].copy(), out_idx[:nnz].copy(), \
            out_cnt[:nnz].copy()
        flags = flags[:n]
        hard = np.flatnonzero(flags == 1)
        if hard.size:
            out_ptr, out_idx, out_cnt = self._splice(out_ptr, out_idx, out_cnt, hard,
                                                     texts.take(hard).to_pylist())
        return out_ptr, out_idx, out_cnt, flags == 2

    def _buffers(self, n_docs: int, n_entries: int):
        """The kernel's output arrays, kept from batch to batch (no fresh pages each time)."""
        buf = self._out
        if buf is None or buf[0].size < n_docs + 1 or buf[1].size < n_entries:
            docs = max(n_docs + 1, 0 if buf is None else buf[0].size)
            ents = max(n_entries, 0 if buf is None else buf[1].size)
            buf = self._out = (np.empty(docs, np.int64), np.empty(ents, np.int32),
                               np.empty(ents, np.uint32), np.empty(docs, np.uint8))
        return buf

    def _grow_output(self, need: int, used: int):
        ptr, idx, cnt, flags = self._out
        size = max(need, 2 * idx.size)
        idx2, cnt2 = np.empty(size, np.int32), np.empty(size, np.uint32)
        idx2[:used], cnt2[:used] = idx[:used], cnt[:used]
        self._out = (ptr, idx2, cnt2, flags)
        return idx2, cnt2

    def _count_lists(self, token_lists):
        """CSR rows of documents given as lists of tokens."""
        import pyarrow as pa

        docptr = np.zeros(len(token_lists) + 1, dtype=np.int64)
        np.cumsum([len(t) for t in token_lists], out=docptr[1:])
        flat = pa.array([t for toks in token_lists for t in toks], type=pa.large_string())
        tokdata, tokptr = _string_buffers(flat)
        n_tok = int(docptr[-1])
        self._reserve(n_tok, int(tokptr[-1] - tokptr[0]) + 8)
        out_ptr = np.zeros(len(token_lists) + 1, dtype=np.int64)
        out_idx = np.zeros(n_tok + 1, dtype=np.int32)
        out_cnt = np.zeros(n_tok + 1, dtype=np.uint32)
        nnz = K.count_token_lists(tokdata, tokptr - tokptr[0], docptr, self.serial, self.table,
                                  self.arena, self.rec, self.state, out_ptr, out_idx, out_cnt)
        self.serial += len(token_lists)
        return out_ptr, out_idx[:nnz], out_cnt[:nnz]

    def _count_python(self, docs):
        blank = np.array([not d.strip() for d in docs], dtype=bool)
        ptr, idx, cnt = self._count_lists([self._analyzer(d) for d in docs])
        return ptr, idx, cnt, blank

    def _splice(self, ptr, idx, cnt, rows, docs):
        """Replace the (empty) rows ``rows`` by the regular expression's counts of ``docs``."""
        p2, i2, c2 = self._count_lists([self._analyzer(d) for d in docs])
        lengths = np.diff(ptr)
        lengths[rows] = np.diff(p2)
        new_ptr = np.zeros(ptr.size, dtype=np.int64)
        np.cumsum(lengths, out=new_ptr[1:])
        new_idx = np.empty(int(new_ptr[-1]), dtype=np.int32)
        new_cnt = np.empty(new_idx.size, dtype=np.uint32)
        src = np.ones(ptr.size - 1, dtype=bool)
        src[rows] = False
        take = np.repeat(src, lengths)  # entries from the kernel's rows
        new_idx[take], new_cnt[take] = idx, cnt
        new_idx[~take], new_cnt[~take] = i2, c2
        return new_ptr, new_idx, new_cnt

    # -- the vocabulary --------------------------------------------------------------
    @property
    def n_words(self) -> int:
        return int(self.state[0])

    def id_words(self):
        """``(words, df)``: a pyarrow binary array of the words in id order and their
        document frequencies."""
        import pyarrow as pa

        n = self.n_words
        offsets = np.append(self.rec[0:2 * n:2] & ((1 << 40) - 1), self.state[1]).astype(np.int64)
        arr = pa.Array.from_buffers(pa.large_binary(), n, [None, pa.py_buffer(offsets),
                                                           pa.py_buffer(self.arena[:int(self.state[1])])])
        return arr, self.table[self.rec[1:2 * n:2] + 4].copy()

    def vocabulary(self):
        """``(words, rank, df)``: the words that occur, sorted as scikit-learn sorts them
        (by code point), ``rank[id]`` the sorted position of word ``id`` (-1 for none),
        and their document frequencies in sorted order."""
        words, ranks, df = merge_vocabularies([self])
        return words, ranks[0], df


def merge_vocabularies(counters):
    """One sorted vocabulary of several counters (each counted its own documents):
    ``(words, ranks, df)`` with ``ranks[t][id]`` the sorted position of counter t's word
    ``id`` (-1 for a word whose documents were all taken back) and ``df`` summed."""
    import pyarrow as pa
    import pyarrow.compute as pc

    parts = [c.id_words() for c in counters]
    live = [pa.array(df > 0) for _, df in parts]
    every = pa.concat_arrays([a.filter(m) for (a, _), m in zip(parts, live)])
    uniq = pc.unique(every) if len(parts) > 1 else every
    words = uniq.take(pc.array_sort_indices(uniq))
    ranks, df = [], np.zeros(len(words), dtype=np.int64)
    for (arr, d), m in zip(parts, live):
        pos = pc.index_in(arr, value_set=words)
        r = np.asarray(pos.fill_null(-1), dtype=np.int64).astype(np.int32)
        r[~np.asarray(m)] = -1
        ranks.append(r)
        ok = r >= 0
        np.add.at(df, r[ok], d[ok])
    return words.cast(pa.large_string()).to_pylist(), ranks, df


class ParallelCounter:
    """Several :class:`TokenCounter` on threads: each batch is cut into contiguous parts,
    part t counted by counter t on its own thread (the kernels release the GIL; a
    counter's parts are counted in order, one at a time, so that batches may be submitted
    before the previous ones are done); word ids are then those of counter t, tagged
    with t in their top bits (:data:`OWNER_SHIFT`).

    Examples
    --------
    >>> import pyarrow as pa
    >>> from eigensparse.io._tokenize import ParallelCounter
    >>> pc = ParallelCounter(2)
    >>> done = [pc.submit(pa.array(["sparse pca"] * 70 + ["topics"] * 70)) for _ in range(2)]
    >>> [[int(ptr[-1]) for ptr, _, _, _ in d()] for d in done]
    [[140, 70], [140, 70]]
    >>> pc.vocabulary()[0], pc.vocabulary()[2].tolist()
    (['pca', 'sparse', 'topics'], [140, 140, 140])
    >>> pc.close()
    """

    def __init__(self, n_threads: int = 2, **options):
        from concurrent.futures import ThreadPoolExecutor

        self.counters = [TokenCounter(**options) for _ in range(max(1, n_threads))]
        self.pools = [ThreadPoolExecutor(1, thread_name_prefix=f"tokenize-{t}")
                      for t in range(len(self.counters))] if len(self.counters) > 1 else []

    def submit(self, texts):
        """Start counting ``texts``; returns a function giving, once done, a list of
        ``(ptr, idx, cnt, blank)``: the rows of consecutive parts of ``texts``, ids
        tagged with their counter."""
        n = len(texts)
        k = len(self.counters) if n >= 64 * len(self.counters) else 1
        cuts = [n * t // k for t in range(k + 1)]
        if not self.pools:
            out = [self.counters[0].count(texts)]
            return lambda: out
        futs = [self.pools[t].submit(_count_tagged, self.counters[t], t,
                                     texts.slice(cuts[t], cuts[t + 1] - cuts[t]))
                for t in range(k)]
        return lambda: [f.result() for f in futs]

    def vocabulary(self):
        return merge_vocabularies(self.counters)

    def close(self):
        for pool in self.pools:
            pool.shutdown(wait=True)


#: bits of a tagged word id below its counter's number
OWNER_SHIFT = 27


def _count_tagged(counter, t, texts):
    ptr, idx, cnt, blank = counter.count(texts)
    if t:
        idx |= np.int32(t << OWNER_SHIFT)
    return ptr, idx, cnt, blank
