"""The data-access layer: every solver talks to an :class:`Operator`."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError, check_real_input
from ._base import Operator, RestrictedOperator
from ._check import check_operator
from ._covariance import Covariance
from ._deflated import HotellingDeflated, ProjectionDeflated, SchurDeflated
from .dask import DaskData, is_dask_array, resolve_client, scatter_rows
from ._dense import DenseData, SparseData
from ._xp import ArrayAPIData, is_array_api_array, to_device

__all__ = [
    "Operator",
    "check_frame_columns",
    "frame_to_numpy",
    "RestrictedOperator",
    "DenseData",
    "SparseData",
    "Covariance",
    "HotellingDeflated",
    "ProjectionDeflated",
    "SchurDeflated",
    "DaskData",
    "ArrayAPIData",
    "as_operator",
    "check_operator",
]


def as_operator(data, *, center: bool = True, scale: bool = False, client=None,
                device=None) -> Operator:
    """Wrap ``data`` in the matching operator.

    Parameters
    ----------
    data : ndarray, scipy.sparse matrix, pandas DataFrame, dask.array, device array or Operator
        Data of shape (n_samples, n_features), or an operator (returned as is; use
        :class:`Covariance` for a precomputed covariance matrix). A ``dask.array`` gives
        a :class:`DaskData` (computed on the Dask cluster); a CuPy / PyTorch / other
        array-API array gives an :class:`ArrayAPIData` (kept on its device).
    center, scale : bool
        See :class:`DenseData`. Ignored for operators.
    client : dask.distributed.Client or str, optional
        Compute on this Dask cluster (a client or a scheduler address): in-memory data
        are sent to the workers in row blocks.
    device : str, optional
        Move in-memory data to this device (``"cuda"``, ``"cuda:1"``, ``"cpu"`` with
        PyTorch; ``"cuda"`` with CuPy) and compute there.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from eigensparse import as_operator
    >>> X = np.random.default_rng(0).standard_normal((50, 4))
    >>> type(as_operator(X)).__name__, type(as_operator(sp.csr_matrix(X))).__name__
    ('DenseData', 'SparseData')
    >>> op = as_operator(X, scale=True)  # the correlation matrix
    >>> np.allclose(op.to_dense(), np.corrcoef(X, rowvar=False))
    True
    """
    if isinstance(data, Operator):
        return data
    if client is not None and device is not None:
        raise InvalidParameterError("give either 'client' (a Dask cluster) or 'device', not both.")
    if is_dask_array(data):
        return DaskData(data, center=center, scale=scale, client=client)
    if is_array_api_array(data):
        if device is not None:
            raise InvalidParameterError(
                "parameter 'device' is for host data; this array already lives on a device.")
        return ArrayAPIData(data, center=center, scale=scale)
    if client is not None or device is not None:
        if hasattr(data, "to_numpy") and hasattr(data, "columns"):  # pandas DataFrame
            data = frame_to_numpy(data)
        if client is not None:
            if not sp.issparse(data):
                data = np.asarray(data)
            client = resolve_client(client)
            return DaskData(scatter_rows(data, client=client, lineage=True), center=center,
                            scale=scale, client=client)
        return ArrayAPIData(to_device(data, device), center=center, scale=scale)
    if sp.issparse(data):
        return SparseData(data, center=center, scale=scale)
    if hasattr(data, "to_numpy") and hasattr(data, "columns"):  # pandas DataFrame
        data = frame_to_numpy(data)
    try:
        arr = np.asarray(data)
    except Exception as exc:  # pragma: no cover - exotic input
        raise InvalidParameterError(
            f"parameter 'data' must be an array-like, a scipy.sparse matrix or an Operator; "
            f"got {type(data).__name__}."
        ) from exc
    if arr.dtype == object:  # numbers held as objects (as the estimator takes them), or not
        check_real_input(arr, "data")
        arr = arr.astype(np.float64)
    return DenseData(arr, center=center, scale=scale)


def check_frame_columns(frame, name: str = "data") -> None:
    """Raise a clear error naming the non-numeric columns of a pandas DataFrame (a
    no-op for anything else).

    Examples
    --------
    >>> import pandas as pd
    >>> from eigensparse.operators import check_frame_columns
    >>> try:
    ...     check_frame_columns(pd.DataFrame({"a": [1.0, 2.0], "city": ["x", "y"]}))
    ... except ValueError as err:
    ...     print(err)  # doctest: +ELLIPSIS
    parameter 'data' must be numeric; column 'city' is not numeric (dtype ..., e.g. 'x')...
    """
    dtypes = getattr(frame, "dtypes", None)
    if dtypes is None or not hasattr(frame, "columns"):
        return
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    bad = [(c, t) for c, t in zip(frame.columns, dtypes)
           if not (is_numeric_dtype(t) or is_bool_dtype(t))]
    if bad:
        cols = [str(c) for c, _ in bad]
        what = "; ".join(_column_kind(frame[c], c, t) for c, t in bad[:3])
        more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
        raise InvalidParameterError(
            f"parameter {name!r} must be numeric; {what}{more}. Encode or drop them first "
            f"(e.g. frame.drop(columns={cols!r})).")


def _column_kind(column, label, dtype) -> str:
    """``"column 'x' holds dates (dtype ...)"`` or ``"column 'x' is not numeric (dtype
    ..., e.g. 'a')"``: what a non-numeric column holds, with a first value."""
    kind = str(dtype)
    if kind.startswith("datetime64") or "datetime" in kind or kind.startswith("period"):
        return f"column {str(label)!r} holds dates (dtype {kind})"
    if kind.startswith("timedelta64"):
        return f"column {str(label)!r} holds time spans (dtype {kind})"
    values = column.dropna()
    first = f", e.g. {values.iloc[0]!r}" if len(values) else ""
    return f"column {str(label)!r} is not numeric (dtype {kind}{first})"


def frame_to_numpy(frame, name: str = "data") -> np.ndarray:
    """A pandas DataFrame as a float array, after :func:`check_frame_columns` and
    :func:`eigensparse._validation.check_real_input` (complex, date and time-span
    columns named, never cast).

    Examples
    --------
    >>> import pandas as pd
    >>> from eigensparse.operators import frame_to_numpy
    >>> frame_to_numpy(pd.DataFrame({"a": [1, 2], "b": [0.5, None]}))
    array([[1. , 0.5],
           [2. , nan]])
    >>> try:
    ...     frame_to_numpy(pd.DataFrame({"a": [1, 2], "word": ["x", "y"]}))
    ... except ValueError as err:
    ...     print(err)  # doctest: +ELLIPSIS
    parameter 'data' must be numeric; column 'word' is not numeric (dtype ..., e.g. 'x')...
    """
    check_frame_columns(frame, name)
    check_real_input(frame, name)
    return frame.to_numpy(dtype=float, na_value=np.nan)
