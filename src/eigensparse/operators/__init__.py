"""The data-access layer: every solver talks to an :class:`Operator`."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError
from ._base import Operator, RestrictedOperator
from ._covariance import Covariance
from ._deflated import HotellingDeflated, ProjectionDeflated, SchurDeflated
from ._dense import DenseData, SparseData

__all__ = [
    "Operator",
    "RestrictedOperator",
    "DenseData",
    "SparseData",
    "Covariance",
    "HotellingDeflated",
    "ProjectionDeflated",
    "SchurDeflated",
    "as_operator",
]


def as_operator(data, *, center: bool = True, scale: bool = False) -> Operator:
    """Wrap ``data`` in the matching operator.

    Parameters
    ----------
    data : ndarray, scipy.sparse matrix, pandas DataFrame or Operator
        Data of shape (n_samples, n_features), or an operator (returned as is; use
        :class:`Covariance` for a precomputed covariance matrix).
    center, scale : bool
        See :class:`DenseData`. Ignored for operators.
    """
    if isinstance(data, Operator):
        return data
    if sp.issparse(data):
        return SparseData(data, center=center, scale=scale)
    if hasattr(data, "to_numpy") and hasattr(data, "columns"):  # pandas DataFrame
        data = data.to_numpy()
    try:
        arr = np.asarray(data)
    except Exception as exc:  # pragma: no cover - exotic input
        raise InvalidParameterError(
            f"parameter 'data' must be an array-like, a scipy.sparse matrix or an Operator; "
            f"got {type(data).__name__}."
        ) from exc
    if arr.dtype == object:
        raise InvalidParameterError(
            f"parameter 'data' must be numeric (n_samples, n_features); got an object array of shape {arr.shape}."
        )
    return DenseData(arr, center=center, scale=scale)
