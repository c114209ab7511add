"""The out-of-core topic pipeline (Zhang & El Ghaoui 2011, §4): passes and a working
set around the one dispatcher.

1. **pass 1** (:mod:`._passes`): every word's mean and variance, exactly, streamed
   over whole-document chunks (memory O(W) + one chunk);
2. **screening** (:mod:`._working_set`): the m words of largest variance, exact by
   safe elimination for every penalty >= the largest variance left out;
3. **pass 2**: the m × m covariance of the working set (memory O(m²) + one chunk);
4. **solve**: the dispatcher (:mod:`eigensparse._dispatch`) resolves the method, the
   cardinalities and the options, and runs the deflation loop or the joint method on
   the working-set covariance, with the working set's per-component solve; when the
   working set is too small it is enlarged and pass 2 repeated (``rereads``).

Memory never grows with the number of documents.
"""
from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from .._dispatch import (assemble, plan_components, progress_bar, resolve_method,
                         solve_components)
from .._validation import InvalidParameterError, Interval, Options, validate_params
from ..io.corpus import Corpus, open_corpus
from ..io.uci import DEFAULT_CHUNK_NNZ
from ..multi import DEFLATIONS
from ..operators import Covariance
from ._passes import SCALINGS, Clock, CorpusPasses, word_statistics, working_set_covariance
from ._result import TopicsResult
from ._working_set import Enlarge, TopicSolve, WorkingSet, auto_working_set

__all__ = ["extract_topics", "word_statistics", "working_set_covariance", "SCALINGS",
           "DEFAULT_TOPIC_CARDINALITY", "DEFAULT_TOPIC_DEFLATION"]

#: words per topic when none is given
DEFAULT_TOPIC_CARDINALITY = 5
#: distinct topics: no word in two topics
DEFAULT_TOPIC_DEFLATION = "disjoint"


