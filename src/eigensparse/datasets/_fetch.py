"""``fetch_*`` loaders of the downloadable data sets (files found, cached and verified by
:mod:`eigensparse.datasets._remote`)."""
from __future__ import annotations

import os

import numpy as np

from ._bunch import Bunch
from ._remote import REMOTE_FILES, ChecksumError, _doc, _fetch_all

__all__ = ["fetch_senate", "fetch_sp500", "fetch_leukemia", "fetch_mnist", "fetch_nytimes",
           "fetch_pubmed"]


def _mat_strings(a) -> list:
    return [str(np.ravel(x)[0]) if np.size(x) else "" for x in np.ravel(a)]


@_doc("senate109", var="senate", check="senate.data.shape == (100, 542)")
def fetch_senate(*, data_home=None, path=None, download: bool = True, sha256=None):
    """Roll-call votes of the 109th US Senate (2005-2006): 100 senators × 542 bills.

    Votes are coded +1 yea, -1 nay, 0 other. The matrix is ``senateVoting.mat`` of the PMTK
    data store (probml/pmtkdata, pinned commit), the one used in the sparse-PCA papers of
    d'Aspremont, El Ghaoui and coauthors.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    Bunch
        ``data`` ndarray (100, 542) of float; ``feature_names`` the 542 bills;
        ``sample_names`` the senators; ``target`` party codes into ``target_names``
        (``Democrat``, ``Republican``, ``Independent``).

    """
    import scipy.io

    files = _fetch_all("senate109", "fetch_senate", data_home, path, download, sha256)
    d = scipy.io.loadmat(files["senateVoting.mat"])
    party = np.array(_mat_strings(d["party"]))
    codes = {"d": 0, "r": 1, "i": 2}
    return Bunch(data=d["records"].T.astype(np.float64), feature_names=_mat_strings(d["bills"]),
                  description="109th US Senate roll calls: 100 senators x 542 bills, +1 yea, "
                              "-1 nay, 0 other (PMTK senateVoting.mat)",
                  target=np.array([codes[p] for p in party]),
                  target_names=["Democrat", "Republican", "Independent"], n_samples=100,
                  sample_names=_mat_strings(d["senators"]), filenames=files)


@_doc("leukemia_golub", var="golub", check="golub.data.shape == (72, 7129)")
def fetch_leukemia(*, data_home=None, path=None, download: bool = True, sha256=None):
    """Leukemia gene expression of Golub et al. (1999): 72 samples × 7129 probes.

    Affymetrix Hu6800 expression levels of 47 ALL and 25 AML patients: the 38 training
    samples, then the 34 independent ones. The file is ``amlAll.mat``, the PMTK conversion
    (probml/pmtkdata, pinned commit) of the Broad Institute's two tab-separated tables, which
    adds the labels.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    Bunch
        ``data`` ndarray (72, 7129) of float; ``feature_names`` ``probe_0`` … (the file
        carries no probe names); ``target`` 0 = ALL, 1 = AML.

    """
    import scipy.io

    files = _fetch_all("leukemia_golub", "fetch_leukemia", data_home, path, download, sha256)
    d = scipy.io.loadmat(files["amlAll.mat"])
    X = np.vstack([d["Xtrain"], d["Xtest"]]).astype(np.float64)
    y = (np.vstack([d["ytrain"], d["ytest"]]).ravel() > 0).astype(int)
    return Bunch(data=X, feature_names=[f"probe_{j}" for j in range(X.shape[1])],
                  description="Leukemia (Golub et al. 1999): 72 samples (38 train + 34 test) x "
                              "7129 probes; target 0 = ALL, 1 = AML",
                  target=y, target_names=["ALL", "AML"], n_samples=X.shape[0], filenames=files)


@_doc("sp500", var="sp", check="sp.data.shape[0] > 1000")
def fetch_sp500(*, start: str = "2005-06-01", end: str = "2010-06-01", data_home=None,
                path=None, download: bool = True, sha256=None):
    """Daily log returns of S&P 500 stocks between ``start`` and ``end``.

    The source is the data set ``sp500`` of the R package auxPort (antshi/auxPort, pinned
    commit): daily prices of 500 stocks, 2000-01-03 to 2018-12-31. Within the window, stocks
    with missing or non-positive prices are dropped, then those whose price stays flat on
    more than half of the days (delisted firms). Reading the ``.rda`` file needs the
    ``pyreadr`` and ``pandas`` packages (``pip install eigensparse[examples]``).

    Parameters
    ----------
    start, end : str
        First and last date (ISO format) of the window.
    %(params)s

    Returns
    -------
    Bunch
        ``data`` ndarray (days, stocks) of log returns; ``feature_names`` the stocks;
        ``sample_names`` the dates (ISO strings) of the returns.

    """
    files = _fetch_all("sp500", "fetch_sp500", data_home, path, download, sha256)
    try:
        import pandas as pd
        import pyreadr
    except ImportError as exc:
        raise ImportError("fetch_sp500 reads an R data file: pip install pyreadr pandas") from exc
    s = pyreadr.read_r(os.fspath(files["sp500.rda"]))["sp500"]
    dates = pd.to_datetime(s["dates"], format="%d.%m.%Y")
    w = s[(dates >= start) & (dates <= end)].drop(columns=["dates"])
    w = w.apply(pd.to_numeric, errors="coerce")
    w = w.loc[:, w.notna().all() & (w > 0).all()]
    r = np.log(w).diff().iloc[1:]
    r = r.loc[:, ((r.abs() > 0).mean() > 0.5) & (r.std() > 0)]
    days = dates[r.index]
    return Bunch(data=r.to_numpy(dtype=np.float64), feature_names=[str(c) for c in r.columns],
                  description=f"S&P 500 daily log returns {start} .. {end} (auxPort sp500)",
                  n_samples=r.shape[0], sample_names=[d.strftime("%Y-%m-%d") for d in days],
                  filenames=files)


