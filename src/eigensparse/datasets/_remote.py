"""Downloadable data sets: fetched once from their public source into a cache directory.

Each ``fetch_*`` function looks for its files, in this order,

1. at ``path=`` (the file itself, or a folder holding the expected file names);
2. in the cache folder ``<data_home>/<dataset>/`` where ``data_home`` is the argument
   ``data_home=``, else ``$EIGENSPARSE_DATA``, else ``~/.cache/eigensparse``;
3. at the public source URL(s), downloaded atomically (temporary file, verified, renamed)
   into the cache folder (``download=False`` forbids this).

Every file is verified before use. Where the published file is fixed, its SHA-256 is a
constant here (``sha256=`` accepts another version on purpose). The MNIST files are
re-compressed by some mirrors, so their *decompressed* content is verified. For the UCI
NYTimes and PubMed corpora no checksum is published: the gzip stream and the docword header
are checked in full and the SHA-256 seen first is recorded beside the file
(``NAME.sha256``, trust on first use); later uses must match it.

When a file can be neither found nor downloaded, :class:`DataUnavailableError` (a
``FileNotFoundError``) names the URL(s), the expected file name and where to put it.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import zlib
from dataclasses import dataclass
from pathlib import Path


from .._validation import InvalidParameterError
from ..io._atomic import atomic_open, atomic_write_text

__all__ = ["get_data_home", "fetch_file", "RemoteFile", "DataUnavailableError", "ChecksumError",
           "REMOTE_FILES"]

DATA_HOME_ENV = "EIGENSPARSE_DATA"
_CHUNK = 1 << 20


class DataUnavailableError(FileNotFoundError):
    """A data set's file is neither supplied, nor cached, nor downloadable.

    The message names the URL(s), the expected file name and the folder to put it in.

    Examples
    --------
    >>> from eigensparse.datasets import DataUnavailableError, fetch_leukemia
    >>> try:
    ...     fetch_leukemia(data_home="an/empty/folder", download=False)
    ... except DataUnavailableError as exc:
    ...     print("amlAll.mat" in str(exc), "path=" in str(exc))
    True True
    """


class ChecksumError(InvalidParameterError):
    """A data file does not match its expected SHA-256 (or is not a valid gzip stream).

    Examples
    --------
    >>> import os, tempfile
    >>> from eigensparse.datasets import ChecksumError, fetch_senate
    >>> path = os.path.join(tempfile.mkdtemp(), "senateVoting.mat")
    >>> _ = open(path, "wb").write(b"not the published file")
    >>> try:
    ...     fetch_senate(path=path)
    ... except ChecksumError as exc:
    ...     print("does not match the expected" in str(exc))
    True
    """


@dataclass(frozen=True)
class RemoteFile:
    """One file of a data set.

    Parameters
    ----------
    name : str
        File name, in the cache folder and in a folder given as ``path=``.
    urls : tuple of str
        Public sources, tried in order.
    sha256 : str or None
        SHA-256 of the file itself; None when no published value is known.
    content_sha256 : str or None
        SHA-256 of the gunzipped content (for files that mirrors re-compress).

    Examples
    --------
    >>> import hashlib, os, tempfile
    >>> from eigensparse.datasets._remote import RemoteFile, fetch_file
    >>> folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, "toy.txt"), "wb").write(b"1 2 3")
    >>> toy = RemoteFile("toy.txt", ("https://example.org/toy.txt",),
    ...                  sha256=hashlib.sha256(b"1 2 3").hexdigest())
    >>> fetch_file("toy", toy, path=folder).name     # a verified local copy: no download
    'toy.txt'
    """

    name: str
    urls: tuple
    sha256: str | None = None
    content_sha256: str | None = None


_PMTK = "https://raw.githubusercontent.com/probml/pmtkdata/42bc2738a294382f9d6ffb1b0203404ffb10295a"
_UCI_BOW = "https://archive.ics.uci.edu/ml/machine-learning-databases/bag-of-words"
_MNIST = ("http://yann.lecun.com/exdb/mnist", "https://ossci-datasets.s3.amazonaws.com/mnist")

#: every downloadable file, by data set (the folder name under the data home)
REMOTE_FILES = {
    "senate109": (RemoteFile(
        "senateVoting.mat", (f"{_PMTK}/senateVoting/senateVoting.mat",),
        sha256="1b523e0a2ec906b579431ce6ec9edc3fb8bc3bcd6e8d10e2bfa1b8e57b058301"),),
    "leukemia_golub": (RemoteFile(
        "amlAll.mat", (f"{_PMTK}/amlAll/amlAll.mat",),
        sha256="0d3c004da184116e5d7779f0d647e48013e43f9ae48e48d4b6c688ecf42bd3db"),),
    "sp500": (RemoteFile(
        "sp500.rda", ("https://raw.githubusercontent.com/antshi/auxPort/"
                      "eb65c352c5c20624320dfec5d499fc306258d4d0/data/sp500.rda",),
        sha256="8eafaedad7a3d616b28c0d86f537cda11200b9d473dfee59b53fa8fc1c2ff34c"),),
    "mnist_t10k": (
        RemoteFile("t10k-images-idx3-ubyte.gz",
                   tuple(f"{u}/t10k-images-idx3-ubyte.gz" for u in _MNIST),
                   content_sha256="0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"),
        RemoteFile("t10k-labels-idx1-ubyte.gz",
                   tuple(f"{u}/t10k-labels-idx1-ubyte.gz" for u in _MNIST),
                   content_sha256="ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2")),
    "nytimes": (RemoteFile("docword.nytimes.txt.gz", (f"{_UCI_BOW}/docword.nytimes.txt.gz",)),
                RemoteFile("vocab.nytimes.txt", (f"{_UCI_BOW}/vocab.nytimes.txt",))),
    "pubmed": (RemoteFile("docword.pubmed.txt.gz", (f"{_UCI_BOW}/docword.pubmed.txt.gz",)),
               RemoteFile("vocab.pubmed.txt", (f"{_UCI_BOW}/vocab.pubmed.txt",))),
}


def get_data_home(data_home=None) -> Path:
    """The folder where downloaded data sets are kept.

    ``data_home`` if given, else ``$EIGENSPARSE_DATA``, else ``~/.cache/eigensparse``
    (``~`` expanded). The folder is not created here.

    Examples
    --------
    >>> from eigensparse.datasets import get_data_home
    >>> str(get_data_home("some/folder"))
    'some/folder'
    """
    if data_home is None:
        data_home = os.environ.get(DATA_HOME_ENV) or os.path.join("~", ".cache", "eigensparse")
    return Path(os.path.expanduser(os.fspath(data_home)))


class _Digest:
    """SHA-256 of a byte stream and, for gzip files, of its decompressed content."""

    def __init__(self, gz: bool):
        self.raw = hashlib.sha256()
        self.content = hashlib.sha256() if gz else None
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS) if gz else None
        self.gzip_error = None

    def update(self, block: bytes) -> None:
        self.raw.update(block)
        while self._z is not None and self.gzip_error is None and block:
            try:
                self.content.update(self._z.decompress(block))
            except zlib.error as exc:
                self.gzip_error = str(exc)
                return
            block = self._z.unused_data  # a further gzip member follows
            if block:
                self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)

    def finish(self) -> None:
        if self._z is not None and self.gzip_error is None and not self._z.eof:
            self.gzip_error = "truncated gzip stream"


def _digest_file(path, gz: bool) -> _Digest:
    d = _Digest(gz)
    with open(path, "rb") as f:
        while block := f.read(_CHUNK):
            d.update(block)
    d.finish()
    return d


def _record_path(path) -> Path:
    return Path(os.fspath(path) + ".sha256")


def _verify(remote: RemoteFile, digest: _Digest, where, expected=None) -> None:
    """Raise :class:`ChecksumError` unless ``digest`` matches what ``remote`` promises."""
    got = digest.raw.hexdigest()
    expected = expected or remote.sha256
    if expected is None and remote.content_sha256 is None:
        if digest.gzip_error:
            raise ChecksumError(f"{where}: not a complete gzip file ({digest.gzip_error}).")
        rec = _record_path(where)
        expected = rec.read_text().split()[0] if rec.exists() else None
        if expected is None:
            return
    if expected is not None:
        if got != expected.lower():
            raise ChecksumError(
                f"{where}: SHA-256 {got} does not match the expected {expected} for "
                f"{remote.name}. Delete the file to download it again, or pass "
                f"sha256='{got}' to accept this version.")
        return
    content = None if digest.gzip_error else digest.content.hexdigest()
    if content != remote.content_sha256:
        raise ChecksumError(
            f"{where}: decompressed SHA-256 {content or '(' + str(digest.gzip_error) + ')'} does "
            f"not match the expected {remote.content_sha256} for {remote.name}. Delete the file "
            f"to download it again.")


def _download(url: str, dest, remote: RemoteFile, expected=None, timeout: float = 60.0) -> None:
    """Stream ``url`` into ``dest`` through a temporary file; verify before the rename."""
    import urllib.request

    digest = _Digest(remote.name.endswith(".gz"))
    req = urllib.request.Request(url, headers={"User-Agent": "eigensparse"})
    with urllib.request.urlopen(req, timeout=timeout) as resp, atomic_open(dest, "wb") as f:
        while block := resp.read(_CHUNK):
            digest.update(block)
            f.write(block)
        digest.finish()
        _verify(remote, digest, url, expected)  # raising here removes the temporary file


def _candidates(remote: RemoteFile, path):
    if path is None:
        return []
    p = Path(os.path.expanduser(os.fspath(path)))
    return [p / remote.name] if p.is_dir() else [p]


def _unavailable(dataset, remote, folder, path, errors, caller) -> DataUnavailableError:
    tried = "\n".join(f"  - {e}" for e in errors) or "  - (nothing)"
    return DataUnavailableError(
        f"{caller}: data file {remote.name!r} is not available.\nTried:\n{tried}\n"
        f"Download it from {' or '.join(remote.urls)} and either put it in {folder}{os.sep} "
        f"(the data home is data_home=, else ${DATA_HOME_ENV}, else ~/.cache/eigensparse; "
        f"files go in its '{dataset}' subfolder), or pass path=<the file, or a folder holding "
        f"{remote.name}>.")


def fetch_file(dataset: str, remote: RemoteFile, *, data_home=None, path=None,
               download: bool = True, sha256: str | None = None, caller: str = "fetch_file"
               ) -> Path:
    """Return the verified local path of one file of ``dataset`` (see the module docstring).

    Parameters
    ----------
    dataset : str
        Folder name under the data home (a key of ``REMOTE_FILES``).
    remote : RemoteFile
    data_home, path, download, sha256
        As in the ``fetch_*`` functions.
    caller : str
        Name used in error messages.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> from eigensparse.datasets._remote import REMOTE_FILES, fetch_file
    >>> (senate,) = REMOTE_FILES["senate109"]
    >>> try:
    ...     fetch_file("senate109", senate, data_home="an/empty/folder", download=False)
    ... except FileNotFoundError as exc:
    ...     print(str(exc).splitlines()[0])
    fetch_file: data file 'senateVoting.mat' is not available.
    """
    folder = get_data_home(data_home) / dataset
    cached = folder / remote.name
    gz = remote.name.endswith(".gz")
    errors = []
    for cand in [*_candidates(remote, path), cached]:
        if cand.is_file():
            _verify(remote, _digest_file(cand, gz), cand, sha256)
            _record_first_use(remote, cand, sha256)
            return cand
        errors.append(f"{cand}: no such file")
    if not download:
        errors.append("download=False: no download attempted")
        raise _unavailable(dataset, remote, folder, path, errors, caller)
    for url in remote.urls:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            _download(url, cached, remote, sha256)
        except ChecksumError:
            raise
        except Exception as exc:  # noqa: BLE001 - network errors vary; all are reported
            errors.append(f"{url}: {type(exc).__name__}: {exc}")
            continue
        _record_first_use(remote, cached, sha256)
        return cached
    raise _unavailable(dataset, remote, folder, path, errors, caller)


def _record_first_use(remote: RemoteFile, path: Path, sha256) -> None:
    """Record the SHA-256 of a file that has no published one (trust on first use)."""
    if remote.sha256 or remote.content_sha256 or sha256 or _record_path(path).exists():
        return
    digest = _digest_file(path, False).raw.hexdigest()
    with contextlib.suppress(OSError):  # a read-only folder: verified in full every time
        atomic_write_text(_record_path(path), f"{digest}  {remote.name}\n")


def _fetch_all(dataset, caller, data_home, path, download, sha256) -> dict:
    """Paths of every file of ``dataset``; ``sha256`` is a str (first file) or a dict by name."""
    files = REMOTE_FILES[dataset]
    if isinstance(sha256, str):
        sha256 = {files[0].name: sha256}
    elif sha256 is not None and not isinstance(sha256, dict):
        raise InvalidParameterError(
            f"parameter 'sha256' must be a hex string or a dict {{file name: hex}}; got {sha256!r}.")
    sha256 = sha256 or {}
    return {r.name: fetch_file(dataset, r, data_home=data_home, path=path, download=download,
                               sha256=sha256.get(r.name), caller=caller) for r in files}


_FETCH_PARAMS = """data_home : str or path-like, optional
        Cache folder (default ``$EIGENSPARSE_DATA``, else ``~/.cache/eigensparse``); the files
        live in its ``{dataset}`` subfolder.
    path : str or path-like, optional
        A local copy: the file itself or a folder holding {names}. Used instead of the cache
        and the network (machines without network).
    download : bool, default True
        Download missing files from {urls}.
    sha256 : str or dict, optional
        Accept another version of the file(s): the expected SHA-256 of the first file, or a
        dict ``{{file name: SHA-256}}``."""


_FETCH_EXAMPLE = """
    Examples
    --------
    >>> from eigensparse.datasets import {name}
    >>> try:
    ...     {var} = {name}(download=False{kwargs})
    ... except FileNotFoundError:   # not fetched yet: the message says how to supply it
    ...     {var} = None
    >>> {var} is None or {check}
    True
    """


def _doc(dataset, *, var: str, check: str, kwargs: str = ""):
    """Complete the docstring of a ``fetch_*`` loader of ``dataset``: the shared
    parameters (``%(params)s``) and the shared example, which fetches without the
    network and checks ``check`` on the result ``var`` when the files are there."""
    files = REMOTE_FILES[dataset]

    def deco(func):
        doc = func.__doc__.replace("%(params)s", _FETCH_PARAMS.format(
            dataset=repr(dataset), names=", ".join(f"``{r.name}``" for r in files),
            urls=", ".join(f"``{u}``" for r in files for u in r.urls[:1])))
        func.__doc__ = doc.rstrip() + "\n" + _FETCH_EXAMPLE.format(
            name=func.__name__, var=var, check=check, kwargs=kwargs and ", " + kwargs)
        return func

    return deco
