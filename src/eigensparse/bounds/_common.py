"""What the bounds' modules share: parameter checks, the operator of data (λmax:
:mod:`eigensparse._linalg`)."""
from __future__ import annotations

from numbers import Real

import numpy as np

from .._validation import IntInterval, Interval, InvalidParameterError, check_square_matrix
from ..operators import Operator, as_operator

#: certification tolerance (relative to the support's variance)
CERT_RTOL = 1e-9


def _as_op(data_or_op, center=True, scale=False) -> Operator:
    if isinstance(data_or_op, Operator):
        return data_or_op
    return as_operator(data_or_op, center=center, scale=scale)


#: the constraints the public functions share (scikit-learn's, checked by the decorator)
_PENALTY = Interval(Real, 0, None, closed="left")  # finite: nan and inf are outside
_POSITIVE_INT = IntInterval(1, None, closed="left")


def _check_card(s, p, name="cardinality"):
    """A cardinality (an int >= 1 by its declared constraint) at most ``n_features``."""
    if s > p:
        raise InvalidParameterError(
            f"parameter {name!r} must be an int in [1, n_features={p}]; got {s!r}.")
    return int(s)


def _matrix(S, name):
    """A square symmetric matrix parameter: an operator's dense matrix (trusted: it was
    checked when built), or an array checked here (finite, square, symmetric)."""
    if isinstance(S, Operator):
        return S.to_dense()
    return check_square_matrix(S, name)


def _check_vector(v, name, n):
    """A finite real vector of length ``n``."""
    try:
        a = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        a = None
    if a is None or a.shape != (n,) or not np.all(np.isfinite(a)):
        raise InvalidParameterError(
            f"parameter {name!r} must be a 1-D array of {n} finite numbers; got "
            f"{'shape ' + str(a.shape) if a is not None else repr(v)}.")
    return a


def _check_penalties(penalties):
    try:
        r = np.asarray(penalties, dtype=float)
    except (TypeError, ValueError):
        r = None
    if r is None or r.ndim > 1 or not np.all(np.isfinite(r)) or np.any(r < 0):
        raise InvalidParameterError(
            "parameter 'penalties' must be None or a 1-D sequence of finite penalties >= 0; "
            f"got {penalties!r}.")
    return np.atleast_1d(r)



def _default_grid(d, n=40):
    d = np.sort(d[d > 0])[::-1]
    if d.size == 0:
        return np.zeros(1)
    lo = d[-1] * 0.5
    g = np.geomspace(max(lo, d[0] * 1e-8), d[0], n)
    return np.unique(np.concatenate([[0.0], g, d[: min(d.size, 60)]]))


_BLAS = {}


def one_blas_thread():
    """A context in which BLAS and LAPACK run on one thread (threadpoolctl, its controller
    made once): the dense solves of a bound on a few hundred features gain little from
    more threads and lose much when the machine is busy (every product waits for them)."""
    if "controller" not in _BLAS:
        from threadpoolctl import ThreadpoolController

        _BLAS["controller"] = ThreadpoolController()
    return _BLAS["controller"].limit(limits=1, user_api="blas")
