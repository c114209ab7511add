"""The out-of-core topic engine (Zhang & El Ghaoui 2011, §4): passes and a working set
around the one dispatcher, the same for every corpus (a file streamed, a matrix in
memory, row blocks read by the workers of a Dask cluster) and every device.

1. **pass 1** (:mod:`._passes`): every word's mean, variance and document frequency,
   exactly, over whole-document chunks (memory O(W) + one chunk; on a cluster, per
   block on the workers);
2. **pruning** (:mod:`._vocabulary`, scikit-learn's ``min_df``/``max_df``/``stop_words``/
   ``max_features``) from the pass-1 document frequencies, then the **working set**
   (:func:`._working_set.select_working_set`, the one place its rule lives);
3. **pass 2**: the m × m covariance of the working set (memory O(m²) + one chunk),
   scaled to unit variances with ``scaling="unit"``, an operator of the operator layer
   (on the device with ``device=``);
4. **solve** (:func:`solve_topics`): the dispatcher (:mod:`eigensparse._dispatch`) on that
   operator with the per-topic solves of :class:`._working_set.TopicSolve`, which raise
   :class:`._working_set.GrowWorkingSet` when the working set must grow: pass 2 is
   repeated on a larger set and the dispatcher resumes from the topics found.

Memory never grows with the number of documents.
"""
from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

import numpy as np

from .._dispatch import (assemble, plan_components, progress_bar, resolve_method,
                         solve_components)
from .._result import known_info
from .._validation import InvalidParameterError
from ..io.corpus import Corpus, open_corpus
from ._documents import (is_text_source, open_text_corpus, representative_documents,
                         resolve_stop_words)
from ._config import (DEFAULT_MAX_DF, DEFAULT_MAX_TIME, DEFAULT_MIN_DF, DEFAULT_TOPIC_CARDINALITY,
                      DEFAULT_TOPIC_DEFLATION, DEFAULT_TOPIC_SCALING, PARAMETERS, SCALINGS,
                      TopicConfig)
from ._passes import (Clock, CorpusPasses, phase_line, progress_mode, word_statistics,
                      working_set_covariance)
from ._alongside import BoundsAlongside
from ._result import TopicsResult
from ._total import TotalBoundAlongside
from ._vocabulary import keep_words, pruning_limits, stop_word_set
from ._topic_bound import PENDING, certify_pending, unbounded, vocabulary_bound
from ._working_set import GrowWorkingSet, TopicBudget, TopicSolve, WorkingSet, auto_working_set

__all__ = ["extract_topics", "solve_topics", "word_statistics", "working_set_covariance",
           "SCALINGS", "DEFAULT_TOPIC_CARDINALITY", "DEFAULT_TOPIC_DEFLATION",
           "DEFAULT_TOPIC_SCALING", "DEFAULT_MIN_DF", "DEFAULT_MAX_DF", "DEFAULT_MAX_TIME"]


