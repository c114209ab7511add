"""The validation boundary: eigensparse's error class and parameter constraints, and the
checks of data no constraint can express.

Parameter constraints (:mod:`eigensparse._constraints`: :class:`Interval`,
:class:`StrOptions`, :class:`Options`, :class:`HasMethods`, ``"boolean"``, types, None,
with scikit-learn's vocabulary and messages) are declared once per entry point: the
estimator's ``_parameter_constraints``, the :func:`validate_params` decorator of a public
function, a method's ``constraints`` on its :class:`~eigensparse.registry.MethodSpec`. The
front doors share one dict (:data:`eigensparse._dispatch.COMPONENT_CONSTRAINTS`).
Everything under a checked entry point trusts its input: nested checked calls skip their
checks (inside a decorated function, under :func:`trusted`, and under scikit-learn's
``skip_parameter_validation`` when scikit-learn is loaded: the estimator's fit), and the
dispatcher calls the solvers unchecked after checking their options once against their
spec. Checking a parameter imports no scikit-learn.

Which modules may raise :class:`InvalidParameterError` is written down in
``tests/test_validation_boundary.py``.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import numbers
import re
import sys

import numpy as np

from ._constraints import (HasMethods, Interval, InvalidParameterError, Options, StrOptions,
                           check_constraints, fast_binder, make_constraint)
from ._util import draw_seed

__all__ = [
    "InvalidParameterError",
    "Interval",
    "IntInterval",
    "Options",
    "StrOptions",
    "HasMethods",
    "make_constraint",
    "check_params",
    "validate_params",
    "trusted",
    "closest",
    "check_cardinalities",
    "check_indices",
    "check_square_matrix",
    "check_finite_array",
    "check_magnitude",
    "MAGNITUDE_RANGE",
    "check_data_shape",
    "check_random_state",
    "check_sparse_structure",
    "check_start_vectors",
    "renamed",
    "real_dtype_problem",
    "check_real_input",
]


class IntInterval(Interval):
    """An interval of ints refusing ``True``/``False`` (a bool is an ``Integral`` to
    Python, never a count or a size to a user).

    Examples
    --------
    >>> from eigensparse._validation import IntInterval
    >>> c = IntInterval(1, None, closed="left")
    >>> c.is_satisfied_by(3), c.is_satisfied_by(True), str(c)
    (True, False, 'an int in the range [1, inf)')
    """

    def __init__(self, left, right, *, closed):
        super().__init__(numbers.Integral, left, right, closed=closed)

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


#: set while the calls made inside a checked entry point run: they trust their input
_TRUSTED = contextvars.ContextVar("eigensparse_trusted", default=False)


@contextlib.contextmanager
def trusted():
    """A block whose checked calls skip their parameter checks (their input was checked
    by the caller).

    Examples
    --------
    >>> from numbers import Integral
    >>> from eigensparse._validation import Interval, trusted, validate_params
    >>> @validate_params({"n": [Interval(Integral, 1, None, closed="left")]})
    ... def halve(n):
    ...     return n // 2
    >>> with trusted():
    ...     halve(0)
    0
    """
    token = _TRUSTED.set(True)
    try:
        yield
    finally:
        _TRUSTED.reset(token)


def _skipping() -> bool:
    """Whether checked calls skip their checks here: under :func:`trusted` or a decorated
    call, or under scikit-learn's ``skip_parameter_validation`` (only looked at when
    scikit-learn is loaded: an estimator's fit sets it)."""
    if _TRUSTED.get():
        return True
    if "sklearn" in sys.modules:
        from sklearn import get_config

        return bool(get_config().get("skip_parameter_validation", False))
    return False


def check_params(params: dict, constraints: dict, caller: str) -> None:
    """Check ``params`` against ``constraints`` (``{name: [constraint, ...]}``), raising
    :class:`InvalidParameterError`; for the entry points that cannot be decorated (a
    method's options, checked by the dispatcher against its spec; the estimator).

    Examples
    --------
    >>> from numbers import Integral
    >>> from eigensparse._validation import Interval, InvalidParameterError, check_params
    >>> rules = {"max_iter": [Interval(Integral, 1, None, closed="left")]}
    >>> check_params({"max_iter": 10}, rules, "solver")  # fine: returns None
    >>> try:
    ...     check_params({"max_iter": 0}, rules, "solver")
    ... except InvalidParameterError as err:
    ...     print(err)
    The 'max_iter' parameter of solver must be an int in the range [1, inf). Got 0 instead.
    """
    check_constraints(constraints, params, caller)


