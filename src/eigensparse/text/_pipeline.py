"""The out-of-core topic pipeline (Zhang & El Ghaoui 2011, §4): passes and a working
set around the one dispatcher.

1. **pass 1** (:mod:`._passes`): every word's mean, variance and document frequency,
   exactly, streamed over whole-document chunks (memory O(W) + one chunk);
2. **pruning** (:mod:`._vocabulary`, scikit-learn's ``min_df``/``max_df``/``stop_words``/
   ``max_features``) from the pass-1 document frequencies, then **screening**
   (:mod:`._working_set`): the m kept words of largest variance, exact by safe
   elimination for every penalty >= the largest variance left out;
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
from ._passes import (SCALINGS, Clock, CorpusPasses, phase_line, progress_mode, word_statistics,
                      working_set_covariance)
from ._result import TopicsResult
from ._vocabulary import prune_vocabulary, stop_word_set
from ._working_set import Enlarge, TopicSolve, WorkingSet, auto_working_set

__all__ = ["extract_topics", "word_statistics", "working_set_covariance", "SCALINGS",
           "DEFAULT_TOPIC_CARDINALITY", "DEFAULT_TOPIC_DEFLATION", "DEFAULT_TOPIC_SCALING",
           "DEFAULT_MIN_DF", "DEFAULT_MAX_DF", "DEFAULT_TIME_BUDGET"]

#: words per topic when none is given
DEFAULT_TOPIC_CARDINALITY = 5
#: distinct topics: no word in two topics
DEFAULT_TOPIC_DEFLATION = "disjoint"
#: the value scaling (centered: ``center=True``): tf-idf finds planted mid-frequency
#: topics (precision 0.96 on a 300k × 102k Zipf corpus) where counts find none
DEFAULT_TOPIC_SCALING = "tfidf"
#: vocabulary pruning (scikit-learn's meaning): words in fewer than 5 documents or in
#: more than half of them cannot enter a topic
DEFAULT_MIN_DF = 5
DEFAULT_MAX_DF = 0.5
#: seconds per topic for the bounded solve
DEFAULT_TIME_BUDGET = 2.0


def extract_topics(docword, vocab=None, *, n_topics: int = 5, cardinality=None,
                   method: str | None = None, deflation: str = DEFAULT_TOPIC_DEFLATION,
                   penalty: float | None = None, cardinality_tolerance: int = 0,
                   center: bool = True, scaling: str = DEFAULT_TOPIC_SCALING,
                   min_df=DEFAULT_MIN_DF, max_df=DEFAULT_MAX_DF, stop_words=None,
                   max_features: int | None = None, time_budget: float = DEFAULT_TIME_BUDGET,
                   working_set: int | None = None, max_working_set: int = 4000,
                   cache: bool = True, cache_dir=None, verify: str = "hash",
                   chunk_nnz: int = DEFAULT_CHUNK_NNZ, n_jobs: int = 1, random_state=0,
                   progress: bool | None = None, method_options: dict | None = None,
                   device: str | None = None, name: str | None = None,
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
    scaling : {"count", "binary", "log", "tfidf"}, default="tfidf"
        Values used: raw counts, 0/1 occurrence, log(1 + count), or tf-idf (smooth idf,
        unit-ℓ2 documents over the whole vocabulary; needs one more pass for the
        document frequencies unless they are cached). The default comes from the
        scaling study (``docs/user_guide/topics.rst``): under count scaling the most
        frequent words win and planted mid-frequency topics are not found.
    min_df, max_df : int or float, default=5 and 0.5
        Vocabulary pruning as scikit-learn's vectorizers: a word in fewer than
        ``min_df`` documents or in more than ``max_df`` documents (an int: a count; a
        float in [0, 1]: a proportion) cannot enter a topic. ``min_df=1, max_df=1.0``
        keep every word; so do the defaults on a corpus of fewer than 10 documents,
        where no word could satisfy both.
    stop_words : None, "english" or collection of str
        Words that cannot enter a topic (``"english"``: scikit-learn's list).
    max_features : int, optional
        Keep only this many words: those of largest total count (count scaling) or
        document frequency (other scalings) after the other rules.
    time_budget : float, default=2.0
        Seconds per topic for the bounded solve (the default method and ``bca``): at the
        budget the best topic so far is kept, with a
        :class:`~eigensparse.text._bounded.TopicBudgetWarning`.
    working_set : int, optional
        Initial working-set size m (default max(1000, 10·k·s)); enlarged when needed.
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
    progress : bool or None, default=None
        None: tqdm bars (per pass, and per topic with the solve-set size) when stderr is
        a terminal, else one log line per phase on stderr (never a bar in a file or a
        pipe); True: bars; False: nothing.
    method_options : dict, optional
        Extra options for the solver. With the penalty search of a penalized method the
        method's optimality certificate is skipped unless ``{"certify": True}``.
    name : str, optional
        The corpus name in the table's title, the plots and the JSON (default: the file
        name, or ``"matrix"`` for a matrix in memory).
    device : str, optional
        Solve on this array-API device (``"cuda"``; PyTorch or CuPy). The corpus stays
        sparse on the host (the passes stream it); only the m × m working-set
        covariance moves to the device, as a square-root factor the method's solves
        run on (no working-set checks: ``working_set_safe`` is None).
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

    Examples
    --------
    >>> from eigensparse.datasets import load_kos
    >>> from eigensparse.text import extract_topics
    >>> kos = load_kos()  # or the paths of a UCI docword/vocab pair, streamed
    >>> res = extract_topics(kos.data, kos.feature_names, n_topics=2, cardinality=4, progress=False)
    >>> [t.cardinality for t in res.topics], len({w for t in res.topics for w in t.words})
    ([4, 4], 8)
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
         "progress": [None, bool], "penalty": [None, Interval("real", 0, None)],
         "method": [None, str], "verify": [Options(("hash", "stat"))],
         "cardinality_tolerance": Interval("int", 0, None), "deflation": [Options(DEFLATIONS)],
         "stability": [None, Interval("int", 2, None)]},
        where="extract_topics")
    validate_params({"time_budget": time_budget, "device": device, "name": name},
                    {"time_budget": Interval("real", 0, None, "neither"),
                     "device": [None, str], "name": [None, str]}, where="extract_topics")
    resolve_method(method, method_options, penalty)  # fail before reading the data
    mode = progress_mode(progress)
    clock, messages = Clock(), []
    corpus = _open(docword, vocab, scaling, cache=cache, cache_dir=cache_dir, verify=verify)
    min_df, max_df = _default_pruning_for(corpus.n_docs, min_df, max_df)
    pruning = dict(min_df=min_df, max_df=max_df, stop_words=stop_words, max_features=max_features)
    _check_pruning(corpus, pruning)  # before any pass
    plan = plan_components(method, n_features=corpus.n_words, n_components=n_topics,
                           cardinality=cardinality, penalty=penalty, deflation=deflation,
                           options=method_options, random_state=random_state,
                           default_cardinality=DEFAULT_TOPIC_CARDINALITY,
                           default_deflation=DEFAULT_TOPIC_DEFLATION,
                           cardinality_rule=cardinality_rule,
                           cardinality_fraction=cardinality_fraction)
    clock.lap("open")
    passes = CorpusPasses(corpus, scaling, chunk_nnz=chunk_nnz, n_jobs=n_jobs, progress=mode,
                          messages=messages)
    stats = passes.statistics()
    clock.lap("pass 1: word statistics")
    pruned = prune_vocabulary(stats["df"], corpus.n_docs, words=corpus.words,
                              counts=stats["s1"] if scaling == "count" else stats["df"], **pruning)
    messages.append(f"vocabulary: {pruned.describe()}")
    phase_line(f"vocabulary: {pruned.describe()}", mode)
    n = corpus.n_docs
    mean = stats["s1"] / n
    var = np.maximum(stats["s2"] / n - (mean * mean if center else 0.0), 0.0)
    eligible = np.where(pruned.keep, var, 0.0)
    wset = WorkingSet(passes, eligible, mean if center else np.zeros(corpus.n_words),
                      center=center, cap=0, clock=clock, messages=messages, progress=mode != "off")
    m = _initial_size(wset, plan, working_set, max_working_set, corpus.name)
    if plan.penalty is None:  # topics-search: the working set by partner scores
        from ._screen import select_working_set

        smax = max([c for c in plan.cardinalities if c], default=DEFAULT_TOPIC_CARDINALITY)
        wset.order = select_working_set(passes, eligible, m, smax).order
    clock.lap("screening")
    wset.load(m)
    phase_line(f"working set: {m:,} words (largest variance left out {wset.tau:.4g})", mode)
    if device is not None:
        results = _solve_on_device(wset, plan, n, device)
    else:
        results = _solve(wset, plan, cardinality_tolerance, n, mode, time_budget)
    clock.lap("solve")
    pruning_record = {"min_df": _jsonable(min_df), "max_df": _jsonable(max_df),
                      "stop_words": _jsonable(stop_words), "max_features": max_features,
                      "kept": pruned.n_kept, "removed": dict(pruned.removed)}
    res = _result(corpus, plan, results, wset, passes, clock, messages, scaling=scaling,
                  center=center, mean=mean, var=var, pruning=pruning_record, device=device,
                  df=stats["df"], name=name or corpus.name)
    if stability is not None:
        from ._stability import working_set_stability

        res.info["stability"] = working_set_stability(res, passes, plan, n_resamples=stability,
                                                      n_jobs=n_jobs, random_state=random_state)
        clock.lap("stability")
    return res


def _jsonable(v):
    if v is None or isinstance(v, (int, float, str)):
        return v
    return sorted(str(w) for w in v)


def _default_pruning_for(n_docs: int, min_df, max_df):
    """The default document-frequency bounds, or none on a corpus too small for them (fewer
    than ``DEFAULT_MIN_DF / DEFAULT_MAX_DF`` documents, where no word could pass both)."""
    too_small = DEFAULT_MAX_DF * n_docs < DEFAULT_MIN_DF
    if too_small and (min_df, max_df) == (DEFAULT_MIN_DF, DEFAULT_MAX_DF):
        return 1, 1.0
    return min_df, max_df


def _check_pruning(corpus, pruning: dict) -> None:
    """The pruning options, checked once the corpus size is known (no pass yet)."""
    if pruning["stop_words"] is not None:
        stop_word_set(pruning["stop_words"])
        if corpus.words is None:
            raise InvalidParameterError(
                f"parameter 'stop_words' needs the vocabulary; {corpus.name} has none "
                "(give vocab=).")
    empty = np.zeros(0, dtype=np.int64)
    prune_vocabulary(empty, corpus.n_docs, words=[], counts=empty, **pruning)


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
        raise InvalidParameterError(f"{name}: every word kept by the pruning (min_df, max_df, "
                                    "stop_words, max_features) has zero variance.")
    if smax > n_pos:
        raise InvalidParameterError(
            f"parameter 'cardinality' ({smax}) exceeds the number of words with positive "
            f"variance kept by the pruning ({n_pos}; relax min_df/max_df).")
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


def _solve_on_device(wset: WorkingSet, plan, n: int, device: str) -> list:
    """The dispatcher on the device: the m × m working-set covariance moved there as a
    square-root factor R (Σ = RᵀR/m), the corpus never (it stays sparse on the host)."""
    from ..operators._xp import ArrayAPIData, to_device

    w, V = np.linalg.eigh(wset.S)
    m = w.size
    R = (V * np.sqrt(np.clip(w, 0.0, None) * m)).T  # rows: Σ = RᵀR / m
    op = ArrayAPIData(to_device(R, device), center=False)
    out = []
    for r in solve_components(op, plan):
        info = dict(r.info or {})
        info.update(working_set_safe=None, device=str(device))
        out.append(replace(r, loadings=np.asarray(op.to_numpy(r.loadings), dtype=float),
                           info=info))
    return out


def _solve(wset: WorkingSet, plan, tolerance: int, n: int, mode: str, time_budget: float) -> list:
    """The dispatcher on the working-set covariance, enlarging the set when asked."""
    found: list = []
    bar = progress_bar(plan, f"topics [{plan.method}]", leave=False) if mode == "bar" else None
    solver = TopicSolve(wset, plan, tolerance, found, n, time_budget=time_budget, bar=bar,
                        mode=mode)
    try:
        while True:
            op = wset.op
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


def _result(corpus, plan, results, wset, passes, clock, messages, *, scaling, center, mean, var,
            pruning, device, df, name):
    """The multi-component result on all words, with the pipeline's record (per-topic
    timings in the result's row order, which :func:`assemble` decides)."""
    op = wset.op
    total_variance = float(var.sum())
    words = corpus.words
    res = assemble(op, plan, results, features=wset.ws, n_features=corpus.n_words,
                   result_type=TopicsResult, total_variance=total_variance,
                   name=name, n_docs=corpus.n_docs, n_words=corpus.n_words,
                   nnz=int(corpus.nnz), scaling=scaling, center=center,
                   word_mean=mean, word_variance=var, working_set=wset.ws,
                   working_set_sizes=wset.sizes, threshold=wset.tau, covariance=wset.S,
                   timings=clock.timings, passes=passes.passes, rereads=wset.rereads,
                   cache={"status": getattr(corpus, "cache_status", "n/a"),
                          "directory": getattr(corpus, "cache_directory", None)},
                   messages=messages, vocabulary=words, pruning=pruning, device=device, word_df=df,
                   feature_names=None if words is None else list(words))
    for i, r in enumerate(res.results):
        clock.timings[f"  topic {i + 1}"] = float(r.info.get("seconds", 0.0))
    clock.timings["total"] = time.perf_counter() - clock.t0
    return res
