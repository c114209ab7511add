"""The x-steps of alternating maximization: the maximisers of vᵀx over the sparse sets.

Each takes V (p × b, one column per start) and a level (s or γ) and returns (T, thr):
the unnormalised maximisers, column by column, and the per-column threshold used.
NumPy versions, and array-API versions (``*_xp``) for blocks that live on a device.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["hard_threshold", "soft_threshold_l1_ball", "l0_penalty_threshold",
           "l1_penalty_threshold", "to_host"]


def hard_threshold(V: np.ndarray, s: int) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise ``T_s``: keep the ``s`` largest |V_ij| of each column.

    Returns ``(T, thr)``: ``T`` of the shape of ``V`` (not normalised) and ``thr`` the
    smallest kept magnitude per column (features with a smaller |v_i| were dropped).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.solvers.am import hard_threshold
    >>> V = np.array([[0.9, 0.1], [-0.5, 0.8], [0.1, -0.6], [0.3, 0.2]])
    >>> T, thr = hard_threshold(V, 2)  # the 2 largest |v_i| of each column
    >>> T.tolist(), thr.tolist()
    ([[0.9, 0.0], [-0.5, 0.8], [0.0, -0.6], [0.0, 0.0]], [0.5, 0.6])
    """
    m, b = V.shape
    if not isinstance(V, np.ndarray):
        return _hard_threshold_xp(V, s)
    if s >= m:
        return V.copy(), np.zeros(b) if b else np.zeros(0)
    absV = np.abs(V)
    idx = np.argpartition(-absV, s - 1, axis=0)[:s]  # (s, b)
    cols = np.broadcast_to(np.arange(b), idx.shape)
    T = np.zeros_like(V)
    T[idx, cols] = V[idx, cols]
    thr = absV[idx, cols].min(axis=0)
    return T, thr


def soft_threshold_l1_ball(V: np.ndarray, s: float) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise ``V_λ(v)`` with ``λ = argmin_{λ>=0} λ√s + ‖V_λ(v)‖₂``.

    ``V_λ(v)/‖V_λ(v)‖₂`` maximizes ``vᵀx`` over ``‖x‖₂ <= 1, ‖x‖₁ <= √s``: λ = 0 when
    ``‖v‖₁ <= √s‖v‖₂``, otherwise the λ where ``‖V_λ(v)‖₁ = √s‖V_λ(v)‖₂`` (this ratio
    decreases in λ). Exact: with ``z`` the sorted |v| and ``k`` entries active, the
    equation is quadratic in λ, root ``λ = μ_k − √(s·var_k/(k − s))`` (mean and variance
    of the top k). Returns ``(V_λ(v), λ)`` per column.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.solvers.am import soft_threshold_l1_ball
    >>> T, lam = soft_threshold_l1_ball(np.array([[3.0], [4.0], [0.5]]), 1.0)  # ‖x‖₁ <= 1
    >>> T.ravel().tolist(), lam.tolist()
    ([0.0, 1.0, 0.0], [3.0])
    """
    m, b = V.shape
    if not isinstance(V, np.ndarray):
        return _soft_threshold_l1_ball_xp(V, s)
    root_s = math.sqrt(s)
    Z = -np.sort(-np.abs(V), axis=0)  # descending, (m, b)
    Zx = np.vstack([Z, np.zeros((1, b))])  # z_{m+1} = 0: the breakpoint λ = 0
    k = np.arange(1, m + 2, dtype=float)[:, None]
    A = np.cumsum(Zx, axis=0)
    B = np.cumsum(Zx * Zx, axis=0)
    # ratio ‖V_λ‖₁/‖V_λ‖₂ at the breakpoints λ = z_k (entries 1..k−1 active)
    S1 = A - k * Zx
    S2 = np.clip(B - 2.0 * Zx * A + k * Zx * Zx, 0.0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(S2 > 0, S1 / np.sqrt(S2), 1.0)
    ok = rho <= root_s * (1 + 1e-12)
    # rho increases with k: the last breakpoint still satisfying the bound
    kstar = (m + 1) - np.argmax(ok[::-1], axis=0)  # 1-based, in [1, m+1]
    lam = np.zeros(b)
    inner = kstar <= m  # else the ratio at λ = 0 is <= √s: λ = 0
    if np.any(inner):
        kk = kstar[inner].astype(float)
        cols = np.flatnonzero(inner)
        Ak = A[kstar[inner] - 1, cols]
        Bk = B[kstar[inner] - 1, cols]
        mu = Ak / kk
        var = np.clip(Bk / kk - mu * mu, 0.0, None)
        with np.errstate(divide="ignore", invalid="ignore"):
            delta = np.sqrt(s * var / np.maximum(kk - s, 1e-300))
        lk = np.clip(mu - delta, 0.0, None)
        # guard round-off: λ must lie in [z_{k+1}, z_k]
        lk = np.clip(lk, Zx[kstar[inner], cols], Zx[kstar[inner] - 1, cols])
        lam[cols] = lk
    T = np.sign(V) * np.clip(np.abs(V) - lam, 0.0, None)
    return T, lam


def l0_penalty_threshold(V: np.ndarray, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise ``U_γ``: keep ``v_i`` with ``v_i² > γ``; threshold √γ.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.solvers.am import l0_penalty_threshold
    >>> T, thr = l0_penalty_threshold(np.array([[0.9], [-0.5], [0.1]]), 0.2)  # keep v_i² > 0.2
    >>> T.ravel().tolist(), round(float(thr[0]), 4)
    ([0.9, -0.5, 0.0], 0.4472)
    """
    if not isinstance(V, np.ndarray):
        xp = namespace_of(V)
        return xp.where(V * V > gamma, V, xp.zeros_like(V)), np.full(V.shape[1], math.sqrt(gamma))
    T = np.where(V * V > gamma, V, 0.0)
    return T, np.full(V.shape[1], math.sqrt(gamma))