def validate_params(constraints: dict, *, prefer_skip_nested_validation: bool = True):
    """Decorate a function to check its arguments against ``constraints``, raising
    :class:`InvalidParameterError`; calls made inside the decorated function skip their
    own checks (they trust its input), unless ``prefer_skip_nested_validation=False`` (a
    function passing on parameters it did not check, e.g. ``**kwargs``). An inner
    check's "parameter of <name> must be" error names the decorated function.

    Examples
    --------
    >>> from numbers import Integral
    >>> from eigensparse._validation import Interval, validate_params
    >>> @validate_params({"n": [Interval(Integral, 1, None, closed="left")]})
    ... def halve(n):
    ...     return n // 2
    >>> halve(4)
    2
    >>> halve(0)
    Traceback (most recent call last):
    ...
    eigensparse._constraints.InvalidParameterError: The 'n' parameter of halve must be an int in the range [1, inf). Got 0 instead.
    """
    def decorator(func):
        signature = inspect.signature(func)
        unchecked = {p.name for p in signature.parameters.values()
                     if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)} | {"self", "cls"}
        caller = func.__qualname__
        # the constraint objects, built once (check_constraints keeps an object as it is)
        made = {name: [make_constraint(c) for c in declared]
                if isinstance(declared, (list, tuple)) else declared
                for name, declared in constraints.items()}

        bind = fast_binder(signature, unchecked)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if _skipping():
                return func(*args, **kwargs)
            check_constraints(made, bind(args, kwargs), caller)
            token = _TRUSTED.set(True) if prefer_skip_nested_validation else None
            try:
                return func(*args, **kwargs)
            except InvalidParameterError as exc:  # an inner check: named after this function
                message = re.sub(r"parameter of \w+ must be", f"parameter of {caller} must be",
                                 str(exc))
                if message == str(exc):
                    raise
                raise InvalidParameterError(message) from exc
            finally:
                if token is not None:
                    _TRUSTED.reset(token)

        wrapper._parameter_constraints = constraints
        return wrapper

    return decorator


def closest(name: str, valid) -> str | None:
    """The name of ``valid`` closest to ``name`` (a misspelling of it), or None.

    Examples
    --------
    >>> from eigensparse._validation import closest
    >>> closest("n_component", ["n_components", "cardinality"]), closest("zzz", ["tol"])
    ('n_components', None)
    """
    import difflib

    match = difflib.get_close_matches(str(name), [str(v) for v in valid], n=1, cutoff=0.8)
    return match[0] if match else None


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


def check_indices(values, n: int, name: str, *, allow_empty: bool = False) -> np.ndarray:
    """Feature indices ``values`` (a 1-D sequence of distinct ints in [0, n)) as a sorted
    intp array; anything else (floats, a boolean mask, negative or repeated indices,
    indices >= n, a string, a nested or empty sequence) is an :class:`InvalidParameterError`
    naming ``name``, the value and what is valid.

    Examples
    --------
    >>> from eigensparse._validation import check_indices
    >>> check_indices([3, 0], 5, "support").tolist()
    [0, 3]
    >>> check_indices([True, False, True], 3, "support")
    Traceback (most recent call last):
    ...
    eigensparse._constraints.InvalidParameterError: parameter 'support' must be distinct feature indices (ints in [0, 3)); got a boolean mask [True, False, True]: pass the indices, e.g. np.flatnonzero(mask).
    """
    valid = f"distinct feature indices (ints in [0, {n}))"
    shown = repr(values) if len(repr(values)) <= 80 else repr(values)[:77] + "..."
    if isinstance(values, (str, bytes)) or values is None or np.ndim(values) != 1:
        raise InvalidParameterError(
            f"parameter {name!r} must be a 1-D sequence of {valid}; got {shown}.")
    a = np.asarray(values)
    if a.size == 0:
        if allow_empty:
            return np.zeros(0, dtype=np.intp)
        raise InvalidParameterError(f"parameter {name!r} must be nonempty {valid}; got {shown}.")
    if a.dtype.kind == "b":
        raise InvalidParameterError(
            f"parameter {name!r} must be {valid}; got a boolean mask {shown}: pass the "
            "indices, e.g. np.flatnonzero(mask).")
    if a.dtype.kind not in "iu" and not (a.dtype.kind == "O" and all(
            isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in a)):
        raise InvalidParameterError(f"parameter {name!r} must be {valid}; got {shown}.")
    a = a.astype(np.intp)
    bad = a[(a < 0) | (a >= n)]
    if bad.size:
        raise InvalidParameterError(
            f"parameter {name!r} must be {valid}; got {shown} (index {int(bad[0])} is "
            "out of range).")
    u = np.unique(a)
    if u.size != a.size:
        dup = next(int(v) for v, c in zip(*np.unique(a, return_counts=True)) if c > 1)
        raise InvalidParameterError(
            f"parameter {name!r} must be {valid}; got {shown} (index {dup} is repeated).")
    return u


