"""An operator over an array-API array kept on its device (CuPy, PyTorch, array-api-strict).

:class:`ArrayAPIData` is the dense data operator (Σ = AᵀA, A = (X − 1μᵀ)D⁻¹/√n,
centered explicitly like :class:`~eigensparse.operators.DenseData`) for any array
that `array-api-compat <https://data-apis.org/array-api-compat/>`_ recognises. A
stays on the array's device, in float32 or float64.

Every product follows one rule, so that the solvers written for NumPy keep working
and the array-API aware ones keep their data on the device:

- a **NumPy** argument gives a NumPy (float64) result: the operator protocol;
- an argument **of the operator's namespace and device** gives a result of that
  namespace on that device, in the operator's dtype;
- anything else (another library's array, another device) is a clear
  :class:`InvalidParameterError`, never a silent copy between devices.

Small results with no array argument (:meth:`diag`, :meth:`block`, ``mean_``,
``scale_``) are NumPy.
"""
from __future__ import annotations

import numpy as np

from .._validation import InvalidParameterError, check_data_shape
from ._base import Operator

__all__ = ["ArrayAPIData", "ArrayAPICovariance", "is_array_api_array", "to_numpy", "array_namespace_of", "to_device"]

#: largest dense copy (bytes) that :func:`to_device` makes of scipy.sparse input
MAX_DENSIFY_BYTES = 4 << 30

_DTYPES = ("float32", "float64")


def _compat():
    try:
        import array_api_compat
    except ImportError as exc:  # pragma: no cover - exercised without the extra only
        raise InvalidParameterError(
            "array-API (GPU) input needs the optional dependency array-api-compat: "
            "pip install 'eigensparse[gpu]'.") from exc
    return array_api_compat


def is_array_api_array(x) -> bool:
    """True for a non-NumPy array that array-api-compat supports (CuPy, PyTorch,
    JAX, array-api-strict, ...). Cheap: imports nothing unless such a library is loaded."""
    if isinstance(x, np.ndarray) or np.isscalar(x) or isinstance(x, (list, tuple)):
        return False
    mod = type(x).__module__.split(".", 1)[0]
    if mod not in ("cupy", "torch", "jax", "jaxlib", "array_api_strict", "dask", "ndonnx", "sparse"):
        return False
    if mod == "dask":
        return False  # Dask arrays have their own operator
    try:
        import array_api_compat
    except ImportError:
        return mod in ("cupy", "torch", "array_api_strict")
    return bool(array_api_compat.is_array_api_obj(x))


def array_namespace_of(x):
    """The array-API namespace of ``x`` (NumPy arrays give array-api-compat's NumPy)."""
    return _compat().array_namespace(x)


def to_numpy(x, dtype=None) -> np.ndarray:
    """Copy an array-API array to a NumPy array on the host (CuPy, PyTorch, others via DLPack)."""
    if isinstance(x, np.ndarray):
        return x if dtype is None else x.astype(dtype, copy=False)
    aac = _compat()
    if aac.is_cupy_array(x):
        out = x.get()
    elif aac.is_torch_array(x):
        out = x.detach().to("cpu").numpy()
    else:
        try:
            out = np.from_dlpack(x)
        except Exception:  # noqa: BLE001 - non-CPU device or no DLPack
            out = np.asarray(aac.to_device(x, "cpu"))
    out = np.asarray(out)
    return out if dtype is None else out.astype(dtype, copy=False)


