"""Alternating maximization for the 8 sparse PCA formulations of 24am
(Richtárik, Takáč & Ahipasaoglu), and the truncated power method (Yuan & Zhang).

The 8 formulations (``Σ = AᵀA``, ``s`` a target cardinality, ``γ >= 0`` a penalty):

=============  ========  ========  ============  ==============================  ==========
name           variance  sparsity  usage         feasible set                    objective
=============  ========  ========  ============  ==============================  ==========
``l2_l0_con``  L2        L0        constraint    ‖x‖₂ <= 1, ‖x‖₀ <= s            ‖Ax‖₂
``l1_l0_con``  L1        L0        constraint    ‖x‖₂ <= 1, ‖x‖₀ <= s            ‖Ax‖₁
``l2_l1_con``  L2        L1        constraint    ‖x‖₂ <= 1, ‖x‖₁ <= √s           ‖Ax‖₂
``l1_l1_con``  L1        L1        constraint    ‖x‖₂ <= 1, ‖x‖₁ <= √s           ‖Ax‖₁
``l2_l0_pen``  L2        L0        penalty       ‖x‖₂ <= 1                       ‖Ax‖₂² − γ‖x‖₀
``l1_l0_pen``  L1        L0        penalty       ‖x‖₂ <= 1                       ‖Ax‖₁² − γ‖x‖₀
``l2_l1_pen``  L2        L1        penalty       ‖x‖₂ <= 1                       ‖Ax‖₂ − γ‖x‖₁
``l1_l1_pen``  L1        L1        penalty       ‖x‖₂ <= 1                       ‖Ax‖₁ − γ‖x‖₁
=============  ========  ========  ============  ==============================  ==========

Each is ``max_x max_y F(x, y)`` with ``F = yᵀAx`` (or ``(yᵀAx)²`` for the L0 penalties,
minus the penalty), and one iteration of alternating maximization is

- y-step (the *variance piece*): ``u = Ax``; ``y = u/‖u‖₂`` (L2) or ``sign(u)`` (L1);
  then ``v = Aᵀy``. For L2 only Σ is needed: ``v = Σx/√(xᵀΣx)``; L1 needs ``A`` itself
  (``op.dot`` / ``op.rdot``), so those formulations refuse a precomputed covariance.
- x-step (the *sparsity piece*): ``x = T(v)/‖T(v)‖₂`` with ``T`` the hard threshold
  ``T_s`` (keep the s largest |v_i|), the soft threshold ``V_λ`` with λ the smallest
  value making ``‖x‖₁ <= √s`` (exactly: ``λ = argmin_λ λ√s + ‖V_λ(v)‖₂``), ``U_γ``
  (keep ``v_i`` with ``v_i² > γ``) or ``V_γ`` (``sign(v_i)(|v_i| − γ)₊``).

Both steps are exact maximizations, so the objective never decreases. The code is one
loop over a declarative table (:data:`FORMULATIONS`) of these pieces.

Many starting points are advanced together: the iterates are the columns of a p×b
matrix, and each half-step is one product for the whole block. Columns are tracked
separately (each stops when its objective stalls and its support is stable) and
leave the block when they converge; the ``strategy`` option chooses how starts are
scheduled (24am's sequential / batch / all-at-once / on-the-fly).

Working sets (``screen``). With a few hundred starts the full products dominate:
on sparse text data ``Σ·X`` for 256 columns costs over 100 times one ``Σ·x``. For the
L2 formulations each start therefore runs on a *working set*, the ``m`` features of
largest variance (m = max(256, 4s)), through the dense block ``Σ[C, C]`` (one
``op.block`` call shared by all starts): that is alternating maximization restricted to
supports inside C, still monotone. When a start stalls there it is *certified* for the
full problem: every coordinate of ``v = Aᵀy`` (‖y‖₂ = 1) obeys ``|v_i| <= ‖a_i‖₂ =
√Σ_ii``, so if the x-step's threshold (the s-th largest |v_i|, √γ, γ or λ) is at least
√Σ_ii of the first feature left out, no feature outside C could enter; otherwise one
full product ``op.matmat`` decides: the full x-step either keeps the support (certified)
or the start continues from that full step on a working set holding its new support
(doubled, or full products past a size limit). Every returned point is thus a fixed
point of the unrestricted iteration, though its path may differ from the unrestricted
path (``screen=False`` gives that path exactly). Each start's working set depends only
on its own iterates, so the schedule (``strategy``) never changes the answer. On the
KOS corpus 256 starts cost about 3 times one start.

Devices. When the operator keeps its data on a device (an operator with an ``xp``
namespace other than NumPy, e.g. :class:`~eigensparse.operators.ArrayAPIData` over a
CuPy or PyTorch array), the same loop runs with the iterate blocks on that device:
the products, the x-steps and the y-steps are computed there through the array API
(array-api-compat), float32 included; only per-start scalars (objectives, thresholds,
norms) come back to the host each iteration. Device runs use full products (no
working sets), and in float32 the convergence tolerance is at least 1e-6.
"""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy import sparse

from .._validation import Interval, InvalidParameterError, Options, validate_params
from ..operators import Operator
from ..screening import penalty_search
from . import register
from ._common import check_random_state, make_result, polish_loadings

__all__ = ["am", "tpower", "FORMULATIONS", "Formulation", "VariancePiece", "SparsityPiece",
           "hard_threshold", "soft_threshold_l1_ball", "l0_penalty_threshold",
           "l1_penalty_threshold"]

