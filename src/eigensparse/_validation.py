"""Declarative parameter validation with clear messages.

Every public entry point validates its parameters here, at the boundary, so that
solvers can assume clean input. Errors name the parameter, the value received and
what would be valid.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
from sklearn.utils._param_validation import InvalidParameterError as _SklearnInvalidParameterError

__all__ = [
    "InvalidParameterError",
    "Interval",
    "Options",
    "validate_params",
    "check_cardinalities",
    "check_finite_array",
    "check_data_shape",
    "check_random_state",
    "check_sparse_structure",
    "real_dtype_problem",
    "check_real_input",
]


class InvalidParameterError(_SklearnInvalidParameterError):
    """Raised when a parameter has the wrong type or value.

    A subclass of scikit-learn's ``InvalidParameterError`` (itself a ValueError and a
    TypeError), so that code catching either class, or ``ValueError``, catches it.

    Examples
    --------
    >>> import numpy as np
    >>> import eigensparse as es
    >>> try:
    ...     es.sparse_pca(np.eye(3), cardinality=5)
    ... except es.InvalidParameterError as err:
    ...     print(isinstance(err, ValueError))
    True
    """


@dataclass(frozen=True)
class Interval:
    """A numeric range. ``kind`` is ``"int"`` or ``"real"``.

    Examples
    --------
    >>> from eigensparse._validation import Interval
    >>> rate = Interval("real", 0, 1, closed="right")
    >>> rate.accepts(0.5), rate.accepts(0.0), str(rate)
    (True, False, 'a finite real number in (0, 1]')
    """

    kind: str
    low: float | None = None
    high: float | None = None
    closed: str = "both"  # "both", "left", "right", "neither"

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        if self.kind == "int":
            if not isinstance(value, numbers.Integral):
                return False
        elif not isinstance(value, numbers.Real):
            return False
        if isinstance(value, numbers.Real) and not np.isfinite(value):
            return False
        lo_ok = self.low is None or (
            value >= self.low if self.closed in ("both", "left") else value > self.low
        )
        hi_ok = self.high is None or (
            value <= self.high if self.closed in ("both", "right") else value < self.high
        )
        return bool(lo_ok and hi_ok)

    def __str__(self) -> str:
        lb = "[" if self.closed in ("both", "left") and self.low is not None else "("
        rb = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        lo = "-inf" if self.low is None else f"{self.low:g}"
        hi = "inf" if self.high is None else f"{self.high:g}"
        what = "an int" if self.kind == "int" else "a finite real number"
        return f"{what} in {lb}{lo}, {hi}{rb}"


@dataclass(frozen=True)
class Options:
    """A finite set of allowed values (usually strings).

    Examples
    --------
    >>> from eigensparse._validation import Options
    >>> scheme = Options(["schur", "projection"])
    >>> scheme.accepts("schur"), scheme.accepts("qr"), str(scheme)
    (True, False, "one of 'schur', 'projection'")
    """

    values: tuple

    def __init__(self, values: Iterable):
        object.__setattr__(self, "values", tuple(values))

    def accepts(self, value: Any) -> bool:
        try:
            return value in self.values
        except TypeError:
            return False

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


class _TypeOf:
    def __init__(self, *types, name=None):
        self.types = types
        self.name = name or " or ".join(t.__name__ for t in types)

    def accepts(self, value):
        return isinstance(value, self.types)

    def __str__(self):
        return f"an instance of {self.name}"


def instance_of(*types, name=None):
    return _TypeOf(*types, name=name)


NONE = Options([None])


def validate_params(params: dict, constraints: dict, *, where: str = "") -> None:
    """Check ``params[name]`` against ``constraints[name]`` (a list of alternatives).

    A constraint is an :class:`Interval`, :class:`Options`, ``None`` (meaning
    "None allowed"), ``callable`` (meaning any callable) or a type.

    Examples
    --------
    >>> from eigensparse._validation import Interval, InvalidParameterError, validate_params
    >>> rules = {"max_iter": [Interval("int", 1, None)], "tol": [None, Interval("real", 0, None)]}
    >>> validate_params({"max_iter": 10, "tol": None}, rules)  # fine: returns None
    >>> try:
    ...     validate_params({"max_iter": 0}, rules, where="solver")
    ... except InvalidParameterError as err:
    ...     print(err)
    solver: parameter 'max_iter' must be an int in [1, inf); got 0.
    """
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        alts = allowed if isinstance(allowed, (list, tuple)) else [allowed]
        ok = False
        for c in alts:
            if c is None:
                ok = value is None
            elif c is callable:
                ok = callable(value)
            elif isinstance(c, type):
                ok = isinstance(value, c) and not (c is not bool and isinstance(value, bool))
            else:
                ok = c.accepts(value)
            if ok:
                break
        if not ok:
            desc = " or ".join(
                "None" if c is None else ("a callable" if c is callable else
                                          (f"an instance of {c.__name__}" if isinstance(c, type) else str(c)))
                for c in alts
            )
            prefix = f"{where}: " if where else ""
            raise InvalidParameterError(
                f"{prefix}parameter {name!r} must be {desc}; got {value!r}."
            )


def check_cardinalities(cardinality, n_components: int, n_features: int) -> list[int]:
    """Normalise ``cardinality`` (int or sequence of ints) to one int per component.

    Examples
    --------
    >>> from eigensparse._validation import check_cardinalities
    >>> check_cardinalities(3, n_components=2, n_features=10), check_cardinalities([2, 4], 2, 10)
    ([3, 3], [2, 4])
    """
    if isinstance(cardinality, (numbers.Integral,)) and not isinstance(cardinality, bool):
        cards = [int(cardinality)] * n_components
    elif isinstance(cardinality, (list, tuple, np.ndarray)):
        cards = list(cardinality)
        if len(cards) != n_components:
            raise InvalidParameterError(
                f"parameter 'cardinality' is a list of length {len(cards)} but "
                f"n_components={n_components}; give one cardinality per component or a single int."
            )
        for c in cards:
            if not isinstance(c, numbers.Integral) or isinstance(c, bool):
                raise InvalidParameterError(
                    f"parameter 'cardinality' must contain ints; got {c!r} in {cardinality!r}."
                )
        cards = [int(c) for c in cards]
    else:
        raise InvalidParameterError(
            f"parameter 'cardinality' must be an int in [1, n_features={n_features}] "
            f"or a list of n_components={n_components} such ints; got {cardinality!r}."
        )
    for c in cards:
        if not 1 <= c <= n_features:
            raise InvalidParameterError(
                f"parameter 'cardinality' must be in [1, n_features={n_features}]; got {c}."
            )
    return cards


_DTYPE_KINDS = {"c": "complex numbers", "O": "Python objects", "U": "strings", "S": "byte strings",
                "M": "dates", "m": "time spans", "V": "records"}


def real_dtype_problem(dtype) -> str | None:
    """Why an array of ``dtype`` cannot be read as real numbers, or None when it can.

    Real means bool, integer or floating point. Complex values are refused rather than
    cast (a cast would silently discard the imaginary part), and so are objects, strings,
    dates, time spans and records.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._validation import real_dtype_problem
    >>> real_dtype_problem(np.float32) is None, real_dtype_problem(bool) is None
    (True, True)
    >>> real_dtype_problem(np.complex128)
    'holds complex numbers (dtype complex128). Complex data not supported: take the real part or the modulus explicitly'
    """
    dtype = np.dtype(dtype)
    if dtype.kind in "biuf":
        return None
    what = _DTYPE_KINDS.get(dtype.kind, "values that are not real numbers")
    if dtype.kind == "c":  # scikit-learn's wording, which its estimator checks expect
        return (f"holds {what} (dtype {dtype}). Complex data not supported: "
                "take the real part or the modulus explicitly")
    return f"holds {what} (dtype {dtype}); eigensparse needs real numbers (bool, integer or float)"


def check_real_input(X, name: str = "X") -> None:
    """Refuse, before any cast, data whose dtype is not real (complex, strings, dates, ...).

    A pandas DataFrame is checked column by column and the error names the column.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._validation import check_real_input
    >>> check_real_input(np.ones((2, 2)))  # fine: returns None
    >>> try:
    ...     check_real_input(np.ones((2, 2)) * 1j)
    ... except ValueError as err:
    ...     print(err)
    parameter 'X' holds complex numbers (dtype complex128). Complex data not supported: take the real part or the modulus explicitly.
    """
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and hasattr(dtypes, "items"):  # a DataFrame: name the column
        for col, dt in dtypes.items():
            if isinstance(dt, np.dtype) and dt.kind in "biuf":
                continue
            if isinstance(dt, np.dtype) and dt.kind != "O":
                raise InvalidParameterError(
                    f"parameter {name!r}: column {col!r} {real_dtype_problem(dt)}.")
            values = np.asarray(X[col], dtype=object)  # objects, pandas extension dtypes
            for v in values:
                if isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
                    continue
                raise InvalidParameterError(
                    f"parameter {name!r}: column {col!r} holds {v!r} (dtype {dt}); "
                    "eigensparse needs real numbers: drop or encode the column.")
        return
    dt = getattr(X, "dtype", None)
    if isinstance(dt, np.dtype) and dt.kind in "cmMVUS":
        raise InvalidParameterError(f"parameter {name!r} {real_dtype_problem(dt)}.")


def check_finite_array(X, name: str = "X") -> None:
    """Raise a clear error on NaN or infinite entries (dense or scipy.sparse), and on a
    malformed CSR/CSC structure (indices out of range, offsets that decrease), which
    would otherwise reach compiled kernels.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._validation import check_finite_array
    >>> check_finite_array(np.ones((2, 2)))  # fine: returns None
    >>> try:
    ...     check_finite_array(np.array([[1.0, np.nan]]))
    ... except ValueError as err:
    ...     print(err)
    parameter 'X' contains 1 NaN and 0 infinite value(s); sparse PCA needs finite numbers ...
    """
    check_sparse_structure(X, name)
    data = X.data if hasattr(X, "tocsr") else X
    data = np.asarray(data)
    problem = real_dtype_problem(data.dtype)
    if problem:
        raise InvalidParameterError(f"parameter {name!r} {problem}.")
    if data.dtype.kind == "f" and not np.all(np.isfinite(data)):
        n_nan = int(np.isnan(data).sum())
        n_inf = int(np.isinf(data).sum())
        raise InvalidParameterError(
            f"parameter {name!r} contains {n_nan} NaN and {n_inf} infinite value(s); "
            "sparse PCA needs finite numbers (impute or drop them first)."
        )


def check_sparse_structure(X, name: str = "X") -> None:
    """For a scipy.sparse CSR/CSC matrix: the full structural check of scipy (O(nnz)).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from eigensparse._validation import check_sparse_structure
    >>> X = sp.csr_matrix(np.eye(3))
    >>> check_sparse_structure(X)  # intact: returns None
    >>> X.indices[0] = 7  # a column index out of range
    >>> try:
    ...     check_sparse_structure(X)
    ... except ValueError as err:
    ...     print("rejected")
    rejected
    """
    if not hasattr(X, "check_format") or getattr(X, "format", None) not in ("csr", "csc"):
        return
    try:
        X.check_format(full_check=True)
    except (ValueError, TypeError, IndexError) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InvalidParameterError(
            f"parameter {name!r} is a malformed sparse matrix ({why}).") from None


def check_data_shape(shape, name: str = "X") -> tuple[int, int]:
    """(n_samples, n_features) of a data matrix, with clear errors for 1-D, empty or
    one-sample input (a covariance needs at least 2 samples).

    Examples
    --------
    >>> from eigensparse._validation import check_data_shape
    >>> check_data_shape((100, 5))
    (100, 5)
    >>> try:
    ...     check_data_shape((1, 5))
    ... except ValueError as err:
    ...     print(err)
    parameter 'X' has 1 sample (shape (1, 5)); a covariance needs at least 2 samples.
    """
    if len(shape) != 2:
        raise InvalidParameterError(
            f"parameter {name!r} must be a 2-D array (n_samples, n_features); got "
            f"{len(shape)}-D shape {tuple(shape)}.")
    n, p = (int(v) for v in shape)
    if n == 0 or p == 0:
        raise InvalidParameterError(
            f"parameter {name!r} is empty (shape {(n, p)}); need at least 2 samples and 1 feature.")
    if n < 2:
        raise InvalidParameterError(
            f"parameter {name!r} has 1 sample (shape {(n, p)}); a covariance needs at least 2 samples.")
    return n, p


def check_random_state(random_state, name: str = "random_state") -> np.random.Generator:
    """A numpy Generator from ``random_state`` (None, a non-negative int, a Generator or a
    RandomState); anything else is an :class:`InvalidParameterError` naming ``name``.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse.solvers import check_random_state
    >>> rng = check_random_state(0)
    >>> isinstance(rng, np.random.Generator), check_random_state(rng) is rng
    (True, True)
    >>> bool(check_random_state(7).integers(100) == check_random_state(7).integers(100))
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if random_state is None or (isinstance(random_state, numbers.Integral)
                                and not isinstance(random_state, bool) and random_state >= 0):
        return np.random.default_rng(None if random_state is None else int(random_state))
    raise InvalidParameterError(
        f"parameter {name!r} must be None, a non-negative int, a numpy Generator or a "
        f"RandomState; got {random_state!r}.")


