"""Step 3 of the bipartite method: the best disjoint supports for W = VC by maximum-weight
matchings (scipy's assignment on the pruned graph, or an exact successive-shortest-path
transportation solver compiled with numba)."""
from __future__ import annotations

import numbers

import numpy as np

from ..._validation import InvalidParameterError

try:  # numba is a dependency; keep a pure-scipy route if it is unusable
    import numba

    _HAVE_NUMBA = True
except Exception:  # pragma: no cover - exercised only without numba
    numba = None
    _HAVE_NUMBA = False

__all__ = ["match_supports", "check_cardinalities", "match_rows", "match_matrix",
           "resolve_matcher", "MATCHERS"]

MATCHERS = ("auto", "ssp", "lsa")


def check_cardinalities(cardinalities, p: int) -> np.ndarray:
    """Validated cardinalities (one int >= 1 per component, summing to at most ``p``), int64.

    Examples
    --------
    >>> from eigensparse.multi.bipartite.matching import check_cardinalities
    >>> check_cardinalities([2, 3], 10).tolist()
    [2, 3]
    >>> try:
    ...     check_cardinalities([6, 6], 10)
    ... except ValueError as err:
    ...     print(str(err)[:71])
    bipartite: parameter 'cardinality' is too large for disjoint supports:
    """
    if isinstance(cardinalities, numbers.Integral) and not isinstance(cardinalities, bool):
        cardinalities = [int(cardinalities)]
    try:
        caps = [c for c in cardinalities]
    except TypeError:
        raise InvalidParameterError(
            f"bipartite: parameter 'cardinality' must be a list of ints (one per component); "
            f"got {cardinalities!r}.") from None
    if len(caps) == 0:
        raise InvalidParameterError(
            "bipartite: parameter 'cardinality' is empty; need >= 1 component.")
    for c in caps:
        if not isinstance(c, numbers.Integral) or isinstance(c, bool) or c < 1:
            raise InvalidParameterError(
                f"bipartite: parameter 'cardinality' must contain ints >= 1; got {c!r} in "
                f"{cardinalities!r}.")
    caps = np.asarray(caps, dtype=np.int64)
    if int(caps.sum()) > p:
        k = caps.size
        what = (f"n_components × cardinality = {k} × {int(caps[0])} = {int(caps.sum())}"
                if np.all(caps == caps[0]) else f"sum(cardinality) = {int(caps.sum())}")
        raise InvalidParameterError(
            f"bipartite: parameter 'cardinality' is too large for disjoint supports: "
            f"{what} exceeds n_features={p}; lower the cardinality or n_components.")
    return caps


def _top_lists(W2t: np.ndarray, S: int) -> np.ndarray:
    """Indices of the top-S entries of each row of W2t (b, k, p) → (b, k, S), unsorted."""
    p = W2t.shape[-1]
    if S >= p:
        return np.broadcast_to(np.arange(p), W2t.shape[:-1] + (p,)).copy()
    return np.argpartition(-W2t, S - 1, axis=-1)[..., :S]