#: default number of starting points of :func:`am`
AM_DEFAULT_STARTS = 16
#: largest working set (features) of the screened iteration before switching to
#: full products (a dense m×m block is kept: 4096² doubles = 128 MiB)
SCREEN_MAX_FEATURES = 4096
#: working-set size allowed per starting point before full products are cheaper
SCREEN_FEATURES_PER_START = 64
#: smallest working-set limit
SCREEN_MIN_FEATURES = 256
#: initial working set: this many leading-variance features (at least 4s)
SCREEN_START_FEATURES = 256
#: default block width of the "otf" and "batch" strategies, and the most entries
#: (p × width) a default block may hold
DEFAULT_BATCH = 256
BLOCK_ENTRIES = 4_000_000
#: bisection steps of the penalty search (penalized formulations with a cardinality),
#: stopped earlier when the bracket [lo, hi] has hi/lo < 1 + PENALTY_SEARCH_RTOL
PENALTY_SEARCH_STEPS = 40
PENALTY_SEARCH_RTOL = 1e-4


# =========================================================================== x-steps
def hard_threshold(V: np.ndarray, s: int) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise ``T_s``: keep the ``s`` largest |V_ij| of each column.

    Returns ``(T, thr)``: ``T`` of the shape of ``V`` (not normalised) and ``thr`` the
    smallest kept magnitude per column (features with a smaller |v_i| were dropped).
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
    """Column-wise ``U_γ``: keep ``v_i`` with ``v_i² > γ``; threshold √γ."""
    if not isinstance(V, np.ndarray):
        xp = _namespace(V)
        return xp.where(V * V > gamma, V, xp.zeros_like(V)), np.full(V.shape[1], math.sqrt(gamma))
    T = np.where(V * V > gamma, V, 0.0)
    return T, np.full(V.shape[1], math.sqrt(gamma))


