"""The one dispatcher: from a method name and its arguments to components.

Every front door goes through here (:func:`eigensparse.sparse_pca`,
:class:`eigensparse.SparsePCA` through it, the topic pipeline
:func:`eigensparse.text.extract_topics`, the command line):

1. :func:`plan_components` resolves the method in the registry
   (:mod:`eigensparse.registry`), normalises the cardinalities once (one int, or None
   for a penalty-only solve, per component; ``cardinality="auto"`` is recorded as the
   plan's ``auto`` rule), checks the method's options and the penalty and deflation
   rules, and draws one seed per component;
2. :func:`require_data` checks the method's data requirement once (or factors a
   covariance when the caller allows it);
3. :func:`solve_components` runs the deflation loop (single-component methods) or
   the joint method; with ``auto`` it runs
   :func:`eigensparse.selection.resolve_auto_cardinalities` with the plan's solve, so
   the components returned are those of the chosen cardinalities;
4. :func:`assemble` returns the multi-component result (sign rule, variances on the
   undeflated operator, the component order of :data:`ORDERS`, adjusted variances).

The topic pipeline adds its passes and working set around steps 2–3 (its own
per-component ``solve`` through :func:`solve_components`); it resolves nothing itself.
"""
from __future__ import annotations
import warnings
from dataclasses import dataclass, field, replace
from typing import Callable

from numbers import Integral, Real

import numpy as np

from ._linalg import fix_sign
from ._result import SparsePCAResult, info_entry, with_info
from ._util import draw_seed, int_seeds
from ._validation import (Interval, IntInterval, InvalidParameterError, StrOptions,
                          check_cardinalities, closest, trusted)
from .diagnostics import (_adjusted_variance, _adjusted_variance_of_gram, adjusted_variance,
                          adjusted_variance_of_gram)
from .multi import DEFLATIONS, run_deflation
from .multi._refine import formed_gram, refine_plan, resolve_refine
from .operators import Operator
from ._budget import ComponentBudget
from .registry import DEFAULT_METHOD, MethodSpec, get_method, method_names
from .selection import RULES

__all__ = ["Plan", "resolve_method", "plan_components", "require_data", "solve_components", "assemble",
           "plan_fit", "fit_plan", "adjusted_variance", "adjusted_variance_of_gram", "component_order",
           "DEFAULT_DEFLATION", "DEFAULT_CARDINALITY", "DEFAULT_ORDER", "ORDERS", "AUTO",
           "COMPONENT_CONSTRAINTS"]

DEFAULT_DEFLATION = "schur"
#: the component orders :func:`assemble` knows: by decreasing variance xᵀΣx on the
#: original Σ (as scikit-learn's PCA), or as the deflation (or joint method) found them
ORDERS = ("variance", "deflation")
DEFAULT_ORDER = "variance"
#: cardinality used when none is given: min(n_features, 10)
DEFAULT_CARDINALITY = 10
#: the cardinality value that asks for a rule of :mod:`eigensparse.selection`
AUTO = "auto"

#: the parameters every front door shares (:func:`eigensparse.sparse_pca`,
#: :class:`eigensparse.SparsePCA`, :func:`eigensparse.text.extract_topics`, the command
#: line), as scikit-learn constraints, declared here once; what depends on the data
#: (``n_components`` and ``cardinality`` at most ``n_features``, ``penalty`` only for a
#: penalized method, ...) is checked by :func:`plan_components`, the one normaliser
COMPONENT_CONSTRAINTS = {
    "n_components": [IntInterval(1, None, closed="left"), None],
    "cardinality": [Integral, list, tuple, np.ndarray, StrOptions({AUTO}), None],
    "cardinality_rule": [StrOptions(set(RULES))],
    "cardinality_fraction": [Interval(Real, 0, 1, closed="right")],
    "method": [str, None],
    "deflation": [StrOptions(set(DEFLATIONS))],
    "penalty": [Interval(Real, 0, None, closed="left"), None],
    "center": ["boolean"],
    "scale": ["boolean"],
    "random_state": ["random_state", np.random.Generator],
    "progress": ["boolean"],
    "order": [StrOptions(set(ORDERS))],
    "refine": [StrOptions({"auto", "total"}), "boolean"],
    "stability": [IntInterval(2, None, closed="left"), None],
    "n_jobs": [Integral, None],
}


