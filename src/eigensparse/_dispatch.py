"""The one dispatcher: from a method name and its arguments to components.

Every front door goes through here (:func:`eigensparse.sparse_pca`,
:class:`eigensparse.SparsePCA` through it, the topic pipeline
:func:`eigensparse.text.extract_topics`, the command line):

1. :func:`plan_components` resolves the method in the registry
   (:mod:`eigensparse.registry`), normalises the cardinalities once (one int, or None
   for a penalty-only solve, per component), checks the method's options and the
   penalty and deflation rules, and draws one seed per component;
2. :func:`require_data` checks the method's data requirement once (or factors a
   covariance when the caller allows it);
3. :func:`solve_components` runs the deflation loop (single-component methods) or
   the joint method;
4. :func:`assemble` returns the multi-component result (sign rule, variances on the
   undeflated operator, the component order of :data:`ORDERS`, adjusted variances).

The topic pipeline adds its passes and working set around steps 2–3 (its own
per-component ``solve`` through :func:`solve_components`); it resolves nothing itself.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ._linalg import fix_sign
from ._result import SparsePCAResult
from ._validation import InvalidParameterError, check_cardinalities
from .multi import DEFLATIONS, run_deflation
from .multi._refine import refine_plan, resolve_refine
from .operators import Operator
from .registry import DEFAULT_METHOD, MethodSpec, get_method, method_names

__all__ = ["Plan", "resolve_method", "plan_components", "require_data", "solve_components", "assemble",
           "adjusted_variance", "adjusted_variance_of_gram", "component_order", "DEFAULT_DEFLATION",
           "DEFAULT_CARDINALITY", "DEFAULT_ORDER", "ORDERS"]

DEFAULT_DEFLATION = "schur"
#: the component orders :func:`assemble` knows: by decreasing variance xᵀΣx on the
#: original Σ (as scikit-learn's PCA), or as the deflation (or joint method) found them
ORDERS = ("variance", "deflation")
DEFAULT_ORDER = "variance"
#: cardinality used when none is given: min(n_features, 10)
DEFAULT_CARDINALITY = 10


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
    """

    spec: MethodSpec
    cardinalities: list
    deflation: str
    options: dict = field(default_factory=dict)
    seeds: tuple = ()
    order: str = DEFAULT_ORDER
    refine: bool = False

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


def _seeds(random_state, k: int) -> tuple:
    from .solvers import check_random_state

    rng = check_random_state(random_state)
    return tuple(int(s) for s in rng.integers(0, 2**31 - 1, size=k))


def _check_options(spec: MethodSpec, options: dict, penalty) -> dict:
    unknown = sorted(set(options) - set(spec.options))
    if unknown:
        raise InvalidParameterError(
            f"method {spec.name!r} got unknown option(s) {unknown}; valid options: "
            f"{sorted(spec.options)}.")
    opts = dict(options)
    if penalty is not None:
        if not spec.takes_penalty or "penalty" not in spec.options:
            penalized = [s.name for s in _specs() if s.takes_penalty]
            raise InvalidParameterError(
                f"parameter 'penalty' is not used by method {spec.name!r}; penalized methods: "
                f"{penalized}.")
        if isinstance(penalty, bool) or not isinstance(penalty, numbers.Real) or not (
                np.isfinite(penalty) and penalty >= 0):
            raise InvalidParameterError(
                f"parameter 'penalty' must be a finite real number >= 0; got {penalty!r}.")
        opts["penalty"] = penalty
    return opts


def _specs():
    return [get_method(n) for n in method_names()]


def _cardinalities(spec, cardinality, penalty, k, p, default_cardinality) -> list:
    if cardinality is None and penalty is not None and spec.takes_penalty:
        return [None] * k
    if cardinality is None:
        if not spec.takes_cardinality:
            raise InvalidParameterError(
                f"method {spec.name!r} takes a 'penalty', not a cardinality; give penalty=.")
        cardinality = min(default_cardinality, p)
    return check_cardinalities(cardinality, k, p)


def resolve_method(method, options=None, penalty=None) -> tuple:
    """``(spec, options)``: the method (None: the default) and its checked options
    (``penalty`` included when given). Front doors that must read data before they
    can plan call this first, to fail before reading."""
    spec = get_method(DEFAULT_METHOD if method is None else method)
    return spec, _check_options(spec, dict(options or {}), penalty)


