"""Choosing the cardinality of each sparse component (``cardinality="auto"``).

Three rules, by name:

- ``"fraction"`` (default; the handbook's rule, §4.1): the smallest s whose sparse
  component explains at least ``fraction`` of λmax(Σ), the variance of the dense leading
  component of the (deflated) operator. The variance reached per s comes from the
  variance–cardinality path (:func:`eigensparse.diagnostics.variance_cardinality_path`,
  greedy by default), computed for s = 16, 32, 64, … and stopped as soon as the variance
  *reached* proves the fraction attainable. Whether s−1 could also reach it is then
  decided by the upper bounds on v(s−1) (ℓ0 dual, DSPCA dual, Gershgorin, Prop. 2
  certificate): when the best bound is below the threshold, s is proven minimal;
  otherwise the report says so and gives the interval [s_lower, s] the true minimum lies in.
- ``"knee"``: the knee of the normalised path y(s) = v(s)/λmax on s = 1..s_max, the s of
  largest vertical distance above the chord joining (1, y(1)) and (s_max, y(s_max))
  (the "Kneedle" rule of Satopää et al. 2011).
- ``"topics"`` (the ``topics`` command's rule for ``-s auto``): a reader's size, not a
  statistician's. The front door's solver is run on the grid s = 1, 2, 3, 5, 7, 10, 14, 20, 30
  (nine solves; seconds on a working set) and s is the knee of those values (the grid point
  of largest distance above the chord once both axes are scaled to [0, 1], as Kneedle),
  never below :data:`TOPIC_CARDINALITY_MIN` = 5 nor above :data:`TOPIC_CARDINALITY_MAX` = 30
  words. The fraction rule on a corpus asks for 90% of the dense component's variance,
  which takes tens to hundreds of words (mixed signs, site boilerplate) and minutes.
- ``"cv"``: K-fold cross-validation over the rows of the data. On each training fold
  (deflated by the ``previous`` components) a component is fitted at each s = 1..K: by the
  request's own solve when a front door asks (``cardinality="auto"``: the method, its
  options and seeds of the fit, as every refit of a request), otherwise from the fold's
  path. Each component's loadings are scored by the held-out *adjusted* explained variance (Zou, Hastie &
  Tibshirani; :func:`eigensparse.adjusted_variance`) of the test fold, given the previous
  components. The chosen s is the smallest one whose mean score is within one standard
  error of the best mean (``cv_select="one_se"``, the default) or the best (``"max"``).

:func:`resolve_auto_cardinalities` applies a rule to each successive component on the
deflated operator, reusing :func:`eigensparse.multi.run_deflation`; it is the hook a front
door calls for ``cardinality="auto"``.
"""
from __future__ import annotations

import inspect
from numbers import Integral, Real
from dataclasses import dataclass, replace

import numpy as np

from ._cardinality_rules import (_RTOL, TOPIC_CARDINALITY_MAX, TOPIC_CARDINALITY_MIN,
                                 TOPIC_GRID, CardinalityChoice, _choose_cv, _choose_fraction, _choose_knee,
                                 _choose_topics, _refiner)
from ._linalg import lambda_max_op
from ._validation import (Interval, IntInterval, InvalidParameterError, StrOptions, closest,
                          validate_params)
from .operators import Operator, as_operator

__all__ = ["RULES", "TOPIC_CARDINALITY_MIN", "TOPIC_CARDINALITY_MAX", "TOPIC_GRID", "CardinalityChoice", "AutoCardinalities", "choose_cardinality",
           "resolve_auto_cardinalities"]

RULES = ("fraction", "knee", "cv", "topics")


@dataclass(frozen=True)
class AutoCardinalities:
    """Per-component choices of :func:`resolve_auto_cardinalities`.

    Attributes
    ----------
    cardinalities : list of int
    choices : list of CardinalityChoice
    results : list of ComponentResult
        The components found (loadings on the operator's features), ready for a front door.
    deflation : str

    Examples
    --------
    >>> import eigensparse as es
    >>> P = es.Covariance(es.datasets.load_pitprops().data)
    >>> from eigensparse.selection import resolve_auto_cardinalities
    >>> auto = resolve_auto_cardinalities(P, 2, fraction=0.8)
    >>> auto.cardinalities, len(auto.choices), auto.deflation
    ([5, 3], 2, 'schur')
    """

    cardinalities: list
    choices: list
    results: list
    deflation: str


