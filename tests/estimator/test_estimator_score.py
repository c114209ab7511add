"""SparsePCA on a precomputed covariance (item 5), and score / model selection (item 6)."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from eigensparse import Covariance, InvalidParameterError, SparsePCA


def planted(n, p, s, theta, seed):
    """Spiked data: Σ = I + θ v vᵀ with v uniform on the first s features."""
    rng = np.random.default_rng(seed)
    v = np.zeros(p)
    v[:s] = 1 / np.sqrt(s)
    return rng.standard_normal((n, p)) + np.sqrt(theta) * rng.standard_normal((n, 1)) * v


@pytest.fixture(scope="module")
def X():
    return planted(120, 20, 5, 4.0, 0)


def test_fit_on_covariance_sets_fitted_attributes(X):
    S = np.cov(X.T, bias=True)
    est = SparsePCA(3, cardinality=5, method="greedy").fit(Covariance(S, n_samples=X.shape[0]))
    ref = SparsePCA(3, cardinality=5, method="greedy").fit(X)
    assert est.n_features_in_ == 20 and est.n_components_ == 3 and est.n_samples_ == 120
    assert not hasattr(est, "feature_names_in_")
    for name in ("components_", "explained_variance_", "explained_variance_ratio_",
                 "component_variances_"):
        assert np.allclose(getattr(est, name), getattr(ref, name)), name
    assert [s.tolist() for s in est.supports_] == [s.tolist() for s in ref.supports_]
    assert est.supports_[0].tolist() == [0, 1, 2, 3, 4]
    assert est.mean_ is None and est.scale_ is None
    assert list(est.get_feature_names_out()) == ["sparsepca0", "sparsepca1", "sparsepca2"]
    assert Covariance(S).n_samples is None
    assert SparsePCA(1, cardinality=5).fit(Covariance(S)).n_samples_ is None


def test_covariance_model_needs_data_to_transform(X):
    est = SparsePCA(2, cardinality=5, method="greedy").fit(Covariance(np.cov(X.T)))
    for call in (lambda: est.transform(X), lambda: est.inverse_transform(np.zeros((3, 2))),
                 lambda: est.score(X), lambda: clone(est).fit_transform(Covariance(np.cov(X.T)))):
        with pytest.raises(InvalidParameterError, match="needs data.*precomputed covariance"):
            call()
    assert 0 < est.score(Covariance(np.cov(X.T))) < 1


def test_covariance_with_scale_true_is_refused(X):
    with pytest.raises(InvalidParameterError, match=r"scale=True.*Covariance\(S, scale=True\)"):
        SparsePCA(1, cardinality=3, scale=True).fit(Covariance(np.cov(X.T)))
    a = SparsePCA(1, cardinality=3, method="greedy").fit(Covariance(np.cov(X.T), scale=True))
    R = np.corrcoef(X.T)
    x = a.components_[0]
    assert a.component_variances_[0] == pytest.approx(x @ R @ x)
    assert set(a.supports_[0]) <= set(range(5))


def test_refit_from_dataframe_to_covariance_drops_feature_names(X):
    pd = pytest.importorskip("pandas")
    est = SparsePCA(1, cardinality=3, method="greedy").fit(pd.DataFrame(X, columns=[f"g{i}" for i in range(20)]))
    assert hasattr(est, "feature_names_in_")
    assert est.result_.feature_names[0] == "g0"
    est.fit(Covariance(np.cov(X.T)))
    assert not hasattr(est, "feature_names_in_")


@pytest.mark.parametrize("scale", [False, True])
def test_score_is_the_adjusted_explained_fraction(X, scale):
    est = SparsePCA(3, cardinality=4, method="greedy", scale=scale).fit(X)
    # on its own training data: the fitted explained-variance ratio
    assert est.score(X) == pytest.approx(est.explained_variance_ratio_.sum(), rel=1e-10)
    # sparse input, and the covariance of the same data, give the same number
    assert est.score(sp.csr_matrix(X)) == pytest.approx(est.score(X), rel=1e-10)
    if not scale:
        assert est.score(Covariance(np.cov(X.T, bias=True))) == pytest.approx(est.score(X), rel=1e-10)
    # new data: centered with the fitted mean, by an independent QR of the scores
    Y = planted(50, 20, 5, 4.0, 9) + 0.3
    A = (Y - est.mean_) / est.scale_
    R = np.linalg.qr(A @ est.components_.T / np.sqrt(50), mode="r")
    assert est.score(Y) == pytest.approx(np.sum(np.diag(R) ** 2) / np.sum(A ** 2 / 50), rel=1e-10)
    assert 0 < est.score(Y) < 1
    assert est.score(np.ones((4, 20)) * est.mean_) == 0.0


def test_score_checks_features(X):
    est = SparsePCA(1, cardinality=3, method="greedy").fit(X)
    with pytest.raises(ValueError, match="features"):
        est.score(X[:, :5])
    with pytest.raises(InvalidParameterError, match="features"):
        est.score(Covariance(np.eye(5)))


def test_cross_val_score_is_the_held_out_score_of_each_fold(X):
    """cross_val_score calls fit on each training fold and score on the held-out fold:
    the same numbers as doing it by hand, each fold recovering the planted support."""
    scores = cross_val_score(SparsePCA(1, cardinality=5, method="greedy"), X, cv=3)
    by_hand = []
    for train, test in KFold(3).split(X):
        est = SparsePCA(1, cardinality=5, method="greedy").fit(X[train])
        assert est.supports_[0].tolist() == [0, 1, 2, 3, 4]
        by_hand.append(est.score(X[test]))
    np.testing.assert_allclose(scores, by_hand, rtol=1e-12)
    assert np.all((scores > 0) & (scores < 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_grid_search_picks_the_planted_cardinality_out_of_sample(seed):
    """In-sample the score never decreases with the cardinality (greedy supports are
    nested), so it would pick the largest; held out, loadings fitted to noise cost
    variance, and the grid search picks the planted size (6)."""
    X = planted(100, 30, 6, 3.0, seed)
    grid = [2, 4, 6, 8, 12, 20]
    in_sample = [SparsePCA(1, cardinality=s, method="greedy").fit(X).score(X) for s in grid]
    assert np.all(np.diff(in_sample) >= -1e-12) and np.argmax(in_sample) == len(grid) - 1
    gs = GridSearchCV(SparsePCA(1, method="greedy"), {"cardinality": grid},
                      cv=KFold(5, shuffle=True, random_state=0)).fit(X)
    assert gs.best_params_["cardinality"] == 6
    assert gs.best_estimator_.supports_[0].tolist() == list(range(6))
