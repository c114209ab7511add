"""Single-component solvers.

Every solver is a plain function ``solver(op, cardinality, *, random_state=None,
**options) -> ComponentResult`` taking an :class:`~eigensparse.operators.Operator`
and an exact target cardinality (penalized solvers may accept ``cardinality=None``
with a ``penalty=`` option instead). :func:`register` adds one to the method registry
(:mod:`eigensparse.registry`); :data:`SOLVERS` is the registry's live view of the
single-component methods and :func:`get_solver` looks one up with a clear error.
"""
from __future__ import annotations

from ..registry import KindView, MethodSpec, get_method, register_method
from ._common import check_random_state, make_result, polish, polish_loadings

__all__ = ["SOLVERS", "register", "get_solver", "polish", "polish_loadings",
           "make_result", "check_random_state"]

#: ``{name: MethodSpec}`` of the single-component methods registered so far
SOLVERS = KindView("single")


def register(name: str, *, needs_data=False, penalized: bool = False, summary: str = "",
             cost: str = "", takes_cardinality: bool = True):
    """Decorator registering ``func`` as the single-component method ``name``.

    A thin entry into :func:`eigensparse.registry.register_method`: ``penalized`` is
    the spec's ``takes_penalty``, ``summary`` its ``description`` (default: the first
    line of the docstring); ``needs_data`` may be a callable of the options dict.

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

    def deco(func):
        register_method(MethodSpec(name, func, kind="single", takes_cardinality=takes_cardinality,
                                   takes_penalty=penalized, needs_data=needs_data, cost=cost,
                                   description=summary))
        return func

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


def _load_all():
    """Import every method module (each registers itself); kept for older callers."""
    from ..registry import _load_all as load

    load()
