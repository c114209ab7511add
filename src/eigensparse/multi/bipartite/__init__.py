"""Joint disjoint components by bipartite matchings (Asteris, Papailiopoulos,
Kyrillidis & Dimakis, NIPS 2015, Algorithms 1–3), plus a monotone local improvement.

The problem: k unit vectors x_1..x_k with |supp x_j| = s_j and pairwise disjoint
supports maximizing Tr(XᵀAX) = Σ_j x_jᵀ A x_j.

Algorithm (the paper's)
-----------------------
1. **Sketch**: A ≈ U Λ Uᵀ of rank r (dense ``eigh`` up to 1000 features, else
   ``eigsh`` on a LinearOperator over ``op.matmat``; or a randomized range finder
   through ``op.dot``/``op.rdot``, ``sketch="randomized"``). Let V = U Λ^½ (p × r).
2. **Candidates** C (r × k, unit columns): PCA-derived ones (columns along the
   eigenvectors and their ±45° mixtures), then either an ε/2-net of the product of
   hemispheres (``epsilon=``: exhaustive, which gives the (1−ε) guarantee of Theorem 1
   for the sketch) or ``n_candidates`` random samples: uniform on the product of spheres
   (``sampling="uniform"``, the paper) or adaptive (``"adaptive"``, the default: after a
   uniform first quarter, most of each batch perturbs the best candidates so far).
3. For each C: W = V C (p × k). The best disjoint supports for W maximize
   Σ_j Σ_{i∈I_j} W_ij², a maximum-weight matching between s_j slots per column and the
   p variables. Only the top S = Σ s_j variables of each column by W_ij² can be used
   (swap argument), so the graph is pruned to the union of those lists (found by
   scanning the rows of V in decreasing norm: W_ij² ≤ ‖V_i‖² stops the scan exactly)
   before it is solved, either by :func:`scipy.optimize.linear_sum_assignment` on the
   S × |union| slot/variable matrix (``matcher="lsa"``) or by an exact
   successive-shortest-path transportation solver over the k columns compiled with numba
   (``matcher="ssp"``, the default: the same optimum, in less time, because the S
   slots are s_j interchangeable copies of each column).
4. Loadings: X_j = W_j restricted to I_j, normalized. The candidate kept is the one
   with the largest **true** objective Tr(XᵀAX) on the unsketched operator (evaluated
   through a growing cache of the principal submatrix of Σ over the variables seen).

Candidates are processed in vectorized batches; ``max_time`` stops the search early
(as the paper does), which is reported in the results
(``converged=False``, ``info["stopped_early"]``) and by a RuntimeWarning.

Local improvement (``refine=True``, beyond the paper; every step is monotone)
-----------------------------------------------------------------------------
Applied to the ``n_refine`` best candidates from different basins (solutions agreeing
on more than 75% of their slots with a better one are skipped); the best result is kept.

- **polish**: x_j ← leading eigenvector of Σ[I_j, I_j];
- **re-match**: w_j = Σx_j / √(x_jᵀΣx_j) on the *full* operator, then the matching
  above. The matching value of the current X equals the objective, and by
  Cauchy–Schwarz in the Σ inner product every x' satisfies x'ᵀΣx' ≥ (x'ᵀw)², so the new
  supports (then polished) cannot be worse; they are kept only when strictly better;
- **swaps**: exchange a variable between two supports, or replace a support variable
  by an unused one. Moves are ranked by a 2-dimensional Rayleigh–Ritz lower bound on
  the new λmax (computed for every variable at once from Σx and Σ[:, I]); the best are
  evaluated exactly and applied only when the objective strictly increases
  (non-conflicting improving moves together).

It stops when neither re-matching nor a swap improves, or at the deadline.
"""
from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np

from ..._linalg import fix_sign
from ..._result import ComponentResult
from ..._util import Deadline
from ..._validation import Interval, InvalidParameterError, StrOptions, renamed
from ...operators import Operator
from ...solvers._common import check_random_state
from .. import register_joint
from .candidates import build_net, epsilon_net, pca_candidates
from .matching import MATCHERS, check_cardinalities, match_supports, resolve_matcher
from .refine import _refine_solutions
from .search import (DEFAULT_N_CANDIDATES, MAX_GRAM, _CandidateSearch, _Gram, _search_net,
                     _search_random)
from .sketch import max_sketch_rank, sketch_operator

__all__ = ["bipartite", "match_supports", "epsilon_net"]

_SAMPLINGS = ("adaptive", "uniform")
_SKETCHES = ("auto", "dense", "eigsh", "randomized")


#: the options of :func:`bipartite` (scikit-learn constraints)
_CONSTRAINTS = {
    "op": [Operator],
    "rank": [None, Interval(Integral, 1, None, closed="left")],
    "n_candidates": [None, Interval(Integral, 1, None, closed="left")],
    "epsilon": [None, Interval(Real, 0, 1, closed="neither")],
    "max_time": [None, Interval(Real, 0, None, closed="neither")],
    "time_budget": [None, Interval(Real, 0, None, closed="neither")],
    "refine": ["boolean"], "n_refine": [Interval(Integral, 1, None, closed="left")],
    "sampling": [StrOptions(set(_SAMPLINGS))],
    "batch_size": [Interval(Integral, 1, None, closed="left")],
    "sketch": [StrOptions(set(_SKETCHES))], "matcher": [StrOptions(set(MATCHERS))],
}