@dataclass(frozen=True)
class Plan:
    """A resolved request: which method, how many nonzeros per component, which options.

    Attributes
    ----------
    spec : MethodSpec
    cardinalities : list of (int or None), length n_components
        Exact nonzeros per component; None for a penalty-only solve.
    deflation : str
        The scheme between single-component solves (``"disjoint"`` for joint methods).
    options : dict
        Keyword options passed to the method (``penalty`` included when given).
    seeds : tuple of int, length n_components
        One seed per component (the joint method uses the first).
    order : {"variance", "deflation"}
        How :func:`assemble` orders the components (see :func:`component_order`).
    refine : bool
        Whether the deflation chain is followed by the cyclic refinement
        (:mod:`eigensparse.multi._refine`).
    trade_first : bool
        ``refine="total"``: the refinement may lower the first component's variance below
        the single-component answer for a larger total (by default it may not).
    auto : dict or None
        ``cardinality="auto"``: the rule's options (``rule``, ``fraction``); the
        cardinalities are then placeholders (None) until the rule chooses them.
    center, scale : bool
        How data are turned into the operator (:func:`fit_plan`; ignored for an operator).
    client, device : optional
        Where the operator lives (a Dask client, an array-API device).
    wide_route : callable or None
        ``wide_route(op, plan, progress)``: another search the front door offers for this
        request (the components, or None when it does not apply), tried before the method's
        own chain (the topic pipeline's working-set search on wide operators:
        :func:`eigensparse.text._wide.solve_wide`, offered by :func:`eigensparse.sparse_pca`
        and the estimator). The dispatcher only calls it: the route lives above this layer.

    A plan is checked once, by the front door that made it (:func:`plan_fit`, the topic
    pipeline); everything that takes a plan trusts it. A refit of the same request (support
    stability) takes :meth:`reseeded`.
    """

    spec: MethodSpec
    cardinalities: list
    deflation: str
    options: dict = field(default_factory=dict)
    seeds: tuple = ()
    order: str = DEFAULT_ORDER
    refine: bool = False
    auto: dict | None = None
    trade_first: bool = False
    center: bool = True
    scale: bool = False
    client: object = None
    device: object = None
    wide_route: object = None

    @property
    def method(self) -> str:
        return self.spec.name

    @property
    def n_components(self) -> int:
        return len(self.cardinalities)

    @property
    def joint(self) -> bool:
        return self.spec.kind == "joint"

    @property
    def penalty(self):
        return self.options.get("penalty")

    @property
    def needs_data(self) -> bool:
        return self.spec.requires_data(self.options)

    def __getstate__(self):
        # a pickled plan (inside a pickled result) leaves its Dask client behind
        return {**self.__dict__, "client": None}

    def reseeded(self, random_state, cardinalities=None) -> "Plan":
        """The same plan with fresh seeds (and fixed ``cardinalities`` when given, e.g. the
        ones ``auto`` chose): a refit of the same request (support stability)."""
        cards = list(self.cardinalities if cardinalities is None else cardinalities)
        return replace(self, cardinalities=cards, auto=None if cardinalities else self.auto,
                       seeds=_seeds(random_state, len(cards)))


def _seeds(random_state, k: int) -> tuple:
    if isinstance(random_state, Integral) and not isinstance(random_state, bool) and random_state >= 0:
        return int_seeds(int(random_state), k)  # a plain seed: the same seeds every time
    from .solvers import check_random_state

    return tuple(int(s) for s in draw_seed(check_random_state(random_state), size=k))


