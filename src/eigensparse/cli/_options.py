"""Options shared by the data commands, the method options generated from the
registry, and their reading back into keyword arguments."""
from __future__ import annotations

import argparse
import inspect

__all__ = ["CLIError", "positive_int", "cardinality_value", "cardinality_options", "add_component_options", "add_method_options",
           "add_center_options", "add_output_options", "method_options", "SHARED_OPTIONS"]

#: method options with a shared flag of their own (not generated per method)
SHARED_OPTIONS = ("penalty",)


class CLIError(Exception):
    """A usage error printed as one line."""


def positive_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {v}")
    return v


def cardinality_value(text):
    """``-s``: a positive int, or ``auto``."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer or 'auto', got {text!r}") from None


def fraction_value(text):
    try:
        v = float(text)
    except ValueError:
        v = None
    if v is None or not 0 < v <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}")
    return v


def add_component_options(p, *, default_cardinality: int, default_deflation: str):
    """-k, -s, --method (registry names), --deflation, --penalty, --random-state."""
    from ..multi import DEFLATIONS
    from ..registry import DEFAULT_METHOD, method_names

    p.add_argument("-k", "--n-components", type=positive_int, default=5,
                   help="number of components (default 5)")
    from ..selection import RULES

    p.add_argument("-s", "--cardinality", type=cardinality_value, default=None,
                   help=f"nonzero loadings per component (default {default_cardinality}; "
                        "none with --penalty), or 'auto': chosen per component by "
                        "--cardinality-rule")
    p.add_argument("--cardinality-rule", default="fraction", choices=list(RULES),
                   help="rule of -s auto: the smallest s reaching --cardinality-fraction of the "
                        "dense component's variance (default), the knee of the variance-"
                        "cardinality path, or cross-validation (cv)")
    p.add_argument("--cardinality-fraction", type=fraction_value, default=0.9, metavar="F",
                   help="fraction of the fraction rule (default 0.9)")
    p.add_argument("--stability", type=positive_int, default=None, metavar="B",
                   help="support stability over B bootstrap refits (a 'stability' row per "
                        "component; refits run --n-jobs at a time)")
    p.add_argument("--method", default=None, metavar="METHOD",
                   help=f"one of {', '.join(method_names())} (default {DEFAULT_METHOD}; "
                        "see `eigensparse methods`)")
    p.add_argument("--deflation", default=default_deflation, choices=list(DEFLATIONS),
                   help=f"deflation scheme (default {default_deflation})")
    p.add_argument("--penalty", type=float, default=None,
                   help="penalty rho for the methods that take one (`eigensparse methods`)")
    p.add_argument("--random-state", type=int, default=0, help="seed (default 0)")


def add_center_options(p):
    c = p.add_mutually_exclusive_group()
    c.add_argument("--center", dest="center", action="store_true", default=True,
                   help="center the features (default)")
    c.add_argument("--no-center", dest="center", action="store_false",
                   help="uncentered second moments XᵀX/n")


def add_output_options(p):
    p.add_argument("--json", metavar="FILE", help="also write the result as JSON to FILE "
                   "(strict JSON, written atomically)")
    p.add_argument("--plot", metavar="DIR", help="write PNG diagnostics to DIR: the sorted "
                   "loadings, the variance-cardinality path with bounds and the chosen s "
                   "(-s auto), the stability heat map (--stability)")
    p.add_argument("-v", "--verbose", action="store_true", help="print timings (phase table)")


def _value(text: str):
    """A method option's value: int, float, true/false, none, else the string."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def _method_option_table() -> dict:
    """{option: ([defaults], [methods])} over the registry."""
    from ..registry import methods

    table: dict = {}
    for spec in methods():
        sig = inspect.signature(spec.func)
        for name in spec.options:
            if name in SHARED_OPTIONS:
                continue
            defaults, owners = table.setdefault(name, ([], []))
            defaults.append(sig.parameters[name].default)
            owners.append(spec.name)
    return table


def add_method_options(p):
    """One flag per option of the registered methods (read from their signatures); only
    the flags given reach the method, whose own defaults apply otherwise."""
    g = p.add_argument_group("method options (generated from the method registry; each "
                             "applies to the methods named)")
    for name, (defaults, owners) in sorted(_method_option_table().items()):
        flag = "--" + name.replace("_", "-")
        who = ", ".join(owners)
        default = defaults[0]
        shown = repr(default) if all(d == default for d in defaults) else "each method's own"
        if isinstance(default, bool):
            if default:
                g.add_argument("--no-" + name.replace("_", "-"), dest=f"opt_{name}",
                               action="store_false", default=argparse.SUPPRESS,
                               help=f"{name}=False ({who})")
            else:
                g.add_argument(flag, dest=f"opt_{name}", action="store_true",
                               default=argparse.SUPPRESS, help=f"{name}=True ({who})")
        else:
            g.add_argument(flag, dest=f"opt_{name}", type=_value, default=argparse.SUPPRESS,
                           metavar="V", help=f"{who} (default {shown})")


def cardinality_options(args) -> dict:
    """The keyword arguments of -s auto and --stability."""
    if args.stability is not None and args.stability < 2:
        raise CLIError(f"--stability needs at least 2 refits; got {args.stability}")
    return {"cardinality_rule": args.cardinality_rule,
            "cardinality_fraction": args.cardinality_fraction, "stability": args.stability}


def method_options(args) -> dict:
    """The method options given on the command line."""
    return {k[4:]: v for k, v in vars(args).items() if k.startswith("opt_")}
