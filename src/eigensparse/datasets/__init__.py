"""Bundled datasets and synthetic generators.

- :func:`load_kos`: KOS blog entries (UCI bag of words), 3430 documents × 6906 words.
- :func:`load_20news`: 20 Newsgroups, binary occurrences of 100 words in 16242 posts.
- :func:`load_pitprops`: Jeffers' pitprops correlation matrix (13 × 13, n = 180).
- :func:`make_spiked_covariance`: data with a planted sparse spike.
- :func:`make_synthetic_corpus`: a NYTimes-scale UCI bag-of-words corpus with planted topics.

Downloaded once from their public source into :func:`get_data_home` (``$EIGENSPARSE_DATA``,
else ``~/.cache/eigensparse``), verified by SHA-256, or read from a local copy (``path=``):

- :func:`fetch_senate`: 109th US Senate roll calls, 100 senators × 542 bills;
- :func:`fetch_sp500`: S&P 500 daily log returns (2005-2010 by default);
- :func:`fetch_leukemia`: Golub et al. leukemia expression, 72 samples × 7129 probes;
- :func:`fetch_mnist`: the 10000 MNIST test digits, 784 pixels;
- :func:`fetch_nytimes`, :func:`fetch_pubmed`: the large UCI bag-of-words corpora.
"""
from __future__ import annotations

from importlib import resources
from numbers import Integral, Real
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._validation import Interval, InvalidParameterError, validate_params
from ._bunch import Bunch

_FETCH = ("fetch_senate", "fetch_sp500", "fetch_leukemia", "fetch_mnist", "fetch_nytimes",
          "fetch_pubmed")
_REMOTE = ("get_data_home", "DataUnavailableError", "ChecksumError")

__all__ = ["Bunch", "load_kos", "load_20news", "load_pitprops", "make_spiked_covariance",
           "make_correlated_group",
           "make_synthetic_corpus", "topic_precision", "SyntheticCorpus", "DATASETS",
           *_FETCH, *_REMOTE]


