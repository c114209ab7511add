"""Root screening of ``method="exact"`` (eigensparse.solvers._exact._screen) against brute
force: every support that beats the incumbent survives the screening."""
import itertools

import numpy as np
import pytest

from eigensparse.solvers._exact import _root_setup
from eigensparse.solvers._exact._bounds import block_lmax
from eigensparse.solvers._exact._screen import screen_root
from eigensparse.solvers._exact._search import Search


def _problem(kind, p, seed):
    rng = np.random.default_rng(seed)
    if kind == "lowrank":  # a few strong directions: the screening removes many
        W = rng.standard_normal((p, 3)) * rng.uniform(0.2, 2.0, p)[:, None]
        return W @ W.T + np.diag(rng.uniform(0.05, 0.5, p))
    X = rng.standard_normal((2 * p, p)) @ (np.eye(p) + 0.3 * rng.standard_normal((p, p)))
    C = np.cov(X, rowvar=False)
    if kind == "corr":
        d = np.sqrt(np.diag(C))
        C = C / np.outer(d, d)
    return C


@pytest.mark.parametrize("kind,seed,removes", [("lowrank", 0, True), ("lowrank", 1, False),
                                                ("corr", 1, True), ("corr", 4, True),
                                                ("cov", 3, False)])
def test_every_support_beating_the_incumbent_survives(kind, seed, removes):
    p, s = 14, 4
    S = _problem(kind, p, seed)
    sups = np.array(list(itertools.combinations(range(p), s)))
    vals = block_lmax(S, sups)
    removed_any = False
    for q in (0.5, 0.9, 0.99, 1.0):  # incumbents from weak to the optimum itself
        i = int(np.argsort(vals)[min(int(q * vals.size), vals.size - 1)])
        search = Search(S, s, float(vals[i]), sups[i], 1e-9)
        A = np.arange(p)
        _, rho = _root_setup(search, A)
        kept = set(screen_root(search, A, rho).tolist())
        removed_any |= len(kept) < p
        for sup in sups[vals > search.cut]:
            assert set(sup.tolist()) <= kept
    assert removed_any or not removes  # the removals are exercised where they happen