def _check_options(spec: MethodSpec, options: dict, penalty, caller: str, parameters) -> dict:
    """The method's options checked once, against its spec: a name that is neither an
    option of the method nor a parameter of the function called is an error naming the
    closest of them; ``penalty`` (checked by the front door) joins the options."""
    unknown = sorted(set(options) - set(spec.options))
    front = [n for n in parameters if n not in ("data", "method_options", "options")
             and n not in spec.options]
    near = closest(unknown[0], [*spec.options, *front]) if unknown else None
    if near in front:  # a misspelt parameter of the function called
        raise InvalidParameterError(
            f"{caller} got an unknown parameter {unknown[0]!r} (did you mean {near!r}?): it is "
            f"neither a parameter of {caller} nor an option of method {spec.name!r} (options: "
            f"{sorted(spec.options)}).")
    opts = spec.check_options(options, extra=front)
    if penalty is not None:
        if not spec.takes_penalty or "penalty" not in spec.options:
            penalized = [s.name for s in _specs() if s.takes_penalty]
            raise InvalidParameterError(
                f"parameter 'penalty' is not used by method {spec.name!r}; penalized methods: "
                f"{penalized}.")
        opts["penalty"] = penalty
    return opts


def _specs():
    return [get_method(n) for n in method_names()]


def _check_auto(spec, cardinality, rule, fraction):
    """The ``auto`` options of a plan (None unless ``cardinality="auto"``); ``rule`` and
    ``fraction`` were checked by the front door (:data:`COMPONENT_CONSTRAINTS`)."""
    if not isinstance(cardinality, str):
        return None
    if cardinality != AUTO:
        raise InvalidParameterError(
            f"parameter 'cardinality' must be an int, a list of ints, None or {AUTO!r}; "
            f"got {cardinality!r}.")
    if spec.kind == "joint" or not spec.takes_cardinality:
        raise InvalidParameterError(
            f"parameter 'cardinality'={AUTO!r} chooses each component's cardinality in turn; "
            f"method {spec.name!r} " + ("finds all components jointly" if spec.kind == "joint"
                                        else "takes a penalty, not a cardinality")
            + ": give the cardinalities, or a single-component cardinality method.")
    return {"rule": rule, "fraction": float(fraction)}


def _cardinalities(spec, cardinality, penalty, k, p, default_cardinality) -> list:
    if cardinality is None and penalty is not None and spec.takes_penalty:
        return [None] * k
    if cardinality is None:
        if not spec.takes_cardinality:
            raise InvalidParameterError(
                f"method {spec.name!r} takes a 'penalty', not a cardinality; give penalty=.")
        cardinality = min(default_cardinality, p)
    return check_cardinalities(cardinality, k, p)


def resolve_method(method, options=None, penalty=None, *, caller: str = "sparse_pca",
                   parameters=None) -> tuple:
    """``(spec, options)``: the method (None: the default) and its checked options
    (``penalty`` included when given). Front doors that must read data before they
    can plan call this first, to fail before reading. ``caller`` and ``parameters`` (its
    parameter names; default: those of :data:`COMPONENT_CONSTRAINTS`) are the function
    the user called: an unknown option that is a misspelt parameter of it is named so."""
    spec = get_method(DEFAULT_METHOD if method is None else method)
    params = tuple(COMPONENT_CONSTRAINTS) if parameters is None else tuple(parameters)
    return spec, _check_options(spec, dict(options or {}), penalty, caller, params)


