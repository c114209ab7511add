"""The checks of a precomputed covariance: the fused pass over (S_ij, S_ji) agrees with
plain NumPy, the PSD test never rejects a PSD matrix (certainty) and catches one
slightly negative eigenvalue, and the operator keeps a float64 C-contiguous Σ without a
copy and never writes to it."""
import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.operators import Covariance
from eigensparse.operators._covariance import _smallest_rayleigh_quotient
from eigensparse.operators._kernels import covariance_checks


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", [(0, 0), (3, 150), (150, 3), (199, 199)])
def test_fused_pass_sees_every_non_finite_entry(bad, where):
    S = np.eye(200)
    S[where] = bad
    assert not np.isfinite(covariance_checks(S, np.ones(200), np.ones(200), np.zeros((0, 0), np.float32), np.zeros(0, np.int64))[0])
    with pytest.raises(InvalidParameterError, match="NaN" if bad != bad else "infinite"):
        Covariance(S)


def test_huge_finite_entries_are_not_called_infinite():
    S = np.full((30, 30), 1e307)  # rank one, PSD; the sum of its entries overflows
    assert not np.isfinite(covariance_checks(S, np.ones(30), np.full(30, np.sqrt(1e307)), np.zeros((0, 0), np.float32), np.zeros(0, np.int64))[0])
    # refused for their size (the total variance overflowed: sparse_pca explained 0.00%),
    # never called infinite
    with pytest.raises(InvalidParameterError, match="rescale it") as err:
        Covariance(S)
    assert "infinite" not in str(err.value)


def _psd(p, rank, seed, zero_features=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((rank, p)) * rng.uniform(0.1, 3.0, p)
    X[:, :zero_features] = 0.0  # constant features: zero rows and columns
    return X.T @ X / rank


@pytest.mark.parametrize("seed", range(4))
def test_psd_check_accepts_singular_psd_matrices(seed):
    """Rank-deficient covariances with zero rows (as MNIST's) pass: a failure needs a
    negative Rayleigh quotient, which a PSD matrix cannot have (up to the tolerance)."""
    for p, rank in [(100, 20), (300, 299), (400, 30)]:
        S = _psd(p, rank, seed, zero_features=p // 10)
        op = Covariance(S)
        assert np.array_equal(op.S, S)  # exactly symmetric input: kept bit for bit
        Covariance(S, scale=True)
        assert _smallest_rayleigh_quotient(S) >= -1e-12 * np.abs(S).max() * p
        # products in single precision (the checks' copy): the final quotient is not
        assert _smallest_rayleigh_quotient(S, low=np.triu(S).astype(np.float32)) >= -1e-12 * np.abs(S).max() * p


@pytest.mark.parametrize("p", [65, 200, 500])
def test_psd_check_rejects_one_slightly_negative_eigenvalue(p):
    """λmin ≈ −1e-3·max S_ii with every other eigenvalue in [0.3, 1]: every 2×2 minor
    is fine, the Lanczos estimate finds the direction (40 power iterations on c·I − S,
    the former estimate, do not: their Rayleigh quotient stays above 0.01)."""
    rng = np.random.default_rng(p)
    Q, _ = np.linalg.qr(rng.standard_normal((p, p)))
    S = (Q * np.r_[-5e-4, rng.uniform(0.3, 1.0, p - 1)]) @ Q.T
    S = 0.5 * (S + S.T)
    assert -2e-3 < np.linalg.eigvalsh(S)[0] / np.diag(S).max() < -5e-4
    d = np.sqrt(np.diag(S))
    assert (np.abs(S) <= np.outer(d, d) * (1 + 1e-12)).all()  # every 2×2 minor is fine
    with pytest.raises(InvalidParameterError, match="direction of variance"):
        Covariance(S)  # (its Lanczos products in single precision beyond 64 features)
    assert _smallest_rayleigh_quotient(S) < -1e-4 * np.diag(S).max()
    assert _smallest_rayleigh_quotient(S, low=np.triu(S).astype(np.float32)) < -1e-4 * np.diag(S).max()
    assert Covariance(S, check_psd=False).n_features == p


def test_minor_violation_names_the_pair():
    S = _psd(150, 149, 0)
    i, j = 17, 101
    S[i, j] = S[j, i] = 1.5 * np.sqrt(S[i, i] * S[j, j])
    with pytest.raises(InvalidParameterError, match=rf"\|S\[{i},{j}\]\| = .* exceeds sqrt"):
        Covariance(S)


def test_float64_c_input_is_kept_without_a_copy_and_never_written():
    """A float64 C-contiguous S is the operator's matrix (no copy); the checks, the
    scaling and a fit leave it unchanged; any other input is copied."""
    import eigensparse as es

    S = _psd(80, 79, 1)
    ref = S.copy()
    op = Covariance(S)
    assert op.S is S
    sd = np.sqrt(np.diag(S))
    assert np.array_equal(Covariance(S, scale=True).S, S / np.outer(sd, sd))
    es.sparse_pca(op, n_components=2, cardinality=5, random_state=0).results[0].upper_bound
    assert np.array_equal(S, ref)  # nothing wrote to the caller's array
    S32 = _psd(80, 79, 2).astype(np.float32)
    assert np.array_equal(Covariance(S32).S, S32.astype(np.float64))
    F = np.asfortranarray(_psd(80, 79, 3))
    op = Covariance(F)
    assert np.array_equal(op.S, F) and op.S.flags.c_contiguous and op.S is not F
    I = np.array([[2, 1], [1, 2]])
    assert Covariance(I).S.tolist() == [[2.0, 1.0], [1.0, 2.0]]
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(S)
    assert not np.shares_memory(Covariance(frame).S, frame.to_numpy())  # a DataFrame: copied


def test_psd_lanczos_on_the_features_of_positive_variance():
    """The Lanczos estimate on the block of the kept features is a Rayleigh quotient of
    S (zero elsewhere): never below λmin(S), and it finds a negative direction there."""
    rng = np.random.default_rng(5)
    p, keep = 120, np.sort(rng.choice(120, 100, replace=False))
    Q, _ = np.linalg.qr(rng.standard_normal((100, 100)))
    S = np.zeros((p, p))
    S[np.ix_(keep, keep)] = (Q * np.r_[-5e-4, rng.uniform(0.3, 1.0, 99)]) @ Q.T
    S = 0.5 * (S + S.T)
    low = np.triu(S[np.ix_(keep, keep)]).astype(np.float32)
    q = _smallest_rayleigh_quotient(S, low=low, keep=keep)
    assert np.linalg.eigvalsh(S)[0] - 1e-12 <= q < -1e-4
    with pytest.raises(InvalidParameterError, match="direction of variance"):
        Covariance(S)  # its 20 zero rows left out of the Lanczos steps


def test_nearly_symmetric_input_is_symmetrized_and_scaled_like_numpy():
    rng = np.random.default_rng(7)
    S = _psd(120, 119, 4)
    E = S * (1 + 1e-12 * rng.standard_normal(S.shape))  # asymmetric within rtol
    op = Covariance(E)
    assert np.array_equal(op.S, 0.5 * (E + E.T)) and np.array_equal(op.S, op.S.T)
    sd = np.sqrt(np.diag(E))
    assert np.array_equal(Covariance(E, scale=True).S, 0.5 * (E + E.T) / np.outer(sd, sd))
    with pytest.raises(InvalidParameterError, match="symmetric"):
        Covariance(S * (1 + 1e-6 * rng.standard_normal(S.shape)))


@pytest.mark.parametrize("bad, match", [
    (np.ones((3, 4)), "square"),
    (np.array([[1.0, 0.5], [0.4, 1.0]]), "symmetric"),
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), "NaN"),
    (np.array([[-1.0, 0.0], [0.0, 1.0]]), "negative diagonal"),
    (np.zeros((0, 0)), "empty|square"),
])
def test_covariance_rejects_bad_input(bad, match):
    with pytest.raises(InvalidParameterError, match=match):
        Covariance(bad)