def check_start_vectors(init, p: int, *, valid: str = "a numeric array") -> np.ndarray:
    """Starting vectors ``init`` as a finite float array of shape (p, n): a (p,) vector
    is one column. Errors name the parameter, what was given and ``valid`` (what the
    caller accepts besides arrays, e.g. its named starts).

    Examples
    --------
    >>> from eigensparse._validation import check_start_vectors
    >>> check_start_vectors([1.0, 0.0, 2.0], 3).shape
    (3, 1)
    >>> check_start_vectors([[1.0], [0.0]], 3)
    Traceback (most recent call last):
    ...
    eigensparse._validation.InvalidParameterError: parameter 'init' as an array must have shape (p,) or (p, n_starts) with p=3; got shape (2, 1).
    """
    problem = real_dtype_problem(np.asarray(init).dtype) if not isinstance(init, str) else None
    if problem and np.asarray(init).dtype.kind in "cmMV":  # never cast silently
        raise InvalidParameterError(f"parameter 'init' {problem}.")
    try:
        A = np.asarray(init, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"parameter 'init' must be {valid}; got {type(init).__name__}.") from exc
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2 or A.shape[0] != p or A.shape[1] == 0:
        raise InvalidParameterError(
            f"parameter 'init' as an array must have shape (p,) or (p, n_starts) with "
            f"p={p}; got shape {np.shape(init)}.")
    if not np.all(np.isfinite(A)):
        raise InvalidParameterError("parameter 'init' contains NaN or infinite values.")
    return A

