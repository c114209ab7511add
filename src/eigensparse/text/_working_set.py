"""The working set of the topic pipeline: which words the covariance is built on, and
when it must grow (Zhang & El Ghaoui 2011, §4).

**Screening**: safe elimination — a word with variance Σ_ii <= ρ is absent from every
optimal support of the ℓ0-penalized problem at penalty ρ — so a working set of the m
words of largest variance is exact for every ρ >= the largest variance left out (the
*threshold* τ). A penalized method's penalty must stay >= τ; for other methods a swap
test (:func:`eigensparse.text._bounded.swap_gain_bound`) decides whether a word left out could improve a
component. Otherwise the set is enlarged: inside the computed covariance when it
covers the new size, else by another pass over the data (reported as a re-read).

:class:`TopicSolve` is the per-component solve the pipeline hands to the dispatcher
(:func:`eigensparse._dispatch.solve_components`): it solves on the top words of the
working set, checks them, and asks for a larger set by raising :class:`Enlarge`.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import replace

import numpy as np

from .._result import ComponentResult
from .._validation import InvalidParameterError
from ..operators import Covariance
from ..screening import Breakpoints, penalty_search
from ._bounded import TopicBudgetWarning, solve_topic_bounded, swap_gain_bound
from ._passes import phase_line, say

__all__ = ["WorkingSet", "TopicSolve", "Enlarge", "coarse_penalty_search", "auto_working_set",
           "BOUNDED_METHODS"]

#: methods whose cardinality solves run in bounded time per topic
#: (:func:`eigensparse.text._bounded.solve_topic_bounded`)
BOUNDED_METHODS = ("auto", "tpower", "bca")

#: a cardinality method's component is accepted when no swap with a word outside the
#: working set can add more than this fraction of its variance (see ``WorkingSet.check``)
_SWAP_RTOL = 0.01


def auto_working_set(n_topics: int, smax: int) -> int:
    """Initial working-set size: 1,000 words (the scaling study's choice: planted-topic
    precision 0.96 on a 300k × 102k Zipf corpus), more for large requests."""
    return int(max(1000, 10 * n_topics * smax))


class Enlarge(Exception):
    """Raised by :class:`TopicSolve` when the working set must grow to ``new_m`` words
    (beyond the computed covariance): the pipeline re-reads and resumes."""

    def __init__(self, new_m: int, why: str, label: str = ""):
        super().__init__(why)
        self.new_m, self.why, self.label = int(new_m), why, label


class WorkingSet:
    """The m words of largest variance and their covariance S (m × m).

    Attributes
    ----------
    ws : ndarray of int
        Sorted word ids.
    tau : float
        Largest variance among the words left out (0 when none is).
    S : ndarray (m × m)
        Covariance (centered with the exact word means when ``center``) of ``ws``.
    sizes : list of int
        Every size used; ``rereads`` says why the data were read again.
    """

    def __init__(self, passes, var, mean, *, center: bool, cap: int, clock, messages,
                 progress: bool):
        self.passes, self.var, self.mean, self.center = passes, var, mean, center
        self.order = np.argsort(-var, kind="stable")
        self.W, self.cap, self.clock = var.size, cap, clock
        self.messages, self.progress = messages, progress
        self.sizes: list = []
        self.rereads: list = []
        self.ws = self.S = self.op = None
        self.tau = 0.0

    def threshold(self, m: int) -> float:
        """τ of the m top words: the largest variance left out."""
        # topics-search: ``order`` may rank by partner score, not variance
        return float(self.var[self.order[m:]].max()) if m < self.W else 0.0

    def load(self, m: int, label: str = "pass 2: covariance") -> None:
        """Select the m top words and build their covariance (one pass, or the cache)."""
        self.ws, self.tau = np.sort(self.order[:m]), self.threshold(m)
        G = self.passes.gram(self.ws, label)
        if self.center:
            mu = self.mean[self.ws]
            G = G - np.outer(mu, mu)
        self.S = G
        #: the checked operator on S (built once per load; solves restrict it)
        self.op = Covariance(G, n_samples=self.passes.corpus.n_docs, check_psd=False)
        self.sizes.append(int(self.ws.size))
        self.clock.lap(label)

    def top_positions(self, m: int) -> np.ndarray:
        """Positions in ``ws`` of the m words of largest variance."""
        return np.searchsorted(self.ws, np.sort(self.order[:m]))

    def check(self, support_pos, pen, m_solve: int, S_now: np.ndarray):
        """(ok, safe, why): does a solve on the m_solve top words suffice?

        Penalized: ρ >= τ, the largest variance left out (safe elimination: exact).
        Otherwise a swap test on the (deflated) covariance S_now: exchanging support word
        i for an outside word j gives at most λmax(S[I∖i]) + S_jj <= λmax(S[I∖i]) + τ,
        so no single swap can gain more than τ − (φ − λmax(S[I∖i])); accepted when that
        is <= 0 (safe=True) or below _SWAP_RTOL·φ (safe=None).
        """
        tau_ = self.threshold(m_solve)
        if tau_ <= 0.0:
            return True, True, ""
        if pen is not None:
            if pen >= tau_:
                return True, True, ""
            return False, False, (f"penalty {pen:.4g} is below the largest variance left out "
                                  f"({tau_:.4g}): words outside could enter")
        gain = swap_gain_bound(S_now[np.ix_(support_pos, support_pos)], tau_)
        if gain <= 0.0:
            return True, True, ""
        phi = float(np.linalg.eigvalsh(S_now[np.ix_(support_pos, support_pos)])[-1])
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

    def enlarge(self, new_m: int, why: str, label: str, found: list) -> list:
        """Re-read the data for the new_m top words; ``found`` (results on the old
        working set) re-expressed on the new one."""
        msg = f"{label}re-reading the data: working set {self.ws.size} -> {new_m} words ({why})."
        say(msg, self.progress, self.messages)
        self.rereads.append(msg)
        self.clock.lap("solve")
        old = self.ws
        self.load(new_m, "pass 2 (re-read): covariance")
        out = []
        for r in found:
            pos = np.searchsorted(self.ws, old[r.support])
            x = np.zeros(self.ws.size)
            x[pos] = r.loadings[r.support]
            out.append(replace(r, loadings=x, support=pos))
        return out


class TopicSolve:
    """The per-component solve of the topic pipeline, for
    :func:`eigensparse._dispatch.solve_components` (``solve(sub, s, t)``).

    Solves on the top words of the working set (all of it for cardinality methods; a
    few times s for a penalized method's own exact search; the coarse penalty search
    of the 2011 paper when ``tolerance`` > 0), checks the answer
    (:meth:`WorkingSet.check`), retries on more words inside the covariance, and raises
    :class:`Enlarge` when the data must be read again. Each result's info carries
    ``"working_set_safe"`` and ``"seconds"``.
    """

    def __init__(self, wset: WorkingSet, plan, tolerance: int, found: list, n_docs: int, *,
                 time_budget: float = 2.0, bar=None, mode: str = "off"):
        self.wset, self.plan, self.tol, self.found, self.n = wset, plan, tolerance, found, n_docs
        self.time_budget, self.bar, self.mode = time_budget, bar, mode
        cards = [c for c in plan.cardinalities if c is not None]
        self.smax = max(cards, default=1)
        spec = plan.spec
        self.coarse = spec.takes_penalty and plan.penalty is None and tolerance > 0
        #: exact-cardinality topics in bounded time (the default method; bca without a
        #: tolerance): :func:`~eigensparse.text._bounded.solve_topic_bounded`
        self.bounded = (spec.name in BOUNDED_METHODS and plan.penalty is None
                        and not self.coarse)
        self.m_solve = wset.ws.size
        if spec.takes_penalty and plan.penalty is None and not self.coarse:
            self.m_solve = min(wset.ws.size, max(40, 4 * self.smax))
        self.seconds = 0.0

    def reset(self):
        """After a re-read: solve on the whole (new) working set."""
        self.m_solve = self.wset.ws.size

    def _remaining(self) -> np.ndarray:
        m = self.wset.ws.size
        if self.plan.deflation != "disjoint" or not self.found:
            return np.arange(m)
        used = np.concatenate([r.support for r in self.found])
        return np.setdiff1d(np.arange(m), used)

    def _coarse(self, S_cur, avail, s, t):
        """The coarse penalty search; None when it misses the tolerance."""
        wset, plan = self.wset, self.plan
        out = coarse_penalty_search(plan.spec, S_cur, avail, s, self.tol, wset.tau, self.n,
                                    plan.seeds[t], plan.options)
        if out is None:  # needs words beyond the working set
            if wset.ws.size < wset.cap:
                raise Enlarge(wset.grow(None, wset.ws.size, self.smax), "the penalty search needs "
                              f"a penalty below the largest variance left out ({wset.tau:.4g})",
                              f"topic {t + 1}: ")
            say(f"topic {t + 1}: the working set reached its limit ({wset.ws.size} words) before "
                "the penalty search reached the cardinality.", wset.progress, wset.messages)
            out = coarse_penalty_search(plan.spec, S_cur, avail, s, self.tol, 0.0, self.n,
                                        plan.seeds[t], plan.options)
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

    def _solve_once(self, S_cur, remaining, s, t):
        """(positions solved on, ComponentResult on them)."""
        from .._dispatch import require_data

        if self.coarse and s is not None:
            out = self._coarse(S_cur, remaining, s, t)
            if out is not None:
                return out
        sub = self.wset.top_positions(self.m_solve)
        if self.plan.deflation == "disjoint":
            sub = np.intersect1d(sub, remaining, assume_unique=True)
        op = require_data(self.plan, Covariance(S_cur[np.ix_(sub, sub)], n_samples=self.n,
                                                     check_psd=False),
                          factor=True)
        return sub, self.plan.spec.func(op, s, random_state=self.plan.seeds[t], **self.plan.options)

    def _postfix(self, size, variance, seconds):
        if self.bar is not None:
            self.bar.set_postfix_str(f"solve set {size} words, variance {variance:.4g}",
                                     refresh=True)

    def _solve_bounded(self, sub_op, s, t):
        """One topic by :func:`solve_topic_bounded` on the working set: exact cardinality,
        the solve set grown (warm-started) until the swap test passes, capped at the
        working set, stopped at the time budget with a :class:`TopicBudgetWarning`."""
        wset, plan = self.wset, self.plan
        disjoint = plan.deflation == "disjoint"
        remaining = self._remaining()
        m = wset.ws.size
        cov = wset.op if disjoint or t == 0 else Covariance(sub_op.to_dense(), n_samples=self.n)
        used = np.ones(m, dtype=bool)
        used[remaining] = False
        opts = {k: v for k, v in plan.options.items() if k != "init"}
        b = solve_topic_bounded(cov, s, used=used,
                                tau_outside=wset.tau, time_budget=self.time_budget,
                                max_working_set=m, method=plan.method, random_state=plan.seeds[t],
                                method_options=opts, warn=False, callback=self._postfix)
        head = f"topic {t + 1}: {s} words in {b.seconds:.2f} s (solve set {b.sizes[-1]} of {m} words"
        phase_line(head + (", exact by the swap test)" if b.safe else ")"), self.mode)
        if b.timed_out:
            msg = (f"topic {t + 1}: stopped at its time budget ({self.time_budget:g} s) on "
                   f"{b.sizes[-1]} words; the best answer so far is returned (a swap with a word "
                   f"left out could add up to {b.info['swap_gain']:.3g} to its variance).")
            say(msg, self.mode != "off", wset.messages)
            warnings.warn(msg, TopicBudgetWarning, stacklevel=2)
        elif not b.safe:
            wset.messages.append(f"topic {t + 1}: not proven exact on {b.sizes[-1]} words (a swap "
                                 f"could add up to {b.info['swap_gain']:.3g}).")
        x = np.zeros(m)
        x[b.support] = b.loadings
        # topics-search: neighbourhood starts on the whole working set, and a bound on
        # the whole (pruned) vocabulary
        from ._screen import full_vocabulary_bound, neighbourhood_topic

        S_now = wset.S if disjoint or t == 0 else cov.to_dense()
        nb_sup, nb_x, nb_var = neighbourhood_topic(S_now, s, used=used, random_state=plan.seeds[t])
        if nb_var > b.variance * (1 + 1e-9):
            x[:] = 0.0
            x[nb_sup] = nb_x
            b = replace(b, support=nb_sup, loadings=nb_x, variance=nb_var, method="tpower",
                        safe=bool(swap_gain_bound(S_now[np.ix_(nb_sup, nb_sup)], wset.tau) <= 0))
        out = x[remaining] if disjoint else x
        info = {"working_set_safe": bool(b.safe), "seconds": b.seconds, "penalty": None,
                "solve_set_sizes": list(b.sizes), "capped": b.capped, "timed_out": b.timed_out,
                "fallback": b.fallback, "swap_gain": b.info["swap_gain"]}
        if disjoint or t == 0:  # topics-search: the bound of the undeflated problem
            outside = np.ones(wset.W, dtype=bool)
            outside[wset.ws] = False
            ub = full_vocabulary_bound(S_now, s, wset.var[outside], used=used)
            info.update(upper_bound=ub, gap=max(ub - b.variance, 0.0) / ub if ub > 0 else 0.0)
        return ComponentResult(loadings=out, support=np.flatnonzero(out), variance=b.variance,
                               method=b.method, n_iter=b.info["n_solves"], converged=not b.timed_out,
                               message="bounded topic solve", info=info)

    def __call__(self, sub_op, s, t):
        if self.bounded and s is not None:
            return self._solve_bounded(sub_op, s, t)
        wset = self.wset
        disjoint = self.plan.deflation == "disjoint"
        remaining = self._remaining()
        S_cur = wset.S if disjoint or t == 0 else sub_op.to_dense()
        while True:
            t0 = time.perf_counter()
            sub, r = self._solve_once(S_cur, remaining, s, t)
            x = np.zeros(wset.ws.size)
            x[sub] = np.asarray(r.loadings, dtype=float)
            supp = np.flatnonzero(x)
            pen = r.info.get("penalty") if isinstance(r.info, dict) else None
            pen = self.plan.penalty if pen is None else pen
            ok, safe, why = wset.check(supp, pen, self.m_solve, S_cur)
            if self.bar is not None:
                self.bar.set_postfix_str(f"working set {self.m_solve} words" + (
                    "" if pen is None else f", penalty {pen:.4g}"), refresh=True)
            self.seconds += time.perf_counter() - t0
            if ok or self.m_solve >= wset.cap:
                break
            new_m = wset.grow(pen, self.m_solve, self.smax)
            if new_m > wset.ws.size:
                raise Enlarge(new_m, why, f"topic {t + 1}: ")
            wset.messages.append(f"topic {t + 1}: solving again on {new_m} words ({why}).")
            self.m_solve = new_m
        if not ok:
            say(f"topic {t + 1}: the working set reached its limit ({self.m_solve} words); "
                f"the component is not proven exact ({why}).", wset.progress, wset.messages)
            safe = False
        info = dict(r.info) if isinstance(r.info, dict) else {}
        info.update(working_set_safe=safe, seconds=self.seconds, penalty=pen)
        self.seconds = 0.0
        out = x[remaining] if disjoint else x
        return replace(r, loadings=out, support=np.flatnonzero(out), info=info)


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
    deadline = math.inf if max_time is None else time.perf_counter() + float(max_time)
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
            trial_opts["max_time"] = max(deadline - time.perf_counter(), 1e-3)
        op = Covariance(S_cur[np.ix_(keep, keep)], n_samples=n, check_psd=False)
        r = spec.func(op, None, random_state=seed, **trial_opts, penalty=float(rho))
        return int(np.count_nonzero(r.loadings)), (r, keep), None

    out = penalty_search(solve, s, breakpoints=bp, tolerance=tol,
                         start_size=min(s, bp.n_positive), penalty_rule="midpoint",
                         lower=max(tau, 0.0), max_solves=max_solves, max_time=max_time)
    if out.best is None or (out.stopped == "lower" and not out.hit):
        return None
    (r, keep), rho = out.best.result, out.best.penalty
    solves = out.n_solves
    if opts.get("certify") and time.perf_counter() < deadline:
        op = Covariance(S_cur[np.ix_(keep, keep)], n_samples=n, check_psd=False)
        r = spec.func(op, None, random_state=seed, **opts, penalty=float(rho))
        solves += 1
    info = dict(r.info) if isinstance(r.info, dict) else {}
    info["penalty"] = float(rho)
    info["coarse_search_solves"] = solves
    return keep, replace(r, info=info)