def l1_penalty_threshold(V: np.ndarray, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise ``V_γ``: ``sign(v_i)(|v_i| − γ)₊``; threshold γ.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.solvers.am import l1_penalty_threshold
    >>> T, thr = l1_penalty_threshold(np.array([[0.9], [-0.5], [0.1]]), 0.25)
    >>> T.ravel().tolist(), thr.tolist()  # sign(v)(|v| − γ)₊
    ([0.65, -0.25, 0.0], [0.25])
    """
    if not isinstance(V, np.ndarray):
        xp = namespace_of(V)
        return (xp.sign(V) * xp.clip(xp.abs(V) - gamma, min=0.0),
                np.full(V.shape[1], float(gamma)))
    T = np.sign(V) * np.clip(np.abs(V) - gamma, 0.0, None)
    return T, np.full(V.shape[1], float(gamma))


def _l0(X):
    if not isinstance(X, np.ndarray):
        xp = namespace_of(X)
        return xp.sum(xp.astype(X != 0, X.dtype), axis=0)
    return np.count_nonzero(X, axis=0).astype(float)


def _l1(X):
    if not isinstance(X, np.ndarray):
        xp = namespace_of(X)
        return xp.sum(xp.abs(X), axis=0)
    return np.abs(X).sum(axis=0)


# ----------------------------------------------------------------- array-API x-steps
# The x-steps above on device arrays (CuPy, PyTorch, ...: any array-api-compat namespace):
# the same definitions; thresholds come back as NumPy (one value per column).
def namespace_of(X):
    import array_api_compat

    return array_api_compat.array_namespace(X)


def _hard_threshold_xp(V, s):
    xp = namespace_of(V)
    m, b = V.shape
    if s >= m:
        return xp.asarray(V, copy=True), np.zeros(b)
    absV = xp.abs(V)
    t = _kth_largest(xp, absV, s)  # (1, b): the s-th largest |v| of each column
    above = absV > t
    tie = absV == t
    # exactly s per column: everything above t, then ties at t by increasing index
    room = s - xp.sum(xp.astype(above, xp.int64), axis=0, keepdims=True)
    keep = above | (tie & (xp.cumulative_sum(xp.astype(tie, xp.int64), axis=0) <= room))
    T = xp.where(keep, V, xp.zeros_like(V))
    return T, to_host(t[0, :])


def _kth_largest(xp, A, k):
    """Row vector of the k-th largest entry of each column of A (torch: topk, else sort)."""
    import array_api_compat

    if array_api_compat.is_torch_namespace(xp):
        import torch

        return torch.topk(A, k, dim=0, sorted=True).values[k - 1:k, :]
    return xp.sort(A, axis=0, descending=True)[k - 1:k, :]


def _soft_threshold_l1_ball_xp(V, s):
    xp = namespace_of(V)
    m, b = V.shape
    dt, dev = V.dtype, V.device
    root_s = math.sqrt(s)
    Z = xp.sort(xp.abs(V), axis=0, descending=True)
    Zx = xp.concat([Z, xp.zeros((1, b), dtype=dt, device=dev)], axis=0)
    k = xp.reshape(xp.arange(1, m + 2, dtype=dt, device=dev), (m + 1, 1))
    A = xp.cumulative_sum(Zx, axis=0)
    B = xp.cumulative_sum(Zx * Zx, axis=0)
    S1 = A - k * Zx
    S2 = xp.clip(B - 2.0 * Zx * A + k * Zx * Zx, min=0.0)
    pos = S2 > 0
    rho = xp.where(pos, S1 / xp.sqrt(xp.where(pos, S2, xp.ones_like(S2))), xp.ones_like(S2))
    ok = xp.astype(rho <= root_s * (1 + 1e-12), xp.int8)
    kstar = (m + 1) - xp.argmax(xp.flip(ok, axis=0), axis=0)  # 1-based, in [1, m+1]
    inner = kstar <= m
    r = xp.reshape(xp.clip(kstar - 1, max=m - 1), (1, b))
    kk = xp.astype(kstar, dt)
    Ak = xp.take_along_axis(A, r, axis=0)[0, :]
    Bk = xp.take_along_axis(B, r, axis=0)[0, :]
    mu = Ak / kk
    var = xp.clip(Bk / kk - mu * mu, min=0.0)
    den = xp.clip(kk - s, min=1e-300 if dt == xp.float64 else 1e-30)
    lk = xp.clip(mu - xp.sqrt(s * var / den), min=0.0)
    lk = xp.minimum(xp.maximum(lk, xp.take_along_axis(Zx, r + 1, axis=0)[0, :]),
                    xp.take_along_axis(Zx, r, axis=0)[0, :])
    lam = xp.where(inner, lk, xp.zeros_like(lk))
    T = xp.sign(V) * xp.clip(xp.abs(V) - lam, min=0.0)
    return T, to_host(lam)


def to_host(a):
    """A device array (or NumPy) as NumPy float64.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.solvers.am.steps import to_host
    >>> a = np.ones(3)
    >>> to_host(a) is a  # NumPy arrays pass through; device arrays are copied to float64
    True
    """
    if isinstance(a, np.ndarray):
        return a
    from ...operators._xp import to_numpy

    return to_numpy(a, np.float64)
