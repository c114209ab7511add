"""Two single-component baselines of the bipartite paper's experiments.

- ``emspca``: expectation–maximization for sparse PCA (Sigg & Buhmann, ICML 2008).
  EM for PCA in the noise-free limit alternates the E-step y = A w / ‖w‖² (latent
  coordinates) and the M-step w = Aᵀy / ‖y‖², i.e. w ← Σw up to scale. The M-step
  minimizes ‖A − y wᵀ‖²_F, an isotropic quadratic around w° = Aᵀy/‖y‖²; under an L1
  bound its solution is the soft-thresholding of w°, and Sigg & Buhmann set the bound
  implicitly by following that path from the origin until K coordinates are active:
  w = sign(w°)·(|w°| − |w°|_(K+1))₊. After convergence the loadings on the support are
  polished (the leading eigenvector of Σ[I, I]).
- ``spanspca``: sparse PCA through a low-rank approximation (Papailiopoulos, Dimakis &
  Korokythakis, ICML 2013). With Σ_d = V_d Λ_d V_dᵀ (rank d), every vector
  v(c) = V_d Λ_d^½ c, c on the unit sphere, proposes the support of its s largest
  |entries|; the candidate support maximizing λmax(Σ_d[I, I]) = σmax(Λ_d^½ V_d[I]ᵀ)² is
  kept (the best few are compared on the true Σ), and polished. The sphere is sampled
  (a fine angle grid for d = 2, random points plus the axes otherwise).

Both are single-component solvers (``solver(op, s, *, random_state, **options)``) and
work with every deflation scheme, ``deflation="disjoint"`` included.
"""
from __future__ import annotations

from numbers import Integral, Real


import numpy as np

from .._validation import Interval, InvalidParameterError, StrOptions
from ..operators import Operator
from . import register
from ._simple import _check_problem
from ._common import check_random_state, make_result
from ._common import polish as _polish_support

__all__ = ["emspca", "spanspca"]

#: up to this many features the leading eigenvectors come from a dense eigendecomposition
DENSE_MAX_FEATURES = 500


def _top_eigs(op: Operator, d: int, rng: np.random.Generator):
    """Top-d eigenpairs (descending, eigenvalues clipped at 0) of the operator."""
    p = op.n_features
    if p <= DENSE_MAX_FEATURES or d >= p - 1:
        w, Q = np.linalg.eigh(op.to_dense())
        w, Q = w[::-1][:d], Q[:, ::-1][:, :d]
    else:
        from scipy.sparse.linalg import LinearOperator, eigsh

        L = LinearOperator((p, p), matvec=op.matvec, matmat=op.matmat, dtype=float)
        w, Q = eigsh(L, k=d, which="LA", v0=rng.standard_normal(p))
        order = np.argsort(w)[::-1]
        w, Q = w[order], Q[:, order]
    return np.clip(w, 0.0, None), np.ascontiguousarray(Q)


def _top_k(a: np.ndarray, s: int, tie: np.ndarray) -> np.ndarray:
    """Indices of the s largest ``a`` (ties: larger ``tie``, then lower index); sorted."""
    order = np.lexsort((np.arange(a.size), -tie, -a))
    return np.sort(order[:s])


# ---------------------------------------------------------------------------------------
# EM-SPCA
# ---------------------------------------------------------------------------------------
def _em_threshold(w0: np.ndarray, K: int, diag: np.ndarray, nonnegative: bool):
    """The M-step under the cardinality constraint: support I (exactly K) and weights."""
    if nonnegative:
        if w0.max(initial=0.0) <= 0 and w0.min(initial=0.0) < 0:
            w0 = -w0  # the sign of an eigenvector is arbitrary: take the positive orthant
        a = np.clip(w0, 0.0, None)
    else:
        a = np.abs(w0)
    I = _top_k(a, K, diag)
    rest = np.delete(a, I)
    tau = rest.max() if rest.size else 0.0  # |w°|_(K+1): where the (K+1)-th would enter
    w = np.zeros_like(w0)
    w[I] = np.sign(w0[I]) * np.clip(a[I] - tau, 0.0, None)
    if nonnegative:
        w[I] = np.clip(a[I] - tau, 0.0, None)
    if not np.any(w):
        w[I] = np.where(a[I] > 0, np.sign(w0[I]) if not nonnegative else 1.0, 1.0)
    return I, w / np.linalg.norm(w)


