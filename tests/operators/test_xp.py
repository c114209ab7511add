"""ArrayAPIData: the array-API (GPU) path, checked on CPU with array-api-strict and,
when installed, PyTorch CPU, against the NumPy operators and solvers."""
import numpy as np
import pytest

pytest.importorskip("array_api_compat")

from eigensparse import sparse_pca  # noqa: E402
from eigensparse._validation import InvalidParameterError  # noqa: E402
from eigensparse.datasets import load_kos  # noqa: E402
from eigensparse.operators import DenseData, check_operator  # noqa: E402
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
    check_operator(op, rtol=tol)


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


# -- alternating maximization on the device: the same loop as NumPy ------------------
@pytest.fixture(scope="module")
def kos_120(kos_small):
    return kos_small[:, :120]


def _am():
    from eigensparse.solvers import get_solver

    return get_solver("am").func


_PENALTY = {"l2_l0_pen": 0.5, "l2_l1_pen": 0.1, "l1_l0_pen": 50.0, "l1_l1_pen": 2.0}


@pytest.mark.parametrize("formulation", ["l2_l0_con", "l2_l1_con", "l2_l0_pen", "l2_l1_pen",
                                         "l1_l0_con", "l1_l1_con", "l1_l0_pen", "l1_l1_pen"])
def test_batched_am_every_formulation_strict_equals_numpy(kos_120, formulation):
    """array-api-strict float64: the device loop follows NumPy's full-product path."""
    xs = _strict()
    am = _am()
    kw = dict(formulation=formulation, n_starts=8, random_state=0)
    if formulation.endswith("_pen"):
        kw["penalty"] = _PENALTY[formulation]
    ref = am(DenseData(kos_120), 5, screen=False, **kw)
    got = am(ArrayAPIData(xs.asarray(kos_120)), 5, **kw)
    assert list(got.support) == list(ref.support)
    assert np.abs(got.loadings - ref.loadings).max() < 1e-10
    assert np.abs(got.info["objectives"] - ref.info["objectives"]).max() < 1e-10 * max(
        1.0, np.abs(ref.info["objectives"]).max())
    assert np.array_equal(got.info["iterations"], ref.info["iterations"])
    assert got.info["products"]["block"] == 0  # full products on the device


def test_penalty_search_on_device(kos_120):
    xs = _strict()
    am = _am()
    X = kos_120[:, :60]
    ref = am(DenseData(X), 4, formulation="l2_l1_pen", n_starts=2, screen=False, random_state=1)
    got = am(ArrayAPIData(xs.asarray(X)), 4, formulation="l2_l1_pen", n_starts=2, random_state=1)
    assert got.info["penalty_search"] == ref.info["penalty_search"]
    assert np.abs(got.loadings - ref.loadings).max() < 1e-10


@pytest.mark.parametrize("formulation", ["l2_l0_con", "l1_l1_con"])
def test_batched_am_torch_float64_and_float32(kos_120, formulation):
    torch = _torch()
    am = _am()
    ref = am(DenseData(kos_120), 5, formulation=formulation, n_starts=16, strategy="all",
             screen=False, random_state=0)
    got = am(ArrayAPIData(torch.asarray(kos_120)), 5, formulation=formulation, n_starts=16,
             strategy="all", random_state=0)
    assert list(got.support) == list(ref.support)
    assert np.abs(got.loadings - ref.loadings).max() < 1e-10
    g32 = am(ArrayAPIData(torch.asarray(kos_120.astype(np.float32))), 5, formulation=formulation,
             n_starts=16, strategy="all", random_state=0)
    assert list(g32.support) == list(ref.support)
    assert abs(g32.variance - ref.variance) < 1e-4 * ref.variance


def test_tpower_and_sparse_pca_on_device_match_numpy(kos_120):
    xs = _strict()
    ref = sparse_pca(kos_120, n_components=2, cardinality=8, method="tpower", random_state=0)
    got = sparse_pca(ArrayAPIData(xs.asarray(kos_120)), n_components=2, cardinality=8,
                     method="tpower", random_state=0)
    assert [list(s) for s in got.supports] == [list(s) for s in ref.supports]
    assert np.abs(got.components - ref.components).max() < 1e-10
    ref = sparse_pca(kos_120, n_components=1, cardinality=8, method="am", n_starts=32,
                     random_state=0)
    got = sparse_pca(ArrayAPIData(xs.asarray(kos_120)), n_components=1, cardinality=8,
                     method="am", n_starts=32, random_state=0)
    assert _rel(got.variances, ref.variances) < 1e-10


def test_device_x_steps_match_numpy():
    xs = _strict()
    from eigensparse.solvers.am import (hard_threshold, l0_penalty_threshold, l1_penalty_threshold,
                                         soft_threshold_l1_ball)

    V = np.random.default_rng(3).standard_normal((40, 7))
    V[:, 3] = 0.0  # an all-zero column
    Vd = xs.asarray(V)
    for fn, level in [(hard_threshold, 5), (soft_threshold_l1_ball, 4.0),
                      (l0_penalty_threshold, 0.8), (l1_penalty_threshold, 0.5)]:
        T, thr = fn(V, level)
        Td, thrd = fn(Vd, level)
        assert isinstance(thrd, np.ndarray)
        assert np.abs(to_numpy(Td) - T).max() < 1e-12, fn.__name__
        assert np.abs(thrd - thr).max() < 1e-12, fn.__name__
