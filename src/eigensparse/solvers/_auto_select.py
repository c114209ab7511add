"""Compiled selection kernels of the default method (:mod:`eigensparse.solvers._auto`):
the s largest entries of a vector, each row's strongest partners, the first distinct rows
of a ranking. Ties are broken towards the lower index everywhere, so the results do not
depend on a sorting routine's internals.
"""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["top_s", "selection_buffer", "row_partners", "rows_partners", "partners_of_rows",
           "top_order", "first_distinct_rows"]


@numba.njit(cache=True, nogil=True)
def _kth_largest(a, k):
    """The k-th largest entry (0-based) of ``a``, which is reordered in place
    (quickselect, median-of-three pivot)."""
    lo, hi = 0, a.size - 1
    while lo < hi:
        mid = (lo + hi) // 2
        x, y, z = a[lo], a[mid], a[hi]
        pivot = max(min(x, y), min(max(x, y), z))
        i, j = lo, hi
        while i <= j:
            while a[i] > pivot:
                i += 1
            while a[j] < pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return a[k]
    return a[k]



@numba.njit(cache=True, nogil=True)
def _kth_largest_small(a, k, top):
    """The k-th largest entry (0-based) of ``a`` (left unchanged), the value of
    :func:`_kth_largest`, for a small k: one pass that keeps the k + 1 largest so far,
    sorted, in ``top`` (scratch of at least k + 1 floats; most entries are rejected by
    one comparison). For the pivots taken from a sample of 64 entries."""
    n = 0
    for u in range(a.size):
        v = a[u]
        if n > k:
            if not v > top[k]:
                continue
            w = k - 1
        else:
            w = n - 1
            n += 1
        while w >= 0 and top[w] < v:
            top[w + 1] = top[w]
            w -= 1
        top[w + 1] = v
    return top[k]


#: entries of the evenly spaced sample that places the pivot of :func:`_kth_largest_of`
SAMPLE = 64


