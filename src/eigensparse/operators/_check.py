"""A self-consistency test that every operator back-end must pass."""
from __future__ import annotations

import numpy as np

from .._validation import InvalidParameterError
from ._base import Operator
from ._xp import to_numpy

__all__ = ["check_operator"]


def _host(a) -> np.ndarray:
    return to_numpy(a, np.float64) if not isinstance(a, np.ndarray) else a.astype(float)


def _rel(a, b) -> float:
    a, b = _host(a), _host(b)
    return float(np.abs(a - b).max(initial=0.0) / max(np.abs(a).max(initial=0.0),
                                                       np.abs(b).max(initial=0.0), 1e-300))


def _symmetric_products(op, X, Y, E, idx, d):
    """Σ symmetric, matvec/quad consistent with matmat, diag/columns/block/restrict/trace
    consistent with Σ applied to unit vectors."""
    SX, SY, SE = _host(op.matmat(X)), _host(op.matmat(Y)), _host(op.matmat(E))
    R = op.restrict(idx)
    W = np.random.default_rng(1).standard_normal((idx.size, 2))
    EW = np.zeros((op.n_features, 2))
    EW[idx] = W
    return {
        "dot test x·(Σy) = (Σx)·y": _rel(X.T @ SY, SX.T @ Y),
        "matvec = matmat[:, 0]": _rel(op.matvec(X[:, 0]), SX[:, 0]),
        "quad = diag(XᵀΣX)": _rel(op.quad(X), np.einsum("ij,ij->j", X, SX)),
        "diag = Σ e_i at i": _rel(d[idx], SE[idx, np.arange(idx.size)]),
        "columns = Σ e_i": _rel(op.columns(idx), SE),
        "block = (Σ e_i)[idx]": _rel(op.block(idx), SE[idx]),
        "restrict: matmat": _rel(R.matmat(W), _host(op.matmat(EW))[idx]),
        "restrict: diag": _rel(R.diag(), d[idx]),
        "restrict: block": _rel(R.block(np.arange(idx.size)), SE[idx]),
        "trace = sum(diag)": _rel(np.array([op.trace()]), np.array([d.sum()])),
    }


def _data_products(op, X, rng):
    """A = the data square root: adjoint dot test (Ax)·z = x·(Aᵀz), and AᵀA = Σ."""
    Z = rng.standard_normal((int(op.n_samples), X.shape[1]))
    AX, AtZ = _host(op.dot(X)), _host(op.rdot(Z))
    return {
        "adjoint (Ax)·z = x·(Aᵀz)": _rel(AX.T @ Z, X.T @ AtZ),
        "rdot(dot(x)) = Σx": _rel(op.rdot(op.dot(X)), op.matmat(X)),
        "dot(x)[:, 0] = dot(x[:, 0])": _rel(op.dot(X[:, 0]), AX[:, 0]),
    }


def check_operator(op: Operator, *, rtol: float = 1e-10, n_vectors: int = 3, n_indices: int = 5,
                   random_state=0) -> dict:
    """Check that an operator's products agree with each other; raise on the first failure.

    Tests, with random X, Y (p × ``n_vectors``) and ``n_indices`` random features I:
    the dot test x·(Σy) = (Σx)·y; ``matvec``/``quad`` against ``matmat``; ``diag``,
    ``columns`` and ``block`` against Σ applied to the unit vectors e_i, i ∈ I;
    ``restrict(I)`` (its matmat, diag and block) against Σ; ``trace`` = Σ diag. For an
    operator with a data square root A (``has_data``): the adjoint dot test
    (Ax)·z = x·(Aᵀz), AᵀA = Σ through ``rdot(dot(x))``, and ``dot`` on a vector.

    Parameters
    ----------
    op : Operator
        The operator under test (any back-end: results on a device are copied to the host).
    rtol : float, default=1e-10
        Largest relative difference max|a − b| / max(|a|, |b|) accepted by every check
        (use about 1e-5 for float32 back-ends).
    n_vectors, n_indices : int
        Number of random vectors and of random features I.
    random_state : int or numpy.random.Generator

    Returns
    -------
    dict
        The relative difference of each check, by name.

    Raises
    ------
    AssertionError
        Naming every check above ``rtol`` and its difference.

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import DenseData
    >>> from eigensparse.operators import check_operator
    >>> diffs = check_operator(DenseData(np.random.default_rng(0).standard_normal((30, 5))))
    >>> all(d < 1e-10 for d in diffs.values())
    True
    """
    if not isinstance(op, Operator):
        raise InvalidParameterError(
            f"check_operator: parameter 'op' must be an eigensparse Operator; got "
            f"{type(op).__name__}.")
    rng = np.random.default_rng(random_state)
    p = int(op.n_features)
    X = rng.standard_normal((p, n_vectors))
    Y = rng.standard_normal((p, n_vectors))
    idx = rng.choice(p, size=min(n_indices, p), replace=False)
    E = np.zeros((p, idx.size))
    E[idx, np.arange(idx.size)] = 1.0
    d = _host(op.diag())
    errors = _symmetric_products(op, X, Y, E, idx, d)
    if op.has_data and op.n_samples is not None:
        errors.update(_data_products(op, X, rng))
    bad = {k: v for k, v in errors.items() if not v <= rtol}
    if bad:
        raise AssertionError(f"{type(op).__name__} fails check_operator (rtol={rtol:g}): "
                             + "; ".join(f"{k}: {v:.3g}" for k, v in bad.items()))
    return errors
