"""``eigensparse methods``: the method registry as a table."""
from __future__ import annotations

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("methods", help="list the available methods",
                       description="List the methods of the registry: single-component solvers "
                                   "(used with a deflation) and joint methods, with what they take, "
                                   "their cost class and their options.")
    p.add_argument("-v", "--verbose", action="store_true", help="also list each method's options")
    p.set_defaults(run=run)
    return p


def run(args) -> int:
    from ..registry import DEFAULT_METHOD, methods

    rows = []
    for spec in methods():
        takes = "+".join(w for w, ok in (("s", spec.takes_cardinality), ("penalty", spec.takes_penalty))
                         if ok)
        data = "data" if spec.needs_data is True else ("data*" if callable(spec.needs_data) else "cov")
        name = spec.name + (" (default)" if spec.name == DEFAULT_METHOD else "")
        rows.append((name, spec.kind, takes, data, spec.cost or "-", spec.description))
    heads = ("method", "kind", "takes", "input", "cost", "description")
    w = [max(len(r[i]) for r in rows + [heads]) for i in range(5)]
    print("  ".join(h.ljust(w[i]) if i < 5 else h for i, h in enumerate(heads)))
    for r, spec in zip(rows, methods()):
        print("  ".join(c.ljust(w[i]) if i < 5 else c for i, c in enumerate(r)))
        if args.verbose:
            shown = [o for o in spec.options if o not in spec.deprecated]
            print(" " * (w[0] + 2) + "options: " + (", ".join(shown) or "-"))
    print("input: cov = a covariance suffices; data = needs the data matrix; "
          "data* = depends on the options (e.g. am's L1-variance formulations)")
    return 0
