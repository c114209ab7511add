"""The working set of the default method ``auto`` (:mod:`eigensparse.solvers._auto`):
the features it searches, and the block Σ[W, W] it searches on.

W is every feature when p <= ``dense_features`` (:class:`~eigensparse.solvers._auto_settings.AutoSettings`),
and also beyond, up to ``global_features``, whenever Σ is held in memory (a
:class:`~eigensparse.operators.Covariance`, a formed Gram matrix) or costs at most
``global_form_flops`` to form: ranking features by variance means nothing on a
correlation matrix, and the strongest sparse direction is often a group of correlated
features of moderate variance. Only when Σ is neither held nor cheap is W a subset
(:func:`working_set`).
"""
from __future__ import annotations

import numpy as np

from ..operators import Covariance, Operator
from ._auto_kernels import approx_greedy_order
from ._auto_select import rows_partners
from ._auto_settings import AutoSettings
from ._greedy import _path

__all__ = ["working_block", "working_set", "full_matrix", "dense_matrix", "partner_key",
           "spectral_scores"]


def dense_matrix(op: Operator):
    """The p×p matrix of ``op`` (C-contiguous) when it is already held in memory (a
    :class:`Covariance`, or an operator whose Gram matrix the operator layer formed),
    else None."""
    if isinstance(op, Covariance):
        S = op.S
    else:
        gram = getattr(op, "gram", None)
        S = gram() if callable(gram) else None
    return None if S is None else np.ascontiguousarray(S, dtype=float)


def block_cost(op: Operator) -> float:
    """Multiply-adds to form the whole p×p matrix with ``op.block`` (inf when unknown)."""
    p = float(op.n_features)
    if dense_matrix(op) is not None:
        return p * p
    cost = getattr(op, "_product_cost", None)
    if callable(cost):  # a data operator: about n·p² (dense), less for sparse rows
        return float(cost()) * p / 2.0
    parent = getattr(op, "parent", None)
    if isinstance(parent, Operator):  # a deflation: the parent's block and a rank-one term
        return block_cost(parent) + 2.0 * p * p
    return np.inf


def full_matrix(op: Operator, cfg: AutoSettings):
    """The whole p×p matrix when it is held in memory or cheap to form (at most
    ``global_features`` features and ``global_form_flops`` multiply-adds), else None."""
    S = dense_matrix(op)
    if S is not None or op.n_features > cfg.global_features:
        return S
    if block_cost(op) > cfg.global_form_flops:
        return None
    S = np.asarray(op.block(np.arange(op.n_features)), dtype=float)
    return np.ascontiguousarray(0.5 * (S + S.T))


def spectral_scores(op: Operator, k: int) -> np.ndarray:
    """Each feature's weight in the leading ``k`` eigenvectors of Σ (the diagonal of the
    rank-k approximation Σ_k = Σ λ_j u_j u_jᵀ): a key that sees correlated groups of
    moderate variance, from a few dozen products with Σ."""
    import scipy.sparse.linalg as spla

    p = int(op.n_features)
    k = max(1, min(int(k), p - 2))
    lin = spla.LinearOperator((p, p), matvec=lambda v: op.matvec(np.ravel(v)),
                              matmat=lambda V: op.matmat(V), dtype=float)
    v0 = np.ones(p) / np.sqrt(p)  # deterministic
    lam, U = spla.eigsh(lin, k=k, which="LA", v0=v0, tol=1e-4, maxiter=20 * p)
    return (U * U) @ np.maximum(lam, 0.0)