def plan_components(method, *, n_features: int, n_components=None, cardinality=None,
                    penalty=None, deflation=None, options=None, random_state=None, refine=False,
                    cardinality_rule: str = "fraction", cardinality_fraction: float = 0.9,
                    default_cardinality: int = DEFAULT_CARDINALITY,
                    default_deflation: str = DEFAULT_DEFLATION, order: str = DEFAULT_ORDER,
                    caller: str = "sparse_pca", parameters=None, resolved=None) -> Plan:
    """Resolve a request once: method, cardinalities, options, deflation, seeds.

    The one normaliser of a request whose parameters a front door has checked against
    :data:`COMPONENT_CONSTRAINTS`: it checks what depends on the data and on the method
    (counts at most ``n_features``, a penalty for a penalized method, the method's
    options against its :class:`~eigensparse.registry.MethodSpec`).

    Parameters
    ----------
    method : str or None
        A registered method (None: :data:`eigensparse.registry.DEFAULT_METHOD`).
    n_features : int
        Features of the operator the components live on.
    n_components : int or None
        None: ``min(5, n_features)``.
    cardinality : int, list of int, "auto" or None
        None: ``min(default_cardinality, n_features)``, or a penalty-only solve when
        ``penalty`` is given to a method that takes one. ``"auto"``: chosen per
        component by ``cardinality_rule`` (single-component cardinality methods).
    cardinality_rule : {"fraction", "knee", "cv"}, default="fraction"
    cardinality_fraction : float in (0, 1], default=0.9
        The rule and the fraction of λmax of ``cardinality="auto"``
        (:func:`eigensparse.selection.choose_cardinality`).
    penalty : float or None
        Passed to methods that take a penalty; an error for the others.
    deflation : str or None
        None: ``default_deflation``. Joint methods accept only ``"disjoint"`` or the
        default (and report ``"disjoint"``).
    options : dict or None
        Keyword options of the method (checked against its signature).
    random_state : None, int or Generator
        Draws one seed per component.
    order : {"variance", "deflation"}, default="variance"
        Order of the components in the result (:func:`component_order`).
    refine : {"auto", True, False}, default=False
        Cyclic refinement after the deflation chain
        (:func:`eigensparse.multi._refine.resolve_refine` resolves ``"auto"``). Off with
        ``cardinality="auto"``: the components are those the rule chose (refining would
        keep their cardinalities but change the components the choices describe).

    caller, parameters : str, sequence of str
        The function the user called and its parameters (see :func:`resolve_method`).
    resolved : tuple, optional
        ``(spec, options)`` returned by :func:`resolve_method` for this request (a front
        door that resolved the method first, to fail before reading its data): used as
        they are, not checked again (``method``, ``options`` and ``penalty`` are then
        ignored).

    Returns
    -------
    Plan
    """
    spec, opts = resolved or resolve_method(method, options, penalty, caller=caller,
                                            parameters=parameters)
    p = int(n_features)
    k = min(5, p) if n_components is None else int(n_components)
    if not 1 <= k <= p:
        raise InvalidParameterError(
            f"parameter 'n_components' must be an int in [1, n_features={p}]; got {n_components!r}.")
    auto = _check_auto(spec, cardinality, cardinality_rule, cardinality_fraction)
    cards = [None] * k if auto else _cardinalities(spec, cardinality, penalty, k, p,
                                                   default_cardinality)
    deflation = default_deflation if deflation is None else deflation
    if spec.kind == "joint":
        if deflation not in (default_deflation, "disjoint"):
            raise InvalidParameterError(
                f"method {spec.name!r} finds all components jointly with disjoint supports; "
                f"parameter 'deflation' must be 'disjoint' (or left at its default); got {deflation!r}.")
        deflation = "disjoint"
    trade_first = isinstance(refine, str) and refine == "total"
    refine = resolve_refine(refine, n_components=k, joint=spec.kind == "joint", cardinalities=cards,
                            deflation=deflation) and auto is None
    return Plan(spec, cards, deflation, opts, _seeds(random_state, k), order=order, refine=refine,
                auto=auto, trade_first=trade_first)


