"""Cyclic refinement of a set of components found by deflation.

A deflation chain solves component t on Σ deflated by the components *before* it
only; later components never get a say on the earlier ones. The refinement pass
revisits them: for component j it solves the single-component problem (same method,
same cardinality, same seed) on Σ **Schur-deflated by all the other components**,
i.e. it looks for the loading whose scores explain the most variance that the others
leave unexplained, and keeps the new component only when the *total adjusted
variance of the set* rises (the components ordered by decreasing xᵀΣx, as the
result reports them; :func:`eigensparse.adjusted_variance`). So refinement never
lowers that total, every component keeps its exact cardinality (a re-solve that
returns another number of nonzeros is rejected), and it is deterministic (the same
per-component seeds as the chain).

**The first component is not traded by default.** The chain's first component is the
single-component answer (a k = 1 fit), and users read PC1 as *the* sparse direction, so
a re-solve (or an alternative chain) is also rejected when the set's best component would
then explain less than that answer. ``refine="total"`` lifts this guard: the total may
then rise at the first component's expense, and the result says so
(``info["refine"]["first_traded"]``, with ``first_variance_single`` and
``first_variance``; the summary prints a line).

Before the sweeps, a **chain portfolio**: for the default method ``"auto"`` (with no
options of its own) the chain is also run with tpower's two starts (greedy and the largest variance,
run by auto's compiled kernel: :func:`eigensparse.solvers._auto.two_start_tpower`), whose
components are often less greedy for the first component and leave more for the later
ones (on KOS k=5 s=10 its chain explains 36.14 against auto's 35.55), and the chain of
larger total is the one refined (the method's ``MethodSpec.alternatives``).

Sweeps go over j = 0, 1, …, k−1 and stop after a sweep that accepted nothing, after
one whose gain is below ``tol`` × the total, or after ``max_sweeps`` sweeps: the
refinement costs at most (number of alternative chains + ``max_sweeps``) chains' worth of
solves (each sweep makes at most k solves; a
component whose deflating set did not change since it was solved is skipped, so the
last component of a Schur chain is never re-solved in the first sweep).

With ``deflation="disjoint"`` component j is re-solved only on the features no other
component uses (its own included), so the supports stay disjoint. With
``"projection"``, ``"orthogonal"`` or ``"hotelling"`` the same Schur criterion is used
(it is what the adjusted variance measures); the scheme's own property (e.g.
orthogonal loadings) is then not kept, which is why ``refine="auto"`` refines only
``"schur"`` and ``"disjoint"`` chains.

For ``"auto"`` (``MethodSpec.warm_start``) a re-solve starts from the component it may
replace (``init=``) instead of computing its own approximate-greedy warm start. Two sweeps
take nearly all of the gain; ``refine=False`` gives the chain alone. The measured totals,
costs and per-sweep gains are on the deflation page of the user guide (section
"refinement, measured") and come from ``benchmarks/bench_peers.py``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._result import with_info
from .._validation import InvalidParameterError
from ..operators import Covariance, Operator, SchurDeflated

__all__ = ["REFINE_OPTIONS", "MAX_SWEEPS", "resolve_refine", "refine_components",
           "refine_plan", "set_total", "formed_gram", "schur_deflated_matrix"]

#: accepted values of the ``refine`` parameter ("total": refine, and allow the first
#: component to fall below the single-component answer for a larger total)
REFINE_OPTIONS = ("auto", True, False, "total")
#: default bound on the number of sweeps (each at most k single-component solves)
MAX_SWEEPS = 2
#: a sweep whose relative gain in the total is below this ends the refinement
TOL = 1e-6
#: deflation schemes that ``refine="auto"`` refines
AUTO_SCHEMES = ("schur", "disjoint")


def resolve_refine(refine, *, n_components: int, joint: bool, cardinalities, deflation: str) -> bool:
    """Whether to refine: ``refine`` checked and ``"auto"`` resolved.

    ``"auto"``: refine when there are several components, a single-component method,
    an exact cardinality for every component and a ``"schur"`` or ``"disjoint"`` chain.
    ``True`` (or ``"total"``) with a joint method is an error (there is no
    single-component solve to repeat); ``True`` with a penalty-only solve is allowed (the
    cardinality the re-solve returns must then equal the component's own). ``"total"``
    refines like ``True`` and lets the first component trade variance for the total.
    """
    if not (isinstance(refine, bool) or refine in ("auto", "total")):
        raise InvalidParameterError(
            f"parameter 'refine' must be one of {list(REFINE_OPTIONS)}; got {refine!r}.")
    if refine == "total":
        refine = True
    if refine is True and joint:
        raise InvalidParameterError(
            "parameter 'refine=True' needs a single-component method (refinement re-solves one "
            "component against the others); joint methods find all components at once.")
    if refine != "auto":
        return bool(refine) and n_components > 1
    return (n_components > 1 and not joint and deflation in AUTO_SCHEMES
            and all(c is not None for c in cardinalities))


def set_total(op: Operator, C: np.ndarray, explained: Callable) -> float:
    """Total adjusted variance of the rows of ``C`` ordered by decreasing xᵀΣx
    (``explained(op, C)`` gives the per-component adjusted variances)."""
    C = np.atleast_2d(C)
    per = np.atleast_1d(op.quad(C.T))
    order = np.argsort(-per, kind="stable")
    return float(np.sum(explained(op, C[order])))


def refine_plan(op: Operator, plan, results: list, solve: Callable, explained: Callable, *,
                alternatives: bool = True, warm: bool = False) -> list:
    """The refinement step of the dispatcher for a plan (``plan.refine`` true).

    ``results`` and ``solve`` are the chain's; with ``alternatives`` (the dispatcher's own
    solve, not a caller's) the chains of the method's ``MethodSpec.alternatives`` are also
    run when the plan has no method options, and the chain of largest
    :func:`set_total` is refined by :func:`refine_components`. ``warm``: ``solve``
    accepts ``init=`` (the method's ``MethodSpec.warm_start``); alternative solves do.
    """
    from ._deflation import run_deflation

    op = formed_gram(op)
    cards = list(plan.cardinalities)
    best, best_solve = results, solve
    # the chain's first component is the single-component answer (k = 1): unless the plan
    # trades it (refine="total"), no set whose best component explains less is accepted
    single = float(op.quad(results[0].loadings))
    floor = None if plan.trade_first else single
    if alternatives and not plan.options:
        best_total = set_total(op, np.vstack([r.loadings for r in results]), explained)
        for func in plan.spec.alternative_solves:
            def alternative_solve(sub, s, t, init=None, func=func):
                return func(sub, s, random_state=plan.seeds[t], init=init)

            chain = run_deflation(op, alternative_solve, cards, plan.deflation)
            C = np.vstack([r.loadings for r in chain])
            total = set_total(op, C, explained)
            if total > best_total and _keeps_first(op, C, floor):
                best, best_solve, best_total, warm = chain, alternative_solve, total, True
    refined, info = refine_components(op, best, best_solve, cards, plan.deflation, explained,
                                      max_sweeps=MAX_SWEEPS, first_floor=floor, warm=warm)
    first = float(np.max(op.quad(np.vstack([r.loadings for r in refined]).T)))
    info.update({"first_variance_single": single, "first_variance": first,
                 "first_traded": bool(first < single * (1.0 - 1e-12)),
                 "policy": "total" if plan.trade_first else "keep_first"})
    return [with_info(r, refine=info) for r in refined]  # a pending bound stays pending


def _keeps_first(op: Operator, C: np.ndarray, floor) -> bool:
    """Whether the best component (largest xᵀΣx) of the rows of ``C`` explains at least
    ``floor`` (always, without a floor)."""
    if floor is None:
        return True
    return float(np.max(np.atleast_1d(op.quad(np.atleast_2d(C).T)))) >= floor * (1.0 - 1e-12)


def formed_gram(op: Operator) -> Operator:
    """``Covariance(Σ)`` when the operator layer has formed the p×p Gram matrix of ``op``
    (its policy, :mod:`eigensparse.operators._gram`), else ``op``: every product of the
    refinement (alternative chain, deflations, totals) is then a small dense one."""
    gram = getattr(op, "gram", None)
    S = gram() if callable(gram) else None
    if S is None:
        return op
    S = np.ascontiguousarray(S, dtype=float)
    if not np.array_equal(S, S.T):  # as Covariance() would: the symmetric part
        S = 0.5 * (S + S.T)
    return Covariance.trusted(S)  # built here, PSD by construction


#: up to this many features a re-solve's operator is one dense Schur-deflated matrix
#: (:func:`schur_deflated_matrix`) instead of a chain of deflation wrappers
DENSE_DEFLATION_FEATURES = 4096


#: entries per block of rows that :func:`schur_deflated_matrix` deflates at a time
_DEFLATION_ROWS = 1 << 16


def schur_deflated_matrix(op: Covariance, vectors, keep=None) -> Covariance:
    """Σ Schur-deflated by several vectors at once, as one dense (trusted) covariance.

    The vectors are deflated in the given order, as nested
    :class:`~eigensparse.operators.SchurDeflated` wrappers would: w_t = Σ_{t−1}x_t
    (through the earlier terms, without forming Σ_{t−1}), c_t = x_tᵀw_t, and
    Σ_k = Σ − Σ_t v_t v_tᵀ, v_t = w_t/√c_t (a term with c_t <= 0 is skipped), each entry computed
    with the same operations in the same order as the wrappers' ``block``: the same
    blocks, formed once instead of recomputed through the chain at every ``block`` call.
    ``keep`` (sorted indices): only the principal block of those features, the same
    entries as the whole matrix's (each one computed by the same operations).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.operators import SchurDeflated
    >>> from eigensparse.multi._refine import schur_deflated_matrix
    >>> A = np.random.default_rng(0).standard_normal((30, 6))
    >>> op = Covariance(A.T @ A)
    >>> X = np.linalg.qr(np.random.default_rng(1).standard_normal((6, 2)))[0].T
    >>> nested = SchurDeflated(SchurDeflated(op, X[0]), X[1])
    >>> bool(np.array_equal(schur_deflated_matrix(op, X).S, nested.block(np.arange(6))))
    True
    """
    S = op.S
    vs = []  # v_t = w_t/√c_t (None where c_t <= 0), as SchurDeflated keeps it
    for x in vectors:
        V = np.asarray(x, dtype=float).reshape(-1, 1)
        out = op.matmat(V)
        for v in vs:
            if v is not None:
                out = out - np.outer(v, v @ V)
        w = out[:, 0]
        c = float(V[:, 0] @ w)
        vs.append(w / np.sqrt(c) if c > 0 else None)
    if keep is not None:
        S = op.block(keep)  # a new array: deflated in place
        vs = [None if v is None else v[keep] for v in vs]
    vs = [v for v in vs if v is not None]
    if not vs:
        return Covariance.trusted(S, n_samples=op.n_samples)
    D = S if keep is not None else np.array(S, dtype=float, order="C")
    # D_ij − v_i v_j for each v in order, a block of rows at a time (in cache): the entries
    # of S − outer(v₁, v₁) − outer(v₂, v₂) − …, computed by the same operations
    step = max(1, _DEFLATION_ROWS // max(D.shape[1], 1))
    for a in range(0, D.shape[0], step):
        rows = D[a:a + step]
        for v in vs:
            rows -= v[a:a + step, None] * v[None, :]
    return Covariance.trusted(D, n_samples=op.n_samples)


def _against_others(op: Operator, results: list, j: int, disjoint: bool):
    """Σ Schur-deflated by every component but j, and (disjoint) the features allowed
    for j (those no other component uses), else None. A covariance of at most
    ``DENSE_DEFLATION_FEATURES`` features is deflated into one dense matrix
    (:func:`schur_deflated_matrix`), any other operator by nested wrappers."""
    others = [r.loadings for i, r in enumerate(results) if i != j]
    allowed = None
    if disjoint:
        used = np.concatenate([r.support for i, r in enumerate(results) if i != j] or [np.zeros(0, int)])
        allowed = np.setdiff1d(np.arange(op.n_features), used)
    if isinstance(op, Covariance) and op.n_features <= DENSE_DEFLATION_FEATURES:
        # disjoint: the allowed block deflated (the whole matrix's entries there)
        part = allowed is not None and allowed.size < op.n_features
        return schur_deflated_matrix(op, others, keep=allowed if part else None), allowed
    cur = op
    for x in others:
        cur = SchurDeflated(cur, x)
    if allowed is None:
        return cur, None
    return (cur.restrict(allowed) if allowed.size < op.n_features else cur), allowed


def _resolve_one(op, results, j, s, solve, disjoint, warm):
    """Component j re-solved against the others (loadings on ``op``'s features). A
    ``warm`` solve starts from the current component (``init=``)."""
    sub, allowed = _against_others(op, results, j, disjoint)
    if warm:
        x = results[j].loadings
        r = solve(sub, s, j, init=x if allowed is None else x[allowed])
    else:
        r = solve(sub, s, j)
    if allowed is None or allowed.size == op.n_features:
        return r
    x = np.zeros(op.n_features)
    x[allowed] = r.loadings
    return with_info(r, {"loadings": x, "support": np.sort(allowed[r.support])})


def refine_components(op: Operator, results: list, solve: Callable, cardinalities: list,
                      scheme: str, explained: Callable, *, max_sweeps: int = MAX_SWEEPS,
                      tol: float = TOL, first_floor: float | None = None,
                      warm: bool = False) -> tuple[list, dict]:
    """Cyclic re-solves of each component against the others (see the module docstring).

    Parameters
    ----------
    op : Operator
        The undeflated operator (p features).
    results : list of ComponentResult, length k
        The chain's components, loadings on ``op``'s features.
    solve : callable
        ``solve(operator, s, t) -> ComponentResult``, the chain's own solve.
    cardinalities : list of (int or None), length k
    scheme : str
        The chain's deflation; ``"disjoint"`` keeps the supports disjoint.
    explained : callable
        ``explained(op, C) -> (k,)`` adjusted variances of the rows of C (k × p).
    max_sweeps : int
    tol : float
    first_floor : float, optional
        A re-solve is rejected when the set's best component (largest xᵀΣx) would then
        explain less than this: the dispatcher passes the single-component answer, so
        refinement never makes the first component worse than a k = 1 fit.

    Returns
    -------
    results : list of ComponentResult, length k
        Refined components (the input ones where no re-solve was accepted).
    info : dict
        ``refine_sweeps``, ``refine_solves``, ``refine_accepted``, ``refine_total_before``,
        ``refine_total_after``.
    """
    results = list(results)
    k, disjoint = len(results), scheme == "disjoint"
    C = np.vstack([r.loadings for r in results])
    total = before = set_total(op, C, explained)
    version = list(range(k))  # changes when component i is replaced
    # the deflating set each component was last solved against (None: not a Schur set)
    seen = [tuple(version[:j]) if scheme == "schur" else None for j in range(k)]
    sweeps = solves = accepted = 0
    while sweeps < max_sweeps:
        sweeps += 1
        start, any_accepted = total, False
        for j in range(k):
            others = tuple(v for i, v in enumerate(version) if i != j)
            if seen[j] == others:
                continue
            seen[j] = others
            r = _resolve_one(op, results, j, cardinalities[j], solve, disjoint, warm)
            solves += 1
            if r.support.size != results[j].support.size:
                continue  # exact cardinality is kept
            C_new = C.copy()
            C_new[j] = r.loadings
            new_total = set_total(op, C_new, explained)
            if new_total > total * (1.0 + 1e-12) and _keeps_first(op, C_new, first_floor):
                results[j], C, total = r, C_new, new_total
                version[j] = k + solves
                seen[j] = others
                any_accepted = True
                accepted += 1
        if not any_accepted or total - start <= tol * abs(total):
            break
    return results, {"refine_sweeps": sweeps, "refine_solves": solves, "refine_accepted": accepted,
                     "refine_total_before": before, "refine_total_after": total}
