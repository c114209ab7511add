"""A topic's bound over the whole vocabulary, and its certificate computed once, for the
topics kept.

:func:`vocabulary_bound` gives a topic the cheap bound of its problem over every word
(:func:`~eigensparse.text._screen.full_vocabulary_bound` and the soft-threshold dual,
the words left out by their variances) and, where that bound's relative gap is above
:data:`~eigensparse.text._certify.CERTIFY_ABOVE`, the floor the words left out set
(:func:`~eigensparse.text._certify.outside_floor`: what decides whether the working set
grows) and the branch-and-bound certificate
(:func:`~eigensparse.text._certify.branch_bound_certificate`).

A topic of the deflation chain gets the cheap bound and the floor only
(``certify=False``): the refinement may replace it, and a topic replaced needs no
certificate. What its problem was (the chain's topics before it: their words, and their
loadings for a deflation) stays in ``info["certificate_pending"]``, and
:func:`certify_pending` certifies the topic from it once the topics are final (the
pipeline's ``_checked``). Each search is counted in ``wset.certificate_searches``.
"""
from __future__ import annotations

import threading
from dataclasses import fields, replace

import numpy as np

from .._result import known_info, with_info
from ..bounds._common import one_blas_thread
from ..bounds._threshold import BOUND_THRESHOLD, threshold_bound_near
from ..operators import Covariance
from ._certify import BOUND_BRANCH, CERTIFY_ABOVE, branch_bound_certificate, cheap_pass, outside_floor

__all__ = ["vocabulary_bound", "chain_floor", "chain_problem", "certify_pending", "unbounded", "dense_covariance",
           "PENDING"]

#: a topic's soft-threshold bound (DSPCA's dual, :mod:`eigensparse.bounds._threshold`) is
#: tried at penalties keeping at most this many working-set words
SOFT_BOUND_WORDS = 1000
#: the key of a chain topic's info whose certificate waits for the final topics
PENDING = "certificate_pending"
_COUNT = threading.Lock()


def dense_covariance(op, n):
    """``op`` when it is a covariance operator (host or device), else its dense matrix
    as one (e.g. a Schur-deflated working-set covariance)."""
    if isinstance(op, Covariance) or (not op.has_data and hasattr(op, "xp")):
        return op
    S = np.ascontiguousarray(op.to_dense(), dtype=float)
    if not np.array_equal(S, S.T):  # as Covariance() would: the symmetric part
        S = 0.5 * (S + S.T)
    return Covariance.trusted(S, n_samples=n)  # built here: no copy, no checks


def _lambda_max(wset):
    """A proven bound on λmax of the working set's undeflated covariance, once per
    working set (it bounds every deflated or restricted covariance of its words: the
    deflations of a PSD matrix only lower it, interlacing does for a restriction)."""
    key = ("lam_max", int(wset.ws.size))
    cache = wset.__dict__.setdefault("_bound_cache", {})
    if key not in cache:
        from ..bounds import _lambda_max_upper_bound

        B = wset.op.to_dense()
        if wset.device is not None:
            B = wset.op.to_numpy(B)
        cache[key] = _lambda_max_upper_bound(np.asarray(B, dtype=float))
    return cache[key]


class _Problem:
    """The topic's problem on the working set: the dense covariance ``B`` of ``cov``, the
    words it may use (``free``: not ``used``), their block ``Bf``, the topic's positions
    there (``pos``) and the variances of the words left out of the working set."""

    def __init__(self, wset, cov, support, used):
        B = cov.to_dense()
        if wset.device is not None:
            B = wset.op.to_numpy(B)
        self.B = np.asarray(B, dtype=float)
        self.free = np.ones(self.B.shape[0], dtype=bool) if used is None else ~np.asarray(used, dtype=bool)
        self.Bf = self.B if self.free.all() else self.B[np.ix_(self.free, self.free)]
        self.pos = np.searchsorted(np.flatnonzero(self.free), np.asarray(support))
        outside = np.ones(wset.W, dtype=bool)
        outside[wset.ws] = False
        self.var_out = wset.var[outside]