#: the rule parameters of :func:`choose_cardinality` and :func:`resolve_auto_cardinalities`
_CONSTRAINTS = {
    "rule": [StrOptions(set(RULES))],
    "fraction": [Interval(Real, 0, 1, closed="right")],
    "s_max": [None, Interval(Integral, 1, None, closed="left")],
    "n_folds": [Interval(Integral, 2, None, closed="left")],
    "cv_select": [StrOptions({"one_se", "max"})],
    "n_components": [Interval(Integral, 1, None, closed="left")],
    "exact_supports": [IntInterval(0, None, closed="left")],
    "certify": [None, "boolean"],
    "relaxation": [None, "boolean"],
    "method_options": [None, dict],
    "random_state": ["random_state", np.random.Generator],
    "center": ["boolean"],
    "scale": ["boolean"],
}


def _check_common(rule, fraction, s_max, p, previous=None):
    """What depends on the operator: ``s_max`` at most ``n_features``, ``previous``
    components on its features."""
    if s_max is not None and not s_max <= p:
        raise InvalidParameterError(
            f"parameter 's_max' must be None or an int in [1, n_features={p}]; got {s_max!r}.")
    if previous is not None:
        try:
            P = np.atleast_2d(np.asarray(previous, dtype=float))
        except (TypeError, ValueError):
            P = None
        if P is None or P.ndim != 2 or P.shape[1] != p or not np.all(np.isfinite(P)):
            raise InvalidParameterError(
                f"parameter 'previous' must be None or finite components (m, n_features={p}); "
                f"got {'shape ' + str(P.shape) if P is not None else type(previous).__name__}"
                f"{' with NaN or infinite values' if P is not None and P.shape[-1:] == (p,) else ''}.")


@validate_params(_CONSTRAINTS)
def choose_cardinality(data_or_op, *, rule="fraction", fraction=0.9, s_max=None, method=None,
                       method_options=None, path_method="greedy", random_state=None,
                       certify=None, relaxation=None, exact_supports=200_000, n_folds=5,
                       cv_select="one_se", previous=None, deflation="schur", center=True,
                       scale=False) -> CardinalityChoice:
    """Choose the cardinality of the leading sparse component of ``data_or_op``.

    Parameters
    ----------
    data_or_op : Operator, array (n_samples, n_features) or scipy.sparse matrix
        Typically an already deflated operator. The ``"cv"`` rule needs the data rows
        (an array or sparse matrix, not an operator).
    rule : {"fraction", "knee", "cv", "topics"}, default="fraction"
        See the module docstring (``"topics"``: a topic-sized s in [5, 30], the ``topics``
        command's rule).
    fraction : float in (0, 1], default=0.9
        ``"fraction"`` rule: the share of λmax(Σ) to reach.
    s_max : int, optional
        Largest cardinality considered (default: n_features for ``"fraction"``,
        min(n_features, 100) for ``"knee"`` and ``"cv"``).
    method : str or callable, optional
        ``"fraction"`` rule: the solver that refines the path near the crossing: a solver
        name, or ``solve(op, s) -> ComponentResult`` (a front door passes its own). The
        greedy path gives a first s; the solver is then run by bisection between the
        bounds' lower limit and s, and the smallest s it brings to the threshold is kept
        (greedy paths can be far from optimal: 20 newsgroups, s=26: greedy 0.899·λmax,
        tpower with 20 starts 0.946·λmax). Default ``"tpower"`` with ``n_starts=20``;
        ``False`` keeps the path alone. ``"cv"`` rule: when given, each training fold's
        component at s = 1..K is this solver's (a front door passes its request's solve,
        so every fold is fitted as the request); default: the fold's path supports.
    method_options : dict, optional
        Options of a named ``method``.
    path_method : str, default="greedy"
        Solver of the variance–cardinality path (a path method computes every cardinality
        in one run; another solver runs once per cardinality).
    random_state : None, int or Generator
        For randomised solvers and the CV folds.
    certify : bool, optional
        ``"fraction"`` rule: when the other bounds do not prove s minimal, test the path's
        support of size s−1 with the Prop. 2 certificate (one more bound on v(s−1), exact
        when it certifies; seconds per call; default when n_features <= 300).
    relaxation : bool, optional
        ``"fraction"`` rule: the DSPCA dual bound (default when n_features <= 300).
    exact_supports : int, default=200_000
        ``"fraction"`` rule: when the bounds leave s−1 open and C(n_features, s−1) is at
        most this, v(s−1) is computed exactly by exhaustive search (which either proves s
        minimal or finds a support of size s−1 reaching the threshold, and so on down).
        0 disables it.
    n_folds : int, default=5
        ``"cv"`` rule: number of folds (>= 2).
    cv_select : {"one_se", "max"}, default="one_se"
    previous : ndarray (m, n_features), optional
        ``"cv"`` rule: components already found (on the original features); the training
        operators are deflated by them with ``deflation`` and the held-out score is the
        adjusted variance given them.
    deflation : str, default="schur"
        ``"cv"`` rule: the scheme used with ``previous``.
    center, scale : bool
        How data are turned into an operator.

    Returns
    -------
    CardinalityChoice

    Examples
    --------
    >>> import eigensparse as es
    >>> P = es.Covariance(es.datasets.load_pitprops().data)
    >>> from eigensparse.selection import choose_cardinality
    >>> choose_cardinality(P, fraction=0.8).cardinality  # smallest s reaching 80% of λ1
    5
    """
    op = data_or_op if isinstance(data_or_op, Operator) else as_operator(
        data_or_op, center=center, scale=scale)
    p = op.n_features
    _check_common(rule, fraction, s_max, p, previous)
    lam1 = _lambda_max_lanczos(op) if rule == "topics" else lambda_max_op(op)
    solver = _request_solver(method, method_options, random_state)
    choice = _choose(data_or_op, op, p, lam1, rule, fraction, s_max, method, method_options,
                     path_method, random_state, certify, relaxation, exact_supports, n_folds,
                     cv_select, previous, deflation, center, scale, solver)
    # a front door's solve may carry state (a working set, the topics found so far): the
    # plot's later solves use the named method, or the default one, which carry none
    later = _request_solver(None if callable(method) else method, method_options, random_state)
    return replace(choice, solver=later, operator=op)


