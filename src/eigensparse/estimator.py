"""scikit-learn estimator :class:`SparsePCA`."""
from __future__ import annotations

import numbers
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, _fit_context
from sklearn.utils.validation import check_is_fitted, validate_data

from ._api import sparse_pca
from ._util import draw_seed
from ._dispatch import (COMPONENT_CONSTRAINTS, DEFAULT_DEFLATION, DEFAULT_ORDER,
                        adjusted_variance_of_gram)
from ._validation import (Interval, InvalidParameterError, check_params,
                          check_real_input)
from .registry import DEFAULT_METHOD
from .operators import Operator, check_frame_columns
from ._validation import check_finite_array
from .io._vocab import check_vocabulary

__all__ = ["SparsePCA"]


class SparsePCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Sparse principal component analysis with an exact number of nonzero loadings.

    Each component has exactly ``cardinality`` nonzero loadings. Components are found
    one at a time by a single-component ``method`` and a ``deflation`` scheme, or
    jointly by a joint method (``"bipartite"``). Dense input is centered explicitly,
    scipy.sparse input implicitly (never densified). A precomputed covariance
    (``eigensparse.Covariance(S, n_samples=n)``) is a normal input to :meth:`fit` and
    :meth:`score`; :meth:`transform` then needs the data's mean, which a covariance does
    not carry, and raises.

    Components are ordered by decreasing variance xᵀΣx (as scikit-learn's PCA; see
    ``order``), and :meth:`score` is the fraction of variance of X the components
    explain (adjusted for their correlation), so model selection by
    ``GridSearchCV``/``cross_val_score`` works; see :meth:`score` for what it rewards.

    Parameters
    ----------
    n_components : int, default=None
        Number of components; None means ``min(5, n_features)``.
    cardinality : int, list of int or "auto", default=None
        Nonzero loadings per component (one int, or one per component); None means
        ``min(10, n_features)``; ``"auto"`` chooses each by ``cardinality_rule``
        (:mod:`eigensparse.selection`; single-component methods).
    cardinality_rule : {"fraction", "knee", "cv", "topics"}, default="fraction"
        Rule of ``cardinality="auto"`` (:mod:`eigensparse.selection`): the smallest s
        reaching ``cardinality_fraction`` of the dense component's variance
        (``"fraction"``), the knee of the variance–cardinality path (``"knee"``),
        cross-validated held-out explained variance (``"cv"``), or a reader's size
        (``"topics"``: the knee of the solver's variances on the grid s = 1, 2, 3, 5, 7,
        10, 14, 20, 30, kept within [5, 30]; the ``topics`` command's rule for ``-s auto``).
    cardinality_fraction : float in (0, 1], default=0.9
        Fraction of the dense component's variance for the ``"fraction"`` rule.
    method : str, default=eigensparse.registry.DEFAULT_METHOD
        Single-component solver or joint method: any name of the method registry
        (:func:`eigensparse.available_methods`, ``eigensparse methods``).
    deflation : {"schur", "projection", "orthogonal", "hotelling", "disjoint"}, default="schur"
        Deflation between components (``"disjoint"``: no variable is reused).
    center : bool, default=True
        Center the data (``False``: uncentered second moments XᵀX/n).
    scale : bool, default=False
        Scale each feature to unit variance (correlation PCA).
    n_starts : int, default=None
        Starting points for the multistart methods (``"auto"``, ``"am"``,
        ``"tpower"``); None keeps the method's default.
    penalty : float, default=None
        Penalty for penalized methods.
    method_options : dict, default=None
        Further keyword options for the solver (e.g. ``{"formulation": "l1_l0_con"}``).
    random_state : int, RandomState instance or None, default=None
        Seeds every randomised step: the same value gives the same output.
    progress : bool, default=False
        Show a progress bar over components.
    order : {"variance", "deflation"}, default="variance"
        Order of the components: by decreasing variance xᵢᵀΣxᵢ on the original Σ, or
        as the deflation (or joint method) found them. Adjusted variances
        (``explained_variance_``) are computed in the returned order. With a list of
        cardinalities, component i always has ``cardinality[i]`` nonzeros: the variance
        sort only exchanges components given the same cardinality.
    refine : {"auto", True, False}, default="auto"
        Cyclic refinement of the deflation chain (see :func:`eigensparse.sparse_pca`):
        never lowers the total adjusted variance; ``"auto"`` refines several components
        of a single-component method with ``"schur"`` or ``"disjoint"`` deflation.
    stability : int, default=None
        Refit on this many bootstrap resamples and set ``stability_``.
    n_jobs : int, default=None
        Parallel refits of ``stability`` (None: 1; -1: all cores).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Unit-norm sparse loading vectors. Sign rule: in each row the entry of largest
        absolute value is positive.
    explained_variance_ : ndarray of shape (n_components,)
        Adjusted variance (Zou, Hastie & Tibshirani 2006): the variance each component
        explains beyond the components before it (R_jj² of the QR decomposition of the
        scores), so correlated components are not double counted.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``explained_variance_ / Tr Σ``.
    component_variances_ : ndarray of shape (n_components,)
        ``xᵀΣx`` of each component on the (undeflated) covariance.
    supports_ : list of ndarray
        Sorted indices of the nonzero loadings of each component.
    mean_ : ndarray of shape (n_features,) or None
        Per-feature mean (zeros when ``center=False``; None when fitted on a precomputed
        covariance, whose mean is unknown).
    scale_ : ndarray of shape (n_features,) or None
        Per-feature scale (ones when ``scale=False``; None when fitted on a precomputed
        covariance).
    n_samples_ : int or None
        Samples the model was fitted on (a covariance's ``n_samples``, possibly None).
    n_iter_ : ndarray of shape (n_components,)
        Iterations of the solver for each component.
    n_components_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined only when ``X`` has string feature names (e.g. a pandas DataFrame).
    result_ : SparsePCAResult
        Everything the solvers returned (per-component results, bounds, paths).
    cardinality_choices_ : list of CardinalityChoice or None
        With ``cardinality="auto"``: each component's choice (path, bounds, reason).
    stability_ : StabilityResult or None
        With ``stability``: the selection frequency of each variable per component
        (:func:`eigensparse.stability.support_stability`).

    Examples
    --------
    >>> import numpy as np
    >>> from eigensparse import Covariance, SparsePCA
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 10))
    >>> X[:, :3] += 2 * rng.standard_normal((300, 1))   # a planted 3-feature factor
    >>> est = SparsePCA(n_components=2, cardinality=3, method="greedy").fit(X)
    >>> est.supports_[0].tolist()
    [0, 1, 2]
    >>> round(est.score(X), 2)
    0.68
    >>> cov = SparsePCA(n_components=2, cardinality=3, method="greedy").fit(
    ...     Covariance(np.cov(X.T, bias=True), n_samples=300))
    >>> bool(np.allclose(cov.components_, est.components_)), cov.n_samples_
    (True, 300)
    """

    _parameter_constraints = {
        **COMPONENT_CONSTRAINTS,  # shared with sparse_pca, extract_topics and the CLI
        "n_starts": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "method_options": [dict, None],
    }

    def __init__(self, n_components=None, *, cardinality=None, method=DEFAULT_METHOD,
                 deflation=DEFAULT_DEFLATION, center=True, scale=False, n_starts=None,
                 penalty=None, method_options=None, random_state=None, progress=False,
                 order=DEFAULT_ORDER, refine="auto", cardinality_rule="fraction",
                 cardinality_fraction=0.9, stability=None, n_jobs=None):
        self.n_components = n_components
        self.cardinality = cardinality
        self.method = method
        self.deflation = deflation
        self.center = center
        self.scale = scale
        self.n_starts = n_starts
        self.penalty = penalty
        self.method_options = method_options
        self.random_state = random_state
        self.progress = progress
        self.order = order
        self.refine = refine

        self.cardinality_rule = cardinality_rule
        self.cardinality_fraction = cardinality_fraction
        self.stability = stability
        self.n_jobs = n_jobs

    def _validate_params(self):
        """The checks of :attr:`_parameter_constraints` (eigensparse's constraints, which
        scikit-learn's own check does not read), raising :class:`InvalidParameterError`."""
        check_params(self.get_params(deep=False), self._parameter_constraints,
                     type(self).__name__)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), scipy.sparse matrix, pandas DataFrame or Operator
            The data, or a precomputed covariance ``eigensparse.Covariance(S, n_samples=n)``
            (then ``center`` is ignored and ``scale=True`` is an error: pass
            ``Covariance(S, scale=True)``).
        y : None
            Ignored.

        Returns
        -------
        self : SparsePCA
        """
        self._fit(X)
        return self

    def _fit(self, X):
        names = None
        if isinstance(X, Operator):
            # a precomputed covariance (or another operator): validated by its class
            self.n_features_in_ = int(X.n_features)
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        elif _is_distributed_or_device(X):
            # a dask.array or a device array: validated by its operator, never pulled here
            self.n_features_in_ = int(X.shape[1]) if X.ndim == 2 else 0
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        else:
            X = self._validate(X, reset=True)
            names = getattr(self, "feature_names_in_", None)
        opts = dict(self.method_options or {})
        if self.n_starts is not None:
            opts["n_starts"] = self.n_starts
        seed = _seed(self.random_state)
        res = sparse_pca(X, n_components=self.n_components, cardinality=self.cardinality,
                         method=self.method, deflation=self.deflation, penalty=self.penalty,
                         center=bool(self.center), scale=bool(self.scale), random_state=seed,
                         progress=bool(self.progress), order=self.order, refine=self.refine,
                         cardinality_rule=self.cardinality_rule,
                         cardinality_fraction=self.cardinality_fraction,
                         stability=self.stability, n_jobs=self.n_jobs, **opts)
        if names is not None:
            res = replace(res, feature_names=[str(n) for n in names])
            if res.info.get("stability") is not None:  # its rows named by the columns too
                res.info["stability"] = replace(res.info["stability"], reference=res)
        self.result_ = res
        self.components_ = res.components
        self.n_components_ = res.components.shape[0]
        self.explained_variance_ = res.explained_variance
        self.explained_variance_ratio_ = res.explained_variance_ratio
        self.component_variances_ = res.variances
        self.supports_ = res.supports
        self.n_iter_ = np.array([r.n_iter for r in res.results], dtype=int)
        mean_known = not isinstance(X, Operator) or getattr(X, "mean_", None) is not None
        self.mean_ = res.info["mean"] if mean_known else None
        self.scale_ = res.info["scale"] if mean_known else None
        self.n_samples_ = getattr(X, "n_samples", None) if isinstance(X, Operator) else int(X.shape[0])
        self.cardinality_choices_ = res.cardinality_choices
        self.stability_ = res.stability
        return X

    def _validate(self, X, *, reset: bool):
        """X checked once at the estimator's boundary: a DataFrame's non-numeric columns
        named, NaN/inf reported by our own error, feature names recorded (``reset``) or
        compared with the fitted ones."""
        check_frame_columns(X, "X")
        if reset and hasattr(X, "columns") and hasattr(X, "iloc"):  # blank or repeated names
            check_vocabulary(X.columns, "X", entry="column")
        check_real_input(X)  # complex, dates, time spans: refused, never cast
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64,
                          ensure_all_finite=False, reset=reset,
                          **({"ensure_min_samples": 2} if reset else {}))
        check_finite_array(X, "X")
        return X

    def _require_mean(self, what: str) -> None:
        if self.mean_ is None:
            raise InvalidParameterError(
                f"SparsePCA.{what} needs data, but the model was fitted on a precomputed covariance "
                "(eigensparse.Covariance), which carries no mean to center new data with; fit on "
                "the data matrix instead (score also accepts a Covariance).")

    def support_stability(self, X, n_resamples=20, *, resampling="bootstrap", n_jobs=None,
                          random_state=None):
        """Support stability of the fitted components over resamples of X (the data they
        were fitted on): :func:`eigensparse.stability.support_stability` with this fit as
        the reference; also sets ``stability_``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        n_resamples : int, default=20
        resampling : {"bootstrap", "subsample"}, default="bootstrap"
        n_jobs : int, optional
            Parallel refits (default: the estimator's ``n_jobs``).
        random_state : None or int, optional
            Default: the estimator's ``random_state``.

        Returns
        -------
        StabilityResult
        """
        from .stability import support_stability

        check_is_fitted(self)
        if not _is_distributed_or_device(X):
            X = self._validate(X, reset=False)
        opts = dict(self.method_options or {})
        if self.n_starts is not None:
            opts["n_starts"] = self.n_starts
        self.stability_ = support_stability(
            X, n_resamples=n_resamples, resampling=resampling, reference=self.result_,
            n_jobs=self.n_jobs if n_jobs is None else n_jobs, center=bool(self.center),
            scale=bool(self.scale), penalty=self.penalty,
            random_state=_seed(self.random_state if random_state is None else random_state),
            **opts)
        return self.stability_

    def _projection(self):
        return (self.components_ / self.scale_).T  # (p, k): maps raw centered rows to scores

    def transform(self, X):
        """Project X onto the components: ((X − mean_) / scale_) @ components_.T.

        Sparse X stays sparse (the centering is applied to the product).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or scipy.sparse matrix

        Returns
        -------
        ndarray of shape (n_samples, n_components)
        """
        check_is_fitted(self)
        self._require_mean("transform")
        if _is_distributed_or_device(X):
            return _transform_lazy(X, self._projection(), self.mean_, self.n_features_in_)
        X = self._validate(X, reset=False)
        return self._scores(X)

    def _scores(self, X):
        """The scores of an X already validated (an array: its feature names were checked
        by the caller, so no second check warns about their absence)."""
        P = self._projection()
        Z = X @ P
        return np.asarray(Z) - self.mean_ @ P

    def fit_transform(self, X, y=None):
        """Fit, then transform X; returns scores of shape (n_samples, n_components)."""
        return self.fit(X).transform(X)

    def inverse_transform(self, X):
        """Map scores of shape (n_samples, n_components) back to feature space."""
        check_is_fitted(self)
        self._require_mean("inverse_transform")
        if sp.issparse(X):
            X = X.toarray()
        X = np.asarray(X)
        check_real_input(X)  # complex scores refused, never cast
        X = X.astype(np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_components_:
            raise InvalidParameterError(
                f"parameter 'X' of inverse_transform must have shape (n_samples, {self.n_components_}); "
                f"got {X.shape}.")
        check_finite_array(X, "X")
        return X @ (self.components_ * self.scale_) + self.mean_

    def score(self, X, y=None):
        """Fraction of the variance of X explained by the components (higher is better).

        The quantity is the *adjusted* explained variance (Zou, Hastie & Tibshirani 2006)
        of X on the fitted components, as a fraction of X's total variance:
        ``sum(R_jj²) / Tr Σ_X``, where Σ_X is the second-moment matrix of X centered with
        the fitted ``mean_`` and divided by the fitted ``scale_`` (the model's own
        preprocessing, as for :meth:`transform`), and R is the QR factor of the scores
        ``Z = ((X − mean_)/scale_) @ components_.T / √n``. Components whose scores are
        correlated are not double counted. It lies in [0, 1]; it is ``0.0`` for X with
        no variance.

        There is no ``score_samples``: the adjusted variance is a property of the whole
        score matrix (its QR), not a sum over samples.

        What it rewards: on the data the model was fitted on, more nonzero loadings
        never explain less, so a grid over ``cardinality`` alone mostly picks its
        largest value in-sample; on held-out folds (``GridSearchCV``,
        ``cross_val_score``) loadings fitted to noise are penalised, and comparisons at
        a fixed number of nonzeros (methods, deflations, or how a budget is split
        among ``n_components``) are fair.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), scipy.sparse matrix or Covariance
            The data, or a precomputed covariance (taken as centered and, for a model fitted
            with ``scale=True``, divided by ``scale_``).
        y : None
            Ignored.

        Returns
        -------
        float

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.model_selection import cross_val_score
        >>> from eigensparse import SparsePCA
        >>> rng = np.random.default_rng(0)
        >>> X = rng.standard_normal((300, 10))
        >>> X[:, :3] += 2 * rng.standard_normal((300, 1))
        >>> scores = cross_val_score(SparsePCA(1, cardinality=3, method="greedy"), X, cv=3)
        >>> bool(np.all((0.5 < scores) & (scores < 0.7)))
        True
        """
        check_is_fitted(self)
        if isinstance(X, Operator):
            G, total = self._gram_of_covariance(X)
        else:
            self._require_mean("score")
            X = self._validate(X, reset=False)
            Z = self._scores(X)
            G = Z.T @ Z / X.shape[0]
            total = _centered_total_variance(X, self.mean_, self.scale_)
        if not total > 0:
            return 0.0
        return float(np.sum(adjusted_variance_of_gram(G)) / total)

    def _gram_of_covariance(self, cov):
        if int(cov.n_features) != self.n_features_in_:
            raise InvalidParameterError(
                f"X has {cov.n_features} features, but SparsePCA is expecting "
                f"{self.n_features_in_} features as input.")
        P = self.components_.T if self.scale_ is None else self._projection()
        d = cov.diag() if self.scale_ is None else cov.diag() / self.scale_ ** 2
        return P.T @ cov.matmat(P), float(np.sum(d))

    def summary(self, n_loadings=5):
        """A one-look table of the fitted components (see
        :meth:`eigensparse.SparsePCAResult.summary`).

        Parameters
        ----------
        n_loadings : int, default=5
            Largest-|.| loadings shown per component.

        Returns
        -------
        str

        Examples
        --------
        >>> import numpy as np
        >>> from eigensparse import SparsePCA
        >>> X = np.random.default_rng(0).standard_normal((50, 6))
        >>> print(SparsePCA(2, cardinality=2, method="greedy").fit(X).summary())  # doctest: +ELLIPSIS
        SparsePCA: 2 components, 6 features, method 'greedy', deflation 'schur'...
        """
        check_is_fitted(self)
        return self.result_.summary(n_loadings=n_loadings, title=type(self).__name__)

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def topics(self, vocabulary=None, n_words=None):
        """Each component's words ordered by decreasing |loading|.

        Parameters
        ----------
        vocabulary : sequence of str, optional
            One name per feature; defaults to ``feature_names_in_`` or ``x0, x1, ...``.
        n_words : int, optional
            Keep at most this many words per component.

        Returns
        -------
        list of list of (str, float)
        """
        check_is_fitted(self)
        p = self.components_.shape[1]
        if vocabulary is None:
            vocabulary = getattr(self, "feature_names_in_", None)
            if vocabulary is None:
                vocabulary = [f"x{i}" for i in range(p)]
        vocabulary = check_vocabulary(vocabulary, "vocabulary")
        if len(vocabulary) != p:
            raise InvalidParameterError(
                f"parameter 'vocabulary' has {len(vocabulary)} entries but the model has "
                f"n_features={p}.")
        out = []
        for c, supp in zip(self.components_, self.supports_):
            order = supp[np.argsort(-np.abs(c[supp]), kind="stable")]
            if n_words is not None:
                order = order[:n_words]
            out.append([(vocabulary[i], float(c[i])) for i in order])
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _centered_total_variance(X, mean, scale) -> float:
    """Tr of the second moments of (X − mean)/scale (sparse X is never densified)."""
    n = X.shape[0]
    if sp.issparse(X):
        sq = np.asarray(X.multiply(X).sum(axis=0)).ravel()
        col = np.asarray(X.sum(axis=0)).ravel()
        per = (sq - 2 * mean * col + n * mean ** 2) / n
    else:
        per = np.mean((X - mean) ** 2, axis=0)
    return float(np.sum(per / scale ** 2))


def _seed(random_state):
    """An int, None or Generator from scikit-learn's random_state (a RandomState draws one)."""
    if isinstance(random_state, np.random.RandomState):
        return draw_seed(random_state)
    return random_state


