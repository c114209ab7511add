"""The one registry of methods: a frozen :class:`MethodSpec` per method.

Every front door (:func:`eigensparse.sparse_pca`, :class:`eigensparse.SparsePCA`,
:func:`eigensparse.text.extract_topics`, the ``eigensparse`` command line) reads the
names, options and rules of its methods from here, through the dispatcher
(:mod:`eigensparse._dispatch`).

A method is either

- ``"single"``: one component at a time, ``func(op, cardinality, *, random_state=None,
  **options) -> ComponentResult``, repeated by a deflation scheme; or
- ``"joint"``: all components at once with disjoint supports,
  ``func(op, cardinalities, *, random_state=None, **options) -> list[ComponentResult]``.

To add a method, write one module (under :mod:`eigensparse.solvers` or
:mod:`eigensparse.multi`, which are imported lazily the first time a method is looked
up, or anywhere else that is imported before use) holding the function and one
registration: :func:`register_method` with a :class:`MethodSpec`, or the decorators
:func:`eigensparse.solvers.register` / :func:`eigensparse.multi.register_joint`.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Callable, Union

from ._validation import InvalidParameterError, check_params, closest, validate_params

__all__ = ["MethodSpec", "BoundedSolve", "DEFAULT_METHOD", "KINDS", "register_method", "get_method",
           "method_names", "methods", "options_of"]

#: the method every front door uses when none is named (defined here only)
DEFAULT_METHOD = "auto"

KINDS = ("single", "joint")

#: the packages whose modules register methods when imported (loaded lazily, once)
_METHOD_PACKAGES = ("eigensparse.solvers", "eigensparse.multi")

_METHODS: dict[str, "MethodSpec"] = {}
_loaded = False


def options_of(func: Callable) -> tuple:
    """The keyword-only parameters of ``func`` (its options), in signature order, except
    ``random_state`` (the dispatcher passes one seed per component).

    Examples
    --------
    >>> from eigensparse.registry import get_method, options_of
    >>> options_of(get_method("scol").func)
    ('power_iter', 'tol')
    """
    sig = inspect.signature(func)
    return tuple(k for k, p in sig.parameters.items()
                 if p.kind == p.KEYWORD_ONLY and k != "random_state")


@dataclass(frozen=True)
class BoundedSolve:
    """How a method solves one exact-cardinality component in bounded time on a growing
    solve set (:func:`eigensparse.text._bounded.bounded_solve`, the topic pipeline's
    solve): the capability a :class:`MethodSpec` declares, so that no caller names the
    method.

    Attributes
    ----------
    whole_ranked_set : bool
        On a working set ranked by partners (the topic pipeline's ``"partner"`` rule) the
        method searches all of it at once (its own starts see the co-occurring words a
        solve set grown by variance misses), instead of a solve set grown from small.
    starts : bool
        The method takes ``init=`` starts: it is given the approximate-greedy solution,
        coordinate starts on the largest variances and the best support so far (warm).
    options : dict
        Options of every bounded solve (e.g. ``{"certify": False}``: no certificate per
        solve of a growing set); the caller's options override them.
    cost_exponent : int
        A solve on m features costs about m**cost_exponent (the time of the next, doubled
        solve set is predicted from the last one).
    fallback : str or None
        A cheaper bounded method used instead when the solve set exceeds the caller's
        limit for this one or its predicted time exceeds the time left.

    Examples
    --------
    >>> from eigensparse.registry import get_method
    >>> get_method("bca").bounded.fallback, get_method("tpower").bounded.starts
    ('tpower', True)
    """

    whole_ranked_set: bool = False
    starts: bool = False
    options: Mapping = field(default_factory=dict)
    cost_exponent: int = 2
    fallback: Union[str, None] = None


@dataclass(frozen=True)
class MethodSpec:
    """What the front doors need to know about one method.

    Attributes
    ----------
    name : str
        The value of ``method=`` that selects it.
    func : callable
        The solver (``kind="single"``) or joint method (``kind="joint"``), as users call
        it (checking its options when :attr:`constraints` are declared).
    trusted : callable
        The same function without the checks, for callers that hold checked options
        (:meth:`check_options`, the dispatcher's plan); default: :attr:`func`.
    kind : {"single", "joint"}
    takes_cardinality : bool
        Accepts an exact target cardinality.
    takes_penalty : bool
        Can run on a penalty alone (``cardinality=None, penalty=ρ``).
    needs_data : bool or callable
        The method needs the data matrix (``op.dot``/``op.rdot``), not only Σ; a
        callable receives the options dict (e.g. ``am``'s L1-variance formulations).
    cost : str
        Cost class, e.g. ``"O(p·b) per iteration"``.
    description : str
        One line for ``eigensparse methods``.
    options : tuple of str
        Keyword options, read from the signature of ``func`` when not given.
    constraints : dict
        Parameter constraints of the options (``{name: [constraint, ...]}``,
        :mod:`eigensparse._constraints`), declared once: :attr:`func` checks them
        when called directly, the dispatcher once per request (:meth:`check_options`),
        and the solve itself (:attr:`trusted`) trusts them.
    warm_start : bool
        Accepts a start (``init=`` an array of loadings): a re-solve of the refinement
        (:mod:`eigensparse.multi._refine`) starts from the component it may replace.
    bounded : BoundedSolve or None
        How its exact-cardinality solves run in bounded time on a growing solve set (a
        topic of :func:`eigensparse.text.extract_topics`); None: the method is not offered
        there as a bounded solve.
    alternatives : tuple of (callable or str)
        Single-component solves ``f(op, s, *, random_state, init)`` whose whole deflation
        chain the refinement also runs (the chain of larger total is refined); a str
        names a function of the module of ``func`` (:attr:`alternative_solves`).
    deprecated : tuple of str
        Options kept only as deprecated names (they warn when used); the command line
        and ``eigensparse methods`` do not offer them.

    Examples
    --------
    >>> from eigensparse.registry import MethodSpec
    >>> def first(op, cardinality, *, tol=1e-6, random_state=None):
    ...     "Keep the first features (a toy)."
    >>> spec = MethodSpec("first", first)
    >>> spec.kind, spec.options, spec.description, spec.requires_data()
    ('single', ('tol',), 'Keep the first features (a toy).', False)
    >>> spec.warm_start, spec.bounded, spec.takes("max_time")
    (False, None, False)
    """

    name: str
    func: Callable
    trusted: Union[Callable, None] = None
    kind: str = "single"
    takes_cardinality: bool = True
    takes_penalty: bool = False
    needs_data: Union[bool, Callable[[dict], bool]] = False
    cost: str = ""
    description: str = ""
    options: tuple = field(default=())
    constraints: Mapping = field(default_factory=dict)
    warm_start: bool = False
    bounded: Union[BoundedSolve, None] = None
    alternatives: tuple = ()
    deprecated: tuple = ()

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise InvalidParameterError(f"MethodSpec: 'name' must be a non-empty str; got {self.name!r}.")
        if self.kind not in KINDS:
            raise InvalidParameterError(f"MethodSpec {self.name!r}: 'kind' must be one of {KINDS}; "
                                        f"got {self.kind!r}.")
        if not callable(self.func):
            raise InvalidParameterError(f"MethodSpec {self.name!r}: 'func' must be callable.")
        if self.trusted is None:
            object.__setattr__(self, "trusted", self.func)
        if self.bounded is not None and not isinstance(self.bounded, BoundedSolve):
            raise InvalidParameterError(f"MethodSpec {self.name!r}: 'bounded' must be a "
                                        f"BoundedSolve or None; got {self.bounded!r}.")
        if not (self.takes_cardinality or self.takes_penalty):
            raise InvalidParameterError(
                f"MethodSpec {self.name!r}: takes neither a cardinality nor a penalty.")
        if not self.options:
            object.__setattr__(self, "options", options_of(self.trusted))
        unknown = sorted(set(self.constraints) - set(inspect.signature(self.trusted).parameters))
        if unknown:
            raise InvalidParameterError(
                f"MethodSpec {self.name!r}: constraints for {unknown}, which are not parameters "
                f"of its function.")
        if not self.description:
            doc = (self.func.__doc__ or "").strip()
            object.__setattr__(self, "description", doc.split("\n")[0] if doc else "")

    def __reduce__(self):
        # a registered method pickles by name (its functions are the registry's)
        return get_method, (self.name,)

    @property
    def alternative_solves(self) -> tuple:
        """:attr:`alternatives` as functions."""
        module = sys.modules[self.trusted.__module__]
        return tuple(getattr(module, f) if isinstance(f, str) else f for f in self.alternatives)

    def takes(self, option: str) -> bool:
        """Whether ``option`` is one of its keyword options (e.g. ``"max_time"``)."""
        return option in self.options

    def check_options(self, options: Mapping, *, extra=()) -> dict:
        """``options`` checked against the method's: an unknown name is an error naming the
        closest valid parameter (of the method, or ``extra``: the parameters of the
        function the user called), a value outside :attr:`constraints` an error naming
        the valid values.

        Examples
        --------
        >>> from eigensparse.registry import get_method
        >>> get_method("scol").check_options({"power_iter": 5})
        {'power_iter': 5}
        >>> try:
        ...     get_method("scol").check_options({"power_itr": 5})
        ... except ValueError as err:
        ...     print(err)
        method 'scol' got unknown option(s) ['power_itr'] (did you mean 'power_iter'?); valid options: ['power_iter', 'tol'].
        """
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            near = closest(unknown[0], [*self.options, *extra])
            hint = f" (did you mean {near!r}?)" if near else ""
            raise InvalidParameterError(
                f"method {self.name!r} got unknown option(s) {unknown}{hint}; valid options: "
                f"{sorted(self.options)}.")
        check_params(dict(options), dict(self.constraints), self.name)
        return dict(options)

    def requires_data(self, options: Mapping | None = None) -> bool:
        """Whether this method, with these options, needs the data matrix."""
        if callable(self.needs_data):
            return bool(self.needs_data(dict(options or {})))
        return bool(self.needs_data)


def checked(func: Callable, constraints: Mapping) -> Callable:
    """``func`` checking its options against ``constraints`` when called (a direct call of
    a solver is a public entry point); ``func`` itself when there are none."""
    return validate_params(dict(constraints))(func) if constraints else func


def register_method(spec: MethodSpec) -> MethodSpec:
    """Add ``spec`` to the registry (replacing a method of the same name).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance
    >>> from eigensparse.registry import MethodSpec, get_method, register_method
    >>> from eigensparse.solvers import polish
    >>> def first(op, cardinality, *, random_state=None):
    ...     return polish(op, np.arange(cardinality), "first")
    >>> spec = register_method(MethodSpec("first", first, cost="O(s³)"))
    >>> S = Covariance(np.array([[2.0, 1, 0], [1, 2, 1], [0, 1, 2]]))
    >>> get_method("first").func(S, 2).support.tolist()
    [0, 1]
    >>> from eigensparse import registry; del registry._METHODS["first"]  # forget the toy
    """
    if not isinstance(spec, MethodSpec):
        raise InvalidParameterError(f"register_method needs a MethodSpec; got {type(spec).__name__}.")
    _METHODS[spec.name] = spec
    return spec


def _load_all() -> None:
    """Import every module of the method packages once (each registers its methods)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    for pkg_name in _METHOD_PACKAGES:
        pkg = importlib.import_module(pkg_name)
        for m in pkgutil.iter_modules(pkg.__path__):
            if not m.name.startswith(("_common", "_deflation")):
                importlib.import_module(f"{pkg_name}.{m.name}")


def method_names(kind: str | None = None) -> list[str]:
    """Sorted names of the registered methods (of one ``kind`` if given).

    Examples
    --------
    >>> from eigensparse.registry import method_names
    >>> "greedy" in method_names(), method_names("joint")
    (True, ['bipartite'])
    """
    _load_all()
    return sorted(n for n, s in _METHODS.items() if kind is None or s.kind == kind)


def methods(kind: str | None = None) -> list[MethodSpec]:
    """The registered :class:`MethodSpec` objects, sorted by name.

    Examples
    --------
    >>> from eigensparse.registry import methods
    >>> [(s.name, s.takes_penalty) for s in methods() if s.name in ("bca", "greedy")]
    [('bca', True), ('greedy', False)]
    """
    return [_METHODS[n] for n in method_names(kind)]


def get_method(name, kind: str | None = None) -> MethodSpec:
    """The spec of ``name``; a clear error naming the valid values otherwise.

    Examples
    --------
    >>> from eigensparse.registry import get_method
    >>> get_method("exhaustive").kind
    'single'
    >>> try:
    ...     get_method("gredy")
    ... except ValueError as err:
    ...     print(str(err)[:38])
    parameter 'method' must be one of [...
    """
    names = method_names(kind)
    if not isinstance(name, str) or name not in names:
        near = closest(name, names) if isinstance(name, str) else None
        hint = f" (did you mean {near!r}?)" if near else ""
        raise InvalidParameterError(
            f"parameter 'method' must be one of {names}; got {name!r}{hint}.")
    return _METHODS[name]


class KindView(Mapping):
    """A live, read-only ``{name: MethodSpec}`` view of the methods of one kind (what is
    registered so far; :func:`method_names` loads every method module first)."""

    def __init__(self, kind: str):
        self._kind = kind

    def _names(self):
        return [n for n, s in _METHODS.items() if s.kind == self._kind]

    def __getitem__(self, name):
        spec = _METHODS.get(name)
        if spec is None or spec.kind != self._kind:
            raise KeyError(name)
        return spec

    def __iter__(self):
        return iter(self._names())

    def __len__(self):
        return len(self._names())

    def __repr__(self):
        return f"KindView({self._kind!r}: {sorted(self._names())})"
