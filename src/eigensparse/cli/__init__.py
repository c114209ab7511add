"""Command line: ``eigensparse`` / ``python -m eigensparse``.

Commands
--------
topics   sparse principal components of a bag-of-words corpus, printed as topics
fit      sparse principal components of a data file (CSV/TSV, .npy, .npz, Matrix Market)
         or of a precomputed covariance
methods  list the available methods (from the method registry)

Every data command builds its options from :mod:`._options` (components, method and
its registry-generated options, scaling and centering, output) and prints and writes
its result with :mod:`._report` (one table, one JSON schema).
"""
from __future__ import annotations

import argparse
import sys
import warnings

from ._options import CLIError, OneLineParser, check_output_paths

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The ``eigensparse`` argument parser: one sub-command per module (``topics``, ``fit``,
    ``methods``), method options generated from the registry.

    Examples
    --------
    >>> from eigensparse.cli import build_parser
    >>> args = build_parser().parse_args(["fit", "data.csv", "-k", "2", "-s", "3"])
    >>> args.command, args.n_components, args.cardinality
    ('fit', 2, 3)
    """
    from . import _fit, _methods, _topics

    parser = OneLineParser(
        prog="eigensparse",
        description="Sparse principal component analysis: readable components with an exact "
                    "number of nonzero loadings.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices
    for command in (_topics, _fit, _methods):
        command.add_parser(sub)
    return parser


def _version():
    from .. import __version__

    return __version__


def _one_line_warnings():
    """Show warnings as one line each on stderr (``eigensparse: warning: ...``); returns
    the previous ``warnings.showwarning`` to restore."""
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"eigensparse: warning: {str(message).splitlines()[0]}", file=sys.stderr)

    old, warnings.showwarning = warnings.showwarning, show
    return old


def main(argv=None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit
    status (0, or 2 after a one-line error on stderr).

    Examples
    --------
    >>> from eigensparse.cli import main
    >>> main(["methods"])  # doctest: +ELLIPSIS
    method...auto...
    0
    """
    from .._validation import InvalidParameterError

    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)  # usage errors: one line, exit 2
    if unknown:  # reported by the command's parser, as parse_args would by the top one
        command = parser.commands.get(args.command, parser)
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help()
        return 0
    old_showwarning = _one_line_warnings()
    try:
        check_output_paths(args)
        return args.run(args)
    except (CLIError, InvalidParameterError, ValueError, OSError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"eigensparse: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("eigensparse: interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.showwarning = old_showwarning
