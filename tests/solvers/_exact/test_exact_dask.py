"""``exact(..., backend="dask")``: the subtrees of the branch and bound on a Dask cluster
(:mod:`eigensparse.solvers._exact._dask`): the same certificate as one worker and as the
process pool, the same tree as the process pool (whoever ran what), an honest bound when
stopped early, the client checked at the boundary, and Dask kept optional."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import eigensparse as es
from eigensparse import InvalidParameterError
from eigensparse.datasets import make_spiked_covariance
from eigensparse.operators import Covariance
from eigensparse.solvers._exact import ExactSearchWarning, exact
from eigensparse.solvers._exact._dask import DaskNodePool, dask_client


def _spiked(n, p, s, signal, seed):
    X = make_spiked_covariance(n, p, support_size=s, signal=signal, random_state=seed)[0]
    return np.cov(X, rowvar=False)


@pytest.fixture(scope="session")
def problem():
    """p = 80, s = 10: a weak spike whose tree has thousands of nodes; its optimum
    certified by one worker (for the session: the slow tests, run last, use it too)."""
    S = _spiked(150, 80, 10, 1.0, 2)
    ref = exact(Covariance(S), 10, n_jobs=1, progress=False, random_state=0)
    assert ref.info["certified"] and ref.info["nodes"] > 1000  # a real tree
    return S, ref


@pytest.fixture(scope="session")
def two_processes(problem):
    """The same problem with the 2-process pool: the tree any 2-worker pool grows."""
    S, _ = problem
    return exact(Covariance(S), 10, n_jobs=2, backend="processes", progress=False, random_state=0)


def _local_cluster(processes):
    distributed = pytest.importorskip("distributed")
    where = {"host": "127.0.0.1"} if processes else {}  # in this process: inproc://
    return distributed, distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=processes, dashboard_address=":0", **where)


@pytest.fixture(scope="module")
def cluster():
    """2 workers × 1 thread in this process (fast, no spawn)."""
    distributed, cluster = _local_cluster(processes=False)
    with cluster, distributed.Client(cluster, set_as_default=False) as client:
        yield cluster, client


def _same(a, b):
    assert a.info["certified"] and b.info["certified"]
    assert a.support.tolist() == b.support.tolist()
    assert abs(a.variance - b.variance) <= 1e-12 * a.variance


def test_dask_certifies_the_same_optimum_and_grows_the_same_tree(problem, two_processes,
                                                                  cluster):
    """backend="dask" on 2 worker threads (n_jobs=-1: every thread of the cluster): the
    support and value of one worker, and the very tree of the 2-process pool (same nodes,
    same bound calls): the subtrees are merged in the order of their roots, whichever
    worker expanded them. Afterwards no worker keeps a search of the problem."""
    from eigensparse.solvers._exact import _dask

    S, ref = problem
    _, client = cluster
    assert _dask.cluster_threads(client) == 2
    proc = two_processes
    got = exact(Covariance(S), 10, n_jobs=-1, backend="dask", client=client, progress=False,
                random_state=0)
    _same(got, ref)
    _same(got, proc)
    assert got.info["nodes"] == proc.info["nodes"] > 1000
    assert got.info["bound_calls"] == proc.info["bound_calls"]
    assert not _dask._SEARCHES  # the in-process workers forgot the problem
    again = exact(Covariance(S), 10, n_jobs=2, backend="dask", client=client, progress=False,
                  random_state=0)
    assert np.array_equal(again.loadings, got.loadings)
    assert again.info["nodes"] == got.info["nodes"]


def test_an_address_is_connected_for_the_call_and_closed(cluster):
    """client="ADDRESS": a client opened for the call (and closed after it)."""
    cl, _ = cluster
    S = Covariance(_spiked(60, 24, 5, 1.0, 2))
    ref = exact(S, 8, n_jobs=1, progress=False, screen=False)
    before = len(cl.scheduler.clients)
    got = exact(S, 8, n_jobs=2, backend="dask", client=cl.scheduler_address, progress=False,
                screen=False)
    _same(got, ref)
    assert got.info["nodes"] > 100  # a tree, expanded on the cluster
    assert len(cl.scheduler.clients) == before  # the client opened for the call is gone


def test_subtrees_hand_back_open_nodes_from_a_poor_incumbent(cluster):
    """The pool directly, 3 nodes per subtree from a poor incumbent: the workers find the
    optimum, send their open nodes back, and the search closes on the brute-force value."""
    from eigensparse.solvers._exact._bounds import block_lmax
    from eigensparse.solvers._exact._search import Search
    from eigensparse.solvers._exhaustive import exhaustive

    _, client = cluster
    S = _spiked(60, 20, 5, 2.0, 3)
    s = 6
    best = exhaustive(Covariance(S), s).variance
    first = np.arange(s)
    search = Search(S, s, float(block_lmax(S, first[None, :])[0]), first, 1e-9)
    search.root(np.arange(20), 0.0)
    pool = DaskNodePool(search, 2, client, nodes_per_subtree=3)
    try:
        done = search.run(deadline=np.inf, max_nodes=np.inf, pool=pool)
    finally:
        pool.shutdown()
    assert done and abs(search.incumbent - best) <= 1e-10 * best
    assert search.nodes > 4 * 3  # more than one batch: open nodes came back


@pytest.mark.slow(seconds=8)  # its own reference certified without a time limit
def test_max_time_stops_the_cluster_search_with_a_valid_bound(cluster):
    """A tree of ~7000 nodes (3 s alone) given 0.5 s on the cluster: uncertified, warned,
    and its upper bound is above the optimum certified without a time limit."""
    _, client = cluster
    S = _spiked(150, 90, 10, 1.0, 2)
    ref = exact(Covariance(S), 10, n_jobs=1, progress=False, random_state=0)
    assert ref.info["certified"]
    with pytest.warns(ExactSearchWarning):
        r = exact(Covariance(S), 10, n_jobs=2, backend="dask", client=client, max_time=0.5,
                  progress=False, random_state=0)
    assert not r.info["certified"]
    assert r.upper_bound >= ref.variance * (1 - 1e-12) and r.variance <= ref.variance * (1 + 1e-12)
    assert r.info["relative_gap"] > 0 and r.info["nodes"] >= 1


@pytest.mark.slow(seconds=8)  # two worker processes started
def test_dask_worker_processes_certify_the_same_optimum(problem, two_processes):
    """2 worker processes (Σ pickled to each, a search built per worker): the same tree
    as the in-process cluster and the process pool."""
    S, ref = problem
    distributed, cluster = _local_cluster(processes=True)
    with cluster, distributed.Client(cluster, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=60)
        got = exact(Covariance(S), 10, n_jobs=2, backend="dask", client=client, progress=False,
                    random_state=0)
    _same(got, ref)
    assert got.info["nodes"] == two_processes.info["nodes"]


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("client, match", [
    (3, r"'client' parameter of exact must be None, an instance of 'str' or an object "
        r"implementing 'scatter', 'submit' and 'gather'\. Got 3"),
    (np.zeros(2), r"'client' parameter of exact"),
])
def test_a_client_of_the_wrong_type_is_refused_at_the_boundary(client, match):
    with pytest.raises(InvalidParameterError, match=match):
        exact(Covariance(np.eye(5)), 2, backend="dask", client=client)


def test_a_client_without_the_dask_backend_is_refused():
    with pytest.raises(InvalidParameterError, match=r"'client' is only used with backend='dask'"):
        exact(Covariance(np.eye(5)), 2, client="tcp://127.0.0.1:8786")


def test_bad_clients_are_clear_errors(cluster, monkeypatch):
    distributed = pytest.importorskip("distributed")

    class LooksLikeAClient:
        def scatter(self):
            pass

        submit = gather = scatter

    S = Covariance(np.eye(5))
    with pytest.raises(InvalidParameterError, match="must be a dask.distributed.Client"):
        exact(S, 2, backend="dask", client=LooksLikeAClient())
    with pytest.raises(InvalidParameterError, match=r"'client'='foo://x:1'.*unknown protocol"):
        exact(S, 2, backend="dask", client="foo://x:1")
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(InvalidParameterError, match=r"'client'=.*cannot reach the Dask scheduler"):
        exact(S, 2, backend="dask", client=f"tcp://127.0.0.1:{port}")
    cl, _ = cluster
    closed = distributed.Client(cl, set_as_default=False)
    closed.close()
    with pytest.raises(InvalidParameterError, match="'client' is closed"):
        exact(S, 2, backend="dask", client=closed)
    # no client given and no default client: which parameter, and what to do
    monkeypatch.setattr(distributed, "default_client",
                        lambda: (_ for _ in ()).throw(ValueError("No clients found")))
    with pytest.raises(InvalidParameterError, match=r"'backend'='dask' needs a Dask cluster"):
        exact(S, 2, backend="dask")
    with pytest.raises(InvalidParameterError, match=r"needs a Dask cluster"):  # front door
        es.sparse_pca(S, n_components=1, cardinality=2, method="exact", backend="dask")


def test_without_distributed_the_error_names_backend_and_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(InvalidParameterError, match=r"'backend'='dask' needs the optional "
                                                    r"dependency.*eigensparse\[dask\]"):
        dask_client(None)
    with pytest.raises(InvalidParameterError, match=r"eigensparse\[dask\]"):
        exact(Covariance(np.eye(5)), 2, backend="dask")


def test_the_other_backends_never_import_dask():
    code = ("import sys, numpy as np, warnings\n"
            "from eigensparse.operators import Covariance\n"
            "from eigensparse.solvers._exact import exact\n"
            "import eigensparse.solvers._exact._dask\n"
            "S = np.cov(np.random.default_rng(0).standard_normal((40, 12)), rowvar=False)\n"
            "for kw in ({'n_jobs': 1}, {'n_jobs': 2, 'backend': 'threads'}):\n"
            "    exact(Covariance(S), 4, progress=False, **kw)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True).stdout
    assert out.strip() == "[]"


def test_the_front_door_client_runs_the_search_on_its_cluster(problem, cluster, monkeypatch):
    """``sparse_pca(..., method="exact", backend="dask", client=c)``: the client that
    places the data also runs the subtrees (same certified optimum as one worker)."""
    import eigensparse as es
    from eigensparse.solvers import _exact
    from eigensparse.solvers._exact._dask import DaskNodePool

    S, ref = problem
    _, client = cluster
    monkeypatch.setattr(_exact, "ESCALATE_SECONDS", 0.0)  # to the cluster at once
    batches = []
    expand = DaskNodePool.expand
    monkeypatch.setattr(DaskNodePool, "expand",
                        lambda self, *a: batches.append(1) or expand(self, *a))
    res = es.sparse_pca(Covariance(S), n_components=1, cardinality=10, method="exact",
                        backend="dask", client=client, random_state=0)
    assert len(batches) > 1  # the subtrees ran on the cluster
    r = res.results[0]
    assert r.info["certified"]
    assert r.support.tolist() == ref.support.tolist()
    assert abs(r.variance - ref.variance) <= 1e-12 * ref.variance
