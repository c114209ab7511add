"""ArrayAPIData: the array-API (GPU) path, checked on CPU with array-api-strict and,
when installed, PyTorch CPU, against the NumPy operators and solvers."""
import numpy as np
import pytest

pytest.importorskip("array_api_compat")

from eigensparse import sparse_pca  # noqa: E402
from eigensparse._validation import InvalidParameterError  # noqa: E402
from eigensparse.datasets import load_kos  # noqa: E402
from eigensparse.operators import DenseData  # noqa: E402
from eigensparse.operators._xp import ArrayAPIData, is_array_api_array, to_numpy  # noqa: E402


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


def _strict():
    return pytest.importorskip("array_api_strict")


def _torch():
    return pytest.importorskip("torch")


def _backend(name, X, dtype):
    if name == "strict":
        xs = _strict()
        return xs.asarray(X.astype(dtype))
    torch = _torch()
    return torch.asarray(X.astype(dtype))


@pytest.fixture(scope="module")
def kos_small():
    """The 400 most frequent KOS words, dense (3430 × 400)."""
    X = load_kos().data
    top = np.argsort(-np.asarray(X.sum(axis=0)).ravel(), kind="stable")[:400]
    return X[:, np.sort(top)].toarray()


@pytest.mark.parametrize("backend", ["strict", "torch"])
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-10), (np.float32, 2e-4)])
def test_products_match_numpy(kos_small, backend, dtype, tol):
    X = kos_small
    ref = DenseData(X, scale=True)
    op = ArrayAPIData(_backend(backend, X, dtype), scale=True)
    assert str(op.dtype).endswith("float32" if dtype == np.float32 else "float64")
    rng = np.random.default_rng(0)
    V = rng.standard_normal((X.shape[1], 3))
    Y = rng.standard_normal((X.shape[0], 2))
    idx = [4, 0, 77, 399]
    # NumPy in -> NumPy (float64) out: the operator protocol
    got = op.matmat(V)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    assert _rel(got, ref.matmat(V)) < tol
    assert _rel(op.matvec(V[:, 0]), ref.matvec(V[:, 0])) < tol
    assert _rel(op.diag(), ref.diag()) < tol
    assert _rel(op.mean_, ref.mean_) < tol and _rel(op.scale_, ref.scale_) < tol
    assert _rel(op.quad(V), ref.quad(V)) < tol
    assert isinstance(op.quad(V[:, 0]), float)
    assert _rel(op.dot(V), ref.dot(V)) < tol
    assert _rel(op.rdot(Y), ref.rdot(Y)) < tol
    assert _rel(op.block(idx), ref.block(idx)) < tol
    assert _rel(op.columns(idx), ref.columns(idx)) < tol
    assert _rel(op.data_columns(idx), ref.data_columns(idx)) < tol
    sub, rsub = op.restrict(idx), ref.restrict(idx)
    assert _rel(sub.matmat(V[:4]), rsub.matmat(V[:4])) < tol
    assert _rel(sub.diag(), rsub.diag()) < tol
    # device in -> device out, in the operator's dtype; nothing comes back to the host
    Vd = op.asarray(V)
    out = op.matmat(Vd)
    assert is_array_api_array(out) and out.dtype == op.dtype
    assert _rel(to_numpy(out), ref.matmat(V)) < tol
    assert is_array_api_array(op.dot(Vd)) and is_array_api_array(op.rdot(op.asarray(Y)))
    assert is_array_api_array(op.quad(Vd))
    assert _rel(to_numpy(op.rdot(op.dot(Vd))), ref.matmat(V)) < tol


@pytest.mark.parametrize("backend", ["strict", "torch"])
def test_sparse_pca_through_protocol_matches_numpy(kos_small, backend):
    """Solvers that use the NumPy protocol run unchanged on the device operator."""
    op = ArrayAPIData(_backend(backend, kos_small, np.float64))
    for method in ("approx_greedy", "scol"):
        ref = sparse_pca(kos_small, n_components=2, cardinality=6, method=method, random_state=0)
        got = sparse_pca(op, n_components=2, cardinality=6, method=method, random_state=0)
        assert [list(s) for s in got.supports] == [list(s) for s in ref.supports]
        assert np.abs(got.components - ref.components).max() < 1e-10
        assert _rel(got.variances, ref.variances) < 1e-10


def test_mixing_devices_is_a_clear_error(kos_small):
    xs = _strict()
    op = ArrayAPIData(xs.asarray(kos_small[:, :20]))
    other = xs.asarray(np.ones((20, 2)), device=xs.Device("device1"))
    with pytest.raises(InvalidParameterError, match="cannot mix devices.*device1"):
        op.matmat(other)
    with pytest.raises(InvalidParameterError, match="cannot mix devices"):
        op.rdot(xs.asarray(np.ones(kos_small.shape[0]), device=xs.Device("device1")))
    with pytest.raises(InvalidParameterError, match="cannot mix devices"):
        op.asarray(other)


def test_mixing_array_libraries_is_a_clear_error(kos_small):
    xs = _strict()
    torch = _torch()
    op = ArrayAPIData(xs.asarray(kos_small[:, :20]))
    with pytest.raises(InvalidParameterError, match="cannot mix array libraries.*torch"):
        op.matmat(torch.ones((20, 2), dtype=torch.float64))
    op_t = ArrayAPIData(torch.asarray(kos_small[:, :20]))
    with pytest.raises(InvalidParameterError, match="cannot mix array libraries.*array_api_strict"):
        op_t.dot(xs.ones((20,), dtype=xs.float64))


def test_bad_input():
    xs = _strict()
    with pytest.raises(InvalidParameterError, match="array-api-compat"):
        ArrayAPIData([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(InvalidParameterError, match="2-D"):
        ArrayAPIData(xs.ones((5,)))
    with pytest.raises(InvalidParameterError, match="1 sample"):
        ArrayAPIData(xs.ones((1, 3)))
    bad = np.ones((4, 3))
    bad[1, 2] = np.inf
    with pytest.raises(InvalidParameterError, match="NaN or infinite"):
        ArrayAPIData(xs.asarray(bad))
    with pytest.raises(InvalidParameterError, match="dtype"):
        ArrayAPIData(xs.ones((4, 3)), dtype="float16")
    op = ArrayAPIData(xs.asarray(np.arange(12.0).reshape(4, 3)), dtype="float32")
    assert op.dtype == xs.float32
    ints = ArrayAPIData(xs.asarray(np.arange(12).reshape(4, 3)))
    assert ints.dtype == xs.float64
    with pytest.raises(InvalidParameterError, match="rows"):
        op.matmat(np.ones((5, 1)))
    with pytest.raises(InvalidParameterError, match="idx"):
        op.block([0, 3])


def test_torch_sparse_is_refused():
    torch = _torch()
    with pytest.raises(InvalidParameterError, match="sparse device arrays"):
        ArrayAPIData(torch.eye(4).to_sparse())


def test_to_device_cpu_and_missing_cuda(kos_small):
    torch = _torch()
    from eigensparse.operators._xp import to_device

    import scipy.sparse as sp

    t = to_device(sp.csr_matrix(kos_small), "cpu")
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float64
    assert to_device(kos_small.astype(np.float32), "cpu").dtype == torch.float32
    op = ArrayAPIData(t)
    assert _rel(op.diag(), DenseData(kos_small).diag()) < 1e-10
    if not torch.cuda.is_available():
        with pytest.raises(InvalidParameterError, match="no CUDA device"):
            to_device(kos_small, "cuda")
    with pytest.raises(InvalidParameterError, match="device"):
        to_device(kos_small, "no-such-device")