@register_joint("bipartite", cost="O(candidates·p·k) matchings on a rank-d sketch",
                summary="Joint disjoint components by bipartite matchings on a "
                        "low-rank sketch (Asteris et al. 2015), locally improved.",
                constraints=_CONSTRAINTS, deprecated=("time_budget",))
def bipartite(op: Operator, cardinalities, *, rank=None, n_candidates=None, epsilon=None,
              max_time=None, refine=True, n_refine=8, sampling="adaptive", batch_size=256,
              sketch="auto", matcher="auto", random_state=None,
              time_budget=None) -> list[ComponentResult]:
    """Sparse components with pairwise disjoint supports, found jointly.

    Parameters
    ----------
    op : Operator
        The matrix Σ (p × p, positive semidefinite).
    cardinalities : list of int
        Nonzeros of each component (one entry per component; may differ). Their sum
        must not exceed ``n_features``.
    rank : int, default=None
        Rank r of the sketch Σ ≈ UΛUᵀ; None means min(4, the largest rank allowed).
        At most ``n_features`` and, for data operators, ``n_samples`` (``n_samples − 1``
        when centered).
    n_candidates : int, default=None
        Number of random candidate matrices C (besides the PCA-derived ones). None
        means 20000, or the whole ε-net when ``epsilon`` is given.
    epsilon : float in (0, 1), default=None
        Enumerate an ε/2-net of the product of unit hemispheres instead of sampling:
        the result is then within a factor (1 − ε) of the optimum for the sketch (exact
        for ``rank`` = rank of Σ). Exponential in rank × n_components; refused when the
        net has more than 5·10⁷ points. Exclusive with ``n_candidates``.
    max_time : float > 0, default=None
        Seconds for the whole call; the candidate search stops early (80% of the budget
        when ``refine``), the refinement stops at the deadline. None: no limit. When
        it stops the search early, a RuntimeWarning says so.
    time_budget : float > 0, default=None
        Deprecated name of ``max_time`` (FutureWarning).
    refine : bool, default=True
        Run the monotone local improvement (polish, re-match on Σ, swaps) on the best
        candidate.
    n_refine : int, default=8
        Number of candidates refined: the best ones from different basins (a candidate
        agreeing on more than 75% of the slots with a better kept one is skipped). The
        best refined solution is returned.
    sampling : {"adaptive", "uniform"}, default="adaptive"
        How random candidates are drawn. "uniform": independent uniform points of the
        product of spheres (the paper). "adaptive": the first quarter uniform, then three
        quarters of each batch are perturbations (scales 0.3, 0.1, 0.03) of the 16 best
        candidates so far and one quarter uniform. Ignored with ``epsilon``.
    batch_size : int, default=256
        Candidates evaluated together (vectorized).
    sketch : {"auto", "dense", "eigsh", "randomized"}, default="auto"
        How the top-r eigenpairs are computed ("auto": dense up to 1000 features, else
        ``scipy.sparse.linalg.eigsh``).
    matcher : {"auto", "ssp", "lsa"}, default="auto"
        Matching solver: the numba transportation solver ("ssp") or scipy's
        ``linear_sum_assignment`` on the pruned graph ("lsa"). Both are exact.
    random_state : None, int or Generator

    Returns
    -------
    list of ComponentResult
        One per component, loadings on ``op``'s features, pairwise disjoint supports of
        the requested sizes. With equal cardinalities they are sorted by decreasing
        variance; otherwise component j has cardinality ``cardinalities[j]``. Each
        ``info`` holds the run's summary (objective, unrefined objective, sketch,
        candidates evaluated, timings, refinement statistics).

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.multi import get_joint
    >>> S = es.Covariance(es.datasets.load_pitprops().data[:6, :6])
    >>> comps = get_joint("bipartite").func(S, [2, 2], n_candidates=500, random_state=0)
    >>> [c.support.tolist() for c in comps], [round(c.variance, 3) for c in comps]
    ([[0, 1], [2, 3]], [1.954, 1.882])
    """
    clock = Deadline()  # the call's start
    max_time = renamed(max_time, time_budget, new="max_time", old="time_budget", caller="bipartite")
    caps, rank, matcher = _check_args(op, cardinalities, rank, n_candidates, epsilon, matcher)
    p, k = int(op.n_features), caps.size
    rng = check_random_state(random_state)
    interchangeable = bool(np.all(caps == caps[0]))
    net = None
    if epsilon is not None:
        net, n_net = build_net(rank, epsilon, k, interchangeable)
    deadline = Deadline(max_time, start=clock.start)
    search_time = None if max_time is None else float(max_time) * (0.8 if refine else 1.0)
    search_deadline = Deadline(search_time, start=clock.start)
    # 1. sketch
    lam, U, lam_next, sketch_used = sketch_operator(op, rank, sketch, rng)
    t_sketch = clock.elapsed()
    # 2–4. candidates, matchings, true objective
    gram = _Gram(op, MAX_GRAM)
    search = _CandidateSearch(U * np.sqrt(lam), caps, matcher, gram, op,
                              n_keep=n_refine if refine else 1)
    pca = pca_candidates(rank, k)
    search.evaluate(pca)
    if net is not None:
        total = n_net
        stopped = _search_net(search, net, k, interchangeable, batch_size, search_deadline)
    else:
        total = DEFAULT_N_CANDIDATES if n_candidates is None else int(n_candidates)
        stopped = _search_random(search, rng, total, rank, k, sampling, batch_size,
                                search_deadline)
    t_search = clock.elapsed()
    # the paper's loadings (W_j on I_j, normalized), then the local improvement
    best, offs = search.best, search.offs
    supports = [np.sort(best["supp"][offs[j]:offs[j + 1]]) for j in range(k)]
    X = np.zeros((p, k))
    for j in range(k):
        seg = slice(offs[j], offs[j + 1])
        X[best["supp"][seg], j] = best["vals"][seg]
    refine_stats = None
    if refine:
        state, refine_stats = _refine_solutions(search, op, caps, matcher, gram, deadline)
        X, variances, supports = state.dense(p), state.lam.copy(), state.supports
    else:
        variances = np.asarray(op.quad(X), dtype=float).reshape(k)
    info = {
        "objective": float(variances.sum()),
        "objective_unrefined": float(best["value"]),
        "sketch_objective": best["sketch"],
        "rank": int(rank),
        "sketch": sketch_used,
        "sketch_eigenvalues": lam.copy(),
        "next_eigenvalue": lam_next,
        "n_candidates_evaluated": int(search.n_eval),
        "n_candidates_planned": int(total + pca.shape[0]),
        "max_rows_scanned": int(search.rows_scanned),
        "gram_size": int(gram.size),
        "search": "epsilon-net" if net is not None else sampling,
        "epsilon": epsilon,
        "stopped_early": _warn_if_stopped(stopped, max_time, search.n_eval),
        "matcher": matcher,
        "time_sketch": t_sketch,
        "time_search": t_search,
        "time_total": clock.elapsed(),
        "refine": refine_stats,
    }
    return _components(X, variances, supports, caps, interchangeable, stopped, search.n_eval,
                       info)