def vocabulary_bound(wset, r, cov, s: int, deflation: str, used=None, *, certify: bool = True):
    """``r`` with ``upper_bound``, ``gap`` and ``info["bound"]`` on the topic's problem
    over the whole (pruned) vocabulary (:func:`~eigensparse.text._screen.full_vocabulary_bound`):
    the covariance ``cov`` of the working-set words the topic may use (remaining or
    deflated), the variances of the words left out, and the solver's bound on the
    working set (kept as ``info["working_set_upper_bound"]``). Unchanged for a deflation
    that may leave Σ indefinite (``"hotelling"``).

    Where the relative gap is above ``CERTIFY_ABOVE`` and with ``certify``: the
    branch-and-bound certificate (the smaller bound kept), and ``info["outside_floor"]``
    (the floor the words left out set) when the gap stays above."""
    if deflation == "hotelling" or s is None:
        return r
    with one_blas_thread():  # dense solves of a few hundred features (the solver's bound too)
        prob = _Problem(wset, cov, r.support, used)
        r = _cheap_bound(wset, r, prob, s, used)
        if not certify or r.upper_bound - float(r.variance) <= CERTIFY_ABOVE * r.upper_bound:
            return r
        floor = outside_floor(prob.Bf, prob.pos, float(r.variance), prob.var_out, s)
        return _certified(wset, r, prob, s, floor)


def chain_floor(wset, r, cov, s: int, deflation: str, pending: tuple, can_grow: bool):
    """A topic of the deflation chain, its bound left for :func:`certify_pending`
    (``info[PENDING] = pending``, :func:`chain_problem`): the refinement may replace it.

    When the working set ``can_grow`` for the topic's certificate
    (:func:`~eigensparse.text._certify.floor_growth`), its floor
    (:func:`~eigensparse.text._certify.outside_floor`, from the topic's own block): above
    the value by more than ``CERTIFY_ABOVE``, the cheap bound (:func:`vocabulary_bound`
    without the search) confirms the gap, and ``info["outside_floor"]`` asks for the
    growth."""
    r = with_info(r, **{PENDING: pending})  # a bound pending in r stays pending
    if deflation == "hotelling" or s is None or not can_grow or r.support.size != s:
        return r
    support = np.sort(np.asarray(r.support))
    outside = np.ones(wset.W, dtype=bool)
    outside[wset.ws] = False
    value = float(r.variance)
    block = cov.block(support)
    if wset.device is not None:
        block = wset.op.to_numpy(block)
    floor = outside_floor(np.asarray(block, dtype=float), np.arange(s), value, wset.var[outside], s)
    if floor - value <= CERTIFY_ABOVE * floor:
        return r
    with one_blas_thread():
        prob = _Problem(wset, cov, r.support, None)
        cheap = _cheap_bound(wset, r, prob, s, None)
    if cheap.upper_bound - value <= CERTIFY_ABOVE * cheap.upper_bound:
        return r
    return replace(cheap, info={**cheap.info, "outside_floor": floor})


def _partner_table(wset, B, s: int, used):
    """The working set's :func:`~eigensparse.text._screen.partner_table`, wide enough for
    ``used``, once per working set (the final topics' bounds share it), or None when ``B``
    is not its covariance (a deflated or restricted one) or too small."""
    from ._screen import partner_table

    width = s - 1 + int(np.count_nonzero(used))
    if used is None or s < 2 or width >= B.shape[0] - 1 or B.shape[0] != wset.ws.size:
        return None
    with _COUNT:  # the threads of the final bounds: one table
        cache = wset.__dict__.setdefault("_bound_cache", {})
        key = ("partners", int(wset.ws.size))
        if key not in cache or cache[key][0] < width:
            cache[key] = partner_table(B, width + s)  # room for the other topics' sets
        return cache[key]


def _cheap_bound(wset, r, prob: _Problem, s: int, used):
    """The vocabulary split bound and the soft-threshold dual, the smaller kept."""
    from ._screen import full_vocabulary_bound

    inside = r.upper_bound
    ub, name = full_vocabulary_bound(prob.B, s, prob.var_out, used=used, inside=inside,
                                     lam_max=_lambda_max(wset),
                                     table=_partner_table(wset, prob.B, s, used))
    soft = threshold_bound_near(prob.Bf, s, r.variance, max_features=SOFT_BOUND_WORDS,
                                floor=float(prob.var_out.max(initial=0.0)))[0]
    ub, name = (soft, BOUND_THRESHOLD) if soft < ub else (ub, name)
    info = {**(r.info or {}), "bound": name, "working_set_upper_bound": inside}
    info.pop("outside_floor", None)
    return replace(r, upper_bound=ub, gap=ub - float(r.variance), info=info)


