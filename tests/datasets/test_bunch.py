"""The data-set container (``datasets/_bunch.py``): what the bundled loaders return."""
import numpy as np
import pytest

from eigensparse.datasets import load_pitprops
from eigensparse.datasets._bunch import Bunch


def test_bunch_fields_and_defaults():
    b = Bunch(np.eye(2), ["x", "y"], "a toy data set")
    assert b.data.shape == (2, 2) and b.feature_names == ["x", "y"]
    assert b.target is None and b.sample_names is None and b.filenames is None


def test_a_bundled_loader_returns_a_consistent_bunch():
    b = load_pitprops()
    assert isinstance(b, Bunch)
    assert b.data.shape == (13, 13) and len(b.feature_names) == 13
    np.testing.assert_allclose(b.data, b.data.T)  # a correlation matrix
    np.testing.assert_allclose(np.diag(b.data), 1.0)
    assert np.linalg.eigvalsh(b.data)[0] > 0
    assert b.description


def test_bunch_requires_its_three_fields():
    with pytest.raises(TypeError):
        Bunch(np.eye(2))
