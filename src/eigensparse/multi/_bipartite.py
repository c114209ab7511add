"""Joint disjoint components by bipartite matchings (Asteris, Papailiopoulos,
Kyrillidis & Dimakis, NIPS 2015, Algorithms 1–3), plus a monotone local improvement.

The problem: k unit vectors x_1..x_k with |supp x_j| = s_j and pairwise disjoint
supports maximizing Tr(XᵀAX) = Σ_j x_jᵀ A x_j.

Algorithm (the paper's)
-----------------------
1. **Sketch**: A ≈ U Λ Uᵀ of rank r (dense ``eigh`` up to 1000 features, else
   ``eigsh`` on a LinearOperator over ``op.matmat``; or a randomized range finder
   through ``op.dot``/``op.rdot``, ``sketch="randomized"``). Let V = U Λ^½ (p × r).
2. **Candidates** C (r × k, unit columns): PCA-derived ones (columns along the
   eigenvectors and their ±45° mixtures), then either an ε/2-net of the product of
   hemispheres (``epsilon=``: exhaustive, which gives the (1−ε) guarantee of Theorem 1
   for the sketch) or ``n_candidates`` random samples: uniform on the product of spheres
   (``sampling="uniform"``, the paper) or adaptive (``"adaptive"``, the default: after a
   uniform first quarter, most of each batch perturbs the best candidates so far).
3. For each C: W = V C (p × k). The best disjoint supports for W maximize
   Σ_j Σ_{i∈I_j} W_ij², a maximum-weight matching between s_j slots per column and the
   p variables. Only the top S = Σ s_j variables of each column by W_ij² can be used
   (swap argument), so the graph is pruned to the union of those lists (found by
   scanning the rows of V in decreasing norm: W_ij² ≤ ‖V_i‖² stops the scan exactly)
   before it is solved, either by :func:`scipy.optimize.linear_sum_assignment` on the
   S × |union| slot/variable matrix (``matcher="lsa"``) or by an exact
   successive-shortest-path transportation solver over the k columns compiled with numba
   (``matcher="ssp"``, the default: the same optimum, 10–200× faster, because the S
   slots are s_j interchangeable copies of each column).
4. Loadings: X_j = W_j restricted to I_j, normalized. The candidate kept is the one
   with the largest **true** objective Tr(XᵀAX) on the unsketched operator (evaluated
   through a growing cache of the principal submatrix of Σ over the variables seen).

Candidates are processed in vectorized batches; ``time_budget`` stops the search early
(as the paper does), which is reported in the results (``converged=False``,
``info["stopped_early"]``).

Local improvement (``refine=True``, beyond the paper; every step is monotone)
-----------------------------------------------------------------------------
Applied to the ``n_refine`` best candidates from different basins (solutions agreeing
on more than 75% of their slots with a better one are skipped); the best result is kept.

- **polish**: x_j ← leading eigenvector of Σ[I_j, I_j];
- **re-match**: w_j = Σx_j / √(x_jᵀΣx_j) on the *full* operator, then the matching
  above. The matching value of the current X equals the objective, and by
  Cauchy–Schwarz in the Σ inner product every x' satisfies x'ᵀΣx' ≥ (x'ᵀw)², so the new
  supports (then polished) cannot be worse; they are kept only when strictly better;
- **swaps**: exchange a variable between two supports, or replace a support variable
  by an unused one. Moves are ranked by a 2-dimensional Rayleigh–Ritz lower bound on
  the new λmax (computed for every variable at once from Σx and Σ[:, I]); the best are
  evaluated exactly and applied only when the objective strictly increases
  (non-conflicting improving moves together).

It stops when neither re-matching nor a swap improves, or at the deadline.
"""
from __future__ import annotations

import itertools
import math
import numbers
import time

import numpy as np
from scipy import linalg as sla
from scipy.optimize import linear_sum_assignment

from .._linalg import fix_sign
from .._result import ComponentResult
from .._validation import InvalidParameterError, Interval, Options, validate_params
from ..operators import Operator
from ..solvers._common import check_random_state
from . import register_joint

try:  # numba is a dependency; keep a pure-scipy route if it is unusable
    import numba

    _HAVE_NUMBA = True
except Exception:  # pragma: no cover - exercised only without numba
    numba = None
    _HAVE_NUMBA = False

__all__ = ["bipartite", "match_supports", "epsilon_net"]

#: up to this many features the sketch is a dense eigendecomposition of Σ
DENSE_MAX_FEATURES = 1000
#: largest number of candidate matrices an ε-net may have, and of points on one sphere
MAX_NET_CANDIDATES = 50_000_000
MAX_NET_POINTS = 2_000_000
#: default number of random candidate matrices
DEFAULT_N_CANDIDATES = 20_000
#: largest principal submatrix of Σ kept in memory for the objective (doubles: 8·n² bytes)
MAX_GRAM = 4096
#: adaptive sampling: elite candidates kept, and the perturbation scales around them
_N_ELITE = 16
_PERTURB = np.array([0.3, 0.1, 0.03])
#: solutions kept for refinement agree on at most this fraction of their slots
DIVERSITY_OVERLAP = 0.75

_MATCHERS = ("auto", "ssp", "lsa")
_SAMPLINGS = ("adaptive", "uniform")
_SKETCHES = ("auto", "dense", "eigsh", "randomized")


# ---------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------
def _max_rank(op: Operator) -> int:
    """Largest sketch rank the data allow: p, and n (n − 1 when centered) for data."""
    p = int(op.n_features)
    n = op.n_samples
    if n is None:
        return p
    parent = getattr(op, "parent", None)
    centered = bool(getattr(op, "center", False) or getattr(parent, "center", False))
    return max(1, min(p, int(n) - (1 if centered else 0)))