def component_order(variances, order: str = DEFAULT_ORDER, cardinalities=None) -> np.ndarray:
    """The permutation that puts the components in ``order``.

    ``"variance"``: by decreasing variance xᵢᵀΣxᵢ on the original (undeflated) Σ, as
    scikit-learn's PCA orders its components; ties keep the order in which they were
    found (a stable sort). ``"deflation"``: the identity (the order of the deflation,
    or of the joint method).

    A per-component list of ``cardinalities`` is honoured position by position: row i
    of the result always has ``cardinalities[i]`` nonzeros. The variance sort then only
    exchanges components that were given the same cardinality (for ``[4, 4, 5]``, the
    two of cardinality 4 are sorted between themselves in rows 0 and 1, and the third
    stays in row 2), so with distinct cardinalities the order is the order given.

    The order is decided on the components' own variances, not on adjusted variances,
    because those depend on the order: :func:`assemble` recomputes them in the new order.

    Parameters
    ----------
    variances : array-like of shape (n_components,)
    order : {"variance", "deflation"}

    Returns
    -------
    ndarray of int, shape (n_components,)
        Row ``i`` of the ordered result is the component found in position ``perm[i]``.

    Examples
    --------
    >>> from eigensparse._dispatch import component_order
    >>> component_order([3.879, 4.879, 2.226, 3.148]).tolist()
    [1, 0, 3, 2]
    >>> component_order([3.879, 4.879], "deflation").tolist()
    [0, 1]
    >>> component_order([1.0, 3.0, 2.0], cardinalities=[4, 5, 4]).tolist()  # 4, 5, 4 kept
    [2, 1, 0]
    """
    v = np.asarray(variances, dtype=float).reshape(-1)
    if order == "deflation":
        return np.arange(v.size)
    perm = np.argsort(-v, kind="stable")
    cards = None if cardinalities is None else list(cardinalities)
    if cards is None or len(cards) != v.size or len(set(cards)) <= 1:
        return perm
    out = np.arange(v.size)
    for c in set(cards):  # sort each class of equal given cardinality within its rows
        rows = np.array([i for i in range(v.size) if cards[i] == c])
        out[rows] = rows[np.argsort(-v[rows], kind="stable")]
    return out


def require_data(plan: Plan, op: Operator, *, factor: bool = False) -> Operator:
    """``op`` when the method can run on it; a data square root of it (``op.factor()``)
    when the method needs the data matrix and ``factor`` is allowed; else a clear error."""
    if not plan.needs_data or op.has_data:
        return op
    if factor:
        return op.factor()
    raise InvalidParameterError(
        f"method {plan.method!r} with options {plan.options} (e.g. its formulation) needs the "
        f"data matrix (A·x products); a {op.kind} only gives Σ. Pass the data, or op.factor().")


def solve_components(op: Operator, plan: Plan, *, solve: Callable | None = None,
                     resolve: Callable | None = None, found: list | None = None, progress=None,
                     rows: dict | None = None, alternatives: bool | None = None) -> list:
    """The components of ``plan`` on ``op``: the joint method, or deflation around
    single-component solves.

    Parameters
    ----------
    op : Operator
    plan : Plan
    solve : callable, optional
        ``solve(operator, cardinality, t, init=None) -> ComponentResult`` for component
        ``t`` (single methods only); default: the method with its options and the t-th
        seed. The topic pipeline passes its working-set solve here.
    resolve : callable, optional
        The refinement's re-solve of component ``t`` against the others, and the probes
        of a cardinality rule at the cardinalities it tries (``cardinality="auto"``), with
        the same signature (default: ``solve``). ``init`` (the component it may replace) is given
        when the method accepts a start (``MethodSpec.warm_start``) and the options carry
        none.
    found : list, optional
        Results already found (loadings on ``op``'s features): replayed as deflation
        steps, then appended to as components are found, so a caller that interrupts
        the loop (e.g. to enlarge its working set) keeps them.
    progress : tqdm bar, optional
        Updated once per component.
    rows : dict, optional
        ``{"data": rows, "center": bool, "scale": bool}``: the data rows, for the
        ``"cv"`` rule of ``cardinality="auto"``.
    alternatives : bool, optional
        Whether the refinement also runs the chains of the method's alternative solves
        (``MethodSpec.alternatives``, on ``op``);
        default: only with the method's own solve. A caller whose ``solve`` is the
        method on a part of ``op`` (the topic pipeline) passes True, so that its
        components equal :func:`eigensparse.sparse_pca`'s.

    Returns
    -------
    list of ComponentResult
        Loadings on ``op``'s features; variances on the operator each solve saw. An
        exception raised by ``solve`` (the topic pipeline's
        :class:`~eigensparse.text._working_set.GrowWorkingSet`) propagates, ``found``
        holding the components found before it. With
        ``plan.auto``, each result's ``info["cardinality_choice"]`` is the
        :class:`eigensparse.selection.CardinalityChoice` behind it.

    The plan's options were checked: every checked function called here trusts its
    input (:func:`eigensparse._validation.trusted`).
    """
    with trusted():
        return _solve_components(op, plan, solve, resolve, found, progress, rows, alternatives)


