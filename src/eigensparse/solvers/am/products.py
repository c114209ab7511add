"""The products of the AM loop: Σ·X and, for L1 variance, A·X and Aᵀ·Y, on a screened
working set of features when that is cheaper (:class:`_ScreenedProducts`), on the
operator's own arrays (NumPy or a device namespace, :class:`_LoopArrays`).
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

from ...operators import Operator
from .steps import to_host


class _LoopArrays:
    """The operations of the AM loop on the iterate blocks: NumPy (the expressions used
    for NumPy operators, unchanged) or the namespace of an operator that keeps its data
    on a device (``op.xp``). Per-start scalars are always NumPy."""

    def __init__(self, op):
        xp = getattr(op, "xp", None)
        self.numpy = xp is None or getattr(xp, "__name__", "numpy").split(".")[-1] == "numpy"
        self.xp = np if self.numpy else xp
        self.dtype = np.float64 if self.numpy else op.dtype
        self.device = None if self.numpy else op.device
        self.float32 = (not self.numpy) and self.dtype == xp.float32

    def asarray(self, A):
        """A host block (NumPy) as a block of the loop."""
        if self.numpy:
            return A
        return self.xp.asarray(np.ascontiguousarray(A), dtype=self.dtype, device=self.device)

    def hstack(self, A, B):
        if self.numpy:
            return np.asfortranarray(np.hstack([A, B]))
        return self.xp.concat([A, B], axis=1)

    def columns(self, X, keep, M):
        """``X[:M, keep]`` (keep: NumPy indices)."""
        if self.numpy:
            return np.asfortranarray(X[:M, keep])
        idx = self.xp.asarray(np.asarray(keep, dtype=np.int64), device=self.device)
        return self.xp.take(X[:M, ...], idx, axis=1)

    def same_support(self, X, Y) -> np.ndarray:
        if self.numpy:
            return np.all((X != 0) == (Y != 0), axis=0)
        return to_host(self.xp.all((X != 0) == (Y != 0), axis=0)).astype(bool)

    def col_norms(self, T):
        """Column norms: (on the loop's arrays, on the host)."""
        if self.numpy:
            nrm = np.sqrt(np.einsum("ij,ij->j", T, T))
            return nrm, nrm
        nrm = self.xp.sqrt(self.xp.sum(T * T, axis=0))
        return nrm, to_host(nrm)

    def divide_columns(self, T, nrm):
        return T / self.xp.where(nrm > 0, nrm, self.xp.ones_like(nrm)) if not self.numpy \
            else T / np.where(nrm > 0, nrm, 1.0)


class _ScreenedProducts:
    """Products with Σ (or A) for iterates stored over the features sorted by decreasing
    variance (row r of an iterate block is feature ``order[r]``).

    Each column has a *level* L: it lives on the first L sorted features (the working
    set). Levels ``<= cap`` use the cached dense block ``G = Σ[C, C]`` of the largest
    working set needed so far (one ``op.block`` call per growth); larger levels are
    stored as ``p`` and use full products (``op.matmat`` / ``op.dot`` / ``op.rdot``).
    """

    def __init__(self, op: Operator, d: np.ndarray, cap: int, m0: int, arrays=None):
        self.op = op
        self.arrays = arrays if arrays is not None else _LoopArrays(op)
        self.p = int(op.n_features)
        self.order = np.argsort(-d, kind="stable")
        self.root = np.sqrt(np.clip(d[self.order], 0.0, None))  # √Σ_ii, decreasing
        self.cap = int(cap)
        self.m0 = int(min(m0, self.p))
        self._G = None
        self.counts = {"matmat": 0, "dot": 0, "rdot": 0, "block": 0, "block_features": 0}

    # -- levels -------------------------------------------------------------------
    def level_for(self, n_rows: int) -> int:
        """Smallest level holding the first ``n_rows`` sorted features: m0·2^j, or p
        (full products) above ``cap``."""
        L = self.m0
        while L < n_rows:
            L *= 2
        L = min(L, self.p)
        return L if L <= self.cap else self.p

    def screened(self, L) -> np.ndarray:
        return np.asarray(L) <= self.cap

    def radius(self, L) -> np.ndarray:
        """Bound on |v_i| = |a_iᵀy| (‖y‖₂ = 1) off the working set of level L: √Σ_ii of
        the first feature left out (0 for full products or L = p)."""
        L = np.asarray(L)
        r = self.root[np.minimum(L, self.p - 1)]
        return np.where((L >= self.p) | ~self.screened(L), 0.0, r)

    # -- products -------------------------------------------------------------------
    def _ensure(self, L):
        if self._G is None or self._G.shape[0] < L:
            self._G = np.ascontiguousarray(self.op.block(self.order[:L]), dtype=float)
            self.counts["block"] += 1
            self.counts["block_features"] += int(L)

    def _embed(self, X):
        if not self.arrays.numpy:  # device blocks: all p rows (full products)
            return self.arrays.xp.take(X, self._device_index("inverse"), axis=0)
        Z = np.zeros((self.p, X.shape[1]))
        Z[self.order[: X.shape[0]]] = X
        return Z

    def _sorted(self, R):
        """Rows of a product in natural feature order -> sorted order."""
        if not self.arrays.numpy:
            return self.arrays.xp.take(R, self._device_index("order"), axis=0)
        return R[self.order]

    def _device_index(self, which):
        cache = self.__dict__.setdefault("_dev_idx", {})
        if which not in cache:
            idx = self.order if which == "order" else np.argsort(self.order, kind="stable")
            cache[which] = self.arrays.xp.asarray(idx.astype(np.int64), device=self.arrays.device)
        return cache[which]

    def full_sigma(self, X):
        self.counts["matmat"] += 1
        return self._sorted(self.op.matmat(self._embed(X)))

    def sigma(self, X, levels):
        """Σ·X restricted to each column's working set (rows past its level zero)."""
        if not self.arrays.numpy:  # device runs use full products only
            return self.full_sigma(X)
        M, w = X.shape
        W = np.zeros((M, w), order="F")
        scr = self.screened(levels)
        if not np.all(scr):
            cols = np.flatnonzero(~scr)
            W[:, cols] = self.full_sigma(X[:, cols])
        if np.any(scr):
            cols = np.flatnonzero(scr) if not np.all(scr) else slice(None)
            lv = levels[cols]
            self._ensure(int(np.max(lv)))
            K = min(M, self._G.shape[0])  # rows past a level are zero in X
            Xs = X[:K, cols]
            Ws = _sym_times(self._G, Xs)
            if np.any(lv < K):
                Ws[np.arange(K)[:, None] >= lv[None, :]] = 0.0
            W[:K, cols] = Ws
        return W

    def dot(self, X):
        self.counts["dot"] += 1
        return self.op.dot(self._embed(X))

    def rdot(self, Y):
        self.counts["rdot"] += 1
        return self._sorted(self.op.rdot(Y))

    def to_features(self, x: np.ndarray) -> np.ndarray:
        """A vector over the first ``len(x)`` sorted features, in natural order (p,)."""
        out = np.zeros(self.p)
        out[self.order[: x.size]] = x
        return out


def _sym_times(G: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``G[:K, :K] @ X`` for symmetric G and X of K rows; through a sparse product when
    X is sparse (the L0 iterates: cost nnz(X)·K instead of K²·b)."""
    K, w = X.shape
    Xt = np.ascontiguousarray(X.T)
    nz = np.nonzero(Xt)
    if nz[0].size >= 0.25 * Xt.size:
        return np.asfortranarray(G[:K, :K] @ X)
    indptr = np.zeros(w + 1, dtype=np.int64)
    np.cumsum(np.bincount(nz[0], minlength=w), out=indptr[1:])
    S = sparse.csr_matrix((Xt[nz], nz[1], indptr), shape=(w, G.shape[0]))
    return np.asarray(S @ G)[:, :K].T  # (XᵀG)ᵀ = GX, Fortran-ordered


class _LevelView:
    """The products seen by the variance piece for one block of columns."""

    def __init__(self, prod: _ScreenedProducts, levels):
        self.prod, self.levels = prod, levels

    def sigma(self, X):
        return self.prod.sigma(X, self.levels)

    def dot(self, X):
        return self.prod.dot(X)

    def rdot(self, Y):
        return self.prod.rdot(Y)
