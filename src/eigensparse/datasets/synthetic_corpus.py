"""A NYTimes-scale synthetic bag-of-words corpus with planted topics.

:func:`make_synthetic_corpus` writes a UCI ``docword``/``vocab`` pair whose statistics
resemble a news collection (shaped like the UCI NYTimes set used by Zhang & El Ghaoui
2011, §4): 300,000 documents × 102,660 words and about 70 million
nonzeros by default.

The model, per document d:

- a length L_d drawn from a log-normal law (news articles: median about 300 tokens,
  a long right tail), background tokens drawn from a Zipf–Mandelbrot law
  p_r ∝ (r + q)^(−a) over the vocabulary ranks;
- planted topics: document d is "about" topic k with probability π_k (independently);
  then each word j of topic k gets Poisson(μ_k · L_d / L̄) extra occurrences, so the
  words of a topic co-occur. Topic words sit among the frequent words (but not at the
  very top), as content words do in a stop-word-free vocabulary.

Everything is vectorised and compiled (numba): tokens are drawn by the alias method,
counted per document with a scratch array, formatted to ASCII by a compiled kernel,
and compressed in parallel as independent gzip members (a valid ``.gz``; every gzip
reader concatenates members). Memory is bounded by ``chunk_docs``.
"""
from __future__ import annotations

from numbers import Integral, Real

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from .._validation import Interval, InvalidParameterError, StrOptions, validate_params
from ._corpus_kernels import CorpusLaw, _alias_table, chunk_entries, gzip_member

__all__ = ["SyntheticCorpus", "make_synthetic_corpus", "make_zipf_corpus", "topic_precision",
           "PLANTED_TOPICS", "ZIPF_CORPUS_DEFAULTS", "HIDDEN_TOPICS_DEFAULTS",
           "PUBMED_CORPUS_DEFAULTS"]

#: the five topics of Table 1 of Zhang & El Ghaoui (2011), used as the first planted
#: topics (further topics get generated names)
PLANTED_TOPICS = (
    ("business", ("million", "percent", "business", "company", "market", "companies")),
    ("sports", ("point", "play", "team", "season", "game")),
    ("u.s.", ("official", "government", "united_states", "u_s", "attack")),
    ("politics", ("president", "campaign", "bush", "administration")),
    ("education", ("school", "program", "children", "student")),
)

_SYLLABLES = ("ba", "ko", "ri", "ten", "mo", "la", "su", "der", "vi", "an", "po", "ly", "ce",
              "ra", "mi", "no", "gar", "te", "zu", "lo", "pe", "sin", "da", "fo")


@dataclass
class SyntheticCorpus:
    """What :func:`make_synthetic_corpus` wrote, and the planted truth.

    Examples
    --------
    >>> import tempfile
    >>> from eigensparse.datasets import make_synthetic_corpus
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     corpus = make_synthetic_corpus(tmp, n_docs=500, n_words=1000, nnz_per_doc=20)
    >>> corpus.n_docs, corpus.n_words, corpus.topic_names[:2], len(corpus.topics[0])
    (500, 1000, ['business', 'sports'], 6)
    """

    docword: str
    vocab: str
    n_docs: int
    n_words: int
    nnz: int
    #: planted topics: sorted 0-based word indices of each topic
    topics: list
    topic_names: list
    topic_words: list
    seconds: float = 0.0
    params: dict = field(default_factory=dict)


def _word_names(n_words: int, reserved: set) -> list[str]:
    """Deterministic pronounceable pseudo-words, unique and distinct from ``reserved``."""
    S = len(_SYLLABLES)
    out, seen = [], set(reserved)
    i = 0
    while len(out) < n_words:
        j, parts = i, []
        while True:
            parts.append(_SYLLABLES[j % S])
            j //= S
            if j == 0:
                break
        w = "".join(parts)
        i += 1
        if w in seen:
            continue
        seen.add(w)
        out.append(w)
    return out


