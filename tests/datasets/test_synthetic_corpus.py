"""The harder corpus generator: planted topics hidden at mid frequencies."""
import numpy as np
import pytest

from eigensparse import InvalidParameterError
from eigensparse.datasets.synthetic_corpus import make_synthetic_corpus, make_zipf_corpus
from eigensparse.io.uci import read_uci_bow


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    d = tmp_path_factory.mktemp("zipf")
    c = make_zipf_corpus(d, scale=0.01, n_words=8000, random_state=2)
    X, words = read_uci_bow(c.docword, c.vocab)
    return c, X.tocsc().astype(float), words


def test_sizes_and_statistics(small):
    c, X, words = small
    assert X.shape == (3000, 8000) and X.nnz == c.nnz and len(words) == 8000
    lengths = np.asarray(X.sum(axis=1)).ravel()
    # log-normal lengths: log-length spread close to sigma = 0.7 (plus Poisson noise)
    assert 0.6 < np.std(np.log(lengths)) < 0.85
    assert c.params["rare_groups"] == 15 and len(c.topics) == 8


def test_topic_words_have_unremarkable_frequencies_and_variances(small):
    c, X, _ = small
    n = X.shape[0]
    mean = np.asarray(X.mean(axis=0)).ravel()
    var = np.asarray(X.multiply(X).mean(axis=0)).ravel() - mean**2
    rank = np.empty(mean.size, dtype=int)
    rank[np.argsort(-mean, kind="stable")] = np.arange(mean.size)
    planted = np.concatenate(c.topics)
    # frequency ranks stay in the middle band (placed in [800, 2000) for 8000 words)
    assert np.all((rank[planted] > 400) & (rank[planted] < 4000))
    # count variance: the largest variances are frequent words, none planted
    top = np.argsort(-var)[:50]
    assert not set(top) & set(planted)
    assert np.all(rank[top] < 100)
    del n


def test_topic_words_co_occur(small):
    c, X, _ = small
    B = (X > 0).astype(float)
    C = np.corrcoef(B[:, np.concatenate(c.topics[:2])].toarray(), rowvar=False)
    inside = C[:6, :6][np.triu_indices(6, 1)]
    across = C[:6, 6:].ravel()
    assert inside.mean() > 0.2 and abs(across.mean()) < 0.05


def test_rare_word_groups_are_perfectly_correlated(small):
    _, X, _ = small
    df = np.diff(X.indptr)
    rare = np.flatnonzero((df >= 2) & (df <= 3))
    cols = X[:, rare].T.tocsr()
    keys = {}
    for j in range(cols.shape[0]):
        row = cols.getrow(j)
        keys.setdefault((tuple(row.indices), tuple(row.data)), []).append(rare[j])
    assert max(len(v) for v in keys.values()) >= 5  # five identical columns: correlation 1


def test_default_generator_unchanged_and_validation(tmp_path):
    a = make_synthetic_corpus(tmp_path / "a", n_docs=200, n_words=400, nnz_per_doc=30, random_state=5)
    assert a.params["topic_share"] is None and a.params["rare_groups"] == 0
    with pytest.raises(InvalidParameterError, match="topic_ranks"):
        make_synthetic_corpus(tmp_path / "b", n_docs=20, n_words=400, topic_ranks=(5, 2))
    with pytest.raises(InvalidParameterError, match="topic_share"):
        make_synthetic_corpus(tmp_path / "b", n_docs=20, n_words=400, topic_share=1.0)
    with pytest.raises(InvalidParameterError, match="scale"):
        make_zipf_corpus(tmp_path / "b", scale=0)


@pytest.fixture(scope="module")
def hidden(tmp_path_factory):
    d = tmp_path_factory.mktemp("hidden")
    c = make_zipf_corpus(d, mode="hidden", n_docs=6000, n_words=20000, random_state=0)
    X, _ = read_uci_bow(c.docword, c.vocab)
    return c, X


