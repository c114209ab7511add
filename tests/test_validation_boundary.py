"""One validation boundary: parameter constraints (eigensparse's, in scikit-learn's
vocabulary and wording) declared once, checked once at the entry point, and trusted below it.

The rule the source walk enforces (``test_no_validation_outside_the_boundary``):

1. **Constraints are declared, not called.** A call of ``check_params`` or of
   scikit-learn's ``validate_parameter_constraints`` appears only in the boundary modules
   (:data:`BOUNDARY`). Everywhere else a function's parameter constraints are declared:
   ``@validate_params({...})`` on a public function, ``@register(..., constraints=...)`` /
   ``@register_joint(...)`` on a method (its :class:`~eigensparse.registry.MethodSpec`),
   ``_parameter_constraints`` on the estimator.
2. **No hand-written type checks of parameters.** Outside the boundary modules, no
   ``if`` whose test is ``isinstance(p, T)`` for a parameter ``p`` of the enclosing
   function and a number type ``T`` (``Integral``, ``Real``, ``Number``, ``bool``,
   ``int``, ``float``, ``integer``, ``floating``, plain or as ``numbers.X`` / ``np.X``)
   has a body that raises ``InvalidParameterError``: that is a constraint (``Interval``,
   ``"boolean"``) written by hand. Checks that depend on the data (a cardinality at most
   ``n_features``, a file's content) and dispatch on what an argument is (a path ``str``
   or a matrix, an operator) are not type checks of a parameter's value and stay where
   the data are.

:data:`PENDING` lists, by module, the sites left in files that other branches of the same
change own; the test fails when one of them is gone (remove it from the list) or when a
new site appears anywhere.
"""
from __future__ import annotations

import ast
import pathlib
import warnings

import numpy as np
import pytest

import eigensparse as es
from eigensparse import _validation
from eigensparse.registry import get_method, methods

SRC = pathlib.Path(es.__file__).parent

#: the modules that may check parameters by calling the constraint machinery, or write
#: their own checks: the machinery and error class, the registry (a method's options
#: against its spec), the dispatcher (the one normaliser of a request), the front doors
#: (``extract_topics``' options are its :class:`~eigensparse.text.TopicConfig`)
BOUNDARY = {"eigensparse._validation", "eigensparse._constraints", "eigensparse.registry", "eigensparse._dispatch",
            "eigensparse._api", "eigensparse.estimator", "eigensparse.cli",
            "eigensparse.text._config"}

#: sites left in files owned by other branches of the change: (module, function, what)
PENDING = {
    ("eigensparse._summary", "format_summary", "isinstance n_loadings"),
    ("eigensparse.multi._refine", "resolve_refine", "isinstance refine"),
    ("eigensparse.text._bounded", "_check", "call check_params"),
}

_SCALAR_TYPES = {"Integral", "Real", "Number", "bool", "int", "float", "integer", "floating"}
_CHECK_CALLS = {"check_params", "check_constraints", "validate_parameter_constraints"}


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _in_boundary(module: str) -> bool:
    return any(module == b or module.startswith(b + ".") for b in BOUNDARY)


def _raises_invalid_parameter(nodes) -> bool:
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Raise) and n.exc is not None:
                f = n.exc.func if isinstance(n.exc, ast.Call) else n.exc
                if getattr(f, "id", getattr(f, "attr", None)) == "InvalidParameterError":
                    return True
    return False


def _is_scalar_type(node) -> bool:
    types = node.elts if isinstance(node, ast.Tuple) else [node]
    return any(getattr(t, "id", getattr(t, "attr", None)) in _SCALAR_TYPES for t in types)


def _sites(tree) -> set:
    """(function, what) of every check outside the rule in ``tree``."""
    found = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        a = fn.args
        params = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
        for node in ast.walk(fn):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in _CHECK_CALLS):
                found.add((fn.name, f"call {node.func.id}"))
            if isinstance(node, ast.If) and _raises_invalid_parameter(node.body):
                for c in ast.walk(node.test):
                    if (isinstance(c, ast.Call) and getattr(c.func, "id", None) == "isinstance"
                            and len(c.args) == 2 and isinstance(c.args[0], ast.Name)
                            and c.args[0].id in params and _is_scalar_type(c.args[1])):
                        found.add((fn.name, f"isinstance {c.args[0].id}"))
    return found