def extract_topics(docword, vocab=None, *, config: TopicConfig | None = None,
                   **options) -> TopicsResult:
    """Sparse principal components of a bag-of-words corpus, out of core.

    Parameters
    ----------
    docword : path-like, scipy.sparse matrix or Corpus
        A UCI ``docword.NAME.txt[.gz]`` file (streamed), a Matrix Market (``.mtx``) or
        scipy ``.npz`` file, a documents × words matrix, or an
        :class:`eigensparse.io.Corpus`. With ``client=`` a file is read by the workers
        of the cluster, block by block.
    vocab : path-like or list of str, optional
        The vocabulary (UCI ``vocab.NAME.txt``: one word per line, exactly W lines).
    config : TopicConfig, optional
        Every option below in one object; keyword options replace its fields.
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
    scaling : {"count", "binary", "log", "tfidf", "unit"}, default="tfidf"
        Values used: raw counts, 0/1 occurrence, log(1 + count), tf-idf (smooth idf,
        unit-ℓ2 documents over the whole vocabulary; needs one more pass for the
        document frequencies unless they are cached), or ``"unit"``: counts with every
        word divided by its standard deviation (correlation PCA; every word then has
        variance 1, so the working set cannot be proven by its variances and topics
        are reported as not proven). The default comes from the scaling study
        (``docs/user_guide/topics.rst``): under count scaling the most frequent words
        win and planted mid-frequency topics are not found. ``"log"`` and ``"tfidf"``
        weight counts: a matrix of non-integer values (already weighted, e.g. by
        ``TfidfVectorizer``) is refused with them; ``"count"`` uses any values as they are.
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
    max_time : float, default=2.0
        Seconds per topic, for every solve of the topic (re-reads of a growing working
        set included: each solve gets the time left): at the limit the best topic so far
        is kept, with a :class:`~eigensparse.text._bounded.TopicBudgetWarning` from the
        bounded solve (the default method and ``bca``), and passed as ``max_time`` to a
        method that takes one (e.g. ``"exact"``). ``time_budget`` is its deprecated
        name (a FutureWarning).
    refine : {"auto", True, False}, default="auto"
        The cyclic refinement after the chain of topics, as :func:`eigensparse.sparse_pca`
        (:func:`eigensparse.multi._refine.resolve_refine`).
    working_set : int, optional
        Initial working-set size m (default max(1000, 10·k·s)); enlarged when needed.
    max_working_set : int, default=4000
        Largest working set (memory 8·m² bytes).
    working_set_rule : {"partner", "variance"}, default="partner"
        Which words the working set holds (:func:`~eigensparse.text._working_set.select_working_set`):
        ``"partner"``, the words of largest variance and those of largest partner score
        (variance plus the s−1 strongest covariances, measured on the first 10,000
        documents), so that a topic of co-occurring mid-frequency words is in it, and the
        default method then searches the whole working set; ``"variance"``, the words of
        largest variance only. A penalized request always uses ``"variance"``. Either
        way each topic carries an upper bound on its problem over the whole pruned
        vocabulary (``upper_bound``, ``gap``, ``info["bound"]``).
    cache, cache_dir, verify
        Binary cache of a UCI file (see :class:`eigensparse.io.UCICorpus`): the first
        pass writes it, later passes and runs read it.
    chunk_nnz : int
        Entries per streamed chunk (memory per chunk about 40 bytes × chunk_nnz).
    n_jobs : int, default=2
        Threads for pass 2, for the topics' bounds while the chain of topics goes on
        (:class:`~eigensparse.text._alongside.BoundsAlongside`: the same bounds), and
        stability refits run at a time.
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
        sparse on the host (the passes stream it); the m × m working-set covariance is
        an operator on the device (:class:`eigensparse.operators._xp.ArrayAPICovariance`),
        solved by the same per-topic solve.
    client : dask.distributed.Client or str, optional
        Run the passes on a Dask cluster (a client or a scheduler address): the workers
        read the corpus (a file: each worker its row block; a matrix: its blocks are
        placed on the workers) and only per-block word statistics and working-set Gram
        pieces come back (:mod:`eigensparse.operators.dask.blocks`).
    cardinality_rule, cardinality_fraction
        The rule of ``cardinality="auto"``: ``"topics"`` (default: a topic-sized s in
        [5, 30], the knee of the solver's values; see :mod:`eigensparse.selection`),
        ``"fraction"`` or ``"knee"`` (``"cv"`` needs the rows of
        :func:`eigensparse.sparse_pca`).
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
    cfg = TopicConfig.from_options(config, **options).validate()
    resolved = resolve_method(cfg.method, cfg.method_options, cfg.penalty, caller="extract_topics",
                              parameters=PARAMETERS)  # fail before reading the data
    mode = progress_mode(cfg.progress)
    clock, messages = Clock(), []
    corpus = _open(docword, vocab, cfg)
    cfg = replace(cfg, stop_words=resolve_stop_words(cfg.stop_words, corpus))
    if getattr(corpus, "n_skipped", 0):
        messages.append(f"{corpus.n_skipped} empty or missing documents skipped")
        phase_line(messages[-1], mode)
    min_df, max_df = _default_pruning_for(corpus.n_docs, cfg.min_df, cfg.max_df)
    pruning = dict(min_df=min_df, max_df=max_df, stop_words=cfg.stop_words,
                   max_features=cfg.max_features)
    limits = _check_pruning(corpus, pruning)  # before any pass
    plan = plan_components(cfg.method, n_features=corpus.n_words, n_components=cfg.n_topics,
                           cardinality=cfg.cardinality, penalty=cfg.penalty,
                           deflation=cfg.deflation, options=cfg.method_options,
                           random_state=cfg.random_state, refine=cfg.refine,
                           default_cardinality=DEFAULT_TOPIC_CARDINALITY,
                           default_deflation=DEFAULT_TOPIC_DEFLATION,
                           cardinality_rule=cfg.cardinality_rule,
                           cardinality_fraction=cfg.cardinality_fraction, resolved=resolved)
    clock.lap("open")
    scaling = cfg.pass_scaling
    passes = CorpusPasses(corpus, scaling, chunk_nnz=cfg.chunk_nnz, n_jobs=cfg.n_jobs,
                          progress=mode, messages=messages)
    stats = passes.statistics()
    clock.lap("pass 1: word statistics")
    pruned = keep_words(stats["df"], limits, words=corpus.words,
                        max_features=pruning["max_features"],
                        counts=stats["s1"] if scaling == "count" else stats["df"])
    messages.append(f"vocabulary: {pruned.describe()}")
    phase_line(f"vocabulary: {pruned.describe()}", mode)
    n = corpus.n_docs
    mean = stats["s1"] / n
    var = np.maximum(stats["s2"] / n - (mean * mean if cfg.center else 0.0), 0.0)
    eligible = np.where(pruned.keep, var, 0.0)
    score, unit = eligible, None
    if cfg.scaling == "unit":  # every kept word at unit variance: a scaling of the covariance
        unit = np.sqrt(np.where(eligible > 0, eligible, 1.0))
        var = (eligible > 0).astype(float)
        eligible = var
    wset = WorkingSet(passes, eligible, mean if cfg.center else np.zeros(corpus.n_words),
                      center=cfg.center, cap=0, clock=clock, messages=messages,
                      progress=mode != "off", score=score, unit=unit, device=cfg.device,
                      config=cfg)
    m = _initial_size(wset, plan, cfg.working_set, cfg.max_working_set, corpus.name)
    if cfg.working_set_rule == "partner" and plan.penalty is None:
        smax = max([c for c in plan.cardinalities if c], default=DEFAULT_TOPIC_CARDINALITY)
        wset.rank(smax, m)
    clock.lap("screening")
    wset.load(m)
    phase_line(f"working set: {m:,} words (largest variance left out {wset.tau:.4g})", mode)
    pruning_record = {"min_df": _jsonable(min_df), "max_df": _jsonable(max_df),
                      "stop_words": _jsonable(cfg.stop_words), "max_features": cfg.max_features,
                      "kept": pruned.n_kept, "removed": dict(pruned.removed)}
    # the topics' final bounds on a pool's threads while this thread assembles the result
    # (its bound on the total among it); _result waits for them before its timings end
    with BoundsAlongside(cfg.n_jobs if cfg.device is None else 1) as final:  # host arrays
        with TotalBoundAlongside(wset, plan) as total:  # on a second thread, during the solve
            results = solve_topics(wset, plan, cfg, mode, final=final)
        clock.lap("solve")
        res = _result(corpus, plan, results, wset, passes, clock, messages, scaling=cfg.scaling,
                      center=cfg.center, mean=mean, var=var, pruning=pruning_record,
                      device=cfg.device, df=stats["df"], name=cfg.name or corpus.name,
                      cardinality_tolerance=cfg.cardinality_tolerance,
                      total_bound=total.bound(wset))
    if cfg.stability is not None:
        from ._stability import working_set_stability

        res.info["stability"] = working_set_stability(res, passes, plan,
                                                      n_resamples=cfg.stability,
                                                      n_jobs=cfg.n_jobs,
                                                      random_state=cfg.random_state)
        clock.lap("stability")
    if cfg.show_docs and hasattr(corpus, "document_snippets"):
        object.__setattr__(res, "documents",  # the frozen result, completed here
                           representative_documents(res, corpus, cfg.show_docs, cfg.chunk_nnz,
                                                    memo=passes.memo))
        clock.lap("documents")
    return res


def solve_topics(wset: WorkingSet, plan, cfg: TopicConfig, mode: str = "off", final=None) -> list:
    """The topics of ``plan`` on the working-set covariance ``wset.op``: the dispatcher's
    :func:`~eigensparse._dispatch.solve_components` with the per-topic solves of
    :class:`TopicSolve`; when one raises :class:`GrowWorkingSet` the working set is
    enlarged (pass 2 again) and the dispatcher resumes from the topics found. A joint
    method's components are checked the same way. The final topics' bounds (``_checked``)
    run on ``final``'s threads (a :class:`BoundsAlongside` the caller leaves after it has
    used the topics' other fields), else on the solve's own."""
    found: list = []
    budget = TopicBudget(cfg.max_time)
    bar = progress_bar(plan, f"topics [{plan.method}]", leave=False) if mode == "bar" else None
    try:
        while True:
            try:
                # the topics' bounds beside the chain (on the host: a device's arrays
                # stay with the thread that made them)
                with BoundsAlongside(cfg.n_jobs if wset.device is None else 1) as alongside:
                    if plan.joint:
                        out = _solve_joint(wset, plan)
                    else:
                        topic = TopicSolve(wset, plan, cfg.cardinality_tolerance,
                                           wset.passes.corpus.n_docs, budget=budget, found=found,
                                           bar=bar, mode=mode, alongside=alongside)
                        out = solve_components(wset.op, plan, solve=topic.chain,
                                               resolve=topic.refine, found=found, progress=bar,
                                               alternatives=True)
                    if final is None:
                        out = _checked(wset, plan, out, budget, alongside)
            except GrowWorkingSet as grow:
                found = wset.enlarge(grow, list(found))
                continue
            if final is not None:
                out = _checked(wset, plan, out, budget, final)
            return _to_host(wset, out)
    finally:
        if bar is not None:
            bar.close()


def _checked(wset: WorkingSet, plan, results: list, budget: TopicBudget, alongside) -> list:
    """Every component with its working-set check and its bound over the vocabulary: those
    the refinement replaced (its re-solves and alternative chains run on the working set
    as it is) are checked here, on the undeflated covariance (exact for disjoint topics),
    and keep their chain solve's record (``solve_set_sizes``, ``seconds``; ``timed_out``
    when the topic's time ran out in the chain or the refinement). A chain topic kept gets
    its pending certificate (:func:`~._topic_bound.certify_pending`): one bound per topic
    kept, none for a topic the refinement replaced. The bounds run on ``alongside``'s
    threads (:class:`~._alongside.BoundsAlongside`)."""
    n_docs = wset.passes.corpus.n_docs
    out, tasks = [], {}
    for j, r in enumerate(results):
        info = known_info(r)
        if info.get(PENDING) is not None:
            tasks[j] = (unbounded(r), partial(certify_pending, wset, r, r.cardinality,
                                              plan.deflation, n_docs))
        elif "working_set_safe" not in info:
            pen = info.get("penalty", plan.penalty)
            ok, safe, _ = wset.check(wset.op.block(r.support), pen, wset.ws.size)
            chain = budget.records.get(j, {})
            info.update({k: chain[k] for k in ("solve_set_sizes", "seconds", "capped")
                         if k in chain})
            info.update(working_set_safe=safe if ok else False, refined=True,
                        timed_out=bool(chain.get("timed_out")) or j in budget.cut)
            if plan.deflation == "disjoint" and r.cardinality:
                # the bound of the refined topic's problem: the best topic of Σ on the
                # words the other topics leave; its variance there is xᵀΣx (the re-solve
                # saw Σ Schur-deflated by the others, a lower value the bound is not about)
                others = np.zeros(wset.ws.size, dtype=bool)
                for i, q in enumerate(results):
                    if i != j:
                        others[q.support] = True
                r = unbounded(r, variance=float(wset.op.quad(r.loadings)), info=info)
                tasks[j] = (r, partial(vocabulary_bound, wset, r, wset.op, r.cardinality,
                                       plan.deflation, used=others))
            else:
                r = replace(r, info={**(r.info or {}), **info})
        out.append(r)
    # the weakest topic first: its gap, hence its certificate's work, tends to be the largest
    for j in sorted(tasks, key=lambda j: float(tasks[j][0].variance)):
        out[j] = alongside.defer(*tasks[j], words=wset.ws.size)
    return out


def _to_host(wset: WorkingSet, results: list) -> list:
    """Loadings as NumPy arrays (a device solve may return device arrays)."""
    if wset.device is None:
        return results
    from dataclasses import replace

    out = []
    for r in results:
        info = {**(r.info or {}), "device": str(wset.device)}
        out.append(replace(r, loadings=np.asarray(wset.op.to_numpy(r.loadings), dtype=float),
                           info=info))
    return out


def _solve_joint(wset: WorkingSet, plan) -> list:
    """A joint method on the working set, whose components must each pass the check."""
    from dataclasses import replace

    t0 = time.perf_counter()
    results = solve_components(wset.op, plan)
    dt = (time.perf_counter() - t0) / max(1, len(results))
    checks = [wset.check(wset.op.block(r.support), r.info.get("penalty"), wset.ws.size)
              for r in results]
    bad = [c for c in checks if not c[0]]
    if bad and wset.ws.size < wset.cap:
        raise GrowWorkingSet(wset.grow(None, wset.ws.size, 1), bad[0][2])
    out = []
    for r, (ok, safe, _) in zip(results, checks):
        info = dict(r.info or {})
        info.update(working_set_safe=safe if ok else False, seconds=dt)
        out.append(replace(r, info=info))
    return out


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


def _check_pruning(corpus, pruning: dict) -> tuple:
    """The pruning options, checked once the corpus size is known (no pass yet): the
    limits of :func:`~eigensparse.text._vocabulary.keep_words`."""
    if pruning["stop_words"] is not None:
        stop_word_set(pruning["stop_words"])
        if corpus.words is None:
            raise InvalidParameterError(
                f"parameter 'stop_words' needs the vocabulary; {corpus.name} has none "
                "(give vocab=).")
    return pruning_limits(corpus.n_docs, **pruning)


def _open(docword, vocab, cfg: TopicConfig) -> Corpus:
    scaling = cfg.scaling
    if cfg.client is not None:
        from ._cluster import cluster_corpus

        if is_text_source(docword, vocab, cfg):
            raise InvalidParameterError(
                "parameter 'client': a cluster reads count matrices and UCI files; raw "
                "documents are tokenized here (run once without client= to build the cache, "
                "or give the count matrix).")
        corpus = cluster_corpus(docword, vocab, client=cfg.client, name=cfg.name,
                                cache_dir=cfg.cache_dir, chunk_nnz=cfg.chunk_nnz)
    elif is_text_source(docword, vocab, cfg):
        corpus = open_text_corpus(docword, cfg)
    else:
        corpus = open_corpus(docword, vocab, cache=cfg.cache, cache_dir=cfg.cache_dir,
                             verify=cfg.verify)
    if not isinstance(corpus, Corpus):  # pragma: no cover
        raise InvalidParameterError("could not open the corpus.")
    if scaling in ("log", "tfidf") and not corpus.integer_counts:
        X = getattr(corpus, "X", None)
        if X is not None and X.nnz and X.data.min() < 0:
            raise InvalidParameterError(f"scaling={scaling!r} needs non-negative values; the "
                                        "matrix has negative entries.")
        raise InvalidParameterError(
            f"scaling={scaling!r} weights word counts, but {corpus.name} holds non-integer "
            "values: already weighted (e.g. read_text_documents(..., vectorizer='tfidf') or "
            f"scikit-learn's TfidfVectorizer), they would be weighted twice. Pass "
            "scaling='count' to use the values as they are, or give the raw counts.")
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


def _result(corpus, plan, results, wset, passes, clock, messages, *, scaling, center, mean, var,
            pruning, device, df, name, cardinality_tolerance=0, total_bound=None):
    """The multi-component result on all words, with the pipeline's record (per-topic
    timings in the result's row order, which :func:`assemble` decides); ``total_bound``
    (:class:`TotalBoundAlongside`'s) replaces the bound ``assemble`` computes."""
    op = wset.op
    total_variance = float(var.sum())
    words = corpus.words
    left_out = np.ones(wset.W, dtype=bool)
    left_out[wset.ws] = False
    res = assemble(op, plan, results, features=wset.ws, n_features=corpus.n_words,
                   result_type=TopicsResult, total_variance=total_variance,
                   outside=wset.var[left_out] if total_bound is None else None,
                   cardinality_tolerance=cardinality_tolerance,
                   name=name, n_docs=corpus.n_docs, n_words=corpus.n_words,
                   nnz=int(corpus.nnz), scaling=scaling, center=center,
                   word_mean=mean, word_variance=var, working_set=wset.ws,
                   working_set_sizes=wset.sizes, threshold=wset.tau, covariance=wset.S,
                   timings=clock.timings, cpu_timings=clock.cpu, passes=passes.passes,
                   rereads=wset.rereads,
                   cache={"status": getattr(corpus, "cache_status", "n/a"),
                          "directory": getattr(corpus, "cache_directory", None)},
                   messages=messages, vocabulary=words, pruning=pruning, device=device, word_df=df,
                   feature_names=None if words is None else list(words))
    if total_bound is not None and res.results:
        res.info["total_upper_bound"] = total_bound
    for r in res.results:  # the topics' bounds, computed on other threads meanwhile
        r.upper_bound
    # the branch-and-bound certificates computed (one per topic kept that needed one)
    res.info["certificate_searches"] = int(wset.certificate_searches)
    clock.lap("result: bounds on the total")  # the table's total bound (Ky Fan), the topics'
    phases = list(clock.timings.items())  # each topic's seconds below the solve
    clock.timings.clear()
    for k, v in phases:
        clock.timings[k] = v
        if k == "solve":
            for i, r in enumerate(res.results):
                clock.timings[f"  topic {i + 1}"] = float(r.info.get("seconds", 0.0))
    clock.timings["total"] = time.perf_counter() - clock.t0
    clock.cpu["total"] = time.process_time() - clock.c0
    return res