def plan_components(method, *, n_features: int, n_components=None, cardinality=None,
                    penalty=None, deflation=None, options=None, random_state=None, refine=False,
                    default_cardinality: int = DEFAULT_CARDINALITY,
                    default_deflation: str = DEFAULT_DEFLATION, order: str = DEFAULT_ORDER) -> Plan:
    """Resolve a request once: method, cardinalities, options, deflation, seeds.

    Parameters
    ----------
    method : str or None
        A registered method (None: :data:`eigensparse.registry.DEFAULT_METHOD`).
    n_features : int
        Features of the operator the components live on.
    n_components : int or None
        None: ``min(5, n_features)``.
    cardinality : int, list of int or None
        None: ``min(default_cardinality, n_features)``, or a penalty-only solve when
        ``penalty`` is given to a method that takes one.
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
        (:func:`eigensparse.multi._refine.resolve_refine` resolves ``"auto"``).

    Returns
    -------
    Plan
    """
    check_order(order)
    spec, opts = resolve_method(method, options, penalty)
    p = int(n_features)
    k = min(5, p) if n_components is None else n_components
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= p:
        raise InvalidParameterError(
            f"parameter 'n_components' must be an int in [1, n_features={p}]; got {n_components!r}.")
    k = int(k)
    cards = _cardinalities(spec, cardinality, penalty, k, p, default_cardinality)
    deflation = default_deflation if deflation is None else deflation
    if deflation not in DEFLATIONS:
        raise InvalidParameterError(
            f"parameter 'deflation' must be one of {list(DEFLATIONS)}; got {deflation!r}.")
    if spec.kind == "joint":
        if deflation not in (default_deflation, "disjoint"):
            raise InvalidParameterError(
                f"method {spec.name!r} finds all components jointly with disjoint supports; "
                f"parameter 'deflation' must be 'disjoint' (or left at its default); got {deflation!r}.")
        deflation = "disjoint"
    refine = resolve_refine(refine, n_components=k, joint=spec.kind == "joint", cardinalities=cards,
                            deflation=deflation)
    return Plan(spec, cards, deflation, opts, _seeds(random_state, k), order, refine)


def check_order(order) -> str:
    """``order`` if it is one of :data:`ORDERS`; a clear error otherwise."""
    if not isinstance(order, str) or order not in ORDERS:
        raise InvalidParameterError(f"parameter 'order' must be one of {list(ORDERS)}; got {order!r}.")
    return order


def component_order(variances, order: str = DEFAULT_ORDER) -> np.ndarray:
    """The permutation that puts the components in ``order``.

    ``"variance"``: by decreasing variance xᵢᵀΣxᵢ on the original (undeflated) Σ, as
    scikit-learn's PCA orders its components; ties keep the order in which they were
    found (a stable sort). ``"deflation"``: the identity (the order of the deflation,
    or of the joint method).

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
    """
    v = np.asarray(variances, dtype=float).reshape(-1)
    if check_order(order) == "deflation":
        return np.arange(v.size)
    return np.argsort(-v, kind="stable")


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
                     found: list | None = None, progress=None) -> list:
    """The components of ``plan`` on ``op``: the joint method, or deflation around
    single-component solves.

    Parameters
    ----------
    op : Operator
    plan : Plan
    solve : callable, optional
        ``solve(operator, cardinality, t) -> ComponentResult`` for component ``t``
        (single methods only); default: the method with its options and the t-th seed.
        The topic pipeline passes its working-set solve here.
    found : list, optional
        Results already found (loadings on ``op``'s features): replayed as deflation
        steps, then appended to as components are found, so a caller that interrupts
        the loop (e.g. to enlarge its working set) keeps them.
    progress : tqdm bar, optional
        Updated once per component.

    Returns
    -------
    list of ComponentResult
        Loadings on ``op``'s features; variances on the operator each solve saw.
    """
    if plan.joint:
        results = plan.spec.func(op, list(plan.cardinalities), random_state=plan.seeds[0],
                                 **plan.options)
        if progress is not None:
            progress.update(plan.n_components)
        return results
    partners = solve is None  # the chain portfolio only with the method's own solve
    if solve is None:
        def solve(sub, s, t):
            return plan.spec.func(sub, s, random_state=plan.seeds[t], **plan.options)
    results = run_deflation(op, solve, list(plan.cardinalities), plan.deflation, progress=progress,
                            found=found)
    if plan.refine:  # re-solve each component against the others; never lowers the total
        results = refine_plan(op, plan, results, solve, adjusted_variance, partners=partners)
    return results


