"""Step 1 of the bipartite method: the low-rank sketch Σ ≈ UΛUᵀ (V = UΛ^½, p × r)."""
from __future__ import annotations

import numpy as np

from ...operators import Operator

__all__ = ["DENSE_MAX_FEATURES", "max_sketch_rank", "sketch_operator"]

#: up to this many features the sketch is a dense eigendecomposition of Σ
DENSE_MAX_FEATURES = 1000


def max_sketch_rank(op: Operator) -> int:
    """Largest sketch rank the data allow: p, and n (n − 1 when centered) for data.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance, DenseData
    >>> from eigensparse.multi.bipartite.sketch import max_sketch_rank
    >>> X = np.random.default_rng(0).standard_normal((3, 5))
    >>> max_sketch_rank(DenseData(X)), max_sketch_rank(Covariance(np.eye(4)))  # n − 1, p
    (2, 4)
    """
    p = int(op.n_features)
    n = op.n_samples
    if n is None:
        return p
    parent = getattr(op, "parent", None)
    centered = bool(getattr(op, "center", False) or getattr(parent, "center", False))
    return max(1, min(p, int(n) - (1 if centered else 0)))


def sketch_operator(op: Operator, rank: int, method: str, rng: np.random.Generator):
    """Top-``rank`` eigenpairs of Σ (descending), and λ_{r+1} when cheaply available.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.multi.bipartite.sketch import sketch_operator
    >>> S = Covariance(np.diag([4.0, 3.0, 2.0, 1.0]))
    >>> w, U, next_eigenvalue, how = sketch_operator(S, 2, "auto", np.random.default_rng(0))
    >>> w.tolist(), np.abs(U).round(4).tolist(), next_eigenvalue, how
    ([4.0, 3.0], [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]], 2.0, 'dense')
    """
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
            return sketch_operator(op, rank, "randomized", rng)
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
