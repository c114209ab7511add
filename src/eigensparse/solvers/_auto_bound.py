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
from ._auto_starts import partners
from ._auto_settings import BOUND_CERTIFIED, BOUND_LAMBDA_MAX, BOUND_TREE, AutoSettings
from ._common import polish_loadings

__all__ = ["is_psd", "lambda_max_bound", "upper_bound", "defers", "whole_bound",
           "should_certify", "certify"]


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
    when W is every feature (``d_B``, ``P``: B's variances and partner sums from
    :func:`~eigensparse.solvers._auto_starts.partners`, computed here when None),
    tightened by :func:`whole_bound` for a PSD B, its working-set split otherwise, or the
    whole problem's Gershgorin partner bound ``gershgorin`` (from
    :func:`~eigensparse.solvers._auto_working_set.working_set`) when smaller. Never below
    the value found (rounding). ``eig=False`` (a warm re-solve of the refinement, which
    runs many) skips λmax and the tightening. ``defer`` (see :func:`defers`): the bound of a
    PSD B searched whole is not computed; ``later`` (else None) computes it,
    ``(ub, {"bound": name})`` (the :class:`~eigensparse._result.PendingBound` of a result
    whose bound is computed on first read), from what it holds: B, s, lam, the support and
    the settings; ``ub`` is then the trace bound, which that first read replaces."""
    p = int(op.n_features)
    psd = is_psd(op)
    if W.size >= p and psd and eig:
        sup = None if support is None else np.array(support)
        if defer:  # the partner sums too are computed on the first read
            trace = float(np.sort(np.diag(B))[::-1][:s].sum())
            return _final(trace, BOUND_DENSE, lam, cfg) + (partial(whole_bound, B, s, float(lam),
                                                                   sup, cfg),)
        ub, entries = whole_bound(B, s, float(lam), sup, cfg, d_B, P)
        return ub, entries["bound"], None
    if W.size >= p:  # min(trace, Gershgorin) at s: each is nondecreasing in s
        if P is None:
            d_B, P, _ = partners(B, s)
        ub, name = _cheap(d_B, P, s, psd)
    else:
        ub, name = _full_problem_bound(op, s, working_set=W, block=B, psd=psd, partners=P)
        if gershgorin is not None and gershgorin < ub:
            ub, name = gershgorin, BOUND_GERSHGORIN
    return _final(ub, name, lam, cfg) + (None,)


def defers(op: Operator, m: int, warm_resolve: bool, cfg: AutoSettings) -> bool:
    """Whether :func:`upper_bound` leaves the bound to the first read (``defer``): the whole
    problem searched (``m`` = p) on a PSD Σ, not a warm re-solve, beyond
    ``certify_features`` (up to there the branch and bound's decision needs it)."""
    p = int(op.n_features)
    return m >= p and p > cfg.certify_features and not warm_resolve and is_psd(op)


def _cheap(d_B: np.ndarray, P: np.ndarray, s: int, psd: bool) -> tuple:
    """``(ub, name)``: min(trace, Gershgorin partner bound) at s for a PSD B, the
    Gershgorin bound alone otherwise (each is nondecreasing in s)."""
    g = float(d_B.max()) if s == 1 else float((d_B + P[:, s - 2]).max())
    if not psd:
        return g, BOUND_GERSHGORIN
    return min(float(np.sort(d_B)[::-1][:s].sum()), g), BOUND_DENSE


def whole_bound(B: np.ndarray, s: int, lam: float, support, cfg: AutoSettings, d_B=None,
                P=None):
    """``(ub, {"bound": name})``: the bound on v(s) of the whole PSD matrix B, as
    :func:`upper_bound` reports it: min(trace, Gershgorin partner bound) (``d_B``, ``P``
    from :func:`~eigensparse.solvers._auto_starts.partners`, computed here when None: the
    null features the search may drop change neither) tightened by :func:`_tighter`."""
    if P is None:
        d_B, P, _ = partners(B, s)
    ub, name = _final(*_tighter(B, s, lam, support, *_cheap(d_B, P, s, True), cfg), lam, cfg)
    return ub, {"bound": name}


def _final(ub: float, name: str, lam: float, cfg: AutoSettings) -> tuple:
    """``(ub, name)`` reported: at least ``lam`` (rounding) with ``bound_margin``, or
    ``(None, None)`` when ``ub`` is not finite."""
    if not np.isfinite(ub):
        return None, None
    return max(float(ub), float(lam)) * (1 + cfg.bound_margin), name


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
