"""eigensparse: fast, exact sparse principal component analysis.

Front doors: :func:`sparse_pca` (functional), :class:`SparsePCA` (scikit-learn
estimator), the ``eigensparse`` command line, and the operators of
:mod:`eigensparse.operators` for data that arrive in other forms.

``import eigensparse`` imports nothing heavy: every public name (and the sub-packages
``datasets``, ``text``, ``io``, …) is loaded on first use (PEP 562), so that the command
line answers Ctrl-C at once and a script pays only for what it uses.
"""
import importlib

__version__ = "0.1.0"

#: public name -> the module that defines it (imported on first access)
_PUBLIC = {
    "sparse_pca": "._api",
    "SparsePCA": ".estimator",
    "available_methods": "._api",
    "adjusted_variance": "._api",
    "ComponentResult": "._result",
    "SparsePCAResult": "._result",
    "InvalidParameterError": "._validation",
    "Operator": ".operators",
    "DenseData": ".operators",
    "SparseData": ".operators",
    "Covariance": ".operators",
    "as_operator": ".operators",
}

#: sub-packages reachable as attributes (``eigensparse.text``) without an import
_SUBMODULES = ("datasets", "text", "io", "bounds", "screening", "registry", "plotting",
               "stability", "diagnostics", "selection", "operators", "multi", "solvers",
               "relaxation", "cli")

__all__ = [*_PUBLIC, "__version__"]


def __getattr__(name):  # PEP 562: keep `import eigensparse` light
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name], __name__), name)
        globals()[name] = value  # later accesses are plain attribute reads
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'eigensparse' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_PUBLIC, *_SUBMODULES})