@register("emspca", cost="O(p·n) per iteration (one Σ·x product)", summary="EM for sparse PCA (Sigg & Buhmann 2008): power-like EM with an "
                            "L0-constrained M-step.",
          constraints={"max_iter": [Interval(Integral, 1, None, closed="left")],
                       "tol": [Interval(Real, 0, None, closed="left")],
                       "n_starts": [Interval(Integral, 1, None, closed="left")],
                       "init": [StrOptions({"pca", "random"})],
                       "nonnegative": [bool],
                       "polish": [bool]})
def emspca(op: Operator, cardinality: int, *, max_iter: int = 200, tol: float = 1e-9,
           n_starts: int = 1, init: str = "pca", nonnegative: bool = False, polish: bool = True,
           random_state=None):
    """EM-SPCA (Sigg & Buhmann, ICML 2008) for one component of exactly ``cardinality``.

    Parameters
    ----------
    op : Operator
        The p×p covariance Σ (only ``matmat``/``diag``/``block`` are used, so a
        precomputed covariance works too).
    cardinality : int
        Number K of nonzero loadings, 1 <= K <= p.
    max_iter : int, default=200
        EM iterations per start.
    tol : float, default=1e-9
        Stop when the support is unchanged and ‖w − w_prev‖ < tol.
    n_starts : int, default=1
        Number of starts: the first from ``init``, the others random; the best is kept.
    init : {"pca", "random"}, default="pca"
        First start: the leading eigenvector of Σ (unconstrained PCA) or a random vector.
    nonnegative : bool, default=False
        Also constrain the loadings to be nonnegative (the paper's non-negative variant).
    polish : bool, default=True
        Replace the converged weights by the leading eigenvector of Σ[I, I] on the
        support (with ``nonnegative`` the EM weights are kept: the eigenvector could change
        sign).
    random_state : None, int or Generator

    Returns
    -------
    ComponentResult
        ``info``: ``"objective_em"`` (wᵀΣw of the EM weights before polishing),
        ``"start_values"`` (one per start), ``"iterations"``.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("emspca").func(S, 3)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 8], 2.475)
    """
    K = _check_problem(op, cardinality, "emspca")
    rng = check_random_state(0 if random_state is None else random_state)
    p = op.n_features
    diag = op.diag()
    best = None
    values, iters = [], []
    converged_all = True
    for start in range(n_starts):
        if start == 0 and init == "pca":
            w = _top_eigs(op, 1, rng)[1][:, 0]
        else:
            w = rng.standard_normal(p)
        w = w / max(np.linalg.norm(w), 1e-300)
        I_prev = None
        conv = False
        for it in range(1, max_iter + 1):
            w0 = op.matvec(w)  # Aᵀ(Aw) ∝ the unconstrained M-step
            if not np.any(w0):
                w0 = diag.astype(float).copy()
            I, w_new = _em_threshold(w0, K, diag, nonnegative)
            done = I_prev is not None and np.array_equal(I, I_prev) and \
                np.linalg.norm(w_new - w) < tol
            w, I_prev = w_new, I
            if done:
                conv = True
                break
        converged_all &= conv
        em_value = float(op.quad(w))
        if polish and not nonnegative:
            res = _polish_support(op, I_prev, "emspca")
            value = res.variance
        else:
            res, value = None, em_value
        values.append(value)
        iters.append(it)
        if best is None or value > best[0]:
            best = (value, res, w, I_prev, em_value)
    value, res, w, I, em_value = best
    info = {"objective_em": em_value, "start_values": values, "iterations": iters}
    if res is None:
        return make_result(op, w, "emspca", variance=float(op.quad(w)), n_iter=int(sum(iters)),
                           converged=converged_all, message="EM-SPCA", info=info)
    return _polish_support(op, I, "emspca", n_iter=int(sum(iters)), converged=converged_all,
                           message="EM-SPCA, loadings polished on the support", info=info)