def extract_topics(docword, vocab=None, *, n_topics: int = 5, cardinality=None,
                   method: str | None = None, deflation: str = DEFAULT_TOPIC_DEFLATION,
                   penalty: float | None = None, cardinality_tolerance: int = 0,
                   center: bool = True, scaling: str = "count", working_set: int | None = None,
                   max_working_set: int = 4000, cache: bool = True, cache_dir=None,
                   verify: str = "hash", chunk_nnz: int = DEFAULT_CHUNK_NNZ, n_jobs: int = 1,
                   random_state=0, progress: bool = True, method_options: dict | None = None,
                   cardinality_rule: str = "fraction", cardinality_fraction: float = 0.9,
                   stability: int | None = None) -> TopicsResult:
    """Sparse principal components of a bag-of-words corpus, out of core.

    Parameters
    ----------
    docword : path-like, scipy.sparse matrix or Corpus
        A UCI ``docword.NAME.txt[.gz]`` file (streamed), a Matrix Market (``.mtx``) or
        scipy ``.npz`` file, a documents × words matrix, or an
        :class:`eigensparse.io.Corpus`.
    vocab : path-like or list of str, optional
        The vocabulary (UCI ``vocab.NAME.txt``: one word per line, exactly W lines).
    n_topics : int, default=5
    cardinality : int, list of int or "auto", default=None
        Exact words per topic; None means 5, or, when ``penalty`` is given, a
        penalty-only solve; ``"auto"``: chosen per topic by ``cardinality_rule`` on the
        working-set covariance (as :func:`eigensparse.sparse_pca`).
    method : str, optional
        Any name of the method registry (``eigensparse methods``); default: the
        registry's single default (:data:`eigensparse.registry.DEFAULT_METHOD`).
        Resolved, with the cardinalities and options, by the dispatcher
        (:func:`eigensparse._dispatch.plan_components`), as for :func:`sparse_pca`.
    deflation : {"disjoint", "schur", "projection", "orthogonal", "hotelling"}, default="disjoint"
        Between topics; the default gives distinct topics (no word in two topics).
    penalty : float, optional
        Solve the penalized problem at this ρ (penalized methods): the working set is
        then every word with variance > ρ, exact by safe elimination.
    cardinality_tolerance : int, optional
        For penalized methods (``bca``, ``dspca``): accept a component whose cardinality
        is within this many words of the target, found by a coarse penalty search over
        the sorted (deflated) word variances — each trial penalty ρ eliminates every
        word of variance <= ρ first, so trials are small — as in the paper (§4: "we
        might end up accepting a solution with cardinality close, but not necessarily
        equal to, 5"). Default 0: the method's own search for the exact cardinality.
        Other methods always give the exact cardinality.
    center : bool, default=True
        Center the words (covariance); False gives the second-moment matrix XᵀX/n.
    scaling : {"count", "binary", "log", "tfidf"}, default="count"
        Values used: raw counts, 0/1 occurrence, log(1 + count), or tf-idf (smooth idf,
        unit-ℓ2 documents; needs one more pass for the document frequencies unless
        they are cached).
    working_set : int, optional
        Initial working-set size m (default max(300, 10·k·s)); enlarged when needed.
    max_working_set : int, default=4000
        Largest working set (memory 8·m² bytes).
    cache, cache_dir, verify
        Binary cache of a UCI file (see :class:`eigensparse.io.UCICorpus`): the first
        pass writes it, later passes and runs read it.
    chunk_nnz : int
        Entries per streamed chunk (memory per chunk about 40 bytes × chunk_nnz).
    n_jobs : int, default=1
        Threads for pass 2.
    random_state : int, None or Generator
        Seeds the solvers.
    progress : bool, default=True
        tqdm bars on every pass and over the topics; messages (re-reads) on stderr.
    method_options : dict, optional
        Extra options for the solver. With the penalty search of a penalized method the
        method's optimality certificate is skipped unless ``{"certify": True}``.
    cardinality_rule, cardinality_fraction
        The rule of ``cardinality="auto"`` (``"fraction"`` or ``"knee"``; ``"cv"`` needs
        the rows of :func:`eigensparse.sparse_pca`).
    stability : int, optional
        Support stability over this many bootstrap resamples of the documents, refitted
        on the working set (``n_jobs`` refits at a time), in ``info["stability"]``
        (:func:`eigensparse.text._stability.working_set_stability`).

    Returns
    -------
    TopicsResult
        The multi-component result (:class:`eigensparse.SparsePCAResult`, components
        on all ``n_words`` words) with the words and the pipeline's record.
    """
    validate_params(
        {"n_topics": n_topics, "center": center, "scaling": scaling,
         "working_set": working_set, "max_working_set": max_working_set, "cache": cache,
         "chunk_nnz": chunk_nnz, "n_jobs": n_jobs, "progress": progress, "penalty": penalty,
         "method": method, "verify": verify, "cardinality_tolerance": cardinality_tolerance,
         "deflation": deflation, "stability": stability},
        {"n_topics": Interval("int", 1, None), "center": [bool], "scaling": [Options(SCALINGS)],
         "working_set": [None, Interval("int", 1, None)],
         "max_working_set": Interval("int", 1, None), "cache": [bool],
         "chunk_nnz": Interval("int", 1, None), "n_jobs": Interval("int", 1, 64),
         "progress": [bool], "penalty": [None, Interval("real", 0, None)],
         "method": [None, str], "verify": [Options(("hash", "stat"))],
         "cardinality_tolerance": Interval("int", 0, None), "deflation": [Options(DEFLATIONS)],
         "stability": [None, Interval("int", 2, None)]},
        where="extract_topics")
    resolve_method(method, method_options, penalty)  # fail before reading the data
    clock, messages = Clock(), []
    corpus = _open(docword, vocab, scaling, cache=cache, cache_dir=cache_dir, verify=verify)
    clock.lap("open")
    passes = CorpusPasses(corpus, scaling, chunk_nnz=chunk_nnz, n_jobs=n_jobs, progress=progress,
                          messages=messages)
    stats = passes.statistics()
    clock.lap("pass 1: word statistics")
    plan = plan_components(method, n_features=corpus.n_words, n_components=n_topics,
                           cardinality=cardinality, penalty=penalty, deflation=deflation,
                           options=method_options, random_state=random_state,
                           default_cardinality=DEFAULT_TOPIC_CARDINALITY,
                           default_deflation=DEFAULT_TOPIC_DEFLATION,
                           cardinality_rule=cardinality_rule,
                           cardinality_fraction=cardinality_fraction)
    n = corpus.n_docs
    mean = stats["s1"] / n
    var = np.maximum(stats["s2"] / n - (mean * mean if center else 0.0), 0.0)
    wset = WorkingSet(passes, var, mean if center else np.zeros(corpus.n_words), center=center,
                      cap=0, clock=clock, messages=messages, progress=progress)
    m = _initial_size(wset, plan, working_set, max_working_set, corpus.name)
    clock.lap("screening")
    wset.load(m)
    results = _solve(wset, plan, cardinality_tolerance, n, progress)
    clock.lap("solve")
    res = _result(corpus, plan, results, wset, passes, clock, messages, scaling=scaling,
                  center=center, mean=mean, var=var)
    if stability is not None:
        from ._stability import working_set_stability

        res.info["stability"] = working_set_stability(res, passes, plan, n_resamples=stability,
                                                      n_jobs=n_jobs, random_state=random_state)
        clock.lap("stability")
    return res


