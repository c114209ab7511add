"""What a penalty search over DSPCA relaxations needs besides the engines.

- :class:`PrefixBlocks`: dense principal blocks Σ[K, K] for K the k features of largest
  variance (the working set left by safe elimination), cached and grown by doubling,
  with a positive-semidefiniteness check for operators without a data square root;
- :func:`embed_warm_start`: an engine's state on k_old features carried to k_new;
- :func:`leading_support`: the component read off a relaxation's Z.
"""
from __future__ import annotations

import numpy as np

from .._linalg import fix_sign, top_eigh
from .._validation import InvalidParameterError
from ..operators import Operator

__all__ = ["PrefixBlocks", "embed_warm_start", "leading_support"]


class PrefixBlocks:
    """Dense principal blocks Σ[K, K] for prefixes K of the variance order (cached).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.relaxation import PrefixBlocks
    >>> blocks = PrefixBlocks(Covariance(np.diag([1.0, 3.0, 2.0])))
    >>> blocks.order.tolist(), blocks.n_kept(1.5), blocks.block(2).tolist()
    ([1, 2, 0], 2, [[3.0, 0.0], [0.0, 2.0]])
    """

    def __init__(self, op: Operator):
        self.op = op
        self.d = np.asarray(op.diag(), dtype=float)
        self.order = np.argsort(-self.d, kind="stable")
        self.dsorted = self.d[self.order]
        self.S = np.zeros((0, 0))
        self.psd_checked = 0
        self.check_psd = not op.has_data

    def n_kept(self, rho) -> int:
        return int(np.count_nonzero(self.dsorted > rho))

    def block(self, k) -> np.ndarray:
        if k > self.S.shape[0]:
            kk = max(k, min(2 * self.S.shape[0], self.d.size)) if self.S.shape[0] else k
            kk = min(kk, self.d.size)
            B = self.op.block(self.order[:kk])
            self.S = np.ascontiguousarray(0.5 * (B + B.T))
        S = self.S[:k, :k]
        if self.check_psd and k > self.psd_checked:
            w = np.linalg.eigvalsh(S)
            if w[0] < -1e-9 * max(abs(w[-1]), 1e-300) * max(1, k) ** 0.5:
                raise InvalidParameterError(
                    f"the covariance is not positive semidefinite: its principal block on the "
                    f"{k} features of largest variance has smallest eigenvalue {w[0]:.4g} "
                    f"(largest {w[-1]:.4g}); DSPCA needs a PSD covariance (use a sample "
                    "covariance, or add a multiple of the identity).")
            self.psd_checked = k
        return S


def embed_warm_start(state, k_old, k_new):
    """Warm-start state of a prefix of size k_old turned into one of size k_new: a block
    coordinate ascent state ``(X, V)`` (a tuple) or a first-order dual ``U`` (an array).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.relaxation import embed_warm_start
    >>> U = np.array([[-0.1, 0.1], [0.1, -0.1]])  # a first-order dual on 2 features
    >>> embed_warm_start(U, 2, 3).tolist()  # zero-padded to 3
    [[-0.1, 0.1, 0.0], [0.1, -0.1, 0.0], [0.0, 0.0, 0.0]]
    """
    if state is None:
        return None
    if isinstance(state, tuple):  # block coordinate ascent: the primal X and its V
        X, V = state
        if k_new <= k_old:
            return (X[:k_new, :k_new].copy(), V[:k_new, :k_new].copy())
        Xn = np.zeros((k_new, k_new))
        Vn = np.zeros((k_new, k_new))
        Xn[:k_old, :k_old] = X
        Vn[:k_old, :k_old] = V
        fill = max(float(np.trace(X)) / max(k_old, 1) * 1e-2, 1e-12)
        idx = np.arange(k_old, k_new)
        Xn[idx, idx] = fill
        return (Xn, Vn)
    U = state
    if k_new <= k_old:
        return U[:k_new, :k_new].copy()
    Un = np.zeros((k_new, k_new))
    Un[:k_old, :k_old] = U
    return Un


def leading_support(Z, support_tol):
    """(z, support): z the sign-fixed leading eigenvector of Z, support the indices with
    |z_i| > support_tol·max|z|.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.relaxation import leading_support
    >>> z = np.array([0.0, -0.6, -0.8, 0.001])
    >>> v, support = leading_support(np.outer(z, z), 1e-2)  # Z = zzᵀ
    >>> support.tolist(), v[support].round(3).tolist()  # sign fixed: largest entry > 0
    ([1, 2], [0.6, 0.8])
    """
    lam, z = top_eigh(0.5 * (Z + Z.T))
    z = fix_sign(z)
    m = np.abs(z).max() if z.size else 0.0
    supp = np.flatnonzero(np.abs(z) > support_tol * m) if m > 0 else np.zeros(0, dtype=np.intp)
    return z, supp