def _check_args(op, cardinalities, rank, n_candidates, epsilon, matcher):
    """(cardinalities as an int array, the sketch rank, the matcher to use): what depends
    on the operator, beyond the option types of :data:`_CONSTRAINTS`."""
    p = int(op.n_features)
    caps = check_cardinalities(cardinalities, p)
    max_rank = max_sketch_rank(op)
    if rank is None:
        rank = min(4, max_rank)
    elif rank > max_rank:
        n = op.n_samples
        why = (f"n_features={p}" if n is None or max_rank == p else
               f"the data allow at most {max_rank} (n_samples={n}"
               + (", centered)" if max_rank == n - 1 else ")"))
        raise InvalidParameterError(
            f"bipartite: parameter 'rank' must be <= {max_rank} ({why}); got {rank}.")
    if epsilon is not None and n_candidates is not None:
        raise InvalidParameterError(
            "bipartite: give either 'epsilon' (enumerate an ε-net) or 'n_candidates' (random "
            f"sampling), not both; got epsilon={epsilon!r}, n_candidates={n_candidates!r}.")
    return caps, rank, resolve_matcher(matcher)


def _warn_if_stopped(stopped, max_time, n_eval) -> bool:
    """``stopped`` as a bool, with a RuntimeWarning when the time budget stopped the search."""
    if stopped:
        warnings.warn(f"bipartite: stopped by the time budget (max_time={max_time:g} s) after {n_eval} "
                      "candidates; returning the best components so far.", RuntimeWarning,
                      stacklevel=3)
    return bool(stopped)


def _components(X, variances, supports, caps, interchangeable, stopped, n_eval, info):
    """One ComponentResult per component; equal cardinalities: by decreasing variance,
    otherwise in the given order."""
    k = caps.size
    # equal cardinalities: report by decreasing variance; otherwise keep the given order
    order = (np.argsort(-variances, kind="stable") if interchangeable else np.arange(k))
    results = []
    for j in order:
        x = fix_sign(X[:, j])
        # the support is where the loadings are nonzero, as for every result (a chosen
        # feature of zero variance gets a zero loading: fewer nonzeros, said by a warning)
        results.append(ComponentResult(
            loadings=x, support=np.flatnonzero(x), variance=float(variances[j]), method="bipartite",
            n_iter=int(n_eval), converged=not stopped,
            message=("time budget reached; best candidate so far" if stopped else
                     "all candidates evaluated"),
            info=dict(info, component=int(j), cardinality=int(caps[j])),
        ))
    return results