def _solve_components(op, plan, solve, resolve, found, progress, rows, alternatives):
    if plan.joint:
        results = plan.spec.trusted(op, list(plan.cardinalities), random_state=plan.seeds[0],
                                  **plan.options)
        if progress is not None:
            progress.update(plan.n_components)
        return results
    own = solve is None
    if alternatives is None:
        alternatives = own  # the chain portfolio only with the method's own solve
    if own and found is None and plan.wide_route is not None:  # e.g. many features
        wide = plan.wide_route(op, plan, progress)
        if wide is not None:
            return wide
    if own:
        if not plan.needs_data:  # a formed Gram matrix serves every deflated product
            op = formed_gram(op)
        func = plan.spec.trusted  # options checked by the plan
        # a method's max_time is each component's: its chain solve and its refinement's
        # re-solves share it
        budget = ComponentBudget(plan.options["max_time"]) \
            if plan.options.get("max_time") is not None and plan.spec.takes("max_time") else None

        def solve(sub, s, t, init=None):
            extra = {} if init is None else {"init": init}
            if budget is None:
                return func(sub, s, random_state=plan.seeds[t], **plan.options, **extra)
            opts = {**plan.options, "max_time": budget.left(t)}
            budget.start(t)
            try:
                return func(sub, s, random_state=plan.seeds[t], **opts, **extra)
            finally:
                budget.stop(t)
    if plan.auto is not None:  # the chosen cardinalities' components (never refined)
        return _solve_auto(op, plan, solve, resolve, found, progress, rows)
    results = run_deflation(op, solve, list(plan.cardinalities), plan.deflation, progress=progress,
                            found=found)
    if plan.refine:  # re-solve each component against the others; never lowers the total
        # a re-solve starts from the component it may replace (``init=``) when the method
        # accepts a start: the method's own solve and a caller's take ``init``
        warm = plan.spec.warm_start and "init" not in plan.options
        results = refine_plan(op, plan, results, solve if resolve is None else resolve,
                              _adjusted_variance, alternatives=alternatives, warm=warm)
    return results


def _solve_auto(op, plan, solve, resolve, found, progress, rows):
    """``cardinality="auto"``: the rule chooses each component's s (its probes at other
    cardinalities by ``resolve``, default ``solve``) and ``solve`` gives the component at
    the chosen s. A restart (``found`` not empty, e.g. a larger working set) chooses again
    from the first component."""
    from .selection import resolve_auto_cardinalities

    found = [] if found is None else found
    del found[:]
    auto = resolve_auto_cardinalities(op, plan.n_components, deflation=plan.deflation,
                                      solve=solve, probe=resolve, random_state=plan.seeds[0],
                                      found=found,
                                      **plan.auto, **(rows or {}))
    if progress is not None:
        progress.update(plan.n_components)
    return [with_info(r, cardinality_choice=ch) for r, ch in zip(auto.results, auto.choices)]


