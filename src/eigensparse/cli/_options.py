"""Options shared by the data commands, the method options generated from the
registry, and their reading back into keyword arguments."""
from __future__ import annotations

import argparse
import inspect
import os

__all__ = ["CLIError", "DeprecatedFlag", "OneLineParser", "check_output_paths", "positive_int",
           "cardinality_value", "cardinality_options", "add_component_options",
           "add_method_options", "add_center_options", "add_output_options", "method_options",
           "solver_arguments", "SHARED_OPTIONS"]

#: method options with a shared flag of their own (not generated per method)
SHARED_OPTIONS = ("penalty",)



class DeprecatedFlag(argparse.Action):
    """A flag's deprecated spelling: stores its value under the new flag's ``dest`` with a
    FutureWarning naming the new flag (``new=``). Add it with ``default=argparse.SUPPRESS``
    and ``help=argparse.SUPPRESS`` so that the new flag's default and help stand alone."""

    def __init__(self, option_strings, dest, *, new: str, **kwargs):
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        import warnings

        warnings.warn(f"{option_string} is deprecated and will be removed; use {self.new}",
                      FutureWarning, stacklevel=2)
        setattr(namespace, self.dest, values)

class CLIError(Exception):
    """A usage error printed as one line."""


class OneLineParser(argparse.ArgumentParser):
    """argparse with one-line errors (``eigensparse: error: ...``, exit code 2); the
    subcommand parsers inherit the class."""

    def error(self, message):
        from .._printable import printable  # an argument with a line break stays on the line

        self.exit(2, f"{self.prog}: error: {printable(message)} (see `{self.prog} --help`)\n")


def _writable_dir(option, path, directory):
    """The nearest existing ancestor of ``directory`` (created on write) must accept files."""
    d = os.path.abspath(directory or ".")
    while not os.path.exists(d):
        d = os.path.dirname(d)
    if not os.path.isdir(d):
        raise CLIError(f"{option} {path}: {d} is not a directory")
    if not os.access(d, os.W_OK | os.X_OK):
        raise CLIError(f"{option} {path}: cannot write in {d} (permission denied)")


def _not_a_directory(path):
    """What a non-directory node at ``path`` is, in words (links followed)."""
    import stat

    from ..io._atomic import _KINDS

    mode = os.stat(path).st_mode
    return next((name for test, name in _KINDS if test(mode)),
                "a file" if stat.S_ISREG(mode) else "not a directory")


def check_output_paths(args):
    """Refuse output paths of the wrong kind before any work (one line, naming the option):
    an empty path, a --json that is a directory, device, FIFO or socket (or a link to one),
    a --plot or --cache-dir that exists and is not a directory, an output whose nearest
    existing directory does not accept files. Links are followed (a dangling one is
    written through: its target is created)."""
    for option, dest in (("--json", "json"), ("--plot", "plot"), ("--cache-dir", "cache_dir")):
        if getattr(args, dest, None) == "":
            raise CLIError(f"{option}: empty path; give a "
                           + ("file name" if dest == "json" else "directory"))
    json_path, plot_dir = getattr(args, "json", None), getattr(args, "plot", None)
    if json_path:  # a directory, device, FIFO or socket (or a link to one): refused
        from ..io._atomic import resolve_output_path
        try:
            real, _ = resolve_output_path(json_path)
        except OSError as exc:
            raise CLIError(f"--json {exc}") from None
        _writable_dir("--json", json_path, os.path.dirname(real))
    for option, d in (("--plot", plot_dir), ("--cache-dir", getattr(args, "cache_dir", None))):
        if not d:
            continue
        real = os.path.realpath(d)
        if os.path.exists(real) and not os.path.isdir(real):
            raise CLIError(f"{option} {d}: is {_not_a_directory(real)}; give a directory")
        if option == "--plot":
            _writable_dir(option, d, real)


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