def to_device(X, device: str, *, dtype=None):
    """Host data (NumPy or scipy.sparse, densified) as a dense array on ``device``.

    ``device`` is a PyTorch device string (``"cuda"``, ``"cuda:1"``, ``"cpu"``,
    ``"mps"``) when PyTorch is installed, otherwise ``"cuda"``/``"cuda:N"`` uses CuPy.
    ``dtype``: None keeps float32 input, else float64; or ``"float32"``/``"float64"``.
    A device that is not there is a clear :class:`InvalidParameterError`.
    """
    import scipy.sparse as sp

    if not isinstance(device, str) or not device:
        raise InvalidParameterError(f"parameter 'device' must be a device name such as 'cuda'; got {device!r}.")
    if dtype is not None and str(dtype) not in _DTYPES:
        raise InvalidParameterError(f"parameter 'dtype' must be None, 'float32' or 'float64'; got {dtype!r}.")
    if sp.issparse(X):
        nbytes = X.shape[0] * X.shape[1] * (4 if str(dtype) == "float32" else 8)
        if nbytes > MAX_DENSIFY_BYTES:
            raise InvalidParameterError(
                f"device={device!r} needs dense data, and this sparse matrix {X.shape} would take "
                f"{nbytes / 2**30:.1f} GiB dense (limit {MAX_DENSIFY_BYTES / 2**30:.0f} GiB); use the "
                "CPU (sparse, implicitly centered) or a Dask cluster instead.")
        X = X.toarray()
    X = np.asarray(X)
    if X.dtype == object or not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise InvalidParameterError(f"parameter 'X' must be numeric; got dtype {X.dtype}.")
    if dtype is None:
        dtype = "float32" if X.dtype == np.float32 else "float64"
    X = np.ascontiguousarray(X, dtype=np.dtype(str(dtype)))
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        try:
            dev = torch.device(device)
        except (RuntimeError, ValueError) as exc:
            raise InvalidParameterError(f"parameter 'device': {device!r} is not a device name ({exc}).") from None
        if dev.type == "cuda" and not torch.cuda.is_available():
            raise InvalidParameterError(
                f"device={device!r}: no CUDA device is visible to PyTorch (torch.cuda.is_available() "
                "is False); use device='cpu' or leave device unset.")
        if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
            raise InvalidParameterError(
                f"device={device!r}: only {torch.cuda.device_count()} CUDA device(s) visible.")
        if dev.type == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
            raise InvalidParameterError(f"device={device!r}: the MPS backend is not available.")
        return torch.asarray(X, device=dev)
    if device == "cuda" or device.startswith("cuda:"):
        try:
            import cupy
        except ImportError:
            raise InvalidParameterError(
                f"device={device!r} needs PyTorch or CuPy; neither is installed "
                "(pip install torch, or cupy-cuda12x).") from None
        try:
            n_dev = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:  # noqa: BLE001 - no driver
            raise InvalidParameterError(f"device={device!r}: CUDA is not usable ({exc}).") from None
        index = int(device.split(":", 1)[1]) if ":" in device else 0
        if index >= n_dev:
            raise InvalidParameterError(f"device={device!r}: only {n_dev} CUDA device(s) visible.")
        with cupy.cuda.Device(index):
            return cupy.asarray(X)
    raise InvalidParameterError(
        f"device={device!r} needs PyTorch (pip install torch); CuPy only provides 'cuda' devices.")


def _describe(xp, device) -> str:
    name = getattr(xp, "__name__", str(xp)).replace("array_api_compat.", "")
    return f"{name} arrays on device {device!r}"