def check_square_matrix(M, name: str, *, size: int | None = None, symmetric: bool = True,
                        allow_empty: bool = False) -> np.ndarray:
    """``M`` as a finite, real, square float matrix (symmetric up to rounding when
    ``symmetric``; of order ``size`` when given), else an :class:`InvalidParameterError`
    naming ``name``.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse._validation import check_square_matrix
    >>> check_square_matrix([[2, 1], [1, 2]], "S").dtype
    dtype('float64')
    >>> check_square_matrix(np.ones((2, 3)), "S")
    Traceback (most recent call last):
    ...
    eigensparse._constraints.InvalidParameterError: parameter 'S' must be a square symmetric matrix (p, p); got shape (2, 3).
    """
    what = "a square symmetric matrix" if symmetric else "a square matrix"
    if isinstance(M, (str, bytes)) or M is None:
        raise InvalidParameterError(f"parameter {name!r} must be {what} (p, p); got {M!r}.")
    problem = real_dtype_problem(np.asarray(M).dtype) if hasattr(M, "dtype") else None
    if problem:
        raise InvalidParameterError(f"parameter {name!r} {problem}.")
    try:
        A = np.asarray(M, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"parameter {name!r} must be {what} of real numbers; got {type(M).__name__}.") from None
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise InvalidParameterError(
            f"parameter {name!r} must be {what} (p, p); got shape {A.shape}.")
    if size is not None and A.shape[0] != size:
        raise InvalidParameterError(
            f"parameter {name!r} must be {what} of order {size}; got shape {A.shape}.")
    if A.size == 0 and not allow_empty:
        raise InvalidParameterError(f"parameter {name!r} is empty (shape {A.shape}).")
    if not np.all(np.isfinite(A)):
        raise InvalidParameterError(
            f"parameter {name!r} contains {int(np.isnan(A).sum())} NaN and "
            f"{int(np.isinf(A).sum())} infinite value(s); it needs finite numbers.")
    if symmetric and A.size:
        dev = float(np.abs(A - A.T).max())
        if dev > 1e-8 * max(float(np.abs(A).max()), 1e-300):
            i, j = np.unravel_index(int(np.argmax(np.abs(A - A.T))), A.shape)
            raise InvalidParameterError(
                f"parameter {name!r} must be symmetric; {name}[{i},{j}] = {A[i, j]:.6g} but "
                f"{name}[{j},{i}] = {A[j, i]:.6g}.")
    return A


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


_REAL_SCALARS = (bool, int, float, np.bool_, np.integer, np.floating)