def _check_cardinalities(cardinalities, p: int) -> np.ndarray:
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


# ---------------------------------------------------------------------------------------
# sketch
# ---------------------------------------------------------------------------------------
def _sketch(op: Operator, rank: int, method: str, rng: np.random.Generator):
    """Top-``rank`` eigenpairs of Σ (descending), and λ_{r+1} when cheaply available."""
    from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh

    p = op.n_features
    if method == "auto":
        method = "dense" if (p <= DENSE_MAX_FEATURES or rank >= p - 1) else "eigsh"
    if method == "eigsh" and rank >= p - 1:
        method = "dense"
    if method == "dense":
        w, Q = np.linalg.eigh(op.to_dense())
        w, Q = w[::-1], Q[:, ::-1]
        nxt = float(max(w[rank], 0.0)) if rank < p else 0.0
        return np.clip(w[:rank], 0, None), np.ascontiguousarray(Q[:, :rank]), nxt, "dense"
    if method == "eigsh":
        L = LinearOperator((p, p), matvec=op.matvec, matmat=op.matmat, dtype=float)
        kk = min(rank + 1, p - 1)
        v0 = rng.standard_normal(p)
        try:
            w, Q = eigsh(L, k=kk, which="LA", v0=v0)
        except ArpackNoConvergence:  # pragma: no cover - hard spectra only
            return _sketch(op, rank, "randomized", rng)
        order = np.argsort(w)[::-1]
        w, Q = w[order], Q[:, order]
        nxt = float(max(w[rank], 0.0)) if kk > rank else float("nan")
        return np.clip(w[:rank], 0, None), np.ascontiguousarray(Q[:, :rank]), nxt, "eigsh"
    # randomized range finder (Halko, Martinsson & Tropp 2011) through the protocol
    oversample, n_iter = 10, 7
    b = min(p, rank + oversample)
    if op.has_data:
        Y = op.dot(rng.standard_normal((p, b)))
        for _ in range(n_iter):
            Y, _ = np.linalg.qr(Y)
            Z, _ = np.linalg.qr(op.rdot(Y))
            Y = op.dot(Z)
        Q, _ = np.linalg.qr(Y)
        B = op.rdot(Q).T  # b × p = Qᵀ A
        _, sv, Vt = np.linalg.svd(B, full_matrices=False)
        w = sv**2
        Uf = Vt.T
    else:
        Y = op.matmat(rng.standard_normal((p, b)))
        for _ in range(n_iter):
            Y, _ = np.linalg.qr(Y)
            Y = op.matmat(Y)
        Q, _ = np.linalg.qr(Y)
        T = Q.T @ op.matmat(Q)
        w, E = np.linalg.eigh(0.5 * (T + T.T))
        w, E = w[::-1], E[:, ::-1]
        Uf = Q @ E
    nxt = float(max(w[rank], 0.0)) if w.size > rank else float("nan")
    return np.clip(w[:rank], 0, None), np.ascontiguousarray(Uf[:, :rank]), nxt, "randomized"


# ---------------------------------------------------------------------------------------
# candidates
# ---------------------------------------------------------------------------------------
def epsilon_net(r: int, epsilon: float) -> np.ndarray:
    """An ε/2-net of the unit hemisphere of R^r (up to sign), shape (N, r).

    Grid of spacing h = ε/√(r−1) on each face of the cube [−1, 1]^r, projected
    radially: a point c of the sphere lies on the face through c/‖c‖_∞ within
    (h/2)√(r−1) = ε/2 of a grid point, and radial projection onto the sphere is
    1-Lipschitz outside the unit ball. Antipodal duplicates are removed (the matching
    only sees W_ij²).
    """
    if r == 1:
        return np.ones((1, 1))
    h = epsilon / math.sqrt(r - 1)
    m = int(math.ceil(2.0 / h)) + 1
    grid1 = np.linspace(-1.0, 1.0, m)
    faces = []
    free = np.stack(np.meshgrid(*([grid1] * (r - 1)), indexing="ij"), axis=-1).reshape(-1, r - 1)
    for axis in range(r):
        pts = np.insert(free, axis, 1.0, axis=1)  # face x_axis = +1 (−1 is its antipode)
        faces.append(pts)
    P = np.concatenate(faces)
    P /= np.linalg.norm(P, axis=1, keepdims=True)
    # canonical sign: first nonzero coordinate positive
    first = np.argmax(np.abs(P) > 1e-12, axis=1)
    P *= np.sign(P[np.arange(P.shape[0]), first])[:, None]
    P = np.unique(np.round(P, 12), axis=0)
    return P


def _net_points_upper(r: int, epsilon: float) -> int:
    """Number of grid points :func:`epsilon_net` starts from (before removing duplicates)."""
    if r == 1:
        return 1
    m = int(math.ceil(2.0 / (epsilon / math.sqrt(r - 1)))) + 1
    return r * m ** (r - 1)


def _net_size(N: int, k: int, interchangeable: bool) -> int:
    return math.comb(N + k - 1, k) if interchangeable else N**k


def _net_batches(net: np.ndarray, k: int, interchangeable: bool, batch: int):
    it = (itertools.combinations_with_replacement(range(net.shape[0]), k) if interchangeable
          else itertools.product(range(net.shape[0]), repeat=k))
    while True:
        chunk = list(itertools.islice(it, batch))
        if not chunk:
            return
        idx = np.asarray(chunk, dtype=np.intp)  # (b, k)
        yield np.transpose(net[idx], (0, 2, 1))  # (b, r, k)


