"""The settings of the default method (``solvers/_auto_settings.py``): one frozen
instance, read once per call, that a test can replace."""
import dataclasses

import numpy as np
import pytest

import eigensparse as es
from eigensparse.solvers._auto import auto
from eigensparse.solvers._auto_settings import SETTINGS, AutoSettings


def test_settings_are_frozen_and_replaceable():
    assert isinstance(SETTINGS, AutoSettings) and SETTINGS == AutoSettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        SETTINGS.dense_features = 10
    assert dataclasses.replace(SETTINGS, swap_rounds=3).swap_rounds == 3
    assert SETTINGS.min_starts <= SETTINGS.max_starts


def test_a_replaced_setting_is_the_one_auto_runs_with(auto_settings):
    S = es.Covariance(es.datasets.load_pitprops().data)
    assert auto(S, 4, random_state=0).certified  # 13 features: the tree certifies
    auto_settings(certify_features=0, n_refine=1, max_starts=2, min_starts=2)
    r = auto(S, 4, random_state=0)
    assert r.info["certify_nodes"] == 0 and r.info["n_starts"] == 2
    assert r.upper_bound >= r.variance