def _is_distributed_or_device(X) -> bool:
    from .operators import is_array_api_array, is_dask_array

    return is_dask_array(X) or is_array_api_array(X)


def _transform_lazy(X, P, mean, n_features):
    """Scores of a dask.array (a dask.array, lazily) or a device array (on its device)."""
    from .operators import is_dask_array
    from .operators._xp import array_namespace_of

    if X.ndim != 2 or int(X.shape[1]) != n_features:
        raise InvalidParameterError(
            f"X has {X.shape[1] if X.ndim == 2 else X.shape} features, but SparsePCA is expecting "
            f"{n_features} features as input.")
    offset = mean @ P
    if is_dask_array(X):
        if len(X.chunks[1]) > 1:
            X = X.rechunk({1: -1})
        return X.map_blocks(lambda b: np.asarray(b @ P) - offset, dtype=np.float64,
                            chunks=(X.chunks[0], (P.shape[1],)),
                            meta=np.empty((0, 0)))
    xp = array_namespace_of(X)
    dtype = X.dtype if X.dtype in (xp.float32, xp.float64) else xp.float64
    Pd = xp.asarray(P, dtype=dtype, device=X.device)
    od = xp.asarray(offset, dtype=dtype, device=X.device)
    return xp.astype(X, dtype) @ Pd - od
