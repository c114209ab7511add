"""Unknown-option errors name the closest valid parameter of the function called."""
import numpy as np
import pytest

import eigensparse as es
from eigensparse import InvalidParameterError

X = np.random.default_rng(0).standard_normal((30, 6))


@pytest.mark.parametrize("wrong,right", [("n_component", "n_components"),
                                         ("cardinalty", "cardinality"),
                                         ("random_sate", "random_state"),
                                         ("deflaton", "deflation")])
def test_sparse_pca_names_the_closest_parameter(wrong, right):
    with pytest.raises(InvalidParameterError, match=rf"did you mean '{right}'\?"):
        es.sparse_pca(X, **{wrong: 3})


def test_misspelt_method_option_names_the_option():
    with pytest.raises(InvalidParameterError, match=r"did you mean 'max_iter'\?"):
        es.sparse_pca(X, method="tpower", max_iters=5)


def test_no_close_name_no_guess():
    with pytest.raises(InvalidParameterError) as err:
        es.sparse_pca(X, zzzz=1)
    assert "did you mean" not in str(err.value) and "max_iter" in str(err.value)
