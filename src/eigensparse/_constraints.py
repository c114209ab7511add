"""Parameter constraints: the objects an entry point declares its parameters with, and
the check of a dict of values against them.

The vocabulary and the messages are scikit-learn's (an estimator's
``_parameter_constraints`` reads the same, and its errors read the same), implemented
here so that checking a parameter does not import scikit-learn. A constraint is one of:

- :class:`Interval` (of ``numbers.Integral`` or ``numbers.Real``), :class:`Options`,
  :class:`StrOptions`, :class:`HasMethods`;
- a type (any instance of it), ``None``, ``callable``;
- the strings ``"boolean"``, ``"array-like"``, ``"sparse matrix"``, ``"random_state"``,
  ``"nan"``.

A parameter passes when one of its constraints is satisfied; otherwise
:func:`check_constraints` raises :class:`InvalidParameterError` saying what is valid.
"""
from __future__ import annotations

import inspect
import math
import numbers
import operator

import numpy as np

__all__ = ["InvalidParameterError", "Interval", "Options", "StrOptions", "HasMethods",
           "make_constraint", "check_constraints", "fast_binder"]


class InvalidParameterError(ValueError, TypeError):
    """Raised when a parameter has the wrong type or value.

    Both a ValueError and a TypeError (as scikit-learn's error of the same name), so
    that code catching either class catches it.

    Examples
    --------
    >>> import numpy as np
    >>> import eigensparse as es
    >>> try:
    ...     es.sparse_pca(np.eye(3), cardinality=5)
    ... except es.InvalidParameterError as err:
    ...     print(isinstance(err, ValueError), isinstance(err, TypeError))
    True True
    """


def _type_name(t) -> str:
    """A type as the messages name it: ``int``, ``float``, ``numpy.bool``, ..."""
    if t is numbers.Real:
        return "float"
    if t is numbers.Integral:
        return "int"
    if t.__module__ == "builtins":
        return t.__qualname__
    return f"{t.__module__}.{t.__qualname__}"


def _either(parts) -> str:
    """``"a"``, ``"a or b"``, ``"a, b or c"``."""
    parts = [str(p) for p in parts]
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} or {parts[-1]}"


class _Constraint:
    """A set of valid values: :meth:`is_satisfied_by` tests one, ``str()`` describes it."""

    hidden = False

    def is_satisfied_by(self, val) -> bool:  # pragma: no cover - every constraint has one
        raise NotImplementedError

    def __repr__(self):
        return f"<{type(self).__name__}: {self}>"


class _InstanceOf(_Constraint):
    def __init__(self, type_):
        self.type = type_

    def is_satisfied_by(self, val):
        return isinstance(val, self.type)

    def __str__(self):
        return f"an instance of {_type_name(self.type)!r}"


class _NoneValue(_Constraint):
    def is_satisfied_by(self, val):
        return val is None

    def __str__(self):
        return "None"


class _NanValue(_Constraint):
    def is_satisfied_by(self, val):
        return (isinstance(val, numbers.Real) and not isinstance(val, numbers.Integral)
                and math.isnan(val))

    def __str__(self):
        return "numpy.nan"


class _Callable(_Constraint):
    def is_satisfied_by(self, val):
        return callable(val)

    def __str__(self):
        return "a callable"


class _ArrayLike(_Constraint):
    """Anything with a length, a shape or ``__array__`` that is not a scalar."""

    def is_satisfied_by(self, val):
        return ((hasattr(val, "__len__") or hasattr(val, "shape") or hasattr(val, "__array__"))
                and not np.isscalar(val))

    def __str__(self):
        return "an array-like"


class _SparseMatrix(_Constraint):
    def is_satisfied_by(self, val):
        import scipy.sparse

        return scipy.sparse.issparse(val)

    def __str__(self):
        return "a sparse array or matrix"


class _AnyOf(_Constraint):
    """One of several constraints (a named shorthand: ``"boolean"``, ``"random_state"``)."""

    def __init__(self, *parts):
        self.parts = parts

    def is_satisfied_by(self, val):
        return any(c.is_satisfied_by(val) for c in self.parts)

    def __str__(self):
        return _either(self.parts)


