"""The estimator keeps feature names through score/transform and never warns on its
own calls; bad DataFrames and NaN get our own clear errors."""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes
from sklearn.model_selection import GridSearchCV, cross_val_score

import eigensparse as es
from eigensparse import InvalidParameterError, SparsePCA


@pytest.fixture(scope="module")
def frame():
    d = load_diabetes(as_frame=True)
    return d.data


def test_grid_search_on_a_dataframe_never_warns(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "X does not have valid feature names" was raised per fold
        gs = GridSearchCV(SparsePCA(2, method="greedy"), {"cardinality": [2, 3]}, cv=3)
        gs.fit(frame)
        est = SparsePCA(2, cardinality=3, method="greedy").fit(frame)
        s = est.score(frame)
        Z = est.transform(frame)
        cross_val_score(est, frame, cv=3)
    assert 0 < s <= 1 and Z.shape == (len(frame), 2)
    assert list(est.feature_names_in_) == list(frame.columns)
    assert est.result_.feature_names == list(frame.columns)
    # score on the frame = score on its array through the same validated path
    assert est.score(frame) == pytest.approx(
        SparsePCA(2, cardinality=3, method="greedy").fit(frame.to_numpy()).score(frame.to_numpy()))


def test_dataframe_with_a_string_column_names_it(frame):
    bad = frame.assign(city=["a"] * len(frame))
    for call in (lambda: SparsePCA(1, cardinality=2).fit(bad),
                 lambda: es.sparse_pca(bad, n_components=1, cardinality=2)):
        with pytest.raises(InvalidParameterError, match=r"\['city'\]"):
            call()


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_nan_in_fit_is_our_error(value):
    X = np.random.default_rng(0).standard_normal((30, 5))
    X[3, 2] = value
    with pytest.raises(InvalidParameterError) as err:
        SparsePCA(1, cardinality=2).fit(X)
    msg = str(err.value)
    assert "HistGradientBoosting" not in msg and "parameter 'X'" in msg and "impute" in msg
    est = SparsePCA(1, cardinality=2, method="greedy").fit(np.nan_to_num(X, posinf=0.0))
    for method in (est.transform, est.score):
        with pytest.raises(InvalidParameterError, match="parameter 'X'"):
            method(X)


def test_covariance_and_sparse_pca_keep_feature_names(frame):
    b = es.datasets.load_pitprops()
    for op in (es.Covariance(b.data, feature_names=b.feature_names),
               es.Covariance(pd.DataFrame(b.data, columns=b.feature_names))):
        res = es.sparse_pca(op, n_components=2, cardinality=3, method="greedy")
        assert res.feature_names == list(b.feature_names)
        assert res.to_dict()["components"][0]["features"][0] in b.feature_names
        assert "x0" not in res.format_table().split()
    res = es.sparse_pca(frame, n_components=1, cardinality=2, method="greedy")
    assert res.feature_names == list(frame.columns)
    with pytest.raises(InvalidParameterError, match="feature_names"):
        es.Covariance(b.data, feature_names=["a", "b"])
