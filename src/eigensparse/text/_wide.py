"""Wide problems: the topic pipeline's bounded working-set search on any operator.

With many features (p beyond :data:`WIDE_FEATURES`) the default method's deflation
chain on the whole operator is slow: every solve of the chain, of its partner chains
and of the refinement's sweeps searches the whole (deflated) operator again, and
with p in the thousands none of them can hold Σ, so each one streams it to rank its
partners. The topic pipeline (:mod:`eigensparse.text._pipeline`) reaches the same
problem through a **working set**: the features of largest variance and of strongest
partners, measured once (:func:`eigensparse.text._screen.rank_pool`), their dense
covariance Σ[W, W] formed once (``op.block``), and every solve of the chain and the
refinement run on it (:func:`eigensparse.text._pipeline.solve_topics`).

:func:`solve_wide` runs that search on the operator the dispatcher was given, for a
plan of the default method with its default options, several components and given
cardinalities, and returns the components on the operator's features. Each component
carries the pipeline's record (``info["working_set_safe"]``: no single exchange with a
feature left out can improve it) and an upper bound on its problem over **every**
feature (:func:`eigensparse.text._screen.full_vocabulary_bound`: the working set's
bound plus the largest variances left out), so ``upper_bound`` and ``gap`` keep their
meaning. Nothing is timed: the answer depends on the seeds only.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

__all__ = ["WIDE_FEATURES", "WORKING_SET", "POOL_SIZE", "POOL_FLOPS", "wide_applies", "solve_wide"]

#: the working-set search replaces the whole-operator chain beyond this many features
#: (the default method searches a held or cheap Σ whole up to this size:
#: ``eigensparse.solvers._auto_settings.AutoSettings.global_features``)
WIDE_FEATURES = 4096
#: initial working-set size (None: the topic pipeline's, max(1000, 10·k·s) features)
WORKING_SET = None
#: candidate pool whose partner scores rank the working set (the topic pipeline's)
POOL_SIZE = 3000
#: ... smaller when its covariance would cost more multiply-adds than this
POOL_FLOPS = 2e10


class _OperatorPasses:
    """What :class:`eigensparse.text._working_set.WorkingSet` reads of a corpus's
    passes, from an operator: the covariance of a working set (``op.block``: already
    centered and scaled) and the number of samples."""

    def __init__(self, op):
        self.op = op
        self.corpus = type("Samples", (), {"n_docs": int(op.n_samples or 1)})()
        self.passes: list = []
        self._held = None  # (sorted ids, their covariance): the largest formed so far

    def gram(self, ws, label):
        """Σ[ws, ws] (``ws`` sorted): a slice of the covariance already formed when it
        covers ``ws``, else formed (``op.block``) and kept."""
        ws = np.asarray(ws)
        if self._held is not None:
            ids, G = self._held
            pos = np.searchsorted(ids, ws)
            if np.all(pos < ids.size) and np.array_equal(ids[np.minimum(pos, ids.size - 1)], ws):
                return G[np.ix_(pos, pos)]
        B = np.asarray(self.op.block(ws), dtype=float)
        B = 0.5 * (B + B.T)
        self._held = (ws, B)
        return B


class _Clock:
    def lap(self, label):
        pass


def wide_applies(op, plan) -> bool:
    """Whether :func:`solve_wide` takes ``plan`` on ``op``: the default method with its
    default options, several components of given cardinalities (no penalty, no
    ``"auto"`` rule), more than :data:`WIDE_FEATURES` features, a deflation that keeps
    Σ positive semidefinite (the bounds need it), and enough features of positive
    variance for the cardinalities."""
    from ..registry import DEFAULT_METHOD, get_method

    cards = plan.cardinalities
    if (plan.spec is not get_method(DEFAULT_METHOD) or plan.options or plan.auto is not None
            or plan.n_components < 2 or op.n_features <= WIDE_FEATURES
            or any(c is None for c in cards) or plan.deflation == "hotelling"):
        return False
    return True


def _pool(op, var, m: int) -> np.ndarray:
    """The candidate pool: the ``POOL_SIZE`` (at least ``m``) features of largest
    variance, fewer when their covariance would cost more than ``POOL_FLOPS``."""
    from ..operators import Covariance

    by_var = np.argsort(-var, kind="stable")
    n_pos = int(np.count_nonzero(var > 0))
    P = min(max(POOL_SIZE, m), n_pos)
    while P > m and not isinstance(op, Covariance):  # a held Σ: the pool is a slice
        sub = op.restrict(np.sort(by_var[:P]))
        form = getattr(sub, "_form_cost", None)
        cost = float(form()) if callable(form) else float(sub.n_samples or P) * P * P
        if cost <= POOL_FLOPS:
            break
        P = max(m, P // 2)
    return np.sort(by_var[:P])


def solve_wide(op, plan, progress=None):
    """The components of ``plan`` on the wide operator ``op`` by the topic pipeline's
    working-set search, or None when :func:`wide_applies` says no.

    Returns
    -------
    list of ComponentResult or None
        Loadings on ``op``'s features (variances and bounds as the pipeline reports
        them: on the working-set operator each solve saw; the bound over every
        feature).
    """
    if not wide_applies(op, plan):
        return None
    from ._config import TopicConfig
    from ._pipeline import solve_topics
    from ._screen import rank_pool
    from ._working_set import WorkingSet, auto_working_set

    var = np.asarray(op.diag(), dtype=float)
    n_pos = int(np.count_nonzero(var > 0))
    cards = [int(c) for c in plan.cardinalities]
    smax = max(cards)
    need = sum(cards) if plan.deflation == "disjoint" else smax
    if need > n_pos:
        return None  # the whole-operator chain says which components fall short
    cfg = TopicConfig(max_time=math.inf, working_set_rule="partner")
    cap = min(cfg.max_working_set, n_pos)
    m = auto_working_set(plan.n_components, smax) if WORKING_SET is None else int(WORKING_SET)
    m = min(cap, max(m, sum(cards) + smax if plan.deflation == "disjoint" else 2 * smax))
    wset = WorkingSet(_OperatorPasses(op), var, np.zeros(var.size), center=False, cap=cap,
                      clock=_Clock(), messages=[], progress=False, config=cfg)
    if m < n_pos:
        pool = _pool(op, var, m)
        wset.ranking = rank_pool(var, pool, wset.passes.gram(pool, "pool"), m, smax).order
    wset.load(m)
    results = solve_topics(wset, plan, cfg)
    if progress is not None:
        progress.update(plan.n_components)
    out = []
    for r in _bounded(wset, plan, results):
        x = np.zeros(op.n_features)
        x[wset.ws] = np.asarray(r.loadings, dtype=float)
        info = {**(r.info or {}), "working_set_size": int(wset.ws.size)}
        out.append(replace(r, loadings=x, support=np.flatnonzero(x), info=info))
    return out


def _bounded(wset, plan, results: list) -> list:
    """Every result with a bound over every feature: those the refinement replaced carry
    the re-solve's bound on the working set only (no ``working_set_upper_bound``: the
    pipeline gave the disjoint ones theirs), replaced here by the vocabulary split
    bound on the problem they were last solved on: Schur-deflated by the others (the
    refinement's criterion)."""
    from ._topic_bound import vocabulary_bound
    from ..multi._refine import schur_deflated_matrix

    out = []
    for j, r in enumerate(results):
        if "working_set_upper_bound" not in (r.info or {}):
            others = [q for i, q in enumerate(results) if i != j]
            used, cov = None, wset.op
            if plan.deflation == "disjoint":
                used = np.zeros(wset.ws.size, dtype=bool)
                for q in others:
                    used[q.support] = True
            else:
                cov = schur_deflated_matrix(wset.op, [np.asarray(q.loadings) for q in others])
            r = vocabulary_bound(wset, replace(r, upper_bound=None, gap=None), cov,
                                 int(plan.cardinalities[j]), plan.deflation, used=used)
        out.append(r)
    return out