def _zipf_probabilities(n_words, exponent, offset, tail_exponent=None, tail_rank=None):
    """p_r ∝ (r + offset)^(−exponent); with ``tail_exponent``, beyond ``tail_rank`` the
    law continues with that steeper exponent (the two regimes of large corpora, Ferrer i
    Cancho & Solé 2001), which makes the rarest words seen in a handful of documents."""
    r = np.arange(1, n_words + 1, dtype=float)
    p = (r + offset) ** (-exponent)
    if tail_exponent is not None and tail_rank is not None and tail_rank < n_words:
        b = float(tail_rank) + offset
        tail = r + offset > b
        p[tail] *= ((r[tail] + offset) / b) ** (exponent - tail_exponent)
    return p / p.sum()


def _expected_unique(lengths, p):
    """E[#distinct words] of documents with the given lengths (Poisson approximation);
    the probabilities are grouped in 2048 log-spaced bins (relative error < 1e-4)."""
    lp = np.log(p)
    edges = np.linspace(lp.min(), lp.max() + 1e-12, 2049)
    b = np.clip(np.searchsorted(edges, lp, side="right") - 1, 0, 2047)
    cnt = np.bincount(b, minlength=2048)
    rep = np.bincount(b, weights=p, minlength=2048)
    keep = cnt > 0
    cnt, rep = cnt[keep], rep[keep] / cnt[keep]
    L = np.asarray(lengths, dtype=float)[:, None]
    return (-np.expm1(-L * rep[None, :]) * cnt[None, :]).sum(axis=1)