def check_real_input(X, name: str = "X") -> None:
    """Refuse, before any cast, data whose dtype is not real (complex, strings, dates, ...).

    A pandas DataFrame is checked column by column and the error names the column; an
    object array passes when ``float`` reads every entry (numbers, numeric strings: as
    scikit-learn's estimators read it), else the error says where the first other is.

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
                if isinstance(v, _REAL_SCALARS):
                    continue
                raise InvalidParameterError(
                    f"parameter {name!r}: column {col!r} holds {v!r} (dtype {dt}); "
                    "eigensparse needs real numbers: drop or encode the column.")
        return
    dt = getattr(X, "dtype", None)
    if isinstance(dt, np.dtype) and dt.kind in "cmMVUS":
        raise InvalidParameterError(f"parameter {name!r} {real_dtype_problem(dt)}.")
    if isinstance(X, np.ndarray) and dt.kind == "O":  # what float() reads passes (as in
        try:                                            # scikit-learn): numbers, "1.5"
            np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            for where, v in np.ndenumerate(X):
                try:
                    float(v)
                except (TypeError, ValueError):
                    break
            raise InvalidParameterError(
                f"parameter {name!r} has an entry that is not a real number at {list(where)}: "
                f"{exc}.") from None


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


#: the range of a covariance's largest entry within which the solvers' products of
#: covariance entries (squares, Σ², norms of Σx) stay far inside float64 (whose squares
#: leave it below ~1e-154 and above ~1e154); a data matrix's largest |entry| must lie in
#: the square roots of these limits
MAGNITUDE_RANGE = (1e-100, 1e100)


def check_magnitude(largest: float, name: str = "X", *, covariance: bool = False) -> None:
    """Refuse a data matrix (or, ``covariance=True``, a covariance) whose scale would
    take the covariance's products out of float64's range: ``largest`` is its largest
    |entry| (of a covariance: its largest diagonal entry); 0 (constant data) passes.

    Sparse PCA does not depend on the scale: rescaling the input changes no component,
    so the error says by what to divide.

    Examples
    --------
    >>> from eigensparse._validation import check_magnitude
    >>> check_magnitude(3.0)  # fine: returns None
    >>> try:
    ...     check_magnitude(1e300)
    ... except ValueError as err:
    ...     print(err)
    parameter 'X' has entries up to |x| = 1e+300, outside [1e-50, 1e+50], where the products of its covariance would overflow or underflow float64; rescale it (e.g. X / 1e+300): the components do not change, the variances scale by the square of the factor.
    """
    lo, hi = MAGNITUDE_RANGE
    if not covariance:
        lo, hi = lo ** 0.5, hi ** 0.5
    largest = float(largest)
    if largest == 0 or lo <= largest <= hi:
        return
    what = ("the products of its entries" if covariance
            else "the products of its covariance")
    how = ("the variances scale by the factor" if covariance
           else "the variances scale by the square of the factor")
    raise InvalidParameterError(
        f"parameter {name!r} has {'a diagonal entry' if covariance else 'entries'} up to "
        f"|x| = {largest:.3g}, outside [{lo:.3g}, {hi:.3g}], where {what} would overflow or "
        f"underflow float64; rescale it (e.g. {name} / {largest:.3g}): the components do "
        f"not change, {how}.")


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
        return np.random.default_rng(draw_seed(random_state))
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
    eigensparse._constraints.InvalidParameterError: parameter 'init' as an array must have shape (p,) or (p, n_starts) with p=3; got shape (2, 1).
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



def renamed(new_value, old_value, *, new: str, old: str, caller: str, stacklevel: int = 3):
    """The value of a parameter renamed ``old`` -> ``new``: ``old_value`` (with a
    FutureWarning pointing ``stacklevel`` frames up) when only the old name was given, else
    ``new_value``; both is an error.

    Examples
    --------
    >>> import warnings
    >>> from eigensparse._validation import renamed
    >>> renamed(3.0, None, new="max_time", old="time_budget", caller="f")
    3.0
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     renamed(None, 2.0, new="max_time", old="time_budget", caller="f"), w[0].category.__name__
    (2.0, 'FutureWarning')
    """
    if old_value is None:
        return new_value
    if new_value is not None:
        raise InvalidParameterError(
            f"{caller}: give {new!r} or its deprecated name {old!r}, not both.")
    import warnings

    warnings.warn(f"{caller}: parameter {old!r} is deprecated and will be removed; use {new!r}.",
                  FutureWarning, stacklevel=stacklevel)
    return old_value
