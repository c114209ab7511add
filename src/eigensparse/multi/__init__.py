"""Several components: deflation schemes and joint (simultaneous) methods.

Joint methods (several components at once, e.g. bipartite matchings) register
with :func:`register_joint`; their signature is
``func(op, cardinalities, *, random_state=None, **options) -> list[ComponentResult]``
with the loadings expressed on the operator's features. They live in the one method
registry (:mod:`eigensparse.registry`) with ``kind="joint"``.
"""
from __future__ import annotations

from ..registry import KindView, MethodSpec, checked, get_method, register_method
from ._deflation import DEFLATIONS, deflate, run_deflation

__all__ = ["DEFLATIONS", "deflate", "run_deflation", "JOINT_METHODS", "register_joint",
           "get_joint"]

#: ``{name: MethodSpec}`` of the joint methods registered so far
JOINT_METHODS = KindView("joint")


def register_joint(name: str, *, summary: str = "", cost: str = "", constraints=None,
                   deprecated: tuple = ()):
    """Decorator registering ``func`` as the joint method ``name`` (a thin entry into
    :func:`eigensparse.registry.register_method`); the function returned checks its
    options against ``constraints`` (the spec's) when called directly.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.multi import get_joint, register_joint
    >>> from eigensparse.solvers import polish
    >>> @register_joint("consecutive", summary="Consecutive blocks of features (a toy).")
    ... def consecutive(op, cardinalities, *, random_state=None):
    ...     starts = np.cumsum([0, *cardinalities])
    ...     return [polish(op, np.arange(a, b), "consecutive") for a, b in zip(starts, starts[1:])]
    >>> S = Covariance(np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]]))
    >>> [c.support.tolist() for c in get_joint("consecutive").func(S, [2, 1])]
    [[0, 1], [2]]
    >>> from eigensparse import registry; del registry._METHODS["consecutive"]  # forget the toy
    """

    def deco(func):
        public = checked(func, constraints or {})
        register_method(MethodSpec(name, public, trusted=func, kind="joint", description=summary,
                                   cost=cost, constraints=dict(constraints or {}),
                                   deprecated=tuple(deprecated)))
        return public

    return deco


def get_joint(name):
    """The spec of the joint method ``name``, or None when ``name`` is not one.

    Examples
    --------
    >>> from eigensparse.multi import get_joint
    >>> get_joint("bipartite").kind, get_joint("greedy") is None
    ('joint', True)
    """
    from ..registry import method_names

    return get_method(name) if name in method_names("joint") else None