def _principal_directions(r: int) -> np.ndarray:
    """Eigen-directions e_a and their ±45° mixtures (e_a ± e_b)/√2, as columns (r, m)."""
    E = np.eye(r)
    mix = [(E[:, a] + sg * E[:, b]) / math.sqrt(2)
           for a in range(r) for b in range(a + 1, r) for sg in (1.0, -1.0)]
    return np.column_stack([E] + mix)


def _pca_candidates(r: int, k: int) -> np.ndarray:
    """Deterministic candidates built from the principal directions, shape (m, r, k)."""
    I = np.eye(r)
    dirs = _principal_directions(r)
    n = dirs.shape[1]
    half = (k + 1) // 2
    cands = [
        I[:, np.arange(k) % r],  # component j along eigenvector j (cyclic)
        np.repeat(I[:, :1], k, axis=1),  # every component along the first eigenvector
        dirs[:, np.arange(k) % n],  # eigenvectors, then their mixtures
        # the first eigenvector for half the components, mixtures for the rest
        np.column_stack([np.repeat(I[:, :1], half, axis=1),
                         dirs[:, r + np.arange(k - half) % max(n - r, 1)] if n > r
                         else np.repeat(I[:, :1], k - half, axis=1)]),
    ]
    return np.stack(cands)


def _random_candidates(rng, b: int, r: int, k: int, dirs: np.ndarray | None) -> np.ndarray:
    """Uniform samples from the product of unit spheres; a few columns are principal
    directions or their mixtures (``dirs``) to mix PCA structure into the search."""
    C = rng.standard_normal((b, r, k))
    C /= np.linalg.norm(C, axis=1, keepdims=True)
    if dirs is not None and b >= 8:
        m = b // 8  # one eighth of the batch: columns drawn from the principal directions
        pick = rng.integers(0, dirs.shape[1], size=(m, k))
        C[:m] = np.transpose(dirs[:, pick], (1, 0, 2))
    return C


# ---------------------------------------------------------------------------------------
# matching
# ---------------------------------------------------------------------------------------
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
    def _ssp_batch(Vs, nrm2, C, caps, out, okflag, scanned):  # pragma: no cover - compiled
        """Supports of a batch of candidates by exact maximum-weight matchings.

        ``Vs`` (p, r): the sketch rows sorted by decreasing squared norm ``nrm2``; ``C``
        (B, r, k) candidates; W_ia = Vs[i]·C[:, a] and W_ia² ≤ nrm2[i]. For each column the
        top-S variables (S = Σ caps) are found scanning rows in norm order with a min-heap,
        stopping once the heap's minimum reaches the next row's norm bound (exact). The
        matching on the union of these lists — a transportation problem with k sources of
        capacity caps[a] — is solved by successive largest-gain augmenting paths: a column
        with a free slot takes a variable from column b, b takes one from c, ..., the last
        takes a free variable. Only the best variable per ordered pair of columns matters
        (kept incrementally in g), so each path search is Bellman–Ford over k nodes.

        ``out[b]``: matched row positions (into Vs), grouped by column; ``okflag[b]`` 0 if
        candidate b hit a numerical inconsistency (the caller redoes it with scipy);
        ``scanned[b]``: rows scanned.
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
        NEG = -np.inf
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
                    g[a, b] = NEG
                    gi[a, b] = -1
            ok = True
            # 2. successive largest-gain augmenting paths
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


def _match_rows(Vs: np.ndarray, nrm2: np.ndarray, C: np.ndarray, caps: np.ndarray,
                matcher: str, scanned: np.ndarray | None = None) -> np.ndarray:
    """Supports for a batch: W = Vs·C_b (rows of Vs sorted by decreasing norm ``nrm2``,
    C (b, r, k) with unit columns) → matched row positions (b, S), grouped by column
    (caps[0] rows of column 0, then column 1, ...)."""
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
    """
    W = np.asarray(W, dtype=float)
    if W.ndim != 2:
        raise InvalidParameterError(f"parameter 'W' must be 2-D (p, k); got shape {W.shape}.")
    caps = _check_cardinalities(cardinalities, W.shape[0])
    if caps.size != W.shape[1]:
        raise InvalidParameterError(
            f"parameter 'cardinalities' has {caps.size} entries but W has {W.shape[1]} columns.")
    return _match_matrix(W, caps, _resolve_matcher(matcher))


def _match_matrix(W: np.ndarray, caps: np.ndarray, matcher: str) -> list[np.ndarray]:
    """:func:`match_supports` without the checks: W = W·I with rows sorted by norm."""
    nrm2 = np.einsum("ij,ij->i", W, W)
    order = np.argsort(-nrm2, kind="stable")
    out = _match_rows(W[order], nrm2[order], np.eye(W.shape[1])[None], caps, matcher)[0]
    out = order[out]
    offs = np.concatenate([[0], np.cumsum(caps)])
    return [np.sort(out[offs[j]:offs[j + 1]]) for j in range(caps.size)]


def _resolve_matcher(matcher: str) -> str:
    if matcher == "auto":
        return "ssp" if _HAVE_NUMBA else "lsa"
    if matcher == "ssp" and not _HAVE_NUMBA:  # pragma: no cover
        raise InvalidParameterError("bipartite: matcher='ssp' needs numba; use matcher='lsa'.")
    return matcher


