"""The bound and the certificate of the default method ``auto``
(:mod:`eigensparse.solvers._auto`): every result carries an upper bound on the whole
problem's v(s) (:func:`upper_bound`), and on small problems the node-limited branch and
bound of ``method="exact"`` proves the answer optimal or tightens it (:func:`certify`).
"""
from __future__ import annotations

from functools import partial

import numpy as np

from ..bounds import (BOUND_DENSE, BOUND_GERSHGORIN, BOUND_THRESHOLD, _full_problem_bound,
                      _lambda_max_upper_bound)
from ..bounds._rowshift import BOUND_ROW_SHIFT, row_shift_bound
from ..bounds._rowshift_kernels import ritz
from ..bounds._threshold import threshold_bound_near
from ..operators import HotellingDeflated, Operator
from ._auto_settings import BOUND_CERTIFIED, BOUND_LAMBDA_MAX, BOUND_TREE, AutoSettings
from ._common import polish_loadings

__all__ = ["is_psd", "lambda_max_bound", "upper_bound", "tightened", "should_certify",
           "certify"]


def is_psd(op: Operator) -> bool:
    """False for a Hotelling deflation (Σ − c·xxᵀ of a non-eigenvector can be
    indefinite) anywhere in the chain; every other operator here is PSD."""
    while isinstance(op, Operator):
        if isinstance(op, HotellingDeflated):
            return False
        op = getattr(op, "parent", None)
    return True


def lambda_max_bound(B: np.ndarray, cfg: AutoSettings) -> float | None:
    """A proven upper bound on λmax(B) up to ``cholesky_bound_features`` features
    (:func:`~eigensparse.bounds.lambda_max_upper_bound`), else None."""
    if B.shape[0] > cfg.cholesky_bound_features:
        return None
    return _lambda_max_upper_bound(B, exact_below=cfg.eig_bound_features)


def upper_bound(op: Operator, W: np.ndarray, B: np.ndarray, s: int, lam: float, d_B, P,
                cfg: AutoSettings, eig: bool = True, gershgorin=None, support=None,
                defer: bool = False):
    """``(ub, name, later)``: a valid upper bound on the whole problem's v(s) and its name
    (``None`` when none is available): :func:`~eigensparse.bounds.full_problem_bound` on B
    when W is every feature, tightened by :func:`_tighter` for a PSD B, its
    working-set split otherwise, or the whole problem's Gershgorin partner bound
    ``gershgorin`` (from :func:`~eigensparse.solvers._auto_working_set.working_set`) when
    smaller. Never below the value found (rounding). ``eig=False`` (a warm re-solve of the
    refinement, which runs many) skips λmax and the tightening. ``defer``: the tightening
    is not run; ``later`` (else None) computes it, ``(ub, {"bound": name})`` (the
    :class:`~eigensparse._result.PendingBound` of a result whose bound is computed on
    first read), from what it holds: B, s, lam, the support and the settings."""
    p = int(op.n_features)
    psd = is_psd(op)
    if W.size >= p:  # min(trace, Gershgorin) at s: each is nondecreasing in s
        g = float(d_B.max()) if s == 1 else float((d_B + P[:, s - 2]).max())
        ub = min(float(np.sort(d_B)[::-1][:s].sum()), g) if psd else g
        name = BOUND_DENSE if psd else BOUND_GERSHGORIN
        if psd and eig:
            later = partial(tightened, B, s, float(lam), None if support is None
                            else np.array(support), ub, name, cfg)
            if defer and np.isfinite(ub):
                return _final(ub, name, lam, cfg) + (later,)
            ub, entries = later()
            return ub, entries["bound"], None
    else:
        ub, name = _full_problem_bound(op, s, working_set=W, block=B, psd=psd, partners=P)
        if gershgorin is not None and gershgorin < ub:
            ub, name = gershgorin, BOUND_GERSHGORIN
    return _final(ub, name, lam, cfg) + (None,)


def _final(ub: float, name: str, lam: float, cfg: AutoSettings) -> tuple:
    """``(ub, name)`` reported: at least ``lam`` (rounding) with ``bound_margin``, or
    ``(None, None)`` when ``ub`` is not finite."""
    if not np.isfinite(ub):
        return None, None
    return max(float(ub), float(lam)) * (1 + cfg.bound_margin), name