def _read_idx(path, magic: int):
    import gzip

    with gzip.open(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    if int.from_bytes(raw[:4], "big") != magic:
        raise ChecksumError(f"{path}: not an IDX file with magic number {magic}.")
    shape = tuple(int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(shape)


@_doc("mnist_t10k", var="mnist", check="mnist.data.shape == (10000, 784)")
def fetch_mnist(*, data_home=None, path=None, download: bool = True, sha256=None):
    """The 10000 MNIST test images (LeCun, Cortes and Burges), 28 × 28 pixels.

    Parameters
    ----------
    %(params)s

    Returns
    -------
    Bunch
        ``data`` ndarray (10000, 784) of float in [0, 1] (pixel / 255), row-major pixels;
        ``feature_names`` ``pixel_ROW_COL``; ``target`` the digits 0..9.

    Notes
    -----
    Mirrors re-compress the ``.gz`` files, so the SHA-256 of the *decompressed* IDX content
    is verified (``sha256=`` checks the compressed file instead).

    """
    files = _fetch_all("mnist_t10k", "fetch_mnist", data_home, path, download, sha256)
    images = _read_idx(files["t10k-images-idx3-ubyte.gz"], 2051)
    labels = _read_idx(files["t10k-labels-idx1-ubyte.gz"], 2049)
    n, rows, cols = images.shape
    return Bunch(data=images.reshape(n, rows * cols) / 255.0,
                  feature_names=[f"pixel_{i}_{j}" for i in range(rows) for j in range(cols)],
                  description="MNIST test set: 10000 images of 28 x 28 pixels in [0, 1]",
                  target=labels.astype(int), target_names=[str(d) for d in range(10)],
                  n_samples=n, filenames=files)


_BOW_DOC = """{summary}

    Parameters
    ----------
    %(params)s
    load : bool, default True
        Read the counts into memory ({entries}); ``False`` only fetches and returns the
        paths, for the out-of-core :func:`eigensparse.text.extract_topics`.

    Returns
    -------
    Bunch
        ``data`` scipy.sparse.csr_matrix (documents, words) of counts, or None when
        ``load=False``; ``feature_names`` the vocabulary; ``filenames`` the paths of the
        docword and vocabulary files.

    Notes
    -----
    UCI publishes no checksum: the gzip stream is checked in full and the SHA-256 seen the
    first time is recorded beside the file and required afterwards.
    """


def _bow_loader(dataset: str, name: str, *, summary: str, description: str, entries: str,
                var: str, n_words: int):
    """The ``fetch_*`` loader of a UCI bag-of-words corpus ``dataset`` (a docword and a
    vocabulary file): one body and one docstring for every such corpus."""

    def fetch(*, data_home=None, path=None, download: bool = True, sha256=None,
              load: bool = True):
        from ..io.uci import read_uci_bow, read_uci_header, read_vocabulary

        files = _fetch_all(dataset, name, data_home, path, download, sha256)
        docword, vocab = (files[r.name] for r in REMOTE_FILES[dataset])
        header = read_uci_header(docword)
        if load:
            X, words = read_uci_bow(docword, vocab)
        else:
            X, words = None, read_vocabulary(vocab, header.n_words)
        return Bunch(data=X, feature_names=words, n_samples=header.n_docs, filenames=files,
                      description=f"{description} (D={header.n_docs}, W={header.n_words}, "
                                  f"NNZ={header.nnz})")

    fetch.__name__ = fetch.__qualname__ = name
    fetch.__module__ = __name__
    fetch.__doc__ = _BOW_DOC.format(summary=summary, entries=entries)
    return _doc(dataset, var=var, check=f"len({var}.feature_names) == {n_words}",
                kwargs="load=False")(fetch)


fetch_nytimes = _bow_loader(
    "nytimes", "fetch_nytimes", var="nyt", n_words=102660,
    summary="New York Times news articles, UCI bag of words (about 300000 documents × "
            "102660 words).",
    description="New York Times articles, UCI bag of words",
    entries="about 70 million entries, 1 GB")

fetch_pubmed = _bow_loader(
    "pubmed", "fetch_pubmed", var="pubmed", n_words=141043,
    summary="PubMed abstracts, UCI bag of words (about 8.2 million documents × 141043 words).",
    description="PubMed abstracts, UCI bag of words",
    entries="about 480 million entries: several GB")