def constrained(name: str, parse=int):
    """An argparse type for the front doors' parameter ``name``: the text read by ``parse``
    and checked against its constraint (:data:`eigensparse._dispatch.COMPONENT_CONSTRAINTS`,
    the one declaration the Python front doors use too), a one-line error otherwise."""
    from .._dispatch import COMPONENT_CONSTRAINTS
    from .._validation import InvalidParameterError, check_params, make_constraint

    rules = [c for c in COMPONENT_CONSTRAINTS[name] if c is not None]
    valid = " or ".join(str(make_constraint(c)) for c in rules)

    def convert(text):
        try:
            value = parse(text)
            check_params({name: value}, {name: rules}, name)
        except (ValueError, InvalidParameterError):
            raise argparse.ArgumentTypeError(f"expected {valid}, got {text!r}") from None
        return value

    convert.__name__ = name  # argparse names the type in its messages
    return convert


def fraction_value(text):
    """``--cardinality-fraction``: the constraint of ``cardinality_fraction``."""
    return constrained("cardinality_fraction", float)(text)


def add_component_options(p, *, default_cardinality, default_deflation: str, default_components=5,
                          default_rule: str = "fraction"):
    """-k, -s, --method (registry names), --deflation, --penalty, --random-state.

    ``default_cardinality`` is only shown in the help (-s defaults to None: the command's
    own rule); ``default_components`` is -k's default (None: ``sparse_pca``'s rule)."""
    from ..multi import DEFLATIONS
    from ..registry import DEFAULT_METHOD, method_names

    shown = "min(5, n_features)" if default_components is None else default_components
    p.add_argument("-k", "--n-components", type=constrained("n_components"), default=default_components,
                   help=f"number of components (default {shown})")
    from ..selection import RULES

    p.add_argument("-s", "--cardinality", type=cardinality_value, default=None,
                   help=f"nonzero loadings per component (default {default_cardinality}; "
                        "none with --penalty), or 'auto': chosen per component by "
                        "--cardinality-rule")
    p.add_argument("--cardinality-rule", default=default_rule, choices=list(RULES),
                   help="rule of -s auto: the smallest s reaching --cardinality-fraction of the "
                        "dense component's variance (fraction), the knee of the variance-"
                        "cardinality path, cross-validation (cv), or a topic-sized s in "
                        f"[5, 30] (topics); default {default_rule}")
    p.add_argument("--cardinality-fraction", type=fraction_value, default=0.9, metavar="F",
                   help="fraction of the fraction rule (default 0.9)")
    p.add_argument("--stability", type=constrained("stability"), default=None, metavar="B",
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
            if name in SHARED_OPTIONS or name in spec.deprecated:
                continue
            defaults, owners = table.setdefault(name, ([], []))
            defaults.append(sig.parameters[name].default)
            owners.append(spec.name)
    return table


def add_method_options(p):
    """One flag per option of the registered methods (read from their signatures); only
    the flags given reach the method, whose own defaults apply otherwise. A flag the
    command already defines (e.g. ``--n-jobs`` of ``topics``) keeps the command's meaning."""
    g = p.add_argument_group("method options (generated from the method registry; each "
                             "applies to the methods named)")
    for name, (defaults, owners) in sorted(_method_option_table().items()):
        flag = "--" + name.replace("_", "-")
        if flag in p._option_string_actions or "--no-" + flag[2:] in p._option_string_actions:
            continue
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
    """The keyword arguments of -s auto and --stability (checked by their types)."""
    return {"cardinality_rule": args.cardinality_rule,
            "cardinality_fraction": args.cardinality_fraction, "stability": args.stability}


def method_options(args) -> dict:
    """The method options given on the command line."""
    return {k[4:]: v for k, v in vars(args).items() if k.startswith("opt_")}


def solver_arguments(args, *, cardinality=None) -> dict:
    """The keyword arguments of :func:`eigensparse.sparse_pca` read from the shared
    options: ``n_components``, ``cardinality`` (``-s``, else ``cardinality``), ``method``
    (``--method``, else the registry default), ``deflation``, ``penalty``,
    ``random_state``, those of -s auto and ``--stability`` (:func:`cardinality_options`,
    with ``--n-jobs`` when the command has it) and the method options given."""
    from ..registry import DEFAULT_METHOD

    return dict(n_components=args.n_components,
                cardinality=args.cardinality if args.cardinality is not None else cardinality,
                method=args.method or DEFAULT_METHOD, deflation=args.deflation,
                penalty=args.penalty, random_state=args.random_state,
                n_jobs=getattr(args, "n_jobs", None), **cardinality_options(args),
                **method_options(args))
