"""Support stability of topics, refitting on the pipeline's working set.

Each resample's covariance is computed on the working set only: the words kept by the
pipeline's variance screening on the full corpus (chosen by variance alone, before any
topic was solved, so not biased towards the reference topics), from the working-set
columns of the resampled documents. A word's mean and variance in a resample depend on
that word's column alone, so the m × m covariance is exactly the resample's covariance
restricted to the working set; each refit then solves, from the method's own starts, the
same problem as the reference solve does (with its plan, cardinalities and deflation, a
fresh seed per resample). What is not redone per resample is the screening itself: a
word outside the working set that would enter a resample's topic is not seen (the
reference solve has the same restriction, checked by safe elimination on the full data).
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._dispatch import require_data, solve_components
from ..operators import Covariance
from ..stability import resample_stability
from ._passes import _values

__all__ = ["working_set_rows", "working_set_stability"]


def working_set_rows(passes, ws) -> sp.csr_matrix:
    """One pass: the documents × working-set matrix (values after the passes' scaling)."""
    corpus, W = passes.corpus, passes.corpus.n_words
    ws = np.asarray(ws)

    def read():
        blocks = []
        for ch in corpus.iter_chunks(chunk_nnz=passes.chunk_nnz, progress=passes.progress,
                                     desc="stability: working-set rows"):
            v = _values(ch, passes.scaling, passes.idf)
            blocks.append(sp.csr_matrix((v, ch.indices, ch.indptr), shape=(ch.n_docs, W))[:, ws])
        return sp.vstack(blocks, format="csr")

    return passes._run("stability: working-set rows", read)


def _resample_covariance(Xw, rows, center):
    """The covariance (or second moments) of the rows ``rows`` (with repeats) of ``Xw``."""
    u, counts = np.unique(rows, return_counts=True)
    Xu = Xw[u]
    w = counts / counts.sum()
    G = np.asarray((Xu.T @ sp.csr_matrix(Xu.multiply(w[:, None]))).toarray())
    if center:
        mu = np.asarray(Xu.T @ w).ravel()
        G -= np.outer(mu, mu)
    return 0.5 * (G + G.T)


def working_set_stability(result, passes, plan, *, n_resamples=20, n_jobs=None,
                          random_state=None):
    """Support stability of the topics of ``result`` (a TopicsResult) over bootstrap
    resamples of the documents, each refitted on the working set (see the module
    docstring).

    Parameters
    ----------
    result : TopicsResult
        The reference (its working set, cardinalities, centering).
    passes : CorpusPasses
        The passes over its corpus (one more pass reads the working-set columns).
    plan : Plan
        The dispatcher's plan of the reference (method, options, deflation).
    n_resamples, n_jobs, random_state
        As :func:`eigensparse.stability.support_stability`.

    Returns
    -------
    StabilityResult
    """
    ws = np.asarray(result.working_set)
    Xw = working_set_rows(passes, ws)
    cards = list(result.info["cardinalities"])
    W = result.components.shape[1]

    def refit(rows, seed):
        S = _resample_covariance(Xw, rows, result.center)
        if result.scaling == "unit":  # each word at unit variance in the resample too
            d = np.sqrt(np.diag(S))
            d[d == 0] = 1.0
            S = S / np.outer(d, d)
        sub = plan.reseeded(seed, cards)
        op = require_data(sub, Covariance(S, n_samples=rows.size), factor=True)
        comps = np.zeros((len(cards), W))
        for j, r in enumerate(solve_components(op, sub)):
            comps[j, ws] = r.loadings
        return comps

    return resample_stability(result, Xw.shape[0], refit, n_resamples=n_resamples,
                              n_jobs=n_jobs, random_state=random_state)