class Options(_Constraint):
    """A finite set ``options`` of instances of ``type``.

    Examples
    --------
    >>> from eigensparse._constraints import Options
    >>> Options(int, {2}).is_satisfied_by(2), str(Options(int, {2}))
    (True, 'a int among {2}')
    """

    def __init__(self, type, options, *, deprecated=None):
        self.type = type
        self.options = options
        self.deprecated = set(deprecated or ())
        if self.deprecated - set(options):
            raise ValueError("The deprecated options must be a subset of the options.")

    def is_satisfied_by(self, val):
        return isinstance(val, self.type) and val in self.options

    def __str__(self):
        shown = ", ".join(f"{o!r} (deprecated)" if o in self.deprecated else repr(o)
                          for o in self.options)
        return f"a {_type_name(self.type)} among {{{shown}}}"


class StrOptions(Options):
    """A finite set of strings.

    Examples
    --------
    >>> from eigensparse._constraints import StrOptions
    >>> StrOptions({"auto"}).is_satisfied_by("auto"), str(StrOptions({"auto"}))
    (True, "a str among {'auto'}")
    """

    def __init__(self, options, *, deprecated=None):
        super().__init__(str, options, deprecated=deprecated)


class Interval(_Constraint):
    """The numbers of ``type`` (``numbers.Integral`` or ``numbers.Real``) between
    ``left`` and ``right`` (None: unbounded), ``closed`` on the "left", "right", "both"
    or "neither" side.

    Examples
    --------
    >>> from numbers import Integral, Real
    >>> from eigensparse._constraints import Interval
    >>> str(Interval(Integral, 1, None, closed="left")), str(Interval(Real, 0, 1, closed="right"))
    ('an int in the range [1, inf)', 'a float in the range (0.0, 1.0]')
    >>> Interval(Real, 0, 1, closed="right").is_satisfied_by(0.0)
    False
    """

    def __init__(self, type, left, right, *, closed):
        if type not in (numbers.Integral, numbers.Real):
            raise ValueError(f"type must be numbers.Integral or numbers.Real; got {type}.")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(
                f"closed must be 'left', 'right', 'both' or 'neither'; got {closed!r}.")
        bound_type = numbers.Integral if type is numbers.Integral else numbers.Real
        for side, bound in (("left", left), ("right", right)):
            if bound is not None and not isinstance(bound, bound_type):
                raise TypeError(f"the {side} bound must be {_type_name(bound_type)}; got {bound!r}.")
        if left is not None and right is not None and right <= left:
            raise ValueError(f"right can't be less than left. Got left={left} and right={right}")
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def __contains__(self, val):
        if not isinstance(val, numbers.Integral) and np.isnan(val):
            return False
        below = operator.lt if self.closed in ("left", "both") else operator.le
        above = operator.gt if self.closed in ("right", "both") else operator.ge
        left = -math.inf if self.left is None else self.left  # an open end excludes ±inf
        right = math.inf if self.right is None else self.right
        return not (below(val, left) or above(val, right))

    def is_satisfied_by(self, val):
        return isinstance(val, self.type) and val in self

    def __str__(self):
        integral = self.type is numbers.Integral
        left = "-inf" if self.left is None else (self.left if integral else float(self.left))
        right = "inf" if self.right is None else (self.right if integral else float(self.right))
        opening = "[" if self.closed in ("left", "both") else "("
        closing = "]" if self.closed in ("right", "both") else ")"
        return (f"{'an int' if integral else 'a float'} in the range "
                f"{opening}{left}, {right}{closing}")


class HasMethods(_Constraint):
    """Objects with callable attributes named ``methods`` (a name or a list of names).

    Examples
    --------
    >>> from eigensparse._constraints import HasMethods
    >>> str(HasMethods(["fit", "transform"]))
    "an object implementing 'fit' and 'transform'"
    """

    def __init__(self, methods):
        if not isinstance(methods, (str, list)):
            raise InvalidParameterError(
                f"The 'methods' parameter of HasMethods must be a str or a list; got {methods!r}.")
        self.methods = [methods] if isinstance(methods, str) else methods

    def is_satisfied_by(self, val):
        return all(callable(getattr(val, m, None)) for m in self.methods)

    def __str__(self):
        names = [repr(m) for m in self.methods]
        joined = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        return f"an object implementing {joined}"