def _rank_window(topic_ranks, n_words: int, n_planted: int) -> tuple[int, int]:
    """[lo, hi) ranks for the topic words, clipped to the vocabulary (default window:
    the historical min(20, W/8), min(600, W/4))."""
    if (not isinstance(topic_ranks, (tuple, list)) or len(topic_ranks) != 2
            or not all(isinstance(r, (int, np.integer)) and not isinstance(r, bool) for r in topic_ranks)
            or not 0 <= topic_ranks[0] < topic_ranks[1]):
        raise InvalidParameterError("make_synthetic_corpus: parameter 'topic_ranks' must be two ints "
                                    f"0 <= lo < hi; got {topic_ranks!r}.")
    lo, hi = min(int(topic_ranks[0]), n_words // 8), min(int(topic_ranks[1]), n_words // 4)
    if hi - lo < n_planted:
        hi = min(n_words, lo + n_planted)
    return lo, hi


@validate_params(
    {"n_docs": [Interval(Integral, 1, None, closed="left")], "n_words": [Interval(Integral, 10, None, closed="left")],
     "n_topics": [Interval(Integral, 0, None, closed="left")], "nnz_per_doc": [Interval(Real, 1, None, closed="left")],
     "chunk_docs": [Interval(Integral, 1, None, closed="left")], "compresslevel": [Interval(Integral, 0, 9, closed="both")],
     "n_threads": [Interval(Integral, 1, 64, closed="both")], "length_sigma": [Interval(Real, 0, 3, closed="both")],
     "topic_share": [None, Interval(Real, 0, 1, closed="neither")],
     "rare_group_rate": [None, Interval(Real, 0, 1, closed="both")],
     "rare_group_size": [Interval(Integral, 1, None, closed="left")],
     "balanced_topics": ["boolean"]})
def make_synthetic_corpus(directory, *, name: str = "synthetic", n_docs: int = 300_000,
                          n_words: int = 102_660, nnz_per_doc: float = 233.0,
                          n_topics: int = 5, topic_size: int | None = None,
                          zipf_exponent: float = 1.05, zipf_offset: float = 50.0,
                          tail_exponent: float | None = None, tail_rank: int | None = None,
                          length_sigma: float = 0.45,
                          topic_prevalence=(0.10, 0.09, 0.08, 0.07, 0.06),
                          topic_rate=(7.0, 6.0, 5.5, 5.0, 4.5),
                          topic_ranks=(20, 600), topic_share: float | None = None,
                          rare_group_rate: float | None = None, rare_group_size: int = 6,
                          balanced_topics: bool = False, random_state=0,
                          chunk_docs: int = 20_000, compresslevel: int = 1, n_threads: int = 2,
                          progress: bool = False) -> SyntheticCorpus:
    """Write a synthetic UCI bag-of-words corpus with planted topics.

    Parameters
    ----------
    directory : path-like
        Where ``docword.NAME.txt.gz`` and ``vocab.NAME.txt`` are written (created if
        needed; files are written under temporary names and renamed when complete).
    name : str, default="synthetic"
    n_docs, n_words : int
        Corpus size (default: the UCI NYTimes set, 300,000 × 102,660).
    nnz_per_doc : float, default=233
        Target mean number of distinct words per document (NYTimes: about 233, i.e.
        ~70 million nonzeros); the mean document length is calibrated to reach it.
    n_topics : int, default=5
        Planted topics. The first five are the topics of the paper's Table 1
        (business, sports, u.s., politics, education) with their words; further ones
        get generated words.
    topic_size : int, optional
        Words per planted topic; default: the paper's sizes (6, 5, 5, 4, 4), then 5.
    zipf_exponent, zipf_offset : float
        Background word law p_r ∝ (r + offset)^(−exponent).
    tail_exponent, tail_rank : optional
        Beyond rank ``tail_rank`` the law falls with ``tail_exponent`` instead
        (continuous at the break): a long tail of words seen in very few documents.
    length_sigma : float, default=0.45
        σ of log document length.
    topic_prevalence, topic_rate : sequence of float
        π_k (probability that a document is about topic k) and μ_k (mean extra
        occurrences of each topic word in a document of mean length); cycled when
        there are more topics than values. ``topic_rate`` is ignored when
        ``topic_share`` is given.
    topic_ranks : (int, int), default=(20, 600)
        Frequency ranks [lo, hi) among which the topic words are placed (clipped to the
        vocabulary): the default puts them among the frequent words; mid ranks (e.g.
        (500, 5000), see :func:`make_zipf_corpus`) hide them among words of ordinary
        frequency.
    topic_share : float in (0, 1), optional
        When given, each topic word keeps the marginal frequency of its Zipf rank: the
        topic supplies this share of its expected occurrences (its background
        probability is lowered by the same share), so its frequency, document frequency
        and variance look like those of any word of that rank; only its co-occurrence
        with the other words of its topic reveals it. Per-word rate in a topic document
        of mean length: ``topic_share · p_r · L̄ / π_k``.
    rare_group_rate, rare_group_size : optional
        Near-duplicate stories: ``rare_group_rate`` × n_docs groups (at most a tenth of
        the vocabulary) of ``rare_group_size`` of the rarest words, which then occur
        only there: each group in the same 2–3 documents, with one count per document
        shared by its words, as a wire story and its reprints. Their words are
        perfectly correlated, so correlation scaling favours them.
    balanced_topics : bool, default=False
        Deal the topic words' ranks (sorted) to the topics in turn, so that every topic
        gets words from across ``topic_ranks`` (default: a random assignment, where a
        topic may get only the rarer ranks of the window).
    random_state : int or None
    chunk_docs : int, default=20000
        Documents generated at a time (memory ~ chunk_docs × 2 kB).
    compresslevel : int, default=1
    n_threads : int, default=2
        Threads compressing gzip members in parallel.
    progress : bool

    Returns
    -------
    SyntheticCorpus
        Paths, sizes, and the planted topics (0-based word indices and words), e.g.
        for :func:`topic_precision`.

    Examples
    --------
    >>> import tempfile
    >>> import eigensparse as es
    >>> from eigensparse.datasets import make_synthetic_corpus, topic_precision
    >>> from eigensparse.io import read_uci_bow
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     corpus = make_synthetic_corpus(tmp, n_docs=2000, n_words=2000, nnz_per_doc=40)
    ...     X, words = read_uci_bow(corpus.docword, corpus.vocab)
    >>> [words[i] for i in corpus.topics[0]]  # the planted "business" topic
    ['business', 'companies', 'company', 'market', 'million', 'percent']
    >>> tpower = es.registry.get_method("tpower").func
    >>> found = tpower(es.as_operator(X, center=False), 6, random_state=0).support
    >>> topic_precision([found], corpus.topics)["precision"]  # recovered exactly
    [1.0]
    """
    t0 = time.perf_counter()
    rng = np.random.default_rng(random_state)
    directory = os.fspath(directory)
    os.makedirs(directory, exist_ok=True)
    names, sizes, topics, vocab, rank_to_id, (lo, hi) = _plant_topics(
        rng, n_topics, topic_size, topic_ranks, n_words, balanced_topics)
    law = _background_law(n_docs, n_words, topics, sizes, rank_to_id, zipf_exponent, zipf_offset,
                          tail_exponent, tail_rank, length_sigma, topic_prevalence, topic_rate,
                          topic_share, rare_group_rate, rare_group_size, nnz_per_doc)
    final = os.path.join(directory, f"docword.{name}.txt.gz")
    seeds = rng.integers(0, 2**63 - 1, size=(n_docs + chunk_docs - 1) // chunk_docs)
    nnz = _write_docword(final, law, seeds, n_docs, n_words, chunk_docs, compresslevel,
                         n_threads, progress)
    vocab_path = os.path.join(directory, f"vocab.{name}.txt")
    tmp = vocab_path + f".{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(vocab) + "\n")
    os.replace(tmp, vocab_path)
    return SyntheticCorpus(
        docword=final, vocab=vocab_path, n_docs=n_docs, n_words=n_words, nnz=int(nnz),
        topics=topics, topic_names=names,
        topic_words=[[vocab[i] for i in t] for t in topics],
        seconds=time.perf_counter() - t0,
        params={"mean_length": float(law.mean_len), "zipf_exponent": zipf_exponent,
                "zipf_offset": zipf_offset, "length_sigma": length_sigma,
                "tail_exponent": tail_exponent, "tail_rank": tail_rank,
                "topic_prevalence": law.prev.tolist(), "topic_rate": law.rate.tolist(),
                "word_rate": [w.tolist() for w in law.word_rate],
                "topic_ranks": [int(lo), int(hi)], "topic_share": topic_share,
                "rare_groups": law.n_groups, "balanced_topics": balanced_topics,
                "random_state": random_state})


def _deal_ranks(ranks, sizes):
    """Sorted ``ranks`` dealt to topics of ``sizes`` in turn (a serpentine order: topic
    0..K-1, then K-1..0, ...), concatenated topic after topic."""
    parts = [[] for _ in sizes]
    order = list(range(len(sizes)))
    it = iter(ranks)
    while any(len(p) < s for p, s in zip(parts, sizes)):
        for k in order:
            if len(parts[k]) < sizes[k]:
                parts[k].append(next(it))
        order.reverse()
    return np.array([r for p in parts for r in p], dtype=np.int64)


def _plant_topics(rng, n_topics, topic_size, topic_ranks, n_words, balanced=False):
    """The planted topics' names, sizes, word ids, the (alphabetical) vocabulary, the
    rank -> id map and the rank window the topic words were drawn from."""
    sizes, names, topic_words = [], [], []
    for k in range(n_topics):
        if k < len(PLANTED_TOPICS) and topic_size is None:
            nm, ws = PLANTED_TOPICS[k]
            ws = list(ws)
        elif k < len(PLANTED_TOPICS):
            nm, ws = PLANTED_TOPICS[k]
            ws = list(ws)[:topic_size]
            ws += [f"{nm.replace('.', '')}_{j}" for j in range(len(ws), topic_size)]
        else:
            nm = f"topic{k + 1}"
            ws = [f"topic{k + 1}_{j + 1}" for j in range(topic_size or 5)]
        names.append(nm)
        topic_words.append(ws)
        sizes.append(len(ws))
    n_planted = int(sum(sizes))
    if n_planted > n_words // 4:
        raise InvalidParameterError(
            f"make_synthetic_corpus: {n_topics} topics of {sizes} words need n_words >= "
            f"{4 * n_planted}; got {n_words}.")
    # topic words take ranks spread over the frequent words (not the very top)
    lo, hi = _rank_window(topic_ranks, n_words, n_planted)
    ranks = np.sort(rng.choice(np.arange(lo, hi), n_planted, replace=False))
    perm_ranks = _deal_ranks(ranks, sizes) if balanced else rng.permutation(ranks)
    reserved = {w for ws in topic_words for w in ws}
    background = iter(_word_names(n_words - n_planted, reserved))
    rank_word = [None] * n_words
    pos = 0
    topics_ranked = []
    for ws in topic_words:
        rr = perm_ranks[pos:pos + len(ws)]
        pos += len(ws)
        for r, w in zip(rr, ws):
            rank_word[r] = w
        topics_ranked.append(rr)
    for r in range(n_words):
        if rank_word[r] is None:
            rank_word[r] = next(background)
    # vocabulary order: alphabetical (as UCI vocabularies are), so ids hide the ranks
    order = np.argsort(np.array(rank_word, dtype=object).astype(str), kind="stable")
    vocab = [rank_word[i] for i in order]
    rank_to_id = np.empty(n_words, dtype=np.int64)
    rank_to_id[order] = np.arange(n_words)
    topics = [np.sort(rank_to_id[rr]) for rr in topics_ranked]
    return names, sizes, topics, vocab, rank_to_id, (lo, hi)


def _background_law(n_docs, n_words, topics, sizes, rank_to_id, zipf_exponent, zipf_offset,
                    tail_exponent, tail_rank, length_sigma, topic_prevalence, topic_rate,
                    topic_share, rare_group_rate, rare_group_size, nnz_per_doc) -> CorpusLaw:
    """The background law (alias table), the rare groups, the topic rates and the
    document length calibrated to ``nnz_per_doc`` distinct words."""
    n_topics = len(topics)
    p = _zipf_probabilities(n_words, zipf_exponent, zipf_offset, tail_exponent, tail_rank)
    p_id = np.empty(n_words)
    p_id[rank_to_id] = p
    p_marginal = p_id.copy()
    if topic_share is not None and n_topics:  # topic words: background keeps 1 - share
        planted_ids = np.concatenate(topics)
        p_id[planted_ids] *= 1.0 - topic_share
        p_id /= p_id.sum()
    n_groups, group_words = 0, None
    if rare_group_rate:  # the rarest words become group words only (no background)
        n_groups = min(int(round(rare_group_rate * n_docs)), (n_words // 10) // rare_group_size)
        group_words = rank_to_id[n_words - n_groups * rare_group_size:].reshape(
            n_groups, rare_group_size)
        p_id[group_words.ravel()] = 0.0
        p_id /= p_id.sum()
    prob, alias = _alias_table(p_id)
    prev = np.array([topic_prevalence[k % len(topic_prevalence)] for k in range(n_topics)])
    rate = np.array([topic_rate[k % len(topic_rate)] for k in range(n_topics)])
    # mean distinct words from topics ≈ Σ_k π_k |T_k| (1 − e^{−μ_k}) (small); the rest
    # comes from the background; find the median length giving nnz_per_doc
    topic_part = float(np.sum(prev * np.array(sizes) * -np.expm1(-rate))) if n_topics else 0.0
    target = max(nnz_per_doc - topic_part, 1.0)
    from scipy.special import ndtri

    z = ndtri((np.arange(64) + 0.5) / 64) * length_sigma  # normal quantiles
    lo_m, hi_m = 1.0, 1e6
    for _ in range(45):
        mid = np.sqrt(lo_m * hi_m)
        u = _expected_unique(mid * np.exp(z), p).mean()
        lo_m, hi_m = (mid, hi_m) if u < target else (lo_m, mid)
    median_len = np.sqrt(lo_m * hi_m)
    mean_len = median_len * np.exp(length_sigma**2 / 2)
    # per-word rate in a topic document of mean length
    word_rate = [np.full(t.size, rate[k]) if topic_share is None
                 else topic_share * p_marginal[t] * mean_len / prev[k] for k, t in enumerate(topics)]
    return CorpusLaw(prob=prob, alias=alias, prev=prev, rate=rate, word_rate=word_rate,
                     topics=[np.asarray(t, dtype=np.int64) for t in topics],
                     median_len=float(median_len), mean_len=float(mean_len),
                     length_sigma=float(length_sigma), n_groups=n_groups,
                     group_words=group_words, rare=bool(rare_group_rate))


def _write_docword(final, law, seeds, n_docs, n_words, chunk_docs, compresslevel, n_threads,
                   progress) -> int:
    """Generate the documents chunk by chunk (:func:`_corpus_kernels.chunk_entries`),
    compress the chunks in parallel and write ``final`` atomically; the number of
    nonzeros."""
    body_tmp = final + f".body-{os.getpid()}.tmp"
    out_tmp = final + f".{os.getpid()}.tmp"
    nnz = 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n_docs, unit="doc", desc=f"generate {os.path.basename(final)}")
    pool = ThreadPoolExecutor(max_workers=n_threads)
    pending = []
    try:
        with open(body_tmp, "wb") as body:
            for ci, start in enumerate(range(0, n_docs, chunk_docs)):
                nd = min(chunk_docs, n_docs - start)
                data, k_ = chunk_entries(np.random.default_rng(seeds[ci]), law, start, nd,
                                         n_docs, n_words)
                nnz += k_
                pending.append(pool.submit(gzip_member, data, compresslevel))
                while len(pending) > n_threads:
                    body.write(pending.pop(0).result())
                if bar is not None:
                    bar.update(nd)
            while pending:
                body.write(pending.pop(0).result())
        header = gzip_member(f"{n_docs}\n{n_words}\n{nnz}\n".encode(), compresslevel)
        with open(out_tmp, "wb") as out, open(body_tmp, "rb") as body:
            out.write(header)
            while True:
                b = body.read(1 << 24)
                if not b:
                    break
                out.write(b)
        os.replace(out_tmp, final)
    finally:
        pool.shutdown(wait=True)
        if bar is not None:
            bar.close()
        for f in (body_tmp, out_tmp):
            try:
                os.unlink(f)
            except OSError:
                pass
    return nnz


def topic_precision(found, planted) -> dict:
    """Match found topics to planted ones and measure precision.

    Parameters
    ----------
    found : list of array-like of int
        Word indices of each found topic (supports).
    planted : list of array-like of int
        The planted topics (e.g. ``SyntheticCorpus.topics``).

    Returns
    -------
    dict
        ``precision`` (per found topic: |found ∩ best planted| / |found|), ``recall``
        (|found ∩ best planted| / |planted|), ``match`` (index of the best planted topic,
        or -1), ``mean_precision``, ``mean_recall`` and ``n_distinct_matched``.

    Examples
    --------
    >>> from eigensparse.datasets import topic_precision
    >>> scores = topic_precision(found=[[1, 2, 3, 9], [7, 8]], planted=[[1, 2, 3, 4], [5, 6, 7]])
    >>> scores["precision"], scores["recall"], scores["match"]
    ([0.75, 0.5], [0.75, 0.3333333333333333], [0, 1])
    """
    P = [set(np.asarray(t).tolist()) for t in planted]
    prec, rec, match = [], [], []
    for f in found:
        f = set(np.asarray(f).tolist())
        if not f or not P:
            prec.append(0.0); rec.append(0.0); match.append(-1)
            continue
        ov = [len(f & t) for t in P]
        j = int(np.argmax(ov))
        prec.append(ov[j] / len(f))
        rec.append(ov[j] / len(P[j]))
        match.append(j if ov[j] else -1)
    return {"precision": prec, "recall": rec, "match": match,
            "mean_precision": float(np.mean(prec)) if prec else 0.0,
            "mean_recall": float(np.mean(rec)) if rec else 0.0,
            "n_distinct_matched": len({m for m in match if m >= 0})}


#: the harder corpus of :func:`make_zipf_corpus`: topics at mid frequencies
ZIPF_CORPUS_DEFAULTS = dict(
    n_docs=300_000, n_words=102_660, nnz_per_doc=267.0, n_topics=8, topic_size=6,
    zipf_exponent=1.0, zipf_offset=10.0, tail_exponent=2.2, tail_rank=3000,
    length_sigma=0.7, topic_ranks=(800, 3000), topic_share=0.8, rare_group_rate=0.005,
    topic_prevalence=(0.02, 0.019, 0.018, 0.017, 0.016, 0.015, 0.014, 0.013))


#: ``make_zipf_corpus(mode="hidden")``: five topics of five co-occurring words of Zipf
#: ranks 2,000–3,000 (each topic in 1 % of the documents, 90 % of its words'
#: occurrences): each word's variance ranks in the hundreds among the kept words while
#: frequent independent words hold the largest variances, yet each planted topic's
#: variance is well above that of any five frequent words
HIDDEN_TOPICS_DEFAULTS = dict(n_topics=5, topic_size=5, topic_ranks=(2000, 3000), topic_share=0.9,
                              topic_prevalence=(0.01,))


#: ``make_zipf_corpus(mode="pubmed")``: shaped like PubMed (Zhang & El Ghaoui 2011, §4):
#: 8.2M short documents (about 61 distinct words each) × 141,043 words; eight topics of
#: six words of Zipf ranks 100–1,000 (document frequencies about 0.5–2 %, far below the
#: most frequent kept words'), dealt evenly over the ranks, each topic in 0.85–1.2 % of
#: the documents with 95 % of its words' occurrences: the words keep the total counts
#: of their ranks (their counts and document frequencies rank among the 50th–3,000th),
#: and each topic has about twice the tf-idf variance of any five frequent words (its
#: most frequent word has one of the largest tf-idf variances of its own)
PUBMED_CORPUS_DEFAULTS = dict(n_docs=8_200_000, n_words=141_043, nnz_per_doc=60.7,
                              topic_ranks=(100, 1000), topic_share=0.95, balanced_topics=True,
                              topic_prevalence=(0.012, 0.0115, 0.011, 0.0105, 0.01, 0.0095,
                                                0.009, 0.0085))


@validate_params({"scale": [Interval(Real, 0, 1, closed="right")],
                  "mode": [StrOptions({"default", "hidden", "pubmed"})]},
                 prefer_skip_nested_validation=False)  # the overrides are checked there
def make_zipf_corpus(directory, *, name: str = "zipf", scale: float = 1.0, random_state=0,
                     progress: bool = False, mode: str = "default",
                     **overrides) -> SyntheticCorpus:
    """A corpus with realistic statistics whose planted topics raw statistics hide.

    Zipf word frequencies (p_r ∝ (r + 10)^−1, falling as r^−2.2 beyond rank 3,000 so
    that a long tail of words is seen in only a few documents) over 102,660 words,
    log-normal document lengths (σ = 0.7), 300,000 documents and about 80 million nonzeros at
    ``scale=1``; eight planted topics of six words placed at *mid* frequency ranks
    (800–3,000; each topic in 1.3–2 % of the documents) with ``topic_share=0.8`` (see :func:`make_synthetic_corpus`): every
    topic word keeps the marginal frequency of its rank, so counts, document
    frequencies and variances do not single it out; only co-occurrence does. By
    construction frequent independent words carry the largest count variances (and
    co-vary through document length), and rare words the largest correlations (groups
    of rare words repeated together in the 2–3 copies of a near-duplicate story,
    ``rare_group_rate=0.005``, are perfectly correlated).

    Parameters
    ----------
    directory : path-like
    name : str, default="zipf"
    scale : float in (0, 1], default=1.0
        Fraction of the documents (and, as √scale, of the vocabulary, at least 8,000
        words) to generate: ``scale=0.1`` gives 30,000 × 32,464.
    random_state : int or None
    progress : bool
    mode : {"default", "hidden", "pubmed"}, default="default"
        ``"pubmed"``: the corpus of :data:`PUBMED_CORPUS_DEFAULTS` (``scale`` scales
        its documents only; the vocabulary stays 141,043 words).
        ``"hidden"``: the planted topics of :data:`HIDDEN_TOPICS_DEFAULTS` instead —
        groups of co-occurring mid-frequency words whose individual variances rank in
        the hundreds (under tf-idf, after ``min_df=5, max_df=0.5``), below many
        frequent independent words, so a working set or a solve set grown by variance
        misses them, while each group is a sparse direction of larger variance than
        any group of frequent words. The truth is ``SyntheticCorpus.topics``.
    **overrides
        Any parameter of :func:`make_synthetic_corpus` (replaces the defaults in
        :data:`ZIPF_CORPUS_DEFAULTS`, and those of the mode).

    Returns
    -------
    SyntheticCorpus

    Examples
    --------
    >>> import tempfile
    >>> from eigensparse.datasets.synthetic_corpus import make_zipf_corpus
    >>> with tempfile.TemporaryDirectory() as d:
    ...     c = make_zipf_corpus(d, scale=0.01, random_state=0)
    ...     print(c.n_docs >= 1000, c.n_words >= 8000, len(c.topics) > 0)
    True True True
    """
    kw = dict(ZIPF_CORPUS_DEFAULTS)
    kw.update({"hidden": HIDDEN_TOPICS_DEFAULTS, "pubmed": PUBMED_CORPUS_DEFAULTS}.get(mode, {}))
    kw["n_docs"] = max(1000, int(round(kw["n_docs"] * scale)))
    if mode != "pubmed":
        kw["n_words"] = max(8000, int(round(kw["n_words"] * np.sqrt(scale))))
    kw.update(overrides)
    return make_synthetic_corpus(directory, name=name, random_state=random_state,
                                 progress=progress, **kw)
