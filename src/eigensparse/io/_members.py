"""Inflating a gzip file made of many members on several threads.

A ``.gz`` may hold many gzip members one after the other (writers that compress blocks
in parallel produce such files; every gzip reader concatenates them). A member cannot
be found without inflating the one before it, but its first bytes are the gzip magic
``1f 8b 08``: every place where those bytes occur in a window of the compressed file is
a candidate start, and the candidates are inflated in parallel, each as one member
(fed up to each later candidate in turn, so that nothing after a member is copied).
The members are then walked in file order from the start: a member is taken only where
the previous one ended, so a candidate inside compressed data (the magic bytes by
chance) is never used, whatever it inflated to. Each member's trailer (CRC-32 and size)
is checked by the inflater as in the one-thread route.

Whatever the walk does not take — a member that fails to inflate, data that is not a
member (zero padding, trailing bytes), a file that ends inside a member — is handed
back, with the inflater of an unfinished member, to the one-thread route
(:meth:`eigensparse.io._source.TextSource._inflate`), which reports it as it always
does.
"""
from __future__ import annotations

import bisect
import zlib
from concurrent.futures import ThreadPoolExecutor

__all__ = ["inflate_members"]

_MAGIC = b"\x1f\x8b\x08"
#: compressed bytes read at a time (the candidates in a window are inflated in parallel)
WINDOW = 1 << 24
#: compressed bytes inflated in one call, and most text out of one call
_SLICE, _PIECE = 1 << 20, 1 << 23
#: text a task holds before it hands the member back (bounds the memory)
_TASK_TEXT = 1 << 26
#: threads that inflate
THREADS = 2


def _starts(buf) -> list:
    out, i = [], buf.find(_MAGIC)
    while i >= 0:
        out.append(i)
        i = buf.find(_MAGIC, i + 1)
    return out


def _feed(zmod, d, buf, a: int, starts: list):
    """Feed ``buf[a:]`` to the inflater ``d`` (cut at the candidates ``starts`` and every
    :data:`_SLICE` bytes) until its member ends: ``("done", end, texts)``; ``("open", d,
    texts, at)`` when ``buf`` ends first (``at == len(buf)``) or :data:`_TASK_TEXT`
    bytes of text are out (the caller goes on from ``at``); ``("bad", …)`` when the data
    do not inflate."""
    mv, texts, size = memoryview(buf), [], 0
    for b in starts[bisect.bisect_right(starts, a):] + [len(buf)]:
        while a < b:
            c = min(b, a + _SLICE)
            try:
                out = d.decompress(mv[a:c], _PIECE)
                texts.append(out)
                while d.unconsumed_tail and not d.eof:  # a text of more than _PIECE bytes
                    texts.append(d.decompress(d.unconsumed_tail, _PIECE))
            except (zlib.error, getattr(zmod, "error", zlib.error)):
                return "bad", None, None, a
            if d.eof:
                end = c - len(d.unused_data)
                return "done", end, texts, end
            size += sum(len(t) for t in texts[-2:])
            a = c
            if size > _TASK_TEXT and a < len(buf):
                return "open", d, texts, a
    return "open", d, texts, a


def inflate_members(f, zmod, hasher, put):
    """Inflate the members of the gzip file ``f`` (positioned at its start) on
    :data:`THREADS` threads, calling ``put(text, n_raw)`` in file order (``n_raw``: the
    compressed bytes taken since the last call). Returns None when every byte was
    taken, False when ``put`` refused, else ``(head, d)``: the raw bytes read but not
    taken and the inflater of a member begun but unfinished (or None), for the
    one-thread route to go on from there (``f`` positioned after ``head``)."""
    d = None
    new = lambda: zmod.decompressobj(wbits=31)  # noqa: E731
    with ThreadPoolExecutor(THREADS, thread_name_prefix="eigensparse-inflate") as pool:
        while True:
            buf = f.read(WINDOW)
            if hasher is not None and buf:
                hasher.update(buf)
            if not buf or (d is None and not buf.startswith(_MAGIC)):
                return (buf, d) if (buf or d is not None) else None
            starts = _starts(buf)
            live = d  # the inflater that ``cur`` goes on with (None: a new member)
            cur = pool.submit(_feed, zmod, d if d is not None else new(), buf, 0, starts)
            at = {a: pool.submit(_feed, zmod, new(), buf, a, starts) for a in starts if a > 0}
            try:
                pos = 0  # where the member being walked started (or 0)
                while True:
                    state, end, texts, stop = cur.result()
                    if state == "bad":
                        return buf[pos:], live
                    n_raw = stop - pos
                    for t in texts:
                        if not put(t, n_raw):
                            return False
                        n_raw = 0
                    pos = stop
                    if state == "open":
                        d = end
                        if stop == len(buf):  # the member goes on in the next window
                            break
                        live, cur = d, pool.submit(_feed, zmod, d, buf, stop, starts)
                        continue
                    d = live = None
                    if pos == len(buf):
                        break
                    cur = at.get(pos)
                    if cur is None:  # no member where the last one ended
                        return buf[pos:], None
            finally:
                for fut in at.values():
                    fut.cancel()