# ---------------------------------------------------------------------------------------
# SpanSPCA
# ---------------------------------------------------------------------------------------
def _sphere_samples(d: int, n: int, rng) -> np.ndarray:
    """n points of the unit sphere of R^d up to sign, shape (d, n): a uniform angle grid
    for d = 2, the axes plus uniform random points otherwise."""
    if d == 1:
        return np.ones((1, 1))
    if d == 2:
        phi = np.arange(n) * (np.pi / n)
        return np.vstack([np.cos(phi), np.sin(phi)])
    C = rng.standard_normal((d, n))
    C[:, :d] = np.eye(d)
    return C / np.linalg.norm(C, axis=0, keepdims=True)


@register("spanspca", cost="O(p·d² + samples·p·d) on a rank-d sketch", summary="Sparse PCA through a rank-d approximation (Papailiopoulos, "
                              "Dimakis & Korokythakis 2013): top-s supports in the span.",
          constraints={"rank": [Interval(Integral, 1, None, closed="left")],
                       "n_samples": [Interval(Integral, 1, None, closed="left")],
                       "n_check": [Interval(Integral, 1, None, closed="left")],
                       "batch_size": [Interval(Integral, 1, None, closed="left")]})
def spanspca(op: Operator, cardinality: int, *, rank: int = 3, n_samples: int = 4000,
             n_check: int = 16, batch_size: int = 512, random_state=None):
    """SpanSPCA: the best top-s support among vectors of the rank-``rank`` principal span.

    Parameters
    ----------
    op : Operator
    cardinality : int
        Support size s, 1 <= s <= p.
    rank : int, default=3
        Rank d of the approximation Σ_d (at most n_features).
    n_samples : int, default=4000
        Points c of the unit sphere of R^d tried (each gives one candidate support).
    n_check : int, default=16
        The best distinct candidate supports under Σ_d that are compared on the true Σ.
    batch_size : int, default=512
    random_state : None, int or Generator

    Returns
    -------
    ComponentResult
        Loadings polished on the chosen support (variance λmax(Σ[I, I])). ``info``:
        ``"surrogate_value"`` (λmax(Σ_d[I, I]) of the chosen support), ``"n_supports"``
        (distinct supports seen), ``"eigenvalues"`` (of Σ_d).

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.solvers import get_solver
    >>> S = es.Covariance(es.datasets.load_pitprops().data)
    >>> res = get_solver("spanspca").func(S, 3, random_state=0)
    >>> res.support.tolist(), round(res.variance, 3)
    ([0, 1, 8], 2.475)
    """
    s = _check_problem(op, cardinality, "spanspca")
    p = op.n_features
    if rank > p:
        raise InvalidParameterError(
            f"spanspca: parameter 'rank' must be <= n_features={p}; got {rank}.")
    rng = check_random_state(0 if random_state is None else random_state)
    lam, U = _top_eigs(op, rank, rng)
    V = U * np.sqrt(lam)  # p × d, Σ_d = V Vᵀ
    C = _sphere_samples(rank, n_samples, rng)
    seen = {}
    for start in range(0, C.shape[1], batch_size):
        Cb = C[:, start:start + batch_size]
        A = np.abs(Cb.T @ V.T)  # b × p: |v(c)| for each sampled c
        if s < p:
            part = np.argpartition(-A, s - 1, axis=1)[:, :s]
        else:
            part = np.broadcast_to(np.arange(p), A.shape)
        supports = np.unique(np.sort(part, axis=1), axis=0)  # (b', s), distinct
        # surrogate value: λmax(Σ_d[I, I]) = σmax(V[I])², via the d×d Gram V[I]ᵀV[I]
        VI = V[supports]  # (b, s, d)
        G = np.einsum("bsi,bsj->bij", VI, VI)
        vals = np.linalg.eigvalsh(G)[:, -1]
        for t in range(supports.shape[0]):
            key = supports[t].tobytes()
            if key not in seen:
                seen[key] = (float(vals[t]), supports[t])
    ranked = sorted(seen.values(), key=lambda v: -v[0])[:n_check]
    best = None
    for sval, I in ranked:
        res = _polish_support(op, I, "spanspca")
        if best is None or res.variance > best[0].variance:
            best = (res, sval, I)
    res, sval, I = best
    return _polish_support(op, I, "spanspca", n_iter=int(C.shape[1]), converged=True,
                           message=(f"best of {len(seen)} candidate supports from a "
                                    f"rank-{rank} span"),
                           info={"surrogate_value": sval, "n_supports": len(seen),
                                 "eigenvalues": lam})
