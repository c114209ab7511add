"""validate_params maps a call's arguments to parameter names as ``signature.bind`` does
(same names, same order, same defaults; the same TypeError for a call Python refuses)."""
import inspect

import pytest

from eigensparse._constraints import fast_binder


def f1(a, b=2, *, c=3, d):
    pass


def f2(self, S, *, n=None, scale=False):
    pass


def f3(data, *, x=1, **kw):
    pass


def f4(a, /, b, *args, c=1, **kw):
    pass


CALLS = [((), {}), ((1,), {}), ((1, 2), {}), ((1,), {"d": 4}), ((1, 2), {"d": 4, "c": 5}),
         ((1,), {"a": 3, "d": 1}), ((1, 2, 3), {}), ((), {"a": 1, "d": 2}), ((1,), {"zz": 1}),
         ((1,), {"b": 5, "d": 0}), ((1, 2), {"b": 3}), ((), {"data": 1, "x": 2, "y": 3}),
         ((1,), {"a": 9}), ((1, 2, 3, 4), {"c": 0, "q": 1}), ((1,), {"b": 2})]


def _outcome(call, args, kwargs):
    try:
        return call(args, kwargs)
    except TypeError as exc:
        return ("TypeError", str(exc))


@pytest.mark.parametrize("func", [f1, f2, f3, f4])
def test_binding_matches_signature_bind(func):
    sig = inspect.signature(func)
    unchecked = {q.name for q in sig.parameters.values()
                 if q.kind in (q.VAR_POSITIONAL, q.VAR_KEYWORD)} | {"self", "cls"}

    def reference(args, kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        return {k: v for k, v in bound.arguments.items() if k not in unchecked}

    fast = fast_binder(sig, unchecked)
    for args, kwargs in CALLS:
        ref, got = _outcome(reference, args, kwargs), _outcome(fast, args, kwargs)
        assert ref == got
        if isinstance(ref, dict):
            assert list(ref) == list(got)  # the first failing parameter is reported
