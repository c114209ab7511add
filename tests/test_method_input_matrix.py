"""Every registered method × every input kind × center/scale: a valid result, or a clear
``InvalidParameterError`` naming the combination (issue 10, item 4).

Each case is checked against a covariance computed here, independently of the
operators: the reported variances are xᵀΣx on it, the adjusted variances are the R_jj²
of the QR of the scores, cardinalities are exact, rows are unit-norm and sorted by
variance. Without scaling, the five input kinds must give the same components.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from eigensparse import Covariance, InvalidParameterError, SparsePCA, sparse_pca
from eigensparse.registry import method_names

N, P, K, S = 40, 8, 2, 3
KINDS = ("dense", "csr", "covariance", "dataframe", "list")
#: small options so the whole module runs in seconds (dspca: few, loose relaxations)
OPTIONS = {"am": dict(n_starts=4), "bipartite": dict(n_candidates=50), "emspca": dict(n_starts=2),
           "tpower": dict(n_starts=2), "spanspca": dict(n_samples=50),
           "dspca": dict(tol=1e-2, max_iter=300, max_penalties=10)}


def _data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((N, P)) @ rng.standard_normal((P, P))
    X[rng.random((N, P)) < 0.3] = 0.0
    return X


X = _data()


def _expected_covariance(kind, center, scale):
    """Σ as the front door must read it: second moments of X (centered when asked),
    scaled to a unit diagonal when asked; a Covariance is used as given."""
    Xc = X - X.mean(0) if (center or kind == "covariance") else X
    M = Xc.T @ Xc / N
    if scale:
        d = np.sqrt(np.diag(M))
        M = M / np.outer(d, d)
    return M, Xc if not scale else Xc / np.sqrt(np.diag(Xc.T @ Xc / N))


def _as_kind(kind):
    if kind == "dense":
        return X.copy()
    if kind == "csr":
        return sp.csr_matrix(X)
    if kind == "covariance":
        return Covariance(np.cov(X.T, bias=True), n_samples=N)
    if kind == "dataframe":
        pd = pytest.importorskip("pandas")
        return pd.DataFrame(X, columns=[f"f{i}" for i in range(P)])
    return X.tolist()


def _cases():
    for m in method_names():
        for kind in KINDS:
            for center in (True, False):
                for scale in (False, True):
                    yield pytest.param(m, kind, center, scale,
                                       id=f"{m}-{kind}-center={center}-scale={scale}")


def _check_result(res, method, kind, center, scale):
    Sigma, A = _expected_covariance(kind, center, scale)
    C = res.components
    assert C.shape == (K, P)
    assert np.allclose(np.linalg.norm(C, axis=1), 1.0)
    assert [s.size for s in res.supports] == [S] * K
    assert [np.count_nonzero(c) for c in C] == [S] * K
    for c in C:  # sign rule
        assert c[np.argmax(np.abs(c))] > 0
    assert np.allclose(res.variances, np.einsum("ij,jk,ik->i", C, Sigma, C), rtol=1e-8, atol=1e-10)
    assert np.all(np.diff(res.variances) <= 1e-12), "components not sorted by variance"
    R = np.linalg.qr(A @ C.T / np.sqrt(N), mode="r")
    assert np.allclose(res.explained_variance, np.diag(R) ** 2, rtol=1e-6, atol=1e-10)
    assert res.total_variance == pytest.approx(np.trace(Sigma), rel=1e-10)


@pytest.mark.parametrize("method, kind, center, scale", list(_cases()))
def test_method_input_matrix(method, kind, center, scale):
    data = _as_kind(kind)
    call = dict(n_components=K, cardinality=S, method=method, center=center, scale=scale,
                random_state=0, **OPTIONS.get(method, {}))
    if kind == "covariance" and scale:
        with pytest.raises(InvalidParameterError, match=r"scale=True.*Covariance\(S, scale=True\)"):
            sparse_pca(data, **call)
        return
    _check_result(sparse_pca(data, **call), method, kind, center, scale)


@pytest.mark.parametrize("method", method_names())
@pytest.mark.parametrize("center", [True, False])
def test_input_kinds_agree_without_scaling(method, center):
    """dense, CSR, DataFrame and list of lists are the same data: the same components
    (and a Covariance of the centered data gives those of center=True)."""
    call = dict(n_components=K, cardinality=S, method=method, center=center, random_state=0,
                **OPTIONS.get(method, {}))
    kinds = [k for k in KINDS if k != "covariance" or center]
    comps = {k: sparse_pca(_as_kind(k), **call).components for k in kinds}
    for k in kinds:
        assert np.allclose(comps[k], comps["dense"], atol=1e-8), k


def _gaussian_10():
    rng = np.random.default_rng(0)
    return rng.standard_normal((N, 10)) @ rng.standard_normal((10, 10))


@pytest.mark.parametrize("data", ["matrix", "gaussian10"])
@pytest.mark.parametrize("method", method_names())
def test_every_method_on_np_corrcoef(method, data):
    """A correlation matrix from np.corrcoef (diagonal 1 only up to rounding); the
    second one made bca crash (AttributeError) before the `defaults` branch."""
    R = np.corrcoef((X if data == "matrix" else _gaussian_10()).T)
    res = sparse_pca(Covariance(R), n_components=K, cardinality=S, method=method,
                     random_state=0, **OPTIONS.get(method, {}))
    assert [s.size for s in res.supports] == [S] * K
    assert np.allclose(res.variances, np.einsum("ij,jk,ik->i", res.components, R, res.components))
    assert np.all(np.isfinite(res.explained_variance))


def test_data_only_formulation_on_covariance_names_the_combination():
    with pytest.raises(InvalidParameterError, match=r"'am'.*l1_l0_con.*needs the data"):
        sparse_pca(Covariance(np.cov(X.T)), n_components=1, cardinality=S, method="am",
                   formulation="l1_l0_con")


@pytest.mark.parametrize("method", method_names())
@pytest.mark.parametrize("kind", KINDS)
def test_estimator_accepts_every_kind(method, kind):
    """SparsePCA(method=m).fit(kind) gives sparse_pca's components (center=True)."""
    opts = OPTIONS.get(method, {})
    est = SparsePCA(K, cardinality=S, method=method, random_state=0, method_options=opts)
    est.fit(_as_kind(kind))
    ref = sparse_pca(X, n_components=K, cardinality=S, method=method,
                     random_state=est.random_state, **opts)
    assert est.n_features_in_ == P
    assert np.allclose(est.components_, ref.components, atol=1e-8)
    assert np.allclose(est.explained_variance_, ref.explained_variance)
    if kind == "covariance":
        assert est.mean_ is None and est.n_samples_ == N
    else:
        assert np.allclose(est.mean_, X.mean(0)) and est.n_samples_ == N