def progress_bar(plan: Plan, desc: str | None = None, leave: bool = True):
    """A tqdm bar over the components of ``plan``."""
    from tqdm.auto import tqdm

    return tqdm(total=plan.n_components, desc=desc or f"sparse_pca[{plan.method}]",
                unit="comp", leave=leave)


def assemble(op: Operator, plan: Plan, results: list, *, info: dict | None = None,
             features=None, n_features: int | None = None, total_variance=None,
             result_type=SparsePCAResult, cardinality_tolerance: int = 0, outside=None,
             **fields) -> SparsePCAResult:
    """The multi-component result of ``results`` (loadings on ``op``'s features):
    sign rule, variances on ``op`` (undeflated), adjusted variances, supports.

    The rows are put in ``plan.order`` (:func:`component_order`: by default by decreasing
    variance xᵀΣx on ``op``) before the adjusted variances are computed, in that order;
    per-component ``results``, ``supports`` and ``info["cardinalities"]`` follow the rows,
    and ``info["found_at"]`` holds, per row, its position (0-based) in the deflation.

    ``features`` (sorted ids, one per feature of ``op``) places the components among
    ``n_features`` features (the topic pipeline's working set among all words);
    ``total_variance`` defaults to Tr Σ of ``op``. ``result_type`` (a subclass of
    :class:`SparsePCAResult`) and ``fields`` let a front door add its own attributes.
    A row with more than ``cardinality_tolerance`` nonzeros fewer than asked is recorded
    in ``info["cardinality_short"]`` ({row: (nonzeros, asked)}) and said by a warning.
    Disjoint components (a joint method or ``deflation="disjoint"``, cardinalities given)
    get ``info["total_upper_bound"]`` (:func:`eigensparse.bounds.total_upper_bound`; with
    ``features``, only when ``outside`` holds the variances of the features left out)."""
    p = op.n_features
    C = fix_sign(np.vstack([r.loadings for r in results])) if results else np.zeros((0, p))
    G = C @ op.matmat(C.T) if results else np.zeros((0, 0))  # C Σ Cᵀ: one product for both
    variances = np.diag(G).copy()
    perm = component_order(variances, plan.order,
                           None if plan.auto is not None else plan.cardinalities)
    C, variances, results = C[perm], variances[perm], [results[i] for i in perm]
    cards = list(plan.cardinalities)
    if len(cards) == len(perm):
        cards = [cards[i] for i in perm]
    expl = _adjusted_variance_of_gram(G[np.ix_(perm, perm)]) if results else np.zeros(0)
    if features is not None:
        full = np.zeros((C.shape[0], int(n_features)))
        full[:, np.asarray(features)] = C
        C = full
    base = {"operator": op.kind, "cardinalities": cards, "order": plan.order,
            "found_at": [int(i) for i in perm]}
    refined = [info_entry(r, "refine") for r in results if info_entry(r, "refine") is not None]
    if refined:  # the refinement's record (the same dict on every refined component)
        base["refine"] = refined[0]
    if plan.auto is not None:
        base["cardinalities"] = [int(r.cardinality) for r in results]
        base["cardinality_rule"] = plan.auto["rule"]
        base["cardinality_choices"] = [info_entry(r, "cardinality_choice") for r in results]
    if plan.auto is None and plan.penalty is None and len(cards) == C.shape[0]:
        short = {j: (int(np.count_nonzero(c)), int(k)) for j, (c, k) in enumerate(zip(C, cards))
                 if np.count_nonzero(c) < k - cardinality_tolerance}
        if short:  # fewer nonzeros than asked: said for every method, never silent
            base["cardinality_short"] = short
            warnings.warn(
                f"{plan.method}: " + ", ".join(f"PC{j + 1} has {got} nonzero loading(s) of the {k} asked"
                                               for j, (got, k) in short.items())
                + ": no support of the asked size carries variance there (features of zero "
                "variance, or variance taken by the components before).",
                UserWarning, stacklevel=2)
    if ((plan.joint or plan.deflation == "disjoint") and plan.auto is None and plan.penalty is None
            and results and (features is None or outside is not None)):
        from .bounds import total_upper_bound

        with trusted():  # a checked plan's cardinalities
            base["total_upper_bound"] = total_upper_bound(
                op, plan.cardinalities, outside=outside, value=float(np.sum(variances)),
                support=np.flatnonzero(np.any([r.loadings != 0 for r in results], axis=0)))
    base.update(info or {})
    return result_type(
        components=C, variances=np.asarray(variances, dtype=float), explained_variance=expl,
        supports=[np.flatnonzero(c) for c in C], results=list(results),
        total_variance=float(op.trace()) if total_variance is None else float(total_variance),
        method=plan.method, deflation=plan.deflation, info=base, plan=plan, **fields)