def _certified(wset, r, prob: _Problem, s: int, floor: float):
    """``r`` (its gap above ``CERTIFY_ABOVE``) with the branch-and-bound certificate when
    it is lower; ``info["outside_floor"]`` when the gap stays above."""
    value, ub = float(r.variance), float(r.upper_bound)
    info = dict(r.info)
    corpus = wset.passes.corpus
    # a working set about to grow for the floor (floor_growth): no wide search before
    grows = floor - value > CERTIFY_ABOVE * floor and not wset.grown_for_floor and wset.ws.size < wset.cap
    with _COUNT:  # the bounds of several topics may run on several threads
        wset.certificate_searches += 1
    info["certificate_search"] = True
    out = branch_bound_certificate(prob.Bf, prob.pos, value, prob.var_out, s, current=ub,
                                   wide=cheap_pass(corpus.n_docs, getattr(corpus, "nnz", None))
                                   and not grows)
    if out is not None:
        ub, record = out
        info.update(bound=BOUND_BRANCH, branch_bound=record)
    if ub - value > CERTIFY_ABOVE * ub:
        info["outside_floor"] = floor
    return replace(r, upper_bound=ub, gap=ub - value, info=info)


def chain_problem(wset, earlier: list) -> tuple:
    """What :func:`certify_pending` needs of a chain topic's problem: the chain's topics
    before it (``earlier``, results on the working set), as (word ids, loadings on them)."""
    return tuple((wset.ws[q.support].copy(), np.asarray(q.loadings, dtype=float)[q.support].copy())
                 for q in earlier)


def unbounded(r, **changes):
    """A copy of ``r`` without a bound (``upper_bound`` and ``gap`` None, a pending bound
    dropped uncomputed, no ``info[PENDING]`` or ``"outside_floor"``), ``changes`` applied."""
    keep = {f.name: getattr(r, f.name) for f in fields(r) if f.name not in ("upper_bound", "gap", "info")}
    info = changes.pop("info", None)
    info = known_info(r) if info is None else info
    keep.update(changes, upper_bound=None, gap=None,
                info={k: v for k, v in info.items() if k not in (PENDING, "outside_floor")})
    return type(r)(**keep)


def certify_pending(wset, r, s: int, deflation: str, n_docs: int):
    """A chain topic kept (``info[PENDING]``, :func:`chain_floor`) with its bound
    (:func:`vocabulary_bound`, the certificate included) on the problem the chain solved
    it on, rebuilt on the working set as it is now: the words of the topics before it
    removed (``"disjoint"``), or the covariance deflated by them in order. A cheap bound
    the chain computed already (``info["working_set_upper_bound"]``, e.g. on another
    thread) is kept, and only the certificate is added."""
    info = r.info  # a bound computed elsewhere: waited for here
    pending, cheap = info[PENDING], "working_set_upper_bound" in info
    r = replace(r, info={k: v for k, v in info.items() if k not in (PENDING, "outside_floor")})
    if cheap and r.upper_bound - float(r.variance) <= CERTIFY_ABOVE * r.upper_bound:
        return r
    p = wset.ws.size
    used, cov = None, wset.op
    if deflation == "disjoint":
        used = np.zeros(p, dtype=bool)
        for ids, _ in pending:
            used[np.searchsorted(wset.ws, ids)] = True
    else:
        from ..multi._deflation import deflate

        Q = []
        for ids, vals in pending:
            x = np.zeros(p)
            x[np.searchsorted(wset.ws, ids)] = vals
            cov = deflate(cov, x, deflation, Q)
        cov = dense_covariance(cov, n_docs)
    if not cheap:
        return vocabulary_bound(wset, r, cov, s, deflation, used=used)
    with one_blas_thread():
        prob = _Problem(wset, cov, r.support, used)
        floor = outside_floor(prob.Bf, prob.pos, float(r.variance), prob.var_out, s)
        return _certified(wset, r, prob, s, floor)
