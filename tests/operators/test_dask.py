"""DaskData: the operator protocol over a Dask array, on the local scheduler and on a
2-worker LocalCluster on loopback; worker loss; bad input."""
import os
import signal
import socket

import numpy as np
import pytest
import scipy.sparse as sp

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from eigensparse import sparse_pca  # noqa: E402
from eigensparse._validation import InvalidParameterError  # noqa: E402
from eigensparse.operators import DenseData, SparseData, check_operator  # noqa: E402
from eigensparse.io.dask_chunks import from_uci_chunks  # noqa: E402
from eigensparse.operators.dask import DaskComputeError, DaskData, connect, scatter_rows  # noqa: E402

TOL = 1e-10


def _rel(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


@pytest.fixture(scope="module")
def cluster_client():
    """2 workers, 1 thread each, in this process, talking TCP over loopback."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       protocol="tcp://", host="127.0.0.1", dashboard_address=":0")
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


def _kos_dask(X, rows=1000):
    return da.from_array(X, chunks=(rows, -1), asarray=False)


@pytest.mark.parametrize("center,scale", [(True, False), (False, False), (True, True)])
def test_products_match_sparse_data_local_scheduler(kos, center, scale):
    ref = SparseData(kos, center=center, scale=scale)
    op = DaskData(_kos_dask(kos, 900), center=center, scale=scale)
    assert op.sparse_chunks and op.client is None and op.row_chunks == (900, 900, 900, 730)
    rng = np.random.default_rng(0)
    V = rng.standard_normal((kos.shape[1], 4))
    Y = rng.standard_normal((kos.shape[0], 3))
    idx = rng.choice(kos.shape[1], 25, replace=False)
    assert _rel(op.diag(), ref.diag()) < TOL
    assert _rel(op.mean_, ref.mean_ if center else np.zeros(kos.shape[1]) + 1e-300) < TOL or not center
    assert _rel(op.scale_, ref.scale_) < TOL
    assert _rel(op.matmat(V), ref.matmat(V)) < TOL
    assert _rel(op.matvec(V[:, 0]), ref.matvec(V[:, 0])) < TOL
    assert _rel(op.quad(V), ref.quad(V)) < TOL
    assert abs(op.quad(V[:, 1]) - ref.quad(V[:, 1])) < TOL * abs(ref.quad(V[:, 1]))
    assert _rel(op.dot(V), ref.dot(V)) < TOL
    assert _rel(op.dot(V[:, 0]), ref.dot(V[:, 0])) < TOL
    assert _rel(op.rdot(Y), ref.rdot(Y)) < TOL
    assert _rel(op.block(idx), ref.block(idx)) < TOL
    assert _rel(op.columns(idx), ref.columns(idx)) < TOL
    assert _rel(op.data_columns(idx), ref.data_columns(idx)) < TOL
    assert abs(op.trace() - ref.trace()) < TOL * ref.trace()
    sub, rsub = op.restrict(idx), ref.restrict(idx)
    W = rng.standard_normal((idx.size, 2))
    assert sub.n_features == idx.size
    assert _rel(sub.matmat(W), rsub.matmat(W)) < TOL
    assert _rel(sub.diag(), rsub.diag()) < TOL
    assert _rel(sub.block([0, 3, 7]), rsub.block([0, 3, 7])) < TOL
    assert _rel(sub.restrict([1, 2]).block([0, 1]), rsub.block([1, 2])) < TOL
    assert _rel(sub.rdot(Y), rsub.rdot(Y)) < TOL
    check_operator(op, rtol=TOL)


def test_dense_chunks_match_dense_data(kos):
    X = kos[:, :200].toarray()
    ref = DenseData(X, scale=True)
    op = DaskData(da.from_array(X, chunks=(700, 64)), scale=True)  # column chunks get merged
    assert not op.sparse_chunks
    V = np.random.default_rng(1).standard_normal((200, 3))
    assert _rel(op.diag(), ref.diag()) < TOL
    assert _rel(op.matmat(V), ref.matmat(V)) < TOL
    assert _rel(op.block([5, 0, 199]), ref.block([5, 0, 199])) < TOL
    assert _rel(op.rdot(ref.dot(V)), ref.rdot(ref.dot(V))) < TOL
    assert np.array_equal(op.compute_dense(), X)
    check_operator(op, rtol=TOL)


def test_fit_on_cluster_equals_in_memory(kos, cluster_client):
    op = DaskData(_kos_dask(kos), client=cluster_client)
    assert "client tcp://127.0.0.1" in repr(op)
    for method, deflation in [("tpower", "schur"), ("approx_greedy", "disjoint")]:
        ref = sparse_pca(SparseData(kos), n_components=2, cardinality=8, method=method,
                         deflation=deflation, random_state=0)
        got = sparse_pca(op, n_components=2, cardinality=8, method=method,
                         deflation=deflation, random_state=0)
        assert [list(s) for s in got.supports] == [list(s) for s in ref.supports]
        assert np.abs(got.components - ref.components).max() < TOL
        assert _rel(got.variances, ref.variances) < TOL
        assert _rel(got.explained_variance, ref.explained_variance) < TOL


@pytest.fixture(scope="module")
def proc_client():
    """2 worker processes (with nannies, which restart a killed worker) on loopback."""
    if not hasattr(signal, "SIGKILL"):
        pytest.skip("needs POSIX signals")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=":0")
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


def _kill_during_fit(client, op, after=2):
    """Make the ``after``-th graph computation of ``op`` start by SIGKILLing the worker
    process holding the most data; returns the call counter and the victim."""
    client.wait_for_workers(2, timeout=60)
    pids = client.run(os.getpid)
    victim = max(client.has_what().items(), key=lambda kv: len(kv[1]))[0]
    assert client.has_what()[victim]  # it holds blocks
    calls = {"n": 0}
    compute = op._compute

    def compute_and_kill(*objs):
        calls["n"] += 1
        if calls["n"] == after:
            os.kill(pids[victim], signal.SIGKILL)
        return compute(*objs)

    op._compute = compute_and_kill
    return calls, victim


@pytest.mark.parametrize("source", [
    "from_array",
    pytest.param("scatter_rows(lineage=True)", marks=pytest.mark.slow(seconds=6)),  # same recovery path
])
def test_worker_killed_mid_fit_same_answer(kos, proc_client, source):
    """SIGKILL a worker process during a fit: the scheduler recomputes the lost blocks from
    their lineage and the answer is bit-for-bit the one of an undisturbed fit."""
    client = proc_client
    ref = sparse_pca(SparseData(kos), n_components=2, cardinality=8, method="tpower", random_state=0)
    client.wait_for_workers(2, timeout=60)
    Xd = (_kos_dask(kos, 600) if source == "from_array"
          else scatter_rows(kos, client=client, rows_per_block=600, lineage=True))
    op = DaskData(Xd, client=client)
    quiet = sparse_pca(op, n_components=2, cardinality=8, method="tpower", random_state=0)
    calls, victim = _kill_during_fit(client, op)
    got = sparse_pca(op, n_components=2, cardinality=8, method="tpower", random_state=0)
    assert calls["n"] > 2  # the fit went on after the kill
    assert victim not in client.scheduler_info()["workers"]
    assert np.array_equal(got.components, quiet.components)
    assert np.array_equal(got.variances, quiet.variances)
    assert np.abs(got.components - ref.components).max() < TOL


def test_scattered_blocks_lost_with_their_worker_is_a_clear_error(kos, proc_client):
    client = proc_client
    client.wait_for_workers(2, timeout=60)
    op = DaskData(scatter_rows(kos, client=client, rows_per_block=600), client=client)
    _kill_during_fit(client, op, after=1)
    with pytest.raises(DaskComputeError, match="lineage=True"):
        sparse_pca(op, n_components=1, cardinality=8, method="tpower", random_state=0)


def test_from_uci_chunks_matches_reader(kos, cluster_client):
    from importlib import resources

    path = resources.files("eigensparse.datasets").joinpath("data", "docword.kos.txt.gz")
    with resources.as_file(path) as f:
        Xd = from_uci_chunks(f, client=cluster_client, chunk_nnz=60_000)
    assert Xd.shape == kos.shape and len(Xd.chunks[0]) > 3
    assert not any(np.isnan(c) for c in Xd.chunks[0])
    op = DaskData(Xd, client=cluster_client)
    ref = SparseData(kos)
    V = np.random.default_rng(2).standard_normal((kos.shape[1], 2))
    assert _rel(op.matmat(V), ref.matmat(V)) < TOL
    assert _rel(op.diag(), ref.diag()) < TOL


# -- bad input ---------------------------------------------------------------------
def test_unknown_chunk_sizes_is_a_clear_error():
    X = da.from_array(np.arange(40.0).reshape(10, 4), chunks=(5, 4))
    Xm = X[X[:, 0] > 3]  # boolean indexing: NaN row chunks
    with pytest.raises(InvalidParameterError, match="unknown chunk sizes.*compute_chunk_sizes"):
        DaskData(Xm)
    op = DaskData(Xm.compute_chunk_sizes())  # the fix the message names
    assert op.n_samples == 9


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_scheduler_is_a_clear_error_without_hanging(monkeypatch):
    """Nothing can hang: an unreachable address fails in the plain TCP probe, which is
    given the caller's timeout, before any client handshake; a malformed address fails
    in parsing, before any connection is attempted."""
    import distributed

    probes = []
    real_probe = socket.create_connection

    def probe(address, timeout=None, *a, **k):
        probes.append((address, timeout))
        return real_probe(address, timeout, *a, **k)

    def no_client(*a, **k):
        pytest.fail("the client handshake was attempted for an unreachable scheduler")

    monkeypatch.setattr(socket, "create_connection", probe)
    monkeypatch.setattr(distributed, "Client", no_client)
    port = _free_port()
    addr = f"tcp://127.0.0.1:{port}"
    with pytest.raises(InvalidParameterError, match="cannot reach the Dask scheduler"):
        connect(addr, timeout=2)
    assert probes == [(("127.0.0.1", port), 2)]
    with pytest.raises(InvalidParameterError, match="scheduler"):
        DaskData(da.ones((10, 3), chunks=(5, 3)), client=addr)
    assert len(probes) == 2 and probes[1][0] == ("127.0.0.1", port)
    for bad in ["nonsense://x:1", "tcp://127.0.0.1", "", "tcp://:80"]:
        with pytest.raises(InvalidParameterError, match="address"):
            connect(bad, timeout=1)
    assert len(probes) == 2  # malformed addresses never reach the network
    with pytest.raises(InvalidParameterError, match="timeout"):
        connect("tcp://127.0.0.1:8786", timeout=0)


def test_other_bad_input():
    with pytest.raises(InvalidParameterError, match="dask.array"):
        DaskData(np.ones((4, 3)))
    with pytest.raises(InvalidParameterError, match="2-D"):
        DaskData(da.ones(10, chunks=5))
    with pytest.raises(InvalidParameterError, match="1 sample"):
        DaskData(da.ones((1, 3), chunks=(1, 3)))
    with pytest.raises(InvalidParameterError, match="client"):
        DaskData(da.ones((4, 3), chunks=(2, 3)), client=42)
    X = np.ones((6, 3))
    X[4, 1] = np.nan
    with pytest.raises(InvalidParameterError, match="NaN or infinite"):
        DaskData(da.from_array(X, chunks=(2, 3)))
    Xs = sp.csr_matrix(np.eye(6))
    Xs.data[2] = np.inf
    with pytest.raises(InvalidParameterError, match="NaN or infinite"):
        DaskData(da.from_array(Xs, chunks=(3, -1), asarray=False))
    op = DaskData(da.ones((6, 3), chunks=(2, 3)))
    with pytest.raises(InvalidParameterError, match="rows"):
        op.matmat(np.ones((4, 2)))
    with pytest.raises(InvalidParameterError, match="idx"):
        op.block([0, 3])