def selection_buffer(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Scratch for :func:`top_s` on m entries (its ``scratch`` and ``index`` arguments),
    allocated once and reused across calls."""
    return np.empty(2 * m + SAMPLE), np.empty(m, dtype=np.int64)


@numba.njit(cache=True, nogil=True)
def _kth_largest_of(a, k, buf):
    """The k-th largest entry (0-based) of ``a``, which is left unchanged (``buf``: at
    least ``a.size + SAMPLE`` floats of scratch).

    The value equals :func:`_kth_largest`'s; only the work differs. A pivot a little
    below the k-th largest's expected rank is taken from an evenly spaced sample; one
    branch-free pass copies the entries >= pivot into ``buf``, and the quickselect runs
    on those few (on all of ``a`` when the pivot turned out too high, or when k is not
    small against the size)."""
    m = a.size
    if m <= 4 * SAMPLE or 4 * k >= m:
        for i in range(m):
            buf[i] = a[i]
        return _kth_largest(buf[:m], k)
    step = m // SAMPLE
    samp = buf[m:m + SAMPLE]
    for u in range(SAMPLE):
        samp[u] = a[u * step]
    pivot = _kth_largest_small(samp, min(SAMPLE - 1, (k + 1) * SAMPLE // m + 3), buf)
    n = 0
    for i in range(m):
        v = a[i]
        buf[n] = v
        n += v >= pivot
    if n <= k:  # the pivot was above the k-th largest: select on everything
        for i in range(m):
            buf[i] = a[i]
        return _kth_largest(buf[:m], k)
    return _kth_largest(buf[:n], k)


@numba.njit(cache=True, nogil=True)
def top_s(w, s, out, scratch, index, hint=-1.0):
    """Indices of the ``s`` largest |w_i| into ``out`` (sorted by index); ties at the
    threshold go to the lower indices. O(m) on average, one pass over w: a pivot a
    little below the s-th largest's expected rank from an evenly spaced sample, one
    branch-free pass that keeps the entries at or above it with their indices (all of
    them when the pivot turned out too high, or when s is not small against m), a
    selection of the threshold among those, then the output from those alone
    (``scratch``, ``index``: :func:`selection_buffer`). ``hint`` > 0: that pivot
    instead of the sample's (a value a little below the threshold expected, e.g. from the
    previous truncated power step). Returns the threshold: the s-th largest |w_i|."""
    m = w.size
    cv = scratch[:m]
    n = 0
    if 4 * (s - 1) < m and (hint > 0 or m > 4 * SAMPLE):
        if hint > 0:
            pivot = hint
        else:
            step = m // SAMPLE
            samp = scratch[m:m + SAMPLE]
            for u in range(SAMPLE):
                samp[u] = abs(w[u * step])
            pivot = _kth_largest_small(samp, min(SAMPLE - 1, s * SAMPLE // m + 3),
                                       scratch[m + SAMPLE:])
        for i in range(m):
            v = abs(w[i])
            cv[n] = v
            index[n] = i
            n += v >= pivot
    if n < s:
        for i in range(m):
            cv[i] = abs(w[i])
            index[i] = i
        n = m
    sel = scratch[m + SAMPLE:m + SAMPLE + n]
    for u in range(n):
        sel[u] = cv[u]
    thr = _kth_largest(sel, s - 1)
    n_above = 0
    for u in range(n):
        n_above += cv[u] > thr
    n_equal = s - n_above
    k = 0
    for u in range(n):  # the candidates are in index order
        v = cv[u]
        if v > thr:
            out[k] = index[u]
            k += 1
        elif v == thr and n_equal > 0:
            out[k] = index[u]
            k += 1
            n_equal -= 1
    return thr




@numba.njit(cache=True, nogil=True)
def row_partners(B, t, cumulative=False):
    """Each row's ``t`` strongest partners: ``J[i]`` the indices j ≠ i of the t largest
    |B_ij| (strongest first; ties to the lower index) and ``V[i]`` those |B_ij|, or
    their running sums when ``cumulative`` (:func:`rows_partners` on every row of the
    square B)."""
    rows = np.arange(B.shape[0])
    return partners_of_rows(B, rows, rows, t, cumulative)


@numba.njit(cache=True, nogil=True)
def _top_sorted(cv, ci, n, me, lv, li):
    """The t = ``lv.size`` largest of the candidates ``cv[:n]`` (indices ``ci[:n]``,
    increasing), the index ``me`` left out, into ``lv``/``li`` sorted by value
    descending, ties by index ascending (a candidate enters only when strictly above the
    t-th so far, and moves only past strictly smaller values). Returns how many were
    placed (< t when fewer than t candidates)."""
    t = lv.size
    k = 0
    for u in range(n):
        j = ci[u]
        if j == me:
            continue
        v = cv[u]
        if k == t:
            if v <= lv[t - 1]:
                continue
            w = t - 2
        else:
            w = k - 1
            k += 1
        while w >= 0 and lv[w] < v:
            lv[w + 1] = lv[w]
            li[w + 1] = li[w]
            w -= 1
        lv[w + 1] = v
        li[w + 1] = j
    return k


@numba.njit(cache=True, nogil=True)
def rows_partners(R, self_idx, t, cumulative=False):
    """``(J, V)`` of :func:`row_partners` for the rows R (c×m) of a symmetric m×m
    matrix, row u being feature ``self_idx[u]`` (never its own partner)
    (:func:`partners_of_rows` on every row of R)."""
    return partners_of_rows(R, np.arange(R.shape[0]), self_idx, t, cumulative)


@numba.njit(cache=True, nogil=True)
def partners_of_rows(R, rows, self_idx, t, cumulative=False):
    """``(J, V)`` of :func:`row_partners` for the rows ``R[rows]`` (read in place) of a
    symmetric m×m matrix, row ``rows[u]`` being feature ``self_idx[u]`` (never its own
    partner). O(m) per row
    on average: a pivot from an evenly spaced sample of the row, one branch-free pass
    over the row that keeps the entries at or above it (with their indices), then those
    few inserted into a sorted list of the t best (:func:`_top_sorted`). ``cumulative``:
    V holds the running sums of those values (``np.cumsum(V, axis=1)``, in that
    order)."""
    c, m = rows.size, R.shape[1]
    J = np.empty((c, t), dtype=np.int64)
    V = np.empty((c, t))
    cv = np.empty(m)  # the candidates (at or above the pivot) and their indices
    ci = np.empty(m, dtype=np.int64)
    samp = np.empty(SAMPLE)
    top = np.empty(SAMPLE)
    lv = np.empty(t)
    li = np.empty(t, dtype=np.int64)
    sampled = 4 * t < m and m > 4 * SAMPLE
    step = m // SAMPLE
    rank = min(SAMPLE - 1, (t + 1) * SAMPLE // m + 3)  # a little below the t-th's rank
    for i in range(c):
        r = rows[i]
        me = self_idx[i]
        n = 0
        if sampled:
            for u in range(SAMPLE):
                samp[u] = abs(R[r, u * step]) if u * step != me else -1.0
            pivot = _kth_largest_small(samp, rank, top)
            for j in range(m):  # one branch-free pass over the row
                v = abs(R[r, j])
                cv[n] = v
                ci[n] = j
                n += v >= pivot
        k = _top_sorted(cv, ci, n, me, lv, li)
        if k < t:  # the pivot was above the t-th largest (or no sample): all are candidates
            for j in range(m):
                cv[j] = abs(R[r, j])
                ci[j] = j
            k = _top_sorted(cv, ci, m, me, lv, li)
        acc = 0.0
        for u in range(t):
            J[i, u] = li[u]
            acc = acc + lv[u] if cumulative else lv[u]
            V[i, u] = acc
    return J, V




@numba.njit(cache=True, nogil=True)
def top_order(a, k):
    """``np.argsort(-a, kind="stable")[:k]`` for a finite ``a`` in one pass: the indices
    of the k largest entries, by value descending, ties by index ascending (an entry
    enters only when strictly above the k-th so far and moves only past strictly smaller
    values), kept in a sorted list of k."""
    k = min(k, a.size)
    lv = np.empty(k)
    li = np.empty(k, dtype=np.int64)
    n = 0
    for i in range(a.size):
        v = a[i]
        if n == k:
            if not v > lv[k - 1]:
                continue
            w = k - 2
        else:
            w = n - 1
            n += 1
        while w >= 0 and lv[w] < v:
            lv[w + 1] = lv[w]
            li[w + 1] = li[w]
            w -= 1
        lv[w + 1] = v
        li[w + 1] = i
    return li


@numba.njit(cache=True, nogil=True)
def first_distinct_rows(rows, order, limit):
    """Positions (into ``rows``) of the first ``limit`` distinct rows of the int64 array
    ``rows`` (N, s) taken in ``order`` (a permutation or prefix of range(N)): a row
    equal to one already taken is skipped. Rows are compared whole, entry by entry
    (hash buckets of their entries, then an exact comparison)."""
    N, s = rows.shape
    n_buckets, target = 1, 2 * min(order.size, 1 << 15)
    while n_buckets < target:
        n_buckets *= 2
    head = np.full(n_buckets, -1, dtype=np.int64)
    nxt = np.full(order.size, -1, dtype=np.int64)
    out = np.empty(min(limit, order.size), dtype=np.int64)
    n_out = 0
    for u in range(order.size):
        if n_out >= limit:
            break
        r = order[u]
        h = np.uint64(1469598103934665603)
        for a in range(s):
            h = (h ^ np.uint64(rows[r, a] & 0xFFFFFFFF)) * np.uint64(1099511628211)
        bkt = np.int64(h & np.uint64(n_buckets - 1))
        q = head[bkt]
        dup = False
        while q >= 0:
            o = out[q]
            same = True
            for a in range(s):
                if rows[o, a] != rows[r, a]:
                    same = False
                    break
            if same:
                dup = True
                break
            q = nxt[q]
        if not dup:
            out[n_out] = r
            nxt[n_out] = head[bkt]
            head[bkt] = n_out
            n_out += 1
    return out[:n_out]
