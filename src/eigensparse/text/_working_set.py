"""The working set of the topic pipeline: which words the covariance is built on, and
when it must grow (Zhang & El Ghaoui 2011, §4).

**Screening**: safe elimination — a word with variance Σ_ii <= ρ is absent from every
optimal support of the ℓ0-penalized problem at penalty ρ — so a working set of the m
words of largest variance is exact for every ρ >= the largest variance left out (the
*threshold* τ). A penalized method's penalty must stay >= τ; for other methods a swap
test (:func:`eigensparse.text._bounded.swap_gain_bound`) decides whether a word left out could improve a
component. Otherwise the set is enlarged: inside the computed covariance when it
covers the new size, else by another pass over the data (reported as a re-read).

:class:`TopicSolve` holds the per-component solves the pipeline hands to the dispatcher
(:func:`eigensparse._dispatch.solve_components`): :meth:`TopicSolve.chain` solves a topic
of the deflation chain on the top words of the working set, checks it, and raises
:class:`GrowWorkingSet` when the working set must grow (the dispatcher stops, the
components found so far kept; the pipeline re-reads and resumes);
:meth:`TopicSolve.refine` is the refinement's re-solve, on the working set as it is.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import replace
from functools import partial

import numpy as np

from .._budget import ComponentBudget
from .._dispatch import require_data
from .._result import known_info
from .._util import Deadline
from .._validation import trusted
from ..bounds._common import one_blas_thread
from ..operators import Covariance
from ..screening import Breakpoints, penalty_search
from ._bounded import TopicBudgetWarning, bounded_solve, swap_gain_bound
from ._certify import CERTIFY_ABOVE, cheap_pass, floor_growth
from ._config import DEFAULT_WORKING_SET
from ._passes import phase_line, say
from ._topic_bound import chain_floor, chain_problem, dense_covariance, vocabulary_bound

__all__ = ["WorkingSet", "GrowWorkingSet", "TopicSolve", "TopicBudget", "select_working_set", "coarse_penalty_search",
           "auto_working_set"]

#: a cardinality method's component is accepted when no swap with a word outside the
#: working set can add more than this fraction of its variance (see ``WorkingSet.check``)
_SWAP_RTOL = 0.01
#: what the swap test shows, in the log (local optimality against the words left out;
#: only the table's ``certified`` says that a topic is proven the best: a global bound)
LOCAL_OPTIMUM = "no swap with a word left out improves it"


class GrowWorkingSet(Exception):
    """A topic cannot be decided on the working set: a working set of ``size`` words may
    hold a better one (``why``). Raised by a chain solve of :class:`TopicSolve` for topic
    ``component``; the pipeline enlarges the working set (:meth:`WorkingSet.enlarge`) and
    resumes from the topics found before it.

    Examples
    --------
    >>> from eigensparse.text._working_set import GrowWorkingSet
    >>> GrowWorkingSet(2000, "a swap could add 0.1", 2).size
    2000
    """

    def __init__(self, size: int, why: str = "", component: int = 0):
        super().__init__(f"topic {component + 1}: the working set must grow to {size} words "
                         f"({why})")
        self.size, self.why, self.component = int(size), why, int(component)


def auto_working_set(n_topics: int, smax: int) -> int:
    """Initial working-set size: 1,000 words (the scaling study's choice: planted-topic
    precision 0.96 on a 300k × 102k Zipf corpus), more for large requests."""
    return int(max(DEFAULT_WORKING_SET, 10 * n_topics * smax))


def select_working_set(score: np.ndarray, m: int, config=None, *, ranking=None) -> tuple:
    """The working set of pass 2: ``(ids, tau)``, the sorted ids of the ``m`` words the
    covariance is built on, and the largest score of a word left out (0 when none is).

    The one place the rule lives (``config.working_set_rule`` of the
    :class:`~eigensparse.text.TopicConfig`):

    - ``"variance"``: the m words of largest ``score`` (the variance of the kept words,
      pruned words at 0). Safe elimination makes this set exact for every penalty
      >= ``tau`` (see the module docstring).
    - ``"partner"`` (the default for cardinality topics): the first m words of
      ``ranking``, the priority order of
      :func:`eigensparse.text._screen.rank_by_partners` (the words of largest variance
      and those of strongest partners, measured on a document sample), so a topic of
      co-occurring mid-frequency words enters the working set. Without a ranking (a
      penalized request, whose working set must hold every word above the penalty; a
      distributed corpus) the variance rule.

    Whatever the rule, the pipeline's threshold is the largest variance left out.
    """
    rule = getattr(config, "working_set_rule", "variance")
    order = ranking if rule == "partner" and ranking is not None else np.argsort(-score, kind="stable")
    ids = np.sort(order[:m])
    if m >= score.size:
        return ids, 0.0
    outside = np.ones(score.size, dtype=bool)
    outside[ids] = False
    return ids, float(score[outside].max(initial=0.0))


class WorkingSet:
    """The working set of words (:func:`select_working_set`) and its covariance.

    Parameters
    ----------
    passes : CorpusPasses
    var : ndarray (W,)
        Variance of every word after the scaling (0 for pruned words): the safe
        elimination threshold and the swap test read it.
    mean : ndarray (W,)
        Word means (zeros when not centering).
    score : ndarray (W,), optional
        The selection score (default ``var``; ``scaling="unit"`` ranks by the count
        variances, every word's variance being 1).
    unit : ndarray (W,), optional
        Per-word divisors of the covariance (``scaling="unit"``: the standard deviations).
    device : str, optional
        Keep the covariance on this array-API device (an operator of the operator layer).

    Attributes
    ----------
    ws : ndarray of int
        Sorted word ids.
    tau : float
        Largest variance among the words left out (0 when none is).
    op : Operator
        The covariance of ``ws`` (host :class:`~eigensparse.Covariance` or its device
        counterpart).
    sizes : list of int
        Every size used; ``rereads`` says why the data were read again.
    """

    def __init__(self, passes, var, mean, *, center: bool, cap: int, clock, messages,
                 progress: bool, score=None, unit=None, device=None, config=None):
        self.passes, self.var, self.mean, self.center = passes, var, mean, center
        self.score = var if score is None else score
        self.unit, self.device, self.config = unit, device, config
        self.W, self.cap, self.clock = var.size, cap, clock
        self.messages, self.progress = messages, progress
        self.sizes: list = []
        self.rereads: list = []
        self.ws = self.S = self.op = None
        self.tau = 0.0
        #: the priority order of the ``"partner"`` rule (:meth:`rank`), None until ranked
        self.ranking = None
        self.rank_info = None
        #: grown once already for a topic's certificate (:func:`~._certify.floor_growth`)
        self.grown_for_floor = False
        #: branch-and-bound certificates computed (:mod:`~._topic_bound`: one per topic kept
        #: whose cheap bound's gap is above ``CERTIFY_ABOVE``)
        self.certificate_searches = 0

    def rank(self, cardinality: int, m: int) -> None:
        """The partner rule's priority order (:func:`~eigensparse.text._screen.rank_by_partners`,
        one partial pass over a document sample), kept for every later :meth:`load`."""
        import json

        from ._screen import DEFAULT_POOL_SIZE, DEFAULT_SAMPLE_DOCS, rank_by_partners

        def compute():
            r = rank_by_partners(self.passes, self.score, m, cardinality, unit=self.unit)
            info = {**r.info, "sample_docs": r.sample_docs, "seconds": r.seconds}
            return {"order": r.order, "info": np.array(json.dumps(info))}

        # the ranking is a function of these (and of the corpus and its scaling): kept
        # with the corpus cache, so that a second run reads no sample
        key = [cardinality, m, DEFAULT_POOL_SIZE, DEFAULT_SAMPLE_DOCS, self.score, self.unit]
        out, cached = self.passes.memo("partner-ranking", key, compute)
        info = json.loads(str(out["info"]))
        self.ranking = out["order"] if info["rule"] == "partner" else None
        self.rank_info = {**info, "cached": cached}
        if cached:
            self.passes._note("screening: the partner ranking read from the cache (no sample read)")

    def threshold(self, m: int) -> float:
        """τ of the m top words of the working set: the largest variance left out."""
        if self.ws is None or m >= self.ws.size:
            return self.tau
        rest = self.ws[self._ws_order[m:]]
        return max(self.tau, float(self.var[rest].max(initial=0.0)))

    def load(self, m: int, label: str = "pass 2: covariance") -> None:
        """Select the working set (:func:`select_working_set`) and build its covariance
        (one pass, or the cache), as an operator (on the device when asked)."""
        self.ws, _ = select_working_set(self.score, m, self.config, ranking=self.ranking)
        outside = np.ones(self.W, dtype=bool)
        outside[self.ws] = False
        #: the largest variance of a word left out, whatever rule chose the set
        self.tau = float(self.var[outside].max(initial=0.0))
        #: positions in ws by decreasing score (the solve sets inside the working set)
        self._ws_order = np.argsort(-self.score[self.ws], kind="stable")
        G = self.passes.gram(self.ws, label)
        if self.center:
            mu = self.mean[self.ws]
            G = G - np.outer(mu, mu)
        if self.unit is not None:
            d = 1.0 / self.unit[self.ws]
            G = G * d[:, None] * d[None, :]
        self.S = G
        n = self.passes.corpus.n_docs
        if self.device is None:
            with trusted():  # the engine's own options
                self.op = Covariance(G, n_samples=n, check_psd=False)
        else:
            from ..operators._xp import ArrayAPICovariance, to_device

            self.op = ArrayAPICovariance(to_device(G, self.device), n_samples=n)
        self.sizes.append(int(self.ws.size))
        self.clock.lap(label)

    def top_positions(self, m: int) -> np.ndarray:
        """Positions in ``ws`` of the m words of largest score."""
        return np.sort(self._ws_order[:m])

    def check(self, block, pen, m_solve: int):
        """(ok, safe, why): does a solve on the m_solve top words suffice?

        Penalized: ρ >= τ, the largest variance left out (safe elimination: exact).
        Otherwise a swap test on the (deflated) covariance ``block`` of the support:
        exchanging support word i for an outside word j gives at most
        λmax(S[I∖i]) + S_jj <= λmax(S[I∖i]) + τ, so no single swap can gain more than
        τ − (φ − λmax(S[I∖i])); accepted when that is <= 0 (safe=True) or below
        _SWAP_RTOL·φ (safe=None).
        """
        tau_ = self.threshold(m_solve)
        if tau_ <= 0.0:
            return True, True, ""
        if pen is not None:
            if pen >= tau_:
                return True, True, ""
            return False, False, (f"penalty {pen:.4g} is below the largest variance left out "
                                  f"({tau_:.4g}): words outside could enter")
        gain = swap_gain_bound(block, tau_)
        if gain <= 0.0:
            return True, True, ""
        phi = float(np.linalg.eigvalsh(block)[-1])
        if gain <= _SWAP_RTOL * phi:
            return True, None, ""
        return False, None, (f"swapping a topic word for a word left out (variance <= {tau_:.4g}) "
                             f"could add up to {gain:.3g} to the variance {phi:.4g}")

    def grow(self, pen, m_solve: int, smax: int) -> int:
        """The next size after m_solve (room for every word of variance >= ρ, or twice)."""
        need = 2 * m_solve
        if pen is not None:
            need = max(int(math.ceil(1.25 * np.count_nonzero(self.var >= pen))) + smax, need)
        return min(max(need, m_solve + 1), self.cap)

    def enlarge(self, request, found: list) -> list:
        """Re-read the data for the working set ``request.size`` asks
        (:class:`GrowWorkingSet`); ``found`` (results on the old working set)
        re-expressed on the new one."""
        label = f"topic {request.component + 1}: "
        msg = (f"{label}re-reading the data: working set {self.ws.size} -> {request.size} words "
               f"({request.why}).")
        say(msg, self.progress, self.messages)
        self.rereads.append(msg)
        self.clock.lap("solve")
        old = self.ws
        self.load(request.size, "pass 2 (re-read): covariance")
        out = []
        for r in found:
            pos = np.searchsorted(self.ws, old[r.support])
            x = np.zeros(self.ws.size)
            x[pos] = np.asarray(r.loadings, dtype=float)[r.support]
            out.append(replace(r, loadings=x, support=pos))
        return out


class TopicBudget(ComponentBudget):
    """Each topic's time: ``max_time`` seconds of solving, shared by every solve of the
    topic (its solves on a growing working set, the refinement's re-solves), and the
    record of its chain solve.

    Examples
    --------
    >>> from eigensparse.text._working_set import TopicBudget
    >>> b = TopicBudget(5.0)
    >>> b.start(0); 4.9 < b.left(0) <= 5.0
    True
    >>> b.stop(0); sorted(b.used), b.cut
    ([0], set())
    """

    def __init__(self, max_time: float):
        super().__init__(max_time)
        self.records: dict = {}
        #: topics whose time was spent before a re-solve of the refinement started
        self.cut: set = set()

    def record(self, t: int, info) -> None:
        self.records[t] = dict(info or {})


class TopicSolve:
    """The per-topic solves of the topic pipeline on the working-set covariance:
    :meth:`chain` (``solve`` of :func:`eigensparse._dispatch.solve_components`) and
    :meth:`refine` (its ``resolve``).

    :meth:`chain` solves on the top words of the working set (all of it for cardinality
    methods; a few times s for a penalized method's own exact search; the coarse penalty
    search of the 2011 paper when ``tolerance`` > 0), checks the answer
    (:meth:`WorkingSet.check`) and retries on more words inside the covariance. When
    the data must be read again it raises :class:`GrowWorkingSet` (the dispatcher stops,
    the pipeline enlarges the working set and resumes). Each result's info carries
    ``"working_set_safe"`` and ``"seconds"``.

    Every solve of topic t gets the time left of the topic's ``max_time``
    (:class:`TopicBudget`: the seconds its solves took, across re-reads of the working
    set). :meth:`refine`, the refinement's re-solve of a topic found, is answered on the
    working set as it is (never a request for more words), within the same time.
    """

    def __init__(self, wset: WorkingSet, plan, tolerance: int, n_docs: int, *,
                 budget: "TopicBudget", found=(), bar=None, mode: str = "off", alongside=None):
        self.wset, self.plan, self.tol, self.n = wset, plan, tolerance, n_docs
        self.budget, self.max_time, self.bar, self.mode = budget, budget.max_time, bar, mode
        cards = [c for c in plan.cardinalities if c is not None]
        self.smax = max(cards, default=1)
        spec = plan.spec
        self.coarse = spec.takes_penalty and plan.penalty is None and tolerance > 0
        #: exact-cardinality topics in bounded time (a method with a ``BoundedSolve``,
        #: without a penalty or a tolerance): :func:`~eigensparse.text._bounded.bounded_solve`
        self.bounded = spec.bounded is not None and plan.penalty is None and not self.coarse
        self.m_solve = wset.ws.size
        if spec.takes_penalty and plan.penalty is None and not self.coarse:
            self.m_solve = min(wset.ws.size, max(40, 4 * self.smax))
        #: positions of the working set no topic of the chain uses yet (disjoint topics)
        self.remaining = np.arange(wset.ws.size)
        #: the topics found (the dispatcher's list, appended to as the chain goes)
        self.found = found
        for r in found:
            self.remaining = np.setdiff1d(self.remaining, r.support, assume_unique=True)
        self.may_grow = plan.auto is None
        #: a :class:`~eigensparse.text._alongside.BoundsAlongside` for the topics' bounds
        self.alongside = alongside

    def _options(self, left: float) -> dict:
        opts = dict(self.plan.options)
        if "max_time" in self.plan.spec.options and "max_time" not in opts:
            opts["max_time"] = left
        return opts

    def _coarse(self, S_cur, avail, s, t, left):
        """The coarse penalty search; None when it misses the tolerance;
        :class:`GrowWorkingSet` raised when it needs words beyond the working set."""
        wset, plan = self.wset, self.plan
        S = S_cur.to_dense() if not isinstance(S_cur, np.ndarray) else S_cur
        opts = self._options(left)
        out = coarse_penalty_search(plan.spec, S, avail, s, self.tol, wset.tau, self.n,
                                    plan.seeds[t], opts)
        if out is None:  # needs words beyond the working set
            if wset.ws.size < wset.cap and self.may_grow:
                raise GrowWorkingSet(wset.grow(None, wset.ws.size, self.smax),
                                     "the penalty search needs a penalty below the largest "
                                     f"variance left out ({wset.tau:.4g})", t)
            say(f"topic {t + 1}: the working set reached its limit ({wset.ws.size} words) before "
                "the penalty search reached the cardinality.", wset.progress, wset.messages)
            out = coarse_penalty_search(plan.spec, S, avail, s, self.tol, 0.0, self.n,
                                        plan.seeds[t], opts)
        sub, r = out
        wset.messages.append(f"topic {t + 1}: penalty {r.info['penalty']:.4g} gives "
                             f"{r.cardinality} words after {r.info.get('coarse_search_solves', 0)} "
                             "solves.")
        if abs(r.cardinality - s) > self.tol:
            # the coarse search missed the tolerance: the method's own exact search instead
            wset.messages.append(f"topic {t + 1}: outside the tolerance of {self.tol}; "
                                 "searching the exact cardinality.")
            return None
        return sub, r

    def _postfix(self, size, variance, seconds):
        if self.bar is not None:
            self.bar.set_postfix_str(f"solve set {size} words, variance {variance:.4g}",
                                     refresh=True)

    def _solve_bounded(self, sub_op, s, t, left):
        """One topic by :func:`~eigensparse.text._bounded.bounded_solve` on the (remaining, deflated) working
        set: exact cardinality, the solve set grown (warm-started) until the swap test
        passes, capped at the working set, stopped at the time left with a
        :class:`TopicBudgetWarning`."""
        wset, plan = self.wset, self.plan
        cov = dense_covariance(sub_op, self.n)
        opts = {k: v for k, v in plan.options.items() if k != "init"}
        # a working set chosen by partners: a method that searches a ranked set whole does
        # (its starts see the co-occurring words a set grown by variance misses)
        whole = wset.ranking is not None and plan.spec.bounded.whole_ranked_set
        with one_blas_thread():  # products and solves of at most the working set's size
            r = bounded_solve(cov, plan.spec, s, tau_outside=wset.tau, max_time=left,
                              max_working_set=cov.n_features, random_state=plan.seeds[t],
                              options=opts, warn=False, callback=self._postfix,
                              initial_size=cov.n_features if whole else None)
            info = known_info(r)  # the solve's record (its bound may be pending)
        # the bound once the topics are final (a topic the refinement replaces needs none);
        # here only what decides a growth of the working set for the certificate
        corpus = wset.passes.corpus
        nnz = getattr(corpus, "nnz", None)
        can_grow = (self.may_grow and not wset.grown_for_floor and wset.ws.size < wset.cap
                    and cheap_pass(corpus.n_docs, nnz))
        r = chain_floor(wset, r, cov, s, plan.deflation, chain_problem(wset, self.found[:t]), can_grow)
        if not can_grow and self.alongside is not None:
            # its cheap bound on another thread while the chain goes on (the certificate, the
            # costly part, only for a topic kept)
            r = self.alongside.defer(r, partial(vocabulary_bound, wset, r, cov, s, plan.deflation,
                                                certify=False), words=wset.ws.size)
        # (a topic whose floor asks for none keeps the solver's bound pending: never read here)
        asks = can_grow and "outside_floor" in known_info(r)
        size = floor_growth(r, wset.ws.size, wset.cap, corpus.n_docs, nnz) if asks else 0
        if size:
            wset.grown_for_floor = True
            raise GrowWorkingSet(size, f"the words left out keep its certificate's gap above "
                                 f"{CERTIFY_ABOVE:.0%}", t)
        m, size = wset.ws.size, info["solve_set_sizes"][-1]
        head = f"topic {t + 1}: {s} words in {info['seconds']:.2f} s (solve set {size} of {m} words"
        phase_line(head + (f", {LOCAL_OPTIMUM})" if info["working_set_safe"] else ")"), self.mode)
        if info["timed_out"]:
            msg = (f"topic {t + 1}: stopped at its time budget ({self.max_time:g} s) on "
                   f"{size} words; the best answer so far is returned (a swap with a word "
                   f"left out could add up to {info['swap_gain']:.3g} to its variance).")
            say(msg, self.mode != "off", wset.messages)
            warnings.warn(msg, TopicBudgetWarning, stacklevel=2)
        elif not info["working_set_safe"]:
            wset.messages.append(f"topic {t + 1}: a swap with a word left out of its solve set "
                                 f"of {size} words could add up to {info['swap_gain']:.3g} to "
                                 "its variance.")
        return r

    def chain(self, sub_op, s, t, init=None):
        """Topic t of the deflation chain (raises :class:`GrowWorkingSet` when the working
        set must grow)."""
        self.budget.start(t)
        try:
            left = self.budget.left(t)
            if self.bounded and s is not None:
                r = self._solve_bounded(sub_op, s, t, left)
            else:
                r = self._solve_chain(sub_op, s, t)
        finally:
            self.budget.stop(t)
        self.budget.record(t, known_info(r))
        if self.plan.deflation == "disjoint":
            self.remaining = np.setdiff1d(self.remaining, self.remaining[r.support],
                                          assume_unique=True)
        return r

    def refine(self, sub_op, s, t, init=None):
        """The refinement's re-solve of topic t: the method on the operator it is given,
        within the time left to the topic."""
        self.budget.start(t)
        try:
            left = self.budget.left(t)
            if left <= self.budget.FLOOR:
                self.budget.cut.add(t)
            op = require_data(self.plan, sub_op, factor=True)
            extra = {} if init is None else {"init": init}
            return self.plan.spec.trusted(op, s, random_state=self.plan.seeds[t],
                                          **self._options(left), **extra)
        finally:
            self.budget.stop(t)

    def _solve_chain(self, sub_op, s, t):
        """Topic t of the deflation chain: solved on the top words, checked, retried on
        more words of the working set, or a request for more (:class:`GrowWorkingSet`)."""
        wset, plan = self.wset, self.plan
        disjoint = plan.deflation == "disjoint"
        # positions of sub_op's features in the working set
        pos_of = self.remaining if disjoint else np.arange(wset.ws.size)
        t0 = time.perf_counter()
        while True:
            left = self.budget.left(t)
            out = None
            if self.coarse and s is not None:
                out = self._coarse(sub_op, np.arange(sub_op.n_features), s, t, left)
            if out is None:
                top = np.intersect1d(wset.top_positions(self.m_solve), pos_of, assume_unique=True)
                sub = np.searchsorted(pos_of, top)
                part = sub_op if sub.size == sub_op.n_features else sub_op.restrict(sub)
                op = require_data(plan, part, factor=True)
                r = plan.spec.trusted(op, s, random_state=plan.seeds[t], **self._options(left))
            else:
                sub, r = out
            x = np.zeros(sub_op.n_features)
            x[sub] = np.asarray(r.loadings, dtype=float)
            supp = np.flatnonzero(x)
            pen = r.info.get("penalty") if isinstance(r.info, dict) else None
            pen = plan.penalty if pen is None else pen
            ok, safe, why = wset.check(sub_op.block(supp), pen, self.m_solve)
            if self.bar is not None:
                self.bar.set_postfix_str(f"working set {self.m_solve} words" + (
                    "" if pen is None else f", penalty {pen:.4g}"), refresh=True)
            if ok or self.m_solve >= wset.cap or self.budget.left(t) <= self.budget.FLOOR:
                break
            new_m = wset.grow(pen, self.m_solve, self.smax)
            if new_m > wset.ws.size:
                if not self.may_grow:
                    break
                raise GrowWorkingSet(new_m, why, t)
            wset.messages.append(f"topic {t + 1}: solving again on {new_m} words ({why}).")
            self.m_solve = new_m
        if not ok:
            say(f"topic {t + 1}: the working set reached its limit ({self.m_solve} words) or its "
                f"time; a word left out might still improve the topic ({why}).", wset.progress,
                wset.messages)
            safe = False
        info = dict(r.info) if isinstance(r.info, dict) else {}
        info.update(working_set_safe=safe, seconds=time.perf_counter() - t0, penalty=pen)
        return replace(r, loadings=x, support=supp, info=info)


# --- the coarse penalty search of the 2011 paper (a penalized method on the working set)

def coarse_penalty_search(spec, S_cur, avail, s, tol, tau, n, seed, opts, max_solves=8):
    """Penalty search for a cardinality within ``tol`` of ``s`` (penalized methods), by
    the one penalty search of :func:`eigensparse.screening.penalty_search`.

    The trial penalties sit between tie groups of the sorted (deflated) variances of the
    available words, so a trial keeping j words solves a j × j problem (safe
    elimination, re-applied at every trial). Returns (positions solved on,
    ComponentResult with info["penalty"]) or None when the search needs a penalty below
    ``tau`` (the largest variance outside the working set): the working set must grow.

    A ``max_time`` in ``opts`` (the method's budget in seconds) bounds the whole search:
    each trial gets the time left, and no trial starts once it is spent (the best
    trial so far is kept).
    """
    max_time = opts.get("max_time")
    deadline = Deadline(max_time)
    bp = Breakpoints.of(np.diag(S_cur)[avail])
    if bp.n_positive == 0:
        return None
    # trials skip the method's optimality certificate (when it has one: it costs several
    # times the solve); with method_options={"certify": True} the accepted penalty is
    # solved once more with it
    trial_opts = dict(opts)
    if "certify" in spec.options:
        trial_opts["certify"] = False

    def solve(rho, warm_start, kept):
        keep = avail[np.sort(kept)]
        if max_time is not None:
            trial_opts["max_time"] = deadline.left(floor=1e-3)
        op = Covariance(S_cur[np.ix_(keep, keep)], n_samples=n, check_psd=False)
        r = spec.trusted(op, None, random_state=seed, **trial_opts, penalty=float(rho))
        return int(np.count_nonzero(r.loadings)), (r, keep), None

    out = penalty_search(solve, s, breakpoints=bp, tolerance=tol,
                         start_size=min(s, bp.n_positive), penalty_rule="midpoint",
                         lower=max(tau, 0.0), max_solves=max_solves, max_time=max_time)
    if out.best is None or (out.stopped == "lower" and not out.hit):
        return None
    (r, keep), rho = out.best.result, out.best.penalty
    solves = out.n_solves
    if opts.get("certify") and not deadline.passed():
        op = Covariance(S_cur[np.ix_(keep, keep)], n_samples=n, check_psd=False)
        r = spec.trusted(op, None, random_state=seed, **opts, penalty=float(rho))
        solves += 1
    info = dict(r.info) if isinstance(r.info, dict) else {}
    info["penalty"] = float(rho)
    info["coarse_search_solves"] = solves
    return keep, replace(r, info=info)
