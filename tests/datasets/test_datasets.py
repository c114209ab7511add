import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.datasets import load_20news, load_kos, load_pitprops, make_spiked_covariance
from eigensparse.io import read_uci_bow


def test_load_kos():
    b = load_kos()
    assert b.data.shape == (3430, 6906) and b.data.nnz == 353160
    assert b.data.sum() == 467714
    assert len(b.feature_names) == 6906 and b.feature_names[0] == "aarp" and b.feature_names[-1] == "zones"


def test_load_20news():
    b = load_20news()
    assert b.data.shape == (16242, 100) and b.data.nnz == 65451
    assert np.bincount(b.target)[1:].tolist() == [4605, 3519, 2657, 5461]
    assert b.feature_names[:2] == ["aids", "baseball"]


def test_load_pitprops():
    b = load_pitprops()
    assert b.data.shape == (13, 13) and np.allclose(np.diag(b.data), 1)
    assert np.isclose(np.linalg.eigvalsh(b.data)[0], 0.03872427, atol=1e-7)


def test_spiked_generator():
    X, v, supp = make_spiked_covariance(50, 30, 5, random_state=0)
    assert X.shape == (50, 30) and np.isclose(np.linalg.norm(v), 1)
    assert np.array_equal(np.flatnonzero(v), supp)
    X2, _, _ = make_spiked_covariance(50, 30, 5, random_state=0)
    assert np.array_equal(X, X2)
    with pytest.raises(InvalidParameterError, match="support_size"):
        make_spiked_covariance(50, 30, 31)


@pytest.mark.parametrize("body, match", [
    ("2\n3\n2\n1 1 1\n", "NNZ=2.*1 entries"),
    ("2\n3\n1\n0 1 1\n", "line 4: document index 0"),
    ("2\n3\n1\n1 4 1\n", "line 4: word index 4"),
    ("2\n3\n1\n1 1 -1\n", "negative count"),
    ("2\n3\n1\n1 1 1.5\n", "integers"),
    ("x\n3\n1\n1 1 1\n", "D, W, NNZ"),
])
def test_uci_reader_errors(tmp_path, body, match):
    f = tmp_path / "docword.x.txt"
    f.write_text(body)
    with pytest.raises(InvalidParameterError, match=match):
        read_uci_bow(f)


def test_correlated_group_is_planted_and_checked():
    from eigensparse.datasets import make_correlated_group

    X, support = make_correlated_group(4000, 60, 6, rho=0.5, random_state=1)
    C = np.corrcoef(X, rowvar=False)
    inside = C[np.ix_(support, support)][~np.eye(6, dtype=bool)]
    assert abs(inside.mean() - 0.5) < 0.05  # the planted correlation
    others = np.setdiff1d(np.arange(60), support)
    assert np.abs(C[np.ix_(others, others)][~np.eye(54, dtype=bool)]).max() < 0.1
    assert np.array_equal(make_correlated_group(4000, 60, 6, rho=0.5, random_state=1)[0], X)
    with pytest.raises(InvalidParameterError, match="group_size"):
        make_correlated_group(10, 5, 6)
    with pytest.raises(InvalidParameterError, match="rho"):
        make_correlated_group(10, 50, 5, rho=1.5)