def tightened(B: np.ndarray, s: int, lam: float, support, ub: float, name: str,
              cfg: AutoSettings):
    """``(ub, {"bound": name})``: the bound ``ub`` (named ``name``) tightened by
    :func:`_tighter` on the whole PSD matrix B, as :func:`upper_bound` reports it."""
    ub, name = _final(*_tighter(B, s, lam, support, ub, name, cfg), lam, cfg)
    return ub, {"bound": name}


def _tighter(B: np.ndarray, s: int, lam: float, support, ub: float, name: str,
             cfg: AutoSettings):
    """``(ub, name)`` tightened on the whole PSD matrix B: λmax(B) up to
    ``cholesky_bound_features`` features; then, while the gap is above ``row_shift_gap``
    (s > 1), the row-shift dual :func:`~eigensparse.bounds._rowshift.row_shift_bound` from
    ``row_shift_min_features`` to ``row_shift_features`` features (and λmax(B) beyond
    ``cholesky_bound_features`` if a Lanczos estimate says it is smaller), else the
    soft-threshold bound
    :func:`~eigensparse.bounds._threshold.threshold_bound_near` at penalties keeping at
    most ``cholesky_bound_features`` features."""
    p = B.shape[0]

    def better(u, n):
        return (u, n) if u < ub else (ub, name)

    def open_gap():
        return s > 1 and ub - lam > cfg.row_shift_gap * ub

    if p <= cfg.cholesky_bound_features:
        top = lambda_max_bound(B, cfg)
        if top is not None:
            ub, name = better(top, BOUND_LAMBDA_MAX)
    if not open_gap():
        return ub, name
    if not cfg.row_shift_min_features <= p <= cfg.row_shift_features:
        return better(threshold_bound_near(B, s, lam, max_features=cfg.cholesky_bound_features)[0],
                      BOUND_THRESHOLD)
    ub, name = better(row_shift_bound(B, s, lam, support, core=cfg.row_shift_core,
                                      steps=cfg.row_shift_steps,
                                      lanczos=cfg.row_shift_lanczos)[0], BOUND_ROW_SHIFT)
    if open_gap() and p > cfg.cholesky_bound_features \
            and ritz(B, np.ones(p), cfg.row_shift_lanczos)[0] < ub:
        top = _lambda_max_upper_bound(B, exact_below=0)
        if top is not None:
            ub, name = better(top, BOUND_LAMBDA_MAX)
    return ub, name


def should_certify(op: Operator, m: int, s: int, lam: float, ub, warm_resolve: bool,
                   cfg: AutoSettings) -> bool:
    """Whether the answer goes to the node-limited branch and bound: a small PSD problem
    (p <= ``certify_features``) searched whole, not a warm re-solve, with a bound that
    does not already close the gap."""
    p = int(op.n_features)
    return (not warm_resolve and m == p and s < p and p <= cfg.certify_features
            and ub is not None and ub - lam > cfg.certify_tol * ub and is_psd(op))


def certify(op: Operator, B: np.ndarray, s: int, support: np.ndarray, z: np.ndarray,
            lam: float, ub: float, bound: str, cfg: AutoSettings):
    """The answer handed to :func:`~eigensparse.solvers._exact.prove_support` (at most
    ``certify_nodes`` nodes, deterministic work) on the whole matrix B: ``(z, lam, ub,
    bound, certified, nodes)``, with any better support it met (polished), the bound
    ``BOUND_CERTIFIED`` when it closed, else its tighter bound (``BOUND_TREE``) when
    it has one."""
    from ._exact import prove_support  # the branch and bound, node-limited

    best_sup, v, ub_bb, certified, nodes = prove_support(
        B, s, support, max_nodes=cfg.certify_nodes, tol=cfg.certify_tol)
    if v > lam * (1 + 1e-12):  # the search found a better support
        z, lam = polish_loadings(op, best_sup)
    if certified:
        ub, bound = float(lam), BOUND_CERTIFIED
    elif ub_bb < ub:
        ub, bound = max(float(ub_bb), float(lam)) * (1 + cfg.bound_margin), BOUND_TREE
    return z, lam, ub, bound, certified, nodes
