"""Several components: deflation schemes and joint (simultaneous) methods.

Joint methods (several components at once, e.g. bipartite matchings) register
with :func:`register_joint`; their signature is
``func(op, cardinalities, *, random_state=None, **options) -> list[ComponentResult]``
with the loadings expressed on the operator's features.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable

from ._deflation import DEFLATIONS, deflate, run_deflation

__all__ = ["DEFLATIONS", "deflate", "run_deflation", "JOINT_METHODS", "register_joint",
           "get_joint"]


@dataclass(frozen=True)
class JointSpec:
    name: str
    func: Callable
    summary: str = ""
    options: tuple = ()


JOINT_METHODS: dict[str, JointSpec] = {}


def register_joint(name: str, *, summary: str = ""):
    def deco(func):
        sig = inspect.signature(func)
        opts = tuple(k for k, p in sig.parameters.items() if p.kind == p.KEYWORD_ONLY)
        JOINT_METHODS[name] = JointSpec(name, func,
                                        summary or (func.__doc__ or "").strip().split("\n")[0], opts)
        return func

    return deco


_LOADED = False


def _load_all():
    global _LOADED
    if _LOADED:
        return
    import importlib
    import pkgutil

    for m in pkgutil.iter_modules(__path__):
        if m.name != "_deflation":
            importlib.import_module(f"{__name__}.{m.name}")
    _LOADED = True


def get_joint(name):
    _load_all()
    return JOINT_METHODS.get(name)