def plan_fit(data, *, n_components=None, cardinality=None, method=DEFAULT_METHOD,
             deflation=DEFAULT_DEFLATION, penalty=None, center=True, scale=False,
             random_state=None, client=None, device=None, order=DEFAULT_ORDER, refine="auto",
             cardinality_rule="fraction", cardinality_fraction=0.9, method_options=None,
             caller="sparse_pca", parameters=None, wide_route=None) -> tuple:
    """``(op, plan)``: step 1 above for a data matrix or an operator, the request of
    :func:`eigensparse.sparse_pca` (whose parameters these are, checked there) checked
    once; :func:`fit_plan` solves it. ``caller`` and ``parameters`` name the function
    the user called (for its errors); ``wide_route``: see :class:`Plan`."""
    from .operators import as_operator

    resolved = resolve_method(method, method_options, penalty, caller=caller,
                              parameters=parameters)  # fail before the data are touched
    spec, options = resolved
    if (client is not None and options.get("backend") == "dask" and "client" in spec.constraints
            and options.get("client") is None):  # the cluster that holds the data searches too
        resolved = (spec, {**options, "client": client})
    if scale and isinstance(data, Operator):
        raise InvalidParameterError(
            f"parameter 'scale=True' cannot be applied to a {data.kind} ({type(data).__name__}): "
            "it is used as given. For correlation PCA pass Covariance(S, scale=True), or the data.")
    op = as_operator(data, center=center, scale=scale, client=client, device=device)
    plan = plan_components(method, n_features=op.n_features, n_components=n_components,
                           cardinality=cardinality, penalty=penalty, deflation=deflation,
                           random_state=random_state, order=order, refine=refine,
                           cardinality_rule=cardinality_rule,
                           cardinality_fraction=cardinality_fraction, resolved=resolved)
    plan = replace(plan, center=bool(center), scale=bool(scale), client=client, device=device,
                   wide_route=wide_route)
    return require_data(plan, op), plan


def fit_plan(data, plan: Plan, *, op: Operator | None = None, progress=False) -> SparsePCAResult:
    """Steps 2–4 above: the components of ``data`` for a checked ``plan`` (``op``: the
    operator :func:`plan_fit` built of ``data``; otherwise built here, as the plan says).
    The result keeps the plan (``result.plan``): a refit of the same request takes
    ``result.plan.reseeded(seed)``."""
    from .operators import as_operator

    if op is None:
        op = require_data(plan, as_operator(data, center=plan.center, scale=plan.scale,
                                            client=plan.client, device=plan.device))
    rows = None
    if plan.auto is not None and plan.auto["rule"] == "cv" and not isinstance(data, Operator):
        rows = {"data": data, "center": plan.center, "scale": plan.scale}
    bar = progress_bar(plan) if progress else None
    try:
        results = solve_components(op, plan, progress=bar, rows=rows)
    finally:
        if bar is not None:
            bar.close()
    p = op.n_features
    mean, scale_ = getattr(op, "mean_", None), getattr(op, "scale_", None)
    return assemble(op, plan, results, info={
        "mean": np.zeros(p) if mean is None else np.asarray(mean),
        "scale": np.ones(p) if scale_ is None else np.asarray(scale_)})
