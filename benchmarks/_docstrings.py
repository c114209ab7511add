"""A real document-word matrix built at run time: the docstrings of installed packages.

Each document is the description part of one public docstring (the text before its
numpydoc ``Parameters``/``Returns``/... section) of the public modules of NumPy, SciPy
and scikit-learn installed here; the words are scikit-learn's ``CountVectorizer``
tokens. Nothing is downloaded; the size depends on the installed versions (about
6,000 documents × 13,000 words and 220,000 nonzeros with NumPy 2, SciPy 1.1x and
scikit-learn 1.x), and the benchmark prints what it got.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import warnings

#: the packages whose docstrings make the corpus
PACKAGES = ("numpy", "scipy", "sklearn")
_SECTION = re.compile(r"\n\s*(Parameters|Returns|Yields|Attributes|Examples|See Also|Notes|"
                      r"References|Raises|Warns|Methods)\s*\n\s*-{3,}")


def _modules(name: str) -> list:
    root = importlib.import_module(name)
    mods = [root]
    for info in pkgutil.walk_packages(getattr(root, "__path__", []), name + "."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") or p in ("tests", "testing", "conftest") for p in parts):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mods.append(importlib.import_module(info.name))
        except BaseException:  # noqa: BLE001 - optional submodules (missing extras)
            continue
    return mods


def docstrings(packages=PACKAGES) -> list[str]:
    """The description of every public docstring (longer than 40 characters) of the
    public modules of ``packages``, one per documented object, sorted by its name."""
    docs: dict = {}
    for name in packages:
        try:
            mods = _modules(name)
        except ImportError:
            continue
        for mod in mods:
            for key, obj in list(vars(mod).items()):
                doc = getattr(obj, "__doc__", None)
                if key.startswith("_") or not isinstance(doc, str) or len(doc) <= 40:
                    continue
                qual = f"{getattr(obj, '__module__', None) or mod.__name__}." \
                       f"{getattr(obj, '__qualname__', key)}"
                docs.setdefault(qual, doc)
    out = []
    for k in sorted(docs):
        text = inspect.cleandoc(docs[k])
        m = _SECTION.search(text)
        out.append(text[:m.start()] if m else text)
    return out


def docstring_matrix(packages=PACKAGES):
    """``(X, words)``: the documents × words count matrix (CSR) and the vocabulary."""
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer()
    X = vec.fit_transform(docstrings(packages)).tocsr()
    return X.astype(float), list(vec.get_feature_names_out())