def progress_bar(plan: Plan, desc: str | None = None, leave: bool = True):
    """A tqdm bar over the components of ``plan``."""
    from tqdm.auto import tqdm

    return tqdm(total=plan.n_components, desc=desc or f"sparse_pca[{plan.method}]",
                unit="comp", leave=leave)


def adjusted_variance(op: Operator, components: np.ndarray) -> np.ndarray:
    """Zou–Hastie–Tibshirani adjusted variance of the rows of ``components``.

    With scores Z = A Cᵀ and Z = QR, the adjusted variance of component j is R_jj²:
    the variance it explains beyond the components before it. Computed from the Gram
    matrix G = C Σ Cᵀ = RᵀR by a (semi-definite tolerant) Cholesky, so it needs only
    Σ products. Sums to at most Tr Σ; equals the plain variances when the scores are
    uncorrelated.
    """
    C = np.atleast_2d(np.asarray(components, dtype=float))
    return adjusted_variance_of_gram(C @ op.matmat(C.T))


def adjusted_variance_of_gram(G) -> np.ndarray:
    """Adjusted variances R_jj² from the Gram matrix G = C Σ Cᵀ (= ZᵀZ/n of the scores Z)
    of k components, in their order (see :func:`adjusted_variance`).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._dispatch import adjusted_variance_of_gram
    >>> adjusted_variance_of_gram(np.array([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [4.0, 1.0]
    """
    G = np.atleast_2d(np.asarray(G, dtype=float))
    G = 0.5 * (G + G.T)
    k = G.shape[0]
    R = np.zeros((k, k))
    for j in range(k):
        r2 = G[j, j] - R[:j, j] @ R[:j, j]
        if r2 <= 1e-14 * max(G[j, j], 1e-300):
            R[j, j] = 0.0
            continue
        R[j, j] = np.sqrt(r2)
        if j + 1 < k:
            R[j, j + 1:] = (G[j, j + 1:] - R[:j, j] @ R[:j, j + 1:]) / R[j, j]
    return np.diag(R) ** 2


def assemble(op: Operator, plan: Plan, results: list, *, info: dict | None = None,
             features=None, n_features: int | None = None, total_variance=None,
             result_type=SparsePCAResult, **fields) -> SparsePCAResult:
    """The multi-component result of ``results`` (loadings on ``op``'s features):
    sign rule, variances on ``op`` (undeflated), adjusted variances, supports.

    The rows are put in ``plan.order`` (:func:`component_order`: by default by decreasing
    variance xᵀΣx on ``op``) before the adjusted variances are computed, in that order;
    per-component ``results``, ``supports`` and ``info["cardinalities"]`` follow the rows,
    and ``info["found_at"]`` holds, per row, its position (0-based) in the deflation.

    ``features`` (sorted ids, one per feature of ``op``) places the components among
    ``n_features`` features (the topic pipeline's working set among all words);
    ``total_variance`` defaults to Tr Σ of ``op``. ``result_type`` (a subclass of
    :class:`SparsePCAResult`) and ``fields`` let a front door add its own attributes."""
    p = op.n_features
    C = fix_sign(np.vstack([r.loadings for r in results])) if results else np.zeros((0, p))
    variances = np.atleast_1d(op.quad(C.T)) if results else np.zeros(0)
    perm = component_order(variances, plan.order)
    C, variances, results = C[perm], variances[perm], [results[i] for i in perm]
    cards = list(plan.cardinalities)
    if len(cards) == len(perm):
        cards = [cards[i] for i in perm]
    expl = adjusted_variance(op, C) if results else np.zeros(0)
    if features is not None:
        full = np.zeros((C.shape[0], int(n_features)))
        full[:, np.asarray(features)] = C
        C = full
    base = {"operator": op.kind, "cardinalities": cards, "order": plan.order,
            "found_at": [int(i) for i in perm]}
    base.update(info or {})
    return result_type(
        components=C, variances=np.asarray(variances, dtype=float), explained_variance=expl,
        supports=[np.flatnonzero(c) for c in C], results=list(results),
        total_variance=float(op.trace()) if total_variance is None else float(total_variance),
        method=plan.method, deflation=plan.deflation, info=base, **fields)