def __getattr__(name):  # lazy: the generator compiles numba kernels
    if name in ("make_synthetic_corpus", "topic_precision", "SyntheticCorpus"):
        from . import synthetic_corpus

        return getattr(synthetic_corpus, name)
    if name in _FETCH:
        from . import _fetch

        return getattr(_fetch, name)
    if name in _REMOTE:
        from . import _remote

        return getattr(_remote, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _path(name):
    return resources.files(__package__).joinpath("data", name)


def load_kos() -> Bunch:
    """KOS blog entries (dailykos.com), UCI bag-of-words: CSR counts (3430, 6906) and the vocabulary.

    ``filenames`` holds the paths of the bundled ``docword.kos.txt.gz`` and ``vocab.kos.txt``
    (for the out-of-core :func:`eigensparse.text.extract_topics`) when the package is
    installed as plain files.

    Examples
    --------
    >>> from eigensparse.datasets import load_kos
    >>> kos = load_kos()
    >>> kos.data.shape, kos.feature_names[:3]
    ((3430, 6906), ['aarp', 'abandon', 'abandoned'])
    """
    from ..io.uci import read_uci_bow

    names = ("docword.kos.txt.gz", "vocab.kos.txt")
    with resources.as_file(_path(names[0])) as dw, resources.as_file(_path(names[1])) as vb:
        X, words = read_uci_bow(dw, vb)
    files = {n: _path(n) for n in names}
    return Bunch(X, words, "KOS blog entries, UCI bag of words (D=3430, W=6906, NNZ=353160)",
                 n_samples=X.shape[0],
                 filenames=files if all(isinstance(f, Path) for f in files.values()) else None)


def load_20news() -> Bunch:
    """20 Newsgroups, 100 words (Roweis): binary CSR (16242, 100), words and the 4 group labels.

    Examples
    --------
    >>> from eigensparse.datasets import load_20news
    >>> news = load_20news()
    >>> news.data.shape, news.feature_names[:2], news.target_names[0]
    ((16242, 100), ['aids', 'baseball'], 'comp.*')
    """
    with resources.as_file(_path("20news_w100.npz")) as f:
        z = np.load(f)
        shape = tuple(int(v) for v in z["shape"])
        X = sp.csr_matrix((np.ones(z["indices"].size), z["indices"].astype(np.int32), z["indptr"]),
                          shape=shape)
        return Bunch(X, [str(w) for w in z["words"]],
                     "20 Newsgroups, occurrence of 100 words in 16242 postings (S. Roweis)",
                     target=z["labels"].astype(int), target_names=[str(g) for g in z["groupnames"]],
                     n_samples=shape[0])


def load_pitprops() -> Bunch:
    """Pitprops correlation matrix (Jeffers 1967): 13 × 13, from n = 180 pitprops.

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.datasets import load_pitprops
    >>> pitprops = load_pitprops()
    >>> pitprops.data.shape, pitprops.n_samples, pitprops.feature_names[:3]
    ((13, 13), 180, ['topdiam', 'length', 'moist'])
    >>> res = es.sparse_pca(es.Covariance(pitprops.data), cardinality=2, method="exhaustive")
    >>> [pitprops.feature_names[i] for i in res.supports[0]]
    ['topdiam', 'length']
    """
    from ..io.tabular import read_table

    with resources.as_file(_path("pitprops.csv")) as f:
        C, names = read_table(f)
    return Bunch(C, names, "Pitprops correlation matrix (Jeffers 1967), 13 variables, n=180",
                 n_samples=180)


@validate_params({"n_samples": [Interval(Integral, 2, None, closed="left")],
                  "n_features": [Interval(Integral, 1, None, closed="left")],
                  "support_size": [Interval(Integral, 1, None, closed="left")],
                  "signal": [Interval(Real, 0, None, closed="left")]})
def make_spiked_covariance(n_samples=200, n_features=100, support_size=20, signal=5.0,
                           random_state=None):
    """Gaussian data with covariance I + signal·vvᵀ, v sparse (uniform on a random support).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    v : ndarray of shape (n_features,), the planted unit spike
    support : ndarray of int, sorted support of v

    Examples
    --------
    >>> import eigensparse as es
    >>> from eigensparse.datasets import make_spiked_covariance
    >>> X, v, support = make_spiked_covariance(500, 30, 4, signal=10.0, random_state=0)
    >>> X.shape, support.tolist()
    ((500, 30), [8, 14, 17, 22])
    >>> est = es.SparsePCA(n_components=1, cardinality=4, random_state=0).fit(X)
    >>> sorted(est.supports_[0].tolist()) == support.tolist()
    True
    """
    if support_size > n_features:
        raise InvalidParameterError(
            f"parameter 'support_size' must be at most n_features={n_features}; got {support_size}.")
    rng = np.random.default_rng(random_state)
    support = np.sort(rng.choice(n_features, support_size, replace=False))
    v = np.zeros(n_features)
    v[support] = rng.choice([-1.0, 1.0], support_size) / np.sqrt(support_size)
    X = rng.standard_normal((n_samples, n_features)) + np.sqrt(signal) * np.outer(
        rng.standard_normal(n_samples), v)
    return X, v, support


@validate_params({"n_samples": [Interval(Integral, 2, None, closed="left")],
                  "n_features": [Interval(Integral, 1, None, closed="left")],
                  "group_size": [Interval(Integral, 1, None, closed="left")],
                  "rho": [Interval(Real, 0, 1, closed="both")]})
def make_correlated_group(n_samples=100, n_features=3000, group_size=10, rho=0.45,
                          random_state=None):
    """Wide data with a group of ``group_size`` unit-variance features of pairwise
    correlation ``rho`` among features of mixed scales (standard deviations uniform in
    [0.5, 3]): on the correlation matrix the variances tie, with n << p its leading
    eigenvectors are sampling noise, and only the group's partners reveal it.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    support : ndarray of int, the sorted group

    Examples
    --------
    >>> from eigensparse.datasets import make_correlated_group
    >>> X, support = make_correlated_group(50, 200, 5, rho=0.6, random_state=0)
    >>> X.shape, support.size
    ((50, 200), 5)
    """
    if group_size > n_features:
        raise InvalidParameterError(
            f"parameter 'group_size' must be at most n_features={n_features}; got {group_size}.")
    rng = np.random.default_rng(random_state)
    X = rng.standard_normal((n_samples, n_features)) * rng.uniform(0.5, 3.0, n_features)
    support = np.sort(rng.choice(n_features, group_size, replace=False))
    f = rng.standard_normal(n_samples)
    X[:, support] = (np.sqrt(1 - rho) * rng.standard_normal((n_samples, group_size))
                     + np.sqrt(rho) * f[:, None])
    return X, support


DATASETS = {"kos": load_kos, "20news": load_20news, "pitprops": load_pitprops}
