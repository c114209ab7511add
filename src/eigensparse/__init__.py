"""eigensparse: fast, exact sparse principal component analysis.

Front doors: :func:`sparse_pca` (functional), :class:`SparsePCA` (scikit-learn
estimator), the ``eigensparse`` command line, and the operators of
:mod:`eigensparse.operators` for data that arrive in other forms.
"""
from ._api import adjusted_variance, available_methods, sparse_pca
from ._result import ComponentResult, SparsePCAResult
from ._validation import InvalidParameterError
from .operators import Covariance, DenseData, Operator, SparseData, as_operator

__version__ = "0.1.0"

__all__ = [
    "sparse_pca",
    "SparsePCA",
    "available_methods",
    "adjusted_variance",
    "ComponentResult",
    "SparsePCAResult",
    "InvalidParameterError",
    "Operator",
    "DenseData",
    "SparseData",
    "Covariance",
    "as_operator",
    "__version__",
]


def __getattr__(name):  # lazy: keep `import eigensparse` light
    if name == "SparsePCA":
        from .estimator import SparsePCA

        return SparsePCA
    if name in ("datasets", "text", "io", "bounds", "screening", "registry"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'eigensparse' has no attribute {name!r}")
