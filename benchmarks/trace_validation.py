#!/usr/bin/env python
"""How many times one request is checked: the validation calls behind each front door.

Counts, with a profiling hook, the calls of the functions that check parameters or
normalise a request during

* ``sparse_pca(X, n_components=3, cardinality=5)`` (X: 500 × 40 Gaussian),
* ``SparsePCA(3, cardinality=5).fit(X)``,
* ``extract_topics(counts, words, n_topics=3, cardinality=5)`` (a 2,000 × 300 sparse
  count matrix, in memory),

after one warm-up call of each (imports and compilation are not counted). A check is a
call of ``eigensparse._constraints.check_constraints`` (behind every
``@validate_params``, the estimator's ``_validate_params`` and ``check_params``), of a
``check_*`` function of :mod:`eigensparse._validation`, or of a method-options check
(``MethodSpec.check_options``); a normalisation is a call of the dispatcher's
``resolve_method`` or ``plan_components``. The table gives the calls per function and
the totals per front door.

Usage::

    python benchmarks/trace_validation.py
"""
from __future__ import annotations

import sys
from collections import Counter

import numpy as np
import scipy.sparse as sp


def _targets() -> dict:
    """{code object: label} of the functions counted."""
    import eigensparse._constraints as constraints
    import eigensparse._dispatch as dispatch
    import eigensparse._validation as validation
    from eigensparse.registry import MethodSpec

    funcs = {"_constraints.check_constraints": constraints.check_constraints,
             "MethodSpec.check_options": MethodSpec.check_options,
             "_dispatch.resolve_method": dispatch.resolve_method,
             "_dispatch.plan_components": dispatch.plan_components}
    for name in dir(validation):
        f = getattr(validation, name)
        if name.startswith("check_") and callable(f) and getattr(f, "__module__", "") == validation.__name__:
            funcs[f"_validation.{name}"] = f
    return {f.__code__: label for label, f in funcs.items()}


def count_calls(run) -> Counter:
    """Calls of the target functions while ``run()`` runs."""
    targets, counts = _targets(), Counter()

    def hook(frame, event, arg):
        if event == "call":
            label = targets.get(frame.f_code)
            if label is not None:
                counts[label] += 1

    sys.setprofile(hook)
    try:
        run()
    finally:
        sys.setprofile(None)
    return counts


def main() -> None:
    import eigensparse as es
    from eigensparse.text import extract_topics

    rng = np.random.default_rng(0)
    X = rng.standard_normal((500, 40))
    counts = sp.random(2000, 300, density=0.05, format="csr", random_state=1,
                       data_rvs=lambda n: rng.integers(1, 4, n).astype(float))
    words = [f"w{i}" for i in range(300)]
    doors = {
        "sparse_pca": lambda: es.sparse_pca(X, n_components=3, cardinality=5, random_state=0),
        "SparsePCA.fit": lambda: es.SparsePCA(3, cardinality=5, random_state=0).fit(X),
        "extract_topics": lambda: extract_topics(counts, words, n_topics=3, cardinality=5,
                                                 min_df=1, progress=False),
    }
    tables = {}
    for name, run in doors.items():
        run()  # warm-up: imports, compiled kernels
        tables[name] = count_calls(run)
    labels = sorted(set().union(*tables.values()))
    width = max(len(lb) for lb in labels)
    print(f"{'function':<{width}}  " + "  ".join(f"{n:>14}" for n in doors))
    for lb in labels:
        print(f"{lb:<{width}}  " + "  ".join(f"{tables[n][lb]:>14}" for n in doors))
    print(f"{'total':<{width}}  " + "  ".join(f"{sum(tables[n].values()):>14}" for n in doors))


if __name__ == "__main__":
    main()