# ---------------------------------------------------------------------------------------
# objective on the true operator: a growing cache of Σ[P, P]
# ---------------------------------------------------------------------------------------
class _Gram:
    """Principal submatrix Σ[P, P] over a growing pool P of variables."""

    def __init__(self, op: Operator, max_size: int):
        self.op = op
        p = op.n_features
        self.pos = np.full(p, -1, dtype=np.intp)
        self.idx = np.zeros(0, dtype=np.intp)
        self.max_size = max_size
        self.G = np.zeros((0, 0))
        self._buf = np.zeros((0, 0))
        if p <= max_size and p <= DENSE_MAX_FEATURES:
            self._grow(np.arange(p))

    @property
    def size(self) -> int:
        return self.idx.size

    def _grow(self, new: np.ndarray):
        n0, n1 = self.size, self.size + new.size
        if n1 > self._buf.shape[0]:
            cap = max(n1, min(self.max_size, 2 * self._buf.shape[0] + 64))
            buf = np.zeros((cap, cap))
            buf[:n0, :n0] = self._buf[:n0, :n0]
            self._buf = buf
        if n0 == 0:
            blk = self.op.block(new)
            self._buf[:n1, :n1] = 0.5 * (blk + blk.T)
        else:
            cross = self.op.columns(new)  # p × n_new
            self._buf[:n0, n0:n1] = cross[self.idx]
            self._buf[n0:n1, :n0] = cross[self.idx].T
            cc = cross[new]
            self._buf[n0:n1, n0:n1] = 0.5 * (cc + cc.T)
        self.pos[new] = np.arange(n0, n1)
        self.idx = np.concatenate([self.idx, new])
        self.G = self._buf[:n1, :n1]

    def ensure(self, idx) -> bool:
        """Add the variables ``idx`` to the pool; False when the pool would be too large."""
        idx = np.asarray(idx, dtype=np.intp).ravel()
        new = np.unique(idx[self.pos[idx] < 0])
        if new.size == 0:
            return True
        if self.size + new.size > self.max_size:
            return False
        self._grow(new)
        return True

    def sub(self, idx) -> np.ndarray:
        """Σ[idx, idx] for pooled idx of shape (..., m) → (..., m, m)."""
        P = self.pos[np.asarray(idx, dtype=np.intp)]
        return self.G[P[..., :, None], P[..., None, :]]


def _objectives(gram: _Gram, op: Operator, supp: np.ndarray, vals: np.ndarray,
                caps: np.ndarray) -> np.ndarray:
    """Per-component x_jᵀΣx_j for a batch: supp/vals (b, S) grouped by column → (b, k)."""
    b = supp.shape[0]
    k = caps.size
    offs = np.concatenate([[0], np.cumsum(caps)])
    out = np.empty((b, k))
    inpool = gram.ensure(supp)
    ok = np.ones(b, dtype=bool) if inpool else (gram.pos[supp] >= 0).all(axis=1)
    if ok.any():
        for j in range(k):
            I = supp[ok, offs[j]:offs[j + 1]]
            x = vals[ok, offs[j]:offs[j + 1]]
            out[ok, j] = np.einsum("bi,bij,bj->b", x, gram.sub(I), x)
    if not ok.all():
        # pool full: dense loadings through the operator (slower, exact)
        rest = np.flatnonzero(~ok)
        X = np.zeros((op.n_features, rest.size * k))
        cols = np.repeat(np.arange(k), caps)
        for t, c in enumerate(rest):
            X[supp[c], t * k + cols] = vals[c]
        out[rest] = np.asarray(op.quad(X), dtype=float).reshape(rest.size, k)
    return out