def test_hidden_mode_topics_are_best_yet_not_of_largest_variance(hidden):
    """mode="hidden": five topics of five words; under the topic pipeline's defaults
    (tf-idf, centered, min_df=5, max_df=0.5) no planted word is among the 20 words of
    largest variance and most rank in the hundreds, yet every planted topic has more
    variance than the best five words among the 200 non-planted words of largest variance."""
    import eigensparse as es
    from eigensparse.text._passes import scale_matrix

    c, X = hidden
    assert len(c.topics) == 5 and all(len(t) == 5 for t in c.topics)
    assert c.params["topic_ranks"] == [2000, 3000] and c.params["topic_share"] == 0.9
    Y = scale_matrix(X, "tfidf").tocsc()
    n = Y.shape[0]
    df = np.diff(Y.indptr)
    mu = np.asarray(Y.mean(axis=0)).ravel()
    var = np.asarray(Y.multiply(Y).mean(axis=0)).ravel() - mu**2
    var = np.where((df >= 5) & (df <= 0.5 * n), var, 0.0)
    rank = np.empty(var.size, dtype=int)
    rank[np.argsort(-var, kind="stable")] = np.arange(var.size)
    planted = np.concatenate(c.topics)
    assert rank[planted].min() >= 20 and np.median(rank[planted]) >= 100
    noise = np.setdiff1d(np.argsort(-var)[:200], planted)
    S_noise = np.cov(Y[:, noise].toarray(), rowvar=False, bias=True)
    am = es.registry.get_method("am").func
    best_noise = am(es.Covariance(S_noise), 5, n_starts=200, random_state=0).variance
    for t in c.topics:
        lam = np.linalg.eigvalsh(np.cov(Y[:, t].toarray(), rowvar=False, bias=True))[-1]
        assert lam > 1.2 * best_noise


def test_mode_validation(tmp_path):
    with pytest.raises(InvalidParameterError, match="mode"):
        make_zipf_corpus(tmp_path, scale=0.01, mode="easy")


def test_pubmed_mode_topics_hide_in_counts_yet_beat_frequent_words(tmp_path):
    """mode="pubmed": short documents (about 61 distinct words) over 141,043 words; the
    planted words' total counts and document frequencies rank in the middle (no
    outliers), every topic gets words from across its rank window, and each planted
    topic has more tf-idf variance than the best five of the 200 non-planted words of
    largest variance (what ``topics -k 5 -s 5`` would otherwise return)."""
    import eigensparse as es
    from eigensparse.text._passes import scale_matrix

    c = make_zipf_corpus(tmp_path, mode="pubmed", scale=12000 / 8_200_000, random_state=3)
    X, _ = read_uci_bow(c.docword, c.vocab)
    X = X.tocsc().astype(float)
    n = X.shape[0]
    assert X.shape == (12000, 141_043) and 55 < X.nnz / n < 67
    assert c.params["balanced_topics"] and len(c.topics) == 8
    planted = np.concatenate(c.topics)
    count, df = np.asarray(X.sum(axis=0)).ravel(), np.diff(X.indptr)
    for stat in (count, df):
        rank = np.empty(stat.size, dtype=int)
        rank[np.argsort(-stat, kind="stable")] = np.arange(stat.size)
        assert rank[planted].min() >= 50 and rank[planted].max() < 3000
    # balanced: every topic has a word among the more frequent and one among the rarer half
    mid = np.median(count[planted])
    assert all(count[t].max() > mid > count[t].min() for t in c.topics)
    Y = scale_matrix(X, "tfidf").tocsc()
    mu = np.asarray(Y.mean(axis=0)).ravel()
    var = np.asarray(Y.multiply(Y).mean(axis=0)).ravel() - mu**2
    var = np.where((df >= 5) & (df <= 0.5 * n), var, 0.0)
    noise = np.setdiff1d(np.argsort(-var)[:200], planted)
    S_noise = np.cov(Y[:, noise].toarray(), rowvar=False, bias=True)
    am = es.registry.get_method("am").func
    best_noise = am(es.Covariance(S_noise), 5, n_starts=200, random_state=0).variance
    lam = [np.linalg.eigvalsh(np.cov(Y[:, t].toarray(), rowvar=False, bias=True))[-1]
           for t in c.topics]
    assert min(lam) > 1.5 * best_noise


def test_deal_ranks_serpentine():
    from eigensparse.datasets.synthetic_corpus import _deal_ranks

    assert _deal_ranks(np.arange(7), [3, 2, 2]).tolist() == [0, 5, 6, 1, 4, 2, 3]