def _lambda_max_lanczos(op) -> float:
    """λmax by Lanczos on the operator's products (the topics rule only reports v/λmax)."""
    v0 = np.sqrt(np.maximum(np.asarray(op.diag(), dtype=float), 0.0)) + 1e-12
    return lambda_max_op(op, dense_max=64, tol=1e-8, v0=v0)


@dataclass(frozen=True)
class _NamedSolver:
    """``solve(op, s)`` by a method of the registry, by name: a module-level callable, so a
    :class:`CardinalityChoice` holding it (and every result, estimator and ``--json``
    document that holds the choice) pickles."""

    method: str
    options: dict
    random_state: object

    def __call__(self, op, s):
        from .solvers import get_solver

        return get_solver(self.method).func(op, s, random_state=self.random_state,
                                            **self.options)


def _request_solver(method, options, random_state):
    """``solve(op, s)``: the front door's solver, or the named method, or the default method."""
    if callable(method):
        return method
    from .registry import DEFAULT_METHOD
    from .solvers import get_solver

    name = DEFAULT_METHOD if method in (None, False) else method
    get_solver(name)  # an unknown name fails here, with the list of methods
    opts = dict(options or {}) if method not in (None, False) else {}
    return _NamedSolver(name, opts, random_state)


def _choose(data_or_op, op, p, lam1, rule, fraction, s_max, method, method_options, path_method,
            random_state, certify, relaxation, exact_supports, n_folds, cv_select, previous,
            deflation, center, scale, solver):
    if rule == "topics":
        return _choose_topics(op, lam1, s_max or p, solver)
    if rule == "fraction":
        refine = _refiner(method, method_options, random_state)
        return _choose_fraction(op, lam1, float(fraction), s_max or p, path_method, refine,
                                random_state, p <= 300 if certify is None else certify,
                                p <= 300 if relaxation is None else relaxation,
                                exact_supports)
    method_given, method = method, path_method
    K = s_max or min(p, 100)
    if rule == "knee":
        return _choose_knee(op, lam1, K, method, random_state)
    if isinstance(data_or_op, Operator):
        raise InvalidParameterError(
            "parameter 'rule'='cv' needs the data rows (an array or sparse matrix); "
            f"got an operator ({op.kind}).")
    return _choose_cv(data_or_op, op, lam1, K, method, random_state, int(n_folds), cv_select,
                      previous, deflation, center, scale,
                      fit=None if method_given in (None, False) else solver)