def test_the_walk_finds_what_it_forbids():
    """The walk flags both kinds of site, and not a data check or a type dispatch."""
    bad = ast.parse(
        "def f(n, *, tol=0.1):\n"
        "    if isinstance(n, bool) or not isinstance(n, numbers.Integral):\n"
        "        raise InvalidParameterError('n')\n"
        "    check_params({'tol': tol}, {}, 'f')\n")
    assert _sites(bad) == {("f", "isinstance n"), ("f", "call check_params")}
    fine = ast.parse(
        "def g(op, s, path):\n"
        "    if s > op.n_features:\n"
        "        raise InvalidParameterError('s')\n"
        "    if isinstance(path, Operator):\n"
        "        raise InvalidParameterError('path')\n")
    assert _sites(fine) == set()


def test_no_validation_outside_the_boundary():
    found = set()
    for path in sorted(SRC.rglob("*.py")):
        module = _module_name(path)
        if _in_boundary(module):
            continue
        found |= {(module, *site) for site in _sites(ast.parse(path.read_text()))}
    new = sorted(found - PENDING)
    assert not new, f"validation outside the boundary (declare constraints instead): {new}"
    gone = sorted(PENDING - found)
    assert not gone, f"fixed: remove these from PENDING: {gone}"


def test_the_topic_path_does_not_import_sklearn():
    import subprocess
    import sys

    code = ("import sys; import eigensparse.cli, eigensparse.cli._topics, eigensparse.text, "
            "eigensparse._dispatch, eigensparse.solvers, eigensparse.bounds; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'pandas')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**__import__("os").environ, "PYTHONPATH": str(SRC.parent)})
    assert out.stdout.strip() == "[]"


def test_capabilities_live_on_the_spec_only():
    """No name list or function attribute carries a method's capabilities."""
    for path in SRC.rglob("*.py"):
        text = path.read_text()
        for name in ("WARM_RESOLVE", "PARTNER_CHAINS", "BOUNDED_METHODS", "takes_init"):
            assert name not in text, f"{name} in {path.relative_to(SRC)}"
    auto = get_method("auto")
    assert auto.warm_start and auto.bounded and auto.takes("init")
    assert [f.__name__ for f in auto.alternative_solves] == ["two_start_tpower"]
    assert {s.name for s in methods() if s.bounded} == {"auto", "tpower", "bca"}
    assert [s.name for s in methods() if s.warm_start] == ["auto"]
    # every declared constraint is about a parameter of the method's function
    import inspect

    for spec in methods():
        assert set(spec.constraints) <= set(inspect.signature(spec.func).parameters), spec.name


@pytest.fixture(scope="module")
def X():
    return np.random.default_rng(0).standard_normal((60, 9))


def _count_checks(monkeypatch):
    """Counts every call of the constraint check (from any caller)."""
    calls = []
    real = _validation.check_constraints

    def counting(constraints, params, caller):
        calls.append(caller)
        return real(constraints, params, caller)

    monkeypatch.setattr(_validation, "check_constraints", counting)
    return calls


@pytest.mark.parametrize("front", ["sparse_pca", "SparsePCA"])
def test_each_front_door_checks_once_and_nested_calls_trust_it(X, monkeypatch, front):
    """The front door's parameters once, the method's options once (against its spec);
    the solves below (auto calls tpower, the refinement re-solves) check nothing."""
    calls = _count_checks(monkeypatch)
    kw = dict(n_components=3, cardinality=3, random_state=0)
    if front == "sparse_pca":
        es.sparse_pca(X, n_starts=4, **kw)
        assert calls == ["sparse_pca", "auto"]
    else:
        es.SparsePCA(method_options={"n_starts": 4}, **kw).fit(X)
        assert calls == ["SparsePCA", "auto"]


def test_extract_topics_checks_its_config_once_and_its_solves_trust_it(monkeypatch):
    """extract_topics: its options once (TopicConfig, the shared constraints), the
    method's once; the vocabulary pruning, the bounded topic solves and the method inside
    check nothing."""
    import scipy.sparse as sp

    from eigensparse.text import extract_topics

    X = sp.csr_matrix(np.random.default_rng(0).poisson(0.5, (200, 40)).astype(float))
    calls = _count_checks(monkeypatch)
    res = extract_topics(X, n_topics=2, cardinality=3, min_df=1, max_df=1.0, progress=False,
                         method_options={"n_starts": 4})
    assert [t.cardinality for t in res.topics] == [3, 3]
    assert calls == ["extract_topics", "auto"]
    # the shared constraint's wording, naming the parameter, the value and what is valid
    with pytest.raises(es.InvalidParameterError,
                       match=r"'cardinality_rule' parameter of extract_topics.*'knee'.*Got 'elbow'"):
        extract_topics(X, cardinality="auto", cardinality_rule="elbow")
    with pytest.raises(es.InvalidParameterError, match=r"'n_topics' parameter of extract_topics.*True"):
        extract_topics(X, n_topics=True)
    with pytest.raises(es.InvalidParameterError, match="did you mean 'n_topics'"):
        extract_topics(X, n_topic=2)


def test_a_direct_solver_call_is_checked_once(X, monkeypatch):
    S = es.Covariance(np.cov(X.T))
    calls = _count_checks(monkeypatch)
    es.solvers.get_solver("auto").func(S, 3, n_starts=4, random_state=0)
    assert calls == ["auto"]  # not again for the tpower it runs inside


def test_errors_name_parameter_value_and_what_is_valid(X):
    # an option of the method, named as a parameter of the function the user called
    with pytest.raises(es.InvalidParameterError, match=r"'tol' parameter of sparse_pca.*range.*Got -1"):
        es.sparse_pca(X, tol=-1)
    S = es.Covariance(np.eye(4))
    with pytest.raises(es.InvalidParameterError, match=r"'n_starts' parameter of tpower.*Got 0"):
        es.solvers.get_solver("tpower").func(S, 2, n_starts=0)
    with pytest.raises(es.InvalidParameterError, match=r"'cardinality' parameter of greedy.*True"):
        es.solvers.get_solver("greedy").func(S, True)
    with pytest.raises(es.InvalidParameterError, match=r"'op' parameter of bca.*Operator"):
        es.solvers.get_solver("bca").func(np.eye(4), 2)


@pytest.mark.parametrize("call, name", [
    (lambda X: es.sparse_pca(X, n_component=3), "n_components"),
    (lambda X: es.sparse_pca(X, cardinalty=3), "cardinality"),
    (lambda X: es.sparse_pca(X, random_stat=0), "random_state"),
    (lambda X: es.sparse_pca(X, refin=False), "refine"),
])
def test_a_misspelt_parameter_is_named(X, call, name):
    """``sparse_pca(X, n_component=3)``: the parameter of the function called is named,
    not only the method's options."""
    with pytest.raises(es.InvalidParameterError) as err:
        call(X)
    assert f"did you mean {name!r}" in str(err.value)
    assert "sparse_pca" in str(err.value)


def test_a_misspelt_option_or_method_is_named(X):
    with pytest.raises(es.InvalidParameterError, match="did you mean 'n_starts'"):
        es.sparse_pca(X, method="tpower", n_startz=3)
    with pytest.raises(es.InvalidParameterError, match="did you mean 'power_iter'"):
        es.SparsePCA(method="scol", method_options={"power_itr": 3}).fit(X)
    with pytest.raises(es.InvalidParameterError, match="did you mean 'greedy'"):
        es.sparse_pca(X, method="gredy")
    # nothing close: the valid options, without a guess
    with pytest.raises(es.InvalidParameterError, match="unknown option") as err:
        es.sparse_pca(X, method="greedy", bogus=1)
    assert "did you mean" not in str(err.value)


def test_max_time_is_the_one_name_of_a_time_limit():
    """Every method's time limit is ``max_time``; the former names are deprecated
    aliases with a FutureWarning where they were public."""
    for spec in methods():
        assert not {"time_budget", "time_limit"} & set(spec.options) - {
            ("time_budget" if spec.name == "bipartite" else None),
            ("time_limit" if spec.name == "dspca" else None)}, spec.name
    for name in ("bca", "dspca", "exact", "exhaustive", "bipartite"):
        assert get_method(name).takes("max_time"), name
    S = es.Covariance(es.datasets.load_pitprops().data[:6, :6])
    with pytest.warns(FutureWarning, match="'time_limit'.*deprecated.*'max_time'"):
        r = get_method("dspca").func(S, 2, time_limit=30.0)
    assert r.support.tolist() == [0, 1]
    from eigensparse.relaxation import bca_relaxation, first_order_relaxation

    C = S.to_dense()
    for relax in (bca_relaxation, first_order_relaxation):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            new = relax(C, 0.1, max_time=30.0)
        with pytest.warns(FutureWarning, match="'time_limit' is deprecated"):
            old = relax(C, 0.1, time_limit=30.0)
        np.testing.assert_allclose(old.Z, new.Z)
        with pytest.raises(es.InvalidParameterError, match="not both"):
            relax(C, 0.1, max_time=1.0, time_limit=1.0)