def _named(name: str):
    """The constraint a string names, or None."""
    if name == "boolean":
        return _AnyOf(_InstanceOf(bool), _InstanceOf(np.bool_))
    if name == "random_state":
        return _AnyOf(Interval(numbers.Integral, 0, 2**32 - 1, closed="both"),
                      _InstanceOf(np.random.RandomState), _NoneValue())
    if name == "array-like":
        return _ArrayLike()
    if name == "sparse matrix":
        return _SparseMatrix()
    if name == "nan":
        return _NanValue()
    return None


def make_constraint(constraint) -> _Constraint:
    """The constraint object of a declaration (an object, a type, None, callable or a
    name); an unknown declaration is a ValueError.

    Examples
    --------
    >>> from eigensparse._constraints import make_constraint
    >>> str(make_constraint("boolean")), str(make_constraint(None)), str(make_constraint(dict))
    ("an instance of 'bool' or an instance of 'numpy.bool'", 'None', "an instance of 'dict'")
    """
    if isinstance(constraint, _Constraint):
        return constraint
    if constraint is None:
        return _NoneValue()
    if constraint is callable:
        return _Callable()
    if isinstance(constraint, type):
        return _InstanceOf(constraint)
    named = _named(constraint) if isinstance(constraint, str) else None
    if named is not None:
        return named
    if isinstance(constraint, float) and math.isnan(constraint):
        return _NanValue()
    raise ValueError(f"Unknown constraint type: {constraint!r}")


def check_constraints(constraints: dict, params: dict, caller: str) -> None:
    """Check each value of ``params`` that has an entry in ``constraints``
    (``{name: [constraint, ...]}``) against it; the first one that satisfies none is an
    :class:`InvalidParameterError` naming the parameter, ``caller``, what is valid and
    the value.

    Examples
    --------
    >>> from numbers import Integral
    >>> from eigensparse._constraints import Interval, check_constraints
    >>> check_constraints({"k": [Interval(Integral, 1, None, closed="left"), None, "boolean"]},
    ...                   {"k": 0.5}, "f")
    Traceback (most recent call last):
    ...
    eigensparse._constraints.InvalidParameterError: The 'k' parameter of f must be an int in the range [1, inf), None or an instance of 'bool' or an instance of 'numpy.bool'. Got 0.5 instead.
    """
    for name, value in params.items():
        declared = constraints.get(name)
        if declared is None or declared == "no_validation":
            continue
        made = [make_constraint(c) for c in declared]
        if any(c.is_satisfied_by(value) for c in made):
            continue
        shown = _either([c for c in made if not c.hidden])
        raise InvalidParameterError(
            f"The {name!r} parameter of {caller} must be {shown}. Got {value!r} instead.")


def fast_binder(signature, unchecked):
    """``bind(args, kwargs)``: the checked parameters' values by name, in the signature's
    order (defaults filled in), as ``signature.bind`` + ``apply_defaults`` give them; a
    call it cannot map plainly (too many positional arguments, an unknown or repeated
    keyword, a missing one) goes through ``signature.bind``, which raises as Python does."""
    params = list(signature.parameters.values())
    positional = [q.name for q in params
                  if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)]
    by_keyword = {q.name for q in params
                  if q.kind in (q.POSITIONAL_OR_KEYWORD, q.KEYWORD_ONLY)}
    named = [(q.name, q.default) for q in params
             if q.kind not in (q.VAR_POSITIONAL, q.VAR_KEYWORD)]
    has_var_keyword = any(q.kind == q.VAR_KEYWORD for q in params)
    empty = inspect.Parameter.empty

    def slow(args, kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return {k: v for k, v in bound.arguments.items() if k not in unchecked}

    def bind(args, kwargs):
        if len(args) > len(positional):
            return slow(args, kwargs)
        given = dict(zip(positional, args))
        for k in kwargs:
            if k in given or (k not in by_keyword and not has_var_keyword):
                return slow(args, kwargs)
        out = {}
        for name, default in named:
            if name in given:
                value = given[name]
            elif name in kwargs and name in by_keyword:
                value = kwargs[name]
            elif default is empty:
                return slow(args, kwargs)
            else:
                value = default
            if name not in unchecked:
                out[name] = value
        return out

    return bind