def l1_penalty_threshold(V: np.ndarray, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Column-wise ``V_γ``: ``sign(v_i)(|v_i| − γ)₊``; threshold γ."""
    if not isinstance(V, np.ndarray):
        xp = _namespace(V)
        return (xp.sign(V) * xp.clip(xp.abs(V) - gamma, min=0.0),
                np.full(V.shape[1], float(gamma)))
    T = np.sign(V) * np.clip(np.abs(V) - gamma, 0.0, None)
    return T, np.full(V.shape[1], float(gamma))


def _l0(X):
    if not isinstance(X, np.ndarray):
        xp = _namespace(X)
        return xp.sum(xp.astype(X != 0, X.dtype), axis=0)
    return np.count_nonzero(X, axis=0).astype(float)


def _l1(X):
    if not isinstance(X, np.ndarray):
        xp = _namespace(X)
        return xp.sum(xp.abs(X), axis=0)
    return np.abs(X).sum(axis=0)


# ----------------------------------------------------------------- array-API x-steps
# The x-steps above on device arrays (CuPy, PyTorch, ...: any array-api-compat namespace):
# the same definitions; thresholds come back as NumPy (one value per column).
def _namespace(X):
    import array_api_compat

    return array_api_compat.array_namespace(X)


def _hard_threshold_xp(V, s):
    xp = _namespace(V)
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
    return T, _host(t[0, :])


def _kth_largest(xp, A, k):
    """Row vector of the k-th largest entry of each column of A (torch: topk, else sort)."""
    import array_api_compat

    if array_api_compat.is_torch_namespace(xp):
        import torch

        return torch.topk(A, k, dim=0, sorted=True).values[k - 1:k, :]
    return xp.sort(A, axis=0, descending=True)[k - 1:k, :]


def _soft_threshold_l1_ball_xp(V, s):
    xp = _namespace(V)
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
    return T, _host(lam)


def _host(a):
    """A device array (or NumPy) as NumPy float64."""
    if isinstance(a, np.ndarray):
        return a
    from ..operators._xp import to_numpy

    return to_numpy(a, np.float64)


class _Arrays:
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
        return _host(self.xp.all((X != 0) == (Y != 0), axis=0)).astype(bool)

    def col_norms(self, T):
        """Column norms: (on the loop's arrays, on the host)."""
        if self.numpy:
            nrm = np.sqrt(np.einsum("ij,ij->j", T, T))
            return nrm, nrm
        nrm = self.xp.sqrt(self.xp.sum(T * T, axis=0))
        return nrm, _host(nrm)

    def divide_columns(self, T, nrm):
        return T / self.xp.where(nrm > 0, nrm, self.xp.ones_like(nrm)) if not self.numpy \
            else T / np.where(nrm > 0, nrm, 1.0)


# =========================================================================== the table
def _l2_step(products, X):
    """L2 variance: ``y = Ax/‖Ax‖₂``, ``v = Aᵀy = Σx/√(xᵀΣx)`` (Σ suffices)."""
    W = products.sigma(X)
    if not isinstance(W, np.ndarray):  # on a device
        xp = _namespace(W)
        f = xp.sqrt(xp.clip(xp.sum(X * W, axis=0), min=0.0))
        return W / xp.where(f > 0, f, xp.ones_like(f)), f
    f = np.sqrt(np.clip(np.einsum("ij,ij->j", X, W), 0.0, None))
    return W / np.where(f > 0, f, 1.0), f


def _l1_step(products, X):
    """L1 variance: ``y = sign(Ax)``, ``v = Aᵀy`` (needs A)."""
    U = products.a(X)
    if not isinstance(U, np.ndarray):  # on a device
        xp = _namespace(U)
        return products.at(xp.sign(U)), xp.sum(xp.abs(U), axis=0)
    return products.at(np.sign(U)), np.abs(U).sum(axis=0)


@dataclass(frozen=True)
class VariancePiece:
    """How variance is measured: ``‖Ax‖₂`` (``"l2"``) or ``‖Ax‖₁`` (``"l1"``)."""

    name: str
    #: the y-step and the product back: (products, X) -> (V = Aᵀy, f = ‖Ax‖ per column)
    step: Callable
    #: needs the data square root A (``op.dot``/``op.rdot``), not only Σ
    needs_data: bool
    #: ‖y‖₂ = 1, so |v_i| <= √Σ_ii: working sets and their certificates apply
    screenable: bool


@dataclass(frozen=True)
class SparsityPiece:
    """How sparsity is induced: the x-step operator and, for penalties, the measure."""

    name: str  # "l0" or "l1"
    usage: str  # "con" (constraint, level = s) or "pen" (penalty, level = γ)
    #: x-step: (V, level) -> (T(V) unnormalised, threshold per column)
    xstep: Callable[[np.ndarray, float], tuple[np.ndarray, np.ndarray]]
    #: penalty measure ‖x‖₀ or ‖x‖₁ per column (unused for constraints)
    measure: Callable[[np.ndarray], np.ndarray]
    #: the penalized objective squares the variance norm (the L0 penalties)
    squared: bool = False

    @property
    def constrained(self) -> bool:
        return self.usage == "con"


@dataclass(frozen=True)
class Formulation:
    """One of the 8 formulations: a variance piece and a sparsity piece."""

    name: str
    variance: VariancePiece
    sparsity: SparsityPiece
    description: str

    def objective(self, f: np.ndarray, X: np.ndarray, level: float) -> np.ndarray:
        """The formulation's objective at the columns of X, given ``f = ‖AX‖``."""
        sp = self.sparsity
        if sp.constrained:
            return f
        g = f * f if sp.squared else f
        return g - level * sp.measure(X)


L2 = VariancePiece("l2", _l2_step, needs_data=False, screenable=True)
L1 = VariancePiece("l1", _l1_step, needs_data=True, screenable=False)
_SPARSITY = {
    ("l0", "con"): SparsityPiece("l0", "con", hard_threshold, _l0),
    ("l1", "con"): SparsityPiece("l1", "con", soft_threshold_l1_ball, _l1),
    ("l0", "pen"): SparsityPiece("l0", "pen", l0_penalty_threshold, _l0, squared=True),
    ("l1", "pen"): SparsityPiece("l1", "pen", l1_penalty_threshold, _l1),
}
_DESCR = {
    ("l0", "con"): "subject to ‖x‖₀ <= s",
    ("l1", "con"): "subject to ‖x‖₁ <= √s",
    ("l0", "pen"): "− γ‖x‖₀",
    ("l1", "pen"): "− γ‖x‖₁",
}

#: the 8 formulations of 24am, by name ``<variance>_<sparsity>_<con|pen>``
FORMULATIONS: dict[str, Formulation] = {}
for _v in (L2, L1):
    for (_s, _u), _piece in _SPARSITY.items():
        _norm = f"‖Ax‖{'₂' if _v.name == 'l2' else '₁'}"
        _obj = (f"max {_norm}{'²' if _piece.squared else ''} {_DESCR[_s, _u]}"
                if _u == "pen" else f"max {_norm} {_DESCR[_s, _u]}")
        FORMULATIONS[f"{_v.name}_{_s}_{_u}"] = Formulation(
            f"{_v.name}_{_s}_{_u}", _v, _piece, _obj + ", ‖x‖₂ <= 1")
del _v, _s, _u, _piece, _norm, _obj

STRATEGIES = ("sequential", "batch", "all", "otf")
INITS = ("auto", "coordinates", "variance", "random")


# =========================================================================== products
class _Products:
    """Products with Σ (or A) for iterates stored over the features sorted by decreasing
    variance (row r of an iterate block is feature ``order[r]``).

    Each column has a *level* L: it lives on the first L sorted features (the working
    set). Levels ``<= cap`` use the cached dense block ``G = Σ[C, C]`` of the largest
    working set needed so far (one ``op.block`` call per growth); larger levels are
    stored as ``p`` and use full products (``op.matmat`` / ``op.dot`` / ``op.rdot``).
    """

    def __init__(self, op: Operator, d: np.ndarray, cap: int, m0: int, arrays=None):
        self.op = op
        self.arrays = arrays if arrays is not None else _Arrays(op)
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

    def a(self, X):
        self.counts["dot"] += 1
        return self.op.dot(self._embed(X))

    def at(self, Y):
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


class _PoolView:
    """The products seen by the variance piece for one block of columns."""

    def __init__(self, prod: _Products, levels):
        self.prod, self.levels = prod, levels

    def sigma(self, X):
        return self.prod.sigma(X, self.levels)

    def a(self, X):
        return self.prod.a(X)

    def at(self, Y):
        return self.prod.at(Y)


# =========================================================================== engine
@dataclass
class _RunOutput:
    x: np.ndarray  # best iterate, natural feature order (p,)
    best: int
    objectives: np.ndarray  # (N,)
    iterations: np.ndarray  # (N,)
    converged: np.ndarray  # (N,) bool
    levels: np.ndarray  # (N,) final working-set level of each start (p: full)
    paths: list | None


class _References:
    """Iterates x' whose full product Σx' is known (from earlier certificate checks),
    used to certify other iterates without a product.

    With ``y = Ax/‖Ax‖`` and ``y'`` likewise, ``|v_i| = |a_iᵀy| <= |v'_i| + ‖a_i‖·δ``
    with ``δ = min ‖y ∓ y'‖ = √(2 − 2|yᵀy'|)`` and ``yᵀy' = xᵀ(Σx')/(‖Ax‖‖Ax'‖)`` (exact
    from Σx'). Starts that converge to the same point as a checked one are certified
    at the cost of a few inner products. (``v' = 0``, δ = 1 is the plain bound √Σ_ii.)
    """

    SIZE = 64  # most recent references kept

    def __init__(self, prod: _Products):
        self.prod = prod
        self.SX = np.zeros((prod.p, 0))  # Σx' over the sorted features
        self.f = np.zeros(0)  # ‖Ax'‖₂
        self.tail = np.zeros((prod.p + 1, 0))  # tail[L] = max_{i >= L} |v'_i|

    def add(self, SX, f):
        good = f > 0
        SX, f = SX[:, good], f[good]
        tail = np.zeros((self.prod.p + 1, f.size))
        tail[:-1] = np.maximum.accumulate((np.abs(SX) / f)[::-1], axis=0)[::-1]
        self.SX = np.hstack([self.SX, SX])[:, -self.SIZE:]
        self.f = np.concatenate([self.f, f])[-self.SIZE:]
        self.tail = np.hstack([self.tail, tail])[:, -self.SIZE:]

    def certifies(self, X, f, lev, thr) -> np.ndarray:
        """Per column: does the bound prove max_{i outside its working set} |v_i| <= thr?
        (Features are sorted by decreasing √Σ_ii, so off a working set of L features
        ``|v_i| <= max_{j>=L} |v'_j| + √Σ_LL·δ``.)"""
        ok = np.zeros(X.shape[1], dtype=bool)
        if self.f.size == 0:
            return ok
        live = f > 0
        M = X.shape[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            cos = np.abs(X.T @ self.SX[:M]) / (f[:, None] * self.f[None, :])
        cos[~live] = 0.0
        r = np.argmax(cos, axis=1)
        c = np.minimum(cos[np.arange(r.size), r], 1.0)
        delta = np.sqrt(np.maximum(2.0 - 2.0 * c, 0.0)) + 1e-7  # + round-off margin
        L = np.minimum(lev, self.prod.p - 1)
        bound = self.tail[L, r] + self.prod.root[L] * delta
        return live & (bound <= thr)


def _pad_rows(X, M):
    """X with zero rows appended up to M rows (Fortran-ordered)."""
    if X.shape[0] >= M:
        return X
    if not isinstance(X, np.ndarray):
        xp = _namespace(X)
        return xp.concat([X, xp.zeros((M - X.shape[0], X.shape[1]), dtype=X.dtype,
                                      device=X.device)], axis=0)
    out = np.zeros((M, X.shape[1]), order="F")
    out[: X.shape[0]] = X
    return out


def _run(form: Formulation, prod: _Products, level: float, X0: np.ndarray, *, width: int,
         refill: bool, max_iter: int, tol: float, record_path: bool) -> _RunOutput:
    """Advance the starts (columns of X0, rows = sorted features) by alternating
    maximization, ``width`` columns at a time.

    ``refill``: replace converged columns by fresh starts (on-the-fly); otherwise run
    each group of ``width`` starts to completion. Every column evolves independently
    of the others (its working set depends on its own iterates only), so the strategy
    changes the cost, not the iterates. Blocks are Fortran-ordered (columns contiguous).
    """
    N = X0.shape[1]
    vpiece, spiece = form.variance, form.sparsity
    p = prod.p
    obj_final = np.full(N, -np.inf)
    iters = np.zeros(N, dtype=np.int64)
    conv = np.zeros(N, dtype=bool)
    lev_final = np.zeros(N, dtype=np.int64)
    paths = [[] for _ in range(N)] if record_path else None
    best_j, best_obj, best_x = -1, -np.inf, None
    next_start = 0

    # initial level of each start: the smallest working set holding its support
    last_row = np.where(X0 != 0, np.arange(1, X0.shape[0] + 1)[:, None], 0).max(axis=0)
    if vpiece.screenable:
        lev0 = np.array([prod.level_for(int(r)) for r in last_row], dtype=np.int64)
    else:
        lev0 = np.full(N, p, dtype=np.int64)

    refs = _References(prod)
    arr = prod.arrays
    ids = np.zeros(0, dtype=np.int64)
    lev = np.zeros(0, dtype=np.int64)
    X = Xprev = arr.asarray(np.zeros((0, 0), order="F"))
    obj_prev = np.zeros(0)
    it = np.zeros(0, dtype=np.int64)

    while True:
        if (refill or ids.size == 0) and next_start < N and ids.size < width:
            j = np.arange(next_start, min(N, next_start + width - ids.size))
            next_start = int(j[-1]) + 1
            M = max(X.shape[0], int(lev0[j].max()))
            Xn = np.zeros((M, j.size), order="F")
            k = min(M, X0.shape[0])
            Xn[:k] = X0[:k, j]
            X = arr.hstack(_pad_rows(X, M), arr.asarray(Xn))
            Xprev = arr.hstack(_pad_rows(Xprev, M), arr.asarray(np.zeros_like(Xn)))
            ids = np.concatenate([ids, j])
            lev = np.concatenate([lev, lev0[j]])
            obj_prev = np.concatenate([obj_prev, np.full(j.size, -np.inf)])
            it = np.concatenate([it, np.zeros(j.size, dtype=np.int64)])
        if ids.size == 0:
            break

        V, f = vpiece.step(_PoolView(prod, lev), X)
        obj = form.objective(f, X, level)
        f, obj = _host(f), _host(obj)  # per-start scalars live on the host
        if record_path:
            for c, j in enumerate(ids):
                paths[j].append(float(obj[c]))
        same = arr.same_support(X, Xprev)
        stalled = (it >= 1) & same & (obj - obj_prev <= tol * np.maximum(np.abs(obj), 1e-300))
        T, thr = spiece.xstep(V, level)
        nrm_t, nrm = arr.col_norms(T)
        dead = (nrm == 0) & spiece.constrained  # v = 0 on the working set
        # Certificate: a column that stopped on its working set stops for good if no
        # feature outside could enter (a bound on |v_i| off the working set <= its
        # threshold), or else if the full x-step (one full product) keeps its support;
        # otherwise it moves on with that full step, on a working set large enough for
        # its new support. Either way the outcome is the full x-step's.
        check = (stalled | dead) & (thr < prod.radius(lev))
        esc = np.zeros(0, dtype=np.int64)
        if np.any(check):
            cc = np.flatnonzero(check)
            cc = cc[~refs.certifies(X[:, cc], f[cc], lev[cc], thr[cc])]
        if np.any(check) and cc.size:
            SX = prod.full_sigma(X[:, cc])
            refs.add(SX, f[cc])
            Vf = SX / np.where(f[cc] > 0, f[cc], 1.0)
            Tf, _ = spiece.xstep(Vf, level)
            nf = np.linalg.norm(Tf, axis=0)
            keeps = (np.all((Tf != 0) == (_pad_rows(X[:, cc], p) != 0), axis=0)
                     | ((nf == 0) & spiece.constrained))
            esc = cc[~keeps]
            if esc.size:
                stalled[esc] = dead[esc] = False
                Tesc = Tf[:, ~keeps] / nf[~keeps]
                rows = np.where(Tesc != 0, np.arange(1, p + 1)[:, None], 0).max(axis=0)
                lev = lev.copy()  # working sets only grow (no restriction cycles)
                lev[esc] = np.maximum(lev[esc], [prod.level_for(int(r)) for r in rows])
        done = stalled | dead | (it >= max_iter)
        for c in np.flatnonzero(done):
            j = int(ids[c])
            obj_final[j], iters[j], lev_final[j] = obj[c], it[c], lev[c]
            conv[j] = stalled[c] or dead[c]
            if obj[c] > best_obj or (obj[c] == best_obj and j < best_j):
                best_j, best_obj = j, float(obj[c])
                best_x = prod.to_features(_host(X[:, c]))
        keep = np.flatnonzero(~done)
        Xnext = arr.divide_columns(T, nrm_t)
        if esc.size:
            M = max(X.shape[0], int(lev[esc].max()))
            Xnext, X = _pad_rows(Xnext, M), _pad_rows(X, M)
            Xnext[:, esc] = Tesc[:M]
        M = int(lev[keep].max()) if keep.size else 0  # storage: the largest level in use
        Xprev = arr.columns(X, keep, M)
        X = arr.columns(Xnext, keep, M)
        obj_prev = obj[keep]
        ids, lev, it = ids[keep], lev[keep], it[keep] + 1
    return _RunOutput(best_x, best_j, obj_final, iters, conv, lev_final, paths)


# =========================================================================== starts
def _starts(kind, init_array, n_starts, prod: _Products, s_ref: int, rng) -> np.ndarray:
    """Starting points over the sorted features (rows = prefix of the variance order).

    - coordinate starts: ``e_i`` for the i-th largest-variance feature, i = 0, 1, ...;
    - the ``variance`` start: the indicator of the ``s`` largest-variance features / √s;
    - random starts: i.i.d. Gaussian entries on the ``max(4s, 64)`` largest-variance
      features (mapped into the feasible set by the x-step, as every start is).
    ``auto``: the first ⌈N/2⌉ starts are coordinate starts, the rest random.
    """
    p = prod.p
    if init_array is not None:
        A = init_array[prod.order]
        nz = np.flatnonzero(np.any(A != 0, axis=1))
        m = int(nz[-1]) + 1 if nz.size else 1
        return A[:m].copy()
    N = n_starts
    m_rand = min(p, max(4 * s_ref, 64))
    if kind == "coordinates":
        n_coord = min(N, p)
    elif kind == "random":
        n_coord = 0
    elif kind == "variance":
        n_coord = -1
    else:  # auto
        n_coord = min(-(-N // 2), p)
    cols = []
    if n_coord < 0:
        x = np.zeros(min(p, max(s_ref, 1)))
        x[:] = 1.0 / math.sqrt(x.size)
        cols.append(x)
        n_coord = 0
    for i in range(n_coord):
        e = np.zeros(i + 1)
        e[i] = 1.0
        cols.append(e)
    n_rand = N - len(cols)
    m = max([c.size for c in cols] + [m_rand if n_rand > 0 else 1])
    X0 = np.zeros((m, N))
    for j, c in enumerate(cols):
        X0[: c.size, j] = c
    if n_rand > 0:
        X0[:m_rand, len(cols):] = rng.standard_normal((m_rand, n_rand))
    return X0


def _feasible(form: Formulation, X0: np.ndarray, level: float) -> np.ndarray:
    """Map starts into the feasible set: the x-step applied to the start itself
    (``argmax_{x feasible} x₀ᵀx``; the identity on feasible unit vectors)."""
    if form.sparsity.constrained:
        T, _ = form.sparsity.xstep(X0, level)
    else:
        T = X0.copy()
    nrm = np.linalg.norm(T, axis=0)
    if np.any(nrm == 0):
        raise InvalidParameterError("parameter 'init' has a zero starting point (an all-zero column).")
    return T / nrm


# =========================================================================== support / result
def _support_of_size(op: Operator, x: np.ndarray, s: int) -> np.ndarray:
    """The ``s`` largest |x_i| (ties: lower index); completed, when x has fewer than s
    nonzeros, by the largest |(Σx)_i| off its support (the greedy correlation)."""
    nz = np.flatnonzero(x)
    if nz.size >= s:
        order = np.argsort(-np.abs(x), kind="stable")
        return np.sort(order[:s])
    score = np.abs(op.matvec(x)) if nz.size else op.diag().astype(float)
    score[nz] = np.inf
    order = np.argsort(-score, kind="stable")
    return np.sort(order[:s])


def _finish(op, x, method, *, s, do_polish, **fields):
    """Result on the support of x (resized to exactly s entries when s is given)."""
    if s is not None:
        support = _support_of_size(op, x, s)
    else:
        support = np.flatnonzero(x)
    if support.size == 0:
        return make_result(op, np.zeros(op.n_features), method, variance=0.0, **fields)
    if do_polish:
        z, lam = polish_loadings(op, support)
        return make_result(op, z, method, variance=lam, **fields)
    z = np.zeros(op.n_features)
    z[support] = x[support]
    if not np.any(z):
        z[support] = 1.0
    return make_result(op, z, method, **fields)


# =========================================================================== public
def _check_op(op, method):
    if not isinstance(op, Operator):
        raise InvalidParameterError(
            f"{method}: parameter 'op' must be an eigensparse Operator; got {type(op).__name__}.")


def _penalty_bound(form: Formulation, op: Operator, d: np.ndarray) -> float:
    """A penalty above which every start collapses to x = 0 (|v_i| <= ‖a_i‖₂ for L2;
    <= ‖a_i‖₁ <= √n‖a_i‖₂ for L1)."""
    c = float(np.sqrt(np.clip(d, 0, None)).max())
    if form.variance.name == "l1":
        c *= math.sqrt(max(op.n_samples or 1, 1))
    return c * c if form.sparsity.squared else c


@register("am", penalized=True,
          summary="Alternating maximization (24am), 8 formulations, many starts at once.")
def am(op: Operator, cardinality=None, *, formulation: str = "l2_l0_con", penalty=None,
       n_starts=None, strategy: str = "otf", batch_size=None, max_iter: int = 200,
       tol: float = 1e-7, init="auto", polish: bool = True, screen="auto",
       record_path: bool = False, random_state=None):
    """Sparse PCA by alternating maximization (24am, Richtárik–Takáč–Ahipasaoglu).

    Parameters
    ----------
    op : Operator
        Represents Σ (p×p). The L1-variance formulations need the data (``op.has_data``).
    cardinality : int or None
        Target support size s (1 <= s <= p). Required by the constrained formulations.
        The result always has exactly s selected features when it is given (see Notes).
        May be None for a penalized formulation when ``penalty`` is given.
    formulation : str, default="l2_l0_con"
        ``"<variance>_<sparsity>_<con|pen>"``: variance norm ``l2`` (‖Ax‖₂) or ``l1``
        (‖Ax‖₁, robust; needs data), sparsity ``l0`` or ``l1``, as a constraint
        (‖x‖₀ <= s, resp. ‖x‖₁ <= √s) or a penalty (− γ‖x‖₀ on ‖Ax‖², resp. − γ‖x‖₁
        on ‖Ax‖). One of ``l2_l0_con``, ``l2_l1_con``, ``l2_l0_pen``, ``l2_l1_pen``,
        ``l1_l0_con``, ``l1_l1_con``, ``l1_l0_pen``, ``l1_l1_pen``. ``l2_l0_con`` is the
        truncated power method.
    penalty : float >= 0 or None
        γ of the penalized formulations, in the units of their objective (a variance
        for ``l2_l0_pen``: features with Σ_ii <= γ never enter; a standard deviation
        for ``l2_l1_pen``). With ``cardinality`` and no penalty, γ is searched (see Notes).
    n_starts : int >= 1 or None
        Number of starting points; default 16 (the number of columns of ``init`` when
        it is an array).
    strategy : {"otf", "all", "batch", "sequential"}, default="otf"
        How starts are scheduled: ``"sequential"`` one at a time; ``"batch"`` groups of
        ``batch_size`` each run to completion; ``"all"`` every start in one block;
        ``"otf"`` (on-the-fly) a block of ``batch_size`` whose converged columns are
        replaced by fresh starts until all have run. Every strategy runs every start
        to its own convergence, so all give the same best answer (up to round-off).
    batch_size : int >= 1 or None, default=None
        Block width of ``"batch"`` and ``"otf"``; None: min(256, max(8, 4·10⁶/p)) (a
        block of at most about 32 MB when full products are used).
    max_iter : int >= 1, default=200
        Iterations per start.
    tol : float >= 0, default=1e-7
        A start has converged when its support did not change and its objective rose
        by at most ``tol × |objective|`` in the last iteration.
    init : {"auto", "coordinates", "variance", "random"} or array, default="auto"
        Starting points, deterministic given ``random_state`` (features ranked by
        decreasing variance Σ_ii, ties to the lower index):
        ``"coordinates"``: e_i for the N largest-variance features; ``"variance"``:
        the indicator of the s largest-variance features (the classic truncated power
        start), then random starts if N > 1; ``"random"``:
        Gaussian vectors on the max(4s, 64) largest-variance features; ``"auto"``: the
        first ⌈N/2⌉ coordinate starts, the rest random. An array of shape (p,) or
        (p, N) gives the starts. Every start is first mapped into the feasible set by
        the x-step (e.g. hard-thresholded to s entries).
    polish : bool, default=True
        Replace the loadings on the final support by the leading eigenvector of Σ[I, I]
        (never lowers the variance); the reported variance is then λmax(Σ[I, I]).
    screen : {"auto", True, False}, default="auto"
        Working sets for the L2 formulations (module docstring): restricted iterations
        on the leading-variance features, each stalled start certified (or moved on) by
        the bound √Σ_ii or one full product. ``"auto"``: working sets of at most
        min(4096, max(256, 64·N), p/2) features, full products beyond; ``True``: no
        limit (up to Σ itself); ``False``: full products throughout (the plain
        iteration; L1 formulations always use it).
    record_path : bool, default=False
        Store every start's objective at every iteration in ``info["paths"]`` (a list
        of N lists; debugging; the objective never decreases along a path).
    random_state : None, int or Generator
        Seeds the random starts.

    Returns
    -------
    ComponentResult
        ``variance`` is xᵀΣx of the returned loadings (after polishing). ``n_iter`` the
        total number of iterations over all starts (and all AM runs of a penalty
        search); ``converged`` whether the best start
        converged. ``info``: ``formulation``, ``objective`` (best AM objective, before
        truncation and polishing), ``objectives``/``iterations``/``converged`` (per
        start, shape (N,)), ``best_start``, ``n_starts``, ``strategy``, ``batch_size``,
        ``penalty`` (γ used, or None), ``am_cardinality`` (nonzeros of the AM solution
        before it was resized to s), ``am_loadings`` (that solution, shape (p,), before
        resizing and polishing), ``truncated`` (it was resized), ``products`` (operator
        calls: matmat/dot/rdot/block), ``working_set`` (features of the final screened
        working set, p for full products); with a penalty search ``penalty_search``
        (list of (γ, nonzeros) tried) and ``penalty_exact`` (a γ giving exactly s
        nonzeros was found).

    Notes
    -----
    *Cardinality.* ``l2_l0_con``/``l1_l0_con`` return s nonzeros. The L1 constraint
    ‖x‖₁ <= √s does not fix the count: the AM solution may have more (or fewer)
    nonzeros; its s largest |x_i| are then taken as the support (completed, if needed,
    by the largest |(Σx)_i|) and polished; ``info["am_cardinality"]`` reports the
    count before. Penalized formulations with ``cardinality`` and no ``penalty``: γ is
    bisected (geometrically, up to 40 AM runs on the same starts, until γ is known to
    a relative 1e-4) for a best solution
    with exactly s nonzeros; if none is found, the solution of the γ whose count is
    closest above s is truncated to its s largest entries and polished. With both
    ``cardinality`` and ``penalty``, AM runs at that γ and the support is resized to s
    the same way. Polishing can leave a loading at exactly zero when Σ[I, I] is
    reducible (e.g. a zero-variance feature), so the loadings' support can then be
    smaller than s.

    *Best start.* The start with the largest AM objective is kept (ties: the lower
    start index); for the L2 formulations this is the largest variance before polishing.
    """
    _check_op(op, "am")
    validate_params(
        {"formulation": formulation, "penalty": penalty, "n_starts": n_starts,
         "strategy": strategy, "batch_size": batch_size, "max_iter": max_iter, "tol": tol,
         "polish": polish, "screen": screen, "record_path": record_path},
        {"formulation": [Options(FORMULATIONS)], "penalty": [None, Interval("real", 0, None)],
         "n_starts": [None, Interval("int", 1, None)], "strategy": [Options(STRATEGIES)],
         "batch_size": [None, Interval("int", 1, None)], "max_iter": [Interval("int", 1, None)],
         "tol": [Interval("real", 0, None)], "polish": [bool],
         "screen": [bool, Options(["auto"])], "record_path": [bool]},
        where="am",
    )
    return _am(op, cardinality, formulation=formulation, penalty=penalty, n_starts=n_starts,
               strategy=strategy, batch_size=batch_size, max_iter=max_iter, tol=tol,
               init=init, polish=polish, screen=screen, record_path=record_path,
               random_state=random_state, method="am", default_starts=AM_DEFAULT_STARTS)


@register("tpower", summary="Truncated power method (Yuan & Zhang): AM for l2_l0_con.")
def tpower(op: Operator, cardinality, *, n_starts=None, init="auto", strategy: str = "otf",
           batch_size=None, max_iter: int = 200, tol: float = 1e-7, polish: bool = True,
           screen="auto", record_path: bool = False, random_state=None):
    """Truncated power method (Yuan & Zhang 2013): ``x ← T_s(Σx)/‖T_s(Σx)‖``.

    The same code as :func:`am` with ``formulation="l2_l0_con"``; options as there.
    Default (``init="auto"``, ``n_starts=None``): two starts, ``e_i`` at the feature of
    largest variance and the approximate-greedy solution at cardinality s; the better
    fixed point is kept. From a single word the iteration grows the group of features
    that co-vary with it; the greedy start secures at least approximate greedy's
    variance. (KOS, 8 disjoint components of 15 words, uncentered: total variance 42.80
    with both starts, 41.45 with the single coordinate start, 40.11 with the classic
    start on the s largest-variance features.) With ``n_starts`` given, ``"auto"`` means
    coordinate and random starts as in :func:`am`.
    ``init="variance"`` gives that classic start; ``n_starts > 1`` adds starts (see
    :func:`am`).
    """
    _check_op(op, "tpower")
    validate_params(
        {"n_starts": n_starts, "strategy": strategy, "batch_size": batch_size,
         "max_iter": max_iter, "tol": tol, "polish": polish, "screen": screen,
         "record_path": record_path},
        {"n_starts": [None, Interval("int", 1, None)], "strategy": [Options(STRATEGIES)],
         "batch_size": [None, Interval("int", 1, None)], "max_iter": [Interval("int", 1, None)],
         "tol": [Interval("real", 0, None)], "polish": [bool],
         "screen": [bool, Options(["auto"])], "record_path": [bool]},
        where="tpower",
    )
    if cardinality is None:
        raise InvalidParameterError("tpower: parameter 'cardinality' is required (an int in "
                                    f"[1, n_features={op.n_features}]); got None.")
    if isinstance(init, str) and init == "auto" and n_starts is None:
        init = _greedy_and_coordinate_starts(op, cardinality)
    return _am(op, cardinality, formulation="l2_l0_con", penalty=None, n_starts=n_starts,
               strategy=strategy, batch_size=batch_size, max_iter=max_iter, tol=tol,
               init=init, polish=polish, screen=screen, record_path=record_path,
               random_state=random_state, method="tpower", default_starts=1)


def _greedy_and_coordinate_starts(op: Operator, cardinality) -> np.ndarray:
    """tpower's default starts: ``e_i`` at the largest-variance feature, and the
    approximate-greedy solution at the same cardinality (handbook Alg. 3). The
    truncated power iteration never lowers xᵀΣx from a start (Σ ⪰ 0), so the result is
    at least as good as approximate greedy's."""
    from ._greedy import approx_greedy

    if not (isinstance(cardinality, numbers.Integral) and 1 <= int(cardinality) <= op.n_features):
        return "auto"  # let _am raise its clear error
    e = np.zeros(op.n_features)
    e[int(np.argmax(np.asarray(op.diag(), dtype=float)))] = 1.0
    g = approx_greedy(op, int(cardinality)).loadings
    return np.column_stack([e, g])


def _check_init(init, p):
    if isinstance(init, str):
        if init not in INITS:
            raise InvalidParameterError(
                f"parameter 'init' must be one of {', '.join(map(repr, INITS))} or an array of "
                f"shape (p,) or (p, n_starts) with p={p}; got {init!r}.")
        return None
    try:
        A = np.asarray(init, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"parameter 'init' must be one of {', '.join(map(repr, INITS))} or a numeric array; "
            f"got {type(init).__name__}.") from exc
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2 or A.shape[0] != p or A.shape[1] == 0:
        raise InvalidParameterError(
            f"parameter 'init' as an array must have shape (p,) or (p, n_starts) with "
            f"p={p}; got shape {np.shape(init)}.")
    if not np.all(np.isfinite(A)):
        raise InvalidParameterError("parameter 'init' contains NaN or infinite values.")
    return A


def _am(op, cardinality, *, formulation, penalty, n_starts, strategy, batch_size, max_iter,
        tol, init, polish, screen, record_path, random_state, method, default_starts):
    p = int(op.n_features)
    form = FORMULATIONS[formulation]
    sp_piece = form.sparsity
    if form.variance.needs_data and not op.has_data:
        raise InvalidParameterError(
            f"{method}: parameter 'formulation'={formulation!r} measures variance by ‖Ax‖₁ "
            f"(L1 variance), which needs the data matrix A (op.dot/op.rdot); a {op.kind} "
            "only gives Σ. Pass the data (DenseData/SparseData, or op.factor() for a square "
            "root of Σ) or use an L2-variance formulation ('l2_...').")
    if cardinality is not None:
        if (not isinstance(cardinality, numbers.Integral) or isinstance(cardinality, bool)
                or not 1 <= int(cardinality) <= p):
            raise InvalidParameterError(
                f"{method}: parameter 'cardinality' must be an int in [1, n_features={p}] or "
                f"None; got {cardinality!r}.")
        cardinality = int(cardinality)
    if sp_piece.constrained:
        if cardinality is None:
            raise InvalidParameterError(
                f"{method}: parameter 'cardinality' is required by the constrained formulation "
                f"{formulation!r}; got None.")
        if penalty is not None:
            raise InvalidParameterError(
                f"{method}: parameter 'penalty' is only used by the penalized formulations "
                f"(*_pen); formulation {formulation!r} is constrained. Got penalty={penalty!r}.")
    elif cardinality is None and penalty is None:
        raise InvalidParameterError(
            f"{method}: the penalized formulation {formulation!r} needs parameter 'penalty' "
            "(γ >= 0) or parameter 'cardinality' (γ is then searched); got neither.")
    init_array = _check_init(init, p)
    if init_array is not None:
        if n_starts is not None and n_starts != init_array.shape[1]:
            raise InvalidParameterError(
                f"{method}: parameter 'n_starts'={n_starts} disagrees with parameter 'init' "
                f"({init_array.shape[1]} starting point(s)); leave n_starts=None.")
        N = init_array.shape[1]
    else:
        N = default_starts if n_starts is None else int(n_starts)
    rng = check_random_state(random_state)

    d = np.asarray(op.diag(), dtype=float)
    s_ref = cardinality if cardinality is not None else min(p, 10)
    arrays = _Arrays(op)
    if arrays.float32:  # objective round-off of float32 iterates
        tol = max(tol, 1e-6)
    if not form.variance.screenable or screen is False or not arrays.numpy:
        cap = 0
    elif screen is True:
        cap = p
    else:
        cap = min(SCREEN_MAX_FEATURES, max(SCREEN_MIN_FEATURES, SCREEN_FEATURES_PER_START * N),
                  p // 2)
    prod = _Products(op, d, cap, m0=max(SCREEN_START_FEATURES, 4 * s_ref), arrays=arrays)
    kind = init if isinstance(init, str) else "array"
    X0 = _starts(kind, init_array, N, prod, s_ref, rng)

    if batch_size is None:
        batch_size = min(DEFAULT_BATCH, max(8, BLOCK_ENTRIES // p))
    width = {"sequential": 1, "all": N}.get(strategy, batch_size)
    width = max(1, min(width, N))
    refill = strategy == "otf"

    total_iter = [0]

    def run_at(level):
        o = _run(form, prod, level, _feasible(form, X0, level), width=width, refill=refill,
                 max_iter=max_iter, tol=tol, record_path=record_path)
        total_iter[0] += int(o.iterations.sum())
        return o

    search = None
    if sp_piece.constrained:
        gamma = None
        out = run_at(cardinality)
    elif penalty is not None:
        gamma = float(penalty)
        out = run_at(gamma)
    else:  # penalized, cardinality given: search γ (geometric bisection below the bound)
        hi = _penalty_bound(form, op, d)

        def solve_at(g, warm_start, kept):
            o = run_at(g)
            return (int(np.count_nonzero(o.x)) if o.x is not None else 0), o, None

        found = penalty_search(solve_at, cardinality, bracket=(hi * 1e-12, hi),
                               refine_rtol=PENALTY_SEARCH_RTOL, max_solves=PENALTY_SEARCH_STEPS)
        search = [(t.penalty, t.cardinality) for t in found.trials]
        gamma, out = found.best.penalty, found.best.result

    x = out.x
    am_nnz = int(np.count_nonzero(x))
    fields = dict(
        n_iter=total_iter[0],
        converged=bool(out.converged[out.best]),
        info={
            "formulation": formulation,
            "objective": float(out.objectives[out.best]),
            "objectives": out.objectives,
            "iterations": out.iterations,
            "converged": out.converged,
            "best_start": int(out.best),
            "n_starts": N,
            "strategy": strategy,
            "batch_size": width,
            "penalty": gamma,
            "am_cardinality": am_nnz,
            "am_loadings": x,
            "truncated": cardinality is not None and am_nnz != cardinality,
            "products": dict(prod.counts),
            "working_set": int(out.levels[out.best]),
        },
    )
    if search is not None:
        fields["info"]["penalty_search"] = search
        fields["info"]["penalty_exact"] = am_nnz == cardinality
    if record_path:
        fields["info"]["paths"] = out.paths
    n_conv = int(out.converged.sum())
    msg = (f"{formulation}: best of {N} start(s) (start {out.best}), "
           f"{n_conv}/{N} converged, {fields['n_iter']} iterations in all")
    if am_nnz == 0:
        warnings.warn(f"{method}: every start collapsed to x = 0 (penalty γ={gamma:g} too large "
                      "for this data); decrease 'penalty'.", RuntimeWarning, stacklevel=3)
        msg += "; all starts collapsed to x = 0 (penalty too large)"
    elif fields["info"]["truncated"]:
        msg += f"; AM solution had {am_nnz} nonzeros, resized to {cardinality}"
    return _finish(op, x, method, s=cardinality, do_polish=polish, message=msg, **fields)
