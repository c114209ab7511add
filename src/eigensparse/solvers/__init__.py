"""Single-component solvers.

Every solver is a plain function ``solver(op, cardinality, *, random_state=None,
**options) -> ComponentResult`` taking an :class:`~eigensparse.operators.Operator`
and an exact target cardinality (penalized solvers may accept ``cardinality=None``
with a ``penalty=`` option instead). :func:`register` adds one to the method registry
(:mod:`eigensparse.registry`); :data:`SOLVERS` is the registry's live view of the
single-component methods and :func:`get_solver` looks one up with a clear error.
"""
from __future__ import annotations

from .._validation import IntInterval
from ..operators import Operator
from ..registry import KindView, MethodSpec, checked, get_method, register_method
from ._common import check_random_state, make_result, polish, polish_loadings

__all__ = ["SOLVERS", "register", "get_solver", "polish", "polish_loadings",
           "make_result", "check_random_state"]

#: ``{name: MethodSpec}`` of the single-component methods registered so far
SOLVERS = KindView("single")

#: the constraints every solver's problem shares (a direct call is an entry point): the
#: operator, and an exact cardinality (None too for a method that takes a penalty); that
#: it is at most ``n_features`` depends on the operator (``_simple._check_problem``)
PROBLEM_CONSTRAINTS = {"op": [Operator], "cardinality": [IntInterval(1, None, closed="left")]}


def register(name: str, *, needs_data=False, penalized: bool = False, summary: str = "",
             cost: str = "", takes_cardinality: bool = True, constraints=None,
             warm_start: bool = False, bounded=None, alternatives: tuple = (),
             deprecated: tuple = ()):
    """Decorator registering ``func`` as the single-component method ``name``.

    A thin entry into :func:`eigensparse.registry.register_method`: ``penalized`` is
    the spec's ``takes_penalty``, ``summary`` its ``description`` (default: the first
    line of the docstring); ``needs_data`` may be a callable of the options dict;
    ``constraints``, ``warm_start``, ``bounded`` (a
    :class:`~eigensparse.registry.BoundedSolve`), ``alternatives`` and ``deprecated`` are the
    spec's (:class:`~eigensparse.registry.MethodSpec`). The function returned checks its
    options against ``constraints`` when called directly; ``func`` itself is the spec's
    :attr:`~eigensparse.registry.MethodSpec.trusted`.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.solvers import get_solver, polish, register
    >>> @register("first_s", summary="Keep the first s features, then polish (a toy).")
    ... def first_s(op, cardinality, *, random_state=None):
    ...     return polish(op, np.arange(cardinality), "first_s")
    >>> S = Covariance(np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]]))
    >>> get_solver("first_s").func(S, 2).support.tolist()
    [0, 1]
    >>> from eigensparse import registry; del registry._METHODS["first_s"]  # forget the toy
    """

    problem = dict(PROBLEM_CONSTRAINTS)
    if penalized:
        problem["cardinality"] = [*problem["cardinality"], None]

    def deco(func):
        public = checked(func, {**problem, **(constraints or {})})
        register_method(MethodSpec(name, public, trusted=func, kind="single",
                                   takes_cardinality=takes_cardinality,
                                   takes_penalty=penalized, needs_data=needs_data, cost=cost,
                                   description=summary, constraints=dict(constraints or {}),
                                   warm_start=warm_start, bounded=bounded,
                                   alternatives=tuple(alternatives),
                                   deprecated=tuple(deprecated)))
        return public

    return deco


def get_solver(name) -> MethodSpec:
    """The :class:`~eigensparse.registry.MethodSpec` of the single-component method ``name``.

    Examples
    --------
    >>> from eigensparse.solvers import get_solver
    >>> spec = get_solver("greedy")
    >>> spec.name, spec.kind, spec.takes_cardinality
    ('greedy', 'single', True)
    """
    return get_method(name, kind="single")

