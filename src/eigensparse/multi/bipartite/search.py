"""Step 4 of the bipartite method: candidates evaluated by their true objective Tr(XᵀΣX)
(through a growing cache of Σ[P, P], :class:`_Gram`), the best kept, and a few good
solutions from different basins for the refinement."""
from __future__ import annotations

import math

import numpy as np

from ...operators import Operator
from .candidates import net_batches, principal_directions, random_candidates
from .matching import match_rows
from .sketch import DENSE_MAX_FEATURES

__all__ = ["MAX_GRAM", "DEFAULT_N_CANDIDATES"]

#: default number of random candidate matrices
DEFAULT_N_CANDIDATES = 20_000
#: largest principal submatrix of Σ kept in memory for the objective (doubles: 8·n² bytes)
MAX_GRAM = 4096
#: adaptive sampling: elite candidates kept, and the perturbation scales around them
_N_ELITE = 16
_PERTURB = np.array([0.3, 0.1, 0.03])
#: solutions kept for refinement agree on at most this fraction of their slots
DIVERSITY_OVERLAP = 0.75


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


class _CandidateSearch:
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
        supp = self.order[match_rows(self.Vs, self.nrm2, C, self.caps, self.matcher, scanned)]
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
        from scipy.optimize import linear_sum_assignment  # scipy.optimize: only when used

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


def _search_net(search, net, k, interchangeable, batch_size, deadline) -> bool:
    """Evaluate every candidate of the ε-net; True when the deadline stopped it."""
    for C in net_batches(net, k, interchangeable, batch_size):
        if deadline.passed():
            return True
        search.evaluate(C)
    return False


def _search_random(search, rng, total, rank, k, sampling, batch_size, deadline) -> bool:
    """Evaluate ``total`` random candidates, uniform or adaptive (after a uniform first
    quarter, three quarters of each batch perturb the elite candidates so far); True when
    the deadline stopped it."""
    dirs = principal_directions(rank)
    n_explore = total if sampling == "uniform" else min(total, max(batch_size, total // 4))
    elite_C = np.zeros((0, rank, k))
    elite_v = np.zeros(0)
    left = total
    while left > 0:
        if deadline.passed():
            return True
        b = min(batch_size, left)
        C = random_candidates(rng, b, rank, k, dirs)
        if total - left >= n_explore and elite_v.size:
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
    return False
