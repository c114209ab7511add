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

from ._options import CLIError

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    from . import _fit, _methods, _topics

    parser = argparse.ArgumentParser(
        prog="eigensparse",
        description="Sparse principal component analysis: readable components with an exact "
                    "number of nonzero loadings.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in (_topics, _fit, _methods):
        command.add_parser(sub)
    return parser


def _version():
    from .. import __version__

    return __version__


def main(argv=None) -> int:
    from .._validation import InvalidParameterError

    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # as parse_args, through the command's one-line error when it has one
        getattr(args, "usage_error", parser.error)(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return args.run(args)
    except (CLIError, InvalidParameterError, ValueError, OSError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"eigensparse: error: {msg}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("eigensparse: interrupted", file=sys.stderr)
        return 130