def test_covariance_psd_check():
    S = np.array([[1.0, 2.0], [2.0, 1.0]])
    Covariance(S, check_psd=False)  # the user vouches for it
    with pytest.raises(InvalidParameterError, match="positive semidefinite"):
        Covariance(S)  # checked by default


def test_trusted_covariance_keeps_the_array_and_agrees_with_the_checked_one():
    A = np.random.default_rng(3).standard_normal((40, 12))
    S = np.ascontiguousarray(A.T @ A / 40)
    S = 0.5 * (S + S.T)
    checked, trusted = Covariance(S), Covariance.trusted(S, n_samples=40)
    assert trusted.S is S and checked.S is S  # (float64, C order, symmetric: not copied)
    assert trusted.n_samples == 40 and trusted.feature_names is None
    v = np.random.default_rng(4).standard_normal(12)
    assert np.array_equal(trusted.matvec(v), checked.matvec(v))
    assert np.array_equal(trusted.block([2, 5, 7]), checked.block([2, 5, 7]))
    assert np.array_equal(trusted.diag(), checked.diag())


@pytest.mark.parametrize("kwargs, name", [({"n_samples": -3}, "n_samples"), ({"n_samples": 2.5}, "n_samples"),
                                          ({"n_samples": True}, "n_samples"), ({"rtol": -1.0}, "rtol"),
                                          ({"scale": "yes"}, "scale"), ({"check_psd": "no"}, "check_psd"),
                                          ({"feature_names": "abc"}, "feature_names")])
def test_constructor_parameters_are_checked(kwargs, name):
    """Covariance's own parameters were taken as given: n_samples=-3 reached the
    estimator's ``n_samples_``, ``scale="yes"`` was true and a string named the features
    by its letters."""
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of Covariance"):
        Covariance(np.eye(3), **kwargs)


def test_a_scipy_sparse_covariance_is_accepted():
    """A sparse (banded, thresholded) covariance was refused as 'shape ()'."""
    import scipy.sparse as sp

    S = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 3.0]])
    op = Covariance(sp.csr_matrix(S), n_samples=10)
    np.testing.assert_array_equal(op.to_dense(), S)


@pytest.mark.parametrize("factor", [1e-150, 1e150, 1e300])
def test_a_covariance_whose_products_leave_float64_is_refused(factor):
    """Entries beyond ~1e±154 have squares outside float64: the solvers crashed in
    LAPACK (large) or returned zero variances (tiny)."""
    with pytest.raises(InvalidParameterError, match=r"parameter 'S' .* rescale it"):
        Covariance(np.array([[2.0, 0.5], [0.5, 1.0]]) * factor)


def test_products_with_sparse_vectors_read_only_their_rows():
    # from 256 features, vectors nonzero on at most a quarter of them use S[I, :]ᵀ
    rng = np.random.default_rng(5)
    A = rng.standard_normal((400, 300))
    S = A.T @ A / 400
    op = Covariance(S)
    V = np.zeros((300, 3))
    V[rng.choice(300, 40, replace=False)] = rng.standard_normal((40, 3))
    np.testing.assert_allclose(op.matmat(V), S @ V, rtol=1e-12, atol=1e-12)
    dense = rng.standard_normal((300, 2))  # dense vectors: the full product
    np.testing.assert_allclose(op.matmat(dense), S @ dense, rtol=1e-12, atol=1e-12)
    assert op.matvec(V[:, 0]).shape == (300,)