class ArrayAPIData(Operator):
    """Σ = AᵀA with A = (X − 1μᵀ) D⁻¹ / √n for an array-API array X, kept on its device.

    Parameters
    ----------
    X : array of shape (n_samples, n_features)
        A CuPy array, a PyTorch tensor, an array-api-strict array, or any array that
        array-api-compat supports (a NumPy array works too, mainly for tests). Dense
        only.
    center, scale : bool
        As in :class:`~eigensparse.operators.DenseData`.
    dtype : {None, "float32", "float64"}
        Working precision on the device. None keeps a floating input's precision
        (float32 stays float32) and uses float64 for integer or boolean input.

    Attributes
    ----------
    xp : module
        The (array-api-compat wrapped) namespace; ``device``, ``dtype`` its device and
        floating dtype. Solvers that are array-API aware use these to keep their
        iterates on the device.

    Examples
    --------
    >>> import numpy as np
    >>> import array_api_strict as xp  # stands for CuPy, PyTorch, ... (kept on their device)
    >>> from eigensparse import DenseData
    >>> from eigensparse.operators import ArrayAPIData
    >>> X = np.random.default_rng(0).standard_normal((30, 4))
    >>> op = ArrayAPIData(xp.asarray(X))
    >>> op.xp.__name__, bool(np.allclose(op.diag(), DenseData(X).diag()))  # results on host
    ('array_api_strict', True)
    """

    has_data = True
    kind = "array-API data operator"

    def __init__(self, X, *, center: bool = True, scale: bool = False, dtype=None):
        aac = _compat()
        if not aac.is_array_api_obj(X):
            raise InvalidParameterError(
                f"ArrayAPIData needs an array supported by array-api-compat (CuPy, PyTorch, "
                f"array-api-strict, ...); got {type(X).__name__}.")
        if _is_sparse_device_array(X):
            raise InvalidParameterError(
                "sparse device arrays (torch.sparse, cupyx.scipy.sparse) are not supported; pass a "
                "dense device array, or a scipy.sparse matrix (SparseData) or a Dask array (DaskData).")
        xp = aac.array_namespace(X)
        self.xp, self.device = xp, aac.device(X)
        n, p = check_data_shape(X.shape, "X")
        if dtype is not None and str(dtype) not in _DTYPES and getattr(dtype, "__name__", None) not in _DTYPES:
            raise InvalidParameterError(f"parameter 'dtype' must be None, 'float32' or 'float64'; got {dtype!r}.")
        if xp.isdtype(X.dtype, "complex floating"):
            raise InvalidParameterError(f"parameter 'X' must be real; got dtype {X.dtype}.")
        if dtype is None:
            self.dtype = X.dtype if X.dtype in (xp.float32, xp.float64) else xp.float64
        else:
            self.dtype = xp.float32 if "32" in str(getattr(dtype, "__name__", dtype)) else xp.float64
        X = xp.astype(X, self.dtype, copy=False) if X.dtype != self.dtype else X
        if not bool(xp.all(xp.isfinite(X))):
            raise InvalidParameterError("parameter 'X' contains NaN or infinite values; remove or impute them first.")
        self.n_samples, self.n_features = n, p
        self.center, self.scale = bool(center), bool(scale)
        mean = xp.mean(X, axis=0) if center else xp.zeros(p, dtype=self.dtype, device=self.device)
        A = X - mean if center else xp.asarray(X, copy=True)
        if scale:
            sd = xp.sqrt(xp.sum(A * A, axis=0) / n)
            sd = xp.where(sd == 0, xp.ones_like(sd), sd)
            A = A / sd
        else:
            sd = xp.ones(p, dtype=self.dtype, device=self.device)
        A = A * (1.0 / float(np.sqrt(n)))
        self._A = A
        self.mean_ = to_numpy(mean, np.float64)
        self.scale_ = to_numpy(sd, np.float64)
        self._diag_np = to_numpy(xp.sum(A * A, axis=0), np.float64)

    # -- argument handling ---------------------------------------------------
    def _arg(self, V, rows, name):
        """(array on the device, came-as-NumPy, was-1-D)."""
        if isinstance(V, np.ndarray) or isinstance(V, (list, tuple)) or np.isscalar(V):
            host = True
            Vn = np.asarray(V, dtype=np.float64)
            vec = Vn.ndim == 1
            if vec:
                Vn = Vn.reshape(-1, 1)
            D = self.xp.asarray(Vn, dtype=self.dtype, device=self.device)
        else:
            host = False
            self.check_compatible(V, name)
            vec = V.ndim == 1
            D = V if V.dtype == self.dtype else self.xp.astype(V, self.dtype)
            if vec:
                D = self.xp.reshape(D, (-1, 1))
        if D.ndim != 2 or int(D.shape[0]) != rows:
            raise InvalidParameterError(
                f"parameter {name!r} must have {rows} rows for this {self.kind}; got shape {tuple(D.shape)}.")
        return D, host, vec

    def check_compatible(self, V, name="V"):
        """Raise a clear error unless ``V`` is an array of this operator's namespace and device."""
        aac = _compat()
        if not aac.is_array_api_obj(V):
            raise InvalidParameterError(
                f"parameter {name!r} must be a NumPy array or {_describe(self.xp, self.device)}; "
                f"got {type(V).__name__}.")
        try:
            xv = aac.array_namespace(V)
        except TypeError as exc:  # pragma: no cover
            raise InvalidParameterError(f"parameter {name!r}: {exc}") from None
        if xv is not self.xp:
            raise InvalidParameterError(
                f"cannot mix array libraries: this operator holds {_describe(self.xp, self.device)}, "
                f"parameter {name!r} holds {_describe(xv, aac.device(V))}; convert it first "
                "(NumPy arrays are accepted and give NumPy results).")
        dv = aac.device(V)
        if dv != self.device:
            raise InvalidParameterError(
                f"cannot mix devices: this operator's data are on {self.device!r}, parameter {name!r} "
                f"is on {dv!r}; move it to {self.device!r} first (no implicit device copies).")

    def _out(self, R, host, vec):
        if vec:
            R = R[:, 0]
        return to_numpy(R, np.float64) if host else R

    # -- conversions for array-API aware solvers -------------------------------
    def asarray(self, V):
        """``V`` (NumPy or this namespace) as an array of this operator's namespace, device, dtype."""
        if isinstance(V, np.ndarray) or isinstance(V, (list, tuple)) or np.isscalar(V):
            return self.xp.asarray(np.asarray(V, dtype=np.float64), dtype=self.dtype, device=self.device)
        self.check_compatible(V)
        return V if V.dtype == self.dtype else self.xp.astype(V, self.dtype)

    def to_numpy(self, V) -> np.ndarray:
        return to_numpy(V, np.float64)

    # -- the protocol -----------------------------------------------------------
    def diag(self):
        return self._diag_np.copy()

    def trace(self):
        return float(self._diag_np.sum())

    def matmat(self, V):
        D, host, vec = self._arg(V, self.n_features, "V")
        return self._out(self._A.T @ (self._A @ D), host, vec)

    def matvec(self, v):
        """Σ·v for v of shape (p,): NumPy in, NumPy out; device in, device out."""
        return self.matmat(v)

    def quad(self, V):
        D, host, vec = self._arg(V, self.n_features, "V")
        AV = self._A @ D
        q = self.xp.sum(AV * AV, axis=0)
        if host:
            q = to_numpy(q, np.float64)
            return float(q[0]) if vec else q
        return q[0] if vec else q

    def dot(self, X):
        D, host, vec = self._arg(X, self.n_features, "X")
        return self._out(self._A @ D, host, vec)

    def rdot(self, Y):
        D, host, vec = self._arg(Y, self.n_samples, "Y")
        return self._out(self._A.T @ D, host, vec)

    def _take(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        if idx.ndim != 1 or (idx.size and (idx.min() < 0 or idx.max() >= self.n_features)):
            raise InvalidParameterError(
                f"parameter 'idx' must be indices in [0, {self.n_features}); got {idx!r}.")
        I = self.xp.asarray(idx.astype(np.int64), device=self.device)
        return idx, self.xp.take(self._A, I, axis=1)

    def block(self, idx):
        _, Ai = self._take(idx)
        G = to_numpy(Ai.T @ Ai, np.float64)
        return 0.5 * (G + G.T)

    def columns(self, idx):
        _, Ai = self._take(idx)
        return to_numpy(self._A.T @ Ai, np.float64)

    def data_columns(self, idx) -> np.ndarray:
        """Dense columns of A for the features ``idx`` (NumPy), shape (n_samples, len(idx))."""
        _, Ai = self._take(idx)
        return to_numpy(Ai, np.float64)

    def restrict(self, idx):
        idx, Ai = self._take(idx)
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._A = Ai
        new.mean_, new.scale_, new._diag_np = self.mean_[idx], self.scale_[idx], self._diag_np[idx]
        new.n_features = int(idx.size)
        return new

    def factor(self):
        return self

    def __repr__(self) -> str:
        return (f"<ArrayAPIData p={self.n_features} n={self.n_samples} "
                f"{_describe(self.xp, self.device)}, {self.dtype}>")


class ArrayAPICovariance(ArrayAPIData):
    """A covariance matrix Σ (p × p) kept on its array-API device: the operator protocol
    on the device (products, quadratic forms), small blocks and the diagonal on the host.

    The topic pipeline's working-set covariance on a device (``device=``); solvers see
    an operator like :class:`~eigensparse.Covariance` (``has_data`` False).

    Examples
    --------
    >>> import numpy as np
    >>> import array_api_strict as xp  # stands for CuPy, PyTorch, ...
    >>> from eigensparse.operators._xp import ArrayAPICovariance
    >>> S = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> op = ArrayAPICovariance(xp.asarray(S))
    >>> op.quad(np.array([1.0, 0.0])), op.block([1]).tolist(), op.restrict([1]).n_features
    (2.0, [[1.0]], 1)
    """

    has_data = False
    kind = "array-API covariance operator"

    def __init__(self, S, *, n_samples=None, dtype=None):
        aac = _compat()
        if not aac.is_array_api_obj(S) or _is_sparse_device_array(S):
            raise InvalidParameterError(
                "ArrayAPICovariance needs a dense array supported by array-api-compat; got "
                f"{type(S).__name__}.")
        xp = aac.array_namespace(S)
        self.xp, self.device = xp, aac.device(S)
        if S.ndim != 2 or S.shape[0] != S.shape[1]:
            raise InvalidParameterError(f"parameter 'S' must be square; got shape {tuple(S.shape)}.")
        self.dtype = S.dtype if S.dtype in (xp.float32, xp.float64) else xp.float64
        self._S = xp.astype(S, self.dtype) if S.dtype != self.dtype else S
        self.n_features = int(S.shape[0])
        self.n_samples = n_samples
        self.center = self.scale = False
        self._diag_np = to_numpy(xp.linalg.diagonal(self._S), np.float64)
        self.mean_ = np.zeros(self.n_features)
        self.scale_ = np.ones(self.n_features)

    def matmat(self, V):
        D, host, vec = self._arg(V, self.n_features, "V")
        return self._out(self._S @ D, host, vec)

    def quad(self, V):
        D, host, vec = self._arg(V, self.n_features, "V")
        q = self.xp.sum(D * (self._S @ D), axis=0)
        if host:
            q = to_numpy(q, np.float64)
            return float(q[0]) if vec else q
        return q[0] if vec else q

    def _index(self, idx):
        idx = np.asarray(idx, dtype=np.intp)
        if idx.ndim != 1 or (idx.size and (idx.min() < 0 or idx.max() >= self.n_features)):
            raise InvalidParameterError(
                f"parameter 'idx' must be indices in [0, {self.n_features}); got {idx!r}.")
        return idx, self.xp.asarray(idx.astype(np.int64), device=self.device)

    def block(self, idx):
        _, I = self._index(idx)
        G = to_numpy(self.xp.take(self.xp.take(self._S, I, axis=0), I, axis=1), np.float64)
        return 0.5 * (G + G.T)

    def columns(self, idx):
        _, I = self._index(idx)
        return to_numpy(self.xp.take(self._S, I, axis=1), np.float64)

    def restrict(self, idx):
        idx, I = self._index(idx)
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._S = self.xp.take(self.xp.take(self._S, I, axis=0), I, axis=1)
        new._diag_np, new.n_features = self._diag_np[idx], int(idx.size)
        new.mean_, new.scale_ = self.mean_[idx], self.scale_[idx]
        return new

    def to_dense(self):
        return to_numpy(self._S, np.float64)

    def dot(self, X):
        raise InvalidParameterError("a covariance operator has no data matrix (A·x); use factor().")

    rdot = data_columns = dot

    def factor(self):
        from ._covariance import Covariance

        return Covariance(self.to_dense(), n_samples=self.n_samples, check_psd=False).factor()

    def __repr__(self) -> str:
        return (f"<ArrayAPICovariance p={self.n_features} {_describe(self.xp, self.device)}, "
                f"{self.dtype}>")


def _is_sparse_device_array(X) -> bool:
    layout = getattr(X, "layout", None)
    if layout is not None and "sparse" in str(layout):
        return True
    return type(X).__module__.startswith("cupyx.scipy.sparse")
