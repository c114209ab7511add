"""Single-component solvers and their registry.

Every solver is a plain function ``solver(op, cardinality, *, random_state=None,
**options) -> ComponentResult`` taking an :class:`~eigensparse.operators.Operator`
and an exact target cardinality (penalized solvers may accept ``cardinality=None``
with a ``penalty=`` option instead). :func:`register` adds one to :data:`SOLVERS`;
:func:`get_solver` looks one up with a clear error.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

from .._validation import InvalidParameterError
from ._common import check_random_state, make_result, polish, polish_loadings

__all__ = ["SolverSpec", "SOLVERS", "register", "get_solver", "polish", "polish_loadings",
           "make_result", "check_random_state"]


@dataclass(frozen=True)
class SolverSpec:
    name: str
    func: Callable
    #: the method needs dot/rdot always (formulation-dependent checks happen in the solver)
    needs_data: bool = False
    #: True when the solver can run on a penalty alone (cardinality=None, penalty=ρ)
    penalized: bool = False
    summary: str = ""
    options: tuple = field(default=())


SOLVERS: dict[str, SolverSpec] = {}


def register(name: str, *, needs_data: bool = False, penalized: bool = False, summary: str = ""):
    """Decorator registering ``func`` under ``name``."""

    def deco(func):
        sig = inspect.signature(func)
        opts = tuple(k for k, p in sig.parameters.items()
                     if p.kind == p.KEYWORD_ONLY)
        SOLVERS[name] = SolverSpec(name, func, needs_data, penalized,
                                   summary or (func.__doc__ or "").strip().split("\n")[0], opts)
        return func

    return deco


def get_solver(name) -> SolverSpec:
    _load_all()
    if not isinstance(name, str) or name not in SOLVERS:
        raise InvalidParameterError(
            f"parameter 'method' must be one of {sorted(SOLVERS)}; got {name!r}."
        )
    return SOLVERS[name]


_LOADED = False


def _load_all():
    """Import every solver module (each registers itself)."""
    global _LOADED
    if _LOADED:
        return
    import importlib
    import pkgutil

    for m in pkgutil.iter_modules(__path__):
        if not m.name.startswith("_common"):
            importlib.import_module(f"{__name__}.{m.name}")
    _LOADED = True