def _normalize_segments(vals: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Normalize each column's segment of ``vals`` (b, S) to unit norm (in place)."""
    offs = np.concatenate([[0], np.cumsum(caps)])
    for j in range(caps.size):
        seg = vals[:, offs[j]:offs[j + 1]]
        nrm = np.linalg.norm(seg, axis=1, keepdims=True)
        zero = nrm[:, 0] <= 1e-300
        seg[~zero] /= nrm[~zero]
        seg[zero] = 1.0 / math.sqrt(caps[j])  # W_j vanishes on its support: any unit vector
    return vals


class _Search:
    """Evaluates batches of candidate matrices C (b, r, k) against the sketch V = UΛ^½:
    supports by matching, loadings W_j|I_j normalized, objective on the true operator."""

    def __init__(self, V, caps, matcher, gram, op, n_keep=1):
        self.V, self.caps, self.matcher, self.gram, self.op = V, caps, matcher, gram, op
        self.k, self.S = caps.size, int(caps.sum())
        self.n_keep = n_keep
        self.top = []  # (value, supp, signature): good solutions from different basins
        self.offs = np.concatenate([[0], np.cumsum(caps)])
        self.interchangeable = bool(np.all(caps == caps[0]))
        nrm2 = np.einsum("ij,ij->i", V, V)
        self.order = np.argsort(-nrm2, kind="stable")
        self.Vs = np.ascontiguousarray(V[self.order])
        self.nrm2 = np.ascontiguousarray(nrm2[self.order])
        self.cols = np.repeat(np.arange(self.k), caps)
        self.n_eval = 0
        self.rows_scanned = 0
        self.best = {"value": -np.inf, "supp": None, "vals": None, "sketch": None, "C": None}

    def evaluate(self, C) -> np.ndarray:
        """Objective of each candidate of the batch (b,); keeps the best."""
        b = C.shape[0]
        scanned = np.zeros(b, dtype=np.int64)
        supp = self.order[_match_rows(self.Vs, self.nrm2, C, self.caps, self.matcher, scanned)]
        self.rows_scanned = max(self.rows_scanned, int(scanned.max()))
        raw = np.einsum("bsr,brs->bs", self.V[supp], C[:, :, self.cols])  # W_ij on the supports
        sketch = np.einsum("bs,bs->b", raw, raw)
        vals = _normalize_segments(raw.copy(), self.caps)
        obj = _objectives(self.gram, self.op, supp, vals, self.caps).sum(axis=1)
        self.n_eval += b
        t = int(np.argmax(obj))
        if obj[t] > self.best["value"]:
            self.best.update(value=float(obj[t]), supp=supp[t].copy(), vals=vals[t].copy(),
                             sketch=float(sketch[t]), C=C[t].copy())
        if self.n_keep > 1:
            self._keep_diverse(obj, supp)
        return obj

    def _keep_diverse(self, obj, supp):
        """Keep up to ``n_keep`` good solutions from different basins: a solution whose
        assignment agrees on more than ``DIVERSITY_OVERLAP`` of the slots with a better
        kept one (after the best matching of the columns) is dropped, since the refinement
        would likely take both to the same local optimum."""
        floor = self.top[-1][0] if len(self.top) >= self.n_keep else -np.inf
        lim = DIVERSITY_OVERLAP * self.S
        for t in np.argsort(-obj)[: self.n_keep]:
            v = float(obj[t])
            if v <= floor:
                break
            sig = self._signature(supp[t])
            close = [i for i, e in enumerate(self.top) if self._agreement(e[2], sig) > lim]
            if any(self.top[i][0] >= v for i in close):
                continue
            self.top = [e for i, e in enumerate(self.top) if i not in close]
            self.top.append((v, supp[t].copy(), sig))
            self.top.sort(key=lambda e: -e[0])
            del self.top[self.n_keep:]
            floor = self.top[-1][0] if len(self.top) >= self.n_keep else -np.inf

    def _signature(self, supp):
        order = np.argsort(supp, kind="stable")
        return supp[order], self.cols[order]

    def _agreement(self, a, b) -> int:
        """Slots on which two solutions agree, columns matched at best (equal caps) or as given."""
        _, ia, ib = np.intersect1d(a[0], b[0], assume_unique=True, return_indices=True)
        if not self.interchangeable:
            return int(np.count_nonzero(a[1][ia] == b[1][ib]))
        M = np.zeros((self.k, self.k), dtype=np.int64)
        np.add.at(M, (a[1][ia], b[1][ib]), 1)
        r, c = linear_sum_assignment(M, maximize=True)
        return int(M[r, c].sum())

    def distinct(self):
        """The kept solutions, best first: list of (value, supports list)."""
        if self.n_keep <= 1 or not self.top:
            s = self.best["supp"]
            return [(self.best["value"],
                     [s[self.offs[j]:self.offs[j + 1]] for j in range(self.k)])]
        return [(v, [s[self.offs[j]:self.offs[j + 1]] for j in range(self.k)])
                for v, s, _ in self.top]


# ---------------------------------------------------------------------------------------
# local improvement
# ---------------------------------------------------------------------------------------
class _State:
    """k disjoint supports with polished loadings and their exact variances."""

    def __init__(self, supports, gram: _Gram):
        self.gram = gram
        self.supports = [np.sort(np.asarray(I, dtype=np.intp)) for I in supports]
        self.x = [None] * len(self.supports)
        self.lam = np.zeros(len(self.supports))
        for j in range(len(self.supports)):
            self._polish(j)

    def _polish(self, j):
        I = self.supports[j]
        ok = self.gram.ensure(I)
        B = self.gram.sub(I) if ok else self.gram.op.block(I)
        if I.size == 1:
            self.lam[j], self.x[j] = float(B[0, 0]), np.ones(1)
            return
        w, v = sla.eigh(B, subset_by_index=[I.size - 1, I.size - 1], driver="evr")
        self.lam[j], self.x[j] = float(w[0]), v[:, 0]

    @property
    def value(self) -> float:
        return float(self.lam.sum())

    def dense(self, p: int) -> np.ndarray:
        X = np.zeros((p, len(self.supports)))
        for j, I in enumerate(self.supports):
            X[I, j] = self.x[j]
        return X


def _rematch(state: _State, op: Operator, caps, matcher, SX: np.ndarray):
    """One re-matching step with w_j = Σx_j/√λ_j; returns a better _State or None."""
    lam = np.maximum(state.lam, 1e-300)
    new = _match_matrix(SX / np.sqrt(lam), caps, matcher)
    if all(np.array_equal(a, b) for a, b in zip(new, state.supports)):
        return None
    cand = _State(new, state.gram)
    return cand if cand.value > state.value * (1 + 1e-12) + 1e-300 else None


def _swap_round(state: _State, op: Operator, SX: np.ndarray, n_replace: int = 16,
                n_swap: int = 8, n_exact: int = 96):
    """Try variable exchanges between supports and with unused variables.

    Returns the number of moves applied (0 when none improves)."""
    k = len(state.supports)
    p = op.n_features
    lam = state.lam
    used = np.concatenate(state.supports)
    owner = np.full(p, -1, dtype=np.intp)
    for j, I in enumerate(state.supports):
        owner[I] = j
    Cols = op.columns(used)  # p × S : Σ[:, used]
    colpos = np.full(p, -1, dtype=np.intp)
    colpos[used] = np.arange(used.size)
    dg = op.diag()
    moves = []  # (lower-bound gain, kind, a, q, b, q2_or_u)
    LB = []  # per component: (s_a, p) lower bounds on λmax(Σ[I_a − i_q + v])
    for a, I in enumerate(state.supports):
        x = state.x[a]
        sx = SX[:, a]  # Σ x_a on all variables
        Ci = Cols[:, colpos[I]]  # p × s_a: Σ[:, i_q]
        nu2 = np.clip(1.0 - x**2, 0.0, None)  # ‖x − x_q e_q‖²
        # uᵀΣu for u = x − x_q e_q
        aa = lam[a] * (1 - 2 * x**2) + x**2 * dg[I]
        bb = sx[:, None] - Ci * x[None, :]  # uᵀΣe_v, (p, s_a)
        with np.errstate(divide="ignore", invalid="ignore"):
            nu = np.sqrt(nu2)
            an = np.where(nu2 > 1e-12, aa / np.where(nu2 > 1e-12, nu2, 1), 0.0)
            bn = np.where(nu2[None, :] > 1e-12, bb / np.where(nu > 1e-6, nu, 1)[None, :], 0.0)
        c = dg[:, None]
        half = 0.5 * (an[None, :] - c)
        lb = 0.5 * (an[None, :] + c) + np.sqrt(half**2 + bn**2)  # (p, s_a)
        lb[I, :] = -np.inf
        LB.append(lb.T)
    # replacements by unused variables
    unused = owner < 0
    for a, I in enumerate(state.supports):
        g = LB[a][:, unused] - lam[a]  # (s_a, n_unused)
        uid = np.flatnonzero(unused)
        m = min(g.size, n_replace)
        flat = np.argpartition(-g.ravel(), m - 1)[:m] if g.size > m else np.arange(g.size)
        for f in flat:
            q, t = divmod(int(f), g.shape[1])
            moves.append((float(g[q, t]), 0, a, q, -1, int(uid[t])))
    # exchanges between components
    for a in range(k):
        for b in range(a + 1, k):
            Ia, Ib = state.supports[a], state.supports[b]
            g = LB[a][:, Ib] + LB[b][:, Ia].T - lam[a] - lam[b]  # (s_a, s_b)
            m = min(g.size, n_swap)
            flat = np.argpartition(-g.ravel(), m - 1)[:m] if g.size > m else np.arange(g.size)
            for f in flat:
                q, q2 = divmod(int(f), g.shape[1])
                moves.append((float(g[q, q2]), 1, a, q, b, q2))
    if not moves:
        return 0
    moves.sort(key=lambda m: -m[0])
    moves = moves[:n_exact]
    # exact evaluation
    new_sets = []
    for _, kind, a, q, b, v in moves:
        Ia = state.supports[a].copy()
        if kind == 0:
            Ia[q] = v
            new_sets.append((Ia,))
        else:
            Ib = state.supports[b].copy()
            ia, ib = Ia[q], Ib[v]
            Ia[q], Ib[v] = ib, ia
            new_sets.append((Ia, Ib))
    allidx = np.concatenate([np.concatenate(t) for t in new_sets])
    gram = state.gram
    inpool = gram.ensure(allidx)

    def lmax(I):
        B = gram.sub(I) if inpool else op.block(I)
        return float(np.linalg.eigvalsh(B)[-1]) if I.size > 1 else float(B[0, 0])

    gains = []
    for (_, kind, a, q, b, v), sets in zip(moves, new_sets):
        if kind == 0:
            gain = lmax(sets[0]) - lam[a]
        else:
            gain = lmax(sets[0]) + lmax(sets[1]) - lam[a] - lam[b]
        gains.append(gain)
    order = np.argsort(gains)[::-1]
    touched, used_new = set(), set()
    applied = 0
    tol = 1e-10 * max(state.value, 1e-300)
    for t in order:
        gain = gains[t]
        if gain <= tol:
            break
        _, kind, a, q, b, v = moves[t]
        comps = {a} if kind == 0 else {a, b}
        if comps & touched or (kind == 0 and v in used_new):
            continue
        sets = new_sets[t]
        state.supports[a] = np.sort(sets[0])
        if kind == 1:
            state.supports[b] = np.sort(sets[1])
        else:
            used_new.add(v)
        for j in comps:
            state._polish(j)
        touched |= comps
        applied += 1
    return applied


def _refine(state: _State, op: Operator, caps, matcher, deadline, max_rounds=500):
    stats = {"rematches": 0, "swaps": 0, "rounds": 0, "before": state.value}
    p = op.n_features
    for _ in range(max_rounds):
        stats["rounds"] += 1
        SX = op.matmat(state.dense(p))
        nxt = _rematch(state, op, caps, matcher, SX)
        if nxt is not None:
            state = nxt
            stats["rematches"] += 1
            if time.perf_counter() > deadline:
                break
            continue
        if time.perf_counter() > deadline:
            break
        n = _swap_round(state, op, SX)
        stats["swaps"] += n
        if n == 0:
            stats["converged"] = True
            break
        if time.perf_counter() > deadline:
            break
    stats.setdefault("converged", False)
    stats["after"] = state.value
    return state, stats


# ---------------------------------------------------------------------------------------
# the joint method
def _warn_if_stopped(stopped, time_budget, n_eval) -> bool:
    if stopped:
        import warnings

        warnings.warn(f"bipartite: stopped by the time budget ({time_budget:g} s) after {n_eval} "
                      "candidates; returning the best components so far.", RuntimeWarning,
                      stacklevel=3)
    return bool(stopped)


# ---------------------------------------------------------------------------------------
@register_joint("bipartite", summary="Joint disjoint components by bipartite matchings on a "
                                      "low-rank sketch (Asteris et al. 2015), locally improved.")
def bipartite(op: Operator, cardinalities, *, rank=None, n_candidates=None, epsilon=None,
              time_budget=None, refine=True, n_refine=8, sampling="adaptive", batch_size=256,
              sketch="auto", matcher="auto", random_state=None,
              max_time=None) -> list[ComponentResult]:
    """Sparse components with pairwise disjoint supports, found jointly.

    Parameters
    ----------
    op : Operator
        The matrix Σ (p × p, positive semidefinite).
    cardinalities : list of int
        Nonzeros of each component (one entry per component; may differ). Their sum
        must not exceed ``n_features``.
    rank : int, default=None
        Rank r of the sketch Σ ≈ UΛUᵀ; None means min(4, the largest rank allowed).
        At most ``n_features`` and, for data operators, ``n_samples`` (``n_samples − 1``
        when centered).
    n_candidates : int, default=None
        Number of random candidate matrices C (besides the PCA-derived ones). None
        means 20000, or the whole ε-net when ``epsilon`` is given.
    epsilon : float in (0, 1), default=None
        Enumerate an ε/2-net of the product of unit hemispheres instead of sampling:
        the result is then within a factor (1 − ε) of the optimum for the sketch (exact
        for ``rank`` = rank of Σ). Exponential in rank × n_components; refused when the
        net has more than 5·10⁷ points. Exclusive with ``n_candidates``.
    time_budget : float > 0, default=None
        Seconds for the whole call; the candidate search stops early (80% of the budget
        when ``refine``), the refinement stops at the deadline. None: no limit. When
        it stops the search early, a RuntimeWarning says so.
    max_time : float > 0, default=None
        The same budget under the name the other methods use (exclusive with
        ``time_budget``).
    refine : bool, default=True
        Run the monotone local improvement (polish, re-match on Σ, swaps) on the best
        candidate.
    n_refine : int, default=8
        Number of candidates refined: the best ones from different basins (a candidate
        agreeing on more than 75% of the slots with a better kept one is skipped). The
        best refined solution is returned.
    sampling : {"adaptive", "uniform"}, default="adaptive"
        How random candidates are drawn. "uniform": independent uniform points of the
        product of spheres (the paper). "adaptive": the first quarter uniform, then three
        quarters of each batch are perturbations (scales 0.3, 0.1, 0.03) of the 16 best
        candidates so far and one quarter uniform. Ignored with ``epsilon``.
    batch_size : int, default=256
        Candidates evaluated together (vectorized).
    sketch : {"auto", "dense", "eigsh", "randomized"}, default="auto"
        How the top-r eigenpairs are computed ("auto": dense up to 1000 features, else
        ``scipy.sparse.linalg.eigsh``).
    matcher : {"auto", "ssp", "lsa"}, default="auto"
        Matching solver: the numba transportation solver ("ssp") or scipy's
        ``linear_sum_assignment`` on the pruned graph ("lsa"). Both are exact.
    random_state : None, int or Generator

    Returns
    -------
    list of ComponentResult
        One per component, loadings on ``op``'s features, pairwise disjoint supports of
        the requested sizes. With equal cardinalities they are sorted by decreasing
        variance; otherwise component j has cardinality ``cardinalities[j]``. Each
        ``info`` holds the run's summary (objective, unrefined objective, sketch,
        candidates evaluated, timings, refinement statistics).
    """
    t0 = time.perf_counter()
    if not isinstance(op, Operator):
        raise InvalidParameterError(
            f"bipartite: parameter 'op' must be an eigensparse Operator; got {type(op).__name__}.")
    p = int(op.n_features)
    caps = _check_cardinalities(cardinalities, p)
    k = caps.size
    validate_params(
        {"rank": rank, "n_candidates": n_candidates, "epsilon": epsilon,
         "time_budget": time_budget, "max_time": max_time, "refine": refine, "n_refine": n_refine,
         "sampling": sampling, "batch_size": batch_size, "sketch": sketch, "matcher": matcher},
        {"rank": [None, Interval("int", 1, None)],
         "n_candidates": [None, Interval("int", 1, None)],
         "epsilon": [None, Interval("real", 0, 1, closed="neither")],
         "time_budget": [None, Interval("real", 0, None, closed="neither")],
         "max_time": [None, Interval("real", 0, None, closed="neither")],
         "refine": [bool], "n_refine": [Interval("int", 1, None)],
         "sampling": [Options(_SAMPLINGS)],
         "batch_size": [Interval("int", 1, None)],
         "sketch": [Options(_SKETCHES)], "matcher": [Options(_MATCHERS)]},
        where="bipartite",
    )
    if max_time is not None:
        if time_budget is not None:
            raise InvalidParameterError("bipartite: give 'max_time' or 'time_budget', not both.")
        time_budget = max_time
    max_rank = _max_rank(op)
    if rank is None:
        rank = min(4, max_rank)
    elif rank > max_rank:
        n = op.n_samples
        why = (f"n_features={p}" if n is None or max_rank == p else
               f"the data allow at most {max_rank} (n_samples={n}"
               + (", centered)" if max_rank == n - 1 else ")"))
        raise InvalidParameterError(
            f"bipartite: parameter 'rank' must be <= {max_rank} ({why}); got {rank}.")
    if epsilon is not None and n_candidates is not None:
        raise InvalidParameterError(
            "bipartite: give either 'epsilon' (enumerate an ε-net) or 'n_candidates' (random "
            f"sampling), not both; got epsilon={epsilon!r}, n_candidates={n_candidates!r}.")
    matcher = _resolve_matcher(matcher)
    rng = check_random_state(random_state)
    interchangeable = bool(np.all(caps == caps[0]))
    net = None
    if epsilon is not None:
        n_pts = _net_points_upper(rank, float(epsilon))
        n_net = _net_size(n_pts, k, interchangeable)
        if n_pts <= MAX_NET_POINTS and n_net <= 4 * MAX_NET_CANDIDATES:  # estimates; now exact
            net = epsilon_net(rank, float(epsilon))
            n_net = _net_size(net.shape[0], k, interchangeable)
        if net is None or n_net > MAX_NET_CANDIDATES:
            raise InvalidParameterError(
                f"bipartite: parameter 'epsilon'={epsilon} gives an ε-net of {n_net:.3g} "
                f"candidate matrices for rank={rank} and {k} components (more than "
                f"{MAX_NET_CANDIDATES:.0e}); use a larger epsilon, a smaller rank, or random "
                "sampling with n_candidates=.")
    deadline = math.inf if time_budget is None else t0 + float(time_budget)
    search_deadline = (math.inf if time_budget is None
                       else t0 + float(time_budget) * (0.8 if refine else 1.0))

    # 1. sketch
    lam, U, lam_next, sketch_used = _sketch(op, rank, sketch, rng)
    V = U * np.sqrt(lam)  # p × r
    t_sketch = time.perf_counter() - t0

    # 2–4. candidates, matchings, true objective
    gram = _Gram(op, MAX_GRAM)
    offs = np.concatenate([[0], np.cumsum(caps)])
    search = _Search(V, caps, matcher, gram, op, n_keep=n_refine if refine else 1)
    stopped = False

    pca = _pca_candidates(rank, k)
    search.evaluate(pca)
    dirs = _principal_directions(rank)
    if net is not None:
        total = n_net
        for C in _net_batches(net, k, interchangeable, batch_size):
            if time.perf_counter() > search_deadline:
                stopped = True
                break
            search.evaluate(C)
    else:
        total = DEFAULT_N_CANDIDATES if n_candidates is None else int(n_candidates)
        n_explore = total if sampling == "uniform" else min(total, max(batch_size, total // 4))
        elite_C = np.zeros((0, rank, k))
        elite_v = np.zeros(0)
        left = total
        while left > 0:
            if time.perf_counter() > search_deadline:
                stopped = True
                break
            b = min(batch_size, left)
            if total - left < n_explore or elite_v.size == 0:
                C = _random_candidates(rng, b, rank, k, dirs)
            else:
                # adaptive: a quarter uniform, the rest perturbations of the elite candidates
                C = _random_candidates(rng, b, rank, k, dirs)
                m = b - b // 4
                pick = rng.integers(0, elite_v.size, size=m)
                sig = rng.choice(_PERTURB, size=m)
                P = elite_C[pick] + sig[:, None, None] * rng.standard_normal((m, rank, k))
                P /= np.maximum(np.linalg.norm(P, axis=1, keepdims=True), 1e-300)
                C[:m] = P
            obj = search.evaluate(C)
            left -= b
            if sampling == "adaptive":
                allv = np.concatenate([elite_v, obj])
                allC = np.concatenate([elite_C, C])
                keep = np.argsort(-allv, kind="stable")[:_N_ELITE]
                elite_v, elite_C = allv[keep], allC[keep]
    t_search = time.perf_counter() - t0

    best = search.best
    n_eval = search.n_eval
    supports = [np.sort(best["supp"][offs[j]:offs[j + 1]]) for j in range(k)]
    # paper's loadings (W_j on I_j, normalized)
    X = np.zeros((p, k))
    for j in range(k):
        seg = slice(offs[j], offs[j + 1])
        X[best["supp"][seg], j] = best["vals"][seg]
    paper_value = best["value"]
    refine_stats = None
    if refine:
        state, refine_stats = None, []
        for _, supp_list in search.distinct():
            st, stats = _refine(_State(supp_list, gram), op, caps, matcher, deadline)
            refine_stats.append(stats)
            if state is None or st.value > state.value:
                state = st
            if time.perf_counter() > deadline:
                break
        X = state.dense(p)
        variances = state.lam.copy()
    else:
        variances = np.asarray(op.quad(X), dtype=float).reshape(k)
    elapsed = time.perf_counter() - t0

    info = {
        "objective": float(variances.sum()),
        "objective_unrefined": float(paper_value),
        "sketch_objective": best["sketch"],
        "rank": int(rank),
        "sketch": sketch_used,
        "sketch_eigenvalues": lam.copy(),
        "next_eigenvalue": lam_next,
        "n_candidates_evaluated": int(n_eval),
        "n_candidates_planned": int(total + pca.shape[0]),
        "max_rows_scanned": int(search.rows_scanned),
        "gram_size": int(gram.size),
        "search": "epsilon-net" if net is not None else sampling,
        "epsilon": epsilon,
        "stopped_early": _warn_if_stopped(stopped, time_budget, n_eval),
        "matcher": matcher,
        "time_sketch": t_sketch,
        "time_search": t_search,
        "time_total": elapsed,
        "refine": refine_stats,
    }
    final_supports = state.supports if refine else supports
    # equal cardinalities: report by decreasing variance; otherwise keep the given order
    order = (np.argsort(-variances, kind="stable") if interchangeable else np.arange(k))
    results = []
    for j in order:
        x = fix_sign(X[:, j])
        supp_j = np.sort(final_supports[j])  # the chosen support (a loading may be exactly 0)
        results.append(ComponentResult(
            loadings=x, support=supp_j, variance=float(variances[j]), method="bipartite",
            n_iter=int(n_eval), converged=not stopped,
            message=("time budget reached; best candidate so far" if stopped else
                     "all candidates evaluated"),
            info=dict(info, component=int(j), cardinality=int(caps[j])),
        ))
    return results
