"""Several components: deflation schemes and joint (simultaneous) methods.

Joint methods (several components at once, e.g. bipartite matchings) register
with :func:`register_joint`; their signature is
``func(op, cardinalities, *, random_state=None, **options) -> list[ComponentResult]``
with the loadings expressed on the operator's features. They live in the one method
registry (:mod:`eigensparse.registry`) with ``kind="joint"``.
"""
from __future__ import annotations

from ..registry import KindView, MethodSpec, get_method, register_method
from ._deflation import DEFLATIONS, deflate, run_deflation

__all__ = ["DEFLATIONS", "deflate", "run_deflation", "JOINT_METHODS", "register_joint",
           "get_joint"]

#: ``{name: MethodSpec}`` of the joint methods registered so far
JOINT_METHODS = KindView("joint")


def register_joint(name: str, *, summary: str = "", cost: str = ""):
    """Decorator registering ``func`` as the joint method ``name`` (a thin entry into
    :func:`eigensparse.registry.register_method`)."""

    def deco(func):
        register_method(MethodSpec(name, func, kind="joint", description=summary, cost=cost))
        return func

    return deco


def get_joint(name):
    """The spec of the joint method ``name``, or None when ``name`` is not one."""
    from ..registry import method_names

    return get_method(name) if name in method_names("joint") else None


def _load_all():
    from ..registry import _load_all as load

    load()