def _match_lsa(W2t: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Maximum-weight matching of one candidate with scipy on the pruned graph.

    ``W2t`` (k, p) squared weights, ``caps`` (k,) slots per column. The graph keeps only
    the union of each column's top-S variables, S = Σ caps (an optimal matching never
    needs another one: a column using a variable outside its top-S list leaves one of
    that list unused, and swapping them does not lower the weight). Returns the matched
    variables, (S,), grouped by column.
    """
    S = int(caps.sum())
    cand = np.unique(_top_lists(W2t[None], S)[0])
    cost = np.repeat(W2t[:, cand], caps, axis=0)  # (S, m): row = slot, s_j copies of column j
    from scipy.optimize import linear_sum_assignment  # scipy.optimize: only when used

    rows, cols = linear_sum_assignment(cost, maximize=True)
    out = np.empty(rows.size, dtype=np.intp)
    out[rows] = cand[cols]
    return out


if _HAVE_NUMBA:

    @numba.njit(cache=True)
    def _heap_sift_down(hv, hi, n, j):  # pragma: no cover - compiled
        while True:
            left = 2 * j + 1
            if left >= n:
                return
            m = left
            if left + 1 < n and hv[left + 1] < hv[left]:
                m = left + 1
            if hv[m] < hv[j]:
                hv[m], hv[j] = hv[j], hv[m]
                hi[m], hi[j] = hi[j], hi[m]
                j = m
            else:
                return

    @numba.njit(cache=True)
    def _heap_sift_up(hv, hi, j):  # pragma: no cover - compiled
        while j > 0:
            par = (j - 1) // 2
            if hv[j] < hv[par]:
                hv[j], hv[par] = hv[par], hv[j]
                hi[j], hi[par] = hi[par], hi[j]
                j = par
            else:
                return

    @numba.njit(cache=True)
    def _recompute_g(T, members, load, b, a, g, gi):  # pragma: no cover - compiled
        best = -np.inf
        arg = -1
        for m in range(load[b]):
            u = members[b, m]
            v = T[u, a] - T[u, b]
            if v > best:
                best = v
                arg = u
        g[a, b] = best
        gi[a, b] = arg

    @numba.njit(cache=True)
    def _augment(T, order, caps, tol, owner, where, members, load, ptr, g, gi, f, fi, dist, pred,
                 act, nxt, moves_a, moves_u, moves_from):  # pragma: no cover - compiled
        """Phase 2 for one candidate: S successive largest-gain augmenting paths, each found
        by Bellman–Ford over the k columns on the best gains g (a takes gi[a, b] from b).
        Returns False on a numerical inconsistency (no path, or a cycle)."""
        k = caps.size
        S = order.shape[1]
        NEG = -np.inf
        ok = True
        for _step in range(S):
            for a in range(k):  # best free variable of each column
                f[a] = NEG
                fi[a] = -1
                while ptr[a] < S and owner[order[a, ptr[a]]] >= 0:
                    ptr[a] += 1
                if ptr[a] < S:
                    u = order[a, ptr[a]]
                    f[a] = T[u, a]
                    fi[a] = u
            for a in range(k):
                dist[a] = 0.0 if load[a] < caps[a] else NEG
                pred[a] = -1
                act[a] = dist[a] > NEG  # relax only from nodes improved last pass
            for _it in range(k):
                changed = False
                for a in range(k):
                    nxt[a] = False
                for a in range(k):
                    if not act[a]:
                        continue
                    for b in range(k):
                        if gi[a, b] >= 0:
                            v = dist[a] + g[a, b]
                            if v > dist[b] + tol:
                                dist[b] = v
                                pred[b] = a
                                nxt[b] = True
                                changed = True
                if not changed:
                    break
                for a in range(k):
                    act[a] = nxt[a]
            best = NEG
            e = -1
            for a in range(k):
                if dist[a] > NEG and fi[a] >= 0:
                    v = dist[a] + f[a]
                    if v > best:
                        best = v
                        e = a
            if e < 0:
                ok = False
                break
            # augment: e takes its free variable; pred[e] takes gi[pred[e], e] from e; ...
            nm = 0
            cur = e
            while pred[cur] >= 0:
                if nm >= k:
                    ok = False
                    break
                a = pred[cur]
                moves_a[nm] = a
                moves_u[nm] = gi[a, cur]
                moves_from[nm] = cur
                nm += 1
                cur = a
            if not ok:
                break
            u = fi[e]
            owner[u] = e
            where[u] = load[e]
            members[e, load[e]] = u
            load[e] += 1
            for a2 in range(k):
                if a2 != e:
                    v = T[u, a2] - T[u, e]
                    if v > g[a2, e]:
                        g[a2, e] = v
                        gi[a2, e] = u
            for t in range(nm):
                a = moves_a[t]
                u = moves_u[t]
                src = moves_from[t]
                pos = where[u]  # remove u from src (swap with its last member)
                last = members[src, load[src] - 1]
                members[src, pos] = last
                where[last] = pos
                load[src] -= 1
                owner[u] = a
                where[u] = load[a]
                members[a, load[a]] = u
                load[a] += 1
                for a2 in range(k):
                    if a2 != src and gi[a2, src] == u:
                        _recompute_g(T, members, load, src, a2, g, gi)
                    if a2 != a:
                        v = T[u, a2] - T[u, a]
                        if v > g[a2, a]:
                            g[a2, a] = v
                            gi[a2, a] = u
        return ok

    @numba.njit(cache=True)
    def _ssp_batch(Vs, nrm2, C, caps, out, okflag, scanned):  # pragma: no cover - compiled
        """Supports of a batch of candidates by exact maximum-weight matchings.

        ``Vs`` (p, r): the sketch rows sorted by decreasing squared norm ``nrm2``; ``C``
        (B, r, k) candidates; W_ia = Vs[i]·C[:, a] and W_ia² ≤ nrm2[i]. For each column the
        top-S variables (S = Σ caps) are found scanning rows in norm order with a min-heap,
        stopping once the heap's minimum reaches the next row's norm bound (exact). The
        matching on the union of these lists — a transportation problem with k sources of
        capacity caps[a] — is solved by successive largest-gain augmenting paths
        (:func:`_augment`): a column with a free slot takes a variable from column b, b
        takes one from c, ..., the last takes a free variable. Only the best variable per
        ordered pair of columns matters (kept incrementally in g), so each path search is
        Bellman–Ford over k nodes.

        ``out[b]``: matched row positions (into Vs), grouped by column; ``okflag[b]`` 0 if
        candidate b hit a numerical inconsistency (the caller redoes it with scipy);
        ``scanned[b]``: rows scanned. The work arrays are allocated once per batch; the
        phases share them, so the heap scan stays inline and the augmentations are one
        compiled call per candidate.
        """
        B = C.shape[0]
        r = C.shape[1]
        k = C.shape[2]
        p = Vs.shape[0]
        S = 0
        cmax = 0
        for a in range(k):
            S += caps[a]
            if caps[a] > cmax:
                cmax = caps[a]
        offs = np.zeros(k + 1, dtype=np.int64)
        for a in range(k):
            offs[a + 1] = offs[a] + caps[a]
        slot = -np.ones(p, dtype=np.int64)  # row → index into the union table
        uni = np.zeros(k * S, dtype=np.int64)
        T = np.zeros((k * S, k))  # W² of the union rows, all columns
        owner = -np.ones(k * S, dtype=np.int64)
        where = np.zeros(k * S, dtype=np.int64)
        members = np.zeros((k, cmax + 1), dtype=np.int64)  # +1: transient overflow
        load = np.zeros(k, dtype=np.int64)
        order = np.zeros((k, S), dtype=np.int64)  # per column: union indices, best first
        ptr = np.zeros(k, dtype=np.int64)
        g = np.zeros((k, k))
        gi = np.zeros((k, k), dtype=np.int64)
        f = np.zeros(k)
        fi = np.zeros(k, dtype=np.int64)
        dist = np.zeros(k)
        pred = np.zeros(k, dtype=np.int64)
        act = np.zeros(k, dtype=np.bool_)
        nxt = np.zeros(k, dtype=np.bool_)
        hv = np.zeros(S)
        hi = np.zeros(S, dtype=np.int64)
        moves_a = np.empty(k + 1, dtype=np.int64)
        moves_u = np.empty(k + 1, dtype=np.int64)
        moves_from = np.empty(k + 1, dtype=np.int64)
        for bidx in range(B):
            # 1. top-S rows of each column (early stop on the norm bound)
            nu = 0
            maxscan = 0
            scale = 0.0
            for a in range(k):
                n = 0
                i = 0
                while i < p:
                    if n == S and hv[0] >= nrm2[i]:
                        break
                    w = 0.0
                    for t in range(r):
                        w += Vs[i, t] * C[bidx, t, a]
                    w = w * w
                    if n < S:
                        hv[n] = w
                        hi[n] = i
                        _heap_sift_up(hv, hi, n)
                        n += 1
                    elif w > hv[0]:
                        hv[0] = w
                        hi[0] = i
                        _heap_sift_down(hv, hi, S, 0)
                    i += 1
                if i > maxscan:
                    maxscan = i
                # pop ascending → fill order from the back (best first)
                for t in range(S - 1, -1, -1):
                    row = hi[0]
                    if hv[0] > scale:
                        scale = hv[0]
                    if slot[row] < 0:
                        slot[row] = nu
                        uni[nu] = row
                        nu += 1
                    order[a, t] = slot[row]
                    hv[0] = hv[t]
                    hi[0] = hi[t]
                    _heap_sift_down(hv, hi, t, 0)
            scanned[bidx] = maxscan
            for u in range(nu):
                row = uni[u]
                for a in range(k):
                    w = 0.0
                    for t in range(r):
                        w += Vs[row, t] * C[bidx, t, a]
                    T[u, a] = w * w
                    if T[u, a] > scale:
                        scale = T[u, a]
                owner[u] = -1
            tol = 1e-13 * scale  # gains below this are rounding noise (no spurious cycles)
            for a in range(k):
                ptr[a] = 0
                load[a] = 0
                for b in range(k):
                    g[a, b] = -np.inf
                    gi[a, b] = -1
            # 2. successive largest-gain augmenting paths
            ok = _augment(T, order, caps, tol, owner, where, members, load, ptr, g, gi, f, fi,
                          dist, pred, act, nxt, moves_a, moves_u, moves_from)
            for a in range(k):
                if load[a] != caps[a]:
                    ok = False
            okflag[bidx] = 1 if ok else 0
            if ok:
                for a in range(k):
                    for m in range(load[a]):
                        out[bidx, offs[a] + m] = uni[members[a, m]]
            for u in range(nu):
                slot[uni[u]] = -1


def match_rows(Vs: np.ndarray, nrm2: np.ndarray, C: np.ndarray, caps: np.ndarray,
                matcher: str, scanned: np.ndarray | None = None) -> np.ndarray:
    """Supports for a batch: W = Vs·C_b (rows of Vs sorted by decreasing norm ``nrm2``,
    C (b, r, k) with unit columns) → matched row positions (b, S), grouped by column
    (caps[0] rows of column 0, then column 1, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.multi.bipartite.matching import match_rows
    >>> Vs = np.array([[0.9, 0.1], [-0.5, 0.8], [0.3, 0.2], [0.1, -0.6]])  # rows by norm
    >>> nrm2 = (Vs ** 2).sum(axis=1)
    >>> match_rows(Vs, nrm2, np.eye(2)[None], np.array([2, 2]), "lsa").tolist()  # row positions
    [[0, 2, 1, 3]]
    """
    S = int(caps.sum())
    b = C.shape[0]
    out = np.empty((b, S), dtype=np.intp)
    bad = np.ones(b, dtype=bool)
    if matcher == "ssp":
        out64 = np.empty((b, S), dtype=np.int64)
        okflag = np.zeros(b, dtype=np.int64)
        sc = np.zeros(b, dtype=np.int64)
        _ssp_batch(np.ascontiguousarray(Vs, dtype=np.float64),
                   np.ascontiguousarray(nrm2, dtype=np.float64),
                   np.ascontiguousarray(C, dtype=np.float64),
                   np.ascontiguousarray(caps, dtype=np.int64), out64, okflag, sc)
        out[:] = out64
        bad = okflag == 0  # numerically awkward: let scipy solve those
        if scanned is not None:
            scanned[:] = sc
    for t in np.flatnonzero(bad):
        Wt = C[t].T @ Vs.T  # (k, p)
        out[t] = _match_lsa(Wt * Wt, caps)
        if scanned is not None and matcher != "ssp":
            scanned[t] = Vs.shape[0]
    return out


def match_supports(W, cardinalities, *, matcher: str = "auto") -> list[np.ndarray]:
    """Best disjoint supports for W (p × k): maximize Σ_j Σ_{i∈I_j} W_ij² with |I_j| = s_j.

    The maximum-weight bipartite matching of Algorithm 2, pruned to the union of each
    column's top Σ s_j variables. Returns one sorted index array per column.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.multi.bipartite import match_supports
    >>> W = np.array([[0.9, 0.1], [-0.5, 0.8], [0.1, -0.6], [0.3, 0.2]])
    >>> [I.tolist() for I in match_supports(W, [2, 2])]  # disjoint, max Σ_j Σ_{i∈I_j} W_ij²
    [[0, 3], [1, 2]]
    """
    W = np.asarray(W, dtype=float)
    if W.ndim != 2:
        raise InvalidParameterError(f"parameter 'W' must be 2-D (p, k); got shape {W.shape}.")
    caps = check_cardinalities(cardinalities, W.shape[0])
    if caps.size != W.shape[1]:
        raise InvalidParameterError(
            f"parameter 'cardinalities' has {caps.size} entries but W has {W.shape[1]} columns.")
    return match_matrix(W, caps, resolve_matcher(matcher))


def match_matrix(W: np.ndarray, caps: np.ndarray, matcher: str) -> list[np.ndarray]:
    """:func:`match_supports` without the checks: W = W·I with rows sorted by norm.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.multi.bipartite.matching import match_matrix
    >>> W = np.array([[0.9, 0.1], [-0.5, 0.8], [0.1, -0.6], [0.3, 0.2]])
    >>> [I.tolist() for I in match_matrix(W, np.array([2, 2]), "lsa")]
    [[0, 3], [1, 2]]
    """
    nrm2 = np.einsum("ij,ij->i", W, W)
    order = np.argsort(-nrm2, kind="stable")
    out = match_rows(W[order], nrm2[order], np.eye(W.shape[1])[None], caps, matcher)[0]
    out = order[out]
    offs = np.concatenate([[0], np.cumsum(caps)])
    return [np.sort(out[offs[j]:offs[j + 1]]) for j in range(caps.size)]


def resolve_matcher(matcher: str) -> str:
    """The matching solver to use: ``"auto"`` is ``"ssp"`` (numba) when available, else ``"lsa"``.

    Examples
    --------
    >>> from eigensparse.multi.bipartite.matching import resolve_matcher
    >>> resolve_matcher("auto") in ("ssp", "lsa"), resolve_matcher("lsa")
    (True, 'lsa')
    """
    if matcher == "auto":
        return "ssp" if _HAVE_NUMBA else "lsa"
    if matcher == "ssp" and not _HAVE_NUMBA:  # pragma: no cover
        raise InvalidParameterError("bipartite: matcher='ssp' needs numba; use matcher='lsa'.")
    return matcher