def _open(docword, vocab, scaling, **kw) -> Corpus:
    corpus = open_corpus(docword, vocab, **kw)
    if not isinstance(corpus, Corpus):  # pragma: no cover
        raise InvalidParameterError("could not open the corpus.")
    if scaling in ("log", "tfidf") and not corpus.integer_counts:
        X = getattr(corpus, "X", None)
        if X is not None and X.nnz and X.data.min() < 0:
            raise InvalidParameterError(f"scaling={scaling!r} needs non-negative values; the "
                                        "matrix has negative entries.")
    if corpus.nnz == 0:
        raise InvalidParameterError(f"{corpus.name}: the corpus has no nonzero entries.")
    return corpus


def _initial_size(wset: WorkingSet, plan, working_set, max_working_set, name) -> int:
    """The first working-set size (and its cap), checked against the word variances."""
    var, cards, penalty = wset.var, plan.cardinalities, plan.penalty
    n_pos = int(np.count_nonzero(var > 0))
    smax = max([c for c in cards if c is not None], default=1)
    if n_pos == 0:
        raise InvalidParameterError(f"{name}: every word has zero variance.")
    if smax > n_pos:
        raise InvalidParameterError(
            f"parameter 'cardinality' ({smax}) exceeds the number of words with positive "
            f"variance ({n_pos}).")
    if plan.deflation == "disjoint" and sum(c for c in cards if c is not None) > n_pos:
        raise InvalidParameterError(
            f"deflation='disjoint' needs sum(cardinality) <= {n_pos} words with positive variance.")
    wset.cap = min(max_working_set, n_pos)
    if penalty is None or not all(c is None for c in cards):
        m = working_set if working_set is not None else auto_working_set(len(cards), smax)
        m = max(m, 2 * smax if plan.deflation != "disjoint" else sum(filter(None, cards)) + smax)
        return min(m, wset.cap)
    m = int(np.count_nonzero(var > penalty))
    if m == 0:
        raise InvalidParameterError(
            f"parameter 'penalty' ({penalty:g}) is >= every word variance (max {var.max():.4g}): "
            "safe elimination removes every word.")
    if m > max_working_set:
        raise InvalidParameterError(
            f"penalty {penalty:g} keeps {m} words, more than max_working_set={max_working_set}; "
            "raise the penalty or max_working_set.")
    return m


def _solve(wset: WorkingSet, plan, tolerance: int, n: int, progress: bool) -> list:
    """The dispatcher on the working-set covariance, enlarging the set when asked."""
    found: list = []
    solver = TopicSolve(wset, plan, tolerance, found, n)
    bar = progress_bar(plan, f"solve [{plan.method}]", leave=False) if progress else None
    try:
        while True:
            op = Covariance(wset.S, n_samples=n)
            try:
                if not plan.joint:
                    return solve_components(op, plan, solve=solver, found=found, progress=bar)
                return _solve_joint(wset, plan, op)
            except Enlarge as e:
                found[:] = wset.enlarge(e.new_m, e.why, e.label, found)
                solver.reset()
    finally:
        if bar is not None:
            bar.close()


def _solve_joint(wset: WorkingSet, plan, op) -> list:
    """A joint method on the working set, whose components must each pass the check."""
    t0 = time.perf_counter()
    results = solve_components(op, plan)
    dt = (time.perf_counter() - t0) / max(1, len(results))
    checks = [wset.check(r.support, r.info.get("penalty"), wset.ws.size, wset.S) for r in results]
    bad = [c for c in checks if not c[0]]
    if bad and wset.ws.size < wset.cap:
        raise Enlarge(wset.grow(None, wset.ws.size, 1), bad[0][2])
    out = []
    for r, (ok, safe, _) in zip(results, checks):
        info = dict(r.info or {})
        info.update(working_set_safe=safe if ok else False, seconds=dt)
        out.append(replace(r, info=info))
    return out


def _result(corpus, plan, results, wset, passes, clock, messages, *, scaling, center, mean, var):
    """The multi-component result on all words, with the pipeline's record."""
    for i, r in enumerate(results):
        clock.timings[f"  topic {i + 1}"] = float(r.info.get("seconds", 0.0))
    clock.timings["total"] = time.perf_counter() - clock.t0
    op = Covariance(wset.S, n_samples=corpus.n_docs)
    total_variance = float(var.sum())
    words = corpus.words
    res = assemble(op, plan, results, features=wset.ws, n_features=corpus.n_words,
                   result_type=TopicsResult, total_variance=total_variance,
                   name=corpus.name, n_docs=corpus.n_docs, n_words=corpus.n_words,
                   nnz=int(corpus.nnz), scaling=scaling, center=center,
                   word_mean=mean, word_variance=var, working_set=wset.ws,
                   working_set_sizes=wset.sizes, threshold=wset.tau, covariance=wset.S,
                   timings=clock.timings, passes=passes.passes, rereads=wset.rereads,
                   cache={"status": getattr(corpus, "cache_status", "n/a"),
                          "directory": getattr(corpus, "cache_directory", None)},
                   messages=messages, vocabulary=words,
                   feature_names=None if words is None else list(words))
    return res