def partner_key(op: Operator, s: int, cfg: AutoSettings):
    """``(J, V)`` of :func:`~eigensparse.solvers._auto_select.row_partners` for every
    feature of the whole Σ (each feature's s − 1 strongest partners and their |Σ_ij|),
    from Σ streamed in blocks of rows (``Operator.rows``) of at most ``partner_key_bytes``; None when
    that costs more than ``partner_key_flops`` multiply-adds (:func:`block_cost`, or
    the operator's own ``_form_cost``) or s = 1."""
    p = int(op.n_features)
    t = min(s - 1, p - 1)
    form = getattr(op, "_form_cost", None)  # sparse data: Σ_rows nnz², not n·p²
    if t <= 0 or not (float(form()) if callable(form) else block_cost(op)) <= cfg.partner_key_flops:
        return None
    width = int(max(1, min(p, cfg.partner_key_bytes // (8 * p))))
    J = np.empty((p, t), dtype=np.int64)
    V = np.empty((p, t))
    for lo in range(0, p, width):
        idx = np.arange(lo, min(lo + width, p))
        R = np.ascontiguousarray(op.rows(idx), dtype=float)  # Σ[idx, :]
        J[idx], V[idx] = rows_partners(R, idx, t)
    return J, V


def working_set(op: Operator, d: np.ndarray, s: int, cfg: AutoSettings, given=None):
    """``(W, warm, gershgorin)``: the working set W (sorted feature indices); when it was
    needed to build W, the warm-start support in feature indices (else None: it is
    computed on Σ[W, W]); and the Gershgorin partner bound of the whole problem when
    the partner key was computed (else None). ``given`` (a list of supports from
    ``init``) replaces the warm start: the first is the warm support, and all of them
    join W.

    Used only when Σ is not held and not cheap to form (p > ``dense_features``): W is
    the union of the features of largest variance, of largest weight in Σ's leading
    eigenvectors (:func:`spectral_scores`), and the warm start; and, when Σ can be
    streamed at most ``partner_key_flops`` (:func:`partner_key`), of largest partner
    score d_i + Σ_j∈J_i |Σ_ij| and the neighbourhoods (feature and partners) of the
    ``neighbourhood_starts`` best: variances and leading eigenvectors both miss a group
    of correlated features of moderate variance (a correlation matrix has no variance
    order; with few samples its leading eigenvectors are noise)."""
    p = op.n_features
    if p <= cfg.dense_features:
        return np.arange(p), (None if given is None else given[0]), None
    m = min(p, max(cfg.working_set_min, cfg.working_set_per_card * s))
    top = np.argsort(-d, kind="stable")[:m]
    spec = np.argsort(-spectral_scores(op, cfg.spectral_vectors), kind="stable")[:m]
    top = np.union1d(top, spec)
    gershgorin = None
    key = partner_key(op, s, cfg) if given is None else None  # (a warm re-solve explores less)
    if key is not None:
        J, V = key
        score = d + V.sum(axis=1)
        gershgorin = float(score.max())
        ranked = np.argsort(-score, kind="stable")
        hoods = ranked[:cfg.neighbourhood_starts]
        top = np.union1d(top, np.concatenate([ranked[:m], hoods, J[hoods].ravel()]))
    if given is not None:
        return np.union1d(top, np.concatenate(given)), given[0], gershgorin
    warm = np.sort(_path(op, s, cfg.warm_start)[0])
    return np.union1d(top, warm), warm, gershgorin


def working_block(op: Operator, s: int, cfg: AutoSettings, given=None):
    """``(W, B, warm, gershgorin)``: the working set W (sorted feature ids), its symmetric
    C-contiguous block B = Σ[W, W], the approximate-greedy support at cardinality s
    (positions in W), or ``given[0]`` when supports are given, and the whole problem's
    Gershgorin partner bound when :func:`working_set` computed it (else None). W is
    every feature when p <= ``dense_features`` or when Σ is held or cheap to form
    (:func:`full_matrix`)."""
    p = int(op.n_features)
    S = full_matrix(op, cfg) if p > cfg.dense_features else None
    gershgorin = None
    if S is not None:
        W, B, warm = np.arange(p), S, (None if given is None else given[0])
    else:
        d = np.asarray(op.diag(), dtype=float)
        W, warm, gershgorin = working_set(op, d, s, cfg, given)
        B = np.asarray(op.block(W), dtype=float)
        B = np.ascontiguousarray(0.5 * (B + B.T))
    if warm is None:
        warm = np.sort(approx_greedy_order(B, s))
    else:
        warm = np.searchsorted(W, warm)
    return W, B, warm, gershgorin