@validate_params(_CONSTRAINTS, prefer_skip_nested_validation=False)  # **rule_options:
def resolve_auto_cardinalities(op, n_components, *, deflation="schur", rule="fraction",
                               fraction=0.9, s_max=None, method=None, solve=None, probe=None,
                               data=None, random_state=None, found=None,
                               **rule_options) -> AutoCardinalities:
    """Choose a cardinality for each of ``n_components`` successive components.

    Component t's cardinality is chosen by :func:`choose_cardinality` on the operator
    deflated by the components before it (:func:`eigensparse.multi.run_deflation`, any
    scheme). This is the hook of ``cardinality="auto"``.

    Parameters
    ----------
    op : Operator
    n_components : int
    deflation : str
    rule, fraction, s_max, method, random_state
        As :func:`choose_cardinality` (``random_state`` is passed to each choice).
    solve : callable, optional
        ``solve(operator, s, t) -> ComponentResult``: the front door's solver, called with
        the chosen s (and, without ``probe``, to refine the path); the component it
        returns is the one deflated, unless the rule's own support of size s explains more (then that one,
        so the component returned reaches what the choice reports). Default: the
        component the rule's path found at s.
    probe : callable, optional
        ``probe(operator, s, t)``: the solver the rule runs at the cardinalities it tries
        for component t (default: ``solve``).
    data : array (n_samples, n_features), optional
        The data rows; required by ``rule="cv"``.
    found : list, optional
        Passed to :func:`eigensparse.multi.run_deflation`: appended to as components are
        found, on the operator's features (a front door's ``solve`` may read it, e.g. the
        topic pipeline's disjoint words).
    **rule_options
        Other :func:`choose_cardinality` options (``certify``, ``relaxation``,
        ``n_folds``, ``cv_select``).

    Returns
    -------
    AutoCardinalities

    Examples
    --------
    >>> import eigensparse as es
    >>> P = es.Covariance(es.datasets.load_pitprops().data)
    >>> from eigensparse.selection import resolve_auto_cardinalities
    >>> resolve_auto_cardinalities(P, 2, fraction=0.8).cardinalities
    [5, 3]
    """
    from .multi import run_deflation

    if not isinstance(op, Operator):  # data, as choose_cardinality takes it
        op = as_operator(op)
    own = {"data_or_op", "rule", "fraction", "s_max", "method", "random_state", "previous",
           "deflation"}  # set here, per component
    valid = sorted(set(inspect.signature(choose_cardinality).parameters) - own)
    unknown = sorted(set(rule_options) - set(valid))
    if unknown:
        hint = closest(unknown[0], valid)
        raise InvalidParameterError(
            f"resolve_auto_cardinalities got unknown option(s) {unknown}"
            + (f" (did you mean {hint!r}?)" if hint else "") + f"; valid options: {valid}.")
    if n_components > op.n_features:
        raise InvalidParameterError(
            f"parameter 'n_components' must be an int in [1, n_features={op.n_features}]; "
            f"got {n_components!r}.")
    if rule == "cv" and data is None:
        raise InvalidParameterError(
            "parameter 'cardinality_rule'='cv' cross-validates on the rows of a data matrix, "
            "which this input does not have (a precomputed covariance, or the covariance of a "
            "corpus in topics); use 'fraction' or 'knee' (or pass the data matrix).")
    if rule == "cv" and deflation == "disjoint":
        raise InvalidParameterError(
            "parameter 'deflation'='disjoint' is not supported with rule='cv'.")
    choices = []
    previous = []  # the components as solved (on the original features unless disjoint)

    def solve_auto(sub, _placeholder, t):
        if sub.n_features == 0:  # disjoint deflation: the components before took every feature
            raise InvalidParameterError(
                f"parameter 'n_components'={n_components} with cardinality='auto' and "
                f"deflation={deflation!r}: the first {t} components use all "
                f"{op.n_features} features, none is left for component {t + 1}; ask for "
                f"at most {t} components or give the cardinalities.")
        refine = method
        if refine is None and solve is not None:
            def refine(o, s_, t=t, at=solve if probe is None else probe):
                return at(o, s_, t)
        if rule == "cv":  # each training fold fitted by the request's own solve
            prev = np.vstack([r.loadings for r in previous]) if previous else None
            ch = choose_cardinality(data, rule="cv", s_max=s_max, method=refine,
                                    random_state=random_state, previous=prev,
                                    deflation=deflation, **rule_options)
        else:
            ch = choose_cardinality(sub, rule=rule, fraction=fraction, s_max=s_max,
                                    method=refine, random_state=random_state, **rule_options)
        r = ch.result if solve is None else solve(sub, ch.cardinality, t)
        if r.variance < ch.result.variance * (1 - _RTOL):  # the path's support is better
            r = ch.result
        j = ch.cardinality - 1
        if not r.variance <= ch.variances[j]:  # the choice reports what the component reaches
            v = np.array(ch.variances, dtype=float)
            v[j] = r.variance
            ch = replace(ch, variances=v)
        choices.append(ch)
        previous.append(r)
        return r

    # placeholder cardinalities of 1: run_deflation only uses them to check the disjoint budget
    results = run_deflation(op, solve_auto, [1] * n_components, deflation, found=found)
    return AutoCardinalities([c.cardinality for c in choices], choices, results, deflation)
