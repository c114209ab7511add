"""Exhaustive search (``solvers/_exhaustive.py``): the naive optimum over every support,
across batches, and a clear refusal of problems too big to enumerate."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from eigensparse._validation import InvalidParameterError
from eigensparse.operators import Covariance, DenseData
from eigensparse.solvers import _exhaustive
from eigensparse.solvers._exhaustive import exhaustive


def run(method, op, s, **kw):
    assert method == "exhaustive"
    return exhaustive(op, s, **kw)


def exhaustive_reference(S, s):
    """Naive optimum over all supports of size s (independent of the solver)."""
    return max(np.linalg.eigvalsh(S[np.ix_(I, I)])[-1]
               for I in map(list, itertools.combinations(range(S.shape[0]), s)))


def test_exhaustive_refuses_huge_problems():
    op = Covariance(np.eye(100))
    with pytest.raises(InvalidParameterError, match="cardinality") as exc:
        run("exhaustive", op, 10)
    assert "n_features" in str(exc.value) and "max_supports" in str(exc.value)
    with pytest.raises(InvalidParameterError, match="max_supports"):
        run("exhaustive", Covariance(np.eye(12)), 6, max_supports=100)
    assert run("exhaustive", Covariance(np.eye(12)), 6, max_supports=924).n_iter == 924


def test_exhaustive_batches(monkeypatch):
    """A problem spanning several batches of supports gives the naive optimum."""
    monkeypatch.setattr(_exhaustive, "_BATCH_ENTRIES", 64 * 1000)  # 1000 supports a batch
    rng = np.random.default_rng(5)
    A = rng.standard_normal((15, 16))
    op = DenseData(A)
    res = run("exhaustive", op, 8)  # 12870 supports
    assert res.info["n_supports"] == 12870
    assert res.variance == pytest.approx(exhaustive_reference(op.to_dense(), 8), rel=1e-12)
