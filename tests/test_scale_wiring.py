"""Dask and device input through the front doors: as_operator, sparse_pca, SparsePCA, CLI."""
import inspect

import numpy as np
import pytest

from eigensparse import SparsePCA, sparse_pca
from eigensparse._validation import InvalidParameterError
from eigensparse.operators import as_operator

pytestmark = pytest.mark.skipif(
    "client" not in inspect.signature(as_operator).parameters,
    reason="the Dask/device wiring of as_operator is not applied")


def test_dask_array_selects_dask_operator(kos):
    da = pytest.importorskip("dask.array")
    Xd = da.from_array(kos, chunks=(1000, -1), asarray=False)
    op = as_operator(Xd)
    assert type(op).__name__ == "DaskData"
    ref = sparse_pca(kos, n_components=2, cardinality=8, random_state=0)
    got = sparse_pca(Xd, n_components=2, cardinality=8, random_state=0)
    assert np.abs(got.components - ref.components).max() < 1e-10
    assert np.allclose(got.info["mean"], ref.info["mean"], rtol=1e-12, atol=0)
    est = SparsePCA(2, cardinality=8, random_state=0).fit(Xd)
    assert est.n_features_in_ == kos.shape[1]
    assert np.abs(est.components_ - ref.components).max() < 1e-10
    Z = est.transform(Xd)
    Zref = SparsePCA(2, cardinality=8, random_state=0).fit(kos).transform(kos)
    assert np.abs(np.asarray(Z.compute()) - Zref).max() < 1e-8


def test_client_with_in_memory_data(kos):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  protocol="tcp://", host="127.0.0.1",
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        ref = sparse_pca(kos, n_components=1, cardinality=8, random_state=0)
        got = sparse_pca(kos, n_components=1, cardinality=8, random_state=0, client=client)
        assert np.abs(got.components - ref.components).max() < 1e-10
        assert got.info["operator"] == "Dask data operator"


def test_unreachable_scheduler_from_sparse_pca_and_cli(kos, capsys):
    pytest.importorskip("distributed")
    import socket

    from eigensparse.cli import main

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(InvalidParameterError, match="scheduler"):
        sparse_pca(kos[:50], n_components=1, cardinality=3, client=f"tcp://127.0.0.1:{port}")
    rc = main(["topics", "--dataset", "kos", "-k", "1", "--scheduler", f"tcp://127.0.0.1:{port}",
               "--scheduler-timeout", "2"])
    assert rc == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def test_device_array_and_device_option(kos):
    torch = pytest.importorskip("torch")
    pytest.importorskip("array_api_compat")
    X = kos[:, :300].toarray()
    ref = sparse_pca(X, n_components=2, cardinality=6, random_state=0)
    got = sparse_pca(torch.asarray(X), n_components=2, cardinality=6, random_state=0)
    assert got.info["operator"] == "array-API data operator"
    assert np.abs(got.components - ref.components).max() < 1e-10
    got2 = sparse_pca(X, n_components=2, cardinality=6, random_state=0, device="cpu")
    assert np.abs(got2.components - ref.components).max() < 1e-10
    est = SparsePCA(2, cardinality=6, random_state=0).fit(torch.asarray(X))
    Z = est.transform(torch.asarray(X))
    assert isinstance(Z, torch.Tensor)
    assert np.abs(Z.numpy() - SparsePCA(2, cardinality=6, random_state=0).fit(X).transform(X)).max() < 1e-8
    if not torch.cuda.is_available():
        with pytest.raises(InvalidParameterError, match="CUDA"):
            sparse_pca(X, n_components=1, cardinality=3, device="cuda")
    with pytest.raises(InvalidParameterError, match="not both"):
        sparse_pca(X, n_components=1, cardinality=3, device="cpu", client="tcp://127.0.0.1:1")


def test_cli_device_cpu(capsys):
    pytest.importorskip("torch")
    from eigensparse.cli import main

    rc = main(["topics", "--dataset", "kos", "-k", "1", "-s", "5", "--device", "cpu"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "device=cpu" in out
